package bundle

import (
	"bufio"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// A walk ordered by time (Options.FirstTime) lists the files on disk of
// all inputs first and reads the first bytes of each (decompressed when it
// is a gzip stream of one file). It visits the files whose start tells no
// time first, in name order, then the others by the time of their first
// record, and tells each of those the first time of the next (File.Next)
// and every file its place in name order (File.Rank).
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

// walkListed visits the files listed, ordered by time, with workers
// reading their starts at once.
func (w *walker) walkListed(workers int) {
	files := w.listed
	w.listed = nil
	for i := range files {
		files[i].rank = i
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(workers, 1) {
		wg.Go(func() {
			h := &header{br: bufio.NewReaderSize(nil, sniffBytes), buf: make([]byte, headBytes)}
			for i := range next {
				files[i].first = w.firstTime(h, files[i])
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
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
	br  *bufio.Reader
	zr  *gzip.Reader
	buf []byte
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
	h.br.Reset(f)
	var r io.Reader = h.br
	head, _ := h.br.Peek(sniffBytes)
	switch sniff(head).name {
	case "":
	case "gzip":
		if h.zr == nil {
			h.zr = new(gzip.Reader)
		}
		if h.zr.Reset(h.br) != nil {
			return time.Time{}
		}
		r = h.zr
	default:
		return time.Time{}
	}
	n, _ := io.ReadFull(r, h.buf)
	head = h.buf[:n]
	if sniff(head).name != "" {
		return time.Time{} // an archive, or not text
	}
	host, comp, kind := Classify(l.class)
	return w.opt.FirstTime(File{Path: l.path, Name: filepath.Base(l.path), Size: l.size, ModTime: l.mod,
		Host: host, Component: comp, Kind: kind}, head)
}
