// Package stream is the part of ozdoctor's pipeline that every mode shares:
// a Recognizer turns the bytes of one log file into signals of one or more
// streams, and a Merger orders the signals of all streams by event time
// before the engine (package detectors) sees them. Sources (the bundle
// walker today; a tailer, an Elasticsearch query and a /prom scraper
// tomorrow) feed the Recognizer or the Merger; nothing here knows Ozone
// beyond what the message catalogue says.
package stream

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/store/snapshot"
)

// ID names one stream of a Merger: a log file, or one service of a
// docker-compose capture. IDs are given in the order streams are opened,
// which breaks ties between signals of the same time and rank (Rank).
type ID int

// Options tune a Merger.
type Options struct {
	// Lateness is how far behind the slowest stream's newest record a
	// signal may still arrive and take its place in event-time order
	// (asynchronous appenders swap neighbours; streams are read in chunks).
	Lateness time.Duration
	// Idle is how long (wall time) a stream may go without a new signal
	// before it stops holding the others back: its watermark then follows
	// the wall clock minus Lateness.
	Idle time.Duration
	// Since and Until bound the event times released (zero: unbounded),
	// judged after clock offsets are applied.
	Since, Until time.Time
	// SpillBudget, when positive, bounds the memory of the signals a held
	// Merger queues: beyond it they go to a temporary file in SpillDir (""
	// the system's) and are read back in order.
	SpillBudget int64
	SpillDir    string
}

// Merger orders signals of many streams by event time. Each stream has a
// watermark, the newest event time pushed to it; the Merger releases every
// signal older than the lowest watermark of the open streams minus the
// allowed lateness, untimed signals first. A closed stream holds nothing
// back; Hold keeps everything back while a source may still open streams
// with old records (a bundle being walked), HoldUntil what a source that
// opens its streams in time order (a bundle walked by time) may still
// precede. Clock offsets learned from the stream are applied as signals
// leave, so the order is the corrected one.
type Merger struct {
	opt     Options             `state:"-"` // given anew on restore
	streams map[ID]*streamState // open streams; a closed one is forgotten
	nextID  ID
	comps   []parsers.Component // of every stream opened, sorted
	queue   queue               // the signals queued, where they were put
	heap    heap                `state:"-"` // orders them
	free    []int32             `state:"-"` // slots of queue left empty
	untimed []catalogue.Signal
	skew    *Skew
	offsets []ClockOffset
	shift   map[string]time.Duration // applied offsets by host
	held    int
	// until bounds a Hold (HoldUntil): what precedes it may leave. Zero:
	// nothing timed leaves while held.
	until time.Time `state:"-"`
	rank  int32     `state:"-"` // of the streams opened from now on (Rank)
	// overtaken counts what arrived after a signal it precedes had left,
	// and ahead holds the largest clock offset ever applied by host (see
	// Overtaken).
	overtaken int64                    `state:"-"`
	ahead     map[string]time.Duration `state:"-"`
	seq       uint64
	clock     time.Time // newest event time released
	stats     Stats
	spill     *spiller `state:"-"` // nil without a spill budget
	// unordered tells that the heap is not one yet: signals pushed while
	// held are appended.
	unordered bool `state:"-"`
}

// Stats count what a Merger did.
type Stats struct {
	Released int64 // signals handed on
	Filtered int64 // outside Since/Until
	Late     int64 // arrived after their place in the order had passed: handed on at the clock
}

type streamState struct {
	host      string
	component parsers.Component
	newest    time.Time // newest event time pushed (the stream's own clock)
	lastPush  time.Time // wall time of the newest push
	left      int64     `state:"-"` // signals that had left the Merger when it opened
	rank      int32     `state:"-"`
}

type item struct {
	sig    catalogue.Signal
	at     time.Time // event time on the reference clock
	stream ID
	seq    uint64
	run    int32 `state:"-"` // 1 + the spilled run it heads, or 0
	rank   int32 `state:"-"` // its stream's
}

// NewMerger returns an empty Merger.
func NewMerger(opt Options) *Merger {
	m := &Merger{opt: opt, skew: NewSkew(), shift: map[string]time.Duration{}, ahead: map[string]time.Duration{},
		streams: map[ID]*streamState{}}
	if opt.SpillBudget > 0 {
		m.spill = &spiller{budget: opt.SpillBudget, dir: opt.SpillDir, names: map[string]string{}, hosts: map[string]int32{}}
	}
	return m
}

// Hold keeps every timed signal back until the matching Unhold: a source
// that may still open streams holding older records calls it.
func (m *Merger) Hold() { m.held++ }

// Unhold ends one Hold.
func (m *Merger) Unhold() {
	if m.held > 0 {
		m.held--
		m.until = time.Time{}
	}
}

// HoldUntil lets a held Merger release the signals that precede t minus the
// lateness (and that no open stream may precede): the source that holds it
// opens its streams in time order, and none it has yet to open starts
// before t. t only grows.
func (m *Merger) HoldUntil(t time.Time) {
	if m.held > 0 && t.After(m.until) {
		m.until = t
	}
}

// Rank places the streams opened from now on among the signals of one
// time before those of a higher rank, whatever the order they are opened
// in: a bundle walked by time ranks its files on disk by name, so that
// ties between files break as a walk by name breaks them.
func (m *Merger) Rank(r int) { m.rank = int32(r) }

// frozen tells that nothing timed may leave: held without a bound.
func (m *Merger) frozen() bool { return m.held > 0 && m.until.IsZero() }

// Overtaken counts the signals that came after one they precede had left
// (or the relabelling of a stream after signals had left since it opened,
// or an untimed signal after a timed one had left): a held Merger whose
// source released it with HoldUntil then handed on another order than it
// would have holding everything to the end. Clock offsets count at the
// largest ever applied to their host, so the count errs on the side of
// saying so.
func (m *Merger) Overtaken() int64 { return m.overtaken }

// Open starts a stream of the signals of host's comp at wall time now.
func (m *Merger) Open(host string, comp parsers.Component, now time.Time) ID {
	id := m.nextID
	m.nextID++
	m.streams[id] = &streamState{host: host, component: comp, lastPush: now, left: m.stats.Released + m.stats.Filtered, rank: m.rank}
	m.noteComponent(comp)
	return id
}

func (m *Merger) noteComponent(c parsers.Component) {
	if i, found := slices.BinarySearch(m.comps, c); !found {
		m.comps = slices.Insert(m.comps, i, c)
	}
}

// CloseAll ends every stream: after a restore, the sources open theirs
// anew.
func (m *Merger) CloseAll() { clear(m.streams) }

// Close ends a stream: it no longer holds the others back.
func (m *Merger) Close(id ID) { delete(m.streams, id) }

// Relabel gives a stream the host and component its own banner named (a
// docker-compose service, or a file whose name told neither), and the same
// to its signals not released yet that carried the stream's former ones.
func (m *Merger) Relabel(id ID, host string, comp parsers.Component) {
	st := m.streams[id]
	if m.stats.Released+m.stats.Filtered > st.left {
		m.overtaken++
	}
	oldHost, oldComp := st.host, st.component
	st.host, st.component = host, comp
	m.noteComponent(comp)
	rl := relabelling{stream: id, seq: m.seq, oldHost: oldHost, oldComp: oldComp, host: host, comp: comp}
	for i := range m.heap {
		e := &m.heap[i]
		if it := &m.queue[e.slot]; it.stream == id {
			rl.apply(&it.sig)
			it.at = it.sig.Time.Add(-m.shift[it.sig.Host])
			e.at = orderTime(it.at)
		}
	}
	m.reorder()
	if sp := m.spill; sp != nil && sp.spills > 0 {
		rl.spills = sp.spills
		sp.relabel = append(sp.relabel, rl)
	}
}

// Push adds one signal of stream id at wall time now (zero in batch runs).
func (m *Merger) Push(id ID, s catalogue.Signal, now time.Time) { m.PushRef(id, &s, now) }

// PushRef is Push of *s, which it copies once: a caller that keeps the
// signals it hands on in a list saves copying each (520 bytes) again.
func (m *Merger) PushRef(id ID, s *catalogue.Signal, now time.Time) {
	if s.Time.IsZero() {
		if !m.clock.IsZero() {
			m.overtaken++
		}
		m.untimed = append(m.untimed, *s)
		return
	}
	if !m.clock.IsZero() && !s.Time.Add(-m.ahead[s.Host]).After(m.clock) {
		m.overtaken++
	}
	st := m.streams[id]
	if s.Time.After(st.newest) {
		st.newest = s.Time
	}
	if now.After(st.lastPush) {
		st.lastPush = now
	}
	m.seq++
	slot := m.freeSlot()
	it := &m.queue[slot]
	it.sig = *s
	it.at, it.stream, it.seq, it.run, it.rank = s.Time.Add(-m.shift[s.Host]), id, m.seq, 0, st.rank
	m.order(slot)
	m.pushed(s)
}

// enqueue queues it.
func (m *Merger) enqueue(it *item) {
	slot := m.freeSlot()
	m.queue[slot] = *it
	m.order(slot)
}

// freeSlot returns a slot of the queue to fill.
func (m *Merger) freeSlot() int32 {
	if n := len(m.free); n > 0 {
		slot := m.free[n-1]
		m.free = m.free[:n-1]
		return slot
	}
	m.queue = append(m.queue, item{})
	return int32(len(m.queue) - 1)
}

// order puts the item in slot in the order of release. Nothing timed
// leaves a frozen merger, so it keeps no heap until it may (Release): it
// appends.
func (m *Merger) order(slot int32) {
	e := m.queue[slot].entry(slot)
	if m.frozen() || m.unordered {
		m.heap = append(m.heap, e)
		m.unordered = true
		return
	}
	m.heap.push(e)
}

// Progress tells that stream id has read records up to event time t at wall
// time now, signals or not: its watermark moves as if it had pushed one.
func (m *Merger) Progress(id ID, t, now time.Time) {
	st := m.streams[id]
	if st == nil {
		return
	}
	if t.After(st.newest) {
		st.newest = t
	}
	if now.After(st.lastPush) {
		st.lastPush = now
	}
}

// Release hands on, in event-time order, every signal that no open stream
// can still precede, to emit, which must copy what it keeps of it (the
// Merger reuses it); now is the wall time (zero in batch runs: no stream
// is ever idle). It returns the watermark: the event time up to which
// everything was handed on (zero when nothing may be yet). When no open
// stream bounds it, that is the newest released in a batch run, and live
// the wall clock minus the lateness, as for idle streams: a daemon whose
// files bring no signal (after a restart, its sources open streams only
// with their next signal) still passes its detectors' deadlines.
func (m *Merger) Release(now time.Time, emit func(*catalogue.Signal)) time.Time {
	m.releaseUntimed(emit)
	if m.frozen() {
		return time.Time{}
	}
	m.settle()
	if m.unordered {
		m.reorder()
	}
	limit, bounded := m.watermark(now)
	until, open := releaseBound(limit, bounded)
	for open && len(m.heap) > 0 && m.heap[0].at <= until {
		slot := m.heap[0].slot
		it := &m.queue[slot]
		m.emit(it.at, &it.sig, emit) // from its slot, before the slot is reused
		if next, ok := m.taken(it); ok {
			*it = next // a run's next signal takes its head's place
			m.heap[0] = next.entry(slot)
			m.heap.down(0)
		} else {
			*it = item{} // let go of its text
			m.free = append(m.free, slot)
			m.heap.pop()
		}
		if m.refreshOffsets() && bounded {
			limit, _ = m.watermark(now)
			until, open = releaseBound(limit, true)
		}
	}
	if !bounded {
		if live := now.Add(-m.opt.Lateness); !now.IsZero() && live.After(m.clock) {
			return live
		}
		return m.clock
	}
	return limit
}

// Drain hands on everything queued: every source reached its end.
func (m *Merger) Drain(emit func(*catalogue.Signal)) {
	m.held, m.until = 0, time.Time{}
	clear(m.streams)
	if m.settle(); m.spill != nil {
		m.spill.widen()
	}
	m.Release(time.Time{}, emit)
	m.queue, m.heap, m.free, m.untimed = nil, nil, nil, nil // nothing more comes: their memory goes back
}

// releaseBound is the orderTime up to which Release hands entries on, and
// false when none may leave: a zero limit is a stream that has pushed
// nothing, and it holds everything.
func releaseBound(limit time.Time, bounded bool) (int64, bool) {
	switch {
	case !bounded:
		return math.MaxInt64, true
	case limit.IsZero():
		return 0, false
	}
	return orderTime(limit), true
}

// watermark returns the newest event time that may be released, and false
// when no open stream bounds it.
func (m *Merger) watermark(now time.Time) (time.Time, bool) {
	var low time.Time
	bounded := false
	for _, st := range m.streams {
		w := st.newest
		if !w.IsZero() {
			w = w.Add(-m.shift[st.host])
		}
		if !now.IsZero() && now.Sub(st.lastPush) >= m.opt.Idle {
			if idle := now.Add(-m.opt.Lateness); idle.After(w) {
				w = idle
			}
		}
		if !bounded || w.Before(low) {
			low, bounded = w, true
		}
	}
	if m.held > 0 && (!bounded || m.until.Before(low)) {
		low, bounded = m.until, true
	}
	if !bounded {
		return time.Time{}, false
	}
	if low.IsZero() {
		return low, true // a stream that has pushed nothing holds everything
	}
	return low.Add(-m.opt.Lateness), true
}

func (m *Merger) releaseUntimed(emit func(*catalogue.Signal)) {
	for i := range m.untimed {
		m.stats.Released++
		emit(&m.untimed[i])
	}
	m.untimed = m.untimed[:0]
}

// emit hands on s, a signal released, at its time on the reference clock
// at; s is the Merger's own (emit must not keep it).
func (m *Merger) emit(at time.Time, s *catalogue.Signal, emit func(*catalogue.Signal)) {
	if !m.opt.Since.IsZero() && at.Before(m.opt.Since) || !m.opt.Until.IsZero() && at.After(m.opt.Until) {
		m.stats.Filtered++
		return
	}
	if at.Before(m.clock) {
		m.stats.Late++
	} else {
		m.clock = at
	}
	m.stats.Released++
	m.skew.Observe(s) // on the host's own clock
	s.Time = at
	emit(s)
}

// refreshOffsets applies the clock offsets learned from the signals
// released so far to the signals still queued, and reports whether they
// moved. Offsets are learned from released signals only, so that every
// mode applies the same offsets to the same signals.
func (m *Merger) refreshOffsets() bool {
	if !m.skew.Changed() {
		return false
	}
	m.offsets = m.skew.Estimate()
	shift := map[string]time.Duration{}
	for _, o := range m.offsets {
		if o.Applied {
			shift[o.Host] = o.Offset
		}
	}
	same := len(shift) == len(m.shift)
	for h, d := range shift {
		same = same && m.shift[h] == d
	}
	if same {
		return false
	}
	m.shift = shift
	for h, d := range shift {
		if d > m.ahead[h] {
			m.ahead[h] = d
		}
	}
	for i := range m.heap {
		e := &m.heap[i]
		it := &m.queue[e.slot]
		it.at = it.sig.Time.Add(-shift[it.sig.Host])
		e.at = orderTime(it.at)
	}
	m.heap.init()
	return true
}

// Offsets returns the clock offsets estimated so far, sorted by host.
func (m *Merger) Offsets() []ClockOffset {
	if m.skew.Changed() {
		m.refreshOffsets()
	}
	return m.offsets
}

// Snapshot returns the merger's state as versioned bytes: its streams and
// their watermarks, the signals waiting for their turn and the clock
// offsets learned.
func (m *Merger) Snapshot() ([]byte, error) {
	m.settle()
	m.compact() // a restored queue has no empty slots
	return snapshot.Marshal(m)
}

// compact moves the queue's items to its first slots, leaving none empty,
// and makes the heap anew.
func (m *Merger) compact() {
	slices.Sort(m.free)
	q, free := m.queue[:0], m.free
	for i := range m.queue {
		if len(free) > 0 && free[0] == int32(i) {
			free = free[1:]
			continue
		}
		q = append(q, m.queue[i])
	}
	clear(m.queue[len(q):])
	m.queue, m.free = q, m.free[:0]
	m.index()
}

// index makes the heap of every item of the queue.
func (m *Merger) index() {
	m.heap = m.heap[:0]
	for i := range m.queue {
		m.heap = append(m.heap, m.queue[i].entry(int32(i)))
	}
	m.reorder()
}

// reorder makes the heap one again, or leaves that to the next Release
// while frozen.
func (m *Merger) reorder() {
	if m.frozen() {
		m.unordered = true
		return
	}
	m.heap.init()
	m.unordered = false
}

// Restore loads a snapshot into a merger made with NewMerger.
func (m *Merger) Restore(data []byte) error {
	m.skew.diffs = nil // computed afresh from the events restored
	err := snapshot.Unmarshal(data, m)
	m.free = nil
	m.index()
	return err
}

// Clock returns the newest event time released.
func (m *Merger) Clock() time.Time { return m.clock }

// Components returns the components of the streams opened so far, sorted.
func (m *Merger) Components() []parsers.Component { return m.comps }

// SyncEvents returns how many shared events the clock-offset estimate
// remembers, its bound and how many it forgot.
func (m *Merger) SyncEvents() (entries, limit int, evicted int64) {
	return m.skew.Len(), maxSyncKeys, m.skew.Evicted()
}

// Stats returns what the Merger did so far.
func (m *Merger) Stats() Stats { return m.stats }

// Queued returns how many signals wait for their turn.
func (m *Merger) Queued() int {
	m.settle()
	n := len(m.heap) + len(m.untimed)
	if m.spill != nil {
		n += int(m.spill.left)
	}
	return n
}

// queue holds the queued items where they were put; an empty slot is a
// zero item.
type queue []item

// entry is an item's place in the heap: what orders it, and where in the
// queue it lies. The heap moves entries, a sixteenth of an item's size;
// they hold no pointer, so the collector never scans the heap's array.
type entry struct {
	at     int64 // orderTime of the item's at
	seq    uint64
	stream ID
	rank   int32
	slot   int32
}

func (it *item) entry(slot int32) entry {
	return entry{at: orderTime(it.at), seq: it.seq, stream: it.stream, rank: it.rank, slot: slot}
}

// orderTime is t in nanoseconds since 1970, clamped to the int64 range
// (about 1678 to 2262) so that the order of times outside it still holds
// against every time inside.
func orderTime(t time.Time) int64 {
	switch s := t.Unix(); {
	case s <= math.MinInt64/int64(time.Second):
		return math.MinInt64
	case s >= math.MaxInt64/int64(time.Second):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// heap is a min-heap of entries by event time, rank, stream and arrival
// (typed: container/heap would box every entry it moves in and out).
type heap []entry

func (h heap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *heap) push(e entry) {
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

func (h *heap) pop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	*h = old[:n]
	h.down(0)
}

// up and down move an entry through a hole, one copy per level.
func (h heap) up(j int) {
	x := h[j]
	for j > 0 {
		i := (j - 1) / 2
		if compareEntries(&x, &h[i]) >= 0 {
			break
		}
		h[j] = h[i]
		j = i
	}
	h[j] = x
}

func (h heap) down(i int) {
	n := len(h)
	if i >= n {
		return
	}
	x := h[i]
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if r := j + 1; r < n && compareEntries(&h[r], &h[j]) < 0 {
			j = r
		}
		if compareEntries(&h[j], &x) >= 0 {
			break
		}
		h[i] = h[j]
		i = j
	}
	h[i] = x
}

// compareEntries orders entries by event time, rank, stream and arrival.
func compareEntries(a, b *entry) int {
	if a.at != b.at {
		return cmp.Compare(a.at, b.at)
	}
	if a.rank != b.rank {
		return cmp.Compare(a.rank, b.rank)
	}
	if a.stream != b.stream {
		return cmp.Compare(a.stream, b.stream)
	}
	return cmp.Compare(a.seq, b.seq)
}
