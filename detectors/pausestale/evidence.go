package pausestale

import (
	"sort"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// evidence keeps the first and the most recent lines of an occurrence,
// detectors.MaxEvidence in all, and counts the ones in between.
type evidence struct {
	first   []detectors.Evidence
	last    []detectors.Evidence // ring once full
	next    int
	dropped int
}

const evidenceHalf = detectors.MaxEvidence / 2

func (e *evidence) add(s *catalogue.Signal) {
	ev := detectors.EvidenceOf(s)
	switch {
	case len(e.first) < evidenceHalf:
		e.first = append(e.first, ev)
	case len(e.last) < evidenceHalf:
		e.last = append(e.last, ev)
	default:
		e.last[e.next] = ev
		e.next = (e.next + 1) % evidenceHalf
		e.dropped++
	}
}

// list returns the kept lines in time order.
func (e *evidence) list() []detectors.Evidence {
	out := make([]detectors.Evidence, 0, len(e.first)+len(e.last))
	out = append(out, e.first...)
	out = append(out, e.last[e.next:]...)
	out = append(out, e.last[:e.next]...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}
