package tail

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
)

// generation renders one file's worth of L1 records, one in five with a
// stack trace.
func generation(rng *rand.Rand, g, records int) []byte {
	var b bytes.Buffer
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC).Add(time.Duration(g) * time.Hour)
	for i := range records {
		ts := t0.Add(time.Duration(i) * time.Second).Format("2006-01-02 15:04:05,000")
		fmt.Fprintf(&b, "%s [dn-%d] ERROR org.apache.hadoop.ozone.X: record %d of generation %d\n", ts, i%3, i, g)
		if rng.Intn(5) == 0 {
			b.WriteString("java.io.IOException: boom\n\tat org.apache.X.y(X.java:1)\n\t... 3 more\n")
		}
	}
	return b.Bytes()
}

// The way the daemon consumes the tailer: every stream's lines go to its
// own fed log4j scanner. Written in random pieces (records cut anywhere,
// stack traces in later polls than their first line) and rotated by
// rename and copytruncate, the files give the records a batch scan of each
// file generation gives.
func TestFeedsLog4jScanners(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ozone-dn.log")
	rng := rand.New(rand.NewSource(7))
	clk := newClock()
	tl, err := New(Options{Globs: []string{p}, Linger: -1, IdleFlush: time.Hour, MaxRead: 4096, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	var want, got []parsers.Record
	scanners := map[string]*log4j.Scanner{}
	var order []string
	drain := func(sc *log4j.Scanner) {
		for sc.Next() {
			got = append(got, *sc.Record())
		}
	}
	poll := func() {
		chunks, err := tl.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			sc := scanners[c.Stream]
			if sc == nil {
				sc = log4j.NewFeeder(log4j.Options{LineOffset: c.Lines[0].Num - 1, ByteOffset: c.Lines[0].Offset})
				scanners[c.Stream] = sc
				order = append(order, c.Stream)
			}
			for _, l := range c.Lines {
				sc.FeedLine(l.Text)
			}
			if c.End {
				sc.End()
			}
			drain(sc)
		}
	}
	write := func(data []byte) {
		for len(data) > 0 {
			n := min(len(data), 1+rng.Intn(700))
			appendFileBytes(t, p, data[:n])
			data = data[n:]
			poll()
		}
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for g := range 6 {
		data := generation(rng, g, 200)
		recs, _ := batch(data)
		want = append(want, recs...)
		write(data)
		for range 3 {
			poll()
		}
		if g%2 == 0 {
			if err := os.Rename(p, fmt.Sprintf("%s.%d", p, g)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			copyFile(t, p, fmt.Sprintf("%s.%d", p, g), false)
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			poll()
		}
	}
	// The last generation's open record ends at the idle timeout.
	for _, s := range order {
		scanners[s].Flush()
		drain(scanners[s])
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("record %d:\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
}

func batch(data []byte) ([]parsers.Record, log4j.Stats) {
	sc := log4j.NewScanner(bytes.NewReader(data), log4j.Options{})
	var out []parsers.Record
	for sc.Next() {
		out = append(out, *sc.Record())
	}
	return out, sc.Stats()
}

// A restart from a checkpoint taken while a record was open: the position
// checkpointed is that of the record's first line (log4j OpenLine), so the
// restarted tailer reads the record again whole and no record is lost or
// repeated.
func TestRestartInsideRecord(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ozone-om.log")
	rng := rand.New(rand.NewSource(3))
	data := generation(rng, 0, 300)
	want, _ := batch(data)
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []parsers.Record
	opt := Options{Globs: []string{p}, Linger: -1, IdleFlush: time.Hour, MaxRead: 1000}
	written := 0
	var saved []parsers.Position
	restarts := 0
	for ; ; restarts++ {
		tl, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		if restarts > 0 {
			if err := tl.Restore(saved); err != nil {
				t.Fatal(err)
			}
		}
		var sc *log4j.Scanner
		offsets := map[int]int64{} // line number → offset, of the lines fed
		for polls := 0; polls < 1+rng.Intn(30); polls++ {
			if written < len(data) {
				n := min(len(data), written+1+rng.Intn(500))
				appendFileBytes(t, p, data[written:n])
				written = n
			}
			chunks, err := tl.Poll(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				if sc == nil {
					sc = log4j.NewFeeder(log4j.Options{LineOffset: c.Lines[0].Num - 1, ByteOffset: c.Lines[0].Offset})
				}
				for _, l := range c.Lines {
					offsets[l.Num] = l.Offset
					sc.FeedLine(l.Text)
				}
				for sc.Next() {
					got = append(got, *sc.Record())
				}
			}
		}
		pos := tl.Positions()
		if written == len(data) && pos[0].Offset == int64(len(data)) && sc != nil {
			sc.Flush() // the idle timeout ends the last record
			for sc.Next() {
				got = append(got, *sc.Record())
			}
			tl.Close()
			break
		}
		if sc != nil && sc.OpenLine() > 0 {
			pos[0].Line, pos[0].Offset = sc.OpenLine()-1, offsets[sc.OpenLine()]
		}
		tl.Close()
		saved = pos
		if restarts > 1000 {
			t.Fatal("no end")
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	t.Logf("%d records in %d restarts", len(got), restarts)
}
