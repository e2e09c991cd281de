package redact

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// benchInput returns the plain .log files of a generated fleet bundle
// (scripts.RenderFleet: 3 SCMs, 4 OMs, 50 datanodes, 20 background events
// per host and minute, rotated and gzipped, one defect per 6-hour period)
// of OZDOCTOR_BENCH_MIB MiB (default 256), kept in OZDOCTOR_BENCH_DIR when
// set (bench/redact.sh) and generated when missing. Nothing is committed.
func benchInput(b *testing.B) (files []string, size int64) {
	b.Helper()
	mib := int64(256)
	if v := os.Getenv("OZDOCTOR_BENCH_MIB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("OZDOCTOR_BENCH_MIB: %v", err)
		}
		mib = n
	}
	dir := os.Getenv("OZDOCTOR_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	var all int64
	list := func() {
		files, size, all = nil, 0, 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			all += fi.Size()
			if strings.HasSuffix(p, ".log") {
				files = append(files, p)
				size += fi.Size()
			}
			return nil
		})
	}
	list()
	if all < mib<<20 {
		f := scripts.Fleet{Datanodes: 50, Periods: 1 << 16, Period: 6 * time.Hour, Noise: 20, Seed: 1, Bytes: mib << 20}
		if err := scripts.RenderFleet(dir, f); err != nil {
			b.Fatal(err)
		}
		list()
	}
	return files, size
}

func benchRedact(b *testing.B, gz bool) {
	files, size := benchInput(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	for range b.N {
		r := New(NewMap(), Options{})
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			var out io.Writer = io.Discard
			if gz {
				zw.Reset(io.Discard)
				out = zw
			}
			if _, err := r.Stream(out, f); err != nil {
				b.Fatal(err)
			}
			if gz {
				zw.Close()
			}
			f.Close()
		}
	}
}

// BenchmarkRedactText: the redaction of the fleet's text, its output
// discarded.
func BenchmarkRedactText(b *testing.B) { benchRedact(b, false) }

// BenchmarkRedactTextGzip: the same, written gzipped (gzip.BestSpeed, as
// ozdoctor redact writes .gz files and archives).
func BenchmarkRedactTextGzip(b *testing.B) { benchRedact(b, true) }

// BenchmarkGzipOnly: gzip.BestSpeed alone on the same text, for what the
// compression of the output takes.
func BenchmarkGzipOnly(b *testing.B) {
	files, size := benchInput(b)
	b.SetBytes(size)
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	buf := make([]byte, 256<<10)
	b.ResetTimer()
	for range b.N {
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			zw.Reset(io.Discard)
			io.CopyBuffer(zw, f, buf)
			zw.Close()
			f.Close()
		}
	}
}
