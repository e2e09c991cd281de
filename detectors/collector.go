package detectors

import (
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/ozdoctor/ozdoctor/store/diskstore"
)

// Collector keeps what a report shows from a run's transitions: the latest
// version of every alert that fired or resolved, whether or not the engine
// still remembers it. Pending alerts at the end and withdrawn ones are left
// out. Its size is the number of distinct alerts of the run; told to Spill,
// it keeps the findings of resolved alerts in a temporary file, and those
// of the others but the heldFindings updated last, with only what orders
// and selects them in memory.
type Collector struct {
	index    map[string]int // detector + "\x00" + key -> findings index
	findings []Finding      // in order of first transition; of a spilled or withdrawn one, its stub
	gone     []bool         // withdrawn
	// spilled are where the findings left out of findings lie (Size 0: in
	// memory). A checkpoint never holds a spilling collector's state.
	spilled  []diskstore.Ref  `state:"-"`
	store    *diskstore.Store `state:"-"`
	spillErr error            `state:"-"`
	// held are the findings of alerts not resolved kept whole in memory,
	// by index, with the number of the Add that last changed each.
	held map[int]int64 `state:"-"`
	adds int64         `state:"-"`
}

// heldFindings is how many findings of alerts not resolved a spilling
// collector keeps whole: those updated last. An alert may fire for the rest
// of a long run (a replica lost), and a bundle of months holds thousands;
// but the findings updated again and again must stay in memory, or each
// update writes one out: divisionclosing refreshes up to 256 stuck
// divisions' findings every few minutes (with 256 held, dense 4 GiB wrote
// 220,000 findings and took a third longer).
const heldFindings = 1024

// Spill makes the collector keep the findings of resolved alerts, and of
// the others but the heldFindings updated last, in a temporary file in dir
// ("" the system's) from now on. If that file cannot be made or written,
// they stay in memory and SpillError says why.
func (c *Collector) Spill(dir string) {
	c.store, c.spillErr = diskstore.Open(dir)
	c.spilled = make([]diskstore.Ref, len(c.findings))
}

// SpillError says why findings stayed in memory though told to Spill.
func (c *Collector) SpillError() error { return c.spillErr }

// Add records one transition; it is a subscriber of the engine.
func (c *Collector) Add(t Transition) {
	if c.index == nil {
		c.index = map[string]int{}
	}
	k := t.Finding.Detector + "\x00" + t.Finding.Key
	i, ok := c.index[k]
	if !ok {
		i = len(c.findings)
		c.index[k] = i
		c.findings = append(c.findings, Finding{})
		c.gone = append(c.gone, false)
		if c.spilled != nil {
			c.spilled = append(c.spilled, diskstore.Ref{})
		}
	}
	c.findings[i] = t.Finding
	c.gone[i] = t.To == Inactive
	if c.store == nil {
		return
	}
	c.spilled[i] = diskstore.Ref{}
	if c.spillErr != nil {
		return
	}
	switch t.To {
	case Inactive: // never reported
		delete(c.held, i)
		c.findings[i] = t.Finding.stub()
		return
	case Resolved:
		delete(c.held, i)
		c.put(i)
		return
	}
	if c.held == nil {
		c.held = map[int]int64{}
	}
	c.adds++
	c.held[i] = c.adds
	if len(c.held) > heldFindings {
		c.spillHeld()
	}
}

// spillHeld writes the older half of the held findings to the store.
func (c *Collector) spillHeld() {
	older := slices.SortedFunc(maps.Keys(c.held), func(a, b int) int { return cmp.Compare(c.held[a], c.held[b]) })
	for _, i := range older[:len(older)/2] {
		delete(c.held, i)
		if !c.put(i) {
			return
		}
	}
}

// put writes the i-th finding to the store and keeps its stub; false if
// it could not (the store failed: spillErr says why).
func (c *Collector) put(i int) bool {
	f := &c.findings[i]
	ref, err := c.store.Put(f)
	if err != nil {
		c.spillErr = err
		return false
	}
	c.findings[i], c.spilled[i] = f.stub(), ref
	return true
}

// finding returns the i-th finding, read back if it was spilled.
func (c *Collector) finding(i int) (Finding, error) {
	if i >= len(c.spilled) || c.spilled[i].Size == 0 {
		return c.findings[i], nil
	}
	var f Finding
	if err := c.store.Get(c.spilled[i], &f); err != nil {
		return Finding{}, fmt.Errorf("findings: %w", err)
	}
	return f, nil
}

// Findings returns the findings to report, sorted by start and detector,
// each finalized by finalize as it is read; keep, if not nil, selects the
// detectors reported.
func (c *Collector) Findings(finalize func(Finding) Finding, keep func(detector string) bool) FindingList {
	var order []int
	for i, f := range c.findings {
		if c.gone[i] || f.State == Pending || keep != nil && !keep(f.Detector) {
			continue
		}
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareFindings(&c.findings[a], &c.findings[b]) })
	return FindingList{src: &collected{c: c, order: order, finalize: finalize}}
}

// FindingList is the findings of a report, in its order. A run's list
// reads those its collector spilled back one at a time, and finalizes each
// as it is read: a report of thousands of findings is never held whole. In
// JSON it is an array.
type FindingList struct {
	fs  []Finding
	src *collected // if not nil, the list
}

// collected is a collector's findings in report order.
type collected struct {
	c        *Collector
	order    []int
	finalize func(Finding) Finding
	err      error // the first failure to read a finding back
}

// FindingsOf returns a list of the findings fs.
func FindingsOf(fs []Finding) FindingList { return FindingList{fs: fs} }

// Len returns how many findings the list holds.
func (l FindingList) Len() int {
	if l.src != nil {
		return len(l.src.order)
	}
	return len(l.fs)
}

// All yields the findings in order. It stops early if one cannot be read
// back from its temporary file; Err says why.
func (l FindingList) All() iter.Seq[Finding] {
	return func(yield func(Finding) bool) {
		for i := range l.Len() {
			f, err := l.At(i)
			if err != nil {
				l.src.err = err
				return
			}
			if !yield(f) {
				return
			}
		}
	}
}

// At returns the i-th finding, read back and finalized. Several calls may
// run at once.
func (l FindingList) At(i int) (Finding, error) {
	if l.src == nil {
		return l.fs[i], nil
	}
	f, err := l.src.c.finding(l.src.order[i])
	if err == nil && l.src.finalize != nil {
		f = l.src.finalize(f)
	}
	return f, err
}

// Worst returns the highest severity among the findings (zero: none),
// without reading spilled ones back: their stubs keep it.
func (l FindingList) Worst() Severity {
	var worst Severity
	if l.src == nil {
		for i := range l.fs {
			worst = max(worst, l.fs[i].Severity)
		}
		return worst
	}
	for _, i := range l.src.order {
		worst = max(worst, l.src.c.findings[i].Severity)
	}
	return worst
}

// Slice returns the findings, read whole into memory (never nil).
func (l FindingList) Slice() []Finding {
	return slices.AppendSeq(make([]Finding, 0, l.Len()), l.All())
}

// Err returns why All stopped early, if it did.
func (l FindingList) Err() error {
	if l.src != nil {
		return l.src.err
	}
	return nil
}

// MarshalJSON writes the list as an array, whole.
func (l FindingList) MarshalJSON() ([]byte, error) {
	return diskstore.MarshalList(l.Len(), l.All(), l.Err)
}

// UnmarshalJSON reads an array into memory.
func (l *FindingList) UnmarshalJSON(b []byte) error {
	*l = FindingList{}
	return json.Unmarshal(b, &l.fs)
}
