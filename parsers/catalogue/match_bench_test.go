package catalogue

import (
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// historicRecords returns the records of every historic rendering.
func historicRecords(tb testing.TB, c *Catalogue) []parsers.Record {
	var recs []parsers.Record
	for _, tc := range historicCases() {
		recs = append(recs, caseRecords(tb, c, tc)...)
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
