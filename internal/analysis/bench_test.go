package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
)

// The benchmarks read a generated bundle of OZDOCTOR_BENCH_MIB MiB (default
// 1024) in the tarball layout, of one of four kinds (OZDOCTOR_BENCH_INPUT):
//
//	fleet   (default) a production-sized cluster (3 SCMs, 4 OMs, 50
//	        datanodes) over as many 6-hour periods as the size takes, 20
//	        background events per host and minute, every host's logs its
//	        own, rotated and gzipped, one of the five defects in each period
//	        (scripts.RenderFleet)
//	dense   the sample's cluster (3 SCMs, 4 OMs, 6 datanodes) over as many
//	        3-hour periods as the size takes, each with all five defects
//	        and 4 background events per host and minute (a signal every
//	        3 KB, as in the sample), time advancing, rotated and gzipped:
//	        the signal-dense case with every period's logs its own
//	day     the sample's 13-host cluster over 24 hours at 20 background
//	        events per host and minute, repeated until the size is reached
//	sample  the shipped sample (three hours, all five defects) repeated, its
//	        copies sharing hosts and times: the former signal-dense input
//
// With OZDOCTOR_BENCH_DIR the bundle is kept there (and reused), so that a
// whole run, grep, ripgrep and mtail can be compared on the same files
// (bench/compare.sh). The hot-path benchmark reads its plain .log files.
func benchBundle(b *testing.B) (dir string, files []string, size int64) {
	b.Helper()
	mib := int64(1024)
	if v := os.Getenv("OZDOCTOR_BENCH_MIB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("OZDOCTOR_BENCH_MIB: %v", err)
		}
		mib = n
	}
	dir = os.Getenv("OZDOCTOR_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	want := mib << 20
	files, size = listFiles(dir, ".log")
	input := os.Getenv("OZDOCTOR_BENCH_INPUT")
	if input == "" || input == "fleet" || input == "dense" {
		f := scripts.Fleet{Datanodes: 50, Periods: 1 << 16, Period: 6 * time.Hour, Noise: 20, Seed: 1, Bytes: want}
		if input == "dense" {
			f = scripts.Fleet{Datanodes: 6, Periods: 1 << 16, Period: 3 * time.Hour, Noise: 4, Seed: 1, Bytes: want, EveryDefect: true}
		}
		if _, all := listFiles(dir, ""); all < want {
			if err := scripts.RenderFleet(dir, f); err != nil {
				b.Fatal(err)
			}
			files, size = listFiles(dir, ".log")
		}
		return dir, files, size
	}
	if size >= want {
		return dir, files, size
	}
	var s *scenario.Scenario
	var r scenario.Render
	switch input {
	case "day":
		s, r = scripts.Cluster13(24*time.Hour, 20)
	case "sample":
		s, r = scripts.Sample()
	default:
		b.Fatalf("OZDOCTOR_BENCH_INPUT=%q: want fleet, dense, day or sample", input)
	}
	src := b.TempDir()
	r.Rotate, r.Gzip = false, false
	if err := s.Render(src, r); err != nil {
		b.Fatal(err)
	}
	var chunks [][]byte
	srcFiles, _ := listFiles(src, ".log")
	for _, f := range srcFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		chunks = append(chunks, data)
	}
	for copyN := 0; size < want; copyN++ {
		for i, data := range chunks {
			name := filepath.Join(dir, fmt.Sprintf("copy%04d", copyN), filepath.Base(srcFiles[i]))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(name, data, 0o644); err != nil {
				b.Fatal(err)
			}
			size += int64(len(data))
		}
	}
	files, size = listFiles(dir, ".log")
	return dir, files, size
}

// listFiles returns the files under dir whose name ends in ext ("" for
// all) and their bytes.
func listFiles(dir, ext string) ([]string, int64) {
	var files []string
	var size int64
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && strings.HasSuffix(p, ext) {
			files = append(files, p)
			size += info.Size()
		}
		return nil
	})
	return files, size
}

// BenchmarkRecordsSignals measures the hot path on one goroutine: layout
// detection, folding, the literal prefilter, field decoding of candidates and
// the catalogue's regular expressions, over every file of the bundle. The
// catalogue is a run's: the built-in entries and the signatures' own.
func BenchmarkRecordsSignals(b *testing.B) {
	_, files, size := benchBundle(b)
	entries := catalogue.Default()
	for _, r := range registry.All() {
		entries = append(entries, r.Entries...)
	}
	cat, err := catalogue.New(entries...)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	var records, signals int64
	var ms0, ms1 runtime.MemStats
	var sc *log4j.Scanner
	// As the recognizer does: a Filter per scanner, one slice of signals reused.
	var sigs []catalogue.Signal
	opt := log4j.Options{Candidate: cat.Filter().Candidate, Kind: parsers.KindLog}
	runtime.ReadMemStats(&ms0)
	for i := 0; i < b.N; i++ {
		records, signals = 0, 0
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			if sc == nil {
				sc = log4j.NewScanner(fh, opt)
			} else {
				sc.Reset(fh, opt)
			}
			for sc.Next() {
				sigs = cat.AppendMatches(sigs[:0], sc.Record())
				signals += int64(len(sigs))
			}
			records += sc.Stats().Records
			fh.Close()
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(records), "records/op")
	b.ReportMetric(float64(signals), "signals/op")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(records)/float64(b.N), "allocs/record")
}

// BenchmarkAnalyze measures a whole analysis (walk, scan, match, merge,
// detectors) of the same bundle.
func BenchmarkAnalyze(b *testing.B) {
	dir, _, size := benchBundle(b)
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Options{Inputs: []string{dir}, Detectors: registry.All()})
		if err != nil {
			b.Fatal(err)
		}
		if res.Findings.Len() == 0 {
			b.Fatal("no findings in the benchmark bundle")
		}
	}
}

// TestDenseFleet: the signal-dense benchmark input has each of the five
// defects in every period, where the sample has it, and a signal every few
// kilobytes.
func TestDenseFleet(t *testing.T) {
	dir := t.TempDir()
	f := scripts.Fleet{Datanodes: 6, Periods: 2, Period: 3 * time.Hour, Noise: 4, Seed: 3, EveryDefect: true}
	if err := scripts.RenderFleet(dir, f); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Inputs: []string{dir}, Detectors: registry.All()})
	if err != nil {
		t.Fatal(err)
	}
	periods := map[string]int{}
	for _, f := range res.Findings.Slice() {
		periods[f.Defect+" "+f.Start.Truncate(3*time.Hour).Format("15:04")]++
	}
	for _, defect := range []string{"HDDS-17519", "HDDS-17425", "HDDS-17674", "HDDS-16839", "HDDS-16809", "dn-volume-failure", "out-of-space", "long-jvm-pause"} {
		for _, period := range []string{"00:00", "03:00"} {
			if periods[defect+" "+period] != 1 {
				t.Errorf("%s in the period from %s: %d findings, want 1", defect, period, periods[defect+" "+period])
			}
		}
	}
	if tot := res.Coverage.Totals; res.Findings.Len() != 16 || tot.Signals == 0 || tot.Bytes/tot.Signals > 8<<10 {
		t.Errorf("%d findings, %d signals in %d bytes: want 16 findings and a signal every 8 KB or less", res.Findings.Len(), tot.Signals, tot.Bytes)
	}
}
