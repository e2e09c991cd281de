package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
)

// The README's table of the five defects is the registry's Go detectors:
// each one's defect, title and name, in the registry's order.
func TestReadmeListsTheDefects(t *testing.T) {
	want := defectTable()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n"+want+"<!-- end of defects -->") {
		t.Errorf("README.md's table of defects differs from the registry's; it should read:\n%s", want)
	}
}

// defectTable renders the README's table of the Go detectors' defects.
func defectTable() string {
	var b strings.Builder
	b.WriteString("<!-- defects: generated from the registry; TestReadmeListsTheDefects fails when it drifts -->\n")
	b.WriteString("| defect | what happens | detector |\n|---|---|---|\n")
	for _, r := range registry.Go() {
		fmt.Fprintf(&b, "| %s | %s | `%s` |\n", r.Doc.Defect, cell(r.Doc.Title), r.Doc.Name)
	}
	return b.String()
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
