package signature

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// runLive is run with the engine in live mode: a finding that changes is
// handed on at once, not at the end.
func runLive(t *testing.T, s *Signature, signals []catalogue.Signal, end time.Duration) ([]string, []detectors.Finding) {
	t.Helper()
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	eng, err := detectors.NewEngine([]detectors.Registration{s.Registration()}, env)
	if err != nil {
		t.Fatal(err)
	}
	var trs []string
	eng.Subscribe(func(tr detectors.Transition) {
		trs = append(trs, fmt.Sprintf("%s %s>%s %s %s", tr.At.Sub(t0), tr.From, tr.To, tr.Finding.Severity, tr.Finding.Confidence))
	})
	for i := range signals {
		eng.Observe(&signals[i])
	}
	eng.AdvanceTicks(t0.Add(end))
	return trs, eng.Finish(t0.Add(end))
}

// Container-lifecycle signals, as the catalogue makes them.
func deleted(at time.Duration, container uint64) catalogue.Signal {
	s := sig(catalogue.EmptyQuasiClosedDelete, at, "scm1", parsers.ComponentSCM)
	s.Container, s.BCSID = container, 4
	return s
}

func forced(at time.Duration, container uint64, uuid, host string, bcsid int64) catalogue.Signal {
	s := sig(catalogue.ReplicaDeleteSent, at, "scm1", parsers.ComponentSCM)
	s.Container, s.BCSID, s.Datanode = container, bcsid, catalogue.Datanode{UUID: uuid, Host: host}
	return s
}

func dnDeleted(at time.Duration, container uint64, host string, bcsid int64) catalogue.Signal {
	s := sig(catalogue.DNContainerForceDeleted, at, host, parsers.ComponentDatanode)
	s.Container, s.BCSID = container, bcsid
	return s
}

func resurrected(at time.Duration, container uint64) catalogue.Signal {
	s := sig(catalogue.ContainerResurrected, at, "scm1", parsers.ComponentSCM)
	s.Container, s.State = container, "QUASI_CLOSED"
	return s
}

func nodeState(kind catalogue.Kind, at time.Duration, uuid string) catalogue.Signal {
	s := sig(kind, at, "scm1", parsers.ComponentSCM)
	s.Datanode = catalogue.Datanode{UUID: uuid}
	return s
}

const keyed = `signature: v1
id: key-test
problem: p
title: t
summary: "x"
match:
  by: string(e.container)
  key: '"c-" + string(opened.container) + (occurrence > 1 ? "-" + string(occurrence) : "")'
  horizon: 1h
  max_open: 10
  steps:
    - name: opened
      on: empty_quasi_closed_delete
      emit: {severity: warning}
  resolve: {name: back, on: container_resurrected}
entities:
  containers: [opened.container]
facts:
  back: 'back.kind == "" ? "not yet" : back.state + " at " + stamp(back.time)'
`

// match.key names the finding; occurrence counts the incidents of a join
// key, so a second one after the first resolved is a finding of its own.
// resolve's name binds the signal that resolved (a zero Event before).
func TestKeyAndOccurrence(t *testing.T) {
	s := mustCompile(t, keyed)
	_, fs := run(t, s, []catalogue.Signal{deleted(0, 5), resurrected(time.Minute, 5), deleted(2*time.Minute, 5), deleted(3*time.Minute, 6)}, time.Hour)
	got := map[string]string{}
	for _, f := range fs {
		got[f.Key] = string(f.State) + " " + f.Facts["back"]
	}
	want := map[string]string{"c-5": "resolved QUASI_CLOSED at 2026-12-06 10:01:00 UTC", "c-5-2": "firing not yet", "c-6": "firing not yet"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	d, err := s.newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []catalogue.Signal{deleted(0, 5), resurrected(time.Minute, 5), deleted(2*time.Minute, 5)} {
		d.Observe(&x, func(detectors.Finding) {})
	}
	if st := stats(d)["incidents counted per key"]; st.Entries != 1 || st.Limit != 10 {
		t.Errorf("occurrences %+v", st)
	}
}

func stats(d *detector) map[string]detectors.StateStat {
	out := map[string]detectors.StateStat{}
	for _, st := range d.StateStats() {
		out[st.Name] = st
	}
	return out
}

const replicaTable = `signature: v1
id: table-test
problem: p
title: t
summary: "x {{fact . \"_note\"}}"
match:
  by: string(e.container)
  horizon: 1h
  max_open: 10
  skew: 1m
  steps:
    - name: opened
      on: empty_quasi_closed_delete
      emit: {severity: warning, confidence: medium}
  tables:
    - name: replicas
      on: [replica_delete_sent, dn_container_force_deleted]
      where: e.bcsid >= 0
      row: '[e.datanode.uuid, hostkey(e.datanode.host != "" ? e.datanode.host : e.host)]'
      max_rows: 2
  severity: 'lost.size() > 0 ? "critical" : ""'
  confidence: 'lost.size() > 0 ? "high" : ""'
let:
  lost: replicas.filter(r, r.events.exists(x, x.kind == "replica_delete_sent") && !r.events.exists(x, x.bcsid == 0))
  broken: replicas[5].key
entities:
  hosts: [opened.host, "lost.map(r, r.last.host)"]
  datanodes: ["lost.map(r, r.first.datanode)", 'signature.Datanode{uuid: "u-a", host: "dn1"}']
evidence: [lost]
facts:
  rows: replicas.map(r, r.key + "=" + r.keys.join("/") + ":" + string(r.count)).join(", ")
  broken: broken
  _note: '"(template only)"'
`

// An incident table keeps the incident's signals by row key (a signal
// with several keys joins the row that has one of them); match.severity
// is computed from it whenever the finding is rendered, so a later line
// can take an escalation back; let values are evaluated in order, one
// that fails is left out; entities and evidence may be lists.
func TestIncidentTable(t *testing.T) {
	s := mustCompile(t, replicaTable)
	in := []catalogue.Signal{
		forced(-2*time.Minute, 1, "u-z", "dn9", 7),  // before the skew: not the incident's
		forced(-30*time.Second, 1, "u-b", "dn2", 4), // within the skew
		deleted(0, 1),
		forced(time.Minute, 1, "u-a", "dn1", 4),
		dnDeleted(2*time.Minute, 1, "dn1", 0), // joins u-a's row by host: it was stale
	}
	trs, fs := runLive(t, s, in, time.Hour)
	if want := "0s >firing critical high|1m0s firing>firing critical high|2m0s firing>firing critical high"; strings.Join(trs, "|") != want {
		t.Errorf("transitions %q, want %q", trs, want)
	}
	if len(fs) != 1 {
		t.Fatalf("findings %v", fs)
	}
	f := fs[0]
	if f.Facts["rows"] != "u-b=u-b/dn2:1, u-a=u-a/dn1:2" || f.Facts["broken"] != "" || f.Summary != "x (template only)" || f.Facts["_note"] != "" {
		t.Errorf("facts %v summary %q", f.Facts, f.Summary)
	}
	if strings.Join(f.Entities.Hosts, ",") != "scm1" || len(f.Entities.Datanodes) != 2 || f.Entities.Datanodes[0].UUID != "u-b" {
		t.Errorf("entities %+v", f.Entities)
	}
	if len(f.Evidence) != 2 || !f.End.Equal(t0) { // the deletion and u-b's line, which came before it
		t.Errorf("evidence %+v end %s", f.Evidence, f.End)
	}

	// u-b's line only comes after the deletion; u-a's row is taken back
	// by its stale line: warning again.
	in = []catalogue.Signal{deleted(0, 1), forced(time.Minute, 1, "u-a", "dn1", 4), dnDeleted(2*time.Minute, 1, "dn1", 0)}
	trs, fs = runLive(t, s, in, time.Hour)
	if want := "0s >firing warning medium|1m0s firing>firing critical high|2m0s firing>firing warning medium"; strings.Join(trs, "|") != want {
		t.Errorf("transitions %q, want %q", trs, want)
	}
	if len(fs) != 1 || fs[0].Severity != detectors.Warning || len(fs[0].Evidence) != 1 {
		t.Errorf("findings %v", fs)
	}
	// A batch run renders findings at the end, but a change of the
	// computed severity is a transition when it happens all the same.
	btrs, bfs := run(t, s, in, time.Hour)
	if len(bfs) != 1 || bfs[0].Severity != detectors.Warning || bfs[0].Facts["rows"] != fs[0].Facts["rows"] {
		t.Errorf("batch %v", bfs)
	}
	if want := "0s >firing warning|1m0s firing>firing critical|2m0s firing>firing warning"; strings.Join(btrs, "|") != want {
		t.Errorf("batch transitions %q, want %q", btrs, want)
	}

	// An incident the horizon forgets keeps what it took: a batch run's
	// rendering still due is sent before it goes.
	_, bfs = run(t, s, []catalogue.Signal{deleted(0, 1), forced(time.Minute, 1, "u-b", "dn2", 4), forced(2*time.Minute, 1, "u-a", "dn1", 4)}, 3*time.Hour)
	if len(bfs) != 1 || bfs[0].Facts["rows"] != "u-b=u-b/dn2:1, u-a=u-a/dn1:1" {
		t.Errorf("aged out: %v", bfs[0].Facts)
	}

	// max_rows: a third row evicts the oldest, counted.
	d, err := s.newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []catalogue.Signal{deleted(0, 1), forced(time.Minute, 1, "u-a", "dn1", 4), forced(time.Minute, 1, "u-b", "dn2", 4), forced(time.Minute, 1, "u-c", "dn3", 4)} {
		d.Observe(&x, func(detectors.Finding) {})
	}
	if st := stats(d)["incident tables' rows"]; st.Entries != 2 || st.Evicted != 1 || st.Limit != 20 {
		t.Errorf("rows %+v", st)
	}
}

const runTables = `signature: v1
id: run-table-test
problem: p
title: t
summary: "x"
match:
  by: string(e.container)
  horizon: 1h
  max_open: 10
  steps:
    - name: opened
      on: empty_quasi_closed_delete
      emit: {severity: warning}
  tables:
    - name: dead_then
      scope: run
      as_of: open
      on: scm_node_dead
      row: e.datanode.uuid
      remove: {on: scm_node_healthy}
      max_rows: 2
    - name: dead_now
      scope: run
      on: scm_node_dead
      row: e.datanode.uuid
      remove: {on: scm_node_healthy}
      max_rows: 10
      horizon: 1h
facts:
  then: dead_then.map(r, r.key).join(",")
  now: dead_now.map(r, r.key).join(",")
`

// A run table is kept across incidents: read as it stood when the
// incident opened (as_of: open) or as it stands; remove takes a row out;
// a run table's horizon forgets rows with no signal for that long, on
// the ticks Quiet announces.
func TestRunTables(t *testing.T) {
	s := mustCompile(t, runTables)
	in := []catalogue.Signal{nodeState(catalogue.NodeDead, -10*time.Minute, "a"), nodeState(catalogue.NodeDead, -5*time.Minute, "b"),
		nodeState(catalogue.NodeHealthy, -time.Minute, "a"), deleted(0, 1), nodeState(catalogue.NodeDead, time.Minute, "c"),
		deleted(2*time.Minute, 2)}
	_, fs := runLive(t, s, in, 10*time.Minute)
	if len(fs) != 2 || fs[0].Facts["then"] != "b" || fs[0].Facts["now"] != "b,c" || fs[1].Facts["then"] != "b,c" {
		t.Errorf("findings %v %v", fs[0].Facts, fs[1].Facts)
	}
	d, err := s.newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range in {
		d.Observe(&x, func(detectors.Finding) {})
	}
	if st := stats(d)["table dead_then"]; st.Entries != 2 || st.Limit != 2 {
		t.Errorf("dead_then %+v", st)
	}
	if q := d.Quiet(t0.Add(2 * time.Minute)); q.After(t0.Add(-5*time.Minute + time.Hour)) {
		t.Errorf("quiet until %s, past b's expiry", q)
	}
	d.Advance(t0.Add(62*time.Minute), func(detectors.Finding) {})
	if st := stats(d)["table dead_now"]; st.Entries != 0 {
		t.Errorf("dead_now kept past its horizon: %+v", st)
	}
	if st := stats(d)["table dead_then"]; st.Entries != 2 {
		t.Errorf("dead_then has no horizon: %+v", st)
	}
}

const identities = `signature: v1
id: identity-test
problem: p
title: t
summary: 'on {{join .Entities.Datanodes}}'
affected: ">=2.2.0"
affected_hosts: [opened.host]
match:
  by: string(e.container)
  horizon: 1h
  max_open: 10
  steps:
    - name: opened
      on: empty_quasi_closed_delete
      emit: {severity: warning}
  tables:
    - name: replicas
      on: replica_delete_sent
      row: e.datanode.uuid
      max_rows: 4
entities:
  hosts: [opened.host, "replicas.map(r, complete(r.first.datanode).host)"]
  datanodes: ['signature.Datanode{uuid: "u-a"}']
facts:
  named: 'name(signature.Datanode{uuid: "u-a"})'
  short: hostkey("DN1.example.com")
`

// complete and name read the identities the run learned; a finding the
// run can name better later is rendered again. affected_hosts are the
// hosts whose version decides a look-alike.
func TestIdentitiesAndAffectedHosts(t *testing.T) {
	s := mustCompile(t, identities)
	startup := func(host, version string) catalogue.Signal {
		x := sig(catalogue.StartupMsg, -time.Hour, host, parsers.ComponentSCM)
		x.Version = version
		return x
	}
	learn := sig("other", time.Minute, "scm1", parsers.ComponentSCM)
	learn.Datanode = catalogue.Datanode{UUID: "u-a", Host: "dn1.example.com"}
	in := []catalogue.Signal{startup("scm1", "2.2.0"), startup("dn1.example.com", "2.1.1"), deleted(0, 1),
		forced(30*time.Second, 1, "u-a", "", 4), learn}
	trs, fs := runLive(t, s, in, time.Hour)
	if len(fs) != 1 {
		t.Fatalf("findings %v", fs)
	}
	f := fs[0]
	if f.Summary != "on dn1.example.com (u-a)" || f.Facts["named"] != "dn1.example.com (u-a)" || f.Facts["short"] != "dn1" {
		t.Errorf("summary %q facts %v", f.Summary, f.Facts)
	}
	if strings.Join(f.Entities.Hosts, ",") != "scm1,dn1.example.com" {
		t.Errorf("hosts %v", f.Entities.Hosts)
	}
	// The datanode's 2.1.1 is named, but only scm1's 2.2.0 decides.
	if f.Facts[detectors.FactVersionNote] != "" || f.Confidence == detectors.Low || !strings.Contains(f.Facts[detectors.FactOzoneVersion], "2.1.1") {
		t.Errorf("version: %v %s", f.Facts, f.Confidence)
	}
	if len(trs) != 3 { // opened, the forced delete, renamed
		t.Errorf("transitions %q", trs)
	}
	in[0] = startup("scm1", "2.1.1")
	if _, fs = runLive(t, s, in, time.Hour); len(fs) != 1 || fs[0].Facts[detectors.FactVersionNote] == "" {
		t.Errorf("scm1 on 2.1.1: %v", fs)
	}
	// A batch run names it at the end as well.
	in[0] = startup("scm1", "2.2.0")
	if _, fs = run(t, s, in, time.Hour); len(fs) != 1 || fs[0].Summary != "on dn1.example.com (u-a)" {
		t.Errorf("batch: %v", fs)
	}
}
