package daemon

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
)

// A daemon that follows the sample's logs and scrapes a datanode's /prom
// (bearer token, as Ozone's hdds.prometheus.endpoint.token) cites the
// close-server counter of the stuck division in its alert, while a /prom
// that hangs, one that answers garbage and one that refuses the token are
// counted as failed scrapes and change nothing else.
func TestScrapeCorroboratesAndFaultsAreCounted(t *testing.T) {
	src, opt, batch := sampleRun(t)
	var stuck detectors.Finding
	for _, f := range batch.Findings.Slice() {
		if f.Defect == "HDDS-17674" {
			stuck = f
		}
	}
	if stuck.Key == "" || stuck.Facts["close_server_metric"] != "" {
		t.Fatalf("the sample's HDDS-17674 finding: %+v", stuck)
	}
	group, dn := stuck.Entities.RaftGroups[0], stuck.Entities.Datanodes[0].Host

	// A datanode's /prom as PrometheusMetricsSink writes it
	// (signatures-dn-om.md D.1, D.3).
	page := fmt.Sprintf("# TYPE csm_metrics_num_write_state_machine_fails counter\n"+
		"csm_metrics_num_write_state_machine_fails{context=\"dfs\",raftgroupid=%q,hostname=%q} 1\n"+
		"# TYPE csm_metrics_num_write_state_machine_ops counter\n"+
		"csm_metrics_num_write_state_machine_ops{context=\"dfs\",raftgroupid=%q,hostname=%q} 9041\n", group, dn, group, dn)
	mux := http.NewServeMux()
	mux.HandleFunc("/good/prom", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/hang/prom", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/garbage/prom", func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("\x00\xff{{ not metrics\n"), 100))
	})
	prom := httptest.NewServer(mux)
	defer prom.Close()

	logs := t.TempDir()
	filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(src, p)
			os.MkdirAll(filepath.Join(logs, filepath.Dir(rel)), 0o755)
			data, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(logs, rel), data, 0o644)
		}
		return nil
	})
	clk := &clock{t: time.Date(2026, 8, 23, 12, 1, 0, 0, time.UTC)}
	targets := []ScrapeTarget{{URL: prom.URL + "/good/prom", Component: "datanode"}, {URL: prom.URL + "/hang/prom"},
		{URL: prom.URL + "/garbage/prom"}}
	cfg := Config{Logs: []string{filepath.Join(logs, "*", "*")}, Pipeline: opt, Now: clk.now,
		Scrape: ScrapeConfig{Targets: targets, Token: "s3cret", Timeout: 300 * time.Millisecond}}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 60 {
		clk.t = clk.t.Add(time.Second)
		if i%20 == 0 {
			d.scrape(ctx)
		}
		if err := d.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var got detectors.Finding
	for _, f := range d.Alerts() {
		if f.Key == stuck.Key {
			got = f
		}
	}
	if !strings.Contains(got.Facts["close_server_metric"], "csm_metrics_num_write_state_machine_fails rose above 0") {
		t.Errorf("the alert does not cite the counter: facts %v", got.Facts)
	}
	cited := false
	for _, e := range got.Evidence {
		cited = cited || e.File == targets[0].URL && strings.Contains(e.Text, group)
	}
	if !cited {
		t.Errorf("no evidence from %s", targets[0].URL)
	}

	// Without the token the page is refused: a failed scrape.
	d.scraper.cfg.Token = ""
	d.scrape(ctx)
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	res.Body.Close()
	for _, want := range []string{
		fmt.Sprintf("ozdoctor_scrape_up{target=%q} 0", targets[0].URL),
		fmt.Sprintf("ozdoctor_scrape_failures_total{target=%q} 1", targets[0].URL),
		fmt.Sprintf("ozdoctor_scrape_failures_total{target=%q} 4", targets[1].URL),
		fmt.Sprintf("ozdoctor_scrape_failures_total{target=%q} 4", targets[2].URL),
		fmt.Sprintf("ozdoctor_records_read_total{source=%q} 6", targets[0].URL),
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// A state directory that cannot be written (replaced by a file here:
// permissions do not stop root) makes checkpoints fail: the daemon says so
// (the step's error, ozdoctor_checkpoint_failures_total) and goes on
// reading; once the directory can be written the next checkpoint is.
func TestCheckpointFailuresAreCountedAndSurvived(t *testing.T) {
	logs, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	os.MkdirAll(state, 0o755)
	log := filepath.Join(logs, "ozone-hadoop-scm-scm1.log")
	os.WriteFile(log, nil, 0o644)
	clk := &clock{t: time.Date(2026, 8, 23, 12, 0, 0, 0, time.UTC)}
	d, err := New(Config{Logs: []string{log}, StateDir: state, CheckpointEvery: time.Second,
		Pipeline: analysis.Options{Detectors: registry.All()}, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	metricsText := func() string {
		srv := httptest.NewServer(d.Handler())
		defer srv.Close()
		res, err := srv.Client().Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		return b.String()
	}
	step := func() error {
		clk.t = clk.t.Add(2 * time.Second)
		return d.Step(context.Background())
	}
	if err := step(); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(state)
	os.WriteFile(state, nil, 0o644)
	if err := step(); err == nil || !strings.Contains(err.Error(), "checkpoint") {
		t.Fatalf("a step without its state directory: %v", err)
	}
	os.WriteFile(log, []byte("2026-08-23 12:00:03,000 [main] INFO org.apache.hadoop.hdds.scm.server.StorageContainerManager: still reading\n"), 0o644)
	if err := step(); err == nil {
		t.Fatal("the second checkpoint did not fail")
	}
	if m := metricsText(); !strings.Contains(m, "ozdoctor_checkpoint_failures_total 2") ||
		!strings.Contains(m, `ozdoctor_records_read_total{source="`+log+`"} 1`) {
		t.Errorf("metrics after two failed checkpoints:\n%s", grepLines(m, "checkpoint|records_read"))
	}
	os.Remove(state)
	if err := step(); err != nil {
		t.Fatalf("with the directory back: %v", err)
	}
	if _, err := os.Stat(filepath.Join(state, checkpointFile)); err != nil {
		t.Error(err)
	}
	want := fmt.Sprintf("ozdoctor_checkpoint_last_success_timestamp_seconds %g", float64(clk.t.Unix()))
	if m := metricsText(); !strings.Contains(m, want) {
		t.Errorf("metrics lack %q:\n%s", want, grepLines(m, "checkpoint"))
	}
}

// grepLines returns the lines of s that match pattern.
func grepLines(s, pattern string) string {
	re := regexp.MustCompile(pattern)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
