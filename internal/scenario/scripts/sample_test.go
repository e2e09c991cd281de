package scripts

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite examples/bundles/sample.tar.gz")

const samplePath = "../../../examples/bundles/sample.tar.gz"

// The shipped sample bundle is exactly what Sample renders (compared after
// decompression, so that a different gzip encoder does not matter).
func TestSampleBundle(t *testing.T) {
	s, r := Sample()
	var b bytes.Buffer
	if err := s.WriteTarGz(&b, r, "sample"); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll("../../../examples/bundles", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(samplePath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() > 2<<20 {
		t.Errorf("sample bundle is %d bytes; keep it under 2 MiB", b.Len())
	}
	committed, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/scenario/scripts -run TestSampleBundle -update)", err)
	}
	if !bytes.Equal(gunzip(t, committed), gunzip(t, b.Bytes())) {
		t.Error("examples/bundles/sample.tar.gz differs from what Sample renders; run go test ./internal/scenario/scripts -run TestSampleBundle -update")
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
