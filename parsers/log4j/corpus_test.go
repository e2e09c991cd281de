package log4j

import (
	"bytes"
	"fmt"
	"time"
)

// Rendered test material. Every message below is rendered from a template of
// shared/ozone/signatures-scm.md or signatures-dn-om.md; the comment next to
// each names it. Identifiers are the ones those files use in their examples.
const (
	dn1     = "3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(dn1.example.com/10.0.0.11)"
	dnUUID  = "6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9"
	pipe1   = "Pipeline-8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"
	group1  = "group-4C3FA0E1B2D9"
	scmPeer = "5b1f0c2e-8d7a-4c3b-9e21-6f0a1b2c3d4e"
)

// msgStale is T10 StaleNodeHandler.java:51 (signatures-scm.md §1.3).
const msgStale = "Datanode " + dn1 + " moved to stale state. Finalizing its pipelines [" + pipe1 + "]"

// msgReplication is B01 ReplicationManager.java:385 (signatures-scm.md §6).
func msgReplication(ms, n int) string {
	return fmt.Sprintf("Replication Monitor Thread took %d milliseconds for processing %d containers.", ms, n)
}

// msgContainerClosed is T12 PipelineManagerImpl.java:483 (signatures-scm.md §1.3).
func msgContainerClosed(id int) string {
	return fmt.Sprintf("Container #%d closed for pipeline=%s", id, pipe1)
}

// msgCloseEvent is T14 CloseContainerEventHandler.java:87 (signatures-scm.md §1.3).
func msgCloseEvent(id int) string {
	return fmt.Sprintf("Close container Event triggered for container : #%d, current state: CLOSING", id)
}

// msgSnapshot is B24 SCMStateMachine.java:366 (signatures-scm.md §6).
func msgSnapshot(idx, ms int) string {
	return fmt.Sprintf("Current Snapshot Index %d, takeSnapshot took %d ms", idx, ms)
}

// msgRolling is B25 SegmentedRaftLogWorker.java:445 (signatures-scm.md §6).
func msgRolling(idx int) string {
	return fmt.Sprintf("%s@%s-SegmentedRaftLogWorker: Rolling segment log-%d_%d to index:%d", scmPeer, group1, idx-1000, idx-1, idx)
}

// l1Line renders one record in L1, the tarball RFA layout
// `%d{ISO8601} [%t] %p %c: %m%n` (layouts.md §3).
func l1Line(t time.Time, thread, level, logger, msg string) string {
	return t.Format("2006-01-02 15:04:05,000") + " [" + thread + "] " + level + " " + logger + ": " + msg + "\n"
}

// stackC1 is the exception C1 CloseContainerCommandHandler.java:156 attaches
// (signatures-dn-om.md §A.4: IOException wrapping ExecutionException wrapping
// C1a's ServerNotReadyException). Frames are inferred shapes: the classes and
// lines are the template's source references, the method names are guesses.
func stackC1(indent string) string {
	member := dnUUID + "@" + group1
	return "java.io.IOException: org.apache.ratis.protocol.exceptions.ServerNotReadyException: " + member + " is not in [RUNNING]: current state is CLOSING\n" +
		indent + "at org.apache.hadoop.ozone.container.common.transport.server.ratis.XceiverServerRatis.submitRequest(XceiverServerRatis.java:677)\n" +
		indent + "at org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CloseContainerCommandHandler.handle(CloseContainerCommandHandler.java:156)\n" +
		"Caused by: java.util.concurrent.ExecutionException: org.apache.ratis.protocol.exceptions.ServerNotReadyException: " + member + " is not in [RUNNING]: current state is CLOSING\n" +
		indent + "at java.base/java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:396)\n" +
		indent + "... 5 more\n" +
		"Caused by: org.apache.ratis.protocol.exceptions.ServerNotReadyException: " + member + " is not in [RUNNING]: current state is CLOSING\n" +
		indent + "at org.apache.ratis.server.impl.RaftServerImpl.assertLifeCycleState(RaftServerImpl.java:807)\n" +
		indent + "... 9 more\n"
}

// msgCantClose is C1 CloseContainerCommandHandler.java:156 (signatures-dn-om.md §A.4).
func msgCantClose(id int) string { return fmt.Sprintf("Can't close container #%d", id) }

// l1Corpus renders about size bytes of an L1 file: SCM background lines, one
// T10 stale line per 100 records and a C1 record with a 9-line stack trace
// every 25 records.
func l1Corpus(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	t := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	const (
		rm     = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"
		pmi    = "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl"
		cceh   = "org.apache.hadoop.hdds.scm.container.CloseContainerEventHandler"
		sm     = "org.apache.hadoop.hdds.scm.ha.SCMStateMachine"
		srlw   = "org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker"
		stale  = "org.apache.hadoop.hdds.scm.node.StaleNodeHandler"
		ccch   = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CloseContainerCommandHandler"
		staleT = "scm1-EventQueue-StaleNodeForStaleNodeHandler"
	)
	for i := 0; b.Len() < size; i++ {
		t = t.Add(time.Duration(37+i%91) * time.Millisecond)
		switch {
		case i%100 == 50:
			b.WriteString(l1Line(t, staleT, "INFO", stale, msgStale)) // T10
		case i%25 == 7:
			b.WriteString(l1Line(t, dnUUID+"-CloseContainerThread-0", "ERROR", ccch, msgCantClose(1000+i%977))) // C1
			b.WriteString(stackC1("\t"))
		default:
			switch i % 5 {
			case 0:
				b.WriteString(l1Line(t, "scm1-ReplicationMonitor", "INFO", rm, msgReplication(i%400, 1000+i%300))) // B01
			case 1:
				b.WriteString(l1Line(t, staleT, "INFO", pmi, msgContainerClosed(1000+i%977))) // T12
			case 2:
				b.WriteString(l1Line(t, "scm1-EventQueue-CloseContainerForCloseContainerEventHandler", "INFO", cceh, msgCloseEvent(1000+i%977))) // T14
			case 3:
				b.WriteString(l1Line(t, "main", "INFO", sm, msgSnapshot(100000+i, i%50))) // B24
			case 4:
				b.WriteString(l1Line(t, scmPeer+"@"+group1+"-SegmentedRaftLogWorker", "INFO", srlw, msgRolling(100000+i))) // B25
			}
		}
	}
	return b.Bytes()
}
