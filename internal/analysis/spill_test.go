package analysis

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/report"
)

// A run whose held signals and file list outgrow a small spill budget
// finds what a run holding them all in memory finds, and reads the same: the sample cluster
// (all five defects, clock offsets, rotated and gzipped logs) with a budget
// of a few hundred signals.
func TestSpillGivesTheSameReport(t *testing.T) {
	dir := t.TempDir()
	s, r := scripts.Sample()
	if err := s.Render(dir, r); err != nil {
		t.Fatal(err)
	}
	run := func(budget int64, spillDir string) (*report.Result, []byte) {
		res, err := Run(context.Background(), Options{Inputs: []string{dir}, Detectors: registry.All(),
			SpillBudget: budget, SpillDir: spillDir})
		if err != nil {
			t.Fatal(err)
		}
		spilled, spillErr := res.Coverage.Stream.Spilled, res.Coverage.Stream.SpillError
		res.Coverage.Stream.Spilled, res.Coverage.Stream.SpillError = 0, ""
		out, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		res.Coverage.Stream.Spilled, res.Coverage.Stream.SpillError = spilled, spillErr
		return res, out
	}
	inMemory, want := run(0, "")
	if inMemory.Findings.Len() < 5 {
		t.Fatalf("%d findings in the sample, want all five defects", inMemory.Findings.Len())
	}
	spillDir := t.TempDir()
	spilled, got := run(64<<10, spillDir)
	if n := spilled.Coverage.Stream.Spilled; n < inMemory.Coverage.Totals.Signals/2 {
		t.Fatalf("%d of %d signals spilled with a 64 KiB budget", n, inMemory.Coverage.Totals.Signals)
	}
	if !spilled.Coverage.Files.OnDisk() || inMemory.Coverage.Files.OnDisk() {
		t.Fatalf("the list of %d files went to a file with a 64 KiB budget: %v, without one: %v", spilled.Coverage.Files.Len(),
			spilled.Coverage.Files.OnDisk(), inMemory.Coverage.Files.OnDisk())
	}
	if string(got) != string(want) {
		t.Fatalf("the report differs with spilling:\n%s\nwithout:\n%s", got, want)
	}
	if entries, _ := os.ReadDir(spillDir); len(entries) > 0 {
		t.Fatalf("left in the spill directory: %v", entries)
	}
	// A spill directory that cannot be used: the run says so, keeps the
	// signals in memory and finds the same.
	failed, got := run(64<<10, dir+"/missing")
	if failed.Coverage.Stream.SpillError == "" || failed.Coverage.Stream.Spilled != 0 || failed.Coverage.Files.OnDisk() {
		t.Fatalf("stream coverage %+v: want a spill error and nothing spilled", failed.Coverage.Stream)
	}
	if string(got) != string(want) {
		t.Fatalf("the report differs when spilling failed:\n%s\nwithout:\n%s", got, want)
	}
}
