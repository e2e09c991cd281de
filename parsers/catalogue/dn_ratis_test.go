package catalogue

import (
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

const (
	dnCSMLogger      = "org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine"
	dnDivisionLogger = "org.apache.ratis.server.RaftServer$Division"
	dnProxyLogger    = "org.apache.ratis.server.RaftServer"
	dnCloseCtLogger  = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CloseContainerCommandHandler"
	dnClosePlLogger  = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.ClosePipelineCommandHandler"
	dnRMLogger       = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"

	dnTestUUID  = "6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9"
	dnTestGroup = "group-4C3FA0E1B2D9"
	dnTestPipe  = "8a1c2d3e-4f50-6172-8394-4c3fa0e1b2d9"
)

// dnMatchKind runs the default catalogue on one record and returns the signals
// of kind k, failing when the first line is not a candidate.
func dnMatchKind(t *testing.T, logger, msg string, k Kind) []Signal {
	t.Helper()
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(msg, "\n")
	r := &parsers.Record{Time: time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC), Logger: logger, Message: msg, Thread: "t"}
	var out []Signal
	for _, s := range c.Match(r) {
		if s.Kind == k {
			out = append(out, s)
		}
	}
	if len(out) > 0 && !c.Candidate(nil, []byte(first)) {
		t.Errorf("%q matched but its first line is not a candidate", first)
	}
	return out
}

// dnMatchOne is dnMatchKind expecting exactly one signal.
func dnMatchOne(t *testing.T, logger, msg string, k Kind) Signal {
	t.Helper()
	got := dnMatchKind(t, logger, msg, k)
	if len(got) != 1 {
		t.Fatalf("%s: got %d signals of kind %s, want 1:\n%s", logger, len(got), k, msg)
	}
	return got[0]
}

func TestWriteChunkTimeoutAndCloseServer(t *testing.T) {
	// T1 ContainerStateMachine.java:707 (signatures-dn-om.md A.2).
	s := dnMatchOne(t, dnCSMLogger, "Write chunk has taken 600012345678ns crossing threshold 600000000000ns for index 1042 groupId "+
		dnTestGroup+", cancelling pending write chunk for this group", WriteChunkTimeout)
	if s.Group != dnTestGroup || s.Index != 1042 || s.Duration != 600012345678 || s.Attrs["threshold_ns"] != "600000000000" {
		t.Errorf("T1 fields: %+v", s)
	}
	// T2 ContainerStateMachine.java:841 with the T1x exception in its stack.
	t2 := dnTestUUID + ": Failed to writeStateMachineData, close server\n" +
		"org.apache.hadoop.hdds.scm.container.common.helpers.StorageContainerException: Write chunk has taken 600012345678ns " +
		"crossing threshold 600000000000ns for index 1042 groupId " + dnTestGroup + "\n" +
		"\tat org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine.validateLongRunningWrite(ContainerStateMachine.java:714)"
	s = dnMatchOne(t, dnCSMLogger, t2, StateMachineCloseServer)
	if s.Peer != dnTestUUID {
		t.Errorf("T2 peer: %q", s.Peer)
	}
	// The T1x text in T2's stack is not a second timeout.
	if got := dnMatchKind(t, dnCSMLogger, t2, WriteChunkTimeout); len(got) != 0 {
		t.Errorf("T2's stack produced a write-chunk timeout: %+v", got)
	}
	// T3 "Failed to close server" is a different message.
	if got := dnMatchKind(t, dnCSMLogger, dnTestUUID+": Failed to close server", StateMachineCloseServer); len(got) != 0 {
		t.Errorf("T3 matched T2: %+v", got)
	}
}

func TestDivisionShutdown(t *testing.T) {
	// T4 RaftServerImpl.java:528, in the %c, %c{2} and %c{1}:%L renderings.
	for _, logger := range []string{dnDivisionLogger, "server.RaftServer$Division", "RaftServer$Division:528", ""} {
		s := dnMatchOne(t, logger, dnTestUUID+"@"+dnTestGroup+": shutdown", DivisionShutdown)
		if s.Peer != dnTestUUID || s.Group != dnTestGroup {
			t.Errorf("%s: %+v", logger, s)
		}
	}
	// Near misses: RoleInfo's "shutdown <member>-FollowerState" (T5), the log
	// worker's "shutdown timeout in 3s" (T8), and the whole-server shutdown.
	for logger, msg := range map[string]string{
		"org.apache.ratis.server.impl.RoleInfo": dnTestUUID + ": shutdown " + dnTestUUID + "@" + dnTestGroup + "-FollowerState",
		"":                                      dnTestUUID + ": shutdown " + dnTestUUID + "@" + dnTestGroup + "-LeaderStateImpl",
		"org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker": dnTestUUID + "@" + dnTestGroup + "-SegmentedRaftLogWorker: shutdown timeout in 3s",
		dnProxyLogger: dnTestUUID + ": shutdown",
	} {
		if got := dnMatchKind(t, logger, msg, DivisionShutdown); len(got) != 0 {
			t.Errorf("%s %q matched: %+v", logger, msg, got)
		}
	}
}

func TestRaftGroupRemove(t *testing.T) {
	// R1 RaftServerProxy.java:117, the role padded to 9 characters.
	tail := dnTestUUID + "@" + dnTestGroup + ":t3, leader=" + dnTestUUID + ", voted=" + dnTestUUID + ", raftlog=" + dnTestUUID + "@" + dnTestGroup +
		"-SegmentedRaftLog:OPENED:c1041:last(t:3, i:1042), conf=conf: {index: 0, cur=peers:[" + dnTestUUID + "|10.0.2.3:9858]|listeners:[], old=null}"
	for _, c := range []struct{ role, state string }{{"   LEADER", "CLOSING"}, {" FOLLOWER", "CLOSING"}, {"CANDIDATE", "CLOSING"}, {" FOLLOWER", "RUNNING"}} {
		s := dnMatchOne(t, dnProxyLogger, dnTestUUID+": remove "+c.role+" ("+c.state+"): "+tail, RaftGroupRemove)
		if s.Peer != dnTestUUID || s.Group != dnTestGroup || s.State != c.state || s.Attrs["role"] != strings.TrimSpace(c.role) {
			t.Errorf("%s %s: %+v", c.role, c.state, s)
		}
	}
	// R2 "does not contain group" is not a removal.
	if got := dnMatchKind(t, dnProxyLogger, dnTestUUID+": does not contain group: "+dnTestGroup, RaftGroupRemove); len(got) != 0 {
		t.Errorf("R2 matched: %+v", got)
	}
}

func TestRemovalCompletion(t *testing.T) {
	// R9 RaftServerImpl.java:498 and :517.
	for _, msg := range []string{
		dnTestUUID + "@" + dnTestGroup + ": Succeed to remove RaftStorageDirectory /data/ratis/" + dnTestPipe,
		dnTestUUID + "@" + dnTestGroup + ": Group " + dnTestGroup + " is renamed successfully",
	} {
		s := dnMatchOne(t, dnDivisionLogger, msg, RaftStorageRemoved)
		if s.Peer != dnTestUUID || s.Group != dnTestGroup {
			t.Errorf("R9 %q: %+v", msg, s)
		}
	}
	// R8 ClosePipelineCommandHandler.java:166, both PipelineID renderings.
	for _, p := range []string{"Pipeline-" + dnTestPipe, "PipelineID=" + dnTestPipe} {
		s := dnMatchOne(t, dnClosePlLogger, "Close Pipeline "+p+" command on datanode "+dnTestUUID+".", ClosePipelineDone)
		if s.Pipeline != dnTestPipe || s.Datanode.UUID != dnTestUUID {
			t.Errorf("R8 %s: %+v", p, s)
		}
	}
	// R3 (DEBUG) and R11 are not completions.
	for _, msg := range []string{
		"Close Pipeline command for pipeline Pipeline-" + dnTestPipe + " is already in progress, skipping duplicate command.",
		"Close Pipeline command for pipeline Pipeline-" + dnTestPipe + " is rejected as command queue has reached max size.",
	} {
		if got := dnMatchKind(t, dnClosePlLogger, msg, ClosePipelineDone); len(got) != 0 {
			t.Errorf("%q matched: %+v", msg, got)
		}
	}
	// C3 CloseContainerCommandHandler.java:135.
	s := dnMatchOne(t, dnCloseCtLogger, "Marking Container 17 quasi closed", ContainerQuasiClosed)
	if s.Container != 17 || s.Group != "" {
		t.Errorf("C3: %+v", s)
	}
	// dn-container log (no logger column): quasi-close on group removal.
	s = dnMatchOne(t, "", "ID=2018 | Index=0 | BCSID=159 | State=QUASI_CLOSED | Volume=/mnt/disk1/hadoop-ozone/datanode/data/hdds | "+
		"DataChecksum=2a21d155 | Ratis group removed. Group id: group-82AA09A3DA8C |", ContainerQuasiClosed)
	if s.Container != 2018 || s.Group != "group-82AA09A3DA8C" {
		t.Errorf("container log: %+v", s)
	}
	// The text glued into another field is not the template's last column.
	if got := dnMatchKind(t, "", "ID=2018 | Index=0 | BCSID=159 | State=QUASI_CLOSED | Note=noRatis group removed", ContainerQuasiClosed); len(got) != 0 {
		t.Errorf("glued text matched: %+v", got)
	}
	// The OPEN->CLOSING line of the same log is not a quasi-close.
	if got := dnMatchKind(t, "", "ID=2018 | Index=0 | BCSID=159 | State=CLOSING | Volume=/mnt/disk1 | DataChecksum=0 |", ContainerQuasiClosed); len(got) != 0 {
		t.Errorf("CLOSING line matched: %+v", got)
	}
}

func TestCloseContainerFailed(t *testing.T) {
	snr := "org.apache.ratis.protocol.exceptions.ServerNotReadyException: " + dnTestUUID + "@" + dnTestGroup + " is not in [RUNNING]: current state is "
	gm := "org.apache.ratis.protocol.exceptions.GroupMismatchException: " + dnTestUUID + ": " + dnTestGroup + " not found."
	// C1 CloseContainerCommandHandler.java:156 with the stack shape of A.4.
	c1 := func(id, cause string) string {
		return "Can't close container #" + id + "\n" +
			"java.io.IOException: " + cause + "\n" +
			"\tat org.apache.hadoop.ozone.container.common.transport.server.ratis.XceiverServerRatis.submitRequest(XceiverServerRatis.java:678)\n" +
			"Caused by: java.util.concurrent.ExecutionException: " + cause + "\n" +
			"\tat java.base/java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:396)\n" +
			"Caused by: " + cause + "\n" +
			"\t... 12 more"
	}
	cases := []struct {
		msg                  string
		reason, group, state string
	}{
		{c1("12", snr+"CLOSING"), "ServerNotReadyException", dnTestGroup, "CLOSING"},
		{c1("13", snr+"STARTING"), "ServerNotReadyException", dnTestGroup, "STARTING"},
		{c1("14", gm), "GroupMismatchException", dnTestGroup, ""},
		{c1("15", "org.apache.ratis.protocol.exceptions.GroupMismatchException: "+dnTestUUID+": Group "+dnTestGroup+" not found."), "GroupMismatchException", dnTestGroup, ""},
		{c1("16", "java.util.concurrent.RejectedExecutionException: Task java.util.concurrent.CompletableFuture$AsyncSupply@1a2b3c rejected from "+
			"java.util.concurrent.ThreadPoolExecutor@4d5e6f[Shutting down, pool size = 1, active threads = 1, queued tasks = 0, completed tasks = 118]"),
			"RejectedExecutionException", "", ""},
		{c1("17", "org.apache.hadoop.hdds.scm.container.common.helpers.StorageContainerException: ContainerID 17 does not exist"), "", "", ""},
		{"Can't close container #18", "", "", ""},
	}
	for _, c := range cases {
		s := dnMatchOne(t, dnCloseCtLogger, c.msg, CloseContainerFailed)
		if s.Reason != c.reason || s.Group != c.group || s.State != c.state || s.Container == 0 {
			t.Errorf("%s: got reason %q group %q state %q container %d", strings.SplitN(c.msg, "\n", 2)[0], s.Reason, s.Group, s.State, s.Container)
		}
		if c.group != "" && s.Peer != dnTestUUID {
			t.Errorf("peer: %q", s.Peer)
		}
		// The signal keeps copies of its first line and of the cause it
		// read in the stack trace, not the record's message, and no group
		// its Post alone reads.
		for name, v := range map[string]string{"text": s.Text, "peer": s.Peer, "group": s.Group, "state": s.State} {
			if strings.Contains(c.msg, "\n") && inside(v, c.msg) {
				t.Errorf("%s: %s %q points into the record's message", s.Text, name, v)
			}
		}
		if s.Text != strings.SplitN(c.msg, "\n", 2)[0] || len(s.Attrs) != 0 {
			t.Errorf("text %q, attributes %v", s.Text, s.Attrs)
		}
	}
	// C4 and C2 are other messages.
	for _, msg := range []string{
		"Container #12 does not exist in datanode. Its pipeline may have closed before it was created. Container close failed.",
		"Follower cannot close container #12.",
	} {
		if got := dnMatchKind(t, dnCloseCtLogger, msg, CloseContainerFailed); len(got) != 0 {
			t.Errorf("%q matched: %+v", msg, got)
		}
	}
}

func TestSCMCloseContainerCommand(t *testing.T) {
	// S11 ReplicationManager.java:666 (A.3) with a close command.
	msg := "Sending command [closeContainerCommand: cmdID: 4411, encodedToken: \"\", term: 0, deadlineMsSinceEpoch: 1787482200000, " +
		"containerID: 12, pipelineID: Pipeline-" + dnTestPipe + ", force: false] for container ContainerInfo{id=#12, state=QUASI_CLOSED, " +
		"stateEnterTime=2026-08-23T10:45:03.120Z, pipelineID=Pipeline-" + dnTestPipe + ", owner=omservice} to " +
		dnTestUUID + "(dn3.example.com/10.0.2.3) with datanode deadline 1787482200000 and scm deadline 1787482500000"
	s := dnMatchOne(t, dnRMLogger, msg, SCMCloseContainerCommand)
	if s.Container != 12 || s.Pipeline != dnTestPipe || s.State != "QUASI_CLOSED" || s.Force ||
		s.Datanode != (Datanode{UUID: dnTestUUID, Host: "dn3.example.com", IP: "10.0.2.3"}) || len(s.Attrs) != 0 {
		t.Errorf("S11: %+v", s)
	}
	// ozone 2.0 rendering of the pipeline ID.
	s = dnMatchOne(t, dnRMLogger, strings.ReplaceAll(msg, "Pipeline-", "PipelineID="), SCMCloseContainerCommand)
	if s.Pipeline != dnTestPipe {
		t.Errorf("S11 2.0: %+v", s)
	}
	// A delete command through the same template is not a close command.
	del := "Sending command [deleteContainerCommand: cmdID: 4412, encodedToken: \"\", term: 0, deadlineMsSinceEpoch: 1787482200000, " +
		"containerID: 12, replicaIndex: 0, force: false] for container ContainerInfo{id=#12, state=DELETING, stateEnterTime=2026-08-23T10:45:03.120Z, " +
		"pipelineID=Pipeline-" + dnTestPipe + ", owner=omservice} to " + dnTestUUID + "(dn3.example.com/10.0.2.3) with datanode deadline 1 and scm deadline 2"
	if got := dnMatchKind(t, dnRMLogger, del, SCMCloseContainerCommand); len(got) != 0 {
		t.Errorf("delete command matched: %+v", got)
	}
}
