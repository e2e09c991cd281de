package tail

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPoll reads a 100 MB log file (lines of about 130 bytes) from
// its start to its end, poll after poll, as a tailer catching up does.
func BenchmarkPoll(b *testing.B) {
	p := filepath.Join(b.TempDir(), "ozone-scm.log")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var size int64
	for i := 0; size < 100<<20; i++ {
		n, _ := fmt.Fprintf(w, "2026-08-23 10:20:%02d,%03d [scm1-EventQueue-%d] INFO node.SCMNodeManager: Registered datanode %08d\n",
			i/1000%60, i%1000, i%7, i)
		size += int64(n)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for _, maxRead := range []int{1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("MaxRead=%dMiB", maxRead>>20), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				tl, err := New(Options{Globs: []string{p}, LookBack: -1, MaxRead: maxRead})
				if err != nil {
					b.Fatal(err)
				}
				lines := 0
				for {
					chunks, err := tl.Poll(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					for _, c := range chunks {
						lines += len(c.Lines)
					}
					if !tl.More() {
						break
					}
				}
				if tl.Stats().Bytes != size {
					b.Fatalf("read %d of %d bytes", tl.Stats().Bytes, size)
				}
				tl.Close()
			}
		})
	}
}
