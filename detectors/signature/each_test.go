package signature

import (
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// A pause, then a burst of STALE datanodes each of which must come back.
const eachSig = `signature: v1
id: each-test
problem: each
title: t
summary: "{{len .Entities.Datanodes}} back"
match:
  by: e.host
  horizon: 1h
  max_open: 4
  steps:
    - name: pause
      on: jvm_pause
    - name: burst
      on: [scm_node_stale, scm_node_dead]
      within: 1m
      count:
        min: 1
        distinct: e.datanode.uuid
        each:
          on: scm_node_healthy
          within: 40s
      emit:
        severity: 'burst.members.exists(m, m.kind == "scm_node_dead") ? "critical" : "warning"'
        state: pending
entities:
  hosts: [pause.host]
  datanodes: ['burst.members.map(m, m.datanode)']
facts:
  missed: burst.missed.map(m, m.datanode.uuid).join(",")
  returned: string(burst.returned)
  max_return: burst.max_return
`

func dnSig(kind catalogue.Kind, at time.Duration, uuid string) catalogue.Signal {
	s := sig(kind, at, "scm1", parsers.ComponentSCM)
	s.Datanode = catalogue.Datanode{UUID: uuid}
	return s
}

func TestEachResolvesWhenEveryMemberReturned(t *testing.T) {
	s := mustCompile(t, eachSig)
	trs, fs := run(t, s, []catalogue.Signal{
		sig(catalogue.JVMPause, 0, "scm1", parsers.ComponentSCM),
		dnSig(catalogue.NodeStale, 3*time.Second, "dn1"),
		dnSig(catalogue.NodeStale, 4*time.Second, "dn2"),
		dnSig(catalogue.NodeHealthy, 20*time.Second, "dn1"),
		dnSig(catalogue.NodeHealthy, 30*time.Second, "dn2"),
	}, time.Hour)
	// Pending at the burst, firing at the first return, resolved at the last.
	if want := "3s >pending warning|20s pending>firing warning|30s firing>resolved warning"; strings.Join(trs, "|") != want {
		t.Errorf("transitions %q, want %q", trs, want)
	}
	if len(fs) != 1 || fs[0].State != detectors.Resolved || len(fs[0].Entities.Datanodes) != 2 ||
		fs[0].Facts["returned"] != "2" || fs[0].Facts["max_return"] != "26s" {
		t.Errorf("findings %+v", fs)
	}
}

func TestEachMissedMemberLeavesTheEntities(t *testing.T) {
	s := mustCompile(t, eachSig)
	trs, fs := run(t, s, []catalogue.Signal{
		sig(catalogue.JVMPause, 0, "scm1", parsers.ComponentSCM),
		dnSig(catalogue.NodeStale, 3*time.Second, "dn1"),
		dnSig(catalogue.NodeStale, 4*time.Second, "dn2"),
		dnSig(catalogue.NodeHealthy, 20*time.Second, "dn1"),
		dnSig(catalogue.NodeHealthy, 50*time.Second, "dn2"), // 46s after its STALE: too late
	}, time.Hour)
	if want := "3s >pending warning|20s pending>firing warning|45s firing>resolved warning"; strings.Join(trs, "|") != want {
		t.Errorf("transitions %q, want %q", trs, want)
	}
	if len(fs) != 1 || len(fs[0].Entities.Datanodes) != 1 || fs[0].Entities.Datanodes[0].UUID != "dn1" || fs[0].Facts["missed"] != "dn2" {
		t.Errorf("findings %+v", fs)
	}
}

func TestEachWithdrawsWhenNoMemberReturned(t *testing.T) {
	s := mustCompile(t, eachSig)
	trs, fs := run(t, s, []catalogue.Signal{
		sig(catalogue.JVMPause, 0, "scm1", parsers.ComponentSCM),
		dnSig(catalogue.NodeStale, 3*time.Second, "dn1"),
	}, time.Hour)
	if len(fs) != 0 || strings.Contains(strings.Join(trs, "|"), "firing") {
		t.Errorf("a burst nobody came back from: %q %+v", trs, fs)
	}
}

func TestEachEscalatesAsTheBurstGrows(t *testing.T) {
	s := mustCompile(t, eachSig)
	_, fs := run(t, s, []catalogue.Signal{
		sig(catalogue.JVMPause, 0, "scm1", parsers.ComponentSCM),
		dnSig(catalogue.NodeStale, 3*time.Second, "dn1"),
		dnSig(catalogue.NodeDead, 6*time.Second, "dn1"), // counted again: its window starts over
		dnSig(catalogue.NodeHealthy, 45*time.Second, "dn1"),
	}, time.Hour)
	if len(fs) != 1 || fs[0].Severity != detectors.Critical || fs[0].State != detectors.Resolved || fs[0].Facts["max_return"] != "39s" {
		t.Errorf("findings %+v", fs)
	}
}

// A count step's members also serve without each: the latest signal of
// each distinct value, with the counted signals in order.
func TestCountMembersAndSignals(t *testing.T) {
	text := strings.Replace(eachSig, `        each:
          on: scm_node_healthy
          within: 40s
`, "", 1)
	text = strings.Replace(text, "        state: pending\n", "", 1)
	text = strings.Replace(text, "  missed: burst.missed.map(m, m.datanode.uuid).join(\",\")\n", "  kinds: burst.signals.map(x, x.kind).join(\",\")\n", 1)
	s := mustCompile(t, text)
	_, fs := run(t, s, []catalogue.Signal{
		sig(catalogue.JVMPause, 0, "scm1", parsers.ComponentSCM),
		dnSig(catalogue.NodeStale, 3*time.Second, "dn1"),
		dnSig(catalogue.NodeDead, 6*time.Second, "dn1"),
		dnSig(catalogue.NodeStale, 7*time.Second, "dn2"),
	}, 2*time.Minute)
	if len(fs) != 1 || fs[0].Severity != detectors.Critical || len(fs[0].Entities.Datanodes) != 2 ||
		fs[0].Facts["kinds"] != "scm_node_stale,scm_node_dead,scm_node_stale" {
		t.Errorf("findings %+v", fs)
	}
}

// A key expression names the findings' keys; sources.<window> says where
// a window's setting came from; millis formats times and durations.
func TestKeySourcesAndMillis(t *testing.T) {
	text := strings.Replace(eachSig, "match:\n  by: e.host\n", "windows:\n  hb: setting(\"hdds.heartbeat.interval\", duration(\"30s\"))\nmatch:\n  by: e.host\n  key: 'pause.host + \"/\" + millis(pause.time)'\n", 1)
	text = strings.Replace(text, "  returned: string(burst.returned)\n", "  returned: string(burst.returned)\n  hb: millis(windows.hb) + \" (\" + sources.hb + \")\"\n  pause: millis(duration(\"450681ms\"))\n", 1)
	s := mustCompile(t, text)
	_, fs := run(t, s, []catalogue.Signal{
		sig(catalogue.JVMPause, 0, "scm1", parsers.ComponentSCM),
		dnSig(catalogue.NodeStale, 3*time.Second, "dn1"),
		dnSig(catalogue.NodeHealthy, 20*time.Second, "dn1"),
	}, time.Hour)
	if len(fs) != 1 || fs[0].Key != "scm1/2026-12-06T10:00:00.000Z" || fs[0].Facts["hb"] != "30s (default)" || fs[0].Facts["pause"] != "7m30.681s" {
		t.Errorf("findings %+v", fs)
	}
}

func TestEachLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"no within", "          within: 40s\n", "", "sig.yaml:20:11: step burst count.each: needs within"},
		{"no distinct", "        distinct: e.datanode.uuid\n", "", "step burst count.each: needs count.distinct or same"},
		{"unknown key", "          within: 40s\n", "          within: 40s\n          witin: 3s\n", `unknown key "witin"`},
		{"same type", "          within: 40s\n", "          within: 40s\n          same: e.count\n", "step burst count.each same: \"e.count\" has type int, want string"},
		{"entity list type", "  hosts: [pause.host]\n", "  hosts: ['burst.members.map(m, m.count)']\n", "entities.hosts: \"burst.members.map(m, m.count)\" has type list(int), want string, or a list"},
		{"no such source", "  returned: string(burst.returned)\n", "  returned: sources.hb\n", "undeclared reference to 'sources'"},
		{"millis type", "  returned: string(burst.returned)\n", "  returned: millis(burst.returned)\n", "found no matching overload for 'millis'"},
		{"key type", "match:\n  by: e.host\n", "match:\n  by: e.host\n  key: pause.time\n", "match.key: \"pause.time\" has type google.protobuf.Timestamp, want string"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantEditedError(t, eachSig, tc.from, tc.to, tc.want) })
	}
}
