package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/rules"
)

// The README's table of defects is the registry's detectors and built-in
// signatures of a known defect: each one's defect, title and name, in
// registry.Defects' order.
func TestReadmeListsTheDefects(t *testing.T) {
	want, err := defectTable()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n"+want+"<!-- end of defects -->") {
		t.Errorf("README.md's table of defects differs from the registry's; it should read:\n%s", want)
	}
}

// defectTable renders the README's table of the known defects.
func defectTable() (string, error) {
	regs, err := registry.Defects()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("<!-- defects: generated from the registry; TestReadmeListsTheDefects fails when it drifts -->\n")
	b.WriteString("| defect | what happens | detector |\n|---|---|---|\n")
	for _, r := range regs {
		fmt.Fprintf(&b, "| %s | %s | `%s` |\n", r.Doc.Defect, cell(r.Doc.Title), r.Doc.Name)
	}
	return b.String(), nil
}

// cell escapes the pipes of a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// The README's list of built-in signatures is the registry's, by component
// as `ozdoctor detectors` orders them.
func TestReadmeListsTheSignatures(t *testing.T) {
	sigs, err := registry.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	regs := registry.Go()
	n := 0
	for _, s := range sigs {
		regs = append(regs, s.Registration())
		n++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Operational problems operators hit every day are built-in **signatures** (%d of them; `ozdoctor detectors`\n", n)
	b.WriteString("lists every detector by component, `ozdoctor explain <name>` explains one):")
	var group string
	for _, r := range byComponent(regs) {
		if !strings.HasPrefix(r.Doc.File, "signatures/") {
			continue
		}
		g := "any service"
		if len(r.Doc.Needs) > 0 {
			g = string(r.Doc.Needs[0])
		}
		if g != group {
			fmt.Fprintf(&b, "\n- %s: `%s`", g, r.Doc.Name)
			group = g
		} else {
			fmt.Fprintf(&b, ", `%s`", r.Doc.Name)
		}
	}
	want := b.String()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n"+want+"\n<!-- end of signatures -->") {
		t.Errorf("README.md's list of signatures differs from the registry's; it should read:\n%s", want)
	}
}

// docs/rules-and-dashboards.md's table of alerts is rendered from what
// `ozdoctor rules generate` renders the rule files from (rules.Files over
// the built-in detectors). Derived: every alert's name, its file (and so
// what it needs: the sidecar or only Ozone's /prom), its detector and
// defect labels, severity and `for`, and "fires when" (the summary
// annotation, its labels shown as <name>; for the one-per-detector rules,
// which are collapsed into two rows, the rule's expression in words). Not
// derived: which Ozone versions export a native rule's metrics, written by
// hand below the table (each rule's description says it); the test checks
// only that every alert named on the page exists.
func TestDocsListTheRules(t *testing.T) {
	regs := registry.All()
	files, err := rules.Files(regs, rules.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want, err := rulesTable(regs, files)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../docs/rules-and-dashboards.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "\n"+want+"<!-- end of rules -->") {
		t.Errorf("docs/rules-and-dashboards.md's table of alerts differs from the rules; it should read:\n%s", want)
	}
	alerts := map[string]bool{}
	for _, r := range rules.AllRules(files) {
		alerts[r.Alert] = true
	}
	for _, m := range regexp.MustCompile("`((?:Ozone|Ozdoctor)[A-Z][A-Za-z]+)`").FindAllStringSubmatch(string(page), -1) {
		if !alerts[m[1]] {
			t.Errorf("docs/rules-and-dashboards.md names %s, which is no alert of the rule files", m[1])
		}
	}
}

// rulesTable renders the table of alerts of the rule files.
func rulesTable(regs []detectors.Registration, files []rules.File) (string, error) {
	signature := map[string]bool{}
	for _, r := range regs {
		signature[r.Doc.Name] = strings.HasPrefix(r.Doc.File, "signatures/")
	}
	needs := map[string]string{"ozdoctor-sidecar.yml": "sidecar", "ozone-native.yml": "Ozone `/prom`"}
	labelRef := regexp.MustCompile(`\{\{ *\$labels\.([a-z_]+) *\}\}`)
	var b strings.Builder
	b.WriteString("<!-- rules: generated from the rules' source; TestDocsListTheRules fails when it drifts -->\n")
	b.WriteString("| alert | needs | detector (defect) | severity | for | fires when |\n|---|---|---|---|---|---|\n")
	for _, f := range files {
		need, ok := needs[f.Name]
		if !ok {
			return "", fmt.Errorf("rule file %s: the table does not say what it needs", f.Name)
		}
		for _, g := range f.Groups {
			if g.Name == "ozdoctor-detectors" {
				var goAlerts, sigAlerts []string
				for _, r := range g.Rules {
					if want := fmt.Sprintf(`ozdoctor_alert_active{detector=%q} > 0`, r.Labels["detector"]); r.Expr != want {
						return "", fmt.Errorf("rule %s: expression %q, which the table's words (%s) do not say", r.Alert, r.Expr, want)
					}
					name := "`" + r.Alert + "`"
					if signature[r.Labels["detector"]] {
						sigAlerts = append(sigAlerts, name)
					} else {
						goAlerts = append(goAlerts, name)
					}
				}
				fmt.Fprintf(&b, "| %s | %s | its namesake | the finding's | — | the Go detector of that name has a firing finding (`ozdoctor_alert_active{detector=\"<name>\"} > 0`) |\n",
					strings.Join(goAlerts, ", "), need)
				fmt.Fprintf(&b, "| %s | %s | its namesake | the finding's | — | the built-in signature of that name has a firing finding (`rules generate --signatures DIR` adds yours) |\n",
					strings.Join(sigAlerts, ", "), need)
				continue
			}
			for _, r := range g.Rules {
				det := "—"
				if d := r.Labels["detector"]; d != "" {
					det = "`" + d + "`"
					if defect := r.Labels["defect"]; defect != d {
						det += " (" + defect + ")"
					}
				}
				sum := labelRef.ReplaceAllString(r.Annotations["summary"], "`<$1>`")
				if strings.Contains(sum, "{{") {
					return "", fmt.Errorf("rule %s: a summary template the table cannot show: %s", r.Alert, r.Annotations["summary"])
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", r.Alert, need, det, r.Labels["severity"], forDuration(r.For), cell(sum))
			}
		}
	}
	return b.String(), nil
}

// forDuration writes a rule's `for` as Prometheus does (10m, 1h), a
// dash for none.
func forDuration(d time.Duration) string {
	if d == 0 {
		return "—"
	}
	s := strings.TrimSuffix(d.String(), "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
