// Package bundle walks log bundles — directory trees, .tar, .tar.gz/.tgz,
// .tar.xz, .tar.zst, .tar.bz2, .zip, .gz, .xz, .zst and .bz2 files, nested
// in one another to any reasonable depth — and
// hands each file's decompressed content to a callback as a stream. Nothing
// is extracted to disk.
//
// Formats are recognised by their magic bytes, not by their names. What
// cannot be read safely (links, entries escaping the archive, bombs, binary
// or unsupported formats, read errors) is skipped or cut short and reported
// as a Problem; the walk goes on.
package bundle

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// File describes one file handed to the Walk callback.
type File struct {
	// Path is the display path: the input path joined with the relative
	// path; inside archives "<archive>!/<entry>" (nested:
	// "a.tgz!/x/b.zip!/c.log").
	Path      string
	Name      string            // base name
	Size      int64             // size as stored (compressed size for .gz and zip members)
	ModTime   time.Time         // zero when unknown
	Host      string            // from the file name or directory (may be "")
	Component parsers.Component // from the file name or directory (may be "")
	Kind      parsers.Kind      // log, out, audit, container, prom, config, or "" unknown
	// Next is set in a walk ordered by time (Options.FirstTime) for a file
	// on disk whose start told a time: no file on disk visited after it
	// starts earlier. Zero when unknown (inside archives, the last file).
	Next time.Time
	// Rank is the place of its file on disk in name order, in a walk
	// ordered by time (files inside an archive share their archive's).
	Rank int
	// Layers names the containers the file was read through, outermost
	// first: "gzip", "xz", "zstd", "bzip2", "tar" or "zip". Each "tar" and
	// "zip" matches one "!/" of Path, in order; the compressions between
	// them wrap the part of Path they follow. Nil for a plain file on disk.
	// A writer that rebuilds a bundle's shape reads it; it must not be
	// modified.
	Layers []string
}

// Options bounds what a walk reads. Zero values take the defaults.
type Options struct {
	// MaxFileBytes caps the decompressed bytes read per file (default
	// 16 GiB). A longer file is cut there with a Problem; what was read is
	// kept.
	MaxFileBytes int64
	// MaxRatio caps the decompressed/compressed ratio of gzip, xz, zstd and
	// bzip2 streams and zip members once more than 1 MiB was decompressed
	// (default 200).
	// Beyond it the file is stopped with a Problem.
	MaxRatio int64
	// MaxTotalBytes caps the decompressed bytes handed to the callback in
	// one walk (default 1 TiB). Reaching it ends the walk with a Problem.
	MaxTotalBytes int64
	// FirstTime, when set, orders the files on disk by time: it returns the
	// time of the first record in head, the start of a file (decompressed),
	// or zero when it finds none. Files without one are visited first, in
	// name order, then the others from the earliest start.
	FirstTime func(f File, head []byte) time.Time
}

// Defaults of Options.
const (
	DefaultMaxFileBytes  = 16 << 30
	DefaultMaxRatio      = 200
	DefaultMaxTotalBytes = 1 << 40
)

const (
	ratioFloor     = 1 << 20   // decompressed bytes before MaxRatio applies
	maxDepth       = 10        // archives and gzip layers nested in one another
	maxZipInMemory = 512 << 20 // a zip that is not a file on disk is read into memory up to this size
	sniffBytes     = 4096      // bytes looked at to recognise a format
	readBuffer     = 64 << 10
)

// Problem is a file or entry that was skipped or cut short, and why.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (p Problem) String() string { return p.Path + ": " + p.Reason }

// Walk visits every file of every input: directory trees, .tar,
// .tar.gz/.tgz, .tar.xz, .tar.zst, .tar.bz2, .zip, .gz, .xz, .zst, .bz2 and
// single files, with archives nested in
// archives and in directories. fn gets the decompressed content as a
// stream, valid only during the call. An error returned by fn, or a read
// error, becomes a Problem for that file and the walk goes on.
//
// Walk returns an error only for unusable options, or ctx.Err() when ctx
// ended the walk early (the problems found until then are returned too).
func Walk(ctx context.Context, inputs []string, opt Options, fn func(f File, r io.Reader) error) ([]Problem, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, errors.New("bundle: nil callback")
	}
	w := &walker{ctx: ctx, opt: opt, fn: fn, bufs: &buffers{}}
	w.walkInputs(inputs, 1)
	return w.problems, ctx.Err()
}

func (o Options) withDefaults() (Options, error) {
	if o.MaxFileBytes < 0 || o.MaxRatio < 0 || o.MaxTotalBytes < 0 {
		return o, fmt.Errorf("bundle: negative limit in options %+v", o)
	}
	if o.MaxFileBytes == 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxRatio == 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	if o.MaxTotalBytes == 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	return o, nil
}

// walker holds the state of one Walk.
type walker struct {
	ctx      context.Context
	opt      Options
	fn       func(File, io.Reader) error
	problems []Problem
	total    int64     // decompressed bytes handed to fn
	stopped  bool      // MaxTotalBytes reached
	par      *parallel // in a WalkParallel: files on disk are dispatched
	bufs     *buffers  // shared by the walkers of one walk
	listing  listing   // files on disk found, in a walk ordered by time
	heads    *heads    // reading the starts of the files listed
}

// node is a file or archive entry about to be visited.
type node struct {
	path   string // display path
	class  string // path used for classification: relative to the input, starting with the input directory's or archive's own name
	name   string
	size   int64
	mod    time.Time
	next   time.Time // File.Next
	rank   int       // File.Rank
	layers []string  // File.Layers
}

func (w *walker) done() bool {
	return w.stopped || w.par != nil && w.par.stopped.Load() || w.ctx.Err() != nil
}

func (w *walker) problem(path, reason string) {
	if w.par != nil {
		w.par.inTurn(func() { w.problems = append(w.problems, Problem{Path: path, Reason: reason}) })
		return
	}
	w.problems = append(w.problems, Problem{Path: path, Reason: reason})
}

// report records a read error once: a gzip error under a tar archive
// surfaces in the entry being read and again in the archive.
func (w *walker) report(path string, err error) {
	if w.ctx.Err() != nil && isCancel(err) {
		return
	}
	var re *readError
	if errors.As(err, &re) {
		if re.reported {
			return
		}
		re.reported = true
		w.problem(path, re.reason)
		return
	}
	w.problem(path, "read error: "+err.Error())
}

func isJavaArchive(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".jar", ".war", ".ear":
		return true
	}
	return false
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// visitStream recognises the format of raw and visits it: archives and
// gzip are opened, text is handed to fn, other formats are reported. ra is
// the same content with random access when raw is a whole file on disk.
func (w *walker) visitStream(n node, raw io.Reader, ra *sizedReaderAt, depth int) {
	if w.done() {
		return
	}
	br := w.bufs.reader(raw)
	defer w.bufs.putReader(br)
	head, err := br.Peek(sniffBytes)
	if len(head) == 0 && err != nil && err != io.EOF {
		w.report(n.path, err)
		return
	}
	f := sniff(head)
	if f.container {
		// A copy: siblings share the parent's slice.
		n.layers = append(n.layers[:len(n.layers):len(n.layers)], f.name)
	}
	if f.container && depth >= maxDepth {
		w.problem(n.path, fmt.Sprintf("%s nested more than %d archives deep: skipped", f.name, maxDepth))
		return
	}
	if f.name == "zip" && isJavaArchive(n.name) {
		w.problem(n.path, "Java archive skipped: it holds classes, not logs")
		return
	}
	switch f.name {
	case "gzip":
		w.visitGzip(n, br, depth)
	case "xz":
		w.visitXZ(n, br, depth)
	case "zstd":
		w.visitZstd(n, br, depth)
	case "bzip2":
		w.visitBzip2(n, br, depth)
	case "tar":
		w.visitTar(n, br, depth)
	case "zip":
		w.visitZip(n, br, ra, depth)
	case "":
		w.deliver(n, br)
	default:
		w.problem(n.path, f.reason)
	}
}

// deliver hands a text stream to fn within the per-file and total limits.
func (w *walker) deliver(n node, br *bufio.Reader) {
	limit, byTotal := w.opt.MaxFileBytes, false
	if rem := w.opt.MaxTotalBytes - w.total; rem < limit {
		limit, byTotal = rem, true
	}
	host, comp, kind := Classify(n.class)
	f := File{Path: n.path, Name: n.name, Size: n.size, ModTime: n.mod, Host: host, Component: comp, Kind: kind, Next: n.next, Rank: n.rank, Layers: n.layers}
	fr := &fileReader{ctx: w.ctx, br: br, left: limit}
	err := w.fn(f, fr)
	w.total += fr.n
	switch {
	case fr.err != nil:
		w.report(n.path, fr.err)
	case err != nil && !(w.ctx.Err() != nil && isCancel(err)):
		w.problem(n.path, err.Error())
	}
	if fr.capped {
		if byTotal {
			w.stopped = true
			w.problem(n.path, fmt.Sprintf("the walk's total read limit of %s was reached in this file after %s: the rest of it and all files after it were not read (raise the total limit to read them)",
				size(w.opt.MaxTotalBytes), size(fr.n)))
		} else {
			w.problem(n.path, fmt.Sprintf("larger than the per-file limit of %s: only the first %s were read (raise the per-file limit to read it all)",
				size(w.opt.MaxFileBytes), size(fr.n)))
		}
	}
}

// fileReader is what fn reads: it stops at the limit (reporting whether
// more was there), records the first read error and honours ctx.
type fileReader struct {
	ctx    context.Context
	br     *bufio.Reader
	left   int64
	n      int64
	capped bool
	eof    bool
	err    error
}

func (r *fileReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.eof {
		return 0, io.EOF
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return 0, err
	}
	if r.left <= 0 {
		if _, err := r.br.Peek(1); err == nil {
			r.capped = true
		}
		r.eof = true
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.br.Read(p)
	r.n += int64(n)
	r.left -= int64(n)
	switch {
	case err == io.EOF:
		r.eof = true
	case err != nil:
		r.err = err
	}
	return n, err
}

// readError is a read failure with a reason a user can act on. It is
// shared by the layers above the failing reader so it is reported once.
type readError struct {
	reason   string
	reported bool
}

func (e *readError) Error() string { return e.reason }

// size renders a byte count for problem reasons.
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
