package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A user's signature directory as the docs describe it: the signature
// and its cases in testdata/.
func writeUserSignature(t *testing.T, id string) (dir, caseDir string) {
	t.Helper()
	dir = t.TempDir()
	caseDir = filepath.Join(dir, "testdata")
	os.MkdirAll(caseDir, 0o755)
	text := strings.Replace(userSignature, "id: my-volume-failed", "id: "+id, 1)
	text = strings.Replace(text, "TITLE", "Volume failed", 1)
	os.WriteFile(filepath.Join(dir, id+".yaml"), []byte(text), 0o644)
	return dir, caseDir
}

// The V7 line (MutableVolumeSet.java:244 @ozone-2.2.0) in layout L1.
const volumeCase = `a failed volume
-- files/dn1/ozone-hadoop-datanode-dn1.example.com.log --
2026-12-06 03:12:44,122 [DiskChecker-0] ERROR org.apache.hadoop.ozone.container.common.volume.MutableVolumeSet: Marking volume /data7/hdds/hdds as failed
-- want --
`

func TestTestCommandReportsEachCaseAndTheClosingLine(t *testing.T) {
	dir, cases := writeUserSignature(t, "my-volume-failed")
	good := volumeCase + "my-volume-failed firing warning medium key=dn1.example.com#1 hosts=dn1.example.com\n"
	os.WriteFile(filepath.Join(cases, "positive.txtar"), []byte(good), 0o644)
	os.WriteFile(filepath.Join(cases, "wrong.txtar"), []byte(volumeCase), 0o644) // expects nothing
	code, out, _ := runCLI(t, "test", dir)
	if code != exitFindings || !strings.Contains(out, "ok    my-volume-failed") || !strings.Contains(out, "FAIL  my-volume-failed") ||
		!strings.HasSuffix(out, "1 passed, 1 failed\n") {
		t.Fatalf("test: exit %d\n%s", code, out)
	}
	// --update writes what was found; then both pass.
	if code, out, _ := runCLI(t, "test", "--update", dir); code != 0 || !strings.Contains(out, "(updated)") {
		t.Fatalf("test --update: exit %d\n%s", code, out)
	}
	b, _ := os.ReadFile(filepath.Join(cases, "wrong.txtar"))
	if !strings.Contains(string(b), "my-volume-failed firing warning medium key=dn1.example.com#1") {
		t.Errorf("--update wrote:\n%s", b)
	}
	if code, out, _ := runCLI(t, "test", dir); code != 0 || !strings.HasSuffix(out, "2 passed, 0 failed\n") {
		t.Fatalf("after --update: exit %d\n%s", code, out)
	}
}

func TestCheckSignaturesNamesThePlace(t *testing.T) {
	dir, cases := writeUserSignature(t, "my-volume-failed")
	os.WriteFile(filepath.Join(cases, "positive.txtar"), []byte(volumeCase+"my-volume-failed firing warning medium key=dn1.example.com#1 hosts=dn1.example.com\n"), 0o644)
	if code, out, _ := runCLI(t, "check", "signatures", dir); code != 0 || !strings.Contains(out, "SUCCESS: 1 signature(s) found") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
	file := filepath.Join(dir, "my-volume-failed.yaml")
	b, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(b), "on: my_volume_marked_failed", "on: my_volume_marked_faild", 1)), 0o644)
	code, _, stderr := runCLI(t, "check", "signatures", dir)
	if code != exitUsage || !strings.Contains(stderr, file+`:19:7: step failed: unknown signal kind "my_volume_marked_faild"`) {
		t.Fatalf("check of a broken file: exit %d\n%s", code, stderr)
	}
	// analyze refuses it the same way, before reading any input.
	code, _, stderr = runCLI(t, "analyze", "--signatures", dir, sample)
	if code != exitUsage || !strings.Contains(stderr, "unknown signal kind") {
		t.Fatalf("analyze with a broken signature: exit %d\n%s", code, stderr)
	}
}

// A stable signature without a quiet case is refused.
func TestStableSignatureNeedsBothKindsOfCase(t *testing.T) {
	dir, cases := writeUserSignature(t, "my-volume-failed")
	file := filepath.Join(dir, "my-volume-failed.yaml")
	b, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(b), "title:", "status: stable\ntitle:", 1)), 0o644)
	os.WriteFile(filepath.Join(cases, "positive.txtar"), []byte(volumeCase+"my-volume-failed firing warning medium key=dn1.example.com#1 hosts=dn1.example.com\n"), 0o644)
	code, _, stderr := runCLI(t, "check", "signatures", dir)
	if code != exitUsage || !strings.Contains(stderr, "status stable needs at least one positive and one quiet test case; found 1 positive and 0 quiet") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}

// A user signature with a built-in's id replaces it, and the report says so.
func TestUserSignatureReplacesBuiltin(t *testing.T) {
	dir, _ := writeUserSignature(t, "dn-volume-failed")
	code, out, stderr := runCLI(t, "analyze", "--signatures", dir, sample)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "dn-volume-failed (built-in signature) replaced by "+filepath.Join(dir, "dn-volume-failed.yaml")) {
		t.Errorf("the report does not say the built-in was replaced:\n%s", out)
	}
	code, out, _ = runCLI(t, "detectors", "--signatures", dir)
	if code != 0 || strings.Count(out, "dn-volume-failed ") != 1 || !strings.Contains(out, "signature: "+filepath.Join(dir, "dn-volume-failed.yaml")) {
		t.Errorf("detectors: exit %d\n%s", code, out)
	}
}

// Without a path, test and check work on the built-in signatures, whose
// cases the binary carries. Running every one of them through the command
// is TestTestCommandRunsEveryBuiltinCase (tag e2e); signatures'
// TestBuiltinSignatures runs the same cases in go test.
func TestTestCommandRunsTheBuiltins(t *testing.T) {
	if code, _, stderr := runCLI(t, "test", "--update"); code != exitUsage || !strings.Contains(stderr, "give the signatures' folder") {
		t.Errorf("test --update without a path: exit %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, "check", "signatures"); code != 0 || !strings.Contains(out, "SUCCESS: ") {
		t.Errorf("check signatures: exit %d\n%s", code, out)
	}
}
