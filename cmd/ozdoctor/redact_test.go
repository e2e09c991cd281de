package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/internal/redact"
)

// jsonReport is the part of a JSON report the redaction tests compare.
type jsonReport struct {
	Findings []map[string]any `json:"findings"`
}

// analyzeJSON runs analyze --format json and returns the report, its
// findings' text and the exit code.
func analyzeJSON(t *testing.T, args ...string) (jsonReport, []byte) {
	t.Helper()
	code, out, stderr := runCLI(t, append([]string{"analyze", "--format", "json", "--fail-on", "never"}, args...)...)
	if code != exitOK {
		t.Fatalf("analyze %v: exit %d: %s", args, code, stderr)
	}
	var doc struct {
		Findings json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("analyze %v: %v", args, err)
	}
	var r jsonReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r, doc.Findings
}

// essence is what must survive redaction of each finding: detector,
// defect, severity, state, times and the number of evidence lines.
func essence(r jsonReport) []string {
	var out []string
	for _, f := range r.Findings {
		ev, _ := f["evidence"].([]any)
		b, _ := json.Marshal([]any{f["detector"], f["defect"], f["severity"], f["state"], f["start"], f["end"], len(ev)})
		out = append(out, string(b))
	}
	return out
}

// relativeEvidence rewrites each evidence file path relative to its input:
// what follows root, or the first "!/" of an archive.
func relativeEvidence(r jsonReport, root string) jsonReport {
	for _, f := range r.Findings {
		ev, _ := f["evidence"].([]any)
		for _, e := range ev {
			m := e.(map[string]any)
			p, _ := m["file"].(string)
			if i := strings.Index(p, "!/"); i >= 0 {
				p = p[i+2:]
			} else {
				p = strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
			}
			m["file"] = p
		}
	}
	return r
}

// checkDiagnosisSurvives redacts input with a map, analyses the copy and
// checks the findings are the original's with the map's pseudonyms, and
// that --reverse of the copy's report gives the original findings back.
func checkDiagnosisSurvives(t *testing.T, input, dir string) {
	t.Helper()
	orig, _ := analyzeJSON(t, input)
	mapFile := filepath.Join(dir, "map.json")
	out := filepath.Join(dir, "out"+strings.TrimPrefix(filepath.Base(input), strings.Split(filepath.Base(input), ".")[0]))
	if code, _, stderr := runCLI(t, "redact", "--map", mapFile, "--output", out, input); code != exitOK {
		t.Fatalf("redact: exit %d: %s", code, stderr)
	}
	red, redText := analyzeJSON(t, out)
	if got, want := essence(red), essence(orig); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings of the redacted copy differ:\n got %v\nwant %v", got, want)
	}
	m, err := redact.LoadMap(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	// no host name, domain or address of the cluster is left in the findings
	origText, _ := json.Marshal(orig.Findings)
	for _, k := range []redact.Kind{redact.KindHost, redact.KindDomain, redact.KindIPv4} {
		for _, o := range originals(m, k) {
			if len(o) >= 4 && strings.Contains(string(origText), o) && strings.Contains(string(redText), o) {
				t.Errorf("the redacted copy's findings still name %s %q", k, o)
			}
		}
	}
	// --reverse gives the original findings back
	redFile := filepath.Join(dir, "red.json")
	if err := os.WriteFile(redFile, redText, 0o644); err != nil {
		t.Fatal(err)
	}
	code, revText, stderr := runCLI(t, "redact", "--reverse", "--map", mapFile, redFile)
	if code != exitOK {
		t.Fatalf("redact --reverse: exit %d: %s", code, stderr)
	}
	var rev jsonReport
	if err := json.Unmarshal([]byte(revText), &rev.Findings); err != nil {
		t.Fatal(err)
	}
	rev = canonEntities(relativeEvidence(rev, out))
	orig = canonEntities(relativeEvidence(orig, input))
	if !reflect.DeepEqual(rev.Findings, orig.Findings) {
		a, _ := json.MarshalIndent(orig.Findings, "", " ")
		b, _ := json.MarshalIndent(rev.Findings, "", " ")
		t.Errorf("--reverse of the redacted report differs from the original findings:\n%s", firstDiff(string(a), string(b)))
	}
}

// canonEntities sorts the lists of each finding's entities: a report
// sorts hosts by name, and pseudonyms sort in another order than their
// originals.
func canonEntities(r jsonReport) jsonReport {
	for _, f := range r.Findings {
		ents, _ := f["entities"].(map[string]any)
		for k, v := range ents {
			list, ok := v.([]any)
			if !ok {
				continue
			}
			sort.Slice(list, func(i, j int) bool {
				a, _ := json.Marshal(list[i])
				b, _ := json.Marshal(list[j])
				return string(a) < string(b)
			})
			ents[k] = list
		}
	}
	return r
}

// originals lists the originals of kind k in m.
func originals(m *redact.Map, k redact.Kind) []string { return m.Originals(k) }

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n want " + al[i] + "\n  got " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestRedactDiagnosisSurvivesSample(t *testing.T) {
	t.Parallel()
	checkDiagnosisSurvives(t, sample, t.TempDir())
}

// Every detector test bundle (detectors/*/testdata/*.txtar: every layout,
// compose prefixes, skew, rotation, gzip, near misses) gives the same
// findings redacted. go test takes every fourth bundle (testBundles), the
// e2e tests the others (TestRedactDiagnosisSurvivesTheOtherTestBundles).
func TestRedactDiagnosisSurvivesTestBundles(t *testing.T) {
	t.Parallel()
	cases, _ := testBundles(t)
	if testing.Short() {
		cases = cases[:len(cases)/8]
	}
	for _, c := range cases {
		checkTestBundle(t, c)
	}
}

// testBundles splits the detector test bundles, in path order, into every
// fourth one and the others. The 25 of every fourth (of 98) hold between
// them a bundle of every detector folder, every layout (L1 to L6,
// L2-compose), rotated and not, gzipped and not, near misses and literal
// files.
func testBundles(t *testing.T) (fourth, others []string) {
	t.Helper()
	cases, err := filepath.Glob("../../detectors/*/testdata/*.txtar")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no test bundles: %v", err)
	}
	for i, c := range cases {
		if i%4 == 0 {
			fourth = append(fourth, c)
		} else {
			others = append(others, c)
		}
	}
	return fourth, others
}

// checkTestBundle checks, in a subtest, that the test bundle of the case c
// gives the same findings redacted.
func checkTestBundle(t *testing.T, c string) {
	name := filepath.Base(filepath.Dir(filepath.Dir(c))) + "/" + strings.TrimSuffix(filepath.Base(c), ".txtar")
	t.Run(name, func(t *testing.T) {
		dir := t.TempDir()
		bundle := filepath.Join(dir, "bundle")
		if _, err := detectortest.BuildFile(c, bundle); err != nil {
			t.Fatal(err)
		}
		checkDiagnosisSurvives(t, bundle, dir)
	})
}

// A map that cannot be read or written is a usage error, found before any
// input is read (the input here does not even exist).
func TestRedactMapUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o600)
	for name, mapFile := range map[string]string{
		"unparsable":  bad,
		"a directory": dir,
		"no such dir": filepath.Join(dir, "missing", "map.json"),
	} {
		code, _, stderr := runCLI(t, "redact", "--map", mapFile, "--output", filepath.Join(dir, "out"), filepath.Join(dir, "no-such-input"))
		if code != exitUsage || !strings.Contains(stderr, "--map") {
			t.Errorf("%s map: exit %d, stderr %q; want %d and a --map error", name, code, stderr, exitUsage)
		}
		code, _, stderr = runCLI(t, "analyze", "--redact", "--map", mapFile, filepath.Join(dir, "no-such-input"))
		if code != exitUsage || !strings.Contains(stderr, "--map") {
			t.Errorf("analyze --redact, %s map: exit %d, stderr %q", name, code, stderr)
		}
	}
	if code, _, _ := runCLI(t, "redact", filepath.Join(dir, "x")); code != exitUsage {
		t.Errorf("no --output: exit %d", code)
	}
	if code, _, _ := runCLI(t, "redact", "--output", dir, sample); code != exitUsage {
		t.Errorf("existing --output: exit %d", code)
	}
	if code, _, _ := runCLI(t, "redact", "--reverse", filepath.Join(dir, "r.json")); code != exitUsage {
		t.Errorf("--reverse without --map: exit %d", code)
	}
	// bad input is skipped and listed; the run goes on
	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	os.WriteFile(filepath.Join(in, "ozone-hadoop-om-ozn-om17.acmecorp.internal.log"), []byte("2026-08-23 10:05:00,000 [main] INFO org.apache.hadoop.ozone.om.OzoneManager: omNode-1[10.44.7.17:9862]: Stopping Ozone Manager\n"), 0o644)
	os.WriteFile(filepath.Join(in, "core.bin"), []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(in, "acmecorp-link"))
	code, _, stderr := runCLI(t, "redact", "--keyword", "AcmeCorp", "--keyword", "Acme, Inc", "--output", filepath.Join(dir, "in-out"), in)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"files read: 1", "files skipped or cut short: 2", "ELF executable", "symbolic link", "keyword-1-link", "keyword 1: ", "keyword 2: 0"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "keyword 3:") {
		t.Errorf("a keyword with a comma was split:\n%s", stderr)
	}
	for _, leak := range []string{"ozn-om17", "acmecorp", "10.44.7.17"} {
		if strings.Contains(stderr, leak) {
			t.Errorf("the summary names %q:\n%s", leak, stderr)
		}
	}
}

// analyze --redact gives the findings of redact + analyze, and its report
// names no host, domain or address of the cluster.
func TestAnalyzeRedact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "map.json")
	code, out, stderr := runCLI(t, "analyze", "--redact", "--map", mapFile, "--format", "json", "--fail-on", "never", sample)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var red jsonReport
	if err := json.Unmarshal([]byte(out), &red); err != nil {
		t.Fatal(err)
	}
	orig, _ := analyzeJSON(t, sample)
	if got, want := essence(red), essence(orig); !reflect.DeepEqual(got, want) {
		t.Fatalf("analyze --redact findings:\n got %v\nwant %v", got, want)
	}
	m, err := redact.LoadMap(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []redact.Kind{redact.KindHost, redact.KindDomain, redact.KindIPv4} {
		for _, o := range m.Originals(k) {
			if len(o) >= 4 && strings.Contains(out, o) {
				t.Errorf("analyze --redact report names %s %q", k, o)
			}
		}
	}
	if strings.Contains(out, "ozdoctor-redact-") {
		t.Error("the report shows the temporary copy's path")
	}
	// the same map, redact then analyze: the same report but for the input's name
	cp := filepath.Join(dir, "sample.tar.gz")
	if code, _, stderr := runCLI(t, "redact", "--map", mapFile, "--output", cp, sample); code != exitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	_, text := analyzeJSON(t, cp)
	var doc struct {
		Findings json.RawMessage `json:"findings"`
	}
	json.Unmarshal([]byte(out), &doc)
	a := strings.ReplaceAll(string(doc.Findings), "../../examples/bundles/sample.tar.gz", "X")
	b := strings.ReplaceAll(string(text), cp, "X")
	if a != b {
		t.Errorf("analyze --redact and redact + analyze differ:\n%s", firstDiff(a, b))
	}
}

// --reverse reads text, Markdown and HTML reports back too: no pseudonym
// of the map is left, and the cluster's names are back.
func TestRedactReverseFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "map.json")
	cp := filepath.Join(dir, "copy.tar.gz")
	if code, _, stderr := runCLI(t, "redact", "--map", mapFile, "--output", cp, sample); code != exitOK {
		t.Fatalf("redact: %d %s", code, stderr)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		code, out, stderr := runCLI(t, "analyze", "--format", format, "--fail-on", "never", cp)
		if code != exitOK {
			t.Fatalf("analyze %s: %d %s", format, code, stderr)
		}
		if strings.Contains(out, "example.com") || !strings.Contains(out, "domain-1.example") {
			t.Errorf("%s report of the copy: original domain present or pseudonym missing", format)
		}
		report := filepath.Join(dir, "report."+format)
		os.WriteFile(report, []byte(out), 0o644)
		back := filepath.Join(dir, "back."+format)
		if code, _, stderr := runCLI(t, "redact", "--reverse", "--map", mapFile, "--output", back, report); code != exitOK {
			t.Fatalf("reverse %s: %d %s", format, code, stderr)
		}
		b, _ := os.ReadFile(back)
		if strings.Contains(string(b), "domain-1.example") || strings.Contains(string(b), "198.18.") {
			t.Errorf("%s report read back still holds pseudonyms", format)
		}
		for _, want := range []string{"scm1.example.com", "dn1.example.com"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s report read back lacks %s", format, want)
			}
		}
	}
}
