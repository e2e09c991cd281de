package detectors

import (
	"strings"
	"testing"
	"time"
)

func optRegs() []Registration {
	return []Registration{
		{Doc: Doc{Name: "scm-pause-stale-nodes", Package: "pausestale", Options: []Option{
			{Name: "min_burst_nodes", Kind: OptionInt, Default: "2", Min: "1"},
			{Name: "tolerance", Kind: OptionDuration, Default: "30s", Min: "0s"},
		}}},
		{Doc: Doc{Name: "om-bootstrap-exit-voter", Package: "bootstrapexit", Options: []Option{
			{Name: "tolerance", Kind: OptionDuration, Default: "1m", Min: "1s"},
			{Name: "label", Kind: OptionString, Default: "x"},
		}}},
	}
}

func TestValidateOptions(t *testing.T) {
	got, err := ValidateOptions(optRegs(), map[string]string{
		"scm-pause-stale-nodes.min_burst_nodes": "3",
		"bootstrapexit.tolerance":               "90s",
		"label":                                 "y",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"scm-pause-stale-nodes.min_burst_nodes": "3",
		"om-bootstrap-exit-voter.tolerance":     "1m30s",
		"om-bootstrap-exit-voter.label":         "y",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestValidateOptionsErrors(t *testing.T) {
	for key, tc := range map[string]struct{ val, want string }{
		"min_burst_nodes":                       {"0", "option min_burst_nodes: want an integer ≥ 1"},
		"pausestale.min_burst_nodes":            {"two", "option pausestale.min_burst_nodes: want an integer"},
		"tolerance":                             {"1s", "option tolerance is ambiguous: say scm-pause-stale-nodes.tolerance or om-bootstrap-exit-voter.tolerance"},
		"om-bootstrap-exit-voter.tolerance":     {"10ms", "option om-bootstrap-exit-voter.tolerance: want a duration ≥ 1s"},
		"bootstrapexit.tolerance":               {"soon", "option bootstrapexit.tolerance: want a duration"},
		"nosuch":                                {"1", "option nosuch: no detector has this option"},
		"nosuch.min_burst_nodes":                {"1", `option nosuch.min_burst_nodes: no detector named "nosuch"`},
		"scm-pause-stale-nodes.label":           {"1", `option scm-pause-stale-nodes.label: detector scm-pause-stale-nodes has no option "label"`},
		"scm-pause-stale-nodes.min_burst_nodes": {"-1", "scm-pause-stale-nodes.min_burst_nodes"},
	} {
		_, err := ValidateOptions(optRegs(), map[string]string{key: tc.val})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: error %v, want %q", key, tc.val, err, tc.want)
		}
	}
	_, err := ValidateOptions(optRegs(), map[string]string{"min_burst_nodes": "2", "pausestale.min_burst_nodes": "3"})
	if err == nil || !strings.Contains(err.Error(), "set twice") {
		t.Errorf("conflicting values: %v", err)
	}
}

func TestDocOptionValues(t *testing.T) {
	d := optRegs()[0].Doc
	env := &Env{Options: map[string]string{"scm-pause-stale-nodes.min_burst_nodes": "4"}}
	if n, set, err := d.Int(env, "min_burst_nodes"); n != 4 || !set || err != nil {
		t.Errorf("min_burst_nodes = %d %v %v", n, set, err)
	}
	if v, set, err := d.Duration(env, "tolerance"); v != 30*time.Second || set || err != nil {
		t.Errorf("tolerance = %v %v %v", v, set, err)
	}
	// Keys a test writes by hand: package namespace or bare, checked here.
	env = &Env{Options: map[string]string{"pausestale.tolerance": "1m", "min_burst_nodes": "0"}}
	if v, set, _ := d.Duration(env, "tolerance"); v != time.Minute || !set {
		t.Errorf("tolerance = %v %v", v, set)
	}
	if _, _, err := d.Int(env, "min_burst_nodes"); err == nil || !strings.Contains(err.Error(), "min_burst_nodes") {
		t.Errorf("bad value not reported: %v", err)
	}
	if _, _, err := d.Int(env, "undeclared"); err == nil {
		t.Error("undeclared option read")
	}
}
