package main

import (
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
)

// The root command's help names the defects of the registry's Go
// detectors and built-in signatures, in registry.Defects' order, within
// lines of helpWidth.
func TestHelpListsTheDefects(t *testing.T) {
	regs, err := registry.Defects()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range regs {
		ids = append(ids, r.Doc.Defect)
	}
	if len(ids) == 0 {
		t.Fatal("the registry has no detector of a known defect")
	}
	want := "recognises the signatures of known defects (" + strings.Join(ids, ", ") +
		") and reports each with evidence and remediation steps."
	code, out, stderr := runCLI(t, "--help")
	if code != exitOK {
		t.Fatalf("exit code %d; stderr: %s", code, stderr)
	}
	if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, want) {
		t.Errorf("the help does not read %q:\n%s", want, out)
	}
	intro, _, _ := strings.Cut(out, "\n\n")
	for _, l := range strings.Split(intro, "\n") {
		if len(l) > helpWidth {
			t.Errorf("help line longer than %d bytes: %q", helpWidth, l)
		}
	}
}
