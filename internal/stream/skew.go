package stream

import (
	"slices"
	"sort"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Clock skew between hosts is estimated from events that several hosts log
// at nearly the same moment (catalogue.SyncKey). Each host is compared with
// the reference host, the one that shares most such events, by the median
// difference; the estimates are centred on the median host.
const (
	minPairs     = 2           // paired events needed for an estimate
	applyAbove   = time.Second // smaller offsets are network or apply latency, not skew
	maxPlausible = time.Hour   // larger differences are not the same event
	maxSyncKeys  = 4096        // shared events remembered; the oldest are forgotten first
)

// ClockOffset is a host's estimated clock offset against the reference host.
type ClockOffset struct {
	Host      string        `json:"host"`
	Reference string        `json:"reference"`
	Offset    time.Duration `json:"offset_ns"`
	Pairs     int           `json:"pairs"` // paired events the estimate rests on
	Applied   bool          `json:"applied"`
}

// Skew learns clock offsets from the signals as they arrive. It keeps the
// first time each host logged each of the latest maxSyncKeys shared events.
type Skew struct {
	times   map[string]map[string]time.Time // sync key -> host -> first time
	keys    []string                        // sync keys, oldest first
	shared  map[string]int                  // host -> remembered keys it logged
	evicted int64                           // sync keys forgotten
	changed bool                            // the estimate may differ since the last Estimate
	// diffs are, for the reference host ref, every other host's plausible
	// differences from it over the remembered events both logged, sorted:
	// kept as events come and go, so that an estimate need not go over
	// every event. nil: to be computed afresh.
	ref   string                     `state:"-"`
	diffs map[string][]time.Duration `state:"-"`
}

// NewSkew returns an estimator that knows nothing yet.
func NewSkew() *Skew {
	return &Skew{times: map[string]map[string]time.Time{}, shared: map[string]int{}}
}

// Observe records s if it reports a shared event.
func (k *Skew) Observe(s *catalogue.Signal) {
	key := catalogue.SyncKey(s)
	if key == "" || s.Time.IsZero() || s.Host == "" {
		return
	}
	byHost := k.times[key]
	if byHost == nil {
		if len(k.keys) >= maxSyncKeys {
			k.forgetOldest()
		}
		byHost = map[string]time.Time{}
		k.times[key] = byHost
		k.keys = append(k.keys, key)
	}
	if _, ok := byHost[s.Host]; !ok {
		byHost[s.Host] = s.Time
		k.shared[s.Host]++
		k.changed = k.changed || len(byHost) > 1
		k.pair(byHost, s.Host, true)
	}
}

// pair adds (or removes) the differences host's time for one event makes
// with the reference host's to diffs.
func (k *Skew) pair(byHost map[string]time.Time, host string, add bool) {
	if k.diffs == nil {
		return
	}
	t0, ok := byHost[k.ref]
	if !ok {
		return
	}
	change := func(h string, t time.Time) {
		d := t.Sub(t0)
		if d >= maxPlausible || d <= -maxPlausible {
			return
		}
		ds := k.diffs[h]
		i, found := slices.BinarySearch(ds, d)
		switch {
		case add:
			k.diffs[h] = slices.Insert(ds, i, d)
		case found:
			k.diffs[h] = slices.Delete(ds, i, i+1)
		}
	}
	if host != k.ref {
		change(host, byHost[host])
		return
	}
	for h, t := range byHost {
		if h != k.ref {
			change(h, t)
		}
	}
}

func (k *Skew) forgetOldest() {
	key := k.keys[0]
	k.keys = k.keys[1:]
	k.pair(k.times[key], k.ref, false)
	for h := range k.times[key] {
		if k.shared[h]--; k.shared[h] == 0 {
			delete(k.shared, h)
		}
	}
	delete(k.times, key)
	k.evicted++
	k.changed = true
}

// Estimate returns every host's offset against the median host, sorted by host.
func (k *Skew) Estimate() []ClockOffset {
	k.changed = false
	ref := ""
	for h, n := range k.shared {
		if n > k.shared[ref] || n == k.shared[ref] && h < ref {
			ref = h
		}
	}
	if ref == "" {
		return nil
	}
	if ref != k.ref || k.diffs == nil {
		k.ref, k.diffs = ref, map[string][]time.Duration{}
		for _, byHost := range k.times {
			k.pair(byHost, ref, true)
		}
	}
	est := map[string]ClockOffset{ref: {Host: ref, Pairs: k.shared[ref]}}
	for h, ds := range k.diffs {
		if len(ds) < minPairs {
			continue
		}
		est[h] = ClockOffset{Host: h, Offset: ds[len(ds)/2], Pairs: len(ds)}
	}
	if len(est) < 2 {
		return nil
	}
	// Centre on the median host: with one skewed clock among several, the
	// others keep their times and the skewed one moves.
	all := make([]ClockOffset, 0, len(est))
	for _, o := range est {
		all = append(all, o)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Offset != all[j].Offset {
			return all[i].Offset < all[j].Offset
		}
		return all[i].Host < all[j].Host
	})
	median := all[(len(all)-1)/2]
	var out []ClockOffset
	for _, o := range all {
		if o.Host == median.Host {
			continue
		}
		o.Offset -= median.Offset
		o.Reference = median.Host
		o.Applied = o.Offset >= applyAbove || o.Offset <= -applyAbove
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// Changed reports whether the estimate may have moved since the last Estimate.
func (k *Skew) Changed() bool { return k.changed }

// Evicted returns how many shared events were forgotten to stay bounded.
func (k *Skew) Evicted() int64 { return k.evicted }

// Len returns how many shared events are remembered.
func (k *Skew) Len() int { return len(k.keys) }
