package analysis

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/report"
)

// A source of its own, which follows the sample's log files line by line
// through Input.Follow on the batch clock, gives each file the coverage and
// the run the findings that the bundle walk gives: every source has one
// shape, and the coverage is counted in one place.
func TestAFollowedSourceIsABundleRun(t *testing.T) {
	dir := t.TempDir()
	s, r := scripts.Sample()
	r.Rotate, r.Gzip = false, false
	if err := s.Render(dir, r); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "*.log"))
	if len(logs) < 10 {
		t.Fatalf("the sample has %d log files", len(logs))
	}
	opt := Options{Inputs: logs, Detectors: registry.All(), Engine: detectors.EngineOptions{Retention: 24 * time.Hour}}
	batch, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if batch.Findings.Len() == 0 {
		t.Fatal("the sample's log files gave no finding")
	}
	followed := SourceFunc(func(_ context.Context, in *Input, _ time.Time) (bool, error) {
		for _, path := range logs {
			f, err := os.Open(path)
			if err != nil {
				return true, err
			}
			fl := in.Follow(in.File(path), 1, 0)
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for n, off := 1, int64(0); sc.Scan(); n++ {
				fl.FeedLine(sc.Bytes(), n, off)
				off += int64(len(sc.Bytes())) + 1
			}
			fl.End(time.Time{})
			f.Close()
		}
		return true, nil
	})
	p, err := NewPipeline(opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Analyze(context.Background(), followed)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]report.FileCoverage{}
	for fc := range batch.Coverage.Files.All() {
		want[fc.Path] = fc
	}
	n := 0
	for fc := range got.Coverage.Files.All() {
		n++
		wj, _ := json.Marshal(want[fc.Path])
		gj, _ := json.Marshal(fc)
		if string(wj) != string(gj) {
			t.Errorf("%s: followed\n %s\nwalked\n %s", fc.Path, gj, wj)
		}
	}
	if n != len(logs) || len(want) != len(logs) {
		t.Errorf("%d files followed, %d walked, of %d", n, len(want), len(logs))
	}
	if g, w := findingsJSON(t, got), findingsJSON(t, batch); g != w {
		t.Errorf("the followed files' findings differ from the bundle run's:\n got %s\nwant %s", g, w)
	}
}
