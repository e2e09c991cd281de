package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

const sample = "../../examples/bundles/sample.tar.gz"

func TestAnalyzeSampleBundleJSONContract(t *testing.T) {
	code, out, stderr := runCLI(t, "analyze", "--format", "json", sample)
	if code != exitFindings {
		t.Fatalf("exit code %d, want %d (findings); stderr: %s", code, exitFindings, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr is not a terminal, so no progress should be drawn: %q", stderr)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	var findings []map[string]json.RawMessage
	if err := json.Unmarshal(doc["findings"], &findings); err != nil || len(findings) == 0 {
		t.Fatalf("findings: %v (%d)", err, len(findings))
	}
	for _, key := range []string{"detector", "defect", "severity", "confidence", "title", "summary", "entities", "start", "end", "evidence", "remediation"} {
		if _, ok := findings[0][key]; !ok {
			t.Errorf("finding lacks %q", key)
		}
	}
	var ev []map[string]json.RawMessage
	if err := json.Unmarshal(findings[0]["evidence"], &ev); err != nil || len(ev) == 0 {
		t.Fatalf("evidence: %v", err)
	}
	for _, key := range []string{"file", "line", "host", "component", "time", "text"} {
		if _, ok := ev[0][key]; !ok {
			t.Errorf("evidence lacks %q", key)
		}
	}
	if _, ok := doc["coverage"]; !ok {
		t.Error("no coverage")
	}
	defects := map[string]bool{}
	for _, f := range findings {
		var d string
		json.Unmarshal(f["defect"], &d)
		defects[d] = true
	}
	for _, d := range []string{"HDDS-17519", "HDDS-17425", "HDDS-16809", "HDDS-17674", "HDDS-16839"} {
		if !defects[d] {
			t.Errorf("sample bundle does not show %s", d)
		}
	}
}

func TestAnalyzeExitCodes(t *testing.T) {
	dir := t.TempDir()
	quiet := filepath.Join(dir, "ozone-hadoop-scm-scm1.log")
	// B01 ReplicationManager.java:385 (signatures-scm.md §6): ordinary background.
	line := "2026-08-23 10:00:00,000 [ReplicationMonitor] INFO org.apache.hadoop.hdds.scm.container.replication.ReplicationManager: Replication Monitor Thread took 3 milliseconds for processing 12 containers.\n"
	if err := os.WriteFile(quiet, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "analyze", quiet); code != exitOK {
		t.Errorf("quiet log: exit %d, stderr %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "analyze", "--fail-on", "never", sample); code != exitOK {
		t.Errorf("--fail-on never: exit %d", code)
	}
	if code, _, _ := runCLI(t, "analyze", "--fail-on", "bogus", sample); code != exitUsage {
		t.Errorf("bad --fail-on: exit %d", code)
	}
	if code, _, _ := runCLI(t, "analyze", "--tz", "Mars/Olympus", sample); code != exitUsage {
		t.Errorf("bad --tz: exit %d", code)
	}
	if code, _, _ := runCLI(t, "analyze"); code != exitUsage {
		t.Errorf("no path: exit %d", code)
	}
	code, _, stderr := runCLI(t, "analyze", filepath.Join(dir, "missing.log"))
	if code != exitUsage || !strings.Contains(stderr, "no input") {
		t.Errorf("missing path: exit %d, stderr %q", code, stderr)
	}
}

func TestAnalyzeOptions(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing.log")
	for _, c := range []struct{ opt, want string }{
		{"nosuch=1", "option nosuch: no detector has this option"},
		{"divisionclosing.nosuch=1", `detector divisionclosing has no option "nosuch"`},
		{"scm-pause-stale-nodes.min_burst_nodes=0", "option scm-pause-stale-nodes.min_burst_nodes: want an integer ≥ 1"},
		{"divisionclosing.stuck-after=soon", "option divisionclosing.stuck-after: want a duration"},
		{"no-equals", "is not KEY=VALUE"},
	} {
		// The options are checked before any input is opened: the missing
		// path is not what the run complains about.
		code, _, stderr := runCLI(t, "analyze", "--option", c.opt, missing)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "no input") {
			t.Errorf("--option %s: exit %d, stderr %q", c.opt, code, stderr)
		}
	}
	for _, opt := range []string{"stuck-after=10m", "divisionclosing.stuck-after=10m", "raft-division-stuck-closing.stuck-after=10m"} {
		if code, _, stderr := runCLI(t, "analyze", "--fail-on", "never", "--option", opt, sample); code != exitOK {
			t.Errorf("--option %s: exit %d, stderr %q", opt, code, stderr)
		}
	}
}

func TestAnalyzeGoesOnPastBadInput(t *testing.T) {
	dir := t.TempDir()
	// A truncated gzip next to a readable log: the report names the bad file.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("2026-08-23 10:00:00,000 [main] INFO org.apache.hadoop.ozone.HddsDatanodeService: x\n"), 200))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "ozone-hadoop-datanode-dn1.log.1.gz"), gz.Bytes()[:gz.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "garbage.log"), bytes.Repeat([]byte{0, 1, 2, 0xff}, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "analyze", "--format", "json", "--fail-on", "never", dir, filepath.Join(dir, "nope"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Coverage struct {
			Skipped []struct{ Path, Reason string } `json:"skipped"`
			Files   []struct {
				Path    string `json:"path"`
				Records int64  `json:"records"`
			} `json:"files"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, s := range doc.Coverage.Skipped {
		skipped = append(skipped, s.Path+": "+s.Reason)
	}
	all := strings.Join(skipped, "\n")
	if !strings.Contains(all, "nope") || !strings.Contains(all, ".gz") {
		t.Errorf("skipped should name the missing path and the truncated gzip:\n%s", all)
	}
	var read int64
	for _, f := range doc.Coverage.Files {
		if strings.HasSuffix(f.Path, ".log.1.gz") {
			read = f.Records
		}
	}
	if read == 0 {
		t.Error("the readable part of the truncated gzip was not analysed")
	}
}

func TestExplainAndList(t *testing.T) {
	code, out, _ := runCLI(t, "detectors")
	if code != 0 || !strings.Contains(out, "HDDS-17519") || !strings.Contains(out, "HDDS-16839") {
		t.Errorf("detectors: %d %s", code, out)
	}
	code, out, _ = runCLI(t, "explain", "HDDS-16809")
	if code != 0 || !strings.Contains(out, "Remediation (") || !strings.Contains(out, "ozone admin container info 1042") || strings.Contains(out, "{{") {
		t.Errorf("explain: %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "explain", "HDDS-1"); code != exitUsage {
		t.Errorf("unknown detector: exit %d", code)
	}
	// By name, with the detector's options (a built-in signature's).
	code, out, _ = runCLI(t, "explain", "scm-pause-stale-nodes")
	if code != 0 || !strings.Contains(out, "HDDS-17519") ||
		!strings.Contains(out, "scm-pause-stale-nodes.min_burst_nodes (integer, default 2, at least 1)") {
		t.Errorf("explain scm-pause-stale-nodes: %d\n%s", code, out)
	}
}

func TestEnvironmentConfiguresFormat(t *testing.T) {
	t.Setenv("OZDOCTOR_FORMAT", "markdown")
	code, out, _ := runCLI(t, "analyze", "--fail-on", "never", sample)
	if code != 0 || !strings.HasPrefix(out, "# ozdoctor report") {
		t.Errorf("OZDOCTOR_FORMAT=markdown: %d %.80s", code, out)
	}
	code, out, _ = runCLI(t, "analyze", "--format", "json", "--fail-on", "never", sample)
	if code != 0 || !strings.HasPrefix(out, "{") {
		t.Errorf("a flag wins over the environment: %d %.80s", code, out)
	}
}

// On a terminal the progress line is drawn on stderr (and cleared at the
// end). The terminal is a real pseudo-terminal from util-linux script(1).
func TestProgressOnTerminal(t *testing.T) {
	t.Parallel()
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) not installed:", err)
	}
	bin := buildOzdoctor(t)
	cmd := exec.Command(scriptBin, "-qec", bin+" analyze --format json --fail-on never "+sample+" >/dev/null", "/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "reading: ") || !strings.Contains(string(out), "\r\033[K") {
		t.Errorf("no progress line on the terminal: %q", out)
	}
}

func TestAnalyzeOutputFile(t *testing.T) {
	dir := t.TempDir()
	quiet := filepath.Join(dir, "ozone-hadoop-scm-scm1.log")
	// B01 ReplicationManager.java:385 (signatures-scm.md §6): ordinary background.
	line := "2026-08-23 10:00:00,000 [ReplicationMonitor] INFO org.apache.hadoop.hdds.scm.container.replication.ReplicationManager: Replication Monitor Thread took 3 milliseconds for processing 12 containers.\n"
	if err := os.WriteFile(quiet, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	for _, format := range []string{"json", "html", "text", "markdown"} {
		out := filepath.Join(outDir, "report."+format)
		// an older report is replaced whole
		if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "analyze", "--format", format, "--output", out, quiet)
		if code != exitOK || stdout != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %s", format, code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		switch format {
		case "json":
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Errorf("--output json is not one JSON document: %v", err)
			}
		case "html":
			if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</html>")) {
				t.Errorf("--output html is not a whole page:\n%.200s", b)
			}
		default:
			if len(b) < 20 || string(b) == "old" {
				t.Errorf("--output %s: %q", format, b)
			}
		}
		if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, %v", out, fi.Mode(), err)
		}
	}
	// A run that fails leaves neither a report nor a temporary file.
	missing := filepath.Join(outDir, "no-such-dir", "report.html")
	if code, _, stderr := runCLI(t, "analyze", "--format", "html", "--output", missing, quiet); code != exitInternal || !strings.Contains(stderr, "write report") {
		t.Errorf("unwritable --output: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runCLI(t, "analyze", "--output", outDir, quiet); code != exitUsage {
		t.Errorf("--output a directory: exit %d", code)
	}
	if code, _, _ := runCLI(t, "analyze", "--format", "pdf", "--output", filepath.Join(outDir, "r.pdf"), quiet); code != exitUsage {
		t.Errorf("unknown format: exit %d", code)
	}
	entries, _ := os.ReadDir(outDir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "report.html report.json report.markdown report.text" {
		t.Errorf("files left in the output directory: %v", names)
	}
}
