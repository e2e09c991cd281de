package detectors

import (
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func TestShortSource(t *testing.T) {
	for in, want := range map[string]string{
		"default": "default",
		"ozone-site.xml (/tmp/x/bundle/scm1/ozone-site.xml)": "ozone-site.xml (scm1/ozone-site.xml)",
		"ozone-site.xml (b.tgz!/scm1/ozone-site.xml)":        "ozone-site.xml (scm1/ozone-site.xml)",
		"STARTUP_MSG conf (scm1.example.com)":                "STARTUP_MSG conf (scm1.example.com)",
		"reset by the SCM on scm1":                           "reset by the SCM on scm1",
	} {
		if got := ShortSource(in); got != want {
			t.Errorf("ShortSource(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHelpers(t *testing.T) {
	if got := HostKey(" DN1.Example.com "); got != "dn1" {
		t.Errorf("HostKey %q", got)
	}
	t0 := time.Date(2026, 8, 23, 10, 20, 0, 0, time.UTC)
	if got := Stamp(t0); got != "2026-08-23 10:20:00 UTC" {
		t.Errorf("Stamp %q", got)
	}
	if !InWindow(t0.Add(-time.Second), t0, t0.Add(time.Minute), time.Second) || InWindow(t0.Add(62*time.Second), t0, t0.Add(time.Minute), time.Second) {
		t.Error("InWindow")
	}
	if got := SortedUnique([]string{"b", "", "a", "b"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("SortedUnique %v", got)
	}
	if got := SortedKeys(map[uint64]bool{3: true, 1: true}); !slices.Equal(got, []uint64{1, 3}) {
		t.Errorf("SortedKeys %v", got)
	}
	dns := []catalogue.Datanode{{UUID: "b", Host: "dn2"}, {UUID: "c", Host: "dn1"}, {UUID: "a", Host: "dn2"}}
	SortDatanodes(dns)
	if dns[0].UUID != "c" || dns[1].UUID != "a" || dns[2].UUID != "b" {
		t.Errorf("SortDatanodes %v", dns)
	}
}
