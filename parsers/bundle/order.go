package bundle

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"io/fs"
	"math"
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

// listing is the files on disk a walk by time found, kept small: a walk of
// a hundred thousand files keeps what makes each one's node, not its
// fs.FileInfo (a whole stat) nor its path (its directory's is kept once),
// and, ordered by time, lets go of each part of it once visited.
type listing struct {
	dirs  []listedDir
	names []byte // the files' names, one after the other
	files []listed
}

// listedDir is the directory of files listed: its display path and class.
type listedDir struct{ path, class string }

// listed is a file of a listing.
type listed struct {
	size      int64
	mod       int64 // modification time, Unix nanoseconds
	first     int64 // Unix seconds of the time its start told, noTime if none
	firstNsec int32
	rank      int32  // place in name order
	dir       uint32 // index in listing.dirs
	name      uint32 // offset in listing.names
	nameLen   uint16 // 0: the file is an input itself, its dir entry its own
}

// noTime is listed.first of a file whose start told no time: it sorts
// before every other.
const noTime = math.MinInt64

// add lists a file named name in the directory of display path dir and
// class class, or the input file dir itself when name is "".
func (ls *listing) add(dir, class, name string, fi fs.FileInfo) {
	if k := len(ls.dirs) - 1; k < 0 || ls.dirs[k].path != dir || ls.dirs[k].class != class || name == "" {
		ls.dirs = append(ls.dirs, listedDir{dir, class})
	}
	ls.files = append(ls.files, listed{size: fi.Size(), mod: fi.ModTime().UnixNano(), first: noTime,
		dir: uint32(len(ls.dirs) - 1), name: uint32(len(ls.names)), nameLen: uint16(len(name))})
	ls.names = append(ls.names, name...)
}

// node returns the node a visit of the i-th file takes.
func (ls *listing) node(i int) node {
	l := &ls.files[i]
	d := ls.dirs[l.dir]
	n := placed(d.path, d.class, string(ls.names[l.name:l.name+uint32(l.nameLen)]))
	n.size, n.mod, n.rank = l.size, time.Unix(0, l.mod), int(l.rank)
	return n
}

// told returns the time the start of l told, or zero.
func (l *listed) told() time.Time {
	if l.first == noTime {
		return time.Time{}
	}
	return time.Unix(l.first, int64(l.firstNsec))
}

// setTold records t, the time the start of l told (zero: none).
func (l *listed) setTold(t time.Time) {
	if !t.IsZero() {
		l.first, l.firstNsec = t.Unix(), int32(t.Nanosecond())
	}
}

// compareTold orders files by the time their starts told, none first.
func compareTold(a, b listed) int {
	return cmp.Or(cmp.Compare(a.first, b.first), cmp.Compare(a.firstNsec, b.firstNsec))
}

// part returns a listing of the files from the from-th to the to-th,
// holding only their names and directories.
func (ls *listing) part(from, to int) listing {
	out := listing{files: slices.Clone(ls.files[from:to])}
	dirs := map[uint32]uint32{}
	for k := range out.files {
		l := &out.files[k]
		d, ok := dirs[l.dir]
		if !ok {
			d = uint32(len(out.dirs))
			dirs[l.dir] = d
			out.dirs = append(out.dirs, ls.dirs[l.dir])
		}
		name := ls.names[l.name : l.name+uint32(l.nameLen)]
		l.dir, l.name = d, uint32(len(out.names))
		out.names = append(out.names, name...)
	}
	return out
}

// heads reads the starts of the files a walk by time lists, with workers,
// while the listing goes on.
type heads struct {
	next  chan headJob
	wg    sync.WaitGroup
	found [][]headTime // each worker's
	done  bool
}

// headJob is a file listed and its place in the listing.
type headJob struct {
	i int
	n node
}

// headTime is the time the start of the i-th file listed told.
type headTime struct {
	first time.Time
	i     int
}

// readHeads starts the workers that read the starts of the files listed.
func (w *walker) readHeads(workers int) *heads {
	hs := &heads{next: make(chan headJob, 256), found: make([][]headTime, max(workers, 1))}
	for k := range hs.found {
		hs.wg.Go(func() {
			h := newHeader()
			for j := range hs.next {
				if t := w.firstTime(h, j.n); !t.IsZero() {
					hs.found[k] = append(hs.found[k], headTime{t, j.i})
				}
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
	ls := w.listing
	w.listing = listing{}
	for _, found := range w.heads.found {
		for _, t := range found {
			ls.files[t.i].setTold(t.first)
		}
	}
	w.heads.found = nil
	for i := range ls.files {
		ls.files[i].rank = int32(i)
	}
	slices.SortStableFunc(ls.files, compareTold)
	// In parts of listedPart files, so that each is let go once visited.
	var parts []listing
	for from := 0; from < len(ls.files); from += listedPart {
		parts = append(parts, ls.part(from, min(from+listedPart, len(ls.files))))
	}
	ls = listing{}
	for k := range parts {
		p := &parts[k]
		for i := range p.files {
			if w.done() {
				return
			}
			n := p.node(i)
			if p.files[i].first != noTime {
				if i+1 < len(p.files) {
					n.next = p.files[i+1].told()
				} else if k+1 < len(parts) {
					n.next = parts[k+1].files[0].told()
				}
			}
			w.visitFile(n)
		}
		*p = listing{}
	}
}

// listedPart is how many files of a walk by time make one part of its
// list, let go once visited.
const listedPart = 1024

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
func (w *walker) firstTime(h *header, file node) time.Time {
	f, err := openFile(file.path)
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
	host, comp, kind := Classify(file.class)
	return w.opt.FirstTime(File{Path: file.path, Name: file.name, Size: file.size, ModTime: file.mod,
		Host: host, Component: comp, Kind: kind}, head)
}
