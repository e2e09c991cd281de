package sinks

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ozdoctor/ozdoctor/report"
)

type markdownSink struct{ w io.Writer }

// Write renders the report as Markdown (for tickets and chat).
func (s markdownSink) Write(r *report.Result) error {
	fs, err := sorted(r)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(s.w)
	c := r.Coverage
	fmt.Fprint(w, "# ozdoctor report")
	if r.Cluster != "" {
		fmt.Fprintf(w, ": cluster %s", mdEscape(r.Cluster))
	}
	fmt.Fprintf(w, "\n\n%d findings", len(fs))
	if len(fs) > 0 {
		fmt.Fprintf(w, " (%s)", counts(fs))
	}
	fmt.Fprintf(w, " in %d files from %d hosts, %s to %s.\n", c.Totals.Files, len(c.Hosts), stamp(c.Start), stamp(c.End))
	for _, f := range fs {
		fmt.Fprintf(w, "\n## %s %s: %s\n\n", strings.ToUpper(f.Severity.String()), f.Defect, mdEscape(f.Title))
		fmt.Fprintf(w, "`%s` · confidence **%s** · %s · %s to %s\n\n%s\n\n", f.Detector, f.Confidence, stateText(f), stamp(f.Start), stamp(f.End), mdEscape(f.Summary))
		for _, l := range entityLines(f.Entities) {
			fmt.Fprintf(w, "- %s\n", mdEscape(l))
		}
		fmt.Fprintf(w, "\n### Evidence\n\n```\n")
		for _, e := range f.Evidence {
			fmt.Fprintf(w, "%s %s %s:%d\n  %s\n", stamp(e.Time), e.Host, e.File, e.Line, strings.ReplaceAll(e.Text, "```", "'''"))
		}
		fmt.Fprintf(w, "```\n\n### Remediation\n\n")
		for i, step := range f.Remediation {
			fmt.Fprintf(w, "%d. %s\n", i+1, indent(mdEscape(step), "   "))
		}
		if facts := factLines(f.Facts); len(facts) > 0 {
			fmt.Fprintf(w, "\n### Facts\n\n")
			for _, l := range facts {
				fmt.Fprintf(w, "- %s\n", mdEscape(l))
			}
		}
	}
	fmt.Fprintf(w, "\n## Coverage\n\nTime zone assumed: %s.\n\n| host | components | files | records | first | last |\n|---|---|---|---|---|---|\n", c.TimeZone)
	for _, h := range c.Hosts {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s |\n", mdEscape(h.Host), strings.Join(h.Components, ", "), h.Files, h.Records, stamp(h.First), stamp(h.Last))
	}
	if len(c.Skipped) > 0 {
		fmt.Fprintf(w, "\nNot read:\n\n")
		for _, p := range c.Skipped {
			fmt.Fprintf(w, "- `%s`: %s\n", p.Path, mdEscape(p.Reason))
		}
	}
	fmt.Fprintf(w, "\n| detector | defect | ran |\n|---|---|---|\n")
	for _, d := range c.Detectors {
		ran := "yes"
		if !d.Ran {
			ran = "no: " + d.Reason
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", d.Name, d.Defect, mdEscape(ran))
	}
	return w.Flush()
}

// mdEscape escapes text for Markdown tables and paragraphs, leaving code
// spans (`...`) as they are: inside them Markdown shows characters literally.
func mdEscape(s string) string {
	esc := strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = esc.Replace(parts[i])
	}
	return strings.Join(parts, "`")
}
