package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/report"
)

// clock is a wall clock the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// The sample's cluster, its logs written into followed files piece by
// piece (lines cut anywhere) while the daemon polls, with a crash and a
// restart from the last checkpoint halfway: the daemon ends with the
// findings a bundle run over the same files reports.
func TestWatchFindsWhatABundleRunFinds(t *testing.T) {
	src, opt, batch := sampleRun(t)
	want := summary(batch.Findings.Slice())
	if len(want) != 8 {
		t.Fatalf("batch run: %v", want)
	}

	// The files to write, by path relative to src.
	var files []string
	contents := map[string][]byte{}
	filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.Contains(e.Name(), ".log") || strings.HasSuffix(p, ".out") {
			rel, _ := filepath.Rel(src, p)
			files = append(files, rel)
			contents[rel], _ = os.ReadFile(p)
		}
		return nil
	})
	logs, state := t.TempDir(), t.TempDir()
	for _, f := range files {
		os.MkdirAll(filepath.Join(logs, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(logs, f), nil, 0o644)
	}
	// The wall clock runs after the logs' own times, as when they are
	// read as they are written.
	clk := &clock{t: time.Date(2026, 8, 23, 12, 1, 0, 0, time.UTC)}
	var out bytes.Buffer
	cfg := Config{Logs: []string{filepath.Join(logs, "*", "*")}, StateDir: state, CheckpointEvery: 3 * time.Second,
		Pipeline: opt, Findings: &out, Now: clk.now}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const pieces = 20
	ctx := context.Background()
	for i := 0; i < pieces; i++ {
		for _, f := range files {
			c := contents[f]
			from, to := len(c)*i/pieces, len(c)*(i+1)/pieces
			fh, err := os.OpenFile(filepath.Join(logs, f), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.Write(c[from:to])
			fh.Close()
		}
		clk.t = clk.t.Add(time.Second)
		if err := d.Step(ctx); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if i == pieces/2 {
			// A crash: no final checkpoint; the next daemon starts from
			// the last one written.
			if _, err := os.Stat(filepath.Join(state, checkpointFile)); err != nil {
				t.Fatalf("no checkpoint to restart from: %v", err)
			}
			d.src.close()
			if d, err = New(cfg); err != nil {
				t.Fatalf("restart: %v", err)
			}
		}
	}
	for i := 0; i < 60; i++ { // the files go quiet: open records end, idle streams release
		clk.t = clk.t.Add(time.Second)
		if err := d.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var got []detectors.Finding
	for _, f := range d.Alerts() {
		if f.State != detectors.Pending {
			got = append(got, f)
		}
	}
	if s := summary(got); !slices.Equal(s, want) {
		t.Errorf("daemon's alerts differ from the bundle run:\n got %v\nwant %v", s, want)
	}
	if !strings.Contains(out.String(), `"to":"firing"`) {
		t.Errorf("no transition on the findings stream:\n%s", out.String())
	}

	// The HTTP endpoints.
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready", "/metrics": "ozdoctor_alert_active{",
		"/alerts": `"alerts"`, "/": "Datanode Raft division stuck in CLOSING"} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(b.String(), want) {
			t.Errorf("%s: %d %.200s", path, res.StatusCode, b.String())
		}
	}
	// The page is the report's HTML, read-only.
	if res, err := srv.Client().Post(srv.URL+"/", "text/plain", nil); err != nil || res.StatusCode != 405 {
		t.Errorf("POST /: %v %v", res.StatusCode, err)
	}
	var alerts struct{ Alerts []detectors.Finding }
	res, _ := srv.Client().Get(srv.URL + "/alerts")
	json.NewDecoder(res.Body).Decode(&alerts)
	res.Body.Close()
	if len(alerts.Alerts) < 5 {
		t.Errorf("/alerts lists %d alerts", len(alerts.Alerts))
	}
}

// sampleRun renders the sample's cluster unrotated and returns its
// directory, the pipeline options of the daemons under test and a bundle
// run's result over it.
func sampleRun(t *testing.T) (string, analysis.Options, *report.Result) {
	t.Helper()
	src := t.TempDir()
	s, r := scripts.Sample()
	r.Rotate, r.Gzip = false, false
	if err := s.Render(src, r); err != nil {
		t.Fatal(err)
	}
	opt := analysis.Options{Detectors: registry.All(), Engine: detectors.EngineOptions{Retention: 24 * time.Hour}}
	bopt := opt
	bopt.Inputs = []string{src}
	batch, err := analysis.Run(context.Background(), bopt)
	if err != nil {
		t.Fatal(err)
	}
	return src, opt, batch
}

// summary names findings by detector, defect, key and severity, sorted.
func summary(fs []detectors.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s %s", f.Detector, f.Defect, f.Key, f.Severity))
	}
	slices.Sort(out)
	return out
}
