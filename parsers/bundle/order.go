package bundle

import (
	"bufio"
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// A walk ordered by time (Options.FirstTime) lists the files on disk of
// all inputs first and, while it lists, reads the first bytes of each
// (decompressed when it is a gzip stream of one file). It visits the files
// whose start tells no time first, in name order, then the others by the
// time of their first record, and tells each of those the first time of
// the next (File.Next) and every file its place in name order (File.Rank).
// A source that orders records by time (package stream) can then hand on
// what precedes the next file while the walk goes on, instead of holding
// everything to its end: rotated logs cover one span of time each.

// headBytes is how much of a file's start FirstTime is shown.
const headBytes = 8 << 10

// listed is a file on disk found by a walk ordered by time: a walk of many
// thousand files keeps what makes its node, not its fs.FileInfo (a whole
// stat), and lets go of it once visited: its list shrinks to the files left
// each time half of them are.
type listed struct {
	path, class string // class is most often a part of path
	size        int64
	mod         time.Time
	first       time.Time // zero: its start told no time
	rank        int
}

// node returns the node a visit of l takes.
func (l *listed) node() node {
	return node{path: l.path, class: l.class, name: filepath.Base(l.path), size: l.size, mod: l.mod, rank: l.rank}
}

// heads reads the starts of the files a walk by time lists, with workers,
// while the listing goes on.
type heads struct {
	next  chan headJob
	wg    sync.WaitGroup
	found [][]headTime // each worker's
	done  bool
}

// headJob is a file listed and its place in walker.listed.
type headJob struct {
	i int
	l listed
}

// headTime is the time the start of the i-th file listed told.
type headTime struct {
	i     int
	first time.Time
}

// readHeads starts the workers that read the starts of the files listed.
func (w *walker) readHeads(workers int) *heads {
	hs := &heads{next: make(chan headJob, 256), found: make([][]headTime, max(workers, 1))}
	for k := range hs.found {
		hs.wg.Go(func() {
			h := newHeader()
			for j := range hs.next {
				hs.found[k] = append(hs.found[k], headTime{j.i, w.firstTime(h, j.l)})
			}
		})
	}
	return hs
}

// wait ends the listing and waits for the workers.
func (hs *heads) wait() {
	if !hs.done {
		close(hs.next)
		hs.wg.Wait()
		hs.done = true
	}
}

// walkListed visits the files listed, ordered by the times their starts
// told.
func (w *walker) walkListed() {
	w.heads.wait()
	files := w.listed
	w.listed = nil
	for _, found := range w.heads.found {
		for _, t := range found {
			files[t.i].first = t.first
		}
	}
	w.heads.found = nil
	for i := range files {
		files[i].rank = i
	}
	// The zero time (no time told) sorts before every other.
	slices.SortStableFunc(files, func(a, b listed) int { return a.first.Compare(b.first) })
	for i := 0; i < len(files); i++ {
		if w.done() {
			return
		}
		if i >= shrinkAfter && i >= len(files)/2 {
			// Half is visited: the rest moves to a list of its size.
			files, i = slices.Clone(files[i:]), 0
		}
		l := files[i]
		n := l.node()
		if !l.first.IsZero() && i+1 < len(files) {
			n.next = files[i+1].first
		}
		files[i] = listed{}
		w.visitFile(n)
	}
}

// shrinkAfter is how many files a walk by time visits at least before its
// list shrinks to the files left.
const shrinkAfter = 1024

// header holds one reader's buffers for the starts of files.
type header struct {
	raw  []byte // a file's first bytes
	text []byte // the first bytes of a gzip stream's content
	rest *bytes.Reader
	br   *bufio.Reader
	zr   *gzip.Reader
}

func newHeader() *header {
	return &header{raw: make([]byte, headBytes), text: make([]byte, headBytes), rest: bytes.NewReader(nil),
		br: bufio.NewReaderSize(nil, sniffBytes)}
}

// firstTime returns the time Options.FirstTime finds at the start of a
// file on disk, or zero: when it is not text, nor a gzip stream of text,
// or cannot be read (its visit says why).
func (w *walker) firstTime(h *header, l listed) time.Time {
	f, err := openFile(l.path)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	// One read takes the start of a plain file (the system calls of ten
	// thousand files are most of this pass); a gzip stream's is decoded
	// from what it read and what follows.
	n, _ := io.ReadFull(f, h.raw)
	head := h.raw[:n]
	switch sniff(head[:min(n, sniffBytes)]).name {
	case "":
	case "gzip":
		h.rest.Reset(head)
		h.br.Reset(io.MultiReader(h.rest, f))
		if h.zr == nil {
			h.zr = new(gzip.Reader)
		}
		if h.zr.Reset(h.br) != nil {
			return time.Time{}
		}
		n, _ = io.ReadFull(h.zr, h.text)
		head = h.text[:n]
	default:
		return time.Time{}
	}
	if sniff(head).name != "" {
		return time.Time{} // an archive, or not text
	}
	host, comp, kind := Classify(l.class)
	return w.opt.FirstTime(File{Path: l.path, Name: filepath.Base(l.path), Size: l.size, ModTime: l.mod,
		Host: host, Component: comp, Kind: kind}, head)
}
