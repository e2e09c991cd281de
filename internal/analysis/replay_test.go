package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/report"
)

// The sample bundle fed live (streams in interleaved chunks behind a
// simulated clock) gives the batch run's findings and transitions, and so
// does the same replay cut at many random steps, each checkpoint restored
// into a new pipeline, with no transition sent twice.
func TestSampleBundleLiveAndRestarted(t *testing.T) {
	opt := Options{Inputs: []string{"../../examples/bundles/sample.tar.gz"}, Detectors: registry.All()}
	var batch []string
	opt.Subscribe = func(tr detectors.Transition) { batch = append(batch, line(tr)) }
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := findingsJSON(t, res)
	if res.Findings.Len() != 8 {
		t.Fatalf("sample bundle: %d findings, want 8", res.Findings.Len())
	}

	opt.Subscribe = nil
	rec, err := Record(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	plan := ReplayPlan{Seed: 1, Step: time.Second, MaxDelay: 2 * time.Second, MaxEvery: 2}
	var live []string
	opt.Subscribe = func(tr detectors.Transition) { live = append(live, line(tr)) }
	got, stats, err := rec.Replay(opt, plan)
	if err != nil {
		t.Fatal(err)
	}
	if findingsJSON(t, got) != want || !slices.Equal(live, batch) {
		t.Fatalf("live replay differs from the batch run: %d vs %d transitions", len(live), len(batch))
	}
	if stats.LongestIdle < time.Hour {
		t.Errorf("no stream stayed idle for long: longest %s", stats.LongestIdle)
	}
	t.Logf("live: %d steps, longest idle stream %s (%s), %d transitions", stats.Steps, stats.IdleStream, stats.LongestIdle, len(live))

	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 30; i++ {
		plan.Restarts = append(plan.Restarts, 1+rng.Intn(stats.Steps))
	}
	live = nil
	got, cut, err := rec.Replay(opt, plan)
	if err != nil {
		t.Fatal(err)
	}
	if findingsJSON(t, got) != want {
		t.Error("findings after restarts differ from the batch run")
	}
	if !slices.Equal(live, batch) {
		t.Errorf("transitions after restarts differ from the batch run: %d vs %d", len(live), len(batch))
	}
	t.Logf("%d restarts from checkpoints of at most %d bytes", cut.Restarts, cut.CheckpointBytes)
}

func line(tr detectors.Transition) string {
	b, _ := json.Marshal(tr.Finding)
	return fmt.Sprintf("%s %s %s>%s %v %s", tr.At.UTC().Format(time.RFC3339Nano), tr.Fingerprint, tr.From, tr.To, tr.Escalated, b)
}

func findingsJSON(t *testing.T, r *report.Result) string {
	b, err := json.Marshal(r.Findings)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
