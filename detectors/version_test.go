package detectors

import (
	"slices"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"1.4.1", []int{1, 4, 1}},
		{"2.1.0-SNAPSHOT", []int{2, 1, 0}},
		{"2.2.0.7.3.1.400-1", []int{2, 2, 0}},
		{"0.5.0-beta", []int{0, 5, 0}},
		{"1.0", []int{1, 0, 0}},
		{"ozone-2.2.0", []int{2, 2, 0}},
		{" 2.3.0-SNAPSHOT ", []int{2, 3, 0}},
		{"", nil},
		{"SNAPSHOT", nil},
		{"${version}", nil},
	} {
		got, ok := ParseVersion(c.in)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", c.in, got, ok, c.want)
		}
	}
}

func TestVersionInRange(t *testing.T) {
	for _, c := range []struct {
		v, rng string
		in, ok bool
	}{
		{"2.2.0", ">=2.2.0", true, true},
		{"2.1.1", ">=2.2.0", false, true},
		{"2.2.1-SNAPSHOT", ">=2.2.0", true, true},
		{"2.2.0.7.3.1.400-1", ">=2.2.0", true, true},
		{"2.3.0-SNAPSHOT", ">=2.3.0", true, true},
		{"2.2.0", ">=2.3.0", false, true},
		{"1.3.0", ">=1.2.0 <2.1.0", true, true},
		{"2.1.0", ">=1.2.0, <2.1.0", false, true},
		{"1.1.0", ">=1.2.0", false, true},
		{"0.5.0-beta", "*", true, true},
		{"1.4.1", "=1.4.1", true, true},
		{"1.4.1", "<=1.4.0", false, true},
		{"1.4.1", ">1.4.0", true, true},
		{"unknown", ">=1.0.0", false, false},
		{"1.4.1", "", false, false},
		{"1.4.1", "1.4.1", false, false},
		{"1.4.1", ">=x", false, false},
		{"1.4.0", ">=1.3.0 <1.4.1 || >=2.0.0 <2.0.1", true, true},
		{"1.4.1", ">=1.3.0 <1.4.1 || >=2.0.0 <2.0.1", false, true},
		{"2.0.0", ">=1.3.0 <1.4.1 || >=2.0.0 <2.0.1", true, true},
		{"2.1.0", ">=1.3.0 <1.4.1 || >=2.0.0 <2.0.1", false, true},
		{"2.1.0", ">=1.3.0 ||", false, false},
	} {
		in, ok := VersionInRange(c.v, c.rng)
		if in != c.in || ok != c.ok {
			t.Errorf("VersionInRange(%q, %q) = %v, %v; want %v, %v", c.v, c.rng, in, ok, c.in, c.ok)
		}
	}
}

func TestValidateVersions(t *testing.T) {
	for _, d := range []Doc{
		{Name: "a", Affected: "bogus"},
		{Name: "b", Affected: ">=2.0.0", FixedIn: []string{"2.1.0"}},
		{Name: "c", Affected: ">=2.0.0 <2.1.0", FixedIn: []string{"x"}},
	} {
		if d.ValidateVersions() == nil {
			t.Errorf("%s: no error", d.Name)
		}
	}
	if err := (Doc{Name: "ok", Affected: ">=2.0.0 <2.1.0", FixedIn: []string{"2.1.0"}}).ValidateVersions(); err != nil {
		t.Error(err)
	}
	if err := (Doc{Name: "lines", Affected: ">=1.3.0 <1.4.1 || >=2.0.0 <2.0.1", FixedIn: []string{"1.4.1", "2.0.1"}}).ValidateVersions(); err != nil {
		t.Error(err)
	}
}

func identityWith(versions map[string]string) *Identity {
	id := NewIdentity()
	for h, v := range versions {
		id.Learn(&catalogue.Signal{Kind: catalogue.StartupMsg, Host: h, Version: v})
	}
	return id
}

func TestGateVersion(t *testing.T) {
	doc := Doc{Name: "d", Defect: "HDDS-1", Affected: ">=2.0.0 <2.1.0", FixedIn: []string{"2.1.0"}}
	id := identityWith(map[string]string{"scm1.example.com": "2.0.0", "scm2": "2.1.1", "scm3": "2.1.0.7.3.1-1"})
	finding := func() Finding {
		return Finding{Defect: "HDDS-1", Severity: Critical, Confidence: High, Summary: "S.", Facts: map[string]string{}}
	}

	// Affected version: the version is stated, nothing else changes.
	f := finding()
	doc.GateVersion(&f, id, "scm1")
	if f.Facts[FactOzoneVersion] != "2.0.0" || f.Severity != Critical || f.Confidence != High || f.Facts[FactVersionNote] != "" {
		t.Errorf("affected: %+v", f)
	}

	// Fixed version: a look-alike.
	f = finding()
	doc.GateVersion(&f, id, "scm2.example.com")
	if f.Facts[FactOzoneVersion] != "2.1.1" || f.Severity != Warning || f.Confidence != Low ||
		!strings.HasPrefix(f.Facts[FactVersionNote], "HDDS-1 is fixed in 2.1.0; scm2.example.com runs 2.1.1: the same lines have another cause") ||
		!strings.HasPrefix(f.Summary, "Look-alike of HDDS-1 (2.1.1 cannot have it): S.") {
		t.Errorf("fixed: %+v", f)
	}

	// Two fixed hosts, a vendor build among them.
	f = finding()
	doc.GateVersion(&f, id, "scm2", "scm3")
	if f.Facts[FactOzoneVersion] != "scm2=2.1.1, scm3=2.1.0.7.3.1-1" || f.Confidence != Low {
		t.Errorf("two fixed: %+v", f)
	}

	// One affected host among fixed ones: the defect may have happened there.
	f = finding()
	doc.GateVersion(&f, id, "scm2", "scm1.example.com")
	if f.Confidence != High || f.Facts[FactOzoneVersion] != "scm1.example.com=2.0.0, scm2=2.1.1" {
		t.Errorf("mixed: %+v", f)
	}

	// A host of unknown version: unchanged.
	f = finding()
	doc.GateVersion(&f, id, "scm2", "scm9")
	if f.Confidence != High || f.Facts[FactOzoneVersion] != "2.1.1" {
		t.Errorf("unknown host: %+v", f)
	}
	f = finding()
	doc.GateVersion(&f, id, "scm9")
	if _, ok := f.Facts[FactOzoneVersion]; ok || f.Confidence != High {
		t.Errorf("all unknown: %+v", f)
	}

	// Another defect reported by the detector, and a doc without a range.
	f = finding()
	f.Defect = "unclassified"
	doc.GateVersion(&f, id, "scm2")
	if f.Confidence != High || f.Facts[FactOzoneVersion] != "2.1.1" {
		t.Errorf("other defect: %+v", f)
	}
	f = finding()
	Doc{Defect: "HDDS-1"}.GateVersion(&f, id, "scm2")
	if f.Confidence != High {
		t.Errorf("no range: %+v", f)
	}

	// A defect not in a release line yet: no fix to name.
	f = finding()
	Doc{Defect: "HDDS-1", Affected: ">=2.2.0"}.GateVersion(&f, id, "scm2")
	if !strings.HasPrefix(f.Facts[FactVersionNote], "HDDS-1 affects Ozone >=2.2.0 only; scm2 runs 2.1.1") {
		t.Errorf("unfixed: %+v", f)
	}
	// Fixed in two release lines: the note names the fixes the host runs.
	f = finding()
	Doc{Defect: "HDDS-1", Affected: ">=1.3.0 <1.4.1 || >=2.0.0 <2.0.1", FixedIn: []string{"1.4.1", "2.0.1"}}.GateVersion(&f, id, "scm2")
	if !strings.HasPrefix(f.Facts[FactVersionNote], "HDDS-1 is fixed in 1.4.1, 2.0.1; scm2 runs 2.1.1") {
		t.Errorf("two lines: %+v", f)
	}
	// A warning stays a warning, an info an info.
	f = finding()
	f.Severity = Info
	Doc{Defect: "HDDS-1", Affected: ">=2.2.0"}.GateVersion(&f, id, "scm2")
	if f.Severity != Info {
		t.Errorf("info: %+v", f)
	}
}
