package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"time"
	"unsafe"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/store/diskstore"
)

// Files is the coverage of every file read. A bundle run of many files
// keeps its list in a temporary file past an eighth of the spill budget,
// with only each file's rank and place in memory (24 bytes), and reads it
// back a file at a time: held whole, the list of a bundle of 168,000 files
// took 43 MB. In JSON it is an array either way.
type Files struct {
	spill *fileSpill     // the list's start, if it went to a file
	list  []FileCoverage // the rest, in memory
	sums  fileSums       // summed as files are added: the list is not read back for them
}

// fileSums is what the coverage sums up over the files.
type fileSums struct {
	totals     Totals // but Signals, which the merger counts
	start, end time.Time
	hosts      map[string]*HostCoverage // by detectors.ShortHost
	present    map[parsers.Component]bool
}

// add counts fc.
func (s *fileSums) add(fc *FileCoverage) {
	if s.hosts == nil {
		s.hosts, s.present = map[string]*HostCoverage{}, map[parsers.Component]bool{}
	}
	s.present[parsers.Component(fc.Component)] = true
	t := &s.totals
	t.Files++
	t.Bytes += fc.Bytes
	t.Lines += fc.Lines
	t.Records += fc.Records
	t.Unparsed += fc.Unparsed
	t.Truncated += fc.Truncated
	t.Damaged += fc.Damaged
	t.Samples += fc.Samples
	s.start = earliest(s.start, fc.First)
	s.end = latest(s.end, fc.Last)
	name := fc.Host
	if name == "" {
		name = "(unknown host)"
	}
	// "scm1" (a directory) and "scm1.example.com" (a file name) are one
	// host, named by its longest name (the least of those as long).
	short := detectors.ShortHost(name)
	hc, ok := s.hosts[short]
	if !ok {
		hc = &HostCoverage{Host: name}
		s.hosts[short] = hc
	}
	if len(name) > len(hc.Host) || len(name) == len(hc.Host) && name < hc.Host {
		hc.Host = name
	}
	hc.Files++
	hc.Records += fc.Records
	if fc.Component != "" && !slices.Contains(hc.Components, fc.Component) {
		hc.Components = append(hc.Components, fc.Component)
	}
	hc.First = earliest(hc.First, fc.First)
	hc.Last = latest(hc.Last, fc.Last)
}

// earliest returns the earlier of a and b, the zero time meaning none.
func earliest(a, b time.Time) time.Time {
	if b.IsZero() || !a.IsZero() && !b.Before(a) {
		return a
	}
	return b
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// fileSpill is the part of a list written to a temporary file.
type fileSpill struct {
	store  *diskstore.Store
	index  []fileRef
	failed bool  // writing failed: the rest of the list stays in memory
	err    error // the first failure to read the list back
}

type fileRef struct {
	rank int
	diskstore.Ref
}

// FilesOf returns a list of the files fcs.
func FilesOf(fcs []FileCoverage) Files {
	fs := Files{list: fcs}
	for i := range fcs {
		fs.sums.add(&fcs[i])
	}
	return fs
}

// Len returns how many files the list holds.
func (fs *Files) Len() int {
	n := len(fs.list)
	if fs.spill != nil {
		n += len(fs.spill.index)
	}
	return n
}

// All yields the files in the list's order. It stops early if the list
// cannot be read back from its temporary file; Err says why.
func (fs *Files) All() iter.Seq[FileCoverage] {
	return func(yield func(FileCoverage) bool) {
		for i := range fs.Len() {
			fc, err := fs.At(i)
			if err != nil {
				fs.spill.err = err
				return
			}
			if !yield(fc) {
				return
			}
		}
	}
}

// At returns the i-th file of the list, read back if it went to the
// temporary file. Several calls may run at once.
func (fs *Files) At(i int) (FileCoverage, error) {
	if fs.spill == nil {
		return fs.list[i], nil
	}
	if n := len(fs.spill.index); i >= n {
		return fs.list[i-n], nil
	}
	ref := fs.spill.index[i]
	var fc FileCoverage
	if err := fs.spill.store.Get(ref.Ref, &fc); err != nil {
		return FileCoverage{}, fmt.Errorf("file list: %w", err)
	}
	fc.rank = ref.rank
	return fc, nil
}

// JSONAt returns the i-th file of the list as diskstore.Marshal encodes
// it: as it was kept, if it went to the temporary file.
func (fs *Files) JSONAt(i int) (json.RawMessage, error) {
	if fs.spill != nil && i < len(fs.spill.index) {
		b, err := fs.spill.store.Raw(fs.spill.index[i].Ref)
		if err != nil {
			return nil, fmt.Errorf("file list: %w", err)
		}
		return b, nil
	}
	fc, err := fs.At(i)
	if err != nil {
		return nil, err
	}
	return diskstore.Marshal(fc)
}

// OnDisk says whether part of the list went to the temporary file.
func (fs *Files) OnDisk() bool { return fs.spill != nil }

// Components returns the components of the files, "" for files whose
// component could not be told.
func (fs *Files) Components() map[parsers.Component]bool {
	out := make(map[parsers.Component]bool, len(fs.sums.present))
	maps.Copy(out, fs.sums.present)
	return out
}

// SumFiles sets the coverage's totals (but Signals, which the merger
// counts), its span of time and its hosts, by name, from its files.
func (c *Coverage) SumFiles() {
	sums := &c.Files.sums
	c.Totals, c.Start, c.End = sums.totals, sums.start, sums.end
	c.Hosts = []HostCoverage{}
	for _, hc := range sums.hosts {
		h := *hc
		h.Components = slices.Sorted(slices.Values(h.Components))
		c.Hosts = append(c.Hosts, h)
	}
	sort.Slice(c.Hosts, func(i, j int) bool { return c.Hosts[i].Host < c.Hosts[j].Host })
}

// Err returns why All stopped early, if it did.
func (fs *Files) Err() error {
	if fs.spill != nil {
		return fs.spill.err
	}
	return nil
}

// Add appends fc, the rank-th file on disk in name order
// (bundle.File.Rank, for SortByRank). Past limit bytes of list in memory
// (none when limit is not positive) the list goes to a temporary file in
// dir; what cannot be written there stays in memory.
func (fs *Files) Add(fc FileCoverage, rank int, limit int64, dir string) {
	fc.rank = rank
	fs.sums.add(&fc)
	fs.list = append(fs.list, fc)
	if limit > 0 && int64(len(fs.list))*fileCost >= limit && (fs.spill == nil || !fs.spill.failed) {
		fs.flush(dir)
	}
}

// flush writes the list in memory to the temporary file.
func (fs *Files) flush(dir string) {
	if fs.spill == nil {
		store, err := diskstore.Open(dir)
		fs.spill = &fileSpill{store: store, failed: err != nil}
		if err != nil {
			return
		}
	}
	sp := fs.spill
	refs, err := diskstore.PutAll(sp.store, fs.list)
	if err != nil {
		sp.failed = true
		return
	}
	for i, fc := range fs.list {
		sp.index = append(sp.index, fileRef{fc.rank, refs[i]})
	}
	fs.list = fs.list[:0]
}

// fileCost is about what a file of the list takes in memory: its coverage
// and a path.
const fileCost = int64(unsafe.Sizeof(FileCoverage{})) + 80

// SortByRank puts the files in name order (their rank on disk).
func (fs *Files) SortByRank() {
	if fs.spill != nil && len(fs.list) > 0 && !fs.spill.failed {
		fs.flush("")
	}
	if fs.spill != nil && len(fs.list) > 0 { // the spill failed: all in memory
		all := slices.AppendSeq(make([]FileCoverage, 0, fs.Len()), fs.All())
		if fs.Err() != nil {
			return // the list as it is, and the error
		}
		fs.spill, fs.list = nil, all
	}
	if fs.spill != nil {
		slices.SortStableFunc(fs.spill.index, func(a, b fileRef) int { return cmp.Compare(a.rank, b.rank) })
	}
	slices.SortStableFunc(fs.list, func(a, b FileCoverage) int { return cmp.Compare(a.rank, b.rank) })
}

// MarshalJSON writes the list as an array, whole.
func (fs Files) MarshalJSON() ([]byte, error) {
	return diskstore.MarshalList(fs.Len(), fs.All(), fs.Err)
}

// UnmarshalJSON reads an array into memory.
func (fs *Files) UnmarshalJSON(b []byte) error {
	var fcs []FileCoverage
	if err := json.Unmarshal(b, &fcs); err != nil {
		return err
	}
	*fs = FilesOf(fcs)
	return nil
}
