package bundle

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWalkTarGz measures reading a .tgz of four 8 MiB log files
// through Walk (decompression, tar, limits), the callback discarding bytes.
// OZDOCTOR_BENCH_ARCHIVE names another archive to read instead:
// bench/compare.sh times its bundle's .tar.gz so, the least time any run
// over that one gzip stream can take.
func BenchmarkWalkTarGz(b *testing.B) {
	a := os.Getenv("OZDOCTOR_BENCH_ARCHIVE")
	given := a != "" // its problems (a "./" entry, say) are its own
	if !given {
		text := string(logText(8 << 20))
		a = filepath.Join(b.TempDir(), "b.tgz")
		writeFile(b, a, gz(b, tarBytes(b,
			entry{name: "scm1/ozone-hadoop-scm-scm1.log", body: text},
			entry{name: "om1/ozone-hadoop-om-om1.log", body: text},
			entry{name: "dn1/ozone-hadoop-datanode-dn1.log", body: text},
			entry{name: "dn2/ozone-hadoop-datanode-dn2.log", body: text},
		)))
	}
	b.ResetTimer()
	for range b.N {
		var n int64
		problems, err := Walk(context.Background(), []string{a}, Options{}, func(f File, r io.Reader) error {
			m, err := io.Copy(io.Discard, r)
			n += m
			return err
		})
		if err != nil || len(problems) != 0 && !given {
			b.Fatal(err, problems)
		}
		b.SetBytes(n)
	}
}
