package stream

import (
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
