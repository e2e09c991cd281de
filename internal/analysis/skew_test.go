package analysis

import (
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func TestOffsetsFromOMConfigurationEntries(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	var om1, om2, om3 stream
	for i := int64(0); i < 5; i++ {
		at := t0.Add(time.Duration(i) * time.Minute)
		conf := func(host string, skew time.Duration) catalogue.Signal {
			return catalogue.Signal{Kind: catalogue.OMRaftConfSet, Host: host, Group: "group-C5BA1605619E", Index: 100 + i, Time: at.Add(skew)}
		}
		om1.signals = append(om1.signals, conf("om1", 0))
		om2.signals = append(om2.signals, conf("om2", 4*time.Second+time.Duration(i)*time.Millisecond))
		om3.signals = append(om3.signals, conf("om3", 20*time.Millisecond))
	}
	// A lone event shared by a fourth host gives no estimate.
	om4 := stream{signals: []catalogue.Signal{{Kind: catalogue.OMRaftConfSet, Host: "om4", Group: "group-C5BA1605619E", Index: 100, Time: t0}}}
	streams := []*stream{&om1, &om2, &om3, &om4}
	got := estimateOffsets(streams)
	if len(got) != 2 {
		t.Fatalf("want estimates for om1 and om2 against om3 (the median), got %+v", got)
	}
	if got[0].Host != "om1" || got[0].Reference != "om3" || got[0].Applied {
		t.Errorf("om1's -20ms is latency, not skew: %+v", got[0])
	}
	got = got[1:]
	if got[0].Host != "om2" || got[0].Reference != "om3" || got[0].Offset < 4*time.Second-20*time.Millisecond || got[0].Offset > 4*time.Second || !got[0].Applied || got[0].Pairs != 5 {
		t.Errorf("om2: %+v", got[0])
	}
	applyOffsets(streams, got)
	if d := om2.signals[2].Time.Sub(om3.signals[2].Time); d != 0 {
		t.Errorf("om2 not moved onto om3's clock: %v", d)
	}
	if !om1.signals[0].Time.Equal(t0) {
		t.Error("an offset that was not applied moved signals")
	}
}
