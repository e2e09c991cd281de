// Package tail follows log files the way a log shipper does, for the
// sidecar daemon (ozdoctor watch). A Tailer is polled by its caller: each
// Poll globs the patterns anew, reads what was appended to every followed
// file and returns it as complete lines with their byte offset and line
// number, one Chunk per file. Positions tells where every file stands (the
// first byte not handed on); a new Tailer given those positions with
// Restore continues exactly there, so a caller that checkpoints Positions
// together with the state it built from the lines it was handed loses and
// duplicates nothing across restarts.
//
// Files are known by device and inode and by a fingerprint of their first
// bytes (Options.FingerprintBytes, fewer while the file is shorter; the
// fingerprint grows with the file), which tells a reused inode or a file
// truncated and written again from the file that was followed. Rotation:
//
//   - rename (log4j RollingFileAppender, logrotate's default): the renamed
//     file is read to its end through the descriptor kept open, then let
//     go once it gave nothing for Options.Linger; the new file at the
//     pattern's path is a new file, read from its first byte;
//   - copytruncate: a followed file whose size drops below the offset read,
//     or whose first bytes no longer match its fingerprint, was truncated;
//     the rest of its old content is read from the copy when one is found
//     beside it (same directory, same fingerprint; a plain copy or a .gz
//     one), then the file is followed again from its first byte as a new
//     stream;
//   - gzip: a rotated file compressed after it was read needs nothing; one
//     compressed before it was read to its end (the tailer was down) is
//     found by the fingerprint of its decompressed first bytes and read by
//     decompressing and skipping to the offset reached.
//
// Compressed files (.gz, .bz2, .xz, .zst, .zip, .lz4) matched by a pattern
// are never followed as files of their own: they serve only to recover the
// rest of a file the tailer knew. A file that is deleted is read to its end
// through its open descriptor and let go.
//
// Polling is the only mechanism (no inotify): correctness never depends on
// notifications. Memory is bounded by Options.MaxRead per file and poll and
// Options.MaxLine per line.
//
// The rest of a rotated file is handed on before its successor (a file
// first followed later under the same name, or under a rotated name of it
// such as x.log.1 or x.log-20260823): while the older one has more to
// read, the newer one is watched (truncation, fingerprint) but not read.
// A new file whose first bytes are those of a followed file is taken for a
// copy being made (copytruncate) and not followed until that question is
// settled. New files are read in the order they were last written.
//
// # Consuming the lines
//
// A caller feeds each stream's lines to its own log4j Scanner made with
// log4j.NewFeeder (FeedLine per line, Next to drain, End when the chunk
// says End, Flush after an idle timeout) and checkpoints, for a stream
// whose scanner holds an open record, the offset and line where that
// record began (log4j.Scanner.OpenLine) instead of the tailer's position,
// so that a restart reads the record again whole. A position may name any
// line start of its file.
//
// # Limitations
//
//   - A file generation the tailer never saw is not read: a file must be
//     found by at least one poll before it is rotated away (a file created
//     and rotated between two polls, or while the tailer was down, is
//     missed unless the patterns also match its rotated name and it was not
//     compressed). Restarting from a checkpoint is exact as long as each
//     file was rotated at most once since the checkpoint was taken, or its
//     rotated names are matched by the patterns.
//   - A file that was empty when the checkpoint was taken has no
//     fingerprint: if it is written, copied and truncated (copytruncate)
//     before the restart, its copy is not recognised and what it held is
//     lost (a rename keeps its inode and is found). Likewise a file only
//     ever seen empty, then written, copied and truncated between two
//     polls: nothing is lost when the patterns match the copy, but the
//     copy may be read after the file's newer content.
//   - copytruncate loses what was written between the copy and the
//     truncation, as it does for every reader; the rest of a truncated file
//     is found only in its directory, under any name.
//   - A .gz is read only to recover the rest of a file known by position;
//     compressed files are never followed on their own.
//   - Every file the patterns match is kept open while it exists (a
//     pattern matching rotated names keeps them open too).
//   - Fingerprints compare the first FingerprintBytes: two files whose first
//     bytes are equal (a file shorter than that which is a prefix of
//     another) are taken for copies of each other.
package tail

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Options configure a Tailer. The zero value of a field picks its default.
type Options struct {
	// Globs are the patterns of the files to follow (filepath.Glob syntax),
	// matched anew at every poll.
	Globs []string
	// Poll is the interval of Run; default 1s.
	Poll time.Duration
	// LookBack is how many bytes before the end of each file the first
	// Poll of a Tailer that was not restored reads back, starting at the
	// first line that begins in that window; default 64 KiB, negative
	// reads files whole. Files that appear later are read from their start.
	LookBack int64
	// MaxLine cuts longer lines: a line's Text holds its first MaxLine
	// bytes, Truncated is set and Stats.Truncated counts it; default 1 MiB.
	MaxLine int
	// IdleFlush is how long an unterminated last line waits for its
	// newline: after that long without a new byte in its file, it is
	// handed on as a line (Partial set) and bytes written after it start a
	// new line. Default 5s; negative waits for ever (a rotated or deleted
	// file's last line is still handed on when the file is let go).
	IdleFlush time.Duration
	// Linger is how long a file no longer matched by the patterns (renamed
	// away or deleted) is still read after its last new byte before it is
	// let go; default 1s, negative: no wait. A file is let go only once two
	// polls in a row did not find it (a glob racing a rename may miss a
	// file once) and the last found nothing new in it.
	Linger time.Duration
	// FingerprintBytes is how many of a file's first bytes identify it;
	// default 1024.
	FingerprintBytes int
	// MaxRead bounds the bytes read from one file in one Poll; default 1
	// MiB. Poll reports in More that a file had more to read.
	MaxRead int
	// MaxPoll bounds the bytes one Poll reads from all files together
	// (what the chunks hold until the next Poll); default 1 MiB. Files past
	// it are read by the next Poll (More).
	MaxPoll int
	// Now is the clock of IdleFlush and Linger; default time.Now.
	Now func() time.Time
}

// Line is one line of a file.
type Line struct {
	Text      []byte // without its newline; valid until the next Poll
	Offset    int64  // of its first byte in the file
	Num       int    // 1 for the file's first line
	Truncated bool   // longer than MaxLine: Text holds its first MaxLine bytes
	Partial   bool   // had no newline: handed on by IdleFlush or when its file was let go
}

// Chunk is what one file gave in one Poll.
type Chunk struct {
	// Stream names the file for as long as it is followed, across renames
	// and restarts: the path it had when first followed, '#', its inode
	// (and '.', a generation after copytruncate). Positions carry it.
	Stream string
	Path   string // where the file was found in this poll
	Lines  []Line
	// End says the file was let go after these lines: no more chunks of
	// this stream will come (a consumer flushes its pending record).
	End bool
}

// Stats count what a Tailer did, for metrics.
type Stats struct {
	Files       int   // files followed now
	Bytes       int64 // bytes read
	Lines       int64 // lines handed on
	Rotations   int64 // files let go after they were renamed away or deleted
	Truncations int64 // files found truncated or rewritten in place
	Recovered   int64 // rests of files read from a copy or a .gz
	Lost        int64 // positions or truncated files whose rest was not found
	Truncated   int64 // lines cut at MaxLine
	Flushed     int64 // unterminated lines handed on by IdleFlush
	Errors      int64 // files that could not be opened or read in a poll
}

// Tailer follows files. It is not safe for concurrent use.
type Tailer struct {
	opt     Options
	files   []*file // in the order first followed
	byID    map[fileKey]*file
	pending []parsers.Position
	resumed bool
	polls   int
	more    bool

	arena  []byte
	used   int
	left   int // bytes this Poll may still read (MaxPoll)
	lines  []Line
	chunks []Chunk
	cur    *file // the file whose chunk is open
	start  int   // its first line in lines
	fpBuf  []byte
	errs   []error
	stats  Stats
	globbd map[fileKey]string // files matched in this poll
	// Streams let go lately, whose names are not given again.
	ended     map[string]bool
	endedFIFO []string
	// tracef, when set (by tests), hears what the Tailer decides.
	tracef func(format string, args ...any)
}

const maxEnded = 4096

func (t *Tailer) trace(format string, args ...any) {
	if t.tracef != nil {
		t.tracef(format, args...)
	}
}

type fileKey struct{ dev, ino uint64 }

// file is one followed file, or the source of the rest of one.
type file struct {
	stream string
	name   string // path when first followed
	path   string
	key    fileKey
	fp     string // fingerprint: "<length>-<hash>"
	fpLen  int

	f  *os.File    // a file that may grow; nil for a .gz source
	r  io.ReaderAt // f, or a .gz source
	gz *gzSource

	offset   int64 // first byte not handed on
	line     int   // lines handed on
	readOff  int64 // next byte to read
	partial  []byte
	skipping bool // the partial line is longer than MaxLine: its rest is skipped
	lastData time.Time
	seen     bool // matched by the patterns in this poll
	unseen   int  // polls in a row it was not
	done     bool
}

// New returns a Tailer for opt.
func New(opt Options) (*Tailer, error) {
	if len(opt.Globs) == 0 {
		return nil, errors.New("tail: no file patterns")
	}
	for _, g := range opt.Globs {
		if _, err := filepath.Match(g, ""); err != nil {
			return nil, fmt.Errorf("tail: pattern %q: %w", g, err)
		}
	}
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	if opt.LookBack == 0 {
		opt.LookBack = 64 << 10
	}
	if opt.MaxLine <= 0 {
		opt.MaxLine = 1 << 20
	}
	if opt.IdleFlush == 0 {
		opt.IdleFlush = 5 * time.Second
	}
	if opt.Linger == 0 {
		opt.Linger = time.Second
	}
	if opt.FingerprintBytes <= 0 {
		opt.FingerprintBytes = 1024
	}
	if opt.MaxRead <= 0 {
		opt.MaxRead = 1 << 20
	}
	if opt.MaxPoll <= 0 {
		opt.MaxPoll = 1 << 20
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Tailer{opt: opt, byID: map[fileKey]*file{}, fpBuf: make([]byte, opt.FingerprintBytes)}, nil
}

// Restore makes the Tailer continue from positions taken by Positions of an
// earlier Tailer; it must come before the first Poll. Files not named by
// a position are then new and read from their start (no look-back).
func (t *Tailer) Restore(positions []parsers.Position) error {
	if t.polls > 0 {
		return errors.New("tail: Restore after Poll")
	}
	for _, p := range positions {
		if p.Offset < 0 || p.Line < 0 || strings.LastIndexByte(p.Stream, '#') < 0 {
			return fmt.Errorf("tail: bad position %+v", p)
		}
		if _, ok := parseFP(p.Fingerprint); !ok {
			return fmt.Errorf("tail: bad fingerprint in position %+v", p)
		}
	}
	t.pending = slices.Clone(positions)
	t.resumed = true
	return nil
}

// Positions returns where every followed file stands, in the order the
// files were first followed. Taken after a Poll's chunks were consumed,
// they are the place to restart from.
func (t *Tailer) Positions() []parsers.Position {
	if t.polls == 0 {
		return slices.Clone(t.pending)
	}
	out := make([]parsers.Position, 0, len(t.files))
	for _, e := range t.files {
		if e.done {
			continue
		}
		out = append(out, parsers.Position{Stream: e.stream, Device: e.key.dev, Inode: e.key.ino,
			Fingerprint: e.fp, Offset: e.offset, Line: e.line})
	}
	return out
}

// Stats returns what the Tailer did so far.
func (t *Tailer) Stats() Stats {
	st := t.stats
	st.Files = 0
	for _, e := range t.files {
		if !e.done {
			st.Files++
		}
	}
	return st
}

// More reports whether the last Poll left data unread (MaxRead): the
// caller may poll again without waiting.
func (t *Tailer) More() bool { return t.more }

// Close lets every file go.
func (t *Tailer) Close() error {
	for _, e := range t.files {
		e.close()
		e.done = true
	}
	t.files, t.byID = nil, map[fileKey]*file{}
	return nil
}

// Run polls every Options.Poll (at once again while More) until ctx ends,
// handing each poll's chunks to fn; per-file errors go to fn's err. It
// returns ctx's error or fn's.
func (t *Tailer) Run(ctx context.Context, fn func(chunks []Chunk, err error) error) error {
	for {
		chunks, err := t.Poll(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := fn(chunks, err); err != nil {
			return err
		}
		if t.more {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(t.opt.Poll):
		}
	}
}

// Poll reads what is new in every file and returns it, one chunk per file
// that gave lines or was let go. The chunks are valid until the next Poll.
// A non-nil error lists the files that could not be read (each also
// counted in Stats.Errors); the others were read and the chunks are valid.
func (t *Tailer) Poll(ctx context.Context) ([]Chunk, error) {
	// The last poll's lines point into the arena: let go of them, and of an
	// arena grown far beyond what that poll needed (a burst), so that a
	// quiet follower keeps little.
	clear(t.lines)
	clear(t.chunks)
	if len(t.arena) > 2*t.used && len(t.arena) > minArena {
		t.arena = nil
	}
	t.used, t.lines, t.chunks, t.cur, t.errs, t.more = 0, t.lines[:0], t.chunks[:0], nil, nil, false
	t.left = t.opt.MaxPoll
	now := t.opt.Now()
	found := t.glob()
	t.globbd = map[fileKey]string{}
	for _, fd := range found {
		t.globbd[fd.key] = fd.path
	}
	for _, e := range t.files {
		e.seen = false
		if p, ok := t.globbd[e.key]; ok && !e.done && e.gz == nil {
			e.seen, e.path = true, p
		}
		if e.seen {
			e.unseen = 0
		} else {
			e.unseen++
		}
	}
	if t.pending != nil {
		t.resolve(now)
		t.pending = nil
	}
	// The rest of a rotated file is read before its successor (a file
	// first followed later under the same name): while one is unfinished,
	// the files after it of its name wait.
	busy := map[string]bool{}
	serve := func(e *file) {
		g := rotationGroup(e.name)
		wait := busy[g]
		if wait {
			t.more = true
		}
		if !t.service(e, now, !wait) {
			busy[g] = true
		}
	}
	for i := 0; i < len(t.files); i++ { // servicing may add files
		if ctx.Err() != nil {
			break
		}
		serve(t.files[i])
	}
	first := t.polls == 0 && !t.resumed
	// New files in the order they were last written: a rotated copy
	// before the file it was copied from.
	slices.SortStableFunc(found, func(a, b globbed) int { return a.mtime.Compare(b.mtime) })
	for _, fd := range found {
		if ctx.Err() != nil {
			break
		}
		if t.byID[fd.key] != nil {
			continue
		}
		e, err := t.openNew(fd, first)
		if errors.Is(err, os.ErrNotExist) {
			continue // renamed or deleted since the glob: found under its new name, if matched
		}
		if err != nil {
			t.fail(fd.path, err)
			continue
		}
		if e == nil {
			continue
		}
		serve(e)
	}
	t.closeChunk()
	t.files = slices.DeleteFunc(t.files, func(e *file) bool { return e.done })
	t.polls++
	return t.chunks, errors.Join(t.errs...)
}

type globbed struct {
	path  string
	key   fileKey
	size  int64
	mtime time.Time
}

var compressed = []string{".gz", ".bz2", ".xz", ".zst", ".zip", ".lz4"}

func isCompressed(p string) bool {
	for _, s := range compressed {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// glob returns the plain regular files the patterns match, sorted by path,
// each file once.
func (t *Tailer) glob() []globbed {
	var paths []string
	for _, g := range t.opt.Globs {
		m, _ := filepath.Glob(g) // patterns were checked in New
		paths = append(paths, m...)
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var out []globbed
	seen := map[fileKey]bool{}
	for _, p := range paths {
		if isCompressed(p) {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				t.fail(p, err)
			}
			continue
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		dev, ino := fileID(fi)
		k := fileKey{dev, ino}
		if seen[k] && ino != 0 {
			continue
		}
		seen[k] = true
		out = append(out, globbed{path: p, key: k, size: fi.Size(), mtime: fi.ModTime()})
	}
	return out
}

func (t *Tailer) fail(path string, err error) {
	t.stats.Errors++
	t.errs = append(t.errs, fmt.Errorf("tail %s: %w", path, err))
}

// openNew starts following a file the patterns matched for the first
// time. It returns nil for a file whose first bytes are those of a file
// followed already (a copy about to be claimed by a truncation, or a
// duplicate): it is looked at again at the next poll.
func (t *Tailer) openNew(fd globbed, first bool) (*file, error) {
	f, err := os.Open(fd.path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	dev, ino := fileID(fi)
	e := &file{name: fd.path, path: fd.path, key: fileKey{dev, ino}, f: f, r: f, seen: true}
	prefix := t.prefix(f, t.opt.FingerprintBytes)
	if o := t.twin(prefix, nil); o != nil {
		f.Close()
		t.trace("twin %s of %s", fd.path, o.stream)
		return nil, nil
	}
	e.fp, e.fpLen = fingerprint(prefix), len(prefix)
	e.stream = t.unique(fd.path + "#" + strconv.FormatUint(ino, 10))
	if first && t.opt.LookBack >= 0 && fi.Size() > t.opt.LookBack {
		if err := t.lookBack(e, fi.Size()-t.opt.LookBack); err != nil {
			f.Close()
			return nil, err
		}
	}
	t.add(e)
	t.trace("new %s %v as %s at %d fp %s", fd.path, e.key, e.stream, e.offset, e.fp)
	return e, nil
}

// twin returns the followed file whose first bytes a new file's prefix
// repeats (a copy made by copytruncate, maybe still being written), if any.
func (t *Tailer) twin(prefix []byte, self *file) *file {
	if len(prefix) == 0 {
		return nil
	}
	var head []byte
	for _, o := range t.files {
		if o == self || o.done || o.f == nil || o.fpLen == 0 {
			continue
		}
		if o.fpLen <= len(prefix) {
			if fingerprint(prefix[:o.fpLen]) == o.fp {
				return o
			}
			continue
		}
		if head == nil {
			head = make([]byte, len(prefix))
		}
		if n, _ := o.f.ReadAt(head, 0); n == len(head) && bytes.Equal(head, prefix) {
			return o
		}
	}
	return nil
}

// lookBack places e at the first line that starts at or after from, and
// counts the lines before it.
func (t *Tailer) lookBack(e *file, from int64) error {
	buf := make([]byte, 64<<10)
	var off int64
	lines := 0
	for off < from {
		n, err := e.f.ReadAt(buf[:min(int64(len(buf)), from-off)], off)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		off += int64(n)
		if err != nil && n == 0 {
			if err == io.EOF {
				break
			}
			return err
		}
	}
	// from-1 is the last byte before the window: unless it ends a line, the
	// line it is in started before the window and is skipped.
	last := make([]byte, 1)
	if _, err := e.f.ReadAt(last, from-1); err != nil {
		return err
	}
	for last[0] != '\n' {
		n, err := e.f.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			off += int64(i) + 1
			lines++
			break
		}
		off += int64(n)
		if err != nil { // no line starts in the window: wait for one
			break
		}
	}
	e.offset, e.readOff, e.line = off, off, lines
	return nil
}

func (t *Tailer) add(e *file) {
	t.files = append(t.files, e)
	t.byID[e.key] = e
}

// prefix reads up to n first bytes of r into a buffer valid until the next call.
func (t *Tailer) prefix(r io.ReaderAt, n int) []byte {
	k, _ := r.ReadAt(t.fpBuf[:n], 0)
	return t.fpBuf[:k]
}

// fingerprint names a file by its first bytes.
func fingerprint(b []byte) string {
	h := sha256.Sum256(b)
	return strconv.Itoa(len(b)) + "-" + hex.EncodeToString(h[:12])
}

// parseFP returns the length a fingerprint covers.
func parseFP(s string) (int, bool) {
	i := strings.IndexByte(s, '-')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:i])
	return n, err == nil && n >= 0 && len(s)-i-1 == 24
}

// service reads what is new in e and lets it go when its time has come.
// It reports whether e was read to its end (or let go). Unless read is
// set, e is only looked at (truncation, fingerprint), not read.
func (t *Tailer) service(e *file, now time.Time, read bool) bool {
	if e.done {
		return true
	}
	size := int64(-1) // unknown: a .gz source is read to its end
	if e.f != nil {
		fi, err := e.f.Stat()
		if err != nil {
			t.fail(e.path, err)
			return false
		}
		size = fi.Size()
		if t.replaced(e, size) {
			t.truncated(e, now)
			if e.done {
				return true
			}
			size = -1
			if e.f != nil { // the rest comes from a plain copy
				if fi, err := e.f.Stat(); err == nil {
					size = fi.Size()
				}
			}
		} else if e.fpLen < t.opt.FingerprintBytes && size > int64(e.fpLen) {
			p := t.prefix(e.f, t.opt.FingerprintBytes)
			if e.offset == 0 && e.line == 0 && e.readOff == 0 {
				// Nothing handed on yet: a file found empty may be a copy
				// being made of a followed file. It is then dropped and
				// looked at again at the next poll, as a new file.
				if o := t.twin(p, e); o != nil {
					t.trace("twin %s of %s", e.path, o.stream)
					e.close()
					e.done = true
					if t.byID[e.key] == e {
						delete(t.byID, e.key)
					}
					return true
				}
			}
			e.fp, e.fpLen = fingerprint(p), len(p)
		}
	}
	if !read {
		return false
	}
	got, eof := false, false
	for budget := min(t.opt.MaxRead, t.left); budget > 0 && !eof; {
		n, end, err := t.read(e, size, budget)
		if err == errReplaced {
			return t.service(e, now, true)
		}
		if err != nil {
			t.fail(e.path, err)
			return false
		}
		got = got || n > 0
		budget -= n
		t.left -= n
		eof = end || n == 0
	}
	if !eof {
		t.more = true
	}
	if got {
		e.lastData = now
	} else if e.lastData.IsZero() {
		e.lastData = now
	}
	idle := now.Sub(e.lastData)
	switch {
	case eof && e.gz != nil:
		t.end(e)
	case eof && e.unseen >= 2 && !got && (t.opt.Linger < 0 || idle >= t.opt.Linger):
		// Unseen twice: a glob racing a rename within the patterns may miss
		// a file once.
		t.stats.Rotations++
		t.end(e)
	case (len(e.partial) > 0 || e.skipping) && t.opt.IdleFlush >= 0 && idle >= t.opt.IdleFlush:
		t.stats.Flushed++
		t.flushPartial(e)
	}
	return eof
}

var errReplaced = errors.New("replaced while read")

// replaced reports whether e was truncated or written anew in place.
func (t *Tailer) replaced(e *file, size int64) bool {
	if size < e.readOff || size < int64(e.fpLen) {
		return true
	}
	if e.fpLen == 0 {
		return false
	}
	return fingerprint(t.prefix(e.f, e.fpLen)) != e.fp
}

// truncated handles a file found truncated: the rest of its old content is
// read from a copy when one is found (e then reads from it), and the file
// is followed anew from its start as the next generation of its stream.
func (t *Tailer) truncated(e *file, now time.Time) {
	t.stats.Truncations++
	next := &file{name: e.name, path: e.path, key: e.key, f: e.f, r: e.f, seen: e.seen, lastData: now,
		stream: t.unique(nextGeneration(e.stream))}
	p := t.prefix(next.f, t.opt.FingerprintBytes)
	next.fp, next.fpLen = fingerprint(p), len(p)
	e.f, e.r = nil, nil
	delete(t.byID, e.key)
	c := t.findCopy(e.fp, e.offset, e.name, e.path)
	t.trace("truncated %s %v at %d/%d fp %s; copy %+v; next %s", e.stream, e.key, e.offset, e.readOff, e.fp, c, next.stream)
	if c != nil {
		t.stats.Recovered++
		e.key, e.path, e.f, e.r, e.gz, e.seen = c.key, c.path, c.f, c.r, c.gz, c.seen
		e.readOff, e.partial, e.skipping = e.offset, e.partial[:0], false
		t.byID[e.key] = e
	} else {
		if e.readOff > 0 {
			t.stats.Lost++ // what was written after the last read, if anything, is gone
		}
		t.end(e)
	}
	t.add(next)
}

// unique returns name, or its next generation while a file followed now
// or lately has it (a reused inode, a file followed anew after its
// truncation while the tailer was down).
func (t *Tailer) unique(name string) string {
	for {
		used := t.ended[name]
		for _, e := range t.files {
			used = used || e.stream == name
		}
		if !used {
			return name
		}
		name = nextGeneration(name)
	}
}

// nextGeneration names the stream of a file followed anew after a truncation.
func nextGeneration(s string) string {
	i := strings.LastIndexByte(s, '#')
	rest := s[i+1:]
	if j := strings.IndexByte(rest, '.'); j >= 0 {
		g, _ := strconv.Atoi(rest[j+1:])
		return s[:i+1] + rest[:j] + "." + strconv.Itoa(g+1)
	}
	return s + ".1"
}

// source is a file found to hold the content of a file known by fingerprint.
type source struct {
	key  fileKey
	path string
	f    *os.File
	r    io.ReaderAt
	gz   *gzSource
	seen bool
}

// findCopy looks beside the file (the directories of its names) for a copy
// of its content: a plain file with the same first bytes at least offset
// long, else a .gz file whose decompressed first bytes are the same.
func (t *Tailer) findCopy(fp string, offset int64, paths ...string) *source {
	n, ok := parseFP(fp)
	if !ok || n == 0 {
		return nil
	}
	var gzs []string
	dirs := map[string]bool{}
	for _, p := range paths {
		dir := filepath.Dir(p)
		if dirs[dir] {
			continue
		}
		dirs[dir] = true
		for _, de := range t.readDir(dir) {
			if !de.Type().IsRegular() {
				continue
			}
			path := filepath.Join(dir, de.Name())
			if strings.HasSuffix(path, ".gz") {
				gzs = append(gzs, path)
				continue
			}
			if isCompressed(path) {
				continue
			}
			if s := t.tryPlain(path, fp, n, offset); s != nil {
				return s
			}
		}
	}
	for _, path := range gzs {
		if s := t.tryGz(path, fp, n); s != nil {
			return s
		}
	}
	return nil
}

// rotationGroup names the files that rotate into each other: a path
// without the suffix rotation adds to it (".1", "-20260823"), so that
// "x.log.3" and "x.log" are read in turn.
func rotationGroup(path string) string {
	base := strings.LastIndexByte(path, '/') + 1
	cut := -1
	for j := len(path) - 1; j > base; j-- {
		c := path[j]
		if c == '.' || c == '-' {
			if j < len(path)-1 {
				cut = j
			}
			if c == '.' {
				break
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c == '_') {
			break
		}
	}
	if cut < 0 {
		return path
	}
	return path[:cut]
}

// readDir lists dir anew each time (a copy may have been made since the
// last look, even within one poll).
func (t *Tailer) readDir(dir string) []os.DirEntry {
	d, _ := os.ReadDir(dir)
	return d
}

// tryPlain opens path if it is a file not followed already whose first n
// bytes have fingerprint fp and that is at least offset long.
func (t *Tailer) tryPlain(path, fp string, n int, offset int64) *source {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() < offset || fi.Size() < int64(n) {
		f.Close()
		return nil
	}
	dev, ino := fileID(fi)
	k := fileKey{dev, ino}
	o := t.byID[k]
	if o != nil && !o.done && (o.offset > 0 || o.line > 0 || o.readOff > 0) || fingerprint(t.prefix(f, n)) != fp {
		f.Close()
		return nil
	}
	if o != nil && !o.done {
		// Followed as a new file (found while the copy was being made)
		// but nothing read from it yet: it is the copy, claimed here.
		t.trace("claim %s from %s", path, o.stream)
		o.close()
		o.done = true
		delete(t.byID, k)
	}
	_, seen := t.globbd[k]
	return &source{key: k, path: path, f: f, r: f, seen: seen}
}

// tryGz opens path if it is a .gz whose first n decompressed bytes have
// fingerprint fp.
func (t *Tailer) tryGz(path, fp string, n int) *source {
	g, err := openGz(path)
	if err != nil {
		return nil
	}
	fi, err := g.f.Stat()
	if err != nil {
		g.Close()
		return nil
	}
	dev, ino := fileID(fi)
	k := fileKey{dev, ino}
	if o := t.byID[k]; o != nil && !o.done {
		g.Close()
		return nil
	}
	buf := make([]byte, n)
	m, _ := g.ReadAt(buf, 0)
	if m < n || fingerprint(buf) != fp {
		g.Close()
		return nil
	}
	g.Close()
	if g, err = openGz(path); err != nil { // from the start again
		return nil
	}
	return &source{key: k, path: path, r: g, gz: g}
}

// resolve finds the files of restored positions: at a matched path, renamed
// beside it, or as a copy or .gz of it.
func (t *Tailer) resolve(now time.Time) {
	for _, p := range t.pending {
		k := fileKey{p.Device, p.Inode}
		name := p.Stream[:strings.LastIndexByte(p.Stream, '#')]
		fpLen, _ := parseFP(p.Fingerprint)
		e := &file{stream: p.Stream, name: name, key: k, fp: p.Fingerprint, fpLen: fpLen,
			offset: p.Offset, readOff: p.Offset, line: p.Line, lastData: now}
		// Its inode may have been claimed by an earlier position: a copy
		// found empty, claimed since by the file it copies (nothing was
		// handed on), or the inode was reused for another file while the
		// tailer was down (its content is then looked for by fingerprint).
		taken := t.byID[k] != nil
		if taken && p.Offset == 0 && p.Line == 0 {
			continue
		}
		var s *source
		if path, ok := t.globbd[k]; ok && !taken && !isCompressed(path) {
			s = t.tryPlain(path, p.Fingerprint, fpLen, 0)
		}
		if s == nil && !taken { // renamed away or compressed, keeping its inode
			for _, de := range t.readDir(filepath.Dir(name)) {
				if info, err := de.Info(); err == nil {
					if dev, ino := fileID(info); (fileKey{dev, ino}) == k && de.Type().IsRegular() {
						path := filepath.Join(filepath.Dir(name), de.Name())
						if strings.HasSuffix(path, ".gz") {
							s = t.tryGz(path, p.Fingerprint, fpLen)
						} else if !isCompressed(path) {
							s = t.tryPlain(path, p.Fingerprint, fpLen, 0)
						}
						break
					}
				}
			}
		}
		if s == nil {
			if s = t.findCopy(p.Fingerprint, p.Offset, name); s != nil {
				t.stats.Recovered++
			}
		}
		if s == nil {
			if p.Offset > 0 || fpLen > 0 {
				t.lost(p, "not found (rotated away, compressed or deleted)")
			}
			continue
		}
		e.key, e.path, e.f, e.r, e.gz, e.seen = s.key, s.path, s.f, s.r, s.gz, s.seen
		t.add(e)
		t.trace("resolved %s at %s %v offset %d", e.stream, e.path, e.key, e.offset)
	}
}

func (t *Tailer) lost(p parsers.Position, why string) {
	t.stats.Lost++
	t.fail(p.Stream, fmt.Errorf("position at offset %d: file %s; the rest of it is lost", p.Offset, why))
}

// read reads up to budget bytes of e (fewer if size, when known, says so)
// and hands on the lines completed. It reports the bytes read and whether
// the end of the file was reached.
func (t *Tailer) read(e *file, size int64, budget int) (int, bool, error) {
	want := budget
	if size >= 0 {
		avail := size - e.readOff
		if avail <= 0 {
			return 0, true, nil
		}
		want = int(min(avail, int64(want)))
	}
	keep := len(e.partial)
	if e.skipping {
		keep = 0
	}
	buf := t.take(keep + want)
	copy(buf, e.partial[:keep])
	n, err := e.r.ReadAt(buf[keep:], e.readOff)
	eof := false
	if err == io.EOF {
		err, eof = nil, true
	}
	if err != nil {
		return 0, false, err
	}
	if e.f != nil && n > 0 {
		// Truncated (and written again) while being read, the bytes read
		// may mix two contents: they are dropped, and the truncation is
		// handled from the start.
		fi, err := e.f.Stat()
		if err != nil {
			return 0, false, err
		}
		if fi.Size() < e.readOff+int64(n) || t.replaced(e, fi.Size()) {
			return 0, false, errReplaced
		}
	}
	if size >= 0 && e.readOff+int64(n) >= size {
		eof = true
	}
	t.stats.Bytes += int64(n)
	fresh := buf[keep : keep+n]
	e.readOff += int64(n)
	if e.skipping {
		i := bytes.IndexByte(fresh, '\n')
		if i < 0 {
			return n, eof, nil
		}
		text := t.take(len(e.partial))
		copy(text, e.partial)
		t.emit(e, Line{Text: text, Offset: e.offset, Num: e.line + 1, Truncated: true})
		e.offset = e.readOff - int64(n) + int64(i) + 1
		e.partial, e.skipping = e.partial[:0], false
		buf, keep = fresh[i+1:], 0
	} else {
		buf = buf[:keep+n]
	}
	start, pos, off := 0, keep, e.offset
	for {
		i := bytes.IndexByte(buf[pos:], '\n')
		if i < 0 {
			break
		}
		end := pos + i
		l := Line{Text: buf[start:end], Offset: off, Num: e.line + 1}
		if len(l.Text) > t.opt.MaxLine {
			l.Text, l.Truncated = l.Text[:t.opt.MaxLine], true
		}
		t.emit(e, l)
		off += int64(end + 1 - start)
		start, pos = end+1, end+1
	}
	e.offset = off
	rest := buf[start:]
	if len(rest) > t.opt.MaxLine {
		rest, e.skipping = rest[:t.opt.MaxLine], true
	}
	e.partial = append(e.partial[:0], rest...)
	return n, eof, nil
}

// minArena is the smallest arena a Tailer allocates.
const minArena = 64 << 10

// take returns n bytes of the poll's arena.
func (t *Tailer) take(n int) []byte {
	if len(t.arena)-t.used < n {
		t.arena = make([]byte, max(2*len(t.arena), n, minArena))
		t.used = 0
	}
	b := t.arena[t.used : t.used+n : t.used+n]
	t.used += n
	return b
}

// emit hands on one line of e.
func (t *Tailer) emit(e *file, l Line) {
	if t.cur != e {
		t.closeChunk()
		t.cur, t.start = e, len(t.lines)
	}
	if l.Truncated {
		t.stats.Truncated++
	}
	t.stats.Lines++
	e.line++
	t.lines = append(t.lines, l)
}

// closeChunk ends the chunk being built.
func (t *Tailer) closeChunk() {
	e := t.cur
	if e == nil {
		return
	}
	t.chunks = append(t.chunks, Chunk{Stream: e.stream, Path: e.path, Lines: t.lines[t.start:len(t.lines):len(t.lines)], End: e.done})
	t.cur = nil
}

// flushPartial hands on e's unterminated last line.
func (t *Tailer) flushPartial(e *file) {
	if len(e.partial) == 0 && !e.skipping {
		return
	}
	text := t.take(len(e.partial))
	copy(text, e.partial)
	t.emit(e, Line{Text: text, Offset: e.offset, Num: e.line + 1, Partial: true, Truncated: e.skipping})
	e.offset = e.readOff
	e.partial, e.skipping = e.partial[:0], false
}

// end lets e go after handing on its last line.
func (t *Tailer) end(e *file) {
	t.trace("end %s %v at %d", e.stream, e.key, e.readOff)
	t.flushPartial(e)
	e.done = true
	if t.cur != e {
		t.closeChunk()
		t.cur, t.start = e, len(t.lines)
	}
	t.closeChunk()
	e.close()
	if t.ended == nil {
		t.ended = map[string]bool{}
	}
	t.ended[e.stream] = true
	t.endedFIFO = append(t.endedFIFO, e.stream)
	if len(t.endedFIFO) > maxEnded {
		delete(t.ended, t.endedFIFO[0])
		t.endedFIFO = t.endedFIFO[1:]
	}
	if t.byID[e.key] == e {
		delete(t.byID, e.key)
	}
}

func (e *file) close() {
	if e.gz != nil {
		e.gz.Close()
	} else if e.f != nil {
		e.f.Close()
	}
	e.f, e.r, e.gz = nil, nil, nil
}

// gzSource reads a .gz file's decompressed bytes forward, as an
// io.ReaderAt that must be read in order (skipping forward is allowed).
type gzSource struct {
	f   *os.File
	zr  *gzip.Reader
	pos int64
}

func openGz(path string) (*gzSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &gzSource{f: f, zr: zr}, nil
}

func (g *gzSource) ReadAt(p []byte, off int64) (int, error) {
	if off < g.pos {
		return 0, fmt.Errorf("gzip: read at %d behind %d", off, g.pos)
	}
	if off > g.pos {
		n, err := io.CopyN(io.Discard, g.zr, off-g.pos)
		g.pos += n
		if err != nil {
			return 0, err
		}
	}
	n := 0
	var err error
	for n < len(p) && err == nil {
		var m int
		m, err = g.zr.Read(p[n:])
		n += m
	}
	g.pos += int64(n)
	return n, err
}

func (g *gzSource) Close() error { return g.f.Close() }
