package bundle

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestHostileTarEntriesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "evil.tar.gz")
	writeFile(t, a, gz(t, tarBytes(t,
		entry{name: "../escape.log", body: "x\n"},
		entry{name: "logs/../../escape2.log", body: "x\n"},
		entry{name: "/etc/cron.d/evil", body: "x\n"},
		entry{name: `..\windows.log`, body: "x\n"},
		entry{name: "link.log", typ: tar.TypeSymlink, link: "/etc/passwd"},
		entry{name: "hard.log", typ: tar.TypeLink, link: "good.log"},
		entry{name: "fifo", typ: tar.TypeFifo},
		entry{name: "good.log", body: "good\n"},
	)))
	r := walk(t, Options{}, a)
	r.wantContent(t, a+"!/good.log", "good\n")
	if len(r.order) != 1 {
		t.Errorf("delivered %v, want only good.log", r.order)
	}
	r.wantProblem(t, a+"!/../escape.log", `".." in its path`)
	r.wantProblem(t, a+"!/logs/../../escape2.log", `".." in its path`)
	r.wantProblem(t, a+"!//etc/cron.d/evil", "absolute path")
	r.wantProblem(t, a+`!/..\windows.log`, `".." in its path`)
	r.wantProblem(t, a+"!/link.log", "symbolic link entry")
	r.wantProblem(t, a+"!/hard.log", "hard link entry")
	r.wantProblem(t, a+"!/fifo", "not a regular file")
	if len(r.problems) != 7 {
		t.Errorf("%d problems, want 7: %v", len(r.problems), r.problems)
	}
}

func TestHostileZipEntriesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "evil.zip")
	writeFile(t, a, zipBytes(t,
		entry{name: "../escape.log", body: "x\n"},
		entry{name: "/abs.log", body: "x\n"},
		entry{name: `C:\Windows\evil.log`, body: "x\n"},
		entry{name: `a\..\..\evil.log`, body: "x\n"},
		entry{name: "link.log", body: "/etc/passwd", mode: fs.ModeSymlink | 0o777},
		entry{name: "good.log", body: "good\n"},
	))
	r := walk(t, Options{}, a)
	r.wantContent(t, a+"!/good.log", "good\n")
	if len(r.order) != 1 {
		t.Errorf("delivered %v, want only good.log", r.order)
	}
	r.wantProblem(t, a+"!/../escape.log", `".." in its path`)
	r.wantProblem(t, a+"!//abs.log", "absolute path")
	r.wantProblem(t, a+`!/C:\Windows\evil.log`, "absolute path")
	r.wantProblem(t, a+`!/a\..\..\evil.log`, `".." in its path`)
	r.wantProblem(t, a+"!/link.log", "symbolic link entry")
	if len(r.problems) != 5 {
		t.Errorf("%d problems, want 5: %v", len(r.problems), r.problems)
	}
}

func TestDirectorySymlinks(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "secret.log"), []byte("secret\n"))
	root := filepath.Join(base, "bundle")
	writeFile(t, filepath.Join(root, "scm1", "a.log"), []byte("a\n"))
	links := map[string]string{
		"to-outside-dir":  outside,
		"to-outside-file": filepath.Join(outside, "secret.log"),
		"to-inside-file":  filepath.Join(root, "scm1", "a.log"),
		"to-inside-dir":   filepath.Join(root, "scm1"),
		"loop":            root,
		"relative-escape": "../outside/secret.log",
		"broken":          filepath.Join(base, "nothing-here"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := walk(t, Options{}, root)
	// Links inside the input are not followed: their targets are read at their own place, once.
	if len(r.order) != 1 {
		t.Errorf("delivered %v, want only scm1/a.log", r.order)
	}
	r.wantContent(t, filepath.Join(root, "scm1", "a.log"), "a\n")
	r.wantProblem(t, filepath.Join(root, "to-outside-dir"), "outside the input")
	r.wantProblem(t, filepath.Join(root, "to-outside-file"), "outside the input")
	r.wantProblem(t, filepath.Join(root, "relative-escape"), "outside the input")
	r.wantProblem(t, filepath.Join(root, "broken"), "broken symbolic link")
	if len(r.problems) != 4 {
		t.Errorf("%d problems, want 4: %v", len(r.problems), r.problems)
	}

	// A link named as an input is followed: the user chose it.
	r = walk(t, Options{}, filepath.Join(root, "to-outside-dir"))
	r.wantNoProblems(t)
	r.wantContent(t, filepath.Join(root, "to-outside-dir", "secret.log"), "secret\n")
}

// A walk reuses its gzip decompressors from file to file: each file reads
// as if alone, whether the one before was whole, cut short, not gzip past
// its magic bytes, or of two members.
func TestGzipDecompressorsAreReused(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat(scmLine, 100<<10/len(scmLine)+1)
	whole := gz(t, []byte(text))
	files := []struct {
		name    string
		data    []byte
		want    string // what it delivers, when it has no problem
		problem string // what is reported of it
	}{
		{"a.log.gz", whole, text, ""},
		{"b.log.gz", whole[:len(whole)/3], "", "truncated gzip: unexpected EOF"},
		{"c.log.gz", append([]byte{0x1f, 0x8b}, "not gzip past its magic"...), "", "gzip"},
		{"d.log.gz", gz(t, []byte("d\n")), "d\n", ""},
		{"e.log.gz", append(gz(t, []byte("e1\n")), gz(t, []byte("e2\n"))...), "e1\ne2\n", ""},
		{"f.log.gz", whole, text, ""},
	}
	for _, f := range files {
		writeFile(t, filepath.Join(dir, f.name), f.data)
	}
	r := walk(t, Options{}, dir)
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if f.problem != "" {
			r.wantProblem(t, p, f.problem)
			continue
		}
		r.wantContent(t, p, f.want)
	}
	if len(r.problems) != 2 {
		t.Errorf("problems = %v, want two", r.problems)
	}
}

func TestTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat(scmLine, 200<<10/len(scmLine)+1)
	full := gz(t, []byte(text))
	cut := filepath.Join(dir, "ozone-hadoop-scm-scm1.log.1.gz")
	writeFile(t, cut, full[:len(full)/2])
	r := walk(t, Options{}, cut)
	r.wantProblem(t, cut, "truncated gzip: unexpected EOF")
	got := r.content[cut]
	if len(got) < 1<<10 || !strings.HasPrefix(text, got) {
		t.Errorf("delivered %d bytes of the truncated file, want a non-empty prefix of the original", len(got))
	}
	if len(r.problems) != 1 {
		t.Errorf("problems = %v, want one", r.problems)
	}

	// Inside a tar.gz cut in the middle of an entry: the entry is reported
	// once, the entries before it are delivered.
	tgz := gz(t, tarBytes(t, entry{name: "first.log", body: "first\n"}, entry{name: "second.log", body: text}))
	a := filepath.Join(dir, "cut.tgz")
	writeFile(t, a, tgz[:len(tgz)*2/3])
	r = walk(t, Options{}, a)
	r.wantContent(t, a+"!/first.log", "first\n")
	r.wantProblem(t, a+"!/second.log", "truncated gzip")
	if len(r.problems) != 1 {
		t.Errorf("problems = %v, want one", r.problems)
	}

	// A plain tar cut in the middle of an entry.
	tr := tarBytes(t, entry{name: "first.log", body: "first\n"}, entry{name: "second.log", body: text})
	p := filepath.Join(dir, "cut.tar")
	writeFile(t, p, tr[:len(tr)/2])
	r = walk(t, Options{}, p)
	r.wantContent(t, p+"!/first.log", "first\n")
	r.wantProblem(t, p+"!/second.log", "truncated tar archive")
	if len(r.problems) != 1 {
		t.Errorf("problems = %v, want one", r.problems)
	}

	// A corrupt checksum.
	bad := append([]byte(nil), full...)
	bad[len(bad)-8] ^= 0xff
	p = filepath.Join(dir, "badcrc.log.gz")
	writeFile(t, p, bad)
	r = walk(t, Options{}, p)
	r.wantProblem(t, p, "checksum")
}

func zeros(n int) []byte { return make([]byte, n) }

func TestDecompressionBombs(t *testing.T) {
	dir := t.TempDir()
	// 16 MiB of one letter compress ~1000:1 (zeros would be refused as binary before any ratio check).
	fill := string(bytes.Repeat([]byte("A"), 16<<20))
	bomb := gz(t, []byte(fill))
	p := filepath.Join(dir, "bomb.log.gz")
	writeFile(t, p, bomb)
	r := walk(t, Options{}, p)
	r.wantProblem(t, p, "possible decompression bomb")
	if n := len(r.content[p]); n > 4<<20 {
		t.Errorf("bomb delivered %d bytes before stopping", n)
	}

	// The same inside a tar.gz: stopped at the ratio too.
	a := filepath.Join(dir, "bomb.tgz")
	writeFile(t, a, gz(t, tarBytes(t, entry{name: "z.log", body: fill})))
	r = walk(t, Options{}, a)
	r.wantProblem(t, a+"!/z.log", "possible decompression bomb")
	if len(r.problems) != 1 {
		t.Errorf("problems = %v, want one", r.problems)
	}

	// A zip member.
	z := filepath.Join(dir, "bomb.zip")
	writeFile(t, z, zipBytes(t, entry{name: "z.log", body: fill}, entry{name: "after.log", body: "after\n"}))
	r = walk(t, Options{}, z)
	r.wantProblem(t, z+"!/z.log", "possible decompression bomb")
	r.wantContent(t, z+"!/after.log", "after\n") // the next member is still read

	// A raised ratio lets the same file through, up to MaxFileBytes.
	r = walk(t, Options{MaxRatio: 1 << 20, MaxFileBytes: 5 << 20}, p)
	if n := len(r.content[p]); n != 5<<20 {
		t.Errorf("delivered %d bytes, want the 5 MiB cap", n)
	}
	r.wantProblem(t, p, "per-file limit of 5.0 MiB")

	// Near miss: log text is read whole. (The same line repeated would
	// compress beyond 200:1; real lines differ in time, ids and numbers.)
	text := logText(8 << 20)
	p = filepath.Join(dir, "big.log.gz")
	compressed := gz(t, text)
	writeFile(t, p, compressed)
	r = walk(t, Options{}, p)
	r.wantNoProblems(t)
	if len(r.content[p]) != len(text) {
		t.Errorf("delivered %d of %d bytes (ratio %d)", len(r.content[p]), len(text), len(text)/len(compressed))
	}
}

// logText renders n bytes of SCM log lines that vary the way real ones do.
func logText(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		// T10 StaleNodeHandler.java:51 (signatures-scm.md §1.3), layout L1
		fmt.Fprintf(&b, "2026-08-23 %02d:%02d:%02d,%03d [EventQueue-StaleNodeForStaleNodeHandler] INFO org.apache.hadoop.hdds.scm.node.StaleNodeHandler: Datanode %08x-6c1d-4d2f-9f5e-%012x(dn%d.example.com/10.0.%d.%d) moved to stale state. Finalizing its pipelines [PipelineID=%08x-2d7b-4c55-9f0e-%012x]\n",
			i/3600%24, i/60%60, i%60, rng.IntN(1000), rng.Uint32(), rng.Uint64()>>16, rng.IntN(300), rng.IntN(256), rng.IntN(256), rng.Uint32(), rng.Uint64()>>16)
	}
	return b.Bytes()[:n]
}

func TestSizeLimits(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.log"), bytes.Repeat([]byte("a"), 4096))
	writeFile(t, filepath.Join(dir, "b.log"), bytes.Repeat([]byte("b"), 4097))
	r := walk(t, Options{MaxFileBytes: 4096}, dir)
	if r.problem(filepath.Join(dir, "a.log")) != "" {
		t.Errorf("a file of exactly the limit was reported: %v", r.problems)
	}
	r.wantProblem(t, filepath.Join(dir, "b.log"), "per-file limit of 4.0 KiB")
	if len(r.content[filepath.Join(dir, "b.log")]) != 4096 {
		t.Errorf("cut file delivered %d bytes", len(r.content[filepath.Join(dir, "b.log")]))
	}

	// The total limit ends the walk.
	dir = t.TempDir()
	for _, n := range []string{"1.log", "2.log", "3.log"} {
		writeFile(t, filepath.Join(dir, n), bytes.Repeat([]byte("x"), 1000))
	}
	r = walk(t, Options{MaxTotalBytes: 1500}, dir)
	if len(r.order) != 2 || len(r.content[filepath.Join(dir, "2.log")]) != 500 {
		t.Errorf("delivered %v (%d bytes of 2.log)", r.order, len(r.content[filepath.Join(dir, "2.log")]))
	}
	r.wantProblem(t, filepath.Join(dir, "2.log"), "total read limit of 1.5 KiB")
	if len(r.problems) != 1 {
		t.Errorf("problems = %v", r.problems)
	}
	// In parallel, the file on disk that reaches it is read whole and
	// nothing after it joins, however many workers read ahead.
	for _, workers := range []int{1, 3} {
		r = walkParallel(t, Options{MaxTotalBytes: 1500}, workers, dir)
		if strings.Join(r.order, ",") != filepath.Join(dir, "1.log")+","+filepath.Join(dir, "2.log") ||
			len(r.content[filepath.Join(dir, "2.log")]) != 1000 {
			t.Errorf("%d workers: delivered %v (%d bytes of 2.log)", workers, r.order, len(r.content[filepath.Join(dir, "2.log")]))
		}
		r.wantProblem(t, filepath.Join(dir, "2.log"), "total read limit of 1.5 KiB")
		if len(r.problems) != 1 {
			t.Errorf("%d workers: problems = %v", workers, r.problems)
		}
	}
}

func TestBinaryAndUnsupportedFormats(t *testing.T) {
	dir := t.TempDir()
	files := map[string]struct {
		data []byte
		want string // problem text; "" = delivered
	}{
		"nul.log":          {append([]byte("2026-08-23 10:21:01,114 "), zeros(2000)...), "binary data"},
		"x.log.bz2":        {[]byte("BZh91AY&SY\x01\x02\x03garbage"), "bzip2"},
		"x.log.xz":         {[]byte("\xfd7zXZ\x00\x00\x04garbage"), "xz"},
		"x.7z":             {[]byte("7z\xbc\xaf\x27\x1c\x00\x04garbage"), "7z"},
		"x.log.zst":        {[]byte("\x28\xb5\x2f\xfdgarbage"), "zstd"},
		"ozone":            {[]byte("\x7fELF\x02\x01\x01garbage"), "ELF executable"},
		"heap.hprof":       {[]byte("JAVA PROFILE 1.0.2\x00\x00\x00\x08"), "Java heap dump"},
		"utf16.log":        {[]byte("\xff\xfe2\x000\x002\x006\x00"), "UTF-16"},
		"empty.log":        {nil, ""},
		"garbage.log":      {garbage(10000), ""},
		"bzh.log":          {[]byte("BZh is not bzip2 unless a block follows\n"), ""},
		"ozone-common.jar": {zipBytes(t, entry{name: "META-INF/MANIFEST.MF", body: "Manifest-Version: 1.0\n"}), "Java archive"},
	}
	for name, f := range files {
		writeFile(t, filepath.Join(dir, name), f.data)
	}
	r := walk(t, Options{}, dir)
	for name, f := range files {
		p := filepath.Join(dir, name)
		if f.want == "" {
			r.wantContent(t, p, string(f.data))
			if r.problem(p) != "" {
				t.Errorf("%s: unexpected problem %q", name, r.problem(p))
			}
			continue
		}
		r.wantProblem(t, p, f.want)
		if _, ok := r.content[p]; ok {
			t.Errorf("%s delivered", name)
		}
	}
}

// garbage is random bytes without NUL that start like no known format.
func garbage(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.IntN(255) + 1)
	}
	b[0] = 'x'
	return b
}

// Tests run as root, so a chmod 000 file is still readable. What is
// covered instead: a missing input, a broken symbolic link given as input,
// a named pipe (skipped without opening it, which would block), a
// directory named like a log file (walked as a directory), a file whose
// read fails with EIO (/proc/self/mem at offset 0), and, when not root,
// a chmod 000 file.
func TestUnreadableInputs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.log")
	writeFile(t, good, []byte("good\n"))
	missing := filepath.Join(dir, "missing.log")
	broken := filepath.Join(dir, "broken.log")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), broken); err != nil {
		t.Fatal(err)
	}
	fifoDir := filepath.Join(dir, "fifos")
	if err := os.MkdirAll(fifoDir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(fifoDir, "ozone-hadoop-scm-scm1.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	dirLikeFile := filepath.Join(dir, "ozone-hadoop-om-om1.log")
	writeFile(t, filepath.Join(dirLikeFile, "inner.log"), []byte("inner\n"))

	inputs := []string{missing, broken, fifo, fifoDir, dirLikeFile, good}
	const mem = "/proc/self/mem"
	if _, err := os.Stat(mem); err == nil {
		inputs = append(inputs, mem)
	}
	r := walk(t, Options{}, inputs...)
	r.wantProblem(t, missing, "input not found")
	r.wantProblem(t, broken, "input not found")
	r.wantProblem(t, fifo, "named pipe")
	r.wantContent(t, filepath.Join(dirLikeFile, "inner.log"), "inner\n")
	r.wantContent(t, good, "good\n")
	if len(inputs) == 7 {
		r.wantProblem(t, mem, "read error")
	}
	if want := len(inputs) - 3 + 1; len(r.problems) != want { // fifo twice: as input and inside fifoDir
		t.Errorf("%d problems, want %d: %v", len(r.problems), want, r.problems)
	}

	if os.Geteuid() != 0 {
		locked := filepath.Join(dir, "locked.log")
		writeFile(t, locked, []byte("x\n"))
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		r = walk(t, Options{}, locked)
		r.wantProblem(t, locked, "permission denied")
	}
}

func TestNestingDepthAndZipLimits(t *testing.T) {
	dir := t.TempDir()
	data := []byte("deep\n")
	for range maxDepth + 2 {
		data = gz(t, data)
	}
	p := filepath.Join(dir, "deep.gz")
	writeFile(t, p, data)
	r := walk(t, Options{}, p)
	r.wantProblem(t, p, "nested more than 10 archives deep")

	// A zip member with a compression method Go cannot read (bzip2 = 12).
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "x.log", Method: 12, CompressedSize64: 4, UncompressedSize64: 4})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("abcd"))
	zw.Close()
	z := filepath.Join(dir, "bz.zip")
	writeFile(t, z, b.Bytes())
	r = walk(t, Options{}, z)
	r.wantProblem(t, z+"!/x.log", "method 12 (bzip2)")

	// A corrupt zip.
	bad := filepath.Join(dir, "bad.zip")
	writeFile(t, bad, []byte("PK\x03\x04 but nothing else"))
	r = walk(t, Options{}, bad)
	r.wantProblem(t, bad, "unreadable zip archive")

	// A zip inside a tar that is larger than MaxFileBytes cannot be held in memory.
	inner := zipBytes(t, entry{name: "a.log", body: string(garbage(8000))})
	tr := filepath.Join(dir, "z.tar")
	writeFile(t, tr, tarBytes(t, entry{name: "in.zip", body: string(inner)}))
	r = walk(t, Options{MaxFileBytes: 4096}, tr)
	r.wantProblem(t, tr+"!/in.zip", "larger than 4.0 KiB")
}

func TestGzipHeaderGarbage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.log.gz")
	writeFile(t, p, []byte{0x1f, 0x8b, 0x00, 0x00, 0x01, 0x02})
	r := walk(t, Options{}, p)
	if got := r.problem(p); got == "" {
		t.Errorf("corrupt gzip header not reported")
	}

	// Trailing garbage after a complete member: the member is kept.
	p = filepath.Join(dir, "trail.log.gz")
	var b bytes.Buffer
	b.Write(gz(t, []byte("ok\n")))
	b.WriteString("not gzip at all")
	writeFile(t, p, b.Bytes())
	r = walk(t, Options{}, p)
	r.wantContent(t, p, "ok\n")
	r.wantProblem(t, p, "invalid gzip header")
}
