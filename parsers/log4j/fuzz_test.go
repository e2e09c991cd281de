package log4j

import (
	"bytes"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// FuzzScanner feeds arbitrary bytes to the scanner: it must not panic, must
// count every physical line exactly once, and must return exactly the
// records its filter accepted. mode picks the options: bits 0-1 the file
// kind, bit 2 small line and record limits, bit 3 a filter that rejects
// every other record, bit 4 gaps, bit 5 a zone with daylight saving, bit 6 a
// 16-byte read buffer.
// The seed corpus is testdata/fuzz/FuzzScanner.
func FuzzScanner(f *testing.F) {
	f.Add([]byte(staleLine("2026-08-23 10:20:10.416")), uint8(0))
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	f.Add([]byte("scm_1  | "+first+"scm_1  | "+stack), uint8(4))
	f.Add([]byte("2026-08-23T10:20:10.1Z stdout P "+first[:20]+"\n2026-08-23T10:20:10.1Z stdout F "+first[20:]+
		"2026-08-23T10:20:10.2Z stderr P \tat x"), uint8(0))
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		f.Fatal(err)
	}
	kinds := [...]parsers.Kind{parsers.KindLog, parsers.KindOut, parsers.KindAudit, parsers.KindContainer}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := Options{Kind: kinds[mode&3]}
		if mode&4 != 0 {
			opt.MaxLineBytes, opt.MaxRecordBytes = 64, 100
		}
		calls := 0
		opt.Candidate = func(_, _ []byte) bool {
			calls++
			return mode&8 == 0 || calls%2 == 0
		}
		if mode&16 != 0 {
			opt.GapThreshold = time.Second
		}
		if mode&32 != 0 {
			opt.Location = ny
		}
		maxRecord := opt.MaxRecordBytes
		if maxRecord == 0 {
			maxRecord = defaultMaxRecord
		}
		size := 4096 // any size works; small ones keep executions cheap
		if mode&64 != 0 {
			size = 16 // lines longer than the buffer take the readLong path
		}
		s := newScannerSize(bytes.NewReader(data), opt, size)
		var returned int64
		lastLine := map[string]int{}
		for s.Next() {
			returned++
			r := s.Record()
			if r.Line < 1 || r.Line <= lastLine[r.Service] {
				t.Fatalf("record line %d after %d in stream %q", r.Line, lastLine[r.Service], r.Service)
			}
			lastLine[r.Service] = r.Line
			if len(r.Message) > maxRecord {
				t.Fatalf("message of %d bytes", len(r.Message))
			}
		}
		if s.Err() != nil {
			t.Fatalf("Err on an in-memory reader: %v", s.Err())
		}
		st := s.Stats()
		lines := int64(bytes.Count(data, []byte{'\n'}))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		switch {
		case st.Lines != lines:
			t.Fatalf("Lines = %d, want %d", st.Lines, lines)
		case st.Records+st.Continuations+st.Unparsed != st.Lines:
			t.Fatalf("records %d + continuations %d + unparsed %d != lines %d", st.Records, st.Continuations, st.Unparsed, st.Lines)
		case st.Records > st.Lines || st.Binary > st.Unparsed || st.Truncated > st.Lines:
			t.Fatalf("inconsistent stats %+v", st)
		case int64(calls) != st.Records:
			t.Fatalf("filter called %d times for %d records", calls, st.Records)
		case returned != st.Candidates || st.Candidates > st.Records:
			t.Fatalf("returned %d records, %d candidates, %d records", returned, st.Candidates, st.Records)
		case st.Last.Before(st.First):
			t.Fatalf("time range %v .. %v", st.First, st.Last)
		}
		for k := range lastLine {
			if int64(lastLine[k]) > st.Lines {
				t.Fatalf("record line %d beyond %d lines", lastLine[k], st.Lines)
			}
		}
	})
}
