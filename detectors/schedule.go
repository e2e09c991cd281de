package detectors

import (
	"container/heap"
	"slices"
	"time"
)

// schedule tells the engine which detectors an Advance must call, so that
// a signal costs the detectors it touches rather than all of them: the
// detectors whose Quiet is known wait in a heap, earliest end of quiet
// first; those observed or advanced since they were asked (awake) are asked
// again at the next Advance, and keep their place in the heap until then
// (every reader of the heap settles them first). A detector whose Quiet is
// before the clock is due at every Advance.
type schedule struct {
	rs     []running // the engine's, indexed alike
	awake  []int
	rested []int // a heap by rs[i].quiet; rs[i].pos is i's place in it
	due    []int // scratch of due
}

func newSchedule(rs []running) *schedule {
	s := &schedule{rs: rs}
	for i := range rs {
		rs[i].pos = -1
		s.wake(i)
	}
	return s
}

// wake forgets what detector i's Quiet said: it was observed or advanced.
func (s *schedule) wake(i int) {
	r := &s.rs[i]
	if r.awake {
		return
	}
	r.awake = true
	s.awake = append(s.awake, i)
}

// wakeAll wakes every detector, as a restore or a change of settings does.
func (s *schedule) wakeAll() {
	for i := range s.rs {
		s.wake(i)
	}
}

// settle asks every awake detector its Quiet as of now, and moves it to
// its place in the heap.
func (s *schedule) settle(now time.Time) {
	for _, i := range s.awake {
		r := &s.rs[i]
		r.quiet, r.awake = r.det.Quiet(now), false
		if r.pos >= 0 {
			heap.Fix((*byQuiet)(s), r.pos)
		} else {
			heap.Push((*byQuiet)(s), i)
		}
	}
	s.awake = s.awake[:0]
}

// quiet returns the earlier of q and the end of quiet of the detectors as
// of now; a time before now when some detector cannot tell.
func (s *schedule) quiet(now, q time.Time) time.Time {
	s.settle(now)
	if len(s.rested) > 0 {
		q = Earliest(q, s.rs[s.rested[0]].quiet)
	}
	return q
}

// dueAt returns, in the engine's order, the detectors that an Advance from
// prev to t must call: every one when all, else those not quiet through t.
// The caller wakes each after calling it.
func (s *schedule) dueAt(prev, t time.Time, all bool) []int {
	s.due = s.due[:0]
	if all {
		for i := range s.rs {
			s.due = append(s.due, i)
		}
		return s.due
	}
	s.settle(prev)
	for len(s.rested) > 0 && t.After(s.rs[s.rested[0]].quiet) {
		s.due = append(s.due, heap.Pop((*byQuiet)(s)).(int))
	}
	slices.Sort(s.due)
	return s.due
}

// byQuiet is the heap.Interface of a schedule's rested detectors.
type byQuiet schedule

func (h *byQuiet) Len() int { return len(h.rested) }
func (h *byQuiet) Less(a, b int) bool {
	return h.rs[h.rested[a]].quiet.Before(h.rs[h.rested[b]].quiet)
}
func (h *byQuiet) Swap(a, b int) {
	h.rested[a], h.rested[b] = h.rested[b], h.rested[a]
	h.rs[h.rested[a]].pos, h.rs[h.rested[b]].pos = a, b
}
func (h *byQuiet) Push(x any) {
	i := x.(int)
	h.rs[i].pos = len(h.rested)
	h.rested = append(h.rested, i)
}
func (h *byQuiet) Pop() any {
	n := len(h.rested) - 1
	i := h.rested[n]
	h.rested = h.rested[:n]
	h.rs[i].pos = -1
	return i
}
