package stream

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
	"unsafe"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// A held Merger (a bundle being walked) keeps every signal until the walk
// ends: a later file may hold older records. With a spill budget, the
// queued signals that outgrow half of it are written to a temporary file
// as sorted runs, one per host, on a goroutine of their own while the
// queue fills again (the other half), and read back as the merge reaches
// them: a run's head waits in the queue like any signal, and taking it
// reads the next. Memory is then the budget plus a small buffer per run,
// whatever the bundle's size, and the order is the one the queue alone
// would give: a host's signals keep their order under its clock offset, so
// a run of one host stays sorted when offsets are learned.
type spiller struct {
	budget  int64
	dir     string
	file    *os.File // unlinked as soon as made: nothing is left behind
	end     int64    // bytes written
	queued  int64    // estimated bytes of the queue's own signals
	runs    []*run
	left    int64             // signals on disk not read back yet
	spills  int               // times the queue was spilled
	zones   []*time.Location  // of spilled times, restored on reading
	names   map[string]string // the fields of few values read back (decoder.name)
	buf     []byte            // records being read
	wbuf    []byte            // records being written
	writing *spillWrite       // the spill being written, if any
	spare   []item            // the array of the queue last written, for the next queue
	order   []spillKey        // the queue's items of a spill, in order
	hosts   map[string]int32  // of a spill, numbered in the order met
	relabel []relabelling     // relabellings that spilled signals must undergo
	stats   SpillStats
	lost    lostRuns
	err     error // the first failure: spilling stops, signals stay in memory
}

// SpillStats say what spilling did.
type SpillStats struct {
	Signals int64  // signals written to disk
	Runs    int    // sorted runs written
	Error   string // why spilling stopped (the signals stayed in memory)
	Lost    string // what could not be read back (those signals are lost)
}

type run struct {
	sec  *io.SectionReader // its bytes in the spill file
	r    *bufio.Reader     // reads sec
	left int64
}

// relabelling is a Relabel; kept when signals already on disk missed it.
type relabelling struct {
	stream  ID
	seq     uint64 // the signals up to this one were pushed before it
	spills  int    // spills done before it: it missed the signals they wrote
	oldHost string
	oldComp parsers.Component
	host    string
	comp    parsers.Component
}

// A run's read buffer is runBuffer bytes while it may still be spilled;
// once nothing more can be (widen), the runs left share a quarter of the
// budget, up to maxRunBuffer each, so that fewer reads reach the disk.
const (
	runBuffer    = 4 << 10
	maxRunBuffer = 64 << 10
)

// widen gives the runs left to read larger buffers: nothing more is spilled.
func (sp *spiller) widen() {
	live := int64(0)
	for _, rn := range sp.runs {
		if rn.left > 0 {
			live++
		}
	}
	size := min(sp.budget/4/max(live, 1), maxRunBuffer)
	if size <= runBuffer {
		return
	}
	for _, rn := range sp.runs {
		if rn.left == 0 || rn.r.Size() >= int(size) {
			continue
		}
		// The section is read up to what the buffer holds: go back there.
		if _, err := rn.sec.Seek(-int64(rn.r.Buffered()), io.SeekCurrent); err != nil {
			continue // kept as it is
		}
		rn.r = bufio.NewReaderSize(rn.sec, int(size))
	}
}

// Cost estimates the memory a queued signal holds: the item and the text
// it keeps alive (a record's message, of which Text is the first line).
func Cost(s *catalogue.Signal) int64 {
	n := int64(unsafe.Sizeof(item{})+unsafe.Sizeof(entry{})) + 2*int64(len(s.Text)) + int64(len(s.Thread))
	for _, p := range s.Pipelines {
		n += 16 + int64(len(p))
	}
	for _, p := range s.Peers {
		n += 16 + int64(len(p))
	}
	for _, p := range s.OldPeers {
		n += 16 + int64(len(p))
	}
	for k, v := range s.Attrs {
		n += 48 + int64(len(k)+len(v))
	}
	return n
}

// pushed accounts for a signal queued while held, and spills the queue
// when it outgrows half the budget: the other half is the spill being
// written meanwhile.
func (m *Merger) pushed(s *catalogue.Signal) {
	sp := m.spill
	if sp == nil || sp.err != nil {
		return
	}
	sp.queued += Cost(s)
	if m.held > 0 && sp.queued > sp.budget/2 {
		m.spillQueue()
	}
}

// spillQueue hands the queue's own signals (not the runs' heads) to a
// goroutine that writes them to the spill file, a sorted run per host,
// while the queue fills anew. One spill is written at a time; settle waits
// for it.
func (m *Merger) spillQueue() {
	sp := m.spill
	if m.settle(); sp.err != nil {
		return
	}
	if sp.file == nil {
		f, err := os.CreateTemp(sp.dir, "ozdoctor-spill-*")
		if err != nil {
			sp.fail(fmt.Errorf("spill: %w", err))
			return
		}
		os.Remove(f.Name()) // the open file stays readable and vanishes with the process
		sp.file = f
	}
	m.compact()
	w := &spillWrite{items: m.queue, spill: sp.spills, start: sp.end, done: make(chan struct{})}
	heads := sp.spare[:0]
	for _, it := range m.queue {
		if it.run > 0 {
			heads = append(heads, it)
		}
	}
	m.queue, sp.spare = heads, nil
	m.index()
	sp.spills++
	sp.queued = 0
	sp.writing = w
	go sp.write(w)
}

// spillWrite is a spill being written.
type spillWrite struct {
	items   []item // the queue as it was: its items that head no run are written
	spill   int    // the spill's number
	start   int64  // where in the file it goes
	done    chan struct{}
	runs    []*run // what the writing gave
	size    int64
	signals int64
	err     error
}

// write writes w's items: the runs' heads stay in the queue; the rest is
// written a run per host sorted by time, rank, stream and arrival (a total
// order: arrival numbers are unique). The sort moves small keys, not the
// large items. Until w is done, the spiller's file, zones, order, hosts
// and write buffer are the writer's.
func (sp *spiller) write(w *spillWrite) {
	defer close(w.done)
	order := sp.sortedKeys(w.items)
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j].host == order[i].host {
			j++
		}
		if w.err = sp.writeRun(w, order[i:j]); w.err != nil {
			return
		}
		i = j
	}
}

// settle waits for the spill being written, if any, and queues the head of
// each run it wrote. If it failed, spilling stops and the queue takes its
// signals back, with the relabellings they missed meanwhile.
func (m *Merger) settle() {
	sp := m.spill
	if sp == nil || sp.writing == nil {
		return
	}
	w := sp.writing
	sp.writing = nil
	<-w.done
	if w.err != nil {
		sp.fail(w.err)
		for _, it := range w.items {
			if it.run != 0 {
				continue
			}
			m.catchUp(&it, w.spill)
			m.enqueue(&it)
		}
	} else {
		first := len(sp.runs)
		sp.runs = append(sp.runs, w.runs...)
		sp.end += w.size
		sp.left += w.signals
		sp.stats.Signals += w.signals
		sp.stats.Runs += len(w.runs)
		for r := first; r < len(sp.runs); r++ {
			if it, ok := m.next(int32(r + 1)); ok {
				m.enqueue(&it)
			}
		}
	}
	clear(w.items)
	sp.spare = w.items[:0]
}

// fail stops spilling: what is queued stays in memory.
func (sp *spiller) fail(err error) {
	sp.err = err
	sp.stats.Error = err.Error() + " (the signals stayed in memory)"
}

// spillKey is an item's place in a spill's order.
type spillKey struct {
	host int32 // its host's number in the spill (in the order met)
	e    entry
}

// sortedKeys returns the keys of the items of q that head no run, in the
// order they are written.
func (sp *spiller) sortedKeys(q []item) []spillKey {
	clear(sp.hosts)
	order := sp.order[:0]
	for i := range q {
		if q[i].run != 0 {
			continue
		}
		x, ok := sp.hosts[q[i].sig.Host]
		if !ok {
			x = int32(len(sp.hosts))
			sp.hosts[q[i].sig.Host] = x
		}
		order = append(order, spillKey{host: x, e: q[i].entry(int32(i))})
	}
	slices.SortFunc(order, func(a, b spillKey) int {
		if a.host != b.host {
			return cmp.Compare(a.host, b.host)
		}
		return compareEntries(&a.e, &b.e)
	})
	sp.order = order
	return order
}

// writeRun appends the items of order (sorted, one host) to the spill file
// as a run of w.
func (sp *spiller) writeRun(w *spillWrite, order []spillKey) error {
	at := w.start + w.size
	out := io.NewOffsetWriter(sp.file, at)
	var n int64
	for i := 0; i < len(order); {
		sp.wbuf = sp.wbuf[:0]
		for ; i < len(order) && len(sp.wbuf) < 64<<10; i++ {
			it := &w.items[order[i].e.slot]
			sp.wbuf = appendItem(sp.wbuf, it, sp.zone(it.sig.Time.Location()), w.spill)
		}
		if _, err := out.Write(sp.wbuf); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		n += int64(len(sp.wbuf))
	}
	sec := io.NewSectionReader(sp.file, at, n)
	w.runs = append(w.runs, &run{sec: sec, r: bufio.NewReaderSize(sec, runBuffer), left: int64(len(order))})
	w.size += n
	w.signals += int64(len(order))
	return nil
}

func (sp *spiller) zone(loc *time.Location) int {
	if i := slices.Index(sp.zones, loc); i >= 0 {
		return i
	}
	sp.zones = append(sp.zones, loc)
	return len(sp.zones) - 1
}

// next reads the next signal of run r (1-based), if any. What cannot be
// read back is lost, and said in the stats.
func (m *Merger) next(r int32) (item, bool) {
	sp := m.spill
	rn := sp.runs[r-1]
	if rn.left == 0 {
		return item{}, false
	}
	it := item{run: r}
	spill, err := readItem(rn.r, &sp.buf, sp.zones, sp.names, &it)
	if err != nil {
		sp.lost.note(r, err, rn.left)
		sp.left -= rn.left
		rn.left, rn.r, rn.sec = 0, nil, nil
		return item{}, false
	}
	rn.left--
	sp.left--
	if rn.left == 0 {
		rn.r, rn.sec = nil, nil
	}
	if sp.left == 0 && m.held == 0 && sp.file != nil {
		sp.file.Close() // all read back: the disk space is freed
		sp.file, sp.end = nil, 0
	}
	m.catchUp(&it, spill)
	return it, true
}

// catchUp gives an item that spill took out of the queue the relabellings
// it missed since, and its time on the reference clock.
func (m *Merger) catchUp(it *item, spill int) {
	for _, rl := range m.spill.relabel {
		if rl.spills > spill && rl.stream == it.stream && it.seq <= rl.seq {
			rl.apply(&it.sig)
		}
	}
	it.at = it.sig.Time.Add(-m.shift[it.sig.Host])
}

// taken accounts for an item leaving the queue: a run's head brings the
// next signal of its run, to be queued in its place.
func (m *Merger) taken(it *item) (item, bool) {
	sp := m.spill
	if sp == nil {
		return item{}, false
	}
	if it.run == 0 {
		sp.queued -= Cost(&it.sig)
		return item{}, false
	}
	return m.next(it.run)
}

// lostRuns is what could not be read back: the first failure, and how
// many runs and signals were lost in all (a damaged disk fails every run).
type lostRuns struct {
	runs    int
	signals int64
	first   string
}

func (l *lostRuns) note(r int32, err error, signals int64) {
	if l.runs == 0 {
		l.first = fmt.Sprintf("spill: reading run %d back: %v", r, err)
	}
	l.runs++
	l.signals += signals
}

func (l *lostRuns) String() string {
	switch l.runs {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s: %d signals lost", l.first, l.signals)
	}
	return fmt.Sprintf("%s: %d signals lost from %d runs", l.first, l.signals, l.runs)
}

// SpillStats returns what spilling did (zero without a budget).
func (m *Merger) SpillStats() SpillStats {
	if m.spill == nil {
		return SpillStats{}
	}
	m.settle()
	st := m.spill.stats
	st.Lost = m.spill.lost.String()
	return st
}

// Discard lets go of the spill file of a run that ends early.
func (m *Merger) Discard() {
	m.settle()
	if m.spill != nil && m.spill.file != nil {
		m.spill.file.Close()
		m.spill.file, m.spill.runs, m.spill.left = nil, nil, 0
	}
}

// apply gives s the new labels where it carried the stream's former ones.
func (rl relabelling) apply(s *catalogue.Signal) {
	if s.Host == rl.oldHost || s.Host == "" {
		s.Host = rl.host
	}
	if s.Component == rl.oldComp || s.Component == "" {
		s.Component = rl.comp
	}
}
