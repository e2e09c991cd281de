package tail

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzRestore writes data into a file piece by piece while a tailer
// follows it with small limits, stops the tailer after a random poll and
// restores a new one from its positions. Every line handed on must be the
// file's bytes at its offset, begin where the previous one ended (its
// newline included), carry the next number, and together the lines must
// cover the whole file once.
func FuzzRestore(f *testing.F) {
	f.Add([]byte("one\ntwo\nthree\n"), int64(1))
	f.Add([]byte("a very long line that is cut\nshort\n\n\nno end"), int64(2))
	f.Add(bytes.Repeat([]byte("0123456789\n"), 50), int64(3))
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		p := filepath.Join(t.TempDir(), "a.log")
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		clk := newClock()
		opt := Options{Globs: []string{p}, MaxLine: 1 + rng.Intn(40), MaxRead: 1 + rng.Intn(64),
			IdleFlush: time.Duration(1+rng.Intn(3)) * time.Second, Linger: -1, Now: clk.now}
		tl, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		var end int64 // where the next line must begin
		num := 0
		check := func(chunks []Chunk) {
			for _, c := range chunks {
				for _, l := range c.Lines {
					if l.Offset != end || l.Num != num+1 {
						t.Fatalf("line %d at %d, want line %d at %d", l.Num, l.Offset, num+1, end)
					}
					if l.Offset+int64(len(l.Text)) > int64(len(data)) || !bytes.Equal(l.Text, data[l.Offset:l.Offset+int64(len(l.Text))]) {
						t.Fatalf("line %d at %d: %q is not the file's", l.Num, l.Offset, l.Text)
					}
					if l.Truncated != (len(l.Text) == opt.MaxLine && len(l.Text) < lineLen(data, l.Offset)) && !l.Partial {
						t.Fatalf("line %d: truncated %v, %d bytes of %d", l.Num, l.Truncated, len(l.Text), lineLen(data, l.Offset))
					}
					if l.Partial {
						// What was there when it was flushed: at least its text.
						end = l.Offset + int64(len(l.Text))
						if l.Truncated {
							end = l.Offset + int64(lineLen(data, l.Offset)) // its rest is skipped
						}
					} else {
						end = l.Offset + int64(lineLen(data, l.Offset)) + 1
					}
					num = l.Num
				}
			}
		}
		poll := func() {
			chunks, err := tl.Poll(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			check(chunks)
		}
		stopAt := rng.Intn(20)
		written := 0
		for i := 0; written < len(data) || i < 3; i++ {
			if n := min(len(data), written+rng.Intn(32)); n > written {
				appendFileBytes(t, p, data[written:n])
				written = n
			}
			clk.add(time.Duration(rng.Intn(1500)) * time.Millisecond)
			poll()
			if i == stopAt {
				pos := tl.Positions()
				tl.Close()
				if tl, err = New(opt); err != nil {
					t.Fatal(err)
				}
				if err := tl.Restore(pos); err != nil {
					t.Fatal(err)
				}
			}
		}
		for range 4 + len(data)/max(opt.MaxRead, 1) {
			clk.add(time.Hour)
			poll()
		}
		tl.Close()
		if end != int64(len(data)) {
			t.Fatalf("lines cover %d of %d bytes", end, len(data))
		}
	})
}

// lineLen returns the length of the line at off, without its newline, as
// the file holds it in the end.
func lineLen(data []byte, off int64) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return i
	}
	return len(data) - int(off)
}

func appendFileBytes(t *testing.T, p string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
