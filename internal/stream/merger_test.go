package stream

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

var t0 = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)

func sig(host string, at time.Duration, text string) catalogue.Signal {
	s := catalogue.Signal{Kind: "k", Host: host, Text: text}
	if at >= 0 {
		s.Time = t0.Add(at)
	}
	return s
}

func texts(m *Merger, now time.Time) []string {
	var out []string
	m.Release(now, func(s *catalogue.Signal) { out = append(out, s.Text) })
	return out
}

func TestMergerReleasesUpToTheSlowestStreamMinusLateness(t *testing.T) {
	m := NewMerger(Options{Lateness: 2 * time.Second, Idle: time.Minute})
	wall := t0
	a := m.Open("a", "", wall)
	b := m.Open("b", "", wall)
	m.Push(a, sig("a", 1*time.Second, "a1"), wall)
	m.Push(a, sig("a", 10*time.Second, "a10"), wall)
	m.Push(b, sig("b", -1, "untimed"), wall)
	// b has pushed nothing timed: it holds everything but untimed signals.
	if got := texts(m, wall); !slices.Equal(got, []string{"untimed"}) {
		t.Fatalf("released %v", got)
	}
	m.Push(b, sig("b", 5*time.Second, "b5"), wall)
	// Watermark min(10s, 5s) - 2s = 3s.
	if got := texts(m, wall); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("released %v, want a1", got)
	}
	// An out-of-order neighbour within the lateness takes its place.
	m.Push(b, sig("b", 2*time.Second, "b2"), wall)
	m.Push(b, sig("b", 12*time.Second, "b12"), wall)
	if got := texts(m, wall); !slices.Equal(got, []string{"b2", "b5"}) {
		t.Fatalf("released %v, want b2 b5", got)
	}
	// A signal behind the released clock is late: handed on, counted.
	m.Push(a, sig("a", 0, "a0"), wall)
	if got := texts(m, wall); !slices.Equal(got, []string{"a0"}) || m.Stats().Late != 1 {
		t.Fatalf("released %v, late %d", got, m.Stats().Late)
	}
	// b goes quiet; after Idle its watermark follows the wall clock.
	wall = wall.Add(30 * time.Second)
	m.Push(a, sig("a", 40*time.Second, "a40"), wall)
	if got := texts(m, wall); !slices.Equal(got, []string{"a10"}) {
		t.Fatalf("released %v, want a10 (b holds at 12s-2s)", got)
	}
	wall = t0.Add(2 * time.Minute)
	m.Push(a, sig("a", 119*time.Second, "a119"), wall)
	if got := texts(m, wall); !slices.Equal(got, []string{"b12", "a40"}) {
		t.Fatalf("released %v, want b12 a40 once b is idle", got)
	}
	m.Close(b)
	m.Close(a)
	if got := texts(m, wall); !slices.Equal(got, []string{"a119"}) {
		t.Fatalf("released %v after closing", got)
	}
}

// A stream whose records bring no signal moves its watermark with
// Progress, so it holds the others back only as far as it lags.
func TestMergerProgressWithoutSignals(t *testing.T) {
	m := NewMerger(Options{Lateness: 2 * time.Second, Idle: time.Minute})
	a := m.Open("a", "", t0)
	b := m.Open("b", "", t0)
	m.Push(a, sig("a", 10*time.Second, "a10"), t0)
	m.Push(a, sig("a", 20*time.Second, "a20"), t0)
	m.Push(b, sig("b", time.Second, "b1"), t0)
	if got := texts(m, t0); len(got) != 0 {
		t.Fatalf("released %v while b is at 1s", got)
	}
	m.Progress(b, t0.Add(15*time.Second), t0)
	if got := texts(m, t0); !slices.Equal(got, []string{"b1", "a10"}) {
		t.Fatalf("released %v, want b1 a10 (b read up to 15s)", got)
	}
	m.Progress(b, t0.Add(5*time.Second), t0) // never backwards
	m.Progress(a, t0.Add(30*time.Second), t0)
	if got := texts(m, t0); len(got) != 0 {
		t.Fatalf("released %v, want nothing before 13s", got)
	}
}

// With no open stream the watermark is the newest released in a batch run,
// and live the wall clock minus the lateness (a restarted daemon whose
// files bring no signal opens no stream, yet deadlines must pass).
func TestMergerWithoutStreamsFollowsTheWallClockLive(t *testing.T) {
	m := NewMerger(Options{Lateness: 2 * time.Second, Idle: time.Minute})
	a := m.Open("a", "", t0)
	m.Push(a, sig("a", time.Second, "a1"), t0)
	m.Close(a)
	if w := m.Release(time.Time{}, func(*catalogue.Signal) {}); !w.Equal(t0.Add(time.Second)) {
		t.Errorf("batch: watermark %s, want the newest released", w)
	}
	wall := t0.Add(time.Hour)
	if w := m.Release(wall, func(*catalogue.Signal) {}); !w.Equal(wall.Add(-2 * time.Second)) {
		t.Errorf("live: watermark %s, want the wall clock minus the lateness", w)
	}
	if w := m.Release(t0, func(*catalogue.Signal) {}); !w.Equal(t0.Add(time.Second)) {
		t.Errorf("live, wall clock behind the released: watermark %s, want the newest released", w)
	}
}

func TestMergerHoldAndDrainAndFilter(t *testing.T) {
	m := NewMerger(Options{Lateness: time.Second, Until: t0.Add(time.Minute)})
	m.Hold()
	a := m.Open("a", "", time.Time{})
	m.Push(a, sig("a", 2*time.Second, "a2"), time.Time{})
	m.Push(a, sig("a", time.Second, "a1"), time.Time{})
	m.Push(a, sig("a", 2*time.Minute, "late-filtered"), time.Time{})
	m.Close(a)
	if got := texts(m, time.Time{}); len(got) != 0 {
		t.Fatalf("held merger released %v", got)
	}
	var got []string
	m.Drain(func(s *catalogue.Signal) { got = append(got, s.Text) })
	if !slices.Equal(got, []string{"a1", "a2"}) || m.Stats().Filtered != 1 || m.Queued() != 0 {
		t.Fatalf("drained %v, stats %+v", got, m.Stats())
	}
	// The queue of a bundle run grows to the spill budget's size; what
	// comes after the drain (the findings, the report) needs that memory.
	if cap(m.queue) != 0 {
		t.Errorf("the drained merger keeps a queue of %d items", cap(m.queue))
	}
}

func TestMergerRelabelsQueuedSignalsOfAStream(t *testing.T) {
	m := NewMerger(Options{})
	m.Hold()
	id := m.Open("scm_1", parsers.ComponentUnknown, time.Time{})
	m.Push(id, sig("scm_1", time.Second, "before banner"), time.Time{})
	m.Relabel(id, "scm1.example.com", parsers.ComponentSCM)
	var got []catalogue.Signal
	m.Drain(func(s *catalogue.Signal) { got = append(got, *s) })
	if len(got) != 1 || got[0].Host != "scm1.example.com" || got[0].Component != parsers.ComponentSCM {
		t.Fatalf("got %+v", got)
	}
	if !slices.Equal(m.Components(), []parsers.Component{parsers.ComponentUnknown, parsers.ComponentSCM}) {
		t.Errorf("components %v", m.Components())
	}
}

func TestMergerAppliesOffsetsLearnedFromReleasedSignals(t *testing.T) {
	m := NewMerger(Options{})
	m.Hold()
	var ids []ID
	for _, h := range []string{"om1", "om2", "om3"} {
		ids = append(ids, m.Open(h, parsers.ComponentOM, time.Time{}))
	}
	// om3's clock runs 5s ahead; eight shared configuration entries, most of
	// them released after the offset applied.
	for i := int64(0); i < 8; i++ {
		for j, h := range []string{"om1", "om2", "om3"} {
			at := time.Duration(i)*time.Minute + time.Duration(j)*time.Millisecond
			if h == "om3" {
				at += 5 * time.Second
			}
			s := catalogue.Signal{Kind: catalogue.OMConfChanged, Host: h, Term: 1, Index: i, Time: t0.Add(at), Text: h}
			m.Push(ids[j], s, time.Time{})
		}
	}
	m.Push(ids[2], catalogue.Signal{Kind: "k", Host: "om3", Time: t0.Add(10*time.Minute + 5*time.Second), Text: "om3 later"}, time.Time{})
	var got []catalogue.Signal
	m.Drain(func(s *catalogue.Signal) { got = append(got, *s) })
	last := got[len(got)-1]
	if d := last.Time.Sub(t0.Add(10 * time.Minute)); last.Text != "om3 later" || d > 10*time.Millisecond || d < -10*time.Millisecond {
		t.Errorf("om3's later signal not moved onto the reference clock: %s %s", last.Text, last.Time)
	}
	if off := m.Offsets(); len(off) != 2 || off[1].Host != "om3" || !off[1].Applied {
		t.Errorf("offsets %+v", off)
	}
	// The first shared entries of om3 came before any estimate: its own
	// clock. Every later one is on the reference clock, which holds only if
	// the estimate goes on learning on om3's own clock.
	for _, s := range got {
		if s.Host != "om3" || s.Kind != catalogue.OMConfChanged {
			continue
		}
		ref := t0.Add(time.Duration(s.Index)*time.Minute + 2*time.Millisecond)
		switch d := s.Time.Sub(ref); {
		case s.Index == 0 && d != 5*time.Second:
			t.Errorf("om3's first entry moved before its offset was known: %s", s.Time)
		case s.Index >= 2 && (d > 10*time.Millisecond || d < -10*time.Millisecond):
			t.Errorf("om3's entry %d not on the reference clock: %s", s.Index, s.Time)
		}
	}
}

// restored returns a merger with opt restored from a snapshot of m.
func restored(t *testing.T, m *Merger, opt Options) *Merger {
	t.Helper()
	data, err := m.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	back := NewMerger(opt)
	if err := back.Restore(data); err != nil {
		t.Fatal(err)
	}
	return back
}

func TestMergerSnapshotRoundTrip(t *testing.T) {
	m := NewMerger(Options{Lateness: time.Second})
	a := m.Open("a", parsers.ComponentSCM, t0)
	m.Push(a, sig("a", time.Second, "a1"), t0)
	m.Push(a, sig("a", 5*time.Second, "a5"), t0)
	back := restored(t, m, Options{Lateness: time.Second})
	if got, want := texts(back, t0), texts(m, t0); !slices.Equal(got, want) || len(got) != 1 {
		t.Errorf("restored released %v, original %v", got, want)
	}
}

// A merger whose queue has slots left empty by signals released, some
// filled again, restores to release the same signals in the same order.
func TestMergerSnapshotAfterReleases(t *testing.T) {
	m := NewMerger(Options{Lateness: time.Second})
	a, b := m.Open("a", parsers.ComponentSCM, t0), m.Open("b", parsers.ComponentSCM, t0)
	push := func(id ID, host string, secs ...int) {
		for _, n := range secs {
			m.Push(id, sig(host, time.Duration(n)*time.Second, fmt.Sprint(host, n)), t0)
		}
	}
	push(a, "a", 4, 1, 3, 2, 10)
	push(b, "b", 1, 10)
	if got := texts(m, t0); !slices.Equal(got, []string{"a1", "b1", "a2", "a3", "a4"}) {
		t.Fatalf("released %v before the snapshot", got)
	}
	push(a, "a", 12, 11, 13)
	push(b, "b", 11)
	back := restored(t, m, Options{Lateness: time.Second})
	drain := func(m *Merger) (out []string) {
		m.Drain(func(s *catalogue.Signal) { out = append(out, s.Text) })
		return out
	}
	want := []string{"a10", "b10", "a11", "b11", "a12", "a13"}
	if got, orig := drain(back), drain(m); !slices.Equal(got, want) || !slices.Equal(orig, want) {
		t.Errorf("restored released %v, original %v, want %v", got, orig, want)
	}
}

// A held Merger bounded by HoldUntil releases what precedes the bound
// minus the lateness, breaks ties by rank before opening order, and counts
// what comes after a signal it precedes had left: timed, untimed, or a
// relabelling of a stream after signals left since it opened.
func TestMergerHoldUntil(t *testing.T) {
	m := NewMerger(Options{Lateness: 2 * time.Second})
	m.Hold()
	m.Rank(1)
	b := m.Open("b", "", time.Time{})
	m.Push(b, sig("b", 1*time.Second, "b1"), time.Time{})
	m.Push(b, sig("b", 20*time.Second, "b20"), time.Time{})
	m.Close(b)
	m.Rank(0)
	a := m.Open("a", "", time.Time{})
	m.Push(a, sig("a", 1*time.Second, "a1"), time.Time{})
	m.Push(a, sig("a", 9*time.Second, "a9"), time.Time{})
	m.Close(a)
	if got := texts(m, time.Time{}); len(got) != 0 {
		t.Fatalf("held without a bound, released %v", got)
	}
	m.HoldUntil(t0.Add(12 * time.Second))
	if got := texts(m, time.Time{}); !slices.Equal(got, []string{"a1", "b1", "a9"}) {
		t.Fatalf("held until 12s, released %v; want a1 b1 (rank, not opening order) a9", got)
	}
	m.HoldUntil(t0.Add(5 * time.Second)) // the bound only grows
	c := m.Open("c", "", time.Time{})
	m.Push(c, sig("c", 10*time.Second, "c10"), time.Time{})
	if m.Overtaken() != 0 {
		t.Fatalf("%d overtaken by a signal after the released ones", m.Overtaken())
	}
	m.Push(c, sig("c", 9*time.Second, "c9"), time.Time{}) // a9 left: a tie counts (the count errs on the side of saying so)
	m.Push(c, sig("c", -1, "untimed"), time.Time{})
	m.Relabel(c, "c2", "")
	if m.Overtaken() != 2 {
		t.Fatalf("%d overtaken, want 2 (c9 and the untimed one)", m.Overtaken())
	}
	d := m.Open("d", "", time.Time{})
	m.HoldUntil(t0.Add(30 * time.Second))
	m.Push(d, sig("d", 30*time.Second, "d30"), time.Time{})
	texts(m, time.Time{})
	m.Relabel(d, "d2", "")
	if m.Overtaken() != 3 {
		t.Fatalf("%d overtaken, want 3 (and the relabelling of d after signals left since it opened)", m.Overtaken())
	}
}

// Times outside int64 nanoseconds (about 1678 to 2262) clamp to its ends,
// so the heap's order still holds against every time inside.
func TestOrderTimeKeepsTheOrderOutsideTheNanosecondRange(t *testing.T) {
	times := []time.Time{
		{},
		time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC),
		t0,
		t0.Add(time.Nanosecond),
		time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for i := 1; i < len(times); i++ {
		a, b := orderTime(times[i-1]), orderTime(times[i])
		// Only two times clamped to the same end may be equal.
		sameEnd := times[i].Year() < 1678 || times[i-1].Year() > 2262
		if a > b || (!sameEnd && a == b) {
			t.Errorf("orderTime(%v) = %d, orderTime(%v) = %d: out of order", times[i-1], a, times[i], b)
		}
	}
	if got := orderTime(t0); got != t0.UnixNano() {
		t.Errorf("orderTime(%v) = %d, want %d", t0, got, t0.UnixNano())
	}
}

// A stream that has pushed nothing holds every timed signal, even one
// dated before the nanosecond range (a mistaken year in a log line).
func TestMergerHoldsAncientSignalsForAStreamWithoutSignals(t *testing.T) {
	m := NewMerger(Options{Lateness: time.Second, Idle: time.Minute})
	a := m.Open("a", "", t0)
	m.Open("b", "", t0)
	s := catalogue.Signal{Kind: "k", Host: "a", Text: "ancient", Time: time.Date(1200, 1, 1, 0, 0, 0, 0, time.UTC)}
	m.Push(a, s, t0)
	if got := texts(m, t0); len(got) != 0 {
		t.Fatalf("released %v while b has pushed nothing", got)
	}
	m.CloseAll()
	if got := texts(m, t0); !slices.Equal(got, []string{"ancient"}) {
		t.Fatalf("released %v once no stream holds it", got)
	}
}
