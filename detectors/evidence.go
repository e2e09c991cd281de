package detectors

import "sort"

// EvidenceLog keeps the first evidence lines of a finding and its most
// recent ones, and counts the lines dropped in between. Head and Tail are
// how many it keeps of each, 0 meaning MaxEvidence/2; set them before the
// first Add. The zero value is ready to use.
type EvidenceLog struct {
	Head, Tail int

	head, tail []Evidence // tail is a ring once full
	next       int        // the oldest line of the full ring
	dropped    int
}

// Add records one line; once the log is full it replaces the oldest of the
// most recent lines.
func (l *EvidenceLog) Add(e Evidence) {
	head, tail := evidenceBound(l.Head), evidenceBound(l.Tail)
	switch {
	case len(l.head) < head:
		l.head = append(l.head, e)
	case len(l.tail) < tail:
		l.tail = append(l.tail, e)
	default:
		l.tail[l.next] = e
		l.next = (l.next + 1) % tail
		l.dropped++
	}
}

// List returns a new slice of the kept lines, the first ones then the most
// recent ones, each in the order added; nil if nothing was added.
func (l *EvidenceLog) List() []Evidence {
	if len(l.head) == 0 {
		return nil
	}
	out := make([]Evidence, 0, len(l.head)+len(l.tail))
	out = append(out, l.head...)
	out = append(out, l.tail[l.next:]...)
	return append(out, l.tail[:l.next]...)
}

// Dropped returns how many lines were left out.
func (l *EvidenceLog) Dropped() int { return l.dropped }

func evidenceBound(n int) int {
	if n <= 0 {
		return MaxEvidence / 2
	}
	return n
}

// SortEvidence orders evidence by time, keeping lines of the same time in
// their order.
func SortEvidence(ev []Evidence) {
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].Time.Before(ev[j].Time) })
}
