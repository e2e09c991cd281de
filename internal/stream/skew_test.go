package stream

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func TestOffsetsFromOMConfigurationEntries(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	k := NewSkew()
	for i := int64(0); i < 5; i++ {
		at := t0.Add(time.Duration(i) * time.Minute)
		for _, h := range []struct {
			host string
			skew time.Duration
		}{{"om1", 0}, {"om2", 4*time.Second + time.Duration(i)*time.Millisecond}, {"om3", 20 * time.Millisecond}} {
			k.Observe(&catalogue.Signal{Kind: catalogue.OMRaftConfSet, Host: h.host, Group: "group-C5BA1605619E", Index: 100 + i, Time: at.Add(h.skew)})
		}
	}
	// A lone event shared by a fourth host gives no estimate.
	k.Observe(&catalogue.Signal{Kind: catalogue.OMRaftConfSet, Host: "om4", Group: "group-C5BA1605619E", Index: 100, Time: t0})
	if !k.Changed() {
		t.Fatal("new pairs should mark the estimate changed")
	}
	got := k.Estimate()
	if k.Changed() {
		t.Error("Estimate should clear the change mark")
	}
	if len(got) != 2 {
		t.Fatalf("want estimates for om1 and om2 against om3 (the median), got %+v", got)
	}
	if got[0].Host != "om1" || got[0].Reference != "om3" || got[0].Applied {
		t.Errorf("om1's -20ms is latency, not skew: %+v", got[0])
	}
	if o := got[1]; o.Host != "om2" || o.Reference != "om3" || o.Offset < 4*time.Second-20*time.Millisecond || o.Offset > 4*time.Second || !o.Applied || o.Pairs != 5 {
		t.Errorf("om2: %+v", o)
	}
}

func TestSkewForgetsOldestEventsBeyondItsBound(t *testing.T) {
	k := NewSkew()
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	for i := int64(0); i < maxSyncKeys+10; i++ {
		for _, h := range []string{"om1", "om2"} {
			k.Observe(&catalogue.Signal{Kind: catalogue.OMConfChanged, Host: h, Term: 1, Index: i, Time: t0.Add(time.Duration(i) * time.Second)})
		}
	}
	if len(k.times) != maxSyncKeys || k.Evicted() != 10 || k.shared["om1"] != maxSyncKeys {
		t.Errorf("kept %d keys, evicted %d, om1 shares %d", len(k.times), k.Evicted(), k.shared["om1"])
	}
}

// The differences kept as events come and go give the estimate computed
// afresh from every event remembered: hosts join events in any order, the
// reference host changes, events are forgotten beyond the bound, and some
// differences are too large to be the same event.
func TestSkewKeptEstimateMatchesAFreshOne(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 14))
	hosts := []string{"om1", "om2", "om3", "om4", "om5"}
	skews := []time.Duration{0, 3 * time.Second, -2 * time.Second, 40 * time.Millisecond, 7 * time.Second}
	k := NewSkew()
	checks := 0
	for i := 0; i < 3*maxSyncKeys; i++ {
		h := rng.IntN(len(hosts))
		if i > maxSyncKeys && h == 0 {
			h = 1 // om2 overtakes om1 as the host sharing most events
		}
		event := int64(i / 3) // a few hosts log each event, in any order
		if rng.IntN(4) == 0 {
			event = int64(rng.IntN(i + 1)) // a late one, maybe forgotten already
		}
		at := t0.Add(time.Duration(event)*time.Second + skews[h] + time.Duration(rng.IntN(50))*time.Millisecond)
		if rng.IntN(50) == 0 {
			at = at.Add(2 * maxPlausible)
		}
		k.Observe(&catalogue.Signal{Kind: catalogue.OMConfChanged, Host: hosts[h], Term: 1, Index: event, Time: at})
		if rng.IntN(64) != 0 {
			continue
		}
		kept := k.Estimate()
		k.diffs = nil
		if fresh := k.Estimate(); !reflect.DeepEqual(kept, fresh) {
			t.Fatalf("after %d events: kept estimate %+v, fresh %+v", i+1, kept, fresh)
		}
		checks++
	}
	if k.Evicted() == 0 || k.ref != "om2" || checks < 100 {
		t.Errorf("the test did not cover what it should: %d evicted, reference %s, %d checks", k.Evicted(), k.ref, checks)
	}
}

// Two times of one event further apart than maxPlausible are not the same
// event: they count for nothing.
func TestSkewLeavesImplausibleDifferencesOut(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	k := NewSkew()
	for i, d := range []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second, -2 * maxPlausible, 3 * maxPlausible} {
		at := t0.Add(time.Duration(i) * time.Minute)
		k.Observe(&catalogue.Signal{Kind: catalogue.OMConfChanged, Host: "om1", Term: 1, Index: int64(i), Time: at})
		k.Observe(&catalogue.Signal{Kind: catalogue.OMConfChanged, Host: "om2", Term: 1, Index: int64(i), Time: at.Add(d)})
	}
	got := k.Estimate()
	if len(got) != 1 || got[0].Pairs != 3 || got[0].Offset.Abs() != 2*time.Second {
		t.Errorf("estimate %+v, want one offset of 2s from 3 pairs", got)
	}
}
