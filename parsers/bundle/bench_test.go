package bundle

import (
	"context"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkWalkTarGz measures reading a .tgz of four 8 MiB log files
// through Walk (decompression, tar, limits), the callback discarding bytes.
func BenchmarkWalkTarGz(b *testing.B) {
	text := string(logText(8 << 20))
	a := filepath.Join(b.TempDir(), "b.tgz")
	writeFile(b, a, gz(b, tarBytes(b,
		entry{name: "scm1/ozone-hadoop-scm-scm1.log", body: text},
		entry{name: "om1/ozone-hadoop-om-om1.log", body: text},
		entry{name: "dn1/ozone-hadoop-datanode-dn1.log", body: text},
		entry{name: "dn2/ozone-hadoop-datanode-dn2.log", body: text},
	)))
	b.SetBytes(4 * int64(len(text)))
	b.ResetTimer()
	for range b.N {
		problems, err := Walk(context.Background(), []string{a}, Options{}, func(f File, r io.Reader) error {
			_, err := io.Copy(io.Discard, r)
			return err
		})
		if err != nil || len(problems) != 0 {
			b.Fatal(err, problems)
		}
	}
}
