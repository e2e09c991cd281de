package analysis

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// Files read by several workers at once give the report one worker gives,
// byte for byte, with and without spilling: the sample cluster rendered in
// the tarball layout (rotated, gzipped, clock offsets) and again as one
// docker-compose capture, beside the shipped sample archive, a file that
// cannot be read and one that is not a log.
func TestWorkersGiveTheSameReport(t *testing.T) {
	dir := t.TempDir()
	s, r := scripts.Sample()
	if err := s.Render(filepath.Join(dir, "tarball"), r); err != nil {
		t.Fatal(err)
	}
	r.Layout, r.Rotate, r.Gzip = scenario.LayoutCompose, false, false
	if err := s.Render(filepath.Join(dir, "compose"), r); err != nil {
		t.Fatal(err)
	}
	sample, err := os.ReadFile("../../examples/bundles/sample.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "archive", "sample.tar.gz"), string(sample))
	write(t, filepath.Join(dir, "archive", "cut.tar.gz"), string(sample[:len(sample)/2]))
	write(t, filepath.Join(dir, "notes", "garbage.bin"), "\x00\x01\x02binary\x00")
	report := func(workers int, budget int64) string {
		res, err := Run(context.Background(), Options{Inputs: []string{dir}, Detectors: registry.All(),
			Workers: workers, SpillBudget: budget})
		if err != nil {
			t.Fatal(err)
		}
		res.Coverage.Stream.Spilled = 0
		out, err := json.MarshalIndent(res, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	want := report(1, 0)
	if !strings.Contains(want, "HDDS-16839") || !strings.Contains(want, "cut.tar.gz") {
		t.Fatalf("the report lacks the sample's findings or the cut archive:\n%s", clipText(want))
	}
	for _, c := range []struct {
		workers int
		budget  int64
	}{{2, 0}, {4, 0}, {1, 64 << 10}, {3, 64 << 10}, {8, 4 << 10}} {
		if got := report(c.workers, c.budget); got != want {
			t.Errorf("%d workers, spill budget %d: the report differs from one worker's:\n%s\nwant:\n%s", c.workers, c.budget, clipText(got), clipText(want))
		}
	}
}

func clipText(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}
