package redact

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/ozdoctor/ozdoctor/parsers/bundle"
)

// The originals of the generated cluster: none may be left anywhere in a
// redacted copy, names and nested archives included.
var secrets = []string{
	"ozn-om17", "ozn-dn03", "s3gw-2", "acmecorp", "10.44.7.17", "10.44.7.3", "10.44.9.2", "fd00:44::7", "fd00:44:0:0:0:0:0:7",
	"jsmith", "etl_loader", "finance-vol", "payroll-2026", "salaries", "T3pvbmVUb2tlbjEyMzQ", "hunter2", "Sup3rS3cret",
	"acme-om.keytab", "falcon", "c261b6ecabf7d37d5f9ded654b1c724a",
}

var t0 = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)

// Lines of the generated cluster, rendered from the templates named.
const (
	// signatures-dn-om.md C.3: STARTUP_MSG banner (RFA layout L1), conf holding secrets
	omLog = `2026-08-23 10:00:00,001 [main] INFO org.apache.hadoop.ozone.om.OzoneManagerStarter: STARTUP_MSG: 
/************************************************************
STARTUP_MSG: Starting OzoneManager
STARTUP_MSG:        host = ozn-om17.acmecorp.internal/10.44.7.17
STARTUP_MSG:     version = 2.0.0
STARTUP_MSG:       build = https://github.com/apache/ozone/abc; compiled by 'hadoop'
STARTUP_MSG:        java = 17.0.15
STARTUP_MSG:        args = []
STARTUP_MSG:        conf = {ozone.om.address=ozn-om17.acmecorp.internal:9862, ozone.om.kerberos.keytab.file=/etc/security/keytabs/acme-om.keytab, ozone.om.kerberos.principal=om/ozn-om17.acmecorp.internal@ACMECORP.INTERNAL, ssl.server.keystore.password=hunter2}
************************************************************/
2026-08-23 10:05:00,000 [main] INFO org.apache.hadoop.ozone.om.OzoneManager: omNode-1[10.44.7.17:9862]: Stopping Ozone Manager
2026-08-23 10:05:01,000 [shutdown-hook-0] INFO org.apache.hadoop.ozone.om.OzoneManagerStarter: SHUTDOWN_MSG: 
/************************************************************
SHUTDOWN_MSG: Shutting down OzoneManager at ozn-om17.acmecorp.internal/10.44.7.17
************************************************************/
`
	// operational-problems.md §3.2: UGI login failure at start-up (L1)
	omRotated = "2026-08-23 09:00:00,000 [main] ERROR org.apache.hadoop.ozone.om.OzoneManagerStarter: failure to login: for principal: om/ozn-om17.acmecorp.internal@ACMECORP.INTERNAL from keytab /etc/security/keytabs/acme-om.keytab javax.security.auth.login.LoginException: Unable to obtain password from user\r\n"
	// signatures-scm.md §4.2: AuditMessage user=<u> | ip=<ip> | op=<OP> {params} | ret= (L7), old and JSON params
	omAudit = `2026-08-23 10:01:00,000 | INFO  | OMAudit | user=jsmith | ip=10.44.9.2 | op=CREATE_VOLUME {admin=hadoop, owner=jsmith, volume=finance-vol, creationTime=0, quotaInBytes=1152921504606846976} | ret=SUCCESS | 
2026-08-23 10:01:01,000 | INFO  | OMAudit | user=jsmith | ip=10.44.9.2 | op=CREATE_BUCKET {volume=finance-vol, bucket=payroll-2026, acls=[USER:jsmith:rw, GROUP:falcon-team:rw], isVersionEnabled=false} | ret=SUCCESS | 
2026-08-23 10:01:02,000 | INFO  | OMAudit | user=etl_loader | ip=fd00:44::7 | op=COMMIT_KEY {"volume":"finance-vol","bucket":"payroll-2026","key":"reports/q3/salaries.csv","dataSize":"10240"} | ret=SUCCESS | 
`
	// the same AuditMessage format in the S3 gateway's audit log (layouts.md L7: S3GAudit)
	s3gAudit = `2026-08-23 10:02:00,000 | INFO  | S3GAudit | user=jsmith/s3gw-2.acmecorp.internal@ACMECORP.INTERNAL | ip=10.44.9.2 | op=CREATE_KEY {"bucket":"payroll-2026","key":"reports/q3/salaries.csv"} | ret=SUCCESS | 
`
	// `ozone s3 getsecret` output, as the Ozone S3 documentation shows it
	getSecret = "awsAccessKey=jsmith/ozn-om17.acmecorp.internal@ACMECORP.INTERNAL\nawsSecret=c261b6ecabf7d37d5f9ded654b1c724adac9bd9f13e247a235e567e8296d2999\n"
	// Hadoop configuration XML
	siteXML = `<?xml version="1.0"?>
<configuration>
  <property><name>ozone.om.address</name><value>ozn-om17.acmecorp.internal:9862</value></property>
  <property><name>ozone.scm.stale.node.interval</name><value>90s</value></property>
  <property>
    <name>ozone.s3g.secret.key</name>
    <value>Sup3rS3cret</value>
  </property>
</configuration>
`
	// signatures-scm.md §0.1 DeleteContainerCommand with its token; DatanodeDetails "<uuid>(<host>/<ip>)"
	dnLog = `2026-08-23 10:03:00,000 [Command processor thread] INFO org.apache.hadoop.ozone.container.common.statemachine.commandhandler.DeleteContainerCommandHandler: deleteContainerCommand: cmdID: 12, encodedToken: "T3pvbmVUb2tlbjEyMzQ=", term: 7, deadlineMsSinceEpoch: 1787480000000, containerID: 90643, replicaIndex: 0, force: false
2026-08-23 10:03:01,000 [main] INFO org.apache.hadoop.ozone.HddsDatanodeService: 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(ozn-dn03.acmecorp.internal/10.44.7.3) ozn-dn03
`
)

func gzBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func xzBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func zstdBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

type ent struct {
	name string
	body []byte
}

func tarOf(t *testing.T, es ...ent) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), ModTime: t0})
		tw.Write(e.body)
	}
	tw.Close()
	return buf.Bytes()
}

func zipOf(t *testing.T, es ...ent) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: t0})
		w.Write(e.body)
	}
	zw.Close()
	return buf.Bytes()
}

// genBundle writes the generated cluster's bundle under dir.
func genBundle(t *testing.T, dir string) {
	t.Helper()
	files := map[string][]byte{
		"ozn-om17/ozone-hadoop-om-ozn-om17.acmecorp.internal.log":      []byte(omLog),
		"ozn-om17/ozone-hadoop-om-ozn-om17.acmecorp.internal.log-1.gz": gzBytes(t, []byte(omRotated)),
		"ozn-om17/om-audit-ozn-om17.acmecorp.internal.log":             []byte(omAudit),
		"ozn-om17/ozone-site.xml":                                      []byte(siteXML),
		"s3gw-2/s3g-audit-s3gw-2.acmecorp.internal.log":                []byte(s3gAudit),
		"a-getsecret-jsmith.txt":                                       []byte(getSecret),
		// nested: a .tar.gz holding a zip holding a .log.gz, a .tar.xz and a .tar.zst
		"collect-falcon.tar.gz": gzBytes(t, tarOf(t,
			ent{"collect-falcon/ozn-dn03/dn-logs.zip", zipOf(t,
				ent{"ozone-hadoop-datanode-ozn-dn03.acmecorp.internal.log.gz", gzBytes(t, []byte(dnLog))},
				ent{"ozn-dn03/inner.tar.xz", xzBytes(t, tarOf(t, ent{"ozone-hadoop-datanode-ozn-dn03.acmecorp.internal.log.1", []byte(dnLog)}))},
			)},
			ent{"collect-falcon/ozn-dn03/more.tar.zst", zstdBytes(t, tarOf(t, ent{"dn-audit-ozn-dn03.acmecorp.internal.log", []byte(omAudit)}))},
		)),
	}
	if _, err := exec.LookPath("bzip2"); err == nil {
		cmd := exec.Command("bzip2", "-c")
		cmd.Stdin = strings.NewReader(dnLog)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		files["ozn-dn03/ozone-hadoop-datanode-ozn-dn03.acmecorp.internal.log.2.bz2"] = out
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// walked is one file of a walk: path relative to the input, layers, content.
type walked struct {
	path, layers, content string
}

func walkAll(t *testing.T, in string) ([]walked, []bundle.Problem) {
	t.Helper()
	var out []walked
	problems, err := bundle.Walk(context.Background(), []string{in}, bundle.Options{}, func(f bundle.File, r io.Reader) error {
		b, err := io.ReadAll(r)
		out = append(out, walked{strings.TrimPrefix(f.Path, in), strings.Join(f.Layers, " "), string(b)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, problems
}

// checkNoLeak scans every byte of the output, on disk and decompressed,
// names included, for every original.
func checkNoLeak(t *testing.T, out string) {
	t.Helper()
	var raw []string
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, p)
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			raw = append(raw, string(b))
		}
		return nil
	})
	files, problems := walkAll(t, out)
	if len(problems) > 0 {
		t.Errorf("the redacted copy has problems: %v", problems)
	}
	for _, f := range files {
		raw = append(raw, f.path, f.content)
	}
	all := strings.ToLower(strings.Join(raw, "\n"))
	for _, s := range secrets {
		if i := strings.Index(all, strings.ToLower(s)); i >= 0 {
			t.Errorf("%q left in the redacted copy: …%s…", s, all[max(0, i-80):min(len(all), i+80)])
		}
	}
}

func redactTo(t *testing.T, m *Map, opt Options, in, out string) *Summary {
	t.Helper()
	r := New(m, opt)
	sum, err := RedactBundle(context.Background(), r, []string{in}, out, BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestRedactBundleNothingLeaks(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bundle")
	genBundle(t, in)
	// the generated bundle does hold every original
	files, _ := walkAll(t, in)
	var all strings.Builder
	for _, f := range files {
		all.WriteString(f.path + "\n" + f.content)
	}
	for _, s := range secrets {
		if s != "fd00:44:0:0:0:0:0:7" && !strings.Contains(strings.ToLower(all.String()), strings.ToLower(s)) {
			t.Fatalf("the generated bundle lacks %q", s)
		}
	}
	out := filepath.Join(dir, "out")
	sum := redactTo(t, NewMap(), Options{Keywords: []string{"Falcon"}}, in, out)
	checkNoLeak(t, out)
	if sum.Files != len(files) || len(sum.Skipped) != 0 {
		t.Errorf("summary: %d files, skipped %v; want %d files", sum.Files, sum.Skipped, len(files))
	}
	// the same shape: the same files through the same containers (bzip2 written as gzip)
	got, _ := walkAll(t, out)
	var gotShape, wantShape []string
	for _, f := range files {
		wantShape = append(wantShape, strings.ReplaceAll(f.layers, "bzip2", "gzip"))
	}
	for _, f := range got {
		if !strings.HasSuffix(f.path, SummaryName) {
			gotShape = append(gotShape, f.layers)
		}
	}
	sort.Strings(gotShape)
	sort.Strings(wantShape)
	if strings.Join(gotShape, "|") != strings.Join(wantShape, "|") {
		t.Errorf("layers of the copy:\n %v\nwant\n %v", gotShape, wantShape)
	}
	summary, err := os.ReadFile(filepath.Join(out, SummaryName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"files read: 10", "keyword 1: ", "host ", "secret "} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	// the copy's names are the original's, redacted
	for _, want := range []string{"/ozone-hadoop-om-host-2.domain-1.example.log-1.gz", "/collect-keyword-1.tar.gz!/", ".log.2.gz", "/a-getsecret-user-1.txt"} {
		found := false
		for _, f := range got {
			found = found || strings.Contains(f.path, want)
		}
		if !found {
			t.Errorf("no file of the copy has %q in its name: %v", want, got)
		}
	}
}

// An archive becomes an archive of the same format, with the summary
// inside; the same input and map give the same bytes.
func TestRedactBundleArchiveConsistent(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bundle")
	genBundle(t, in)
	// the directory as one .tar.gz, as a support tool would send it
	var entries []ent
	filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			entries = append(entries, ent{filepath.ToSlash(rel), b})
		}
		return nil
	})
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	tgz := filepath.Join(dir, "bundle-acmecorp.tar.gz")
	if err := os.WriteFile(tgz, gzBytes(t, tarOf(t, entries...)), 0o644); err != nil {
		t.Fatal(err)
	}
	mapFile := filepath.Join(dir, "map.json")
	var outs [][]byte
	for i, name := range []string{"a.tar.gz", "b.tar.gz"} {
		m, err := LoadMap(mapFile)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		redactTo(t, m, Options{Keywords: []string{"falcon"}}, tgz, out)
		if err := m.Save(mapFile); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
		if i == 0 {
			checkNoLeak(t, out)
			files, _ := walkAll(t, out)
			if files[0].layers != "gzip tar" && files[len(files)-1].path != "!/"+SummaryName {
				t.Errorf("copy of a .tar.gz: first %+v, last %+v", files[0], files[len(files)-1])
			}
			var hasSummary bool
			for _, f := range files {
				hasSummary = hasSummary || f.path == "!/"+SummaryName
			}
			if !hasSummary {
				t.Error("no REDACTION.txt in the archive")
			}
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("the same input and map gave different bytes")
	}
	if fi, err := os.Stat(mapFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("map file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	// a second bundle of the same cluster: the same pseudonyms
	in2 := filepath.Join(dir, "later")
	if err := os.MkdirAll(in2, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in2, "dn.log"), []byte(dnLog), 0o644)
	m, _ := LoadMap(mapFile)
	dnHost, _ := m.Lookup(KindHost, "ozn-dn03")
	redactTo(t, m, Options{}, in2, filepath.Join(dir, "later-out"))
	b, _ := os.ReadFile(filepath.Join(dir, "later-out", "dn.log"))
	if dnHost == "" || !strings.Contains(string(b), "("+dnHost+".") || !strings.Contains(string(b), " "+dnHost+"\n") {
		t.Errorf("second bundle: want %q for ozn-dn03:\n%s", dnHost, b)
	}
	// the gzip headers carry no time and no name
	for _, o := range outs[:1] {
		zr, err := gzip.NewReader(bytes.NewReader(o))
		if err != nil {
			t.Fatal(err)
		}
		if !zr.ModTime.IsZero() || zr.Name != "" {
			t.Errorf("gzip header: time %v, name %q", zr.ModTime, zr.Name)
		}
	}
}

func TestRedactBundleRefusesExistingOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.log")
	os.WriteFile(in, []byte(dnLog), 0o644)
	if _, err := RedactBundle(context.Background(), New(NewMap(), Options{}), []string{in}, dir, BundleOptions{}); err == nil {
		t.Error("an existing output was accepted")
	}
	// a plain file: its copy, and the summary beside it
	out := filepath.Join(dir, "out.log")
	sum, err := RedactBundle(context.Background(), New(NewMap(), Options{}), []string{in}, out, BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Beside() != out+"."+SummaryName {
		t.Errorf("summary at %q", sum.Beside())
	}
	if _, err := os.Stat(sum.Beside()); err != nil {
		t.Error(err)
	}
	// nothing of the temporary output is left
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".redact-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// Inputs named "." and "./file" keep their names' shape.
func TestRedactBundleRelativeInputs(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "in", ".hidden"), 0o755)
	os.WriteFile(filepath.Join(dir, "in", ".hidden", "dn.log"), []byte(dnLog), 0o644)
	os.WriteFile(filepath.Join(dir, "in", "x.log.gz"), gzBytes(t, []byte(dnLog)), 0o644)
	t.Chdir(filepath.Join(dir, "in"))
	redactTo(t, NewMap(), Options{}, ".", filepath.Join(dir, "out"))
	for _, p := range []string{"out/.hidden/dn.log", "out/x.log.gz", "out/" + SummaryName} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	redactTo(t, NewMap(), Options{}, "./x.log.gz", filepath.Join(dir, "one.log.gz"))
	files, _ := walkAll(t, filepath.Join(dir, "one.log.gz"))
	if len(files) != 1 || files[0].layers != "gzip" || !strings.Contains(files[0].content, "(host-1.domain-1.example/198.18.0.1)") {
		t.Errorf("./x.log.gz: %+v", files)
	}
}

// Several inputs: a directory holding a copy of each, one summary.
func TestRedactBundleSeveralInputs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "ozone-hadoop-datanode-ozn-dn03.acmecorp.internal.log")
	os.WriteFile(a, []byte(dnLog), 0o644)
	b := filepath.Join(dir, "om.tar.gz")
	os.WriteFile(b, gzBytes(t, tarOf(t, ent{"om-audit-ozn-om17.acmecorp.internal.log", []byte(omAudit)})), 0o644)
	out := filepath.Join(dir, "out")
	sum := redactTo(t, NewMap(), Options{}, a, out) // one input: the file itself
	if sum.Files != 1 {
		t.Fatalf("%d files", sum.Files)
	}
	out2 := filepath.Join(dir, "out2")
	r := New(NewMap(), Options{})
	if _, err := RedactBundle(context.Background(), r, []string{a, b}, out2, BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(out2)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "REDACTION.txt om.tar.gz ozone-hadoop-datanode-host-1.domain-1.example.log" {
		t.Errorf("copies: %v", names)
	}
	checkNoLeak(t, out2)
}
