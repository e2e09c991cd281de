package log4j

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

func batchRecords(data []byte, opt Options) ([]parsers.Record, Stats) {
	s := NewScanner(bytes.NewReader(data), opt)
	var out []parsers.Record
	for s.Next() {
		out = append(out, *s.Record())
	}
	return out, s.Stats()
}

// fedRecords feeds data to a Feeder in chunks cut at random line ends
// (every line alone when perLine), draining Next after every chunk.
func fedRecords(data []byte, opt Options, rng *rand.Rand, perLine bool) ([]parsers.Record, Stats) {
	s := NewFeeder(opt)
	var out []parsers.Record
	drain := func() {
		for s.Next() {
			out = append(out, *s.Record())
		}
	}
	for rest := data; len(rest) > 0; {
		n := 0
		for k := 1 + rng.Intn(50); k > 0 && n < len(rest); k-- {
			i := bytes.IndexByte(rest[n:], '\n')
			if i < 0 {
				n = len(rest)
				break
			}
			n += i + 1
			if perLine {
				break
			}
		}
		if perLine {
			s.FeedLine(bytes.TrimSuffix(rest[:n], []byte{'\n'}))
		} else {
			s.Feed(rest[:n])
		}
		rest = rest[n:]
		drain()
	}
	s.End()
	drain()
	return out, s.Stats()
}

func feedInputs(t *testing.T) map[string][]byte {
	in := map[string][]byte{"l1": l1Corpus(2 << 20)}
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	var compose, cri bytes.Buffer
	for i := range 200 {
		compose.WriteString("scm_1  | " + first + "scm_1  | " + stack)
		compose.WriteString("om_1   | " + staleLine("2026-08-23 10:20:11.416"))
		_ = i
		cri.WriteString("2026-08-23T10:20:10.1Z stdout P " + first[:20] + "\n2026-08-23T10:20:10.1Z stdout F " + first[20:])
		cri.WriteString("2026-08-23T10:20:10.2Z stderr F " + stack)
	}
	in["compose"], in["cri"] = compose.Bytes(), cri.Bytes()
	in["stack"] = []byte(first + stack + staleLine("2026-08-23 10:20:12.000") + first + stack + "no newline at the end")
	files, _ := filepath.Glob("testdata/*.log")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in[filepath.Base(f)] = b
	}
	return in
}

// A fed scanner gives the records and figures of a batch scanner, however
// its input is cut at line ends.
func TestFeederMatchesBatch(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for name, data := range feedInputs(t) {
		for _, opt := range []Options{{}, {GapThreshold: time.Second}, {MaxLineBytes: 100, MaxRecordBytes: 300}} {
			want, wst := batchRecords(data, opt)
			for _, perLine := range []bool{false, true} {
				got, gst := fedRecords(data, opt, rng, perLine)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %+v perLine %v: %d records, want %d", name, opt, perLine, len(got), len(want))
				}
				if !reflect.DeepEqual(gst, wst) {
					t.Fatalf("%s %+v perLine %v: stats\n%+v\nwant\n%+v", name, opt, perLine, gst, wst)
				}
			}
		}
	}
}

// A record stays open across feeds until a line starts the next one, Flush
// ends it, and OpenLine says where it began.
func TestFeederFlushAndOpenLine(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	s := NewFeeder(Options{LineOffset: 100})
	s.Feed([]byte(staleLine("2026-08-23 10:20:10.416") + first))
	if !s.Next() || s.Record().Line != 101 {
		t.Fatalf("first record: %+v", s.Record())
	}
	if s.Next() {
		t.Fatal("open record returned before its end")
	}
	if s.OpenLine() != 102 {
		t.Fatalf("OpenLine %d", s.OpenLine())
	}
	s.Feed([]byte(stack))
	if s.Next() {
		t.Fatal("open record returned before its end")
	}
	s.Flush()
	if !s.Next() || s.Record().Line != 102 || !bytes.Contains([]byte(s.Record().Message), []byte("\tat ")) {
		t.Fatalf("flushed record: %+v", s.Record())
	}
	if s.Next() || s.OpenLine() != 0 {
		t.Fatal("more after the flush")
	}
	// The scanner reads on after a flush.
	s.Feed([]byte(staleLine("2026-08-23 10:20:11.000")))
	s.End()
	if !s.Next() || s.Record().Line != 102+countLines(stack)+1 || s.Next() {
		t.Fatalf("after flush: %+v", s.Record())
	}
	if st := s.Stats(); st.Records != 3 || st.Lines != int64(3+countLines(stack)) {
		t.Fatalf("stats %+v", st)
	}
}

func countLines(s string) int { return bytes.Count([]byte(s), []byte{'\n'}) }

// FuzzFeeder checks that feeding any input in any cut gives the batch result.
func FuzzFeeder(f *testing.F) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	f.Add([]byte(first+stack+staleLine("2026-08-23 10:20:10.416")), int64(1))
	f.Add([]byte("scm_1  | "+first+"scm_1  | "+stack), int64(2))
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		want, wst := batchRecords(data, Options{MaxLineBytes: 64, MaxRecordBytes: 100})
		got, gst := fedRecords(data, Options{MaxLineBytes: 64, MaxRecordBytes: 100}, rand.New(rand.NewSource(seed)), seed%2 == 0)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gst, wst) {
			t.Fatalf("fed %d records %+v, batch %d records %+v", len(got), gst, len(want), wst)
		}
	})
}
