package catalogue

import (
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
)

// historicRecords returns the records of every historic rendering, parsed
// as the scanner hands them on.
func historicRecords(tb testing.TB, c *Catalogue) []parsers.Record {
	var recs []parsers.Record
	for _, tc := range historicCases() {
		sc := log4j.NewScanner(strings.NewReader(tc.log), log4j.Options{Candidate: c.Candidate, Kind: tc.file})
		for sc.Next() {
			r := *sc.Record()
			r.Host, r.Component = "host.example.com", tc.comp
			recs = append(recs, r)
		}
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	return recs
}

// BenchmarkMatchHistoric matches every historic rendering of every entry:
// the work a record that names an entry costs, on every wording.
func BenchmarkMatchHistoric(b *testing.B) {
	c, err := New()
	if err != nil {
		b.Fatal(err)
	}
	recs := historicRecords(b, c)
	var out []Signal
	b.ReportAllocs()
	for b.Loop() {
		for i := range recs {
			out = c.AppendMatches(out[:0], &recs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}
