package detectors

import (
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Counters keeps the latest sample of one /prom counter per key (a host; a
// host and a Raft group), bounded, for a detector that reads the counter as
// corroborating evidence: an incident that opens later learns the
// counter's value at its start, and a later sample shows whether it rose.
type Counters struct {
	Latest *Bounded[string, CounterSample]
}

// CounterSample is what a detector keeps of one MetricSample.
type CounterSample struct {
	At    time.Time // zero: untimed (a snapshot in a bundle)
	Value float64
	Ev    Evidence
}

// NewCounters keeps at most limit keys, dropping the oldest.
func NewCounters(limit int) *Counters {
	return &Counters{Latest: NewBounded[string, CounterSample](limit, EvictOldest)}
}

// Observe records s as key's latest sample and returns it.
func (c *Counters) Observe(key string, s *catalogue.Signal) CounterSample {
	cs := CounterSample{At: s.Time, Value: s.Value, Ev: EvidenceOf(s)}
	c.Latest.Put(key, cs)
	return cs
}

// Baseline is key's value at start: its latest timed sample, which the
// event-time order delivers before start, or 0 (the process's start) when
// there is none.
func (c *Counters) Baseline(key string) float64 {
	if s, ok := c.Latest.Get(key); ok && !s.At.IsZero() {
		return s.Value
	}
	return 0
}

// Untimed returns key's latest sample if it is untimed: a snapshot that may
// have been taken after the incident started.
func (c *Counters) Untimed(key string) (CounterSample, bool) {
	s, ok := c.Latest.Get(key)
	return s, ok && s.At.IsZero()
}

// Shows reports whether s shows an incident that started at start with the
// counter at base: s is taken at or after the start (or untimed) and the
// counter is above base.
func (s CounterSample) Shows(start time.Time, base float64) bool {
	return (s.At.IsZero() || !s.At.Before(start)) && s.Value > base
}
