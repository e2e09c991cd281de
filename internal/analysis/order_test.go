package analysis

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/report"
)

// renderFleet writes a fleet of three 3-hour periods with all five defects
// in each: every host's logs rotated and gzipped per period.
func renderFleet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	f := scripts.Fleet{Datanodes: 4, Periods: 3, Period: 3 * time.Hour, Noise: 1, Seed: 7, EveryDefect: true}
	if err := scripts.RenderFleet(dir, f); err != nil {
		t.Fatal(err)
	}
	return dir
}

func reportJSON(t *testing.T, res *report.Result) string {
	t.Helper()
	out, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A bundle read in the order of its files' first records, handing on what
// precedes the next file's first record as it goes, gives the report that
// holding every signal to the end of the walk gives, by one worker and by
// several; and most signals left before the walk ended.
func TestEarlyReleaseGivesTheHeldReport(t *testing.T) {
	dir := renderFleet(t)
	opt := Options{Inputs: []string{dir}, Detectors: registry.All()}
	held, walk, err := run(context.Background(), opt, true)
	if err != nil {
		t.Fatal(err)
	}
	// Holding all, only untimed signals (the cluster's settings) leave
	// during the walk.
	if walk.released > 10 || held.Findings.Len() < 10 {
		t.Fatalf("holding all: %d signals released during the walk, %d findings; want the settings and the fleet's (all five defects a period)", walk.released, held.Findings.Len())
	}
	want := reportJSON(t, held)
	for _, workers := range []int{1, 3} {
		opt.Workers = workers
		res, walk, err := run(context.Background(), opt, false)
		if err != nil {
			t.Fatal(err)
		}
		signals := res.Coverage.Totals.Signals
		if walk.overtaken != 0 || walk.released < signals/2 {
			t.Errorf("%d workers: %d of %d signals released during the walk, %d overtaken; want most and none", workers, walk.released, signals, walk.overtaken)
		}
		if got := reportJSON(t, res); got != want {
			t.Errorf("%d workers: releasing early, the report differs from holding all:\n%s\nwant:\n%s", workers, clipText(got), clipText(want))
		}
	}
}

// A file on disk holding records older than files read before it (here a
// datanode log of one period followed by the previous period's) stops the
// early release: the bundle is read again holding every signal, and the
// report is the held one, saying how many signals were overtaken.
func TestOvertakenSignalsAreReadAgainHeld(t *testing.T) {
	dir := renderFleet(t)
	logs, err := filepath.Glob(filepath.Join(dir, "dn1*", "*", "ozone-hadoop-datanode-*.log"))
	if err != nil || len(logs) < 2 {
		t.Fatalf("datanode logs %v: %v", logs, err)
	}
	slices.Sort(logs) // the period directories are named by their start
	older, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	newer, err := os.ReadFile(logs[1])
	if err != nil {
		t.Fatal(err)
	}
	write(t, logs[1], string(newer)+string(older))
	if err := os.Remove(logs[0]); err != nil {
		t.Fatal(err)
	}
	var heldTransitions int
	held, err := Run(context.Background(), Options{Inputs: []string{dir}, Detectors: registry.All(), HoldAll: true,
		Subscribe: func(detectors.Transition) { heldTransitions++ }})
	if err != nil {
		t.Fatal(err)
	}
	if held.Coverage.Stream.Overtaken != 0 {
		t.Fatalf("holding all: %d overtaken", held.Coverage.Stream.Overtaken)
	}
	opt := Options{Inputs: []string{dir}, Detectors: registry.All()}
	for _, subscribe := range []bool{false, true} {
		var transitions int
		if subscribe {
			opt.Subscribe = func(detectors.Transition) { transitions++ }
		}
		res, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Coverage.Stream.Overtaken == 0 {
			t.Fatal("no signal counted overtaken")
		}
		if !strings.Contains(reportJSON(t, res), `"overtaken": `) {
			t.Error("the report does not say that signals were overtaken")
		}
		res.Coverage.Stream.Overtaken = 0
		if got, want := reportJSON(t, res), reportJSON(t, held); got != want {
			t.Errorf("the report differs from holding all:\n%s\nwant:\n%s", clipText(got), clipText(want))
		}
		if subscribe && transitions != heldTransitions {
			t.Errorf("the subscriber got %d transitions, want the held run's %d, once", transitions, heldTransitions)
		}
	}
}
