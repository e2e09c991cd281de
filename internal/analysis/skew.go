package analysis

import (
	"fmt"
	"sort"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Clock skew between hosts is estimated from events that several hosts log
// at nearly the same moment: an OM Raft configuration entry appended (A1/L5:
// leader and followers log "set configuration" for the same index within
// milliseconds) or applied (A2: "notifyConfigurationChanged" for the same
// term and index). Each host is compared with the reference host, the one
// that shares most such events, by the median difference.
const (
	minPairs     = 2           // paired events needed for an estimate
	applyAbove   = time.Second // smaller offsets are network or apply latency, not skew
	maxPlausible = time.Hour   // larger differences are not the same event
)

// syncKey names the cluster event a signal reports, or "".
func syncKey(s *catalogue.Signal) string {
	switch s.Kind {
	case catalogue.OMRaftConfSet:
		return fmt.Sprintf("om-conf-appended/%s/%d", s.Group, s.Index)
	case catalogue.OMConfChanged:
		return fmt.Sprintf("om-conf-applied/%d/%d", s.Term, s.Index)
	}
	return ""
}

// estimateOffsets returns every host's estimated offset against the
// reference, from the signals of all streams.
func estimateOffsets(streams []*stream) []ClockOffset {
	times := map[string]map[string]time.Time{} // key -> host -> first time
	shared := map[string]int{}                 // host -> keys it logged
	for _, st := range streams {
		for i := range st.signals {
			s := &st.signals[i]
			k := syncKey(s)
			if k == "" || s.Time.IsZero() || s.Host == "" {
				continue
			}
			if times[k] == nil {
				times[k] = map[string]time.Time{}
			}
			if _, ok := times[k][s.Host]; !ok {
				times[k][s.Host] = s.Time
				shared[s.Host]++
			}
		}
	}
	ref := ""
	for h, n := range shared {
		if n > shared[ref] || n == shared[ref] && h < ref {
			ref = h
		}
	}
	if ref == "" {
		return nil
	}
	diffs := map[string][]time.Duration{}
	for _, byHost := range times {
		t0, ok := byHost[ref]
		if !ok {
			continue
		}
		for h, t := range byHost {
			if d := t.Sub(t0); h != ref && d < maxPlausible && d > -maxPlausible {
				diffs[h] = append(diffs[h], d)
			}
		}
	}
	est := map[string]ClockOffset{ref: {Host: ref, Pairs: shared[ref]}}
	for h, ds := range diffs {
		if len(ds) < minPairs {
			continue
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		est[h] = ClockOffset{Host: h, Offset: ds[len(ds)/2], Pairs: len(ds)}
	}
	if len(est) < 2 {
		return nil
	}
	// Centre on the median host: with one skewed clock among several, the
	// others keep their times and the skewed one moves.
	var all []ClockOffset
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

// applyOffsets moves the signals of skewed hosts onto the reference clock.
func applyOffsets(streams []*stream, offsets []ClockOffset) {
	shift := map[string]time.Duration{}
	for _, o := range offsets {
		if o.Applied {
			shift[o.Host] = o.Offset
		}
	}
	if len(shift) == 0 {
		return
	}
	for _, st := range streams {
		for i := range st.signals {
			s := &st.signals[i]
			if d, ok := shift[s.Host]; ok && !s.Time.IsZero() {
				s.Time = s.Time.Add(-d)
			}
		}
	}
}
