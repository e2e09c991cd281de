package sinks

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/report"
)

type textSink struct{ w io.Writer }

// textEvidence is how many evidence lines a terminal report shows per
// finding: the first and the last half of them.
const textEvidence = 10

// Write renders the report for a terminal: findings first, then coverage.
func (s textSink) Write(r *report.Result) error {
	fs, err := sorted(r)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(s.w)
	c := r.Coverage
	fmt.Fprint(w, "ozdoctor: ")
	if r.Cluster != "" {
		fmt.Fprintf(w, "cluster %s: ", r.Cluster)
	}
	if len(fs) == 0 {
		fmt.Fprintf(w, "no findings in %d files from %d hosts (%s to %s)\n", c.Totals.Files, len(c.Hosts), stamp(c.Start), stamp(c.End))
	} else {
		fmt.Fprintf(w, "%d findings (%s) in %d files from %d hosts (%s to %s)\n", len(fs), counts(fs), c.Totals.Files, len(c.Hosts), stamp(c.Start), stamp(c.End))
	}
	if len(fs) > groupAbove {
		writeIndex(w, fs)
	}
	for i, f := range fs {
		fmt.Fprintf(w, "\n[%d] %s  %s  %s\n", i+1, strings.ToUpper(f.Severity.String()), f.Defect, f.Title)
		fmt.Fprintf(w, "    %s · confidence %s · %s · %s to %s\n", f.Detector, f.Confidence, stateText(f), stamp(f.Start), stamp(f.End))
		fmt.Fprintf(w, "    %s\n", f.Summary)
		for _, l := range entityLines(f.Entities) {
			fmt.Fprintf(w, "    %s\n", l)
		}
		fmt.Fprintf(w, "    evidence (%d):\n", len(f.Evidence))
		for j, e := range f.Evidence {
			hidden := len(f.Evidence) - textEvidence
			switch {
			case hidden > 0 && j == textEvidence/2:
				fmt.Fprintf(w, "      ... %d more lines (all of them with --format json or markdown)\n", hidden)
				fallthrough
			case hidden > 0 && j >= textEvidence/2 && j < textEvidence/2+hidden:
				continue
			}
			fmt.Fprintf(w, "      %s %s %s:%d\n        %s\n", stamp(e.Time), e.Host, e.File, e.Line, clip(e.Text, 400))
		}
		fmt.Fprintln(w, "    remediation:")
		for j, step := range f.Remediation {
			fmt.Fprintf(w, "      %d. %s\n", j+1, indent(step, "         "))
		}
		if facts := factLines(f.Facts); len(facts) > 0 {
			fmt.Fprintln(w, "    facts:")
			for _, l := range facts {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
	writeCoverageText(w, c)
	if err := c.Files.Err(); err != nil {
		return err
	}
	return w.Flush()
}

// groupAbove is how many findings a text report lists before it starts
// with an index of them by problem and by host.
const groupAbove = 10

// writeIndex lists the findings' numbers by problem, then by host, so that
// a report of many findings reads from the top.
func writeIndex(w io.Writer, fs []detectors.Finding) {
	type group struct {
		name string
		fs   []int // finding numbers
		sev  []detectors.Finding
	}
	index := func(key func(f detectors.Finding) []string) []*group {
		byName := map[string]*group{}
		var order []*group
		for i, f := range fs {
			for _, k := range key(f) {
				g := byName[k]
				if g == nil {
					g = &group{name: k}
					byName[k] = g
					order = append(order, g)
				}
				g.fs = append(g.fs, i+1)
				g.sev = append(g.sev, f)
			}
		}
		slices.SortStableFunc(order, func(a, b *group) int { return len(b.fs) - len(a.fs) })
		return order
	}
	numbers := func(ns []int) string {
		var b strings.Builder
		for i, n := range ns {
			if i == 10 {
				fmt.Fprintf(&b, " +%d more", len(ns)-i)
				break
			}
			fmt.Fprintf(&b, " [%d]", n)
		}
		return b.String()
	}
	fmt.Fprintln(w, "\nBy problem:")
	for _, g := range index(func(f detectors.Finding) []string {
		if f.Defect == f.Detector {
			return []string{f.Defect}
		}
		return []string{f.Defect + " (" + f.Detector + ")"}
	}) {
		fmt.Fprintf(w, "  %-50s %d (%s):%s\n", g.name, len(g.fs), counts(g.sev), numbers(g.fs))
	}
	fmt.Fprintln(w, "By host:")
	for _, g := range index(func(f detectors.Finding) []string {
		if len(f.Entities.Hosts) == 0 {
			return []string{"(no host)"}
		}
		return f.Entities.Hosts
	}) {
		fmt.Fprintf(w, "  %-50s %d (%s):%s\n", g.name, len(g.fs), counts(g.sev), numbers(g.fs))
	}
}

func writeCoverageText(w io.Writer, c report.Coverage) {
	fmt.Fprintln(w, "\nCoverage")
	fmt.Fprintf(w, "  time zone: %s (log timestamps carry no zone; --tz and --host-tz set it)\n", c.TimeZone)
	for h, z := range c.HostZones {
		fmt.Fprintf(w, "    %s: %s\n", h, z)
	}
	t := c.Totals
	fmt.Fprintf(w, "  read: %d files, %s, %d lines, %d records, %d signals", t.Files, humanBytes(t.Bytes), t.Lines, t.Records, t.Signals)
	if t.Samples > 0 {
		fmt.Fprintf(w, ", %d metric samples", t.Samples)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "  hosts:")
	for _, h := range c.Hosts {
		fmt.Fprintf(w, "    %-28s %-20s %3d files %9d records  %s to %s\n", h.Host, strings.Join(h.Components, ","), h.Files, h.Records, stamp(h.First), stamp(h.Last))
	}
	var notes []string
	for f := range c.Files.All() {
		if problems := readProblems(f); problems != "" {
			notes = append(notes, fmt.Sprintf("    %s: %s", f.Path, problems))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "  partly read:")
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
	if len(c.Skipped) > 0 {
		fmt.Fprintf(w, "  not read (%d):\n", len(c.Skipped))
		for _, p := range c.Skipped {
			fmt.Fprintf(w, "    %s: %s\n", p.Path, p.Reason)
		}
	}
	fmt.Fprintln(w, "  detectors:")
	nameWidth, defectWidth := 30, 11
	for _, d := range c.Detectors {
		nameWidth, defectWidth = max(nameWidth, len(d.Name)), max(defectWidth, len(d.Defect))
	}
	for _, d := range c.Detectors {
		if d.Ran {
			fmt.Fprintf(w, "    %-*s %-*s ran\n", nameWidth, d.Name, defectWidth, d.Defect)
		} else {
			fmt.Fprintf(w, "    %-*s %-*s did not run: %s\n", nameWidth, d.Name, defectWidth, d.Defect, d.Reason)
		}
	}
	for _, r := range c.Replaced {
		fmt.Fprintf(w, "    %s\n", r)
	}
	if len(c.Versions) > 0 {
		fmt.Fprintln(w, "  Ozone versions (STARTUP_MSG):")
		for _, v := range c.Versions {
			fmt.Fprintf(w, "    %-9s %-16s %s\n", v.Component, v.Version, strings.Join(v.Hosts, ", "))
		}
	}
	if len(c.Offsets) > 0 {
		fmt.Fprintln(w, "  clock offsets:")
		for _, o := range c.Offsets {
			fmt.Fprintf(w, "    %s: %v against %s (%d paired events)\n", o.Host, o.Offset, o.Reference, o.Pairs)
		}
	}
	if len(c.Settings) > 0 {
		fmt.Fprintln(w, "  settings judged against:")
		for _, s := range c.Settings {
			fmt.Fprintf(w, "    %s = %s (%s)\n", s.Key, s.Value, s.Source)
		}
	}
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// clip shortens s to n bytes for a terminal.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + " …"
}

// lineList prints line numbers, with "…" when there were more than listed.
func lineList(lines []int, total int64) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	if int64(len(lines)) < total {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}

// readProblems says what of a file could not be read or was left out (""
// when nothing was).
func readProblems(f report.FileCoverage) string {
	var parts []string
	if f.Unparsed > 0 {
		parts = append(parts, fmt.Sprintf("%d unparsed lines", f.Unparsed))
	}
	if f.Damaged > 0 {
		parts = append(parts, fmt.Sprintf("%d of them damaged or hand-edited (lines %s)", f.Damaged, lineList(f.DamagedLines, f.Damaged)))
	}
	if f.Binary > 0 {
		parts = append(parts, fmt.Sprintf("%d binary lines", f.Binary))
	}
	if f.Truncated > 0 {
		parts = append(parts, fmt.Sprintf("%d truncated lines", f.Truncated))
	}
	if f.SilencesDropped > 0 {
		parts = append(parts, fmt.Sprintf("%d short silences left out (over a thousand between two signals)", f.SilencesDropped))
	}
	if f.Note != "" && (f.Note == "no known log layout" || strings.Contains(f.Note, " unknown: ") || len(parts) > 0) {
		parts = append(parts, f.Note)
	}
	return strings.Join(parts, ", ")
}
