package log4j

import (
	"bytes"
	"sync"
	"testing"
)

var benchCorpus = sync.OnceValue(func() []byte { return l1Corpus(32 << 20) })

// BenchmarkScan scans 32 MiB of generated L1 input. RejectAll measures the
// cost of lines the prefilter drops; Accept1pct keeps the T10 records (one in
// a hundred); AcceptAll builds every record.
func BenchmarkScan(b *testing.B) {
	data := benchCorpus()
	stale := []byte("moved to stale state")
	cases := []struct {
		name string
		cand func(logger, line []byte) bool
	}{
		{"RejectAll", func(_, _ []byte) bool { return false }},
		{"Accept1pct", func(_, l []byte) bool { return bytes.Contains(l, stale) }},
		{"AcceptAll", nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s := NewScanner(bytes.NewReader(data), Options{Candidate: c.cand})
				for s.Next() {
				}
				if s.Stats().Lines == 0 {
					b.Fatal("no lines")
				}
			}
		})
	}
}

// BenchmarkLineSplit is the floor: finding every newline of the same input
// with bytes.IndexByte, as grep -F must at least do.
func BenchmarkLineSplit(b *testing.B) {
	data := benchCorpus()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for rest := data; len(rest) > 0; n++ {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			rest = rest[i+1:]
		}
		if n == 0 {
			b.Fatal("no lines")
		}
	}
}

// BenchmarkScanCompose scans the same records as a docker compose v1 capture
// of four interleaved services (layout L2 behind "scm_1       | " prefixes).
func BenchmarkScanCompose(b *testing.B) {
	src := benchCorpus()
	prefixes := []string{"scm_1       | ", "om_1        | ", "datanode_1  | ", "datanode_2  | "}
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/8)
	p, rec := prefixes[0], 0
	for rest := src; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		line := rest[:i+1]
		rest = rest[i+1:]
		if line[0] == '2' { // a record's first line: next service
			rec++
			p = prefixes[rec%len(prefixes)]
		}
		buf.WriteString(p)
		buf.Write(line)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewScanner(bytes.NewReader(data), Options{Candidate: func(_, _ []byte) bool { return false }})
		for s.Next() {
		}
		if st := s.Stats(); st.Layout != "L1" || len(st.Services) != 4 {
			b.Fatalf("stats %+v", st)
		}
	}
}

// BenchmarkScanCRI scans the same records as a Kubernetes CRI log file
// (/var/log/pods/.../N.log): every line behind "<RFC3339Nano> stdout F ".
func BenchmarkScanCRI(b *testing.B) {
	src := benchCorpus()
	const prefix = "2026-08-23T10:00:00.123456789Z stdout F "
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/3)
	for rest := src; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		buf.WriteString(prefix)
		buf.Write(rest[:i+1])
		rest = rest[i+1:]
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewScanner(bytes.NewReader(data), Options{Candidate: func(_, _ []byte) bool { return false }})
		for s.Next() {
		}
		if st := s.Stats(); st.Layout != "L1" || st.Unparsed != 0 {
			b.Fatalf("stats %+v", st)
		}
	}
}
