package analysis

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/report"
)

// One bundle with every kind of bad input next to a readable log: the run
// goes on, the readable data is analysed and the coverage says what could
// not be read, and why.
func TestBadInputIsReportedAndLosesNothing(t *testing.T) {
	dir := t.TempDir()
	// B01 ReplicationManager.java:385 (signatures-scm.md §6).
	good := "2026-08-23 10:00:00,000 [ReplicationMonitor] INFO org.apache.hadoop.hdds.scm.container.replication.ReplicationManager: Replication Monitor Thread took 3 milliseconds for processing 12 containers.\n"
	write(t, filepath.Join(dir, "scm1", "ozone-hadoop-scm-scm1.log"), good)

	// Truncated gzip: the first half of a compressed rotation.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := 0; i < 2000; i++ {
		zw.Write([]byte(strings.Replace(good, "took 3", "took "+string(rune('0'+i%10)), 1)))
	}
	zw.Close()
	write(t, filepath.Join(dir, "scm1", "ozone-hadoop-scm-scm1.log-1.gz"), gz.String()[:gz.Len()/2])

	// A zip with ../evil next to a good entry.
	var zb bytes.Buffer
	zwr := zip.NewWriter(&zb)
	for _, name := range []string{"../evil.log", "om1/ozone-hadoop-om-om1.log"} {
		w, _ := zwr.Create(name)
		w.Write([]byte(good))
	}
	zwr.Close()
	write(t, filepath.Join(dir, "om-logs.zip"), zb.String())

	// A tar with a symlink to /etc.
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "dn1/etc", Typeflag: tar.TypeSymlink, Linkname: "/etc"})
	tw.WriteHeader(&tar.Header{Name: "dn1/ozone-hadoop-datanode-dn1.log", Mode: 0o644, Size: int64(len(good))})
	tw.Write([]byte(good))
	tw.Close()
	write(t, filepath.Join(dir, "dn-logs.tar"), tb.String())

	// Binary garbage, an empty file and a 50 MB line.
	write(t, filepath.Join(dir, "garbage.log"), strings.Repeat("\x00\x01\x02\xff\xfe", 20000))
	write(t, filepath.Join(dir, "empty.log"), "")
	write(t, filepath.Join(dir, "scm2", "ozone-hadoop-scm-scm2.log"), good+"2026-08-23 10:00:01,000 [main] INFO x.Y: "+strings.Repeat("x", 50<<20)+"\n"+good)
	// A hand-edited log: a timestamp with an impossible field and an elision.
	write(t, filepath.Join(dir, "om2", "ozone-hadoop-om-om2.log"), good+"2026-08-32 10:00:00,000 [main] INFO x.Y: edited\n...\n"+good)
	// A file whose host and component nothing tells: T10
	// StaleNodeHandler.java:51 (signatures-scm.md §1.4) in it reaches no detector.
	write(t, filepath.Join(dir, "captured.log"), "2026-08-23 10:00:02,000 [EventQueue-StaleNodeForStaleNodeHandler] INFO "+
		"org.apache.hadoop.hdds.scm.node.StaleNodeHandler: Datanode 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(dn1.example.com/10.0.0.11) "+
		"moved to stale state. Finalizing its pipelines []\n")
	// An unreadable file: a link whose target is gone (tests run as root, so
	// permissions would not stop a read).
	if err := os.Symlink(filepath.Join(dir, "gone.log"), filepath.Join(dir, "dangling.log")); err != nil {
		t.Fatal(err)
	}

	res, err := Run(context.Background(), Options{Inputs: []string{dir, filepath.Join(dir, "missing")}, Detectors: registry.All()})
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, p := range res.Coverage.Skipped {
		reasons = append(reasons, p.Path+": "+p.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, want := range []string{"missing", "scm-scm1.log-1.gz", "evil", "etc", "dangling.log", "garbage.log"} {
		if !strings.Contains(all, want) {
			t.Errorf("coverage does not say that %s was skipped:\n%s", want, all)
		}
	}
	files := map[string]report.FileCoverage{}
	for f := range res.Coverage.Files.All() {
		files[filepath.Base(f.Path)] = f
	}
	if f := files["ozone-hadoop-scm-scm1.log-1.gz"]; f.Records == 0 {
		t.Error("the readable part of the truncated gzip was not analysed")
	}
	if f := files["ozone-hadoop-om-om1.log"]; f.Records != 1 {
		t.Error("the good zip entry next to ../evil was not analysed")
	}
	if f := files["ozone-hadoop-datanode-dn1.log"]; f.Records != 1 {
		t.Error("the good tar entry next to the symlink was not analysed")
	}
	if f := files["ozone-hadoop-scm-scm2.log"]; f.Records != 3 || f.Truncated != 1 {
		t.Errorf("50 MB line: %+v", f)
	}
	if f := files["ozone-hadoop-om-om2.log"]; f.Records != 2 || f.Damaged != 2 || !slices.Equal(f.DamagedLines, []int{2, 3}) {
		t.Errorf("hand-edited lines: %+v", f)
	}
	if res.Coverage.Totals.Damaged != 2 {
		t.Errorf("totals count %d damaged lines, want 2", res.Coverage.Totals.Damaged)
	}
	if f := files["captured.log"]; f.Signals != 1 || !strings.Contains(f.Note, "component unknown: its signals reached no detector") {
		t.Errorf("file of unknown component: %+v", f)
	}
	if res.Coverage.Stream.Unattributed == 0 {
		t.Error("the unknown component's signal is not counted as withheld from detectors")
	}
	if f, ok := files["empty.log"]; !ok || f.Records != 0 {
		t.Errorf("empty file: %+v", f)
	}
}
