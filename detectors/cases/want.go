package cases

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// WantLine renders a finding as one expectation line:
//
//	<detector> <state> <severity> <confidence> key=<key> [hosts=a,b] [datanodes=h1,h2] [containers=1,2] [pipelines=..] [raft_groups=..] [om_nodes=..]
//
// (datanodes by host, or UUID where no host is known).
func WantLine(f detectors.Finding) string {
	parts := []string{f.Detector, string(f.State), f.Severity.String(), string(f.Confidence), "key=" + f.Key}
	list := func(name string, xs []string) {
		if len(xs) > 0 {
			parts = append(parts, name+"="+strings.Join(xs, ","))
		}
	}
	e := f.Entities
	list("hosts", e.Hosts)
	var dns []string
	for _, d := range e.Datanodes {
		if d.Host != "" {
			dns = append(dns, d.Host)
		} else {
			dns = append(dns, d.UUID)
		}
	}
	list("datanodes", dns)
	var cs []string
	for _, c := range e.Containers {
		cs = append(cs, strconv.FormatUint(c, 10))
	}
	list("containers", cs)
	list("pipelines", e.Pipelines)
	list("raft_groups", e.RaftGroups)
	list("om_nodes", e.OMNodes)
	return strings.Join(parts, " ")
}

// WantLines renders findings as expectation lines, in report order.
func WantLines(fs []detectors.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = WantLine(f)
	}
	return out
}

// atLines returns the "at" and "fact" lines (and comments) of a want
// section, which -update keeps.
func atLines(want []byte) []string {
	var out []string
	for _, l := range strings.Split(string(want), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "fact ") || strings.HasPrefix(t, "#") {
			out = append(out, t)
		}
	}
	return out
}

// checkWant compares the findings with the want section: its finding
// lines must be the findings' lines, in order, and each "at <RFC 3339
// time> <detector> <key> <state>" line names the state the alert was in
// at that time of the batch run's transitions ("inactive" before its
// first and after a withdrawal), and each "fact <detector> <key> <name>
// <value>" line the value of one of the finding's facts ("-": none).
func checkWant(want string, fs []detectors.Finding, trs []detectors.Transition) []string {
	var wantLines []string
	var fails []string
	for i, l := range strings.Split(want, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "at "):
			if msg := checkAt(l, trs); msg != "" {
				fails = append(fails, fmt.Sprintf("want line %d: %s", i+1, msg))
			}
		case strings.HasPrefix(l, "fact "):
			if msg := checkFact(l, fs); msg != "" {
				fails = append(fails, fmt.Sprintf("want line %d: %s", i+1, msg))
			}
		default:
			wantLines = append(wantLines, strings.Join(strings.Fields(l), " "))
		}
	}
	got := WantLines(fs)
	if !slices.Equal(wantLines, got) {
		fails = append(fails, "findings differ from want (rewrite it with -update after checking):\n"+Diff(strings.Join(wantLines, "\n"), strings.Join(got, "\n")))
	}
	return fails
}

func checkAt(line string, trs []detectors.Transition) string {
	f := strings.Fields(line)
	if len(f) != 5 {
		return fmt.Sprintf("%q: want at <time> <detector> <key> <state>", line)
	}
	at, err := time.Parse(time.RFC3339, f[1])
	if err != nil {
		return fmt.Sprintf("%q: time: %v", line, err)
	}
	state := "inactive"
	for _, tr := range trs {
		if tr.At.After(at) {
			break
		}
		if tr.Finding.Detector == f[2] && tr.Finding.Key == f[3] {
			state = string(tr.To)
		}
	}
	if state != f[4] {
		return fmt.Sprintf("%s %s at %s is %s, want %s", f[2], f[3], f[1], state, f[4])
	}
	return ""
}

func checkFact(line string, fs []detectors.Finding) string {
	f := strings.SplitN(line, " ", 5)
	if len(f) != 5 {
		return fmt.Sprintf("%q: want fact <detector> <key> <name> <value>", line)
	}
	for _, x := range fs {
		if x.Detector != f[1] || x.Key != f[2] {
			continue
		}
		got, ok := x.Facts[f[3]]
		if !ok {
			got = "-"
		}
		if want := strings.TrimSpace(f[4]); got != want {
			return fmt.Sprintf("%s %s fact %s is %q, want %q", f[1], f[2], f[3], got, want)
		}
		return ""
	}
	return fmt.Sprintf("%s %s: no such finding", f[1], f[2])
}
