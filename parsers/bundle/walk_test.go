package bundle

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
)

// Log lines used as file content.
const (
	// T10 StaleNodeHandler.java:51 (signatures-scm.md §1.3), layout L1
	scmLine = "2026-08-23 10:21:01,114 [EventQueue-StaleNodeForStaleNodeHandler] INFO org.apache.hadoop.hdds.scm.node.StaleNodeHandler: Datanode 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(dn3.example.com/10.0.0.13) moved to stale state. Finalizing its pipelines [PipelineID=6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9]\n"
	// SCMAudit SEND_HEARTBEAT (signatures-scm.md §4.2), layout L7
	auditLine = `2026-08-23 10:21:01,114 | INFO  | SCMAudit | user=dn | ip=10.0.0.11 | op=SEND_HEARTBEAT {"datanodeUUID":"3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f","command":"[]","term":"7"} | ret=SUCCESS |  ` + "\n"
	// signatures-scm.md §5.3
	promText = "# TYPE scm_node_manager_in_service_stale_nodes gauge\nscm_node_manager_in_service_stale_nodes{context=\"ozone\",hostname=\"scm1.example.com\"} 12\n"
)

// result is what a walk delivered.
type result struct {
	files    map[string]File
	content  map[string]string
	order    []string
	problems []Problem
}

func walk(t *testing.T, opt Options, inputs ...string) result {
	t.Helper()
	res := result{files: map[string]File{}, content: map[string]string{}}
	problems, err := Walk(context.Background(), inputs, opt, func(f File, r io.Reader) error {
		b, err := io.ReadAll(r)
		res.files[f.Path] = f
		res.content[f.Path] = string(b)
		res.order = append(res.order, f.Path)
		return err
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	res.problems = problems
	if opt.MaxTotalBytes == 0 {
		for _, workers := range []int{1, 3} {
			if par := walkParallel(t, opt, workers, inputs...); !reflect.DeepEqual(par, res) {
				t.Fatalf("WalkParallel with %d workers:\n%+v\nWalk:\n%+v", workers, par, res)
			}
		}
	}
	return res
}

// walkParallel is walk with WalkParallel: what each file on disk gave
// joins the result in turn.
func walkParallel(t *testing.T, opt Options, workers int, inputs ...string) result {
	t.Helper()
	res := result{files: map[string]File{}, content: map[string]string{}}
	type visited struct {
		f       File
		content string
	}
	problems, err := WalkParallel(context.Background(), inputs, opt, workers, func(turn *Turn, f File, r io.Reader) error {
		b, err := io.ReadAll(r)
		vs, _ := turn.Value.([]visited)
		turn.Value = append(vs, visited{f, string(b)})
		return err
	}, func(turn *Turn) {
		vs, _ := turn.Value.([]visited)
		for _, v := range vs {
			res.files[v.f.Path] = v.f
			res.content[v.f.Path] = v.content
			res.order = append(res.order, v.f.Path)
		}
	})
	if err != nil {
		t.Fatalf("WalkParallel: %v", err)
	}
	res.problems = problems
	return res
}

// problem returns the reason recorded for path, or "".
func (r result) problem(path string) string {
	for _, p := range r.problems {
		if p.Path == path {
			return p.Reason
		}
	}
	return ""
}

func (r result) wantProblem(t *testing.T, path, substr string) {
	t.Helper()
	got := r.problem(path)
	if !strings.Contains(got, substr) {
		t.Errorf("problem for %s = %q, want it to mention %q (all problems: %v)", path, got, substr, r.problems)
	}
}

func (r result) wantNoProblems(t *testing.T) {
	t.Helper()
	if len(r.problems) != 0 {
		t.Errorf("unexpected problems: %v", r.problems)
	}
}

func (r result) wantContent(t *testing.T, path, want string) {
	t.Helper()
	got, ok := r.content[path]
	if !ok {
		t.Errorf("%s not delivered; delivered: %v", path, r.order)
		return
	}
	if got != want {
		t.Errorf("%s: content %q, want %q", path, clip(got), clip(want))
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// entry is an archive member; hdr fields left zero get defaults.
type entry struct {
	name string
	body string
	typ  byte   // tar type flag; 0 = regular file
	link string // link target
	mode os.FileMode
}

func tarBytes(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Linkname: e.link, Mode: 0o644, ModTime: time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC), Format: tar.FormatPAX}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := w.WriteHeader(hdr); err != nil {
			t.Fatalf("tar header %q: %v", e.name, err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zipBytes(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)}
		if e.mode != 0 {
			hdr.SetMode(e.mode)
		}
		f, err := w.CreateHeader(hdr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWalkDirectoryTree(t *testing.T) {
	root := filepath.Join(t.TempDir(), "bundle")
	scmLog := filepath.Join(root, "scm1", "logs", "ozone-hadoop-scm-scm1.example.com.log")
	rolled := filepath.Join(root, "scm1", "logs", "ozone-hadoop-scm-scm1.example.com.log.1.gz")
	audit := filepath.Join(root, "scm1", "logs", "scm-audit-scm1.example.com.log")
	empty := filepath.Join(root, "dn3", "ozone-hadoop-datanode-dn3.out")
	promFile := filepath.Join(root, "scm1", "prom.txt")
	writeFile(t, scmLog, []byte(scmLine+scmLine))
	rolledGz := gz(t, []byte(scmLine))
	writeFile(t, rolled, rolledGz)
	writeFile(t, audit, []byte(auditLine))
	writeFile(t, empty, nil)
	writeFile(t, promFile, []byte(promText))
	mod := time.Date(2026, 8, 23, 11, 0, 0, 0, time.UTC)
	if err := os.Chtimes(scmLog, mod, mod); err != nil {
		t.Fatal(err)
	}

	r := walk(t, Options{}, root)
	r.wantNoProblems(t)
	r.wantContent(t, scmLog, scmLine+scmLine)
	r.wantContent(t, rolled, scmLine)
	r.wantContent(t, audit, auditLine)
	r.wantContent(t, empty, "")
	r.wantContent(t, promFile, promText)
	want := []string{empty, scmLog, rolled, audit, promFile} // name order, depth first
	if strings.Join(r.order, "\n") != strings.Join(want, "\n") {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(r.order, "\n"), strings.Join(want, "\n"))
	}
	checks := []struct {
		path string
		file File
	}{
		{scmLog, File{Name: "ozone-hadoop-scm-scm1.example.com.log", Size: int64(2 * len(scmLine)), Host: "scm1.example.com", Component: parsers.ComponentSCM, Kind: parsers.KindLog}},
		{rolled, File{Name: "ozone-hadoop-scm-scm1.example.com.log.1.gz", Size: int64(len(rolledGz)), Host: "scm1.example.com", Component: parsers.ComponentSCM, Kind: parsers.KindLog, Layers: []string{"gzip"}}},
		{audit, File{Name: "scm-audit-scm1.example.com.log", Size: int64(len(auditLine)), Host: "scm1.example.com", Component: parsers.ComponentSCM, Kind: parsers.KindAudit}},
		{empty, File{Name: "ozone-hadoop-datanode-dn3.out", Host: "dn3", Component: parsers.ComponentDatanode, Kind: parsers.KindOut}},
		{promFile, File{Name: "prom.txt", Size: int64(len(promText)), Host: "scm1", Component: parsers.ComponentSCM, Kind: parsers.KindProm}},
	}
	for _, c := range checks {
		got := r.files[c.path]
		c.file.Path, c.file.ModTime = c.path, got.ModTime
		if !reflect.DeepEqual(got, c.file) {
			t.Errorf("file %s:\n got %+v\nwant %+v", c.path, got, c.file)
		}
	}
	if got := r.files[scmLog].ModTime; !got.Equal(mod) {
		t.Errorf("ModTime = %v, want %v", got, mod)
	}
}

func TestWalkArchives(t *testing.T) {
	dir := t.TempDir()
	inner := zipBytes(t, entry{name: "c.log", body: scmLine})
	tgz := gz(t, tarBytes(t,
		entry{name: "./scm1/", typ: tar.TypeDir},
		entry{name: "./scm1/ozone-hadoop-scm-scm1.log", body: scmLine},
		entry{name: "scm1/ozone-hadoop-scm-scm1.log.2.gz", body: string(gz(t, []byte(scmLine+"second\n")))},
		entry{name: "x/om2.zip", body: string(inner)},
		entry{name: "x/inner.tar", body: string(tarBytes(t, entry{name: "d.log", body: auditLine}))},
	))
	writeFile(t, filepath.Join(dir, "a.tgz"), tgz)
	writeFile(t, filepath.Join(dir, "b.zip"), zipBytes(t,
		entry{name: "dn3/dn-container-dn3.log", body: "c\n"},
		entry{name: "dn3/", body: ""},
		entry{name: `win\om1\om-audit-om1.log`, body: auditLine},
		entry{name: "t.tar.gz", body: string(gz(t, tarBytes(t, entry{name: "e.log", body: "e\n"})))},
	))
	writeFile(t, filepath.Join(dir, "c.tar"), tarBytes(t, entry{name: "f.log", body: "f\n"}))
	// gzip recognised by its magic, whatever the name says; a ".gz" name on plain text is read as text
	writeFile(t, filepath.Join(dir, "misnamed.log"), gz(t, []byte("g\n")))
	writeFile(t, filepath.Join(dir, "plain.log.gz"), []byte("h\n"))
	// several gzip members in one file (cat a.gz b.gz)
	writeFile(t, filepath.Join(dir, "multi.log.gz"), append(gz(t, []byte("i1\n")), gz(t, []byte("i2\n"))...))
	// .tar.gz inside .gz
	writeFile(t, filepath.Join(dir, "double.gz"), gz(t, gz(t, tarBytes(t, entry{name: "j.log", body: "j\n"}))))

	r := walk(t, Options{}, filepath.Join(dir, "a.tgz"), dir)
	r.wantNoProblems(t)
	a := filepath.Join(dir, "a.tgz")
	r.wantContent(t, a+"!/scm1/ozone-hadoop-scm-scm1.log", scmLine)
	r.wantContent(t, a+"!/scm1/ozone-hadoop-scm-scm1.log.2.gz", scmLine+"second\n")
	r.wantContent(t, a+"!/x/om2.zip!/c.log", scmLine)
	r.wantContent(t, a+"!/x/inner.tar!/d.log", auditLine)
	b := filepath.Join(dir, "b.zip")
	r.wantContent(t, b+"!/dn3/dn-container-dn3.log", "c\n")
	r.wantContent(t, b+"!/win/om1/om-audit-om1.log", auditLine)
	r.wantContent(t, b+"!/t.tar.gz!/e.log", "e\n")
	r.wantContent(t, filepath.Join(dir, "c.tar")+"!/f.log", "f\n")
	r.wantContent(t, filepath.Join(dir, "misnamed.log"), "g\n")
	r.wantContent(t, filepath.Join(dir, "plain.log.gz"), "h\n")
	r.wantContent(t, filepath.Join(dir, "multi.log.gz"), "i1\ni2\n")
	r.wantContent(t, filepath.Join(dir, "double.gz")+"!/j.log", "j\n")
	// a.tgz is read twice: once as an input of its own, once inside dir.
	if n := len(r.order); n != 2*4+3+1+4 {
		t.Errorf("%d files delivered: %v", n, r.order)
	}

	// the containers each file was read through, outermost first
	for p, want := range map[string]string{
		a + "!/scm1/ozone-hadoop-scm-scm1.log":      "gzip tar",
		a + "!/scm1/ozone-hadoop-scm-scm1.log.2.gz": "gzip tar gzip",
		a + "!/x/om2.zip!/c.log":                    "gzip tar zip",
		b + "!/t.tar.gz!/e.log":                     "zip gzip tar",
		filepath.Join(dir, "plain.log.gz"):          "",
		filepath.Join(dir, "multi.log.gz"):          "gzip",
		filepath.Join(dir, "double.gz") + "!/j.log": "gzip gzip tar",
	} {
		if got := strings.Join(r.files[p].Layers, " "); got != want {
			t.Errorf("Layers of %s = %q, want %q", p, got, want)
		}
	}

	f := r.files[a+"!/x/om2.zip!/c.log"]
	if f.Name != "c.log" || f.Host != "om2" || f.Component != parsers.ComponentOM || f.Kind != parsers.KindLog {
		t.Errorf("nested zip member = %+v", f)
	}
	f = r.files[a+"!/scm1/ozone-hadoop-scm-scm1.log"]
	if f.Host != "scm1" || f.Component != parsers.ComponentSCM || f.Size != int64(len(scmLine)) || !f.ModTime.Equal(time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("tar member = %+v", f)
	}
	f = r.files[b+"!/dn3/dn-container-dn3.log"]
	if f.Kind != parsers.KindContainer || f.Host != "dn3" || f.Component != parsers.ComponentDatanode {
		t.Errorf("zip member = %+v", f)
	}
}

func TestWalkCallbackErrorsAndOptions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.log"), []byte("a\n"))
	writeFile(t, filepath.Join(dir, "b.log"), []byte("b\n"))
	var seen []string
	problems, err := Walk(context.Background(), []string{dir}, Options{}, func(f File, r io.Reader) error {
		seen = append(seen, f.Name)
		if f.Name == "a.log" {
			return errors.New("cannot parse a.log")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || len(problems) != 1 || problems[0].Reason != "cannot parse a.log" || problems[0].Path != filepath.Join(dir, "a.log") {
		t.Errorf("seen %v, problems %v", seen, problems)
	}
	for _, bad := range []Options{{MaxFileBytes: -1}, {MaxRatio: -1}, {MaxTotalBytes: -5}} {
		if _, err := Walk(context.Background(), []string{dir}, bad, func(File, io.Reader) error { return nil }); err == nil {
			t.Errorf("options %+v accepted", bad)
		}
	}
	if _, err := Walk(context.Background(), []string{dir}, Options{}, nil); err == nil {
		t.Error("nil callback accepted")
	}
}

func TestWalkStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.log", "b.log", "c.log"} {
		writeFile(t, filepath.Join(dir, n), []byte(scmLine))
	}
	writeFile(t, filepath.Join(dir, "d.tgz"), gz(t, tarBytes(t, entry{name: "x.log", body: "x\n"})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []string
	var readErr error
	problems, err := Walk(ctx, []string{dir, dir}, Options{}, func(f File, r io.Reader) error {
		seen = append(seen, f.Name)
		cancel()
		_, readErr = io.ReadAll(r)
		return readErr
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if !errors.Is(readErr, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", readErr)
	}
	if len(seen) != 1 || len(problems) != 0 {
		t.Errorf("seen %v, problems %v; want one file, no problems", seen, problems)
	}
}

// Real collections: a node's /var/log/pods tree (CRI files, rotated and
// gzipped by the kubelet) and a Cloudera Manager role log inside a tarball
// give each file its pod or host and component, and the CRI lines read as
// records once the scanner strips their prefix.
func TestWalkKubernetesAndClouderaCollections(t *testing.T) {
	root := filepath.Join(t.TempDir(), "pods")
	const uid = "6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e"
	cri := "2026-08-23T10:21:01.114203Z stdout F " + scmLine
	live := filepath.Join(root, "ozone_myrel-scm-0_"+uid, "scm", "0.log")
	rotated := filepath.Join(root, "ozone_myrel-scm-0_"+uid, "scm", "0.log.20260823-102101.gz")
	writeFile(t, live, []byte(cri))
	writeFile(t, rotated, gz(t, []byte(cri)))
	cm := filepath.Join(t.TempDir(), "om1.tgz")
	writeFile(t, cm, gz(t, tarBytes(t, entry{name: "var/log/hadoop-ozone/hadoop-cmf-ozone-OZONE_MANAGER-om1.example.com.log.out", body: scmLine})))

	r := walk(t, Options{}, root, cm)
	r.wantNoProblems(t)
	for _, p := range []string{live, rotated} {
		f := r.files[p]
		if f.Host != "myrel-scm-0" || f.Component != parsers.ComponentSCM || f.Kind != parsers.KindLog {
			t.Errorf("%s: %+v", p, f)
		}
		s := log4j.NewScanner(strings.NewReader(r.content[p]), log4j.Options{Kind: f.Kind})
		if !s.Next() || s.Record().Logger != "org.apache.hadoop.hdds.scm.node.StaleNodeHandler" || s.Next() {
			t.Errorf("%s: records %+v", p, s.Record())
		}
	}
	cmPath := cm + "!/var/log/hadoop-ozone/hadoop-cmf-ozone-OZONE_MANAGER-om1.example.com.log.out"
	if f := r.files[cmPath]; f.Host != "om1.example.com" || f.Component != parsers.ComponentOM || f.Kind != parsers.KindLog {
		t.Errorf("%s: %+v (files %v)", cmPath, f, r.order)
	}
}

// A cancelled WalkParallel returns once every file on disk it started is
// done, and visits no file after the cancel.
func TestWalkParallelStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.log", i)), []byte(scmLine))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var visits, ends atomic.Int32
	_, err := WalkParallel(ctx, []string{dir}, Options{}, 3, func(_ *Turn, f File, r io.Reader) error {
		if visits.Add(1) == 2 {
			cancel()
		}
		_, err := io.ReadAll(r)
		return err
	}, func(*Turn) { ends.Add(1) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// At most the files dispatched before the cancel was seen: the
	// workers and the window of files waiting for their turn.
	if v := visits.Load(); v < 2 || v > 2+4*3 {
		t.Errorf("%d files visited after a cancel at the second", v)
	}
	// Every file on disk dispatched has its end, visited or not.
	if e := ends.Load(); e < visits.Load() || e > 2+4*3 {
		t.Errorf("%d ends for %d visits", e, visits.Load())
	}
}

// Reading ahead hands on the bytes in order with the error after them,
// and Close stops the goroutine whether or not the reader was drained.
func TestReadAhead(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), aheadChunk/4) // four chunks
	boom := errors.New("boom")
	a := readAhead(io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom)), &buffers{})
	got, err := io.ReadAll(a)
	a.Close()
	if !bytes.Equal(got, data) || !errors.Is(err, boom) {
		t.Fatalf("read %d of %d bytes, err %v", len(got), len(data), err)
	}
	for range 50 {
		a := readAhead(bytes.NewReader(data), &buffers{})
		buf := make([]byte, 100)
		if _, err := io.ReadFull(a, buf); err != nil || !bytes.Equal(buf, data[:100]) {
			t.Fatal("the first bytes", err)
		}
		a.Close() // before the end: must return (the goroutine ends)
	}
}
