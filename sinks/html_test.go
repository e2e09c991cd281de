package sinks

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/report"
)

const hostile = `<script>alert("x")</script>`

// htmlReport is a report with two findings on several hosts: a pause with
// its silence, restarts, an undated line, hostile text everywhere text can
// go, a clock offset, and one lane far denser than a timeline can show.
func htmlReport() *report.Result {
	t0 := time.Date(2026, 8, 23, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	ev := func(host, comp string, d time.Duration, text string) detectors.Evidence {
		return detectors.Evidence{File: host + "/ozone-" + comp + ".log", Line: int(d / time.Second), Host: host, Component: comp, Time: at(d), Text: text}
	}
	pause := []detectors.Evidence{
		ev("scm1", "scm", 20*time.Minute, "no record for 7m30s (2026-08-23T09:12:30Z to 2026-08-23T09:20:00Z)"),
		ev("scm1", "scm", 20*time.Minute+time.Second, "JvmPauseMonitor-x: Detected pause in JVM or host machine approximately 450.000s without any GCs."),
		ev("scm1", "scm", 21*time.Minute, "Datanode u1(dn1/10.0.0.1) moved to stale state. "+hostile),
		ev("dn1", "datanode", 21*time.Minute+10*time.Second, "STARTUP_MSG: "),
		ev("om4", "om", 21*time.Minute+30*time.Second, "omNode-4@group-B9: changes role from    LEADER to FOLLOWER at term 5 for StepDownReason:LOST_MAJORITY_HEARTBEATS"),
		ev("om4", "om", 22*time.Minute, "SHUTDOWN_MSG: "),
		{File: "om4/x.log", Line: 9, Host: "om4", Component: "om", Text: "Failed to Bootstrap OM. (no time)"},
	}
	var dense []detectors.Evidence
	for i := range 1200 {
		dense = append(dense, ev("dn2", "datanode", time.Duration(i)*3*time.Second, fmt.Sprintf("Can't close container #%d", i)))
	}
	hostileHost := `dn"><img src=x onerror=alert(1)>`
	dense = append(dense, ev(hostileHost, "datanode", time.Hour, "ok"))
	return &report.Result{
		Findings: detectors.FindingsOf([]detectors.Finding{
			{Detector: "scm-pause-stale-nodes", Defect: "HDDS-17519", Severity: detectors.Warning, Confidence: detectors.High,
				Title: "Live datanodes marked STALE " + hostile, Summary: "The SCM paused; run `ozone admin datanode list` " + hostile,
				Start: at(12*time.Minute + 30*time.Second), End: at(22 * time.Minute), State: detectors.Resolved, Evidence: pause,
				Entities: detectors.Entities{Hosts: []string{"scm1", hostile}},
				Facts:    map[string]string{"pause": "7m30s", "pause_end": "2026-08-23T09:20:01Z", "z": hostile, "a": "1"},
				Remediation: []string{
					"Check `ozone admin datanode list --node-state STALE` and `ozone admin pipeline list` (or `ozone admin safemode status`).",
					"Do not run `ozone admin scm transfer` now. A stopped process (SIGSTOP, a debugger, `jstack -F`) pauses too.",
					"Hostile: `ozone " + hostile + "`",
				}},
			{Detector: "raft-division-stuck-closing", Defect: "HDDS-17674", Severity: detectors.Critical, Confidence: detectors.Medium,
				Title: "Division stuck", Summary: "s", Start: at(0), End: at(time.Hour), State: detectors.Firing, Evidence: dense,
				Remediation: []string{"Restart: `ozone --daemon stop datanode`"}},
		}),
		Coverage: report.Coverage{Inputs: []string{"bundle " + hostile + ".tgz"}, TimeZone: "UTC", HostZones: map[string]string{"dn1": "Europe/Berlin", "dn2": "UTC"},
			Start: t0, End: at(time.Hour), Totals: report.Totals{Files: 3, Bytes: 12345},
			Hosts: []report.HostCoverage{
				{Host: "scm1", Components: []string{"scm"}, Files: 1, First: t0, Last: at(time.Hour)},
				{Host: "om4", Components: []string{"om"}, Files: 1, First: t0, Last: at(22 * time.Minute)},
				{Host: "dn1", Components: []string{"datanode"}, Files: 1, First: t0, Last: at(time.Hour)},
				{Host: "dn2", Components: []string{"datanode"}, Files: 1, First: t0, Last: at(time.Hour)},
			},
			Files: report.FilesOf([]report.FileCoverage{
				{Path: "scm1/ozone-scm.log", Host: "scm1", Component: "scm", First: t0, Last: at(12 * time.Minute)},
				{Path: "scm1/ozone-scm.log.1", Host: "scm1", Component: "scm", First: at(20 * time.Minute), Last: at(time.Hour)},
				{Path: "dn1/x.log " + hostile, Host: "dn1", Component: "datanode", Unparsed: 3, First: t0, Last: at(time.Hour)},
			}),
			Skipped:   []bundle.Problem{{Path: "b.tgz!/../evil", Reason: "path escapes the bundle " + hostile}},
			Detectors: []report.DetectorCoverage{{Name: "scm-pause-stale-nodes", Defect: "HDDS-17519", Ran: true}, {Name: "om-bootstrap-exit-voter", Defect: "HDDS-16839", Reason: "no om logs " + hostile}},
			Settings:  []report.Setting{{Key: "ozone.scm.stale.node.interval", Value: "5m", Source: "default"}},
			Offsets:   []report.ClockOffset{{Host: "om4", Reference: "om1", Offset: -4 * time.Second, Pairs: 4, Applied: true}},
		},
	}
}

func renderHTML(t *testing.T, r *report.Result) string {
	t.Helper()
	var b bytes.Buffer
	s, err := New("html", &b)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// section returns the HTML of the element with id, up to the next section.
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no element with id %q", id)
	}
	rest := page[i:]
	if j := strings.Index(rest[1:], "<section"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

func TestHTMLStructure(t *testing.T) {
	page := renderHTML(t, htmlReport())
	if !strings.HasPrefix(page, "<!DOCTYPE html>\n<html lang=\"en\">") || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
		t.Fatalf("not one whole page:\n%.300s", page)
	}
	for _, want := range []string{"<header>", `<main id="main">`, `<section id="summary"`, `<section id="overview"`, `<section id="coverage"`,
		`<th scope="col">file:line</th>`, `<th scope="row">`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// summary: severities as words and icons, the input, the zone, what was not read
	sum := section(t, page, "summary")
	for _, want := range []string{"<strong>1</strong> critical", "<strong>1</strong> warning", "<strong>0</strong> info", "✖", "⚠",
		"Time zone assumed</dt><dd>UTC", "dn1: Europe/Berlin", "1 input(s) skipped", "1 file(s) partly read",
		"<code>om-bootstrap-exit-voter</code> (no om logs &lt;script&gt;", "om4 −4s against om1 (applied)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	// critical first
	f1, f2 := section(t, page, "finding-1"), section(t, page, "finding-2")
	if !strings.Contains(f1, "HDDS-17674: Division stuck") || !strings.Contains(f2, "HDDS-17519") {
		t.Fatalf("findings not ordered most severe first")
	}
	for _, want := range []string{"<dt>Severity</dt><dd>warning</dd>", "<dt>Confidence</dt><dd>high</dd>", "resolved at 2026-08-23 09:22:00 UTC",
		"<code>scm-pause-stale-nodes</code>", "<code>ozone admin datanode list</code>", // summary code span
		"hosts: scm1, &lt;script&gt;", // entities
		// evidence with time, host and file:line
		`<td class="nowrap">2026-08-23 09:21:00.000Z</td><td>scm1 <span class="muted">scm</span></td><td class="origin">scm1/ozone-scm.log:1260</td>`,
		`<tr><th scope="row">7</th><td class="nowrap">-</td>`,
		// timeline: lanes per host grouped by component, spans, restarts, offsets
		`<text class="group" x="6"`, `>scm1</text>`, `>dn1</text>`, `>om4<tspan class="sub"> (clock −4s)</tspan></text>`,
		`class="span-silence"`, `class="span-pause"`, "silence 7m30s", "pause 7m30s",
		`class="mark m-start"`, `class="mark m-stop"`, `class="mark m-pause"`, `class="mark m-silence"`, `class="mark m-event"`,
		`class="mark m-leader"`, "→FOLLOWER #5",
		`class="band-window"`, "finding window",
		"1 evidence line(s) without a time", "Clock offset applied: om4&#39;s times shifted by &#43;4s to match om1",
		// remediation: copyable commands, not the ones warned against or named in passing
		`<pre><code>ozone admin datanode list --node-state STALE</code></pre><button type="button" class="copy" hidden>Copy</button>`,
		`<pre><code>ozone admin pipeline list</code></pre>`, `<pre><code>ozone admin safemode status</code></pre>`,
		"<summary>Facts (4)</summary>",
	} {
		if !strings.Contains(f2, want) {
			t.Errorf("finding 2 lacks %q", want)
		}
	}
	for _, not := range []string{"<pre><code>ozone admin scm transfer", "<pre><code>jstack -F"} {
		if strings.Contains(f2, not) {
			t.Errorf("finding 2 offers %q to copy", not)
		}
	}
	// The pause is drawn once although three sources tell it: two lines and the facts.
	if n := strings.Count(f2, `class="span-pause"`) + strings.Count(f2, `class="band-pause"`); n != 1 {
		t.Errorf("pause drawn %d times", n)
	}
	lanes := regexp.MustCompile(`<text class="lanelabel"[^>]*>([^<]*)`).FindAllStringSubmatch(f2, -1)
	var names []string
	for _, l := range lanes {
		names = append(names, l[1])
	}
	if want := []string{"scm1", "om4", "dn1"}; !slices.Equal(names, want) {
		t.Errorf("finding 2 lanes %q, want %q (scm, om, datanode)", names, want)
	}
	// overview: one lane per host, findings as bands linking to their sections
	ov := section(t, page, "overview")
	for _, want := range []string{`<a href="#finding-1">`, `<a href="#finding-2">`, `class="activity"`, `class="bar-critical"`, `class="band-warning"`,
		`data-t0="`, `<div class="zoom" role="group" aria-label="Zoom the timeline" hidden>`, `tabindex="0"`} {
		if !strings.Contains(ov, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	lanes = regexp.MustCompile(`<text class="lanelabel"[^>]*>([^<]*)`).FindAllStringSubmatch(ov, -1)
	names = names[:0]
	for _, l := range lanes {
		names = append(names, l[1])
	}
	if want := []string{"scm1", "om4", "dn&#34;&gt;&lt;img src=x onerror=alert(1)&gt;", "dn1", "dn2"}; !slices.Equal(names, want) {
		t.Errorf("overview lanes %q, want %q", names, want)
	}
	// the scm1 lane shows its two files as two stretches of activity
	if n := strings.Count(ov, `class="activity"`); n != 3 {
		t.Errorf("%d activity bars, want 3 (scm1 twice, dn1)", n)
	}
	// coverage tables
	cov := section(t, page, "coverage")
	for _, want := range []string{`id="hosts"`, `id="files"`, `id="skipped"`, `id="detectors"`, `id="settings"`, `id="offsets"`,
		"b.tgz!/../evil", "ozone.scm.stale.node.interval", "yes: times shifted", "3 unparsed lines"} {
		if !strings.Contains(cov, want) {
			t.Errorf("coverage lacks %q", want)
		}
	}
}

func TestHTMLDownsamplesDenseLanes(t *testing.T) {
	page := renderHTML(t, htmlReport())
	f1 := section(t, page, "finding-1")
	marks := strings.Count(f1, `<g class="mark `)
	if marks > maxLaneMarks+1 {
		t.Errorf("%d marks drawn for a lane of 1200 lines, want at most %d (+1 on another lane)", marks, maxLaneMarks)
	}
	if !strings.Contains(f1, "m-cluster") || !regexp.MustCompile(`dn2: \d+ marks merged into clusters \(at most 500 per lane\)`).MatchString(f1) {
		t.Errorf("finding 1 does not say how many marks were merged")
	}
	// the evidence table still lists every line
	if n := strings.Count(f1, `<pre class="line">Can&#39;t close container #`); n != 1200 {
		t.Errorf("evidence table lists %d of 1200 lines", n)
	}
}

func TestHTMLEscapesAndLoadsNothing(t *testing.T) {
	page := renderHTML(t, htmlReport())
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d <script> elements, want only the report's own", n)
	}
	for _, bad := range []string{hostile, "<img", `alert("x")`, "onerror=alert(1)>"} {
		if strings.Contains(page, bad) {
			t.Errorf("hostile text %q reached the page unescaped", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("hostile text was dropped instead of escaped")
	}
	// No external resource: every src/href/action of every tag is a
	// fragment. (Escaped text holds no "<", so this sees only real tags.)
	attr := regexp.MustCompile(`(?i)\s(src|href|xlink:href|action|formaction|poster|srcset|data)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
	links := 0
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		for _, m := range attr.FindAllStringSubmatch(tag, -1) {
			links++
			if v := strings.Trim(m[2], `"'`); !strings.HasPrefix(v, "#") {
				t.Errorf("%s=%q is not a fragment", m[1], v)
			}
		}
	}
	if links == 0 {
		t.Error("no link found at all: the scan is broken")
	}
	for _, bad := range []string{"http://", "https://", "<link", "<iframe", "<object", "<embed", "@import", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`url\(([^)]*)\)`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("url(%s) is not a fragment", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`(?i)(src|href)\s*=\s*"(//[^"]*)"`).FindAllStringSubmatch(page, -1) {
		t.Errorf("protocol-relative %s=%q", m[1], m[2])
	}
}

func TestHTMLIsDeterministic(t *testing.T) {
	first := renderHTML(t, htmlReport())
	for range 5 {
		if renderHTML(t, htmlReport()) != first {
			t.Fatal("the same report gave different bytes")
		}
	}
}

func TestHTMLWithoutFindingsOrRecords(t *testing.T) {
	page := renderHTML(t, &report.Result{Coverage: report.Coverage{TimeZone: "UTC", Inputs: []string{"missing.log"},
		Skipped: []bundle.Problem{{Path: "missing.log", Reason: "no such file"}}}})
	for _, want := range []string{"0 findings", "No finding", "missing.log", "no such file"} {
		if !strings.Contains(page, want) {
			t.Errorf("empty report lacks %q", want)
		}
	}
	if strings.Contains(page, `id="overview"`) {
		t.Error("an overview of no records")
	}
}

func TestClipRunesKeepsUTF8(t *testing.T) {
	if got := clipRunes("ééé", 2); got != "éé …" {
		t.Errorf("clipRunes: %q", got)
	}
	if got := clipRunes("abc", 3); got != "abc" {
		t.Errorf("clipRunes: %q", got)
	}
}

func TestRemediationCommands(t *testing.T) {
	for step, want := range map[string][]string{
		"Start it: `ozone --daemon start om` (or `ozone om` in the foreground). Do not re-run `ozone om --bootstrap`: it fails.": {"ozone --daemon start om", "ozone om"},
		"`ozone admin pipeline close p1` and `ozone admin container close <id>` only re-drive SCM and do not unblock it.":        nil,
		"Confirm: `ozone admin datanode list --node-state STALE` should not list dn1.":                                           {"ozone admin datanode list --node-state STALE"},
		"A stopped process (SIGSTOP, a debugger, `jstack -F`). Then `jstack <pid>`.":                                             {"jstack <pid>"},
		"The log shows `Succeed to remove RaftStorageDirectory` and `ozone_build_info` drops.":                                   nil,
	} {
		if got := newHTMLStep(step).Commands; !slices.Equal(got, want) {
			t.Errorf("%q: commands %q, want %q", step, got, want)
		}
	}
}

func TestTicksNameANewDay(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 23, 0, 0, 0, time.UTC)
	var labels []string
	for _, tk := range ticks(scale{t0, t0.Add(2 * time.Hour)}) {
		labels = append(labels, tk.Label)
	}
	if !slices.Contains(labels, "Aug 24") || !slices.Contains(labels, "23:00") || len(labels) < 4 || len(labels) > 9 {
		t.Errorf("ticks %q", labels)
	}
}
