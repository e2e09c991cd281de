package daemon

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/report"
)

// The sidecar's report (its / page) gives each file it follows the
// coverage a bundle run gives the same file: both come from what the
// recognizer saw of it (analysis.Recognised), whether the file is still
// followed or was let go.
func TestWatchCoverageIsABundleRunsCoverage(t *testing.T) {
	src, opt, batch := sampleRun(t)
	byFile := map[string]report.FileCoverage{}
	for fc := range batch.Coverage.Files.All() {
		byFile[filepath.Base(fc.Path)] = fc
	}
	logs := t.TempDir()
	var names []string
	entries, _ := filepath.Glob(filepath.Join(src, "*", "*.log"))
	for _, p := range entries {
		rel, _ := filepath.Rel(src, p)
		data, _ := os.ReadFile(p)
		os.MkdirAll(filepath.Join(logs, filepath.Dir(rel)), 0o755)
		if err := os.WriteFile(filepath.Join(logs, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.Base(p))
	}
	if len(names) < 10 {
		t.Fatalf("the sample has %d log files", len(names))
	}
	clk := &clock{t: time.Date(2026, 8, 23, 12, 1, 0, 0, time.UTC)}
	d, err := New(Config{Logs: []string{filepath.Join(logs, "*", "*.log")}, LookBack: 1 << 30, Pipeline: opt, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 { // read to the end; the files go quiet and their open records end
		clk.t = clk.t.Add(time.Second)
		if err := d.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(when string, signals bool) {
		t.Helper()
		got := map[string]report.FileCoverage{}
		for fc := range d.Report().Coverage.Files.All() {
			got[filepath.Base(fc.Path)] = fc
		}
		for _, name := range names {
			w, g := byFile[name], got[name]
			if w.Path == "" || g.Path == "" {
				t.Errorf("%s %s: bundle run %q, sidecar %q", when, name, w.Path, g.Path)
				continue
			}
			w.Path, g.Path = "", ""
			if !signals {
				w.Signals, g.Signals = 0, 0
			}
			wj, _ := json.Marshal(w)
			gj, _ := json.Marshal(g)
			if string(wj) != string(gj) {
				t.Errorf("%s %s: the sidecar's coverage differs from the bundle run's:\n got %s\nwant %s", when, name, gj, wj)
			}
		}
	}
	// A file still followed has not handed on the silences that no record
	// with a signal ended yet (an audit log's all): its signals are compared
	// once it is let go.
	compare("followed:", false)
	for _, p := range entries {
		rel, _ := filepath.Rel(src, p)
		os.Remove(filepath.Join(logs, rel))
	}
	for range 5 {
		clk.t = clk.t.Add(time.Second)
		if err := d.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.src.(*files).follows); n > 0 {
		t.Fatalf("%d files still followed after they were removed", n)
	}
	compare("let go:", true)
}
