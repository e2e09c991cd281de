package registry

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/sinks"
)

// The sample bundle, fleets over days (one defect per period, and all five
// in every period) and every fourth test bundle (testCases; the others:
// TestReportsOfTheOtherCasesAreByteIdentical, tag e2e) give byte-identical
// JSON reports run after run: no map order reaches a report. The first run
// calls Advance at every tick and holds every signal until the walk ends;
// the others skip the ticks at which every detector is quiet and hand on
// what precedes the next file as they read (analysis.Run), which changes
// no transition. The last has no subscriber, so its detectors leave out
// the updates no one sees (detectors.Env.Batch): its report is the same.
func TestReportsAreByteIdentical(t *testing.T) {
	fourth, _ := testCases(t)
	inputs := buildCases(t, fourth)
	inputs[filepath.Join("..", "..", "examples", "bundles", "sample.tar.gz")] = nil
	for _, f := range []scripts.Fleet{
		{Datanodes: 4, Periods: 4, Period: 3 * time.Hour, Noise: 1, Seed: 5},
		{Datanodes: 4, Periods: 2, Period: 3 * time.Hour, Noise: 1, Seed: 6, EveryDefect: true},
	} {
		dir := t.TempDir()
		if err := scripts.RenderFleet(dir, f); err != nil {
			t.Fatal(err)
		}
		inputs[dir] = nil
	}
	checkByteIdentical(t, inputs)
}

// testCases splits the test bundles of every detector (../*/testdata), in
// path order, into every fourth one and the others. The 25 of every fourth
// (of 98) hold between them a bundle of every detector folder and every
// layout (L1 to L6, L2-compose).
func testCases(t *testing.T) (fourth, others []string) {
	t.Helper()
	cases, err := filepath.Glob("../*/testdata/*.txtar")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for i, c := range cases {
		if i%4 == 0 {
			fourth = append(fourth, c)
		} else {
			others = append(others, c)
		}
	}
	return fourth, others
}

// buildCases renders the bundles of the cases at paths, by directory.
func buildCases(t *testing.T, paths []string) map[string]*detectortest.Case {
	t.Helper()
	inputs := map[string]*detectortest.Case{}
	for _, p := range paths {
		dir := t.TempDir()
		c, err := detectortest.BuildFile(p, dir)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		inputs[dir] = c
	}
	return inputs
}

// checkByteIdentical analyses each input deterministicRuns times as
// TestReportsAreByteIdentical says; a case's options and zone apply to
// its bundle. A bundle without a case must give a transition.
func checkByteIdentical(t *testing.T, inputs map[string]*detectortest.Case) {
	t.Helper()
	var err error
	// One set of registrations for every run: they only make detectors,
	// and every run of a bundle shared one before as well. Compiling the
	// built-in signatures for each bundle cost a third of a second under
	// -race, 101 times.
	regs := All()
	for in, c := range inputs {
		opt := analysis.Options{Inputs: []string{in}, Detectors: regs}
		if c != nil {
			opt.DetectorOptions = c.Options
			if c.TZ != "" {
				if opt.Zone, err = time.LoadLocation(c.TZ); err != nil {
					t.Fatal(err)
				}
			}
		}
		var first []byte
		var everyTick []string
		for i := 0; i < deterministicRuns; i++ {
			var transitions []string
			opt.Engine.EveryTick, opt.HoldAll = i == 0, i == 0
			opt.Subscribe = func(tr detectors.Transition) {
				transitions = append(transitions, fmt.Sprintf("%s %s %s->%s %v %s",
					tr.At.Format(time.RFC3339Nano), tr.Fingerprint, tr.From, tr.To, tr.Escalated, tr.Finding.Summary))
			}
			if i == deterministicRuns-1 {
				opt.Subscribe = nil
			}
			res, err := analysis.Run(context.Background(), opt)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			var b bytes.Buffer
			sink, _ := sinks.New("json", &b)
			if err := sink.Write(res); err != nil {
				t.Fatal(err)
			}
			switch {
			case i == 0:
				first, everyTick = b.Bytes(), transitions
				if len(transitions) == 0 && c == nil {
					t.Errorf("%s: no transition", in)
				}
			case i == 1 && !slices.Equal(everyTick, transitions):
				for j := range min(len(everyTick), len(transitions)) {
					if everyTick[j] != transitions[j] {
						t.Fatalf("%s: transition %d\nevery tick, holding all: %s\nskipping, releasing early: %s", in, j+1, everyTick[j], transitions[j])
					}
				}
				t.Fatalf("%s: %d transitions at every tick holding all, %d skipping and releasing early", in, len(everyTick), len(transitions))
			case !bytes.Equal(first, b.Bytes()):
				t.Fatalf("%s: run %d differs from run 1", in, i+1)
			}
		}
	}
	t.Logf("%d bundles, %d runs each (the first at every tick, holding all), byte-identical", len(inputs), deterministicRuns)
}
