// Package detectortest runs a detector's or a signature's test cases
// (package cases: txtar files in its testdata/) from go test: each case as
// a subtest, batch, live and restarted. `go test -update` rewrites the
// expectations from what was found.
package detectortest

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/cases"
)

var update = flag.Bool("update", false, "rewrite every case's expectations from the detectors' findings")

// Case is the case.json of a test case.
type Case = cases.Case

// Run runs every case in dir against one detector.
func Run(t *testing.T, reg detectors.Registration, dir string) {
	RunAll(t, []detectors.Registration{reg}, dir)
}

// RunAll runs every case in dir against the given detectors.
func RunAll(t *testing.T, regs []detectors.Registration, dir string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test cases in %s", dir)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			out, err := cases.Check(regs, p, cases.Options{Update: *update})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range out.Failures {
				t.Error(f)
			}
		})
	}
}

// BuildFile renders the bundle of the case in the txtar file path into dir.
func BuildFile(path, dir string) (*Case, error) { return cases.BuildFile(path, dir) }

// Reported drops the withdrawn pending findings, which never reach a report.
func Reported(fs []detectors.Finding) []detectors.Finding { return cases.Reported(fs) }

// Golden renders findings as indented JSON with file paths relative to root.
func Golden(fs []detectors.Finding, root string) []byte { return cases.Golden(fs, root) }

// Kinds counts a directory's cases with findings (positive) and without (quiet).
func Kinds(dir string) (positive, quiet int, err error) { return cases.Kinds(dir) }

// CheckState reports what would stop a checkpoint codec from saving a
// detector's state.
func CheckState(det any) error { return cases.CheckState(det) }
