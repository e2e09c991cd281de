package es_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/esstandin"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/es"
)

// BenchmarkDocuments pages through the pushed-down query's documents with 1,
// 2 and 4 slices over an index generated at run time: the sample's
// 13-host cluster over OZDOCTOR_BENCH_ES_HOURS hours (default 12) with 100
// background lines per host and minute, one document per line (about 2
// million documents for 12 hours; the stand-in then needs some 13 GB).
// The stand-in evaluates the query once (warm-up) and keeps its hits, so
// the figures are ozdoctor's side: requests, transfer, JSON decoding and
// the merge of the slices, over loopback. It reports documents per second through the source and the
// bytes transferred against the bytes stored.
func BenchmarkDocuments(b *testing.B) {
	hours := 12
	if h, err := strconv.Atoi(os.Getenv("OZDOCTOR_BENCH_ES_HOURS")); err == nil && h > 0 {
		hours = h
	}
	s, r := scripts.Cluster13(time.Duration(hours)*time.Hour, 100)
	dir := b.TempDir()
	if err := s.Render(dir, r); err != nil {
		b.Fatal(err)
	}
	srv := esstandin.New()
	docs, err := esstandin.LoadBundle(srv, "filebeat-ozone", dir, nil, "prod1", false)
	if err != nil {
		b.Fatal(err)
	}
	stored := 0
	for _, d := range docs {
		j, _ := json.Marshal(d)
		stored += len(j)
	}
	docs = nil
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cat, _ := catalogue.New()
	lits := cat.LiteralEdges()
	for _, slices := range []int{1, 2, 4} {
		b.Run("slices="+strconv.Itoa(slices), func(b *testing.B) {
			cfg := ecsConfig(b, hs.URL)
			cfg.Slices, cfg.PageSize = slices, 5000
			run := func() es.Stats {
				src, err := es.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if err := src.Documents(context.Background(), lits, func(parsers.Document) error { return nil }); err != nil {
					b.Fatal(err)
				}
				return src.Stats()
			}
			run() // the stand-in evaluates and keeps the query's hits
			b.ResetTimer()
			var st es.Stats
			for range b.N {
				st = run()
			}
			b.StopTimer()
			b.ReportMetric(float64(st.Documents)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			b.ReportMetric(float64(st.Documents), "docs/op")
			b.ReportMetric(float64(len(srv.Docs("filebeat-ozone"))), "stored-docs")
			b.ReportMetric(100*float64(st.Bytes)/float64(stored), "%bytes-transferred")
		})
	}
}
