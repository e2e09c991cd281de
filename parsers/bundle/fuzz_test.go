package bundle

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzWalk feeds arbitrary bytes to the walker as a file of each name kind:
// it must never panic or return an error, and whatever it delivers must fit
// the caps.
func FuzzWalk(f *testing.F) {
	var tgz bytes.Buffer
	zw := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "scm1/ozone-hadoop-scm-scm1.log", Mode: 0o644, Size: 5})
	tw.Write([]byte("hello"))
	tw.WriteHeader(&tar.Header{Name: "../evil", Mode: 0o644, Size: 1})
	tw.Write([]byte("x"))
	tw.Close()
	zw.Close()
	var zb bytes.Buffer
	zwr := zip.NewWriter(&zb)
	w, _ := zwr.Create("om1/ozone-hadoop-om-om1.log")
	w.Write([]byte("2026-08-23 10:00:00,000 [main] INFO a.B: x\n"))
	zwr.Close()
	tarball := tgz.Bytes()
	bz2, err := os.ReadFile(filepath.Join("testdata", "bundle.tar.bz2"))
	if err != nil {
		f.Fatal(err)
	}
	txz, tzst := xzBytes(f, tarball), zstdBytes(f, tarball)
	for _, seed := range [][]byte{tgz.Bytes(), zb.Bytes(), tgz.Bytes()[:tgz.Len()/2], []byte("plain text\n"), {0x1f, 0x8b}, {'P', 'K', 3, 4},
		txz, txz[:len(txz)/2], tzst, tzst[:len(tzst)/2], bz2, bz2[:len(bz2)/2]} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		names := []string{"bundle.tgz", "bundle.zip", "ozone-hadoop-scm-scm1.log.gz", "x.log"}
		dir := t.TempDir()
		p := filepath.Join(dir, names[int(kind)%len(names)])
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opt := Options{MaxFileBytes: 1 << 20, MaxRatio: 50, MaxTotalBytes: 4 << 20}
		var total int64
		_, err := Walk(context.Background(), []string{p}, opt, func(f File, r io.Reader) error {
			if strings.Contains(f.Path, "..") {
				t.Errorf("delivered an escaping path %q", f.Path)
			}
			n, _ := io.Copy(io.Discard, r)
			if n > opt.MaxFileBytes {
				t.Errorf("%s: %d bytes past the per-file cap", f.Path, n)
			}
			total += n
			return nil
		})
		if err != nil {
			t.Fatalf("Walk returned %v", err)
		}
		if total > opt.MaxTotalBytes {
			t.Errorf("%d bytes past the total cap", total)
		}
	})
}
