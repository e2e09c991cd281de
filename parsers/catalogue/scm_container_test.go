package catalogue

import (
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers"
)

const (
	ctrDN3     = "7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c"
	ctrDN1     = "3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f"
	ctrDN2     = "5d2e9b7c-1a3f-4e8d-b6c5-9f8e7d6c5b4a"
	ctrPipe    = "8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"
	ctrDN3Full = ctrDN3 + "(dn3.example.com/10.0.0.13)"
)

// matchContainerSignals matches msg logged by logger and returns the signals of kind.
func matchContainerSignals(t *testing.T, c *Catalogue, logger, msg string, kind Kind) []Signal {
	t.Helper()
	first := msg
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	r := &parsers.Record{Logger: logger, Message: msg}
	var out []Signal
	for _, s := range c.Match(r) {
		if s.Kind == kind {
			out = append(out, s)
		}
	}
	if len(out) > 0 && !c.Candidate(nil, []byte(first)) {
		t.Errorf("%q matched %s but is not a candidate", first, kind)
	}
	return out
}

func TestEmptyQuasiClosedDelete(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const logger = "org.apache.hadoop.hdds.scm.container.replication.health.EmptyContainerHandler"
	// T40 EmptyContainerHandler.java:99 (signatures-scm.md §3.2, §3.4).
	msg := "Deleting empty QUASI_CLOSED container #12 (container BCSID=4, max replica BCSID=0) with 2 replicas from originIds: [" +
		ctrDN1 + ", " + ctrDN2 + "]. If resurrected, container will transition to QUASI_CLOSED"
	for _, lg := range []string{logger, "health.EmptyContainerHandler", "EmptyContainerHandler", "EmptyContainerHandler:99", ""} {
		got := matchContainerSignals(t, c, lg, msg, EmptyQuasiClosedDelete)
		if len(got) != 1 {
			t.Fatalf("logger %q: got %d signals", lg, len(got))
		}
		s := got[0]
		if s.Container != 12 || s.BCSID != 4 || s.MaxBCSID != 0 || s.Count != 2 || s.Attrs["origins"] != ctrDN1+", "+ctrDN2 {
			t.Errorf("fields: %+v", s)
		}
	}
	// The same text under another logger is not T40.
	if got := matchContainerSignals(t, c, "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager", msg, EmptyQuasiClosedDelete); len(got) != 0 {
		t.Errorf("wrong logger matched: %+v", got)
	}
	// T41 and the RatisUnderReplicationHandler line mention empty QUASI_CLOSED
	// containers but are not the deletion.
	for _, near := range []string{
		// T41 EmptyContainerHandler.java:94.
		"Updating bcsId for empty QUASI_CLOSED container #12 from 0 to 4 before deletion",
		// RatisUnderReplicationHandler.java:95.
		"Skipping replication for empty QUASI_CLOSED container #12. It will be deleted by EmptyContainerHandler.",
	} {
		if got := matchContainerSignals(t, c, logger, near, EmptyQuasiClosedDelete); len(got) != 0 {
			t.Errorf("%q matched: %+v", near, got)
		}
	}
}

func TestReplicaDeleteSent(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const crh = "org.apache.hadoop.hdds.scm.container.ContainerReportHandler"
	const icrh = "org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler"
	cases := []struct {
		name, logger, msg string
		force, nonEmpty   bool
		reason, cstate    string
		sid               string
		index, bcsid      int64
		state             string
	}{
		{
			// T43 rendering of signatures-scm.md §3.2 (the defect).
			name: "force non-empty", logger: crh,
			msg: "Sending forceDeleteContainerCommand due to DELETED for Container #1 (DELETED, sid=4) r0 (QUASI_CLOSED, bcsid=4, origin=" +
				ctrDN3 + ", non-empty) from dn " + ctrDN3Full,
			force: true, nonEmpty: true, reason: "DELETED", cstate: "DELETED", sid: "4", index: 0, bcsid: 4, state: "QUASI_CLOSED",
		},
		{
			// T43 during DELETING, incremental report.
			name: "force deleting", logger: icrh,
			msg: "Sending forceDeleteContainerCommand due to DELETING for Container #77 (DELETING, sid=120) r0 (CLOSED, bcsid=118, origin=" +
				ctrDN3 + ", non-empty) from dn " + ctrDN3Full,
			force: true, nonEmpty: true, reason: "DELETING", cstate: "DELETING", sid: "120", index: 0, bcsid: 118, state: "CLOSED",
		},
		{
			// T43 without "force": normal cleanup of an empty replica (§7.3 false positive).
			name: "non-force empty", logger: crh,
			msg: "Sending DeleteContainerCommand due to DELETED for Container #3 (DELETED, sid=9) r0 (QUASI_CLOSED, bcsid=9, origin=" +
				ctrDN3 + ", empty) from dn " + ctrDN3Full,
			reason: "DELETED", cstate: "DELETED", sid: "9", index: 0, bcsid: 9, state: "QUASI_CLOSED",
		},
		{
			// T43 force for an EC replica index > 0 (§7.3 false positive).
			name: "ec force", logger: icrh,
			msg: "Sending forceDeleteContainerCommand due to DELETING for Container #5 (DELETING, sid=0) r3 (CLOSED, bcsid=0, origin=" +
				ctrDN3 + ", non-empty) from dn " + ctrDN3Full,
			force: true, nonEmpty: true, reason: "DELETING", cstate: "DELETING", sid: "0", index: 3, bcsid: 0, state: "CLOSED",
		},
		{
			// T43 force for an unknown container (§7.3 false positive).
			name: "not found", logger: crh,
			msg: "Sending forceDeleteContainerCommand due to CONTAINER_NOT_FOUND for Container #9001 (NOT_FOUND) r0 (CLOSED, bcsid=17, origin=" +
				ctrDN3 + ", non-empty) from dn " + ctrDN3Full,
			force: true, nonEmpty: true, reason: "CONTAINER_NOT_FOUND", cstate: "NOT_FOUND", index: 0, bcsid: 17, state: "CLOSED",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := matchContainerSignals(t, c, tc.logger, tc.msg, ReplicaDeleteSent)
			if len(got) != 1 {
				t.Fatalf("got %d signals", len(got))
			}
			s := got[0]
			if s.Force != tc.force || s.NonEmpty != tc.nonEmpty || s.Reason != tc.reason || s.Index != tc.index ||
				s.BCSID != tc.bcsid || s.State != tc.state || s.Attrs["container_state"] != tc.cstate ||
				s.Attrs["container_bcsid"] != tc.sid || s.Attrs["origin"] != ctrDN3 {
				t.Errorf("fields: %+v", s)
			}
			if s.Datanode != (Datanode{UUID: ctrDN3, Host: "dn3.example.com", IP: "10.0.0.13"}) {
				t.Errorf("datanode: %+v", s.Datanode)
			}
		})
	}
	// A report-handler line with another logger is not T43.
	if got := matchContainerSignals(t, c, "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager", cases[0].msg, ReplicaDeleteSent); len(got) != 0 {
		t.Errorf("wrong logger matched: %+v", got)
	}
	// T42: the ReplicationManager's non-force delete is a different message.
	t42 := "Sending command [deleteContainerCommand: cmdID: 41, encodedToken: \"\", term: 3, deadlineMsSinceEpoch: 1787480730000, " +
		"containerID: 1, replicaIndex: 0, force: false] for container ContainerInfo{id=#1, state=DELETING} to " + ctrDN3Full
	if got := matchContainerSignals(t, c, "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager", t42, ReplicaDeleteSent); len(got) != 0 {
		t.Errorf("T42 matched: %+v", got)
	}
}

func TestReplicaDeleteCommand(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const rm = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"
	// T42 ReplicationManager.java:666 with the DeleteContainerCommand and
	// ContainerInfo renderings of signatures-scm.md §0.1.
	msg := "Sending command [deleteContainerCommand: cmdID: 41, encodedToken: \"\", term: 3, deadlineMsSinceEpoch: 1787480730000, " +
		"containerID: 12, replicaIndex: 0, force: false] for container ContainerInfo{id=#12, state=DELETING, " +
		"stateEnterTime=2026-08-23T10:40:00.000Z, pipelineID=Pipeline-" + ctrPipe + ", owner=omservice} to " + ctrDN3Full +
		" with datanode deadline 1787480730000 and scm deadline 1787481090000"
	got := matchContainerSignals(t, c, rm, msg, ReplicaDeleteCommand)
	if len(got) != 1 {
		t.Fatalf("got %d signals", len(got))
	}
	s := got[0]
	if s.Container != 12 || s.Force || s.Index != 0 || s.Term != 3 || s.State != "DELETING" || s.Datanode.Host != "dn3.example.com" ||
		s.Datanode.UUID != ctrDN3 || s.Attrs["forced"] != "" {
		t.Errorf("fields: %+v", s)
	}
	forced := strings.Replace(strings.Replace(msg, "force: false", "force: true", 1), "replicaIndex: 0", "replicaIndex: 4", 1)
	if got := matchContainerSignals(t, c, rm, forced, ReplicaDeleteCommand); len(got) != 1 || !got[0].Force || got[0].Index != 4 {
		t.Errorf("forced EC delete: %+v", got)
	}
	// Other commands share the message and are not candidates.
	repl := "Sending command [replicateContainerCommand: containerId=12, replicaIndex=0, targetNode=" + ctrDN3Full +
		", priority=NORMAL] for container ContainerInfo{id=#12, state=CLOSED} to " + ctrDN3Full +
		" with datanode deadline 1787480730000 and scm deadline 1787481090000"
	if c.Candidate(nil, []byte(repl)) && len(matchContainerSignals(t, c, rm, repl, ReplicaDeleteCommand)) != 0 {
		t.Errorf("replicate command matched")
	}
}

func TestReplicaDeleteSkipped(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	// AbstractContainerReportHandler.java:451-452 on a follower SCM, with the
	// Ratis NotLeaderException text (signatures-dn-om.md, NotLeaderException).
	msg := "Skip sending DeleteContainerCommand for Container #1 (DELETED, sid=4) r0 (QUASI_CLOSED, bcsid=4, origin=" + ctrDN3 +
		", non-empty) from dn " + ctrDN3Full + ": org.apache.ratis.protocol.exceptions.NotLeaderException: Server " +
		"5b1f0c2e-8d7a-4c3b-9e21-6f0a1b2c3d4e@group-4F6E8A1C2D3E is not the leader"
	got := matchContainerSignals(t, c, "org.apache.hadoop.hdds.scm.container.ContainerReportHandler", msg, ReplicaDeleteSkipped)
	if len(got) != 1 {
		t.Fatalf("got %d signals", len(got))
	}
	s := got[0]
	if s.Container != 1 || !s.NonEmpty || s.Force || s.Index != 0 || s.BCSID != 4 || s.State != "QUASI_CLOSED" ||
		s.Attrs["container_state"] != "DELETED" || s.Attrs["container_bcsid"] != "4" || s.Datanode.UUID != ctrDN3 ||
		s.Datanode.Host != "dn3.example.com" || !strings.Contains(s.Attrs["exception"], "NotLeaderException") {
		t.Errorf("fields: %+v", s)
	}
	if got := matchContainerSignals(t, c, "org.apache.hadoop.hdds.scm.container.ContainerReportHandler", msg, ReplicaDeleteSent); len(got) != 0 {
		t.Errorf("skip line read as a sent command: %+v", got)
	}
}

func TestContainerResurrected(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const logger = "org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler"
	for _, tc := range []struct {
		msg, state, replica string
	}{
		// T44 AbstractContainerReportHandler.java:349.
		{"Resurrecting container #1 from DELETED to QUASI_CLOSED due to non-empty QUASI_CLOSED replica (keyCount=3, BCSID=6) from " + ctrDN3Full,
			"QUASI_CLOSED", "QUASI_CLOSED"},
		// T45 AbstractContainerReportHandler.java:342.
		{"Resurrecting container #1 from DELETING to CLOSED due to non-empty CLOSED replica (keyCount=3, BCSID=6) from " + ctrDN3Full,
			"CLOSED", "CLOSED"},
	} {
		got := matchContainerSignals(t, c, logger, tc.msg, ContainerResurrected)
		if len(got) != 1 {
			t.Fatalf("%q: got %d signals", tc.msg, len(got))
		}
		s := got[0]
		if s.Container != 1 || s.State != tc.state || s.Attrs["replica_state"] != tc.replica || s.Count != 3 || s.BCSID != 6 ||
			s.Datanode.UUID != ctrDN3 || s.Datanode.Host != "dn3.example.com" {
			t.Errorf("fields: %+v", s)
		}
	}
}

func TestDNContainerMarkedDeleted(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const logger = "org.apache.hadoop.ozone.container.keyvalue.KeyValueContainer"
	// T46 KeyValueContainer.java:425 with ContainerData.toString (§0.1, §3.3).
	msg := "Marked container DELETED from QUASI_CLOSED: KeyValueContainerData #1 (DELETED, non-empty, ri=0, origin=[dn_" +
		ctrDN3 + ", pipeline_" + ctrPipe + "])"
	got := matchContainerSignals(t, c, logger, msg, DNContainerMarkedDeleted)
	if len(got) != 1 {
		t.Fatalf("got %d signals", len(got))
	}
	s := got[0]
	if s.Container != 1 || s.State != "DELETED" || s.Attrs["from"] != "QUASI_CLOSED" || !s.NonEmpty || s.Index != 0 ||
		s.Pipeline != ctrPipe || s.Attrs["origin"] != ctrDN3 {
		t.Errorf("fields: %+v", s)
	}
	// The normal delete of an empty replica: same kind, NonEmpty false.
	empty := strings.Replace(msg, "non-empty", "empty", 1)
	got = matchContainerSignals(t, c, "keyvalue.KeyValueContainer", empty, DNContainerMarkedDeleted)
	if len(got) != 1 || got[0].NonEmpty {
		t.Errorf("empty delete: %+v", got)
	}
	// The refused non-force delete of a non-empty replica is another message.
	refused := "Received container deletion command for non-empty KeyValueContainerData #1 (QUASI_CLOSED, non-empty, ri=0, origin=[dn_" +
		ctrDN3 + ", pipeline_" + ctrPipe + "]): container is not empty"
	if got := matchContainerSignals(t, c, "org.apache.hadoop.ozone.container.keyvalue.KeyValueHandler", refused, DNContainerMarkedDeleted); len(got) != 0 {
		t.Errorf("refused delete matched: %+v", got)
	}
}

func TestDNContainerForceDeleted(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		// T47 ContainerLogger.java:119 as signatures-scm.md §3.3 renders it.
		"ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted",
		// With the trailing L8 separator left in the message.
		"ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted | ",
		// Versions that print more fields (realdata dn-container sample; ContainerLogger at HEAD).
		"ID=1 | Index=0 | BCSID=4 | State=DELETED | DataChecksum=0 | Container force deleted",
		"ID=1 | Index=0 | BCSID=4 | State=DELETED | Volume=/data/hdds | DataChecksum=2a21d155 | Container force deleted",
	} {
		// The dn-container log has no logger column (layout L8).
		got := matchContainerSignals(t, c, "", msg, DNContainerForceDeleted)
		if len(got) != 1 {
			t.Fatalf("%q: got %d signals", msg, len(got))
		}
		s := got[0]
		if s.Container != 1 || s.Index != 0 || s.BCSID != 4 || s.State != "DELETED" || !s.Force {
			t.Errorf("%q fields: %+v", msg, s)
		}
	}
	got := matchContainerSignals(t, c, "", "ID=5 | Index=3 | BCSID=0 | State=DELETED | Container force deleted", DNContainerForceDeleted)
	if len(got) != 1 || got[0].Index != 3 {
		t.Errorf("EC index: %+v", got)
	}
	for _, near := range []string{
		// ContainerLogger.java:121: the normal delete.
		"ID=1 | Index=0 | BCSID=0 | State=DELETED | Empty container deleted",
		// Other container-log events.
		"ID=1 | Index=0 | BCSID=4 | State=QUASI_CLOSED | DataChecksum=0 | Ratis group removed. Group id: group-82AA09A3DA8C",
	} {
		if c.Candidate(nil, []byte(near)) && len(matchContainerSignals(t, c, "", near, DNContainerForceDeleted)) != 0 {
			t.Errorf("%q matched", near)
		}
	}
}
