package signatures_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/signature"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
	"github.com/ozdoctor/ozdoctor/signatures"
)

// The HDDS-16809 signature (empty-quasi-closed-delete) fed signals directly: the
// reasoning its cases do not all reach (two returning replicas, lines in
// every order, bounds).

// registrationOf is the built-in signature id's registration.
func registrationOf(t *testing.T, id string) detectors.Registration {
	t.Helper()
	sigs, err := builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sigs {
		if s.ID == id {
			return s.Registration()
		}
	}
	t.Fatalf("no signature %s", id)
	panic("unreachable")
}

var builtins = sync.OnceValues(func() ([]*signature.Signature, error) { return signature.LoadFS(signatures.FS(), ".", true) })

const (
	uuid1 = "3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f"
	uuid2 = "5d2e9b7c-1a3f-4e8d-b6c5-9f8e7d6c5b4a"
	uuid3 = "7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c"
	pipe  = "8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"
)

var (
	t0  = time.Date(2026, 8, 23, 10, 40, 0, 0, time.UTC)
	dn3 = catalogue.Datanode{UUID: uuid3, Host: "dn3.example.com", IP: "10.0.2.3"}
)

func at(d time.Duration) time.Time { return t0.Add(d) }

// run16809 feeds signals through an engine with only this signature (runBuiltin).
func run16809(t *testing.T, options map[string]string, sigs ...catalogue.Signal) map[string]detectors.Finding {
	t.Helper()
	return runBuiltin(t, "empty-quasi-closed-delete", options, sigs...)
}

// runBuiltin feeds signals through an engine with only the built-in
// signature id, in a live and in a batch run, which must agree, and
// returns the findings by key.
func runBuiltin(t *testing.T, id string, options map[string]string, sigs ...catalogue.Signal) map[string]detectors.Finding {
	t.Helper()
	var runs [2]map[string]detectors.Finding
	for i, batch := range []bool{false, true} {
		env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: options, Batch: batch}
		e, err := detectors.NewEngine([]detectors.Registration{registrationOf(t, id)}, env)
		if err != nil {
			t.Fatal(err)
		}
		var end time.Time
		for i := range sigs {
			s := sigs[i]
			e.Observe(&s)
			if s.Time.After(end) {
				end = s.Time
			}
		}
		runs[i] = map[string]detectors.Finding{}
		for _, f := range e.Finish(end.Add(time.Hour)) {
			runs[i][f.Key] = f
			for _, r := range f.Remediation {
				if strings.Contains(r, "remediation step") || strings.Contains(r, "<no value>") {
					t.Errorf("remediation not filled: %s", r)
				}
			}
		}
	}
	live, _ := json.Marshal(runs[0])
	batch, _ := json.Marshal(runs[1])
	if string(live) != string(batch) {
		t.Errorf("live and batch runs differ:\n%s\n%s", live, batch)
	}
	return runs[0]
}

// T40 EmptyContainerHandler.java:99 on scm1.
func deletion(when time.Time, container uint64, bcsid, maxReplica int64) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.EmptyQuasiClosedDelete, Time: when, Host: "scm1.example.com",
		Component: parsers.ComponentSCM, Level: parsers.LevelInfo, Container: container, BCSID: bcsid,
		MaxBCSID: maxReplica, Count: 2, Attrs: map[string]string{"origins": uuid1 + ", " + uuid2},
		Text: "Deleting empty QUASI_CLOSED container #..."}
}

// T43 AbstractContainerReportHandler.java:459 on host.
func sent(when time.Time, host string, container uint64, force, nonEmpty bool, reason string, ri int64, bcsid int64) catalogue.Signal {
	cs := "DELETED"
	if reason == "CONTAINER_NOT_FOUND" {
		cs = "NOT_FOUND"
	}
	return catalogue.Signal{Kind: catalogue.ReplicaDeleteSent, Time: when, Host: host, Component: parsers.ComponentSCM,
		Level: parsers.LevelInfo, Container: container, Force: force, NonEmpty: nonEmpty, Reason: reason, Index: ri,
		State: "QUASI_CLOSED", BCSID: bcsid, Datanode: dn3, Text: "Sending forceDeleteContainerCommand due to " + reason,
		Attrs: map[string]string{"container_state": cs, "container_bcsid": "4", "origin": uuid3}}
}

// AbstractContainerReportHandler.java:451 on a follower.
func skipped(when time.Time, host string, container uint64, bcsid int64) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.ReplicaDeleteSkipped, Time: when, Host: host, Component: parsers.ComponentSCM,
		Level: parsers.LevelWarn, Container: container, NonEmpty: true, State: "QUASI_CLOSED", BCSID: bcsid,
		Datanode: dn3, Text: "Skip sending DeleteContainerCommand for ...",
		Attrs: map[string]string{"container_state": "DELETED", "container_bcsid": "4"}}
}

// AbstractContainerReportHandler.java:451 on a follower, for a container
// SCM does not know (hdds.scm.unknown-container.action=DELETE).
func notFoundSkipped(when time.Time, host string, container uint64, bcsid int64) catalogue.Signal {
	s := skipped(when, host, container, bcsid)
	s.Attrs = map[string]string{"container_state": "NOT_FOUND", "origin": uuid3}
	return s
}

// T46 KeyValueContainer.java:425 on dn3.
func marked(when time.Time, container uint64, nonEmpty bool, ri int64) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.DNContainerMarkedDeleted, Time: when, Host: "dn3.example.com",
		Component: parsers.ComponentDatanode, Level: parsers.LevelWarn, Container: container, NonEmpty: nonEmpty,
		Index: ri, State: "DELETED", Pipeline: pipe, Text: "Marked container DELETED from QUASI_CLOSED: ...",
		Attrs: map[string]string{"from": "QUASI_CLOSED", "origin": uuid3}}
}

// T47 ContainerLogger.java:119 on dn3.
func logged(when time.Time, container uint64, ri, bcsid int64) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.DNContainerForceDeleted, Time: when, Host: "dn3.example.com",
		Component: parsers.ComponentDatanode, Level: parsers.LevelInfo, Container: container, Index: ri, BCSID: bcsid,
		State: "DELETED", Force: true, Text: "ID=... | Container force deleted"}
}

// T44 AbstractContainerReportHandler.java:349 on scm1.
func resurrected(when time.Time, container uint64, bcsid int64) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.ContainerResurrected, Time: when, Host: "scm1.example.com",
		Component: parsers.ComponentSCM, Level: parsers.LevelInfo, Container: container, State: "QUASI_CLOSED",
		Count: 3, BCSID: bcsid, Datanode: dn3, Text: "Resurrecting container #...",
		Attrs: map[string]string{"container_state": "DELETED", "replica_state": "QUASI_CLOSED"}}
}

func only(t *testing.T, fs map[string]detectors.Finding) detectors.Finding {
	t.Helper()
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %d: %v", len(fs), fs)
	}
	for _, f := range fs {
		return f
	}
	panic("unreachable")
}

func Test16809UnsafeDeletionAloneWarns(t *testing.T) {
	f := only(t, run16809(t, nil, deletion(t0, 12, 4, 0)))
	if f.Key != "container-12" || f.Severity != detectors.Warning || f.Confidence != detectors.Medium || f.State != detectors.Firing {
		t.Errorf("finding: %v state %s", f, f.State)
	}
	if len(f.Entities.Containers) != 1 || f.Entities.Containers[0] != 12 || len(f.Entities.Datanodes) != 2 ||
		f.Entities.Datanodes[0].UUID != uuid1 || len(f.Entities.Hosts) != 1 || f.Entities.Hosts[0] != "scm1.example.com" {
		t.Errorf("entities: %+v", f.Entities)
	}
	if f.Facts["container_bcsid"] != "4" || f.Facts["max_replica_bcsid"] != "0" || f.Facts["skew_tolerance"] != "5m" ||
		f.Facts["forced_deletes"] != "" || !strings.Contains(f.Facts["known_replica_datanodes"], uuid2) {
		t.Errorf("facts: %v", f.Facts)
	}
	if len(f.Evidence) != 1 || !f.Start.Equal(t0) || !f.End.Equal(t0) {
		t.Errorf("evidence/times: %+v %s %s", f.Evidence, f.Start, f.End)
	}
	if !strings.Contains(f.Remediation[0], "may still have a replica with data up to BCSID 4") ||
		!strings.Contains(f.Remediation[0], "-name 12 ") || !strings.Contains(f.Remediation[2], "container info 12") {
		t.Errorf("remediation: %q", f.Remediation)
	}
}

func Test16809DeadDatanodesAreNamed(t *testing.T) {
	// T15 DeadNodeHandler.java:99 for dn3, then the unsafe deletion.
	dead := catalogue.Signal{Kind: catalogue.NodeDead, Time: at(-12 * time.Minute), Host: "scm1.example.com", Component: parsers.ComponentSCM, Datanode: dn3}
	f := only(t, run16809(t, nil, dead, deletion(t0, 12, 4, 0)))
	if f.Facts["dead_datanodes_at_deletion"] != "dn3.example.com ("+uuid3+")" || f.Entities.Datanodes[0] != dn3 ||
		!strings.Contains(f.Remediation[0], "SCM held dn3.example.com ("+uuid3+") DEAD at the time") {
		t.Errorf("facts %v\nentities %+v\nremediation %s", f.Facts, f.Entities, f.Remediation[0])
	}
	// Back to HEALTHY before the deletion (T18, T20): not a suspect.
	healthy := catalogue.Signal{Kind: catalogue.NodeHealthy, Time: at(-time.Minute), Host: "scm1.example.com", Component: parsers.ComponentSCM, Datanode: dn3}
	f = only(t, run16809(t, nil, dead, healthy, deletion(t0, 12, 4, 0)))
	if f.Facts["dead_datanodes_at_deletion"] != "" || !strings.Contains(f.Remediation[0], "look for it among the DEAD datanodes") {
		t.Errorf("facts %v\nremediation %s", f.Facts, f.Remediation[0])
	}
}

func Test16809SafeDeletionsStayQuiet(t *testing.T) {
	cases := map[string][]catalogue.Signal{
		"max replica BCSID equals container BCSID": {deletion(t0, 12, 7, 7)},
		// The report handler's stale-replica delete after a safe deletion (B' <= M).
		"stale replica after a safe deletion": {deletion(t0, 12, 15, 15), sent(at(40*time.Minute), "scm1.example.com", 12, true, true, "DELETED", 0, 11),
			marked(at(41*time.Minute), 12, true, 0), logged(at(41*time.Minute), 12, 0, 11)},
		"returning empty replica, non-force delete": {deletion(t0, 12, 7, 7), sent(at(40*time.Minute), "scm1.example.com", 12, false, false, "DELETED", 0, 7),
			marked(at(41*time.Minute), 12, false, 0)},
		"resurrection after a safe deletion": {deletion(t0, 12, 5, 5), resurrected(at(20*time.Minute), 12, 9)},
		// No T40 at all: CLOSED containers, EC orphans, unknown containers.
		"CLOSED container, stale replica force-deleted": {sent(at(time.Minute), "scm1.example.com", 52, true, true, "DELETED", 0, 52),
			marked(at(2*time.Minute), 52, true, 0), logged(at(2*time.Minute), 52, 0, 52)},
		"EC force deletes": {sent(t0, "scm1.example.com", 5, true, true, "DELETING", 3, 0), marked(at(time.Minute), 5, true, 3),
			logged(at(time.Minute), 5, 3, 0)},
		"CONTAINER_NOT_FOUND": {sent(t0, "scm1.example.com", 9001, true, true, "CONTAINER_NOT_FOUND", 0, 17),
			logged(at(time.Minute), 9001, 0, 17)},
	}
	for name, sigs := range cases {
		t.Run(name, func(t *testing.T) {
			if fs := run16809(t, nil, sigs...); len(fs) != 0 {
				t.Errorf("want no finding, got %v", fs)
			}
		})
	}
}

func Test16809ForcedDeleteEscalates(t *testing.T) {
	f := only(t, run16809(t, nil,
		deletion(t0, 12, 4, 0),
		sent(at(40*time.Minute), "scm1.example.com", 12, true, true, "DELETED", 0, 4),
		skipped(at(40*time.Minute+10*time.Millisecond), "scm2.example.com", 12, 4),
		skipped(at(40*time.Minute+20*time.Millisecond), "scm3.example.com", 12, 4),
		marked(at(40*time.Minute+20*time.Second), 12, true, 0),
		logged(at(40*time.Minute+20*time.Second), 12, 0, 4),
	))
	if f.Severity != detectors.Critical || f.Confidence != detectors.High || f.State != detectors.Firing {
		t.Errorf("finding: %v %s", f, f.State)
	}
	if f.Facts["forced_delete_datanodes"] != "dn3.example.com ("+uuid3+")" || f.Facts["follower_skips"] != "scm2.example.com (1), scm3.example.com (1)" ||
		!strings.Contains(f.Facts["signature"], "datanode confirmation") || !strings.Contains(f.Facts["dn_confirmation"], "BCSID 4") ||
		!strings.Contains(f.Facts["forced_deletes"], "forced delete due to DELETED sent by scm1.example.com") {
		t.Errorf("facts: %v", f.Facts)
	}
	if got := f.Entities.Hosts; strings.Join(got, ",") != "dn3.example.com,scm1.example.com,scm2.example.com,scm3.example.com" {
		t.Errorf("hosts: %v", got)
	}
	if len(f.Entities.Datanodes) != 3 || f.Entities.Datanodes[0] != dn3 || len(f.Entities.Pipelines) != 1 {
		t.Errorf("entities: %+v", f.Entities)
	}
	if len(f.Evidence) != 6 || !f.End.Equal(at(40*time.Minute+20*time.Second)) {
		t.Errorf("evidence %d, end %s", len(f.Evidence), f.End)
	}
	if !strings.Contains(f.Remediation[0], "Preserve what is left") || !strings.Contains(f.Remediation[0], "dn3.example.com") ||
		!strings.Contains(f.Remediation[3], "gone") {
		t.Errorf("remediation: %q", f.Remediation)
	}
	if !strings.Contains(f.Summary, "that replica's data is lost") || !strings.Contains(f.Summary, "the datanode deleted it") {
		t.Errorf("summary: %s", f.Summary)
	}
}

func Test16809EscalationRoutes(t *testing.T) {
	cases := map[string]struct {
		sigs      []catalogue.Signal
		signature string
		confirmed bool
	}{
		"SCM leader only": {[]catalogue.Signal{deletion(t0, 12, 4, 0),
			sent(at(time.Hour), "scm1.example.com", 12, true, true, "DELETED", 0, 4)}, "SCM forced delete of a non-empty replica", false},
		"DELETING, during the deletion": {[]catalogue.Signal{deletion(t0, 12, 118, 96),
			sent(at(2*time.Minute), "scm1.example.com", 12, true, true, "DELETING", 0, 118)}, "SCM forced delete of a non-empty replica", false},
		"follower only": {[]catalogue.Signal{deletion(t0, 12, 4, 0),
			skipped(at(time.Hour), "scm2.example.com", 12, 4)}, "SCM forced delete of a non-empty replica", false},
		"datanode only": {[]catalogue.Signal{deletion(t0, 12, 4, 0),
			marked(at(time.Hour), 12, true, 0), logged(at(time.Hour), 12, 0, 4)}, "datanode forced delete of a non-empty replica", true},
		"container log only": {[]catalogue.Signal{deletion(t0, 12, 4, 0),
			logged(at(time.Hour), 12, 0, 4)}, "datanode forced delete of a non-empty replica", true},
		// dn3's clock is two minutes behind: its lines come before the deletion.
		"skewed datanode before the deletion": {[]catalogue.Signal{marked(at(-2*time.Minute), 12, true, 0), logged(at(-2*time.Minute), 12, 0, 4),
			deletion(t0, 12, 4, 2)}, "datanode forced delete of a non-empty replica", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := only(t, run16809(t, nil, tc.sigs...))
			if f.Severity != detectors.Critical || f.Confidence != detectors.High {
				t.Errorf("finding: %v", f)
			}
			if !strings.HasSuffix(f.Facts["signature"], tc.signature) {
				t.Errorf("signature: %q", f.Facts["signature"])
			}
			if (f.Facts["dn_confirmation"] != "") != tc.confirmed {
				t.Errorf("dn_confirmation: %q", f.Facts["dn_confirmation"])
			}
			if len(f.Evidence) != len(tc.sigs) {
				t.Errorf("evidence: %d lines for %d signals", len(f.Evidence), len(tc.sigs))
			}
		})
	}
}

// The datanode's T46 prints no BCSID: alone, it escalates with medium
// confidence and says the replica's BCSID is unknown; a line with the BCSID
// above the max replica BCSID (SCM's, or the dn-container log's) makes it
// high.
func Test16809MarkedDeletedAloneHasUnknownBCSID(t *testing.T) {
	f := only(t, run16809(t, nil, deletion(t0, 12, 4, 2), marked(at(time.Hour), 12, true, 0)))
	if f.Severity != detectors.Critical || f.Confidence != detectors.Medium {
		t.Errorf("finding: %v", f)
	}
	if !strings.HasSuffix(f.Facts["signature"], "datanode forced delete of a non-empty replica (replica BCSID unknown)") ||
		!strings.HasPrefix(f.Facts["replica_bcsid_unknown"], "dn3.example.com: only the datanode's") ||
		!strings.Contains(f.Facts["replica_bcsid_unknown"], "BCSID not above 2") ||
		!strings.Contains(f.Facts["forced_deletes"], "replica, BCSID unknown") {
		t.Errorf("facts: %v", f.Facts)
	}
	if !strings.Contains(f.Summary, "BCSID unknown") || !strings.Contains(f.Summary, "stale replica at or below BCSID 2") ||
		!strings.HasSuffix(f.Summary, "unless it was a stale replica, its data is lost.") {
		t.Errorf("summary: %s", f.Summary)
	}
	for name, extra := range map[string]catalogue.Signal{
		"dn-container log":  logged(at(time.Hour+time.Millisecond), 12, 0, 4),
		"SCM forced delete": sent(at(time.Hour-time.Second), "scm1.example.com", 12, true, true, "DELETED", 0, 4),
		"follower line":     skipped(at(time.Hour-time.Second), "scm2.example.com", 12, 4),
	} {
		f := only(t, run16809(t, nil, deletion(t0, 12, 4, 2), marked(at(time.Hour), 12, true, 0), extra))
		if f.Severity != detectors.Critical || f.Confidence != detectors.High || f.Facts["replica_bcsid_unknown"] != "" ||
			strings.Contains(f.Facts["signature"], "unknown") || strings.Contains(f.Summary, "unknown") {
			t.Errorf("%s: finding %v facts %v", name, f, f.Facts)
		}
	}
	// Two datanodes: one with a BCSID above the max replica BCSID, one with
	// T46 only. The finding is high; the second datanode is still named.
	other := marked(at(time.Hour), 12, true, 0)
	other.Host, other.Attrs = "dn1.example.com", map[string]string{"from": "QUASI_CLOSED", "origin": uuid1}
	f = only(t, run16809(t, nil, deletion(t0, 12, 4, 2), sent(at(time.Hour), "scm1.example.com", 12, true, true, "DELETED", 0, 4), other))
	if f.Confidence != detectors.High || !strings.HasPrefix(f.Facts["replica_bcsid_unknown"], "dn1.example.com") ||
		strings.Contains(f.Facts["signature"], "unknown") {
		t.Errorf("finding %v facts %v", f, f.Facts)
	}
}

func Test16809DatanodeNamedDifferently(t *testing.T) {
	// In a docker-compose capture the datanode's own log names it by its
	// service ("datanode_3"); the replica's origin UUID ties it to SCM's line.
	m := marked(at(time.Hour+20*time.Second), 12, true, 0)
	m.Host = "datanode_3"
	f := only(t, run16809(t, nil, deletion(t0, 12, 4, 0), sent(at(time.Hour), "scm1.example.com", 12, true, true, "DELETED", 0, 4), m,
		logged(at(time.Hour+20*time.Second), 12, 0, 4)))
	if f.Facts["forced_delete_datanodes"] != "dn3.example.com ("+uuid3+")" || !strings.Contains(f.Facts["dn_confirmation"], "KeyValueContainer") ||
		!strings.Contains(f.Facts["dn_confirmation"], "dn-container log") {
		t.Errorf("facts: %v", f.Facts)
	}
	if f.Facts["clock_offset"] != "" {
		t.Errorf("clock_offset without skew: %s", f.Facts["clock_offset"])
	}
	// The datanode's line first (its clock is behind): SCM's line still
	// joins it, and the offset is reported.
	f = only(t, run16809(t, nil, deletion(t0, 12, 4, 0), m, sent(at(time.Hour+time.Minute), "scm1.example.com", 12, true, true, "DELETED", 0, 4)))
	if f.Facts["forced_delete_datanodes"] != "dn3.example.com ("+uuid3+")" ||
		f.Facts["clock_offset"] != "dn3.example.com logged the forced delete 40s before scm1.example.com sent it: its clock is at least 40s behind" ||
		!strings.Contains(f.Summary, "by its clock, which is behind SCM's") {
		t.Errorf("facts: %v\nsummary: %s", f.Facts, f.Summary)
	}
}

func Test16809NearMissesKeepTheWarning(t *testing.T) {
	cases := map[string][]catalogue.Signal{
		"non-force delete of an empty replica": {sent(at(time.Hour), "scm1.example.com", 12, false, false, "DELETED", 0, 4),
			marked(at(time.Hour+time.Minute), 12, false, 0)},
		"EC replica index > 0": {sent(at(time.Hour), "scm1.example.com", 12, true, true, "DELETED", 2, 4), logged(at(time.Hour), 12, 2, 4)},
		"CONTAINER_NOT_FOUND":  {sent(at(time.Hour), "scm1.example.com", 12, true, true, "CONTAINER_NOT_FOUND", 0, 4)},
		// The datanode's lines of a forced delete due to CONTAINER_NOT_FOUND
		// look like the defect's; SCM's reason explains them, whichever
		// comes first.
		"CONTAINER_NOT_FOUND with the datanode's lines": {sent(at(time.Hour), "scm1.example.com", 12, true, true, "CONTAINER_NOT_FOUND", 0, 4),
			marked(at(time.Hour+time.Second), 12, true, 0), logged(at(time.Hour+time.Second), 12, 0, 4)},
		"CONTAINER_NOT_FOUND after the datanode's lines": {marked(at(time.Hour), 12, true, 0), logged(at(time.Hour), 12, 0, 4),
			sent(at(time.Hour+time.Minute), "scm1.example.com", 12, true, true, "CONTAINER_NOT_FOUND", 0, 4)},
		"CONTAINER_NOT_FOUND on a follower": {notFoundSkipped(at(time.Hour), "scm2.example.com", 12, 4),
			marked(at(time.Hour+time.Second), 12, true, 0), logged(at(time.Hour+time.Second), 12, 0, 4)},
		"another container": {sent(at(time.Hour), "scm1.example.com", 13, true, true, "DELETED", 0, 4), marked(at(time.Hour), 13, true, 0)},
		"stale returning replica": {sent(at(time.Hour), "scm1.example.com", 12, true, true, "DELETED", 0, 2),
			marked(at(time.Hour+time.Second), 12, true, 0), logged(at(time.Hour+time.Second), 12, 0, 2)},
		// The datanode's T46 (no BCSID) comes first; its T47 then shows the
		// replica is stale, which takes the escalation back.
		"stale replica seen on the datanode first": {marked(at(time.Hour), 12, true, 0), logged(at(time.Hour+time.Millisecond), 12, 0, 1)},
		// A forced delete older than the skew tolerance is unrelated.
		"forced delete long before": {},
	}
	for name, extra := range cases {
		t.Run(name, func(t *testing.T) {
			sigs := append([]catalogue.Signal{deletion(t0, 12, 4, 2)}, extra...)
			if name == "forced delete long before" {
				sigs = []catalogue.Signal{logged(at(-10*time.Minute), 12, 0, 4), deletion(t0, 12, 4, 2)}
			}
			f := only(t, run16809(t, nil, sigs...))
			if f.Severity != detectors.Warning || f.Confidence != detectors.Medium || len(f.Evidence) != 1 || f.Facts["forced_deletes"] != "" {
				t.Errorf("finding %v, evidence %d, facts %v", f, len(f.Evidence), f.Facts)
			}
		})
	}
}

func Test16809ResurrectionResolves(t *testing.T) {
	f := only(t, run16809(t, nil, deletion(t0, 12, 4, 0), resurrected(at(30*time.Minute), 12, 6)))
	if f.State != detectors.Resolved || f.Severity != detectors.Warning || !f.End.Equal(at(30*time.Minute)) ||
		!strings.Contains(f.Facts["resurrected"], "DELETED -> QUASI_CLOSED") || len(f.Evidence) != 2 {
		t.Errorf("finding %v %s end %s facts %v", f, f.State, f.End, f.Facts)
	}
	// The summary no longer predicts a forced delete.
	if strings.Contains(f.Summary, "will be force-deleted") || !strings.Contains(f.Summary, "(4). SCM resurrected the container") {
		t.Errorf("summary: %s", f.Summary)
	}
	// A forced delete, then another replica with a higher BCSID brings the
	// container back: the data survives there.
	f = only(t, run16809(t, nil, deletion(t0, 12, 4, 0), sent(at(time.Hour), "scm1.example.com", 12, true, true, "DELETED", 0, 4),
		resurrected(at(2*time.Hour), 12, 6), logged(at(2*time.Hour+time.Minute), 12, 0, 4)))
	if f.State != detectors.Resolved || f.Severity != detectors.Critical || len(f.Evidence) != 3 {
		t.Errorf("finding %v %s evidence %d", f, f.State, len(f.Evidence))
	}
	// A new unsafe deletion of the resurrected container is a new finding.
	fs := run16809(t, nil, deletion(t0, 12, 4, 0), resurrected(at(30*time.Minute), 12, 6), deletion(at(2*time.Hour), 12, 9, 6))
	if len(fs) != 2 || fs["container-12"].State != detectors.Resolved || fs["container-12-2"].State != detectors.Firing {
		t.Errorf("findings: %v", fs)
	}
}

func Test16809RepeatedDeletionIsOneFinding(t *testing.T) {
	f := only(t, run16809(t, nil, deletion(t0, 12, 4, 0), deletion(at(5*time.Minute), 12, 4, 0)))
	if f.Facts["repeated_deletions"] != "1" || len(f.Evidence) != 2 {
		t.Errorf("facts %v evidence %d", f.Facts, len(f.Evidence))
	}
}

// Rendering a finding leaves the occurrence's own lines as they were: every
// repeated deletion stays in the evidence once, and the forced delete too.
func Test16809RepeatedDeletionsAfterForcedDeleteKeepTheirLines(t *testing.T) {
	f := only(t, run16809(t, nil,
		deletion(t0, 12, 4, 0),
		sent(at(time.Minute), "scm1.example.com", 12, true, true, "DELETED", 0, 4),
		deletion(at(2*time.Minute), 12, 4, 0),
		deletion(at(3*time.Minute), 12, 4, 0),
		deletion(at(4*time.Minute), 12, 4, 0),
	))
	var got []string
	for _, e := range f.Evidence {
		got = append(got, e.Time.Sub(t0).String()+" "+e.Text[:8])
	}
	want := []string{"0s Deleting", "1m0s Sending ", "2m0s Deleting", "3m0s Deleting", "4m0s Deleting"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("evidence %q, want %q", got, want)
	}
}

func Test16809VersionAndIdentity(t *testing.T) {
	startup := catalogue.Signal{Kind: catalogue.StartupMsg, Time: at(-time.Hour), Host: "scm1.example.com", Version: "2.2.0"}
	// The datanode learns its UUID from a DatanodeDetails rendering.
	known := catalogue.Signal{Kind: "other", Time: at(-time.Minute), Host: "scm1.example.com",
		Datanode: catalogue.Datanode{UUID: uuid1, Host: "dn1.example.com", IP: "10.0.2.1"}}
	f := only(t, run16809(t, nil, startup, known, deletion(t0, 12, 4, 0)))
	if f.Facts["ozone_version"] != "2.2.0" {
		t.Errorf("version: %v", f.Facts)
	}
	if f.Entities.Datanodes[0].Host != "dn1.example.com" {
		t.Errorf("datanode not completed: %+v", f.Entities.Datanodes)
	}
}

func Test16809BoundedState(t *testing.T) {
	// The signature's bounds are its file's (max_open, max_rows): the Go
	// detector's max_containers option is gone.
	if _, err := detectors.ValidateOptions([]detectors.Registration{registrationOf(t, "empty-quasi-closed-delete")}, map[string]string{"empty-quasi-closed-delete.max_containers": "2"}); err == nil {
		t.Errorf("max_containers accepted")
	}
	// Evidence is bounded: the first and the latest lines are kept.
	sigs := []catalogue.Signal{deletion(t0, 12, 4, 0)}
	for i := 1; i <= 100; i++ {
		sigs = append(sigs, sent(at(time.Duration(i)*time.Minute), "scm1.example.com", 12, true, true, "DELETED", 0, 4))
	}
	f := only(t, run16809(t, nil, sigs...))
	if len(f.Evidence) != detectors.MaxEvidence || f.Facts["evidence_dropped"] != "61" ||
		!f.Evidence[0].Time.Equal(t0) || !f.Evidence[len(f.Evidence)-1].Time.Equal(at(100*time.Minute)) {
		t.Errorf("evidence %d, dropped %s, first %s, last %s", len(f.Evidence), f.Facts["evidence_dropped"],
			f.Evidence[0].Time, f.Evidence[len(f.Evidence)-1].Time)
	}
	if !strings.Contains(f.Facts["forced_deletes"], "(100 times)") {
		t.Errorf("forced_deletes: %s", f.Facts["forced_deletes"])
	}
}

func Test16809Options(t *testing.T) {
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: map[string]string{"skew_tolerance": "soon"}}
	if _, err := registrationOf(t, "empty-quasi-closed-delete").New(env); err == nil {
		t.Errorf("skew_tolerance=soon accepted")
	}
	// A tolerance of zero drops the skewed datanode lines.
	f := only(t, run16809(t, map[string]string{"skew_tolerance": "0s"}, logged(at(-time.Second), 12, 0, 4), deletion(t0, 12, 4, 0)))
	if f.Severity != detectors.Warning || f.Facts["skew_tolerance"] != "0s" {
		t.Errorf("finding %v facts %v", f, f.Facts)
	}
}

func Test16809DocKinds(t *testing.T) {
	d := registrationOf(t, "empty-quasi-closed-delete").Doc
	if d.Name != "empty-quasi-closed-delete" || d.Defect != "HDDS-16809" || len(d.Kinds) != 10 || len(d.Metrics) != 1 || len(d.Remediation) != 4 ||
		len(d.FalsePositives) == 0 || d.Resolves == "" || len(d.Needs) != 1 || d.Horizon != 24*time.Hour || d.Affected != ">=2.2.0" {
		t.Errorf("doc: %+v", d)
	}
}

// A deletion with no line about its container for the horizon is forgotten:
// a forced delete after it starts nothing. The state says what it holds.
func Test16809HorizonAndStateStats(t *testing.T) {
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	det, err := registrationOf(t, "empty-quasi-closed-delete").New(env)
	if err != nil {
		t.Fatal(err)
	}
	var got []detectors.Finding
	emit := func(f detectors.Finding) { got = append(got, f) }
	for _, s := range []catalogue.Signal{deletion(t0, 1, 4, 0), deletion(at(time.Minute), 2, 4, 0)} {
		det.Observe(&s, emit)
	}
	stat := func(name string) detectors.StateStat {
		for _, st := range det.StateStats() {
			if st.Name == name {
				return st
			}
		}
		t.Fatalf("no state %q", name)
		panic("unreachable")
	}
	if st := stat("open"); st.Entries != 2 || st.Limit != 10000 {
		t.Errorf("open %+v", st)
	}
	if st := stat("incidents counted per key"); st.Entries != 2 || st.Limit != 10000 {
		t.Errorf("occurrences %+v", st)
	}
	if st := stat("incident tables' rows"); st.Entries != 2 {
		t.Errorf("rows %+v", st)
	}
	det.Advance(at(25*time.Hour), emit)
	if n := stat("open").Entries; n != 0 {
		t.Errorf("%d deletions kept past the horizon", n)
	}
	s := sent(at(25*time.Hour), "scm1.example.com", 1, true, true, "DELETED", 0, 4)
	det.Observe(&s, emit)
	if len(got) != 2 {
		t.Errorf("a forced delete past the horizon changed a finding: %v", got[2:])
	}
	// The counts for keys outlive the horizon: a new deletion of the same
	// container is a new finding, not the old one replaced.
	s = deletion(at(26*time.Hour), 1, 4, 0)
	det.Observe(&s, emit)
	if k := got[len(got)-1].Key; k != "container-1-2" {
		t.Errorf("key %s", k)
	}
}
