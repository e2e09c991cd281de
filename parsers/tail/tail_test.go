package tail

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// clock is a settable clock for IdleFlush and Linger.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) add(d time.Duration)     { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func path(dir, name string) string       { return filepath.Join(dir, name) }
func write(t *testing.T, p, s string)    { t.Helper(); appendFile(t, p, s, os.O_TRUNC) }
func appendTo(t *testing.T, p, s string) { t.Helper(); appendFile(t, p, s, os.O_APPEND) }

func appendFile(t *testing.T, p, s string, flag int) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// harness follows files and collects what they give, by stream.
type harness struct {
	t     *testing.T
	tl    *Tailer
	clk   *clock
	got   map[string][]Line // copies
	ended map[string]bool
	order []string // "stream:text" in delivery order
}

func newHarness(t *testing.T, opt Options, restore []parsers.Position) *harness {
	t.Helper()
	clk := newClock()
	if opt.Now == nil {
		opt.Now = clk.now
	}
	if opt.Linger == 0 {
		opt.Linger = -1
	}
	tl, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	if restore != nil {
		if err := tl.Restore(restore); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { tl.Close() })
	return &harness{t: t, tl: tl, clk: clk, got: map[string][]Line{}, ended: map[string]bool{}}
}

// poll polls once and checks that lines follow each other within a stream.
func (h *harness) poll() []Chunk {
	h.t.Helper()
	chunks, err := h.tl.Poll(context.Background())
	if err != nil {
		h.t.Fatalf("poll: %v", err)
	}
	h.collect(chunks)
	return chunks
}

func (h *harness) collect(chunks []Chunk) {
	h.t.Helper()
	for _, c := range chunks {
		if h.ended[c.Stream] {
			h.t.Fatalf("chunk of %s after its end", c.Stream)
		}
		prev := h.got[c.Stream]
		for _, l := range c.Lines {
			if n := len(prev); n > 0 && (l.Num != prev[n-1].Num+1 || l.Offset <= prev[n-1].Offset) {
				h.t.Fatalf("%s: line %d at %d after line %d at %d", c.Stream, l.Num, l.Offset, prev[n-1].Num, prev[n-1].Offset)
			}
			l.Text = bytes.Clone(l.Text)
			prev = append(prev, l)
			h.order = append(h.order, c.Stream[strings.LastIndexByte(c.Stream, '/')+1:]+":"+string(l.Text))
		}
		h.got[c.Stream] = prev
		if c.End {
			h.ended[c.Stream] = true
		}
	}
}

// texts returns the lines delivered so far, in order, and forgets them.
func (h *harness) texts() []string {
	out := h.order
	h.order = nil
	return out
}

func (h *harness) expect(want ...string) {
	h.t.Helper()
	got := h.texts()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		h.t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestLinesOffsetsAndPartial(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "a.log")
	write(t, p, "one\ntwo\r\nthr")
	h := newHarness(t, Options{Globs: []string{path(dir, "*.log")}, IdleFlush: 5 * time.Second}, nil)
	chunks := h.poll()
	h.expect("a.log#"+ino(t, p)+":one", "a.log#"+ino(t, p)+":two\r")
	if len(chunks) != 1 || chunks[0].Lines[1].Offset != 4 || chunks[0].Lines[1].Num != 2 || chunks[0].Path != p {
		t.Fatalf("chunks %+v", chunks)
	}
	if pos := h.tl.Positions(); len(pos) != 1 || pos[0].Offset != 9 || pos[0].Line != 2 {
		t.Fatalf("positions %+v", pos)
	}
	// The partial line waits for its newline ...
	h.clk.add(4 * time.Second)
	h.poll()
	h.expect()
	appendTo(t, p, "ee\nfo")
	h.clk.add(4 * time.Second)
	h.poll()
	h.expect("a.log#" + ino(t, p) + ":three")
	// ... or for IdleFlush, then it is a line and what follows a new one.
	h.clk.add(4 * time.Second)
	h.poll()
	h.expect()
	h.clk.add(time.Second)
	h.poll()
	h.expect("a.log#" + ino(t, p) + ":fo")
	l := h.got[""+p+"#"+ino(t, p)]
	if last := l[len(l)-1]; !last.Partial || last.Offset != 15 || last.Num != 4 {
		t.Fatalf("flushed %+v", last)
	}
	appendTo(t, p, "ur\n")
	h.poll()
	h.expect("a.log#" + ino(t, p) + ":ur")
	if st := h.tl.Stats(); st.Flushed != 1 || st.Lines != 5 || st.Bytes != 20 || st.Files != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func ino(t *testing.T, p string) string {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	_, i := fileID(fi)
	return fmt.Sprint(i)
}

func TestRenameRotation(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "scm.log")
	write(t, p, "1\n2\n")
	h := newHarness(t, Options{Globs: []string{p}}, nil)
	h.poll()
	old := p + "#" + ino(t, p)
	appendTo(t, p, "3\n4")
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	write(t, p, "5\n")
	h.poll()
	h.poll() // the first poll that finds nothing new in the rotated file lets it go
	cur := p + "#" + ino(t, p)
	// The rest of the rotated file comes before the new file; its
	// unterminated last line when it is let go.
	h.expect("scm.log#"+ino(t, p+".1")+":1", "scm.log#"+ino(t, p+".1")+":2", "scm.log#"+ino(t, p+".1")+":3", "scm.log#"+ino(t, p)+":5", "scm.log#"+ino(t, p+".1")+":4")
	if !h.ended[old] || h.ended[cur] {
		t.Fatalf("ended %v", h.ended)
	}
	if st := h.tl.Stats(); st.Rotations != 1 || st.Files != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRenameRotationLinger(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "scm.log")
	write(t, p, "1\n")
	h := newHarness(t, Options{Globs: []string{p}, Linger: 3 * time.Second}, nil)
	h.poll()
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	h.poll()
	// A writer that still has the renamed file open is read until Linger.
	appendTo(t, p+".1", "2\n")
	h.clk.add(2 * time.Second)
	h.poll()
	h.clk.add(2 * time.Second)
	h.poll()
	if h.tl.Stats().Files != 1 {
		t.Fatal("let go before Linger")
	}
	h.clk.add(time.Second)
	h.poll()
	if h.tl.Stats().Files != 0 || len(h.got[p+"#"+ino(t, p+".1")]) != 2 {
		t.Fatalf("stats %+v got %v", h.tl.Stats(), h.got)
	}
}

func TestCopyTruncate(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprint("gz=", compress), func(t *testing.T) {
			dir := t.TempDir()
			p := path(dir, "om.log")
			write(t, p, "a\nb\n")
			h := newHarness(t, Options{Globs: []string{p}}, nil)
			h.poll()
			appendTo(t, p, "c\nd\n")
			copyFile(t, p, p+".1", compress)
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
			appendTo(t, p, "e\n")
			h.poll()
			h.poll()
			h.poll()
			i := ino(t, p)
			h.expect("om.log#"+i+":a", "om.log#"+i+":b", "om.log#"+i+":c", "om.log#"+i+":d", "om.log#"+i+".1:e")
			if st := h.tl.Stats(); st.Truncations != 1 || st.Recovered != 1 || st.Lost != 0 {
				t.Fatalf("stats %+v", st)
			}
			if !h.ended[p+"#"+i] {
				t.Fatal("old generation not ended")
			}
			// Rewritten beyond the old size between polls: the fingerprint tells.
			appendTo(t, p, "f\n")
			h.poll()
			h.texts()
			copyFile(t, p, p+".2", compress)
			write(t, p, "a much longer line than before\n")
			h.poll()
			h.expect("om.log#" + i + ".2:a much longer line than before")
			if st := h.tl.Stats(); st.Truncations != 2 || st.Recovered != 2 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func TestTruncateWithoutCopy(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "dn.log")
	write(t, p, "a\nb\n")
	h := newHarness(t, Options{Globs: []string{p}}, nil)
	h.poll()
	h.texts()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, p, "c\n")
	h.poll()
	i := ino(t, p)
	h.expect("dn.log#" + i + ".1:c")
	if st := h.tl.Stats(); st.Truncations != 1 || st.Lost != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func copyFile(t *testing.T, from, to string, compress bool) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if compress {
		to += ".gz"
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipFile(t *testing.T, p string) {
	t.Helper()
	copyFile(t, p, p, true)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

// A rotated file compressed while followed is read through the open descriptor.
func TestGzipRotationWhileFollowed(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "scm.log")
	write(t, p, "1\n")
	h := newHarness(t, Options{Globs: []string{path(dir, "scm.log*")}}, nil)
	h.poll()
	h.texts()
	i := ino(t, p)
	appendTo(t, p, "2\n")
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	gzipFile(t, p+".1")
	write(t, p, "3\n")
	h.poll()
	h.poll()
	h.expect("scm.log#"+i+":2", "scm.log#"+ino(t, p)+":3")
	if st := h.tl.Stats(); st.Files != 1 || st.Recovered != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// A file rotated and compressed while the tailer was down is read from the
// .gz, from the restored offset on.
func TestGzipRotationAfterRestart(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "scm.log")
	write(t, p, strings.Repeat("x", 2000)+"\n1\n")
	h := newHarness(t, Options{Globs: []string{p}, LookBack: -1}, nil)
	h.poll()
	h.texts()
	pos := h.tl.Positions()
	i := ino(t, p)
	appendTo(t, p, "2\n3\n")
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	gzipFile(t, p+".1")
	write(t, p, "4\n")
	h2 := newHarness(t, Options{Globs: []string{p}}, pos)
	h2.poll()
	h2.expect("scm.log#"+i+":2", "scm.log#"+i+":3", "scm.log#"+ino(t, p)+":4")
	if l := h2.got[p+"#"+i]; l[0].Num != 3 || l[0].Offset != 2003 {
		t.Fatalf("lines %+v", l)
	}
	if st := h2.tl.Stats(); st.Recovered != 1 || st.Files != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// Positions survive renames and truncations while the tailer is down.
func TestRestartAcrossRotations(t *testing.T) {
	dir := t.TempDir()
	a, b := path(dir, "a.log"), path(dir, "b.log")
	write(t, a, "a1\n")
	write(t, b, "b1\n")
	h := newHarness(t, Options{Globs: []string{path(dir, "*.log")}}, nil)
	h.poll()
	h.texts()
	pos := h.tl.Positions()
	ia, ib := ino(t, a), ino(t, b)
	appendTo(t, a, "a2\n")
	if err := os.Rename(a, path(dir, "a.log.1")); err != nil {
		t.Fatal(err)
	}
	write(t, a, "a3\n")
	appendTo(t, b, "b2\n")
	copyFile(t, b, b+".1", false)
	write(t, b, "b3\n")
	h2 := newHarness(t, Options{Globs: []string{path(dir, "*.log")}}, pos)
	h2.poll()
	h2.expect("a.log#"+ia+":a2", "b.log#"+ib+":b2", "a.log#"+ino(t, a)+":a3", "b.log#"+ib+".1:b3")
	h2.poll()
	h2.poll()
	if st := h2.tl.Stats(); st.Lost != 0 || st.Files != 2 {
		t.Fatalf("stats %+v", st)
	}
	// Restoring again from the same positions gives the same lines.
	h3 := newHarness(t, Options{Globs: []string{path(dir, "*.log")}}, pos)
	h3.poll()
	if fmt.Sprint(h3.texts()) != fmt.Sprint([]string{"a.log#" + ia + ":a2", "b.log#" + ib + ":b2", "a.log#" + ino(t, a) + ":a3", "b.log#" + ib + ".1:b3"}) {
		t.Fatal("second restore differs")
	}
}

func TestNewFileAndDeletedFile(t *testing.T) {
	dir := t.TempDir()
	a := path(dir, "a.log")
	write(t, a, "a1\n")
	h := newHarness(t, Options{Globs: []string{path(dir, "*.log")}}, nil)
	h.poll()
	ia := ino(t, a)
	b := path(dir, "b.log")
	write(t, b, "b1\nb2\n")
	h.poll()
	h.expect("a.log#"+ia+":a1", "b.log#"+ino(t, b)+":b1", "b.log#"+ino(t, b)+":b2")
	// Deleted with a last line written: read through the descriptor, then let go.
	appendTo(t, a, "a2\n")
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	h.poll()
	chunks := h.poll()
	h.expect("a.log#" + ia + ":a2")
	if len(chunks) != 1 || !chunks[0].End || h.tl.Stats().Files != 1 {
		t.Fatalf("chunks %+v stats %+v", chunks, h.tl.Stats())
	}
	if pos := h.tl.Positions(); len(pos) != 1 || !strings.HasPrefix(pos[0].Stream, b) {
		t.Fatalf("positions %+v", pos)
	}
}

// A position whose inode now holds another file (the fingerprint differs)
// is not resumed: the file there is new and read from its start. (Inode
// reuse cannot be forced from a test: the position is made to name the new
// file's inode with the old file's fingerprint, as a reused inode would.)
func TestInodeReuse(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "a.log")
	write(t, p, "old content 1\nold content 2\n")
	h := newHarness(t, Options{Globs: []string{p}}, nil)
	h.poll()
	pos := h.tl.Positions()
	h.tl.Close()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	write(t, p, "new 1\nnew 2\nnew 3\n")
	fi, _ := os.Stat(p)
	pos[0].Device, pos[0].Inode = fileID(fi)
	pos[0].Stream = p + "#" + ino(t, p)
	h2 := newHarness(t, Options{Globs: []string{p}}, pos)
	chunks, err := h2.tl.Poll(context.Background())
	if err == nil || !strings.Contains(err.Error(), "lost") {
		t.Fatalf("err %v", err)
	}
	h2.collect(chunks)
	i := ino(t, p)
	h2.expect("a.log#"+i+":new 1", "a.log#"+i+":new 2", "a.log#"+i+":new 3")
	if st := h2.tl.Stats(); st.Lost != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLongLine(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "a.log")
	long := bytes.Repeat([]byte("0123456789"), 500_000) // 5 MB
	write(t, p, "before\n")
	h := newHarness(t, Options{Globs: []string{p}, MaxLine: 1 << 20, MaxRead: 1 << 20}, nil)
	h.poll()
	appendTo(t, p, string(long)+"\nafter\n"+string(long[:3<<20]))
	for range 8 {
		h.poll()
	}
	l := h.got[p+"#"+ino(t, p)]
	if len(l) != 3 || len(l[1].Text) != 1<<20 || !l[1].Truncated || !bytes.Equal(l[1].Text, long[:1<<20]) ||
		l[1].Offset != 7 || string(l[2].Text) != "after" || l[2].Offset != int64(7+len(long)+1) {
		t.Fatalf("lines %d", len(l))
	}
	// The unterminated 3 MB rest is cut too when flushed.
	h.clk.add(time.Minute)
	h.poll()
	l = h.got[p+"#"+ino(t, p)]
	if len(l) != 4 || len(l[3].Text) != 1<<20 || !l[3].Truncated || !l[3].Partial {
		t.Fatalf("lines %d", len(l))
	}
	if st := h.tl.Stats(); st.Truncated != 2 {
		t.Fatalf("stats %+v", st)
	}
	// Memory stays bounded: the poll arena never grew past what one poll reads.
	if len(h.tl.arena) > 4<<20 {
		t.Fatalf("arena %d", len(h.tl.arena))
	}
}

func TestBinaryGarbage(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "a.log")
	garbage := []byte{0, 1, 2, 0xff, 0xfe, '\r', 0, 0x80}
	write(t, p, "ok\n"+string(garbage)+"\n\n"+string(garbage[:3])+"\nend\n")
	h := newHarness(t, Options{Globs: []string{p}}, nil)
	h.poll()
	l := h.got[p+"#"+ino(t, p)]
	if len(l) != 5 || !bytes.Equal(l[1].Text, garbage) || len(l[2].Text) != 0 || string(l[4].Text) != "end" {
		t.Fatalf("lines %+v", l)
	}
}

func TestLookBack(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "a.log")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "line %04d\n", i) // 10 bytes
	}
	write(t, p, b.String())
	h := newHarness(t, Options{Globs: []string{path(dir, "*.log")}, LookBack: 95}, nil)
	h.poll()
	l := h.got[p+"#"+ino(t, p)]
	// The window starts in line 990 (offset 9905): it begins with 991.
	if len(l) != 9 || string(l[0].Text) != "line 0991" || l[0].Num != 992 || l[0].Offset != 9910 {
		t.Fatalf("lines %+v", l)
	}
	// Files appearing later are read whole (unless their first bytes are
	// those of a followed file: a copy, claimed by a truncation or ignored).
	q := path(dir, "b.log")
	write(t, q, "b\n"+b.String())
	h.poll()
	if l := h.got[q+"#"+ino(t, q)]; len(l) != 1001 {
		t.Fatalf("new file: %d lines %v", len(l), h.tl.Positions())
	}
}

// Positions restore exactly: for every split point, a tailer stopped after
// any poll and a new one restored from its positions give, together, the
// file's lines once each.
func TestRestoreEverywhere(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "a.log")
	var all []string
	var b strings.Builder
	for i := range 300 {
		s := fmt.Sprintf("%d%s", i, strings.Repeat("y", i%37))
		all = append(all, s)
		b.WriteString(s + "\n")
	}
	data := b.String()
	for cut := 1; cut < 40; cut++ {
		write(t, p, "")
		h := newHarness(t, Options{Globs: []string{p}, MaxRead: 97}, nil)
		var got []string
		written := 0
		for i := 0; i < cut; i++ {
			n := min(len(data), written+113)
			appendTo(t, p, data[written:n])
			written = n
			h.poll()
		}
		for _, l := range h.got[p+"#"+ino(t, p)] {
			got = append(got, string(l.Text))
		}
		pos := h.tl.Positions()
		h.tl.Close()
		appendTo(t, p, data[written:])
		h2 := newHarness(t, Options{Globs: []string{p}}, pos)
		for range 30 {
			h2.poll()
		}
		for _, l := range h2.got[p+"#"+ino(t, p)] {
			got = append(got, string(l.Text))
		}
		if strings.Join(got, "\n") != strings.Join(all, "\n") {
			t.Fatalf("cut %d: %d lines, want %d", cut, len(got), len(all))
		}
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads everything")
	}
	dir := t.TempDir()
	a, b := path(dir, "a.log"), path(dir, "b.log")
	write(t, a, "a\n")
	write(t, b, "b\n")
	if err := os.Chmod(a, 0); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Globs: []string{path(dir, "*.log")}}, nil)
	chunks, err := h.tl.Poll(context.Background())
	if err == nil || !strings.Contains(err.Error(), a) || len(chunks) != 1 || h.tl.Stats().Errors != 1 {
		t.Fatalf("err %v chunks %d", err, len(chunks))
	}
}

func TestBadOptionsAndPositions(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("no globs accepted")
	}
	if _, err := New(Options{Globs: []string{"["}}); err == nil {
		t.Fatal("bad glob accepted")
	}
	tl, _ := New(Options{Globs: []string{"x"}})
	if err := tl.Restore([]parsers.Position{{Stream: "nohash", Fingerprint: "0-" + strings.Repeat("0", 24)}}); err == nil {
		t.Fatal("bad stream accepted")
	}
	if err := tl.Restore([]parsers.Position{{Stream: "a#1", Fingerprint: "zz"}}); err == nil {
		t.Fatal("bad fingerprint accepted")
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	p := path(dir, "a.log")
	write(t, p, "one\ntwo\n")
	tl, err := New(Options{Globs: []string{p}, Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var lines []string
	err = tl.Run(ctx, func(chunks []Chunk, err error) error {
		if err != nil {
			return err
		}
		for _, c := range chunks {
			for _, l := range c.Lines {
				lines = append(lines, string(l.Text))
			}
		}
		if len(lines) == 2 {
			appendTo(t, p, "three\n")
		}
		if len(lines) == 3 {
			cancel()
		}
		return nil
	})
	if err != context.Canceled || strings.Join(lines, ",") != "one,two,three" {
		t.Fatalf("err %v lines %q", err, lines)
	}
}

func TestRotationGroup(t *testing.T) {
	for in, want := range map[string]string{
		"/l/ozone-scm.log":          "/l/ozone-scm.log",
		"/l/ozone-scm.log.1":        "/l/ozone-scm.log",
		"/l/ozone-scm.log.12":       "/l/ozone-scm.log",
		"/l/ozone-scm.log-20260823": "/l/ozone-scm.log",
		"/l/ozone-scm-2.log":        "/l/ozone-scm-2.log",
		"/l/123":                    "/l/123",
		"/l/.1":                     "/l/.1",
		"/l/x.log-2026-08-23":       "/l/x.log",
		"/l/x.log.1.2":              "/l/x.log.1",
	} {
		if got := rotationGroup(in); got != want {
			t.Errorf("rotationGroup(%q) = %q, want %q", in, got, want)
		}
	}
}

// One Poll reads at most MaxPoll bytes over all files and says More; the
// next polls read the rest, every line once.
func TestMaxPollBoundsAPoll(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for _, name := range []string{"a.log", "b.log", "c.log"} {
		var b strings.Builder
		for i := range 50 {
			line := fmt.Sprintf("%s line %02d", name, i)
			b.WriteString(line + "\n")
			want = append(want, line)
		}
		write(t, path(dir, name), b.String())
	}
	tl, err := New(Options{Globs: []string{path(dir, "*.log")}, MaxPoll: 500, LookBack: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	var got []string
	for polls := 1; ; polls++ {
		chunks, err := tl.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		bytes := 0
		for _, c := range chunks {
			for _, l := range c.Lines {
				got = append(got, string(l.Text))
				bytes += len(l.Text) + 1
			}
		}
		if bytes > 500+len("c.log line 00\n") {
			t.Fatalf("poll %d read %d bytes, MaxPoll 500", polls, bytes)
		}
		if !tl.More() {
			break
		}
		if polls > 100 {
			t.Fatal("More never ends")
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%d lines read, want %d once each", len(got), len(want))
	}
}
