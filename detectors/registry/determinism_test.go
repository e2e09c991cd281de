package registry

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/sinks"
)

// Every test bundle and the sample bundle give byte-identical JSON reports
// run after run: no map order reaches a report.
func TestReportsAreByteIdentical(t *testing.T) {
	cases, err := filepath.Glob("../*/testdata/*.txtar")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	inputs := map[string]*detectortest.Case{filepath.Join("..", "..", "examples", "bundles", "sample.tar.gz"): nil}
	for _, p := range cases {
		dir := t.TempDir()
		c, err := detectortest.BuildFile(p, dir)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		inputs[dir] = c
	}
	for in, c := range inputs {
		opt := analysis.Options{Inputs: []string{in}, Detectors: All()}
		if c != nil {
			opt.DetectorOptions = c.Options
			if c.TZ != "" {
				if opt.Zone, err = time.LoadLocation(c.TZ); err != nil {
					t.Fatal(err)
				}
			}
		}
		var first []byte
		for i := 0; i < deterministicRuns; i++ {
			res, err := analysis.Run(context.Background(), opt)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			var b bytes.Buffer
			sink, _ := sinks.New("json", &b)
			if err := sink.Write(res); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = b.Bytes()
			} else if !bytes.Equal(first, b.Bytes()) {
				t.Fatalf("%s: run %d differs from run 1", in, i+1)
			}
		}
	}
	t.Logf("%d bundles, %d runs each, byte-identical", len(inputs), deterministicRuns)
}
