//go:build e2e

package tail

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

var tortureSeed = flag.Int64("torture.seed", 0, "seed of the torture test (0: from the clock)")

var tortureLines = flag.Int("torture.lines", 100_000, "lines written by each torture writer")

// Rotation kinds of the torture writers.
const (
	rotRename = iota
	rotRenameGzip
	rotCopyTruncate
	rotCopyTruncateGzip
	rotKinds
)

var rotNames = [rotKinds]string{"rename", "rename+gzip", "copytruncate", "copytruncate+gzip"}

// tortureWriter appends numbered, checksummed lines to one log file and
// rotates it every few thousand lines, mixing the rotation kinds.
type tortureWriter struct {
	id    byte
	path  string
	lines int
	seed  int64
	rotMu *sync.Mutex   // held by the test while a tailer restarts
	polls *atomic.Int64 // polls started by the tailer
	gen   atomic.Int64  // rotations done
	rots  [rotKinds]int
	err   error
	trace func(string, ...any)
	stop  *atomic.Bool
	// ready, if set, says whether the tailer has handed on the line
	// numbered first (the first of the current file generation).
	ready func(first int) bool
}

func (w *tortureWriter) run() {
	rng := rand.New(rand.NewSource(w.seed))
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		w.err = err
		return
	}
	defer func() { f.Close() }()
	var buf []byte
	payload := make([]byte, 200)
	nextRot := 2000 + rng.Intn(4000)
	genPoll, genFirst := w.polls.Load(), 0
	for seq := 0; seq < w.lines && !w.stop.Load(); {
		buf = buf[:0]
		burst := 1 + rng.Intn(300)
		for ; burst > 0 && seq < w.lines && seq < nextRot; burst-- {
			n := rng.Intn(len(payload))
			for i := range n {
				payload[i] = 'a' + byte(rng.Intn(26))
			}
			buf = appendTortureLine(buf, w.id, seq, payload[:n])
			seq++
		}
		// Sometimes a line goes out in two writes: the tailer may see half of it.
		if cut := rng.Intn(len(buf) + 1); rng.Intn(8) == 0 && cut > 0 {
			if _, err := f.Write(buf[:cut]); err != nil {
				w.err = err
				return
			}
			time.Sleep(time.Duration(rng.Intn(200)) * time.Microsecond)
			buf = buf[cut:]
		}
		if _, err := f.Write(buf); err != nil {
			w.err = err
			return
		}
		if rng.Intn(4) == 0 {
			time.Sleep(time.Duration(rng.Intn(300)) * time.Microsecond)
		}
		if seq == nextRot && seq < w.lines {
			// A file generation lives at least one whole poll: a tailer that
			// polls never misses one (see Limitations in the package doc).
			for !w.stop.Load() && (w.ready == nil && w.polls.Load() < genPoll+2 || w.ready != nil && !w.ready(genFirst)) {
				time.Sleep(100 * time.Microsecond)
			}
			w.rotMu.Lock()
			f, err = w.rotate(f, rng.Intn(rotKinds))
			w.rotMu.Unlock()
			if err != nil {
				w.err = err
				return
			}
			genPoll, genFirst = w.polls.Load(), seq
			nextRot = seq + 2000 + rng.Intn(4000)
		}
	}
}

func appendTortureLine(b []byte, id byte, seq int, payload []byte) []byte {
	start := len(b)
	b = append(b, id, ' ')
	b = fmt.Appendf(b, "%08d ", seq)
	b = append(b, payload...)
	sum := crc32.ChecksumIEEE(b[start:])
	return fmt.Appendf(b, " %08x\n", sum)
}

// parseTortureLine returns a line's writer and number, checking its sum.
func parseTortureLine(l []byte) (byte, int, uint32, error) {
	i := bytes.LastIndexByte(l, ' ')
	if len(l) < 12 || i < 11 {
		return 0, 0, 0, fmt.Errorf("malformed line %q", l)
	}
	sum, err := strconv.ParseUint(string(l[i+1:]), 16, 32)
	if err != nil || uint32(sum) != crc32.ChecksumIEEE(l[:i]) {
		return 0, 0, 0, fmt.Errorf("bad checksum in %q", l)
	}
	seq, err := strconv.Atoi(string(l[2:10]))
	return l[0], seq, uint32(sum), err
}

// rotate rotates the file; the rotation is counted once done, so that a
// checkpoint taken while one is under way does not count it as seen.
func (w *tortureWriter) rotate(f *os.File, kind int) (*os.File, error) {
	f, err := w.rotateFile(f, kind)
	w.gen.Add(1)
	return f, err
}

func (w *tortureWriter) rotateFile(f *os.File, kind int) (*os.File, error) {
	w.rots[kind]++
	w.trace("rotate %c %s", w.id, rotNames[kind])
	n := w.gen.Load() + 1
	old := w.path + "." + strconv.FormatInt(n, 10)
	switch kind {
	case rotRename, rotRenameGzip:
		if err := f.Close(); err != nil {
			return nil, err
		}
		if err := os.Rename(w.path, old); err != nil {
			return nil, err
		}
		if kind == rotRenameGzip {
			if err := gzipTo(old, old+".gz"); err != nil {
				return nil, err
			}
			if err := os.Remove(old); err != nil {
				return nil, err
			}
		}
		return os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	default:
		to := old
		if kind == rotCopyTruncateGzip {
			to += ".gz"
		}
		if err := gzipOrCopy(w.path, to, kind == rotCopyTruncateGzip); err != nil {
			return nil, err
		}
		return f, f.Truncate(0)
	}
}

func gzipTo(from, to string) error { return gzipOrCopy(from, to, true) }

func gzipOrCopy(from, to string, compress bool) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	var dst io.Writer = out
	var zw *gzip.Writer
	if compress {
		zw = gzip.NewWriter(out)
		dst = zw
	}
	if _, err := io.Copy(dst, in); err != nil {
		out.Close()
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}

// checkpoint is what a daemon would write after a poll: the tailer's
// positions and the state built from the lines handed on (here, the next
// line number expected of each writer).
type checkpoint struct {
	positions []parsers.Position
	next      map[byte]int
	gens      map[byte]int64 // rotations of each writer before the poll began
}

// TestTorture writes numbered lines at a high rate into two files rotated
// every few thousand lines by rename, copytruncate and gzip (one file
// followed by its own name, one by a pattern that matches its rotated
// copies too), while the tailer is dropped again and again and restarted
// from the checkpoint of a random earlier poll, as a crashed daemon
// restarts from the last checkpoint it wrote. Every run from a checkpoint
// must hand on each line exactly once, in order: the next line expected is
// part of the checkpoint, so a line missing, repeated or out of order
// fails at once, and the checksums catch torn or mixed lines.
func TestTorture(t *testing.T) {
	if testing.Short() {
		t.Skip("torture")
	}
	dir := t.TempDir()
	seed := *tortureSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	var events []string
	var evMu sync.Mutex
	tracef := func(f string, a ...any) {
		evMu.Lock()
		events = append(events, fmt.Sprintf(f, a...))
		evMu.Unlock()
	}
	var rotMu sync.Mutex
	var polls atomic.Int64
	writers := []*tortureWriter{
		{id: 'a', path: filepath.Join(dir, "a.log"), lines: *tortureLines, seed: seed + 1, rotMu: &rotMu, polls: &polls},
		{id: 'b', path: filepath.Join(dir, "b.log"), lines: *tortureLines, seed: seed + 2, rotMu: &rotMu, polls: &polls},
	}
	opt := Options{
		Globs:     []string{writers[0].path, writers[1].path + "*"},
		IdleFlush: -1, // every line is written whole in the end: none is flushed early
		Linger:    -1,
		MaxRead:   256 << 10,
	}
	var wg sync.WaitGroup
	var stop atomic.Bool
	t.Cleanup(func() { stop.Store(true); wg.Wait() }) // before TempDir's cleanup
	for _, w := range writers {
		w.trace, w.stop = tracef, &stop
		wg.Add(1)
		go func() { defer wg.Done(); w.run() }()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	start := time.Now()
	next := map[byte]int{'a': 0, 'b': 0}
	var cps []checkpoint
	newTailer := func(pos []parsers.Position) *Tailer {
		tl, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		tl.tracef = tracef
		if pos != nil {
			if err := tl.Restore(pos); err != nil {
				t.Fatal(err)
			}
		}
		return tl
	}
	tl := newTailer([]parsers.Position{}) // resumed with nothing: every file is read whole
	var (
		restarts, reread, delivered, pollCount int
		recovered, rotations, truncations      int64
		bytesRead                              int64
		sum                                    uint64
		finished                               bool
		quiet                                  int
	)
	gens := func() map[byte]int64 {
		return map[byte]int64{'a': writers[0].gen.Load(), 'b': writers[1].gen.Load()}
	}
	var lastCP checkpoint
	dump := func(cp checkpoint) {
		evMu.Lock()
		for _, e := range events[max(0, len(events)-60):] {
			t.Log(e)
		}
		evMu.Unlock()
		t.Logf("restart from %+v", cp)
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			fi, _ := de.Info()
			_, ino := fileID(fi)
			t.Logf("%s %d %d", de.Name(), ino, fi.Size())
		}
	}
	untilCrash := 5 + rng.Intn(40)
	deadline := time.Now().Add(90 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: next %v of %d", next, *tortureLines)
		}
		before := gens()
		polls.Add(1)
		tracef("poll %d gens %v", pollCount, before)
		chunks, err := tl.Poll(context.Background())
		pollCount++
		if err != nil {
			t.Fatalf("poll %d: %v", pollCount, err)
		}
		n := 0
		for _, c := range chunks {
			for _, l := range c.Lines {
				if l.Partial || l.Truncated {
					t.Fatalf("%s line %d: partial %v truncated %v: %q", c.Stream, l.Num, l.Partial, l.Truncated, l.Text)
				}
				id, seq, s, err := parseTortureLine(l.Text)
				if err != nil {
					t.Fatalf("%s line %d at %d: %v", c.Stream, l.Num, l.Offset, err)
				}
				if seq != next[id] {
					dump(lastCP)
					t.Fatalf("%s line %d at %d: writer %c line %d, want %d (restarts %d)", c.Stream, l.Num, l.Offset, id, seq, next[id], restarts)
				}
				next[id]++
				sum += uint64(s)
				n++
			}
		}
		delivered += n
		cps = append(cps, checkpoint{positions: tl.Positions(), next: map[byte]int{'a': next['a'], 'b': next['b']}, gens: before})
		if len(cps) > 50 {
			cps = cps[1:]
		}
		if finished {
			if next['a'] == *tortureLines && next['b'] == *tortureLines {
				if quiet++; quiet > 3 {
					break
				}
			}
			if !tl.More() {
				time.Sleep(time.Millisecond)
			}
		} else {
			select {
			case <-done:
				finished = true
			default:
			}
		}
		if untilCrash--; untilCrash > 0 || finished {
			continue
		}
		// Crash: drop the tailer and restart from the checkpoint of a
		// random earlier poll, with rotations paused until the new tailer
		// found its files (it restarts while no file changes hands).
		untilCrash = 5 + rng.Intn(40)
		rotMu.Lock()
		now := gens()
		tracef("crash, gens %v", now)
		var ok []int
		for i, cp := range cps {
			if cp.gens['a']+1 >= now['a'] && cp.gens['b']+1 >= now['b'] && !emptyPosition(cp.positions) && knowsBoth(cp.positions) {
				ok = append(ok, i)
			}
		}
		if len(ok) == 0 {
			rotMu.Unlock()
			continue
		}
		cp := cps[ok[rng.Intn(len(ok))]]
		lastCP = cp
		st := tl.Stats()
		recovered, rotations, truncations, bytesRead = recovered+st.Recovered, rotations+st.Rotations, truncations+st.Truncations, bytesRead+st.Bytes
		tl.Close()
		reread += next['a'] - cp.next['a'] + next['b'] - cp.next['b']
		next = map[byte]int{'a': cp.next['a'], 'b': cp.next['b']}
		cps = cps[:0]
		tl = newTailer(cp.positions)
		restarts++
		// The first poll of the new tailer happens under the lock.
		before = gens()
		polls.Add(1)
		chunks, err = tl.Poll(context.Background())
		rotMu.Unlock()
		if err != nil {
			t.Fatalf("poll after restart %d: %v", restarts, err)
		}
		for _, c := range chunks {
			for _, l := range c.Lines {
				id, seq, s, err := parseTortureLine(l.Text)
				if err != nil || seq != next[id] {
					dump(cp)
					t.Logf("chunks %d: %+v", len(chunks), tl.Stats())
					for _, c := range chunks {
						t.Logf("chunk %s %d lines end %v", c.Stream, len(c.Lines), c.End)
					}
					t.Fatalf("after restart %d: %s line %d: writer %c line %d, want %d (%v)", restarts, c.Stream, l.Num, id, seq, next[id], err)
				}
				next[id]++
				sum += uint64(s)
				delivered++
			}
		}
		cps = append(cps, checkpoint{positions: tl.Positions(), next: map[byte]int{'a': next['a'], 'b': next['b']}, gens: before})
	}
	for _, w := range writers {
		if w.err != nil {
			t.Fatal(w.err)
		}
	}
	st := tl.Stats()
	if st.Lost != 0 {
		t.Fatalf("lost %d", st.Lost)
	}
	recovered, rotations, truncations, bytesRead = recovered+st.Recovered, rotations+st.Rotations, truncations+st.Truncations, bytesRead+st.Bytes
	tl.Close()
	var rots [rotKinds]int
	for _, w := range writers {
		for k, n := range w.rots {
			rots[k] += n
		}
	}
	var kinds []string
	for k, n := range rots {
		kinds = append(kinds, fmt.Sprintf("%s %d", rotNames[k], n))
	}
	t.Logf("%d lines written by 2 writers, %d handed on (%d re-read after %d restarts from earlier checkpoints), %.1f MB read in %d polls, %s",
		2**tortureLines, delivered, reread, restarts, float64(bytesRead)/1e6, pollCount, time.Since(start).Round(time.Millisecond))
	t.Logf("checksum of lines handed on %x", sum)
	t.Logf("rotations %v; tailer saw %d let go, %d truncations, %d rests recovered from copies or .gz", kinds, rotations, truncations, recovered)
	if delivered != 2**tortureLines+reread {
		t.Fatalf("handed on %d, want %d", delivered, 2**tortureLines+reread)
	}
	if restarts == 0 {
		t.Fatal("no restart")
	}
}

// emptyPosition reports whether a checkpoint holds the position of an empty
// file: one that, written and then copied and truncated before the
// restart, cannot be told from the file written after it (see
// Limitations).
func emptyPosition(pos []parsers.Position) bool {
	for _, p := range pos {
		if n, _ := parseFP(p.Fingerprint); n == 0 {
			return true
		}
	}
	return false
}

// knowsBoth reports whether a checkpoint holds positions of both writers'
// files: one taken before a file existed is no place to restart from once
// that file's first generation may have been compressed away (see
// Limitations: a generation the tailer never saw).
func knowsBoth(pos []parsers.Position) bool {
	var a, b bool
	for _, p := range pos {
		name := filepath.Base(p.Stream)
		a = a || strings.HasPrefix(name, "a.log")
		b = b || strings.HasPrefix(name, "b.log")
	}
	return a && b
}
