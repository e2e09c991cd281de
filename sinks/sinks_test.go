package sinks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/report"
)

func sampleReport() *report.Result {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	var ev []detectors.Evidence
	for i := 0; i < 25; i++ {
		ev = append(ev, detectors.Evidence{File: "scm1/ozone-hadoop-scm-scm1.log", Line: 100 + i, Host: "scm1", Component: "scm",
			Time: t0.Add(time.Duration(i) * time.Second), Text: "line " + string(rune('a'+i))})
	}
	return &report.Result{
		Findings: detectors.FindingsOf([]detectors.Finding{
			{Detector: "w", Defect: "HDDS-2", Severity: detectors.Warning, Confidence: detectors.Medium, Title: "warn | pipe",
				Summary: "s2", Start: t0, End: t0, State: detectors.Firing, Evidence: ev[:1], Remediation: []string{"do <b> with `ozone admin <x>`"}},
			{Detector: "c", Defect: "HDDS-1", Severity: detectors.Critical, Confidence: detectors.High, Title: "crit",
				Summary: "s1", Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), State: detectors.Resolved, Evidence: ev,
				Entities:    detectors.Entities{Containers: []uint64{7}, Datanodes: []catalogue.Datanode{{UUID: "u1", Host: "dn1"}}},
				Remediation: []string{"step one\nsecond line", "step two"}, Facts: map[string]string{"b": "2", "a": "1"}},
		}),
		Coverage: report.Coverage{TimeZone: "UTC", Totals: report.Totals{Files: 2},
			Hosts: []report.HostCoverage{{Host: "scm1", Components: []string{"scm"}, Files: 1}},
			Files: report.FilesOf([]report.FileCoverage{{Path: "scm1/ozone-hadoop-scm-scm1.log", Host: "scm1", Component: "scm", Kind: "log",
				Layout: "L1", Bytes: 2048, Lines: 30, Records: 25, Signals: 25, First: t0, Last: t0.Add(24 * time.Second)},
				{Path: "scm1/ozone-hadoop-scm-scm1.log.1.gz", Host: "scm1", Component: "scm", Kind: "log", Truncated: 1, SilencesDropped: 4,
					Damaged: 2, DamagedLines: []int{3, 9}, Note: "gzip: unexpected EOF"}}),
			Skipped:   []bundle.Problem{{Path: "b.tgz!/../evil", Reason: "path escapes the bundle"}},
			Detectors: []report.DetectorCoverage{{Name: "c", Defect: "HDDS-1", Ran: true}, {Name: "o", Defect: "HDDS-3", Reason: "no om logs in the input"}}},
	}
}

func render(t *testing.T, format string) string {
	t.Helper()
	var b bytes.Buffer
	s, err := New(format, &b)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(sampleReport()); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestTextPutsCriticalFirstAndBoundsEvidence(t *testing.T) {
	out := render(t, "text")
	crit, warn := strings.Index(out, "CRITICAL  HDDS-1"), strings.Index(out, "WARNING  HDDS-2")
	if crit < 0 || warn < 0 || crit > warn {
		t.Errorf("critical finding must come first:\n%s", out)
	}
	if !strings.Contains(out, "... 15 more lines") || strings.Count(out, "scm1/ozone-hadoop-scm-scm1.log:") != 11 {
		t.Errorf("evidence not bounded to 10 lines per finding:\n%s", out)
	}
	for _, want := range []string{"resolved at 2026-08-23 12:00:00 UTC", "containers: #7", "dn1 (u1)", "1. step one\n         second line",
		"a: 1\n      b: 2", "b.tgz!/../evil: path escapes the bundle", "did not run: no om logs in the input", "time zone: UTC",
		"4 short silences left out"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q", want)
		}
	}
}

func TestMarkdownEscapesTables(t *testing.T) {
	out := render(t, "markdown")
	if !strings.HasPrefix(out, "# ozdoctor report") || !strings.Contains(out, `warn \| pipe`) || !strings.Contains(out, "do &lt;b&gt; with `ozone admin <x>`") {
		t.Errorf("markdown:\n%s", out)
	}
}

func TestJSONIsOneDocument(t *testing.T) {
	out := render(t, "json")
	var doc struct {
		Findings []map[string]any `json:"findings"`
		Coverage map[string]any   `json:"coverage"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("more than one JSON document")
	}
	if doc.Findings[0]["severity"] != "warning" || doc.Findings[1]["state"] != "resolved" || !strings.Contains(out, `"do <b> with`) {
		t.Errorf("json: %s", out)
	}
}

// TestStreamedJSON holds the JSON written a finding at a time to what
// encoding/json writes of the whole value: byte for byte, for one report and
// for several clusters, with and without findings.
func TestStreamedJSON(t *testing.T) {
	full, named := sampleReport(), sampleReport()
	named.Cluster = "prod <eu>"
	none := &report.Result{Coverage: full.Coverage}
	null := &report.Result{Cluster: "c2"}
	whole := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	type clusters struct {
		Clusters []*report.Result `json:"clusters"`
	}
	for name, c := range map[string]struct {
		reports []*report.Result
		want    string
	}{
		"findings":   {[]*report.Result{full}, whole(full)},
		"cluster":    {[]*report.Result{named}, whole(named)},
		"no finding": {[]*report.Result{none}, whole(none)},
		"nil":        {[]*report.Result{null}, whole(null)},
		"clusters":   {[]*report.Result{named, none, null}, whole(clusters{[]*report.Result{named, none, null}})},
		"no cluster": {[]*report.Result{}, whole(clusters{[]*report.Result{}})},
	} {
		var b bytes.Buffer
		if err := WriteReports("json", &b, c.reports); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s: streamed JSON differs from encoding/json's:\n%s\nwant:\n%s", name, b.String(), c.want)
		}
	}
}

// The JSON report of a run reads the same whether its file list went to
// a temporary file or not, whatever the files' names hold: HTML's
// characters, bytes that are not UTF-8.
func TestSpilledFileListReadsTheSame(t *testing.T) {
	dir := t.TempDir()
	s, r := scripts.Sample()
	if err := s.Render(dir, r); err != nil {
		t.Fatal(err)
	}
	logs, err := filepath.Glob(filepath.Join(dir, "*", "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no log in the sample: %v", err)
	}
	text, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(filepath.Dir(logs[0]), "copy <a&b> \xff\xfe.log")
	if err := os.WriteFile(odd, text, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(budget int64) string {
		res, err := analysis.Run(context.Background(), analysis.Options{Inputs: []string{dir},
			Detectors: registry.All(), SpillBudget: budget, SpillDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		res.Coverage.Stream.Spilled = 0
		var b bytes.Buffer
		if err := WriteReports("json", &b, []*report.Result{res}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	inMemory, spilled := run(0), run(16<<10)
	if !strings.Contains(inMemory, "copy <a&b> \\ufffd\\ufffd.log") {
		t.Fatalf("the odd file is not in the report:\n%.2000s", inMemory)
	}
	if spilled != inMemory {
		t.Errorf("the report differs with the file list spilled:\n%s\nheld:\n%s", spilled, inMemory)
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := New("yaml", &bytes.Buffer{}); err == nil {
		t.Error("want an error")
	}
}

// A value that cannot be read back (a finding lost from its spill file)
// fails the document with its error and stops the reading; so does a write
// that fails.
func TestSequenceStopsOnErrors(t *testing.T) {
	lost := errors.New("findings: reading back: lost")
	var read atomic.Int64
	at := func(i int) (int, error) {
		read.Add(1)
		if i == 2 {
			return 0, lost
		}
		return i, nil
	}
	var out bytes.Buffer
	j := &jsonWriter{w: bufio.NewWriter(&out)}
	sequence(j, "", 100_000, at)
	j.w.Flush()
	if !errors.Is(j.err, lost) || read.Load() > 100 {
		t.Errorf("a value that could not be read: error %v, %d values read", j.err, read.Load())
	}
	if want := "[\n  0,\n  1,\n  "; out.String() != want {
		t.Errorf("wrote %q before the error, want %q", out.String(), want)
	}

	read.Store(0)
	failing := &jsonWriter{w: bufio.NewWriterSize(failingWriter{}, 16)}
	sequence(failing, "", 100_000, func(i int) (int, error) { read.Add(1); return i, nil })
	if failing.err == nil || read.Load() > 1000 {
		t.Errorf("a failed write: error %v, %d values read on", failing.err, read.Load())
	}
}

// The values come out in order, whichever worker reads each.
func TestSequenceKeepsOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000} {
		var got bytes.Buffer
		j := &jsonWriter{w: bufio.NewWriter(&got)}
		sequence(j, "", n, func(i int) (int, error) { return i, nil })
		j.w.Flush()
		nums := make([]int, n)
		for i := range nums {
			nums[i] = i
		}
		want, _ := json.MarshalIndent(nums, "", "  ")
		if j.err != nil || got.String() != string(want) {
			t.Errorf("%d values: %v, wrote %.200q, want %.200q", n, j.err, got.String(), want)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// appendIndented indents encoding/json's output as json.Indent does:
// nested and empty objects and arrays, strings holding the characters
// that structure JSON and escaped quotes and backslashes, at a prefix.
func FuzzAppendIndented(f *testing.F) {
	var b bytes.Buffer
	if err := WriteReports("json", &b, []*report.Result{sampleReport()}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String(), "")
	f.Add(`{"a":[],"b":{},"c":[{}],"d":[[],[1,2]],"e":{"f":{"g":null}}}`, "  ")
	f.Add(`["{[,:]}","a\"b","a\\","\\\"",{"\"{":"\\u0022"},true,false,-1.5e3]`, "\t")
	f.Add(`"plain"`, "")
	f.Fuzz(func(t *testing.T, doc, prefix string) {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(doc)) != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), prefix, "  "); err != nil {
			t.Fatal(err)
		}
		if got := appendIndented(nil, compact.Bytes(), prefix); string(got) != want.String() {
			t.Errorf("%s indented at %q:\n%s\nwant:\n%s", compact.Bytes(), prefix, got, want.Bytes())
		}
	})
}

// BenchmarkJSONReport writes a report of 1,000 findings of 25 evidence lines
// each (the dense bundle's report is about that size).
func BenchmarkJSONReport(b *testing.B) {
	r := sampleReport()
	var many []detectors.Finding
	for f := range r.Findings.All() {
		if len(f.Evidence) == 25 {
			for range 1000 {
				many = append(many, f)
			}
		}
	}
	r.Findings = detectors.FindingsOf(many)
	var n int64
	for b.Loop() {
		var out countingWriter
		if err := WriteReports("json", &out, []*report.Result{r}); err != nil {
			b.Fatal(err)
		}
		n = int64(out)
	}
	b.SetBytes(n)
}

type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

// A report of many findings starts with an index by problem and by host;
// one of a few does not.
func TestTextIndexesManyFindings(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	var fs []detectors.Finding
	for i := range 12 {
		f := detectors.Finding{Detector: "dn-volume-failed", Defect: "dn-volume-failure", Severity: detectors.Warning,
			Start: t0.Add(time.Duration(i) * time.Minute), State: detectors.Firing,
			Entities: detectors.Entities{Hosts: []string{fmt.Sprintf("dn%d", i%3)}}}
		if i%4 == 0 {
			f.Detector, f.Defect, f.Severity = "empty-quasi-closed-delete", "HDDS-16809", detectors.Critical
		}
		fs = append(fs, f)
	}
	write := func(fs []detectors.Finding) string {
		var b bytes.Buffer
		s, _ := New("text", &b)
		if err := s.Write(&report.Result{Findings: detectors.FindingsOf(fs)}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out := write(fs)
	for _, want := range []string{"By problem:", "dn-volume-failure ", " 9 (9 warning): [4] [5]", "HDDS-16809 (empty-quasi-closed-delete)",
		" 3 (3 critical): [1] [2] [3]", "By host:", "dn0 ", " 4 (1 critical, 3 warning): [1] [6] [8] [10]"} {
		if !strings.Contains(out, want) {
			t.Errorf("index lacks %q:\n%s", want, out)
		}
	}
	if out := write(fs[:10]); strings.Contains(out, "By problem:") {
		t.Errorf("an index for 10 findings:\n%s", out)
	}
}
