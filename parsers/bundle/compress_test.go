package bundle

import (
	"bytes"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// compressor makes one format's stream in the test. bzip2 has no writer in
// Go: it uses the bzip2 command when present (the fixtures in testdata/
// cover bzip2 without it).
type compressor struct {
	format, ext string
	compress    func(t testing.TB, data []byte) []byte
}

func xzBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := xz.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func bzip2Bytes(t testing.TB, data []byte) []byte {
	t.Helper()
	cmd := exec.Command("bzip2", "-9", "-c")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bzip2: %v", err)
	}
	return out
}

func compressors(t *testing.T) []compressor {
	cs := []compressor{{"xz", ".xz", xzBytes}, {"zstd", ".zst", zstdBytes}}
	if _, err := exec.LookPath("bzip2"); err == nil {
		cs = append(cs, compressor{"bzip2", ".bz2", bzip2Bytes})
	} else {
		t.Log("bzip2 command not found: bzip2 is tested with the fixtures in testdata/ only")
	}
	return cs
}

func TestCompressedFormats(t *testing.T) {
	text := string(logText(300 << 10))
	for _, c := range compressors(t) {
		t.Run(c.format, func(t *testing.T) {
			dir := t.TempDir()
			// A single compressed log: the name loses its suffix for classification.
			p := filepath.Join(dir, "ozone-hadoop-scm-scm1.example.com.log.1"+c.ext)
			writeFile(t, p, c.compress(t, []byte(text)))
			// A tar inside the format, and the format inside a zip and a gzip.
			tp := filepath.Join(dir, "dn3-logs.tar"+c.ext)
			writeFile(t, tp, c.compress(t, tarBytes(t, entry{name: "first.log", body: "first\n"},
				entry{name: "ozone-hadoop-datanode-dn3.log", body: text})))
			zp := filepath.Join(dir, "support.zip")
			writeFile(t, zp, zipBytes(t, entry{name: "om1/ozone-hadoop-om-om1.log" + c.ext, body: string(c.compress(t, []byte(scmLine)))}))
			gp := filepath.Join(dir, "twice.log"+c.ext+".gz")
			writeFile(t, gp, gz(t, c.compress(t, []byte(auditLine))))
			// Concatenated streams are read on (pxz, pzstd, pbzip2 and cat write them).
			cp := filepath.Join(dir, "concat.log"+c.ext)
			writeFile(t, cp, append(c.compress(t, []byte("one\n")), c.compress(t, []byte("two\n"))...))

			r := walk(t, Options{}, dir)
			r.wantNoProblems(t)
			r.wantContent(t, p, text)
			if f := r.files[p]; f.Host != "scm1.example.com" || f.Component != "scm" {
				t.Errorf("classified %+v", f)
			}
			r.wantContent(t, tp+"!/first.log", "first\n")
			r.wantContent(t, tp+"!/ozone-hadoop-datanode-dn3.log", text)
			if f := r.files[tp+"!/first.log"]; f.Host != "dn3" {
				t.Errorf("archive name gave host %q, want dn3", f.Host)
			}
			r.wantContent(t, zp+"!/om1/ozone-hadoop-om-om1.log"+c.ext, scmLine)
			if f := r.files[zp+"!/om1/ozone-hadoop-om-om1.log"+c.ext]; f.Host != "om1" || f.Component != "om" {
				t.Errorf("zip member classified %+v", f)
			}
			r.wantContent(t, gp, auditLine)
			r.wantContent(t, cp, "one\ntwo\n")
		})
	}
}

func TestTruncatedCompressedStreams(t *testing.T) {
	// Larger than one unit of each format (an LZMA2 chunk holds up to 64 KiB
	// compressed, a bzip2 block 900 kB of input, a zstd block 128 KiB):
	// the units before the cut are delivered.
	text := string(logText(3 << 20))
	for _, c := range compressors(t) {
		t.Run(c.format, func(t *testing.T) {
			dir := t.TempDir()
			full := c.compress(t, []byte(text))
			p := filepath.Join(dir, "ozone-hadoop-scm-scm1.log.1"+c.ext)
			writeFile(t, p, full[:len(full)/2])
			after := filepath.Join(dir, "z-after.log")
			writeFile(t, after, []byte("after\n"))
			r := walk(t, Options{}, dir)
			r.wantProblem(t, p, "truncated "+c.format+": unexpected EOF")
			if got := r.content[p]; len(got) < 64<<10 || !strings.HasPrefix(text, got) {
				t.Errorf("delivered %d bytes, want a non-empty prefix of the original", len(got))
			}
			r.wantContent(t, after, "after\n") // the rest of the bundle goes on
			if len(r.problems) != 1 {
				t.Errorf("problems = %v, want one", r.problems)
			}

			// A tar inside the format cut in the middle of its second entry:
			// the first is delivered, the second reported once.
			tb := c.compress(t, tarBytes(t, entry{name: "first.log", body: "first\n"}, entry{name: "second.log", body: text}))
			a := filepath.Join(dir, "cut.tar"+c.ext)
			writeFile(t, a, tb[:len(tb)*2/3])
			r = walk(t, Options{}, a)
			r.wantContent(t, a+"!/first.log", "first\n")
			r.wantProblem(t, a+"!/second.log", "truncated "+c.format)
			if len(r.problems) != 1 {
				t.Errorf("problems = %v, want one", r.problems)
			}

			// Only the start of the header: the reader cannot even start.
			m := filepath.Join(dir, "header-only.log"+c.ext)
			writeFile(t, m, full[:12])
			r = walk(t, Options{}, m)
			if !strings.Contains(r.problem(m), c.format) {
				t.Errorf("problem for the bare header = %q, want it to name %s", r.problem(m), c.format)
			}
		})
	}
}

func TestCompressedBombs(t *testing.T) {
	fill := bytes.Repeat([]byte("A"), 16<<20)
	for _, c := range compressors(t) {
		t.Run(c.format, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "bomb.log"+c.ext)
			writeFile(t, p, c.compress(t, fill))
			r := walk(t, Options{}, p)
			r.wantProblem(t, p, "possible decompression bomb")
			if n := len(r.content[p]); n > 4<<20 {
				t.Errorf("bomb delivered %d bytes before stopping", n)
			}
			a := filepath.Join(dir, "bomb.tar"+c.ext)
			writeFile(t, a, c.compress(t, tarBytes(t, entry{name: "z.log", body: string(fill)})))
			r = walk(t, Options{}, a)
			r.wantProblem(t, a+"!/z.log", "possible decompression bomb")
			if len(r.problems) != 1 {
				t.Errorf("problems = %v, want one", r.problems)
			}
			// The per-file size cap applies as to any file.
			r = walk(t, Options{MaxRatio: 1 << 30, MaxFileBytes: 5 << 20}, p)
			if n := len(r.content[p]); n != 5<<20 {
				t.Errorf("delivered %d bytes, want the 5 MiB cap", n)
			}
			r.wantProblem(t, p, "per-file limit of 5.0 MiB")
		})
	}
}

// Formats nested in one another: a zip holding a .tar.xz that holds a
// .log.zst and a .tar.zst holding a .log.bz2 fixture.
func TestCompressedNesting(t *testing.T) {
	bz, err := os.ReadFile(filepath.Join("testdata", "ozone-hadoop-scm-scm1.log.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	inner := zstdBytes(t, tarBytes(t, entry{name: "scm1/ozone-hadoop-scm-scm1.log.bz2", body: string(bz)}))
	txz := xzBytes(t, tarBytes(t,
		entry{name: "dn3/ozone-hadoop-datanode-dn3.log.zst", body: string(zstdBytes(t, []byte(scmLine)))},
		entry{name: "more.tar.zst", body: string(inner)}))
	dir := t.TempDir()
	z := filepath.Join(dir, "sosreport.zip")
	writeFile(t, z, zipBytes(t, entry{name: "sosreport-host1.tar.xz", body: string(txz)}))
	r := walk(t, Options{}, z)
	r.wantNoProblems(t)
	a := z + "!/sosreport-host1.tar.xz"
	r.wantContent(t, a+"!/dn3/ozone-hadoop-datanode-dn3.log.zst", scmLine)
	r.wantContent(t, a+"!/more.tar.zst!/scm1/ozone-hadoop-scm-scm1.log.bz2", scmLine)
	if f := r.files[a+"!/dn3/ozone-hadoop-datanode-dn3.log.zst"]; f.Host != "dn3" || f.Component != "datanode" {
		t.Errorf("classified %+v", f)
	}
}

// The bzip2 fixtures were made with the bzip2 1.0.8 command (bzip2 -9):
// a log, a tar of two logs, and 16 MiB of "A" (45 bytes).
func TestBzip2Fixtures(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	logp := filepath.Join(dir, "ozone-hadoop-scm-scm1.log.bz2")
	tarp := filepath.Join(dir, "bundle.tar.bz2")
	bomb := filepath.Join(dir, "bomb.log.bz2")
	r := walk(t, Options{}, logp, tarp)
	r.wantNoProblems(t)
	r.wantContent(t, logp, scmLine)
	if f := r.files[logp]; f.Host != "scm1" || f.Component != "scm" {
		t.Errorf("classified %+v", f)
	}
	r.wantContent(t, tarp+"!/first.log", "first\n")
	r.wantContent(t, tarp+"!/scm1/ozone-hadoop-scm-scm1.log", scmLine)

	r = walk(t, Options{}, bomb)
	r.wantProblem(t, bomb, "possible decompression bomb")
	if n := len(r.content[bomb]); n > 4<<20 {
		t.Errorf("bomb delivered %d bytes before stopping", n)
	}

	// Truncated and corrupt copies.
	data, err := os.ReadFile(tarp)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cut := filepath.Join(tmp, "cut.tar.bz2")
	writeFile(t, cut, data[:len(data)-20])
	r = walk(t, Options{}, cut)
	if !strings.Contains(r.problem(cut), "bzip2") && !strings.Contains(r.problem(cut+"!/scm1/ozone-hadoop-scm-scm1.log"), "bzip2") {
		t.Errorf("truncated tar.bz2: problems %v", r.problems)
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0xff
	p := filepath.Join(tmp, "corrupt.tar.bz2")
	writeFile(t, p, bad)
	r = walk(t, Options{}, p)
	// Go's bzip2 checks a block's CRC after handing out its bytes: the
	// corrupt bytes may be refused first (as binary, not a tar), then the
	// checksum mismatch is reported.
	if r.problem(p) == "" || !strings.Contains(fmt4(r.problems), "bzip2 checksum mismatch") {
		t.Errorf("corrupt tar.bz2: problems %v", r.problems)
	}
}

// An xz stream whose block header asks for a dictionary above xz -9's is
// skipped before the reader allocates it; one at xz -9's is read.
func TestXZDictionaryCap(t *testing.T) {
	small := xzBytes(t, []byte(scmLine))
	if d, ok := xzDictSize(small); !ok || d != 8<<20 {
		t.Fatalf("dictionary of the writer's default stream = %d, %v; want 8 MiB", d, ok)
	}
	withDict := func(b byte) []byte {
		out := append([]byte(nil), small...)
		hdr := out[12:]
		hsize := (int(hdr[0]) + 1) * 4
		// The LZMA2 filter's property byte is the last byte before the
		// header's padding; find it after the filter ID 0x21 and size 1.
		i := bytes.Index(hdr[:hsize], []byte{0x21, 0x01})
		if i < 0 {
			t.Fatal("no LZMA2 filter in the block header")
		}
		hdr[i+2] = b
		crc := crc32.ChecksumIEEE(hdr[:hsize-4])
		hdr[hsize-4], hdr[hsize-3], hdr[hsize-2], hdr[hsize-1] = byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24)
		return out
	}
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge-dict.log.xz")
	writeFile(t, huge, withDict(40)) // 4 GiB - 1
	big := filepath.Join(dir, "big-dict.log.xz")
	writeFile(t, big, withDict(30)) // 128 MiB
	ok := filepath.Join(dir, "xz9.log.xz")
	writeFile(t, ok, withDict(28)) // 64 MiB, xz -9
	r := walk(t, Options{}, dir)
	r.wantProblem(t, huge, "dictionary skipped")
	r.wantProblem(t, big, "xz stream with a 128.0 MiB dictionary skipped")
	r.wantContent(t, ok, scmLine)
	if len(r.problems) != 2 {
		t.Errorf("problems = %v, want two", r.problems)
	}
	for b, want := range map[byte]int64{0: 4 << 10, 1: 6 << 10, 22: 8 << 20, 23: 12 << 20, 28: 64 << 20, 30: 128 << 20, 40: 1<<32 - 1} {
		if d, _ := xzDictSize(withDict(b)); d != want {
			t.Errorf("dictionary byte %d: %d, want %d", b, d, want)
		}
	}
}

// A corrupt block is an error in the format's own words, the part before it
// delivered.
func TestCorruptCompressedStreams(t *testing.T) {
	text := logText(300 << 10)
	for _, c := range compressors(t) {
		t.Run(c.format, func(t *testing.T) {
			full := c.compress(t, text)
			bad := append([]byte(nil), full...)
			bad[len(bad)-6] ^= 0x55 // in the last block or the checksum
			p := filepath.Join(t.TempDir(), "corrupt.log"+c.ext)
			writeFile(t, p, bad)
			r := walk(t, Options{}, p)
			if got := r.problem(p); !strings.Contains(got, c.format) {
				t.Errorf("problem %q, want it to name %s (all: %v)", got, c.format, r.problems)
			}
		})
	}
}

func fmt4(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}
