package detectors

import (
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func TestCountersShowARiseAfterTheStart(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 8, 23, 10, m, 0, 0, time.UTC) }
	sample := func(m int, v float64) *catalogue.Signal {
		s := &catalogue.Signal{Kind: catalogue.MetricSample, Metric: "c", Value: v}
		if m >= 0 {
			s.Time = at(m)
		}
		return s
	}
	c := NewCounters(2)
	if b := c.Baseline("dn1"); b != 0 {
		t.Errorf("baseline without samples: %v", b)
	}
	c.Observe("dn1", sample(0, 3))
	start := at(5) // the incident
	base := c.Baseline("dn1")
	for _, tc := range []struct {
		s    *catalogue.Signal
		want bool
	}{
		{sample(4, 4), false},  // above, but before the start
		{sample(6, 3), false},  // after, not above the baseline
		{sample(6, 4), true},   // after and above
		{sample(-1, 4), true},  // untimed snapshot above
		{sample(-1, 3), false}, // untimed, not above
	} {
		if got := c.Observe("dn1", tc.s).Shows(start, base); got != tc.want {
			t.Errorf("sample %v at %v: %v, want %v (baseline %v)", tc.s.Value, tc.s.Time, got, tc.want, base)
		}
	}
	if _, ok := c.Untimed("dn1"); !ok {
		t.Error("the latest sample was untimed")
	}
	if b := c.Baseline("dn1"); b != 0 {
		t.Errorf("an untimed latest sample is no baseline: %v", b)
	}
	c.Observe("dn2", sample(1, 1))
	c.Observe("dn3", sample(1, 1))
	if _, ok := c.Latest.Get("dn1"); ok || c.Latest.Evicted() != 1 {
		t.Errorf("bounded to 2 keys: dn1 kept %v, evicted %d", ok, c.Latest.Evicted())
	}
}
