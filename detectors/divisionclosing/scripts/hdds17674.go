// Package scripts renders HDDS-17674's occurrences and near misses for the
// cases of the divisionclosing detector.
package scripts

import (
	"fmt"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/parsers"
)

// HDDS-17674 (master after ozone-2.2.0): a datanode's ContainerStateMachine
// closes its Raft division on the Ratis thread after a write-chunk timeout;
// the close waits for itself and the division stays CLOSING. The group
// removal finds it CLOSING, never completes, and every close-container
// command SCM re-sends for the pipeline's containers fails
// (shared/ozone signatures-dn-om.md PART A). Near misses: a normal pipeline
// close, closes failing for three resend cycles while a restarted
// datanode's division is STARTING, GroupMismatch races during a normal
// removal, close failures while a datanode shuts down and restarts, the
// write-chunk timeout alone on 2.2.0, and a close on a -ChunkWriter- thread
// that completes.

const (
	h17674CSM          = "org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine"
	h17674Division     = "org.apache.ratis.server.RaftServer$Division"
	h17674Proxy        = "org.apache.ratis.server.RaftServer"
	h17674RoleInfo     = "org.apache.ratis.server.impl.RoleInfo"
	h17674LogWorker    = "org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker"
	h17674Updater      = "org.apache.ratis.server.impl.StateMachineUpdater"
	h17674CloseCt      = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CloseContainerCommandHandler"
	h17674ClosePl      = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.ClosePipelineCommandHandler"
	h17674RM           = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"
	h17674PipelineMgr  = "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl"
	h17674CloseEvent   = "org.apache.hadoop.hdds.scm.container.CloseContainerEventHandler"
	h17674ContainerLog = "ContainerLog"
	h17674Volume       = "/hadoop-ozone/datanode/data/hdds"
	// A master build: only master (HDDS-15443) closes the division on a
	// failed write (A.0).
	h17674Master = "2.3.0-SNAPSHOT"
	// writeChunkWaitMaxNs printed by T1 with the default 10m (A.0).
	h17674ThresholdNs = int64(600000000000)
)

func Scripts() map[string]scenario.Script {
	return map[string]scenario.Script{
		// Positive: the leader's division closes on its client thread; the
		// removal finds it CLOSING; SCM re-sends close commands until the end.
		"hdds17674/stuck-leader": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 0, h17674Master)
			r.stuck(at, "QUASI_CLOSED", s.End.Add(-time.Minute))
		},
		// Positive: a follower's division closes on its server thread; SCM's
		// containers stay CLOSING.
		"hdds17674/stuck-follower": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 1, h17674Master)
			r.stuck(at, "CLOSING", s.End.Add(-time.Minute))
		},
		// Positive (trigger and removal not in the logs): only the close
		// failures ("current state is CLOSING") and SCM's re-sent commands.
		"hdds17674/close-failures-only": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 0, h17674Master)
			r.startups(s.Start.Add(5 * time.Second))
			for t := at; t.Before(s.End.Add(-time.Minute)); t = t.Add(5 * time.Minute) {
				for i, c := range r.containers {
					ct := t.Add(time.Duration(i) * 40 * time.Millisecond)
					r.resend(ct, c, "CLOSING")
					r.closeFailed(r.stuckDN, ct.Add(1200*time.Millisecond), i, c, r.notRunning(r.stuckDN))
				}
			}
		},
		// Positive, resolved: stuck for 20 minutes, then the datanode is
		// restarted and the group is removed normally.
		"hdds17674/stuck-then-restart": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 0, h17674Master)
			last := r.stuck(at, "QUASI_CLOSED", at.Add(25*time.Minute))
			r.restartAndRecover(last.Add(2 * time.Minute))
		},
		// Near miss: a normal pipeline close on all three datanodes.
		"hdds17674/normal-close": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 0, h17674Master)
			r.startups(s.Start.Add(5 * time.Second))
			r.scmClosesPipeline(at)
			for i, dn := range r.dns {
				r.normalRemoval(dn, at.Add(3*time.Second+time.Duration(i)*150*time.Millisecond), r.role(i))
			}
		},
		// Near miss: after a restart the re-added division stays STARTING
		// for over ten minutes (inferred: a long Raft log to load), so the
		// close commands SCM re-sends in three cycles all fail with "current
		// state is STARTING" (F.2); the next cycle goes through.
		"hdds17674/restart-not-ready": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 1, h17674Master)
			r.startups(s.Start.Add(5 * time.Second))
			dn := r.stuckDN
			s.Signal(dn, at, "TERM")
			s.Shutdown(dn, at.Add(400*time.Millisecond))
			up := at.Add(45 * time.Second)
			s.Startup(dn, up, "")
			starting := h17674NotReady(scenario.MemberID(dn, r.group), "[RUNNING]", "STARTING")
			for k := 0; k < 4; k++ {
				t := up.Add(20*time.Second + time.Duration(k)*5*time.Minute)
				for i, c := range r.containers {
					ct := t.Add(time.Duration(i) * 40 * time.Millisecond)
					r.resend(ct, c, "CLOSING")
					if k < 3 {
						// C1 + C1a with "current state is STARTING" (A.4, F.2).
						r.closeFailed(dn, ct.Add(1200*time.Millisecond), i, c, starting)
					} else {
						r.followerCannotClose(dn, ct.Add(1200*time.Millisecond), i, c)
					}
				}
			}
		},
		// Near miss: a normal removal on the leader while the close commands
		// SCM sent for all three containers arrive: they fail with
		// GroupMismatchException between the removal and its completion, and
		// one re-sent command for the first container right after it.
		"hdds17674/groupmismatch-race": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 0, h17674Master)
			r.startups(s.Start.Add(5 * time.Second))
			r.scmClosesPipeline(at)
			for i, dn := range r.dns {
				t := at.Add(3*time.Second + time.Duration(i)*150*time.Millisecond)
				if dn.Host == r.stuckDN.Host {
					for j, c := range r.containers {
						r.closeFailed(dn, t.Add(time.Duration(12+6*j)*time.Millisecond), j, c, r.notFound(dn))
					}
					r.resend(t.Add(-time.Second), r.containers[0], "CLOSING")
					r.closeFailed(dn, t.Add(400*time.Millisecond), 0, r.containers[0], r.notFound(dn))
				}
				r.normalRemoval(dn, t, r.role(i))
			}
		},
		// Near miss: close commands hit the divisions while a follower
		// datanode shuts down (its Ratis server closes every division:
		// "current state is CLOSING", and one RejectedExecutionException from
		// a closing executor, C1c). It stays down for 12 minutes; SCM closes
		// the pipeline meanwhile and the other members remove the group.
		// After the restart one command fails while the re-added division is
		// STARTING, then the group is removed normally with one
		// GroupMismatchException racing the removal.
		"hdds17674/shutdown-failures": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 1, h17674Master)
			r.startups(s.Start.Add(5 * time.Second))
			dn := r.stuckDN
			for i, c := range r.containers {
				r.resend(at.Add(time.Duration(i)*40*time.Millisecond), c, "CLOSING")
			}
			s.Signal(dn, at.Add(time.Second), "TERM")
			for i, c := range r.containers {
				r.closeFailed(dn, at.Add(1300*time.Millisecond+time.Duration(i)*30*time.Millisecond), i, c, r.notRunning(dn))
			}
			r.closeFailed(dn, at.Add(1450*time.Millisecond), 0, r.containers[0], r.notRunning(dn))
			r.closeFailed(dn, at.Add(1500*time.Millisecond), 1, r.containers[1], r.rejected())
			s.Shutdown(dn, at.Add(2*time.Second))
			closeAt := at.Add(6 * time.Minute)
			r.scmClosesPipeline(closeAt)
			for i, n := range r.dns {
				if n.Host != dn.Host {
					r.normalRemoval(n, closeAt.Add(3*time.Second+time.Duration(i)*150*time.Millisecond), r.role(i))
				}
			}
			up := at.Add(12 * time.Minute)
			s.Startup(dn, up, "")
			r.resend(up.Add(15*time.Second), r.containers[0], "CLOSING")
			// C1 + C1a with "current state is STARTING" (A.4, F.2).
			r.closeFailed(dn, up.Add(16*time.Second), 0, r.containers[0],
				h17674NotReady(scenario.MemberID(dn, r.group), "[RUNNING]", "STARTING"))
			t := up.Add(40 * time.Second)
			r.closeFailed(dn, t.Add(12*time.Millisecond), 0, r.containers[0], r.notFound(dn))
			r.normalRemoval(dn, t, r.role(r.stuckIdx))
		},
		// Near miss: ozone 2.2.0 logs the write-chunk timeout but does not
		// close the division; the pipeline is closed normally later.
		"hdds17674/timeout-without-close": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 0, "")
			r.startups(s.Start.Add(5 * time.Second))
			r.precursors(r.stuckDN, at)
			r.writeChunkTimeout(r.stuckDN, at, r.ratisThread(r.stuckDN))
			closeAt := at.Add(5 * time.Minute)
			r.scmClosesPipeline(closeAt)
			for i, dn := range r.dns {
				r.normalRemoval(dn, closeAt.Add(3*time.Second+time.Duration(i)*150*time.Millisecond), r.role(i))
			}
		},
		// Near miss: the close runs on a -ChunkWriter- thread (asynchronous
		// chunk-write failure) and completes; the removal finds it CLOSED.
		"hdds17674/chunkwriter-close": func(s *scenario.Scenario, at time.Time) {
			r := newH17674Run(s, 1, h17674Master)
			r.startups(s.Start.Add(5 * time.Second))
			dn := r.stuckDN
			thread := fmt.Sprintf("%sChunkWriter-%d-0", s.Cluster.ThreadPrefix(dn), s.Rand.Intn(4))
			// T2 ContainerStateMachine.java:841 on a ChunkWriter thread (A.2, F.2).
			s.Add(scenario.Line{At: at, Host: dn.Host, Level: parsers.LevelError, Logger: h17674CSM, Thread: thread,
				Source: "ContainerStateMachine.java:841",
				Msg: dn.UUID + ": Failed to writeStateMachineData, close server\n" +
					"java.io.IOException: No space left on device\n" +
					"\tat java.base/sun.nio.ch.FileDispatcherImpl.pwrite0(Native Method)\n" +
					"\tat java.base/sun.nio.ch.FileChannelImpl.writeInternal(FileChannelImpl.java:847)"})
			r.closeSteps(dn, at.Add(time.Millisecond), thread, 1, true)
			closeAt := at.Add(4 * time.Minute)
			r.scmClosesPipeline(closeAt)
			for i, n := range r.dns {
				t := closeAt.Add(3*time.Second + time.Duration(i)*150*time.Millisecond)
				if n.Host == dn.Host {
					r.removal(n, t, " FOLLOWER", "CLOSED")
					r.removalDone(n, t.Add(40*time.Millisecond))
					continue
				}
				r.normalRemoval(n, t, r.role(i))
			}
		},
	}
}

// h17674Run holds the hosts and IDs of one pipeline.
type h17674Run struct {
	s          *scenario.Scenario
	dns        []scenario.Node // pipeline members; dns[0] leads
	stuckDN    scenario.Node
	stuckIdx   int
	scm        scenario.Node
	pipeline   string // UUID
	group      string
	containers []uint64
	term       int64
	index      int64 // the log index of the stuck write
	cmdID      int64
	threadN    int
}

// newH17674Run picks the pipeline's datanodes and IDs; stuck is the index of
// the member whose division gets stuck. A non-empty version sets the
// cluster's Ozone version (STARTUP_MSG).
func newH17674Run(s *scenario.Scenario, stuck int, version string) *h17674Run {
	if version != "" {
		s.Cluster.Version = version
	}
	r := &h17674Run{s: s, pipeline: scenario.UUID(s.Rand), term: int64(2 + s.Rand.Intn(4)),
		index: int64(900 + s.Rand.Intn(4000)), cmdID: int64(3000 + s.Rand.Intn(5000)), threadN: 1 + s.Rand.Intn(8)}
	r.group = scenario.GroupID(r.pipeline)
	r.dns = s.Cluster.Datanodes[:min(3, len(s.Cluster.Datanodes))]
	r.stuckIdx = min(stuck, len(r.dns)-1)
	r.stuckDN = r.dns[r.stuckIdx]
	if len(s.Cluster.SCMs) > 0 {
		r.scm = s.Cluster.SCMs[0]
	}
	id := uint64(100 + s.Rand.Intn(5000))
	for i := 0; i < 3; i++ {
		r.containers = append(r.containers, id)
		id += uint64(1 + s.Rand.Intn(7))
	}
	return r
}

// startups logs the pipeline datanodes' STARTUP_MSG banners (C.3).
func (r *h17674Run) startups(at time.Time) {
	for i, dn := range r.dns {
		r.s.Startup(dn, at.Add(time.Duration(i)*1500*time.Millisecond), "")
	}
}

// role is the %9s-padded role of member i (§0 trap 2).
func (r *h17674Run) role(i int) string {
	if i == 0 {
		return "   LEADER"
	}
	return " FOLLOWER"
}

// ratisThread is the division executor thread that calls write(): the
// client executor on the leader, the server executor on a follower (A.0, §0).
func (r *h17674Run) ratisThread(dn scenario.Node) string {
	kind := "server"
	if dn.Host == r.dns[0].Host {
		kind = "client"
	}
	return fmt.Sprintf("%s%s-thread%d", r.s.Cluster.ThreadPrefix(dn), kind, r.threadN)
}

func (r *h17674Run) member(dn scenario.Node) string { return scenario.MemberID(dn, r.group) }

// conf renders RaftConfigurationImpl.toString (ratis-3.1+, §0).
func (r *h17674Run) conf() string {
	peers := make([]string, len(r.dns))
	for i, dn := range r.dns {
		peers[i] = dn.UUID + "|" + dn.IP + ":9858" // RaftPeer.toString "<id>|<address>"
	}
	return "conf: {index: 0, cur=peers:[" + strings.Join(peers, ", ") + "]|listeners:[], old=null}"
}

// serverState renders RaftServerImpl.toString after the role and lifecycle:
// ServerState.toString (ServerState.java:370-372) with the RaftLog string
// (RaftLogBase.java:367-369).
func (r *h17674Run) serverState(dn scenario.Node) string {
	leader := r.dns[0].UUID
	m := r.member(dn)
	return fmt.Sprintf("%s:t%d, leader=%s, voted=%s, raftlog=%s-SegmentedRaftLog:OPENED:c%d:last(t:%d, i:%d), conf=%s",
		m, r.term, leader, leader, m, r.index-1, r.term, r.index, r.conf())
}

// precursors logs P1 "Timeout i/30" on the division's log worker before the
// trigger (A.1). The TimeoutIOException text follows A.1 ("Timeout 10s:
// WriteLog:<index>: <entry>-writeStateMachineData"); the entry's rendering
// and the stack frames (the callers A.1 names) are inferred.
func (r *h17674Run) precursors(dn scenario.Node, at time.Time) {
	m := r.member(dn)
	for i := 26; i <= 30; i++ {
		t := at.Add(-time.Duration(31-i) * 10 * time.Second)
		// P1 ratis SegmentedRaftLogWorker.java:98.
		r.s.Add(scenario.Line{At: t, Host: dn.Host, Level: parsers.LevelWarn, Logger: h17674LogWorker, Thread: m + "-SegmentedRaftLogWorker",
			Source: "SegmentedRaftLogWorker.java:98",
			Msg: fmt.Sprintf("Timeout %d/30\n", i) +
				fmt.Sprintf("org.apache.ratis.protocol.exceptions.TimeoutIOException: Timeout 10s: WriteLog:%d: (t:%d, i:%d), STATEMACHINELOGENTRY-writeStateMachineData\n", r.index, r.term, r.index) +
				"\tat org.apache.ratis.util.IOUtils.getFromFuture(IOUtils.java:89)\n" +
				"\tat org.apache.ratis.server.raftlog.segmented.SegmentedRaftLog$StateMachineDataPolicy.getFromFuture(SegmentedRaftLog.java:131)\n" +
				"\tat org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker$WriteLog.execute(SegmentedRaftLogWorker.java:570)"})
	}
}

// writeChunkTimeout logs T1 on thread (A.2) and returns the wait it printed.
func (r *h17674Run) writeChunkTimeout(dn scenario.Node, at time.Time, thread string) int64 {
	waited := h17674ThresholdNs + r.s.Rand.Int63n(30_000_000_000)
	// T1 ContainerStateMachine.java:707.
	r.s.Add(scenario.Line{At: at, Host: dn.Host, Level: parsers.LevelError, Logger: h17674CSM, Thread: thread,
		Source: "ContainerStateMachine.java:707",
		Msg: fmt.Sprintf("Write chunk has taken %dns crossing threshold %dns for index %d groupId %s, cancelling pending write chunk for this group",
			waited, h17674ThresholdNs, r.index, r.group)})
	return waited
}

// trigger logs T1, T2 (with T1x in its stack) and the start of close() (T4,
// T5, T6) back to back on the division's Ratis thread (A.2).
func (r *h17674Run) trigger(dn scenario.Node, at time.Time) {
	thread := r.ratisThread(dn)
	r.precursors(dn, at)
	waited := r.writeChunkTimeout(dn, at, thread)
	// T2 ContainerStateMachine.java:841 with the T1x StorageContainerException (:714-716).
	r.s.Add(scenario.Line{At: at.Add(time.Millisecond), Host: dn.Host, Level: parsers.LevelError, Logger: h17674CSM, Thread: thread,
		Source: "ContainerStateMachine.java:841",
		Msg: dn.UUID + ": Failed to writeStateMachineData, close server\n" +
			fmt.Sprintf("org.apache.hadoop.hdds.scm.container.common.helpers.StorageContainerException: Write chunk has taken %dns crossing threshold %dns for index %d groupId %s\n",
				waited, h17674ThresholdNs, r.index, r.group) +
			"\tat org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine.validateLongRunningWrite(ContainerStateMachine.java:714)\n" +
			"\tat org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine.writeStateMachineData(ContainerStateMachine.java:586)\n" +
			"\tat org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine.write(ContainerStateMachine.java:806)\n" +
			"\tat org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker$WriteLog.<init>(SegmentedRaftLogWorker.java:516)"})
	r.closeSteps(dn, at.Add(2*time.Millisecond), thread, r.stuckIdx, false)
}

// closeSteps logs the first lines of RaftServerImpl.close() on thread: T4,
// T5 and T6; when completes, also T7 and T9 (A.2).
func (r *h17674Run) closeSteps(dn scenario.Node, at time.Time, thread string, idx int, completes bool) {
	m := r.member(dn)
	state := "FollowerState"
	if idx == 0 {
		state = "LeaderStateImpl"
	}
	// T4 RaftServerImpl.java:528.
	r.s.Add(scenario.Line{At: at, Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674Division, Thread: thread,
		Source: "RaftServerImpl.java:528", Msg: m + ": shutdown"})
	// T5 RoleInfo.java:121 / :103.
	r.s.Add(scenario.Line{At: at.Add(time.Millisecond), Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674RoleInfo, Thread: thread,
		Source: "RoleInfo.java:121", Msg: dn.UUID + ": shutdown " + m + "-" + state})
	// T6 StateMachineUpdater.java:163.
	r.s.Add(scenario.Line{At: at.Add(2 * time.Millisecond), Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674Updater, Thread: thread,
		Source: "StateMachineUpdater.java:163", Msg: fmt.Sprintf("%s-StateMachineUpdater: set stopIndex = %d", m, r.index-1)})
	if !completes {
		return
	}
	// T7 StateMachineUpdater.java:140.
	r.s.Add(scenario.Line{At: at.Add(5 * time.Millisecond), Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674Updater,
		Thread: m + "-StateMachineUpdater", Source: "StateMachineUpdater.java:140",
		Msg: fmt.Sprintf("%s-StateMachineUpdater: closing ContainerStateMachine, lastApplied=(t:%d, i:%d)", m, r.term, r.index-1)})
	// T9 SegmentedRaftLogWorker.java:254.
	r.s.Add(scenario.Line{At: at.Add(9 * time.Millisecond), Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674LogWorker, Thread: thread,
		Source: "SegmentedRaftLogWorker.java:254", Msg: m + "-SegmentedRaftLogWorker close()"})
}

// scmClosesPipeline logs SCM closing the pipeline: S3 per container, S4,
// then S5 per container (A.3).
func (r *h17674Run) scmClosesPipeline(at time.Time) {
	if r.scm.Host == "" {
		return
	}
	prefix := r.s.Cluster.ThreadPrefix(r.scm)
	for i, c := range r.containers {
		// S3 PipelineManagerImpl.java:483.
		r.s.Add(scenario.Line{At: at.Add(time.Duration(i) * time.Millisecond), Host: r.scm.Host, Level: parsers.LevelInfo, Logger: h17674PipelineMgr,
			Thread: prefix + "EventQueue-PipelineActionsForPipelineActionHandler", Source: "PipelineManagerImpl.java:483",
			Msg: fmt.Sprintf("Container #%d closed for pipeline=Pipeline-%s", c, r.pipeline)})
	}
	// S4 PipelineManagerImpl.java:505.
	r.s.Add(scenario.Line{At: at.Add(5 * time.Millisecond), Host: r.scm.Host, Level: parsers.LevelInfo, Logger: h17674PipelineMgr,
		Thread: prefix + "EventQueue-PipelineActionsForPipelineActionHandler", Source: "PipelineManagerImpl.java:505",
		Msg: "Pipeline Pipeline-" + r.pipeline + " moved to CLOSED state"})
	for i, c := range r.containers {
		// S5 CloseContainerEventHandler.java:87.
		r.s.Add(scenario.Line{At: at.Add(100*time.Millisecond + time.Duration(i)*time.Millisecond), Host: r.scm.Host, Level: parsers.LevelInfo,
			Logger: h17674CloseEvent, Thread: prefix + "EventQueue-CloseContainerForCloseContainerEventHandler",
			Source: "CloseContainerEventHandler.java:87",
			Msg:    fmt.Sprintf("Close container Event triggered for container : #%d, current state: CLOSING", c)})
	}
}

// resend logs S11: ReplicationManager re-sending a close command for
// container to the stuck datanode (A.3; CloseContainerCommand.java:89-100,
// ContainerInfo.java:334-342).
func (r *h17674Run) resend(at time.Time, container uint64, state string) {
	if r.scm.Host == "" {
		return
	}
	r.cmdID++
	deadline := at.Add(10 * time.Minute).UnixMilli()
	entered := at.Add(-time.Duration(3+r.s.Rand.Intn(20)) * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")
	// S11 ReplicationManager.java:666.
	r.s.Add(scenario.Line{At: at, Host: r.scm.Host, Level: parsers.LevelInfo, Logger: h17674RM,
		Thread: r.s.Cluster.ThreadPrefix(r.scm) + "ReplicationMonitor", Source: "ReplicationManager.java:666",
		Msg: fmt.Sprintf("Sending command [closeContainerCommand: cmdID: %d, encodedToken: \"\", term: 0, deadlineMsSinceEpoch: %d, "+
			"containerID: %d, pipelineID: Pipeline-%s, force: false] for container ContainerInfo{id=#%d, state=%s, "+
			"stateEnterTime=%s, pipelineID=Pipeline-%s, owner=%s} to %s with datanode deadline %d and scm deadline %d",
			r.cmdID, deadline, container, r.pipeline, container, state, entered, r.pipeline, r.s.Cluster.OMService,
			r.stuckDN.Details(), deadline, at.Add(15*time.Minute).UnixMilli())})
}

// notRunning is C1a's cause: the division still in the server's map, CLOSING.
func (r *h17674Run) notRunning(dn scenario.Node) string {
	return h17674NotReady(r.member(dn), "[RUNNING]", "CLOSING")
}

// notFound is C1b's cause: the division removed from the server's map.
func (r *h17674Run) notFound(dn scenario.Node) string {
	// GroupMismatchException, RaftServerProxy.java:160-161 (A.6).
	return "org.apache.ratis.protocol.exceptions.GroupMismatchException: " + dn.UUID + ": " + r.group + " not found."
}

// rejected is C1c's cause (inferred, not confirmed): a request submitted to
// a division whose client executor is shutting down (A.4; the JDK's
// ThreadPoolExecutor rejection text).
func (r *h17674Run) rejected() string {
	return fmt.Sprintf("java.util.concurrent.RejectedExecutionException: Task java.util.concurrent.CompletableFuture$AsyncSupply@%x "+
		"rejected from java.util.concurrent.ThreadPoolExecutor@%x[Shutting down, pool size = %d, active threads = %d, "+
		"queued tasks = 0, completed tasks = %d]", r.s.Rand.Uint32(), r.s.Rand.Uint32(), 1+r.s.Rand.Intn(4), r.s.Rand.Intn(2),
		1000+r.s.Rand.Intn(90000))
}

// h17674NotReady renders ServerNotReadyException (RaftServerImpl.java:807-810, A.6).
func h17674NotReady(member, expected, state string) string {
	return "org.apache.ratis.protocol.exceptions.ServerNotReadyException: " + member + " is not in " + expected +
		": current state is " + state
}

// closeFailed logs C1 "Can't close container #N" with cause (A.4): the
// IOException built from the ExecutionException's message, then the causes.
func (r *h17674Run) closeFailed(dn scenario.Node, at time.Time, worker int, container uint64, cause string) {
	// C1 CloseContainerCommandHandler.java:156; XceiverServerRatis.java:677-678 wraps the cause.
	r.s.Add(scenario.Line{At: at, Host: dn.Host, Level: parsers.LevelError, Logger: h17674CloseCt,
		Thread: fmt.Sprintf("%sCloseContainerThread-%d", r.s.Cluster.ThreadPrefix(dn), worker), Source: "CloseContainerCommandHandler.java:156",
		Msg: fmt.Sprintf("Can't close container #%d\n", container) +
			"java.io.IOException: " + cause + "\n" +
			"\tat org.apache.hadoop.ozone.container.common.transport.server.ratis.XceiverServerRatis.submitRequest(XceiverServerRatis.java:678)\n" +
			"\tat org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CloseContainerCommandHandler.handle(CloseContainerCommandHandler.java:127)\n" +
			"Caused by: java.util.concurrent.ExecutionException: " + cause + "\n" +
			"\tat java.base/java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:396)\n" +
			"\tat java.base/java.util.concurrent.CompletableFuture.get(CompletableFuture.java:2073)\n" +
			"\tat org.apache.hadoop.ozone.container.common.transport.server.ratis.XceiverServerRatis.submitRequest(XceiverServerRatis.java:672)\n" +
			"\t... 1 more\n" +
			"Caused by: " + cause})
}

// followerCannotClose logs C2: a close command submitted to a follower's
// division (A.4).
func (r *h17674Run) followerCannotClose(dn scenario.Node, at time.Time, worker int, container uint64) {
	// C2 CloseContainerCommandHandler.java:154.
	r.s.Add(scenario.Line{At: at, Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674CloseCt,
		Thread: fmt.Sprintf("%sCloseContainerThread-%d", r.s.Cluster.ThreadPrefix(dn), worker), Source: "CloseContainerCommandHandler.java:154",
		Msg: fmt.Sprintf("Follower cannot close container #%d.", container)})
}

// removal logs R1 on the datanode's close-pipeline thread (A.5).
func (r *h17674Run) removal(dn scenario.Node, at time.Time, role, lifecycle string) {
	// R1 RaftServerProxy.java:117: "<peer>: remove <role %9s> (<state>): <ServerState>".
	r.s.Add(scenario.Line{At: at, Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674Proxy,
		Thread: r.s.Cluster.ThreadPrefix(dn) + "ClosePipelineCommandHandlerThread-0", Source: "RaftServerProxy.java:117",
		Msg: dn.UUID + ": remove " + role + " (" + lifecycle + "): " + r.serverState(dn)})
}

// removalDone logs the completion of a removal: R9, the quasi-close of the
// containers in the dn-container log, then R8 (A.5).
func (r *h17674Run) removalDone(dn scenario.Node, at time.Time) {
	thread := r.s.Cluster.ThreadPrefix(dn) + "ClosePipelineCommandHandlerThread-0"
	for i, c := range r.containers {
		// dn-container log ContainerLogger.java:75-77, reason ContainerStateMachine.java:1325-1326.
		r.s.Add(scenario.Line{At: at.Add(time.Duration(i) * 3 * time.Millisecond), Host: dn.Host, Level: parsers.LevelWarn, Logger: h17674ContainerLog,
			File: parsers.KindContainer,
			Msg: fmt.Sprintf("ID=%d | Index=0 | BCSID=%d | State=QUASI_CLOSED | Volume=%s | DataChecksum=%08x | Ratis group removed. Group id: %s",
				c, r.index-1, h17674Volume, r.s.Rand.Uint32(), r.group)})
	}
	// R9 RaftServerImpl.java:498 (the directory's rendering is inferred).
	r.s.Add(scenario.Line{At: at.Add(20 * time.Millisecond), Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674Division, Thread: thread,
		Source: "RaftServerImpl.java:498",
		Msg:    r.member(dn) + ": Succeed to remove RaftStorageDirectory /data/metadata/ratis/" + r.pipeline})
	// R8 ClosePipelineCommandHandler.java:166.
	r.s.Add(scenario.Line{At: at.Add(25 * time.Millisecond), Host: dn.Host, Level: parsers.LevelInfo, Logger: h17674ClosePl, Thread: thread,
		Source: "ClosePipelineCommandHandler.java:166",
		Msg:    "Close Pipeline Pipeline-" + r.pipeline + " command on datanode " + dn.UUID + "."})
}

// normalRemoval logs a healthy group removal: R1 (RUNNING), the close (T4
// to T9) on the same thread, then R9, the quasi-closes and R8 (A.5, E.1).
func (r *h17674Run) normalRemoval(dn scenario.Node, at time.Time, role string) {
	idx := 1
	if role == "   LEADER" {
		idx = 0
	}
	r.removal(dn, at, role, "RUNNING")
	r.closeSteps(dn, at.Add(time.Millisecond), r.s.Cluster.ThreadPrefix(dn)+"ClosePipelineCommandHandlerThread-0", idx, true)
	r.removalDone(dn, at.Add(30*time.Millisecond))
}

// stuck plays the defect on r.stuckDN from at: the trigger; SCM closing the
// pipeline 5 minutes later; the first close commands failing with CLOSING;
// the removal in CLOSING while the other members remove the group normally;
// then ReplicationManager re-sending the close commands every 5 minutes
// (each failing with GroupMismatch) until until. It returns the time of the
// last failure.
func (r *h17674Run) stuck(at time.Time, scmState string, until time.Time) time.Time {
	r.startups(r.s.Start.Add(5 * time.Second))
	dn := r.stuckDN
	r.trigger(dn, at)
	closeAt := at.Add(5 * time.Minute)
	r.scmClosesPipeline(closeAt)
	for i, c := range r.containers {
		r.closeFailed(dn, closeAt.Add(3*time.Second+time.Duration(i)*30*time.Millisecond), i, c, r.notRunning(dn))
	}
	r.removal(dn, closeAt.Add(4*time.Second), r.role(r.stuckIdx), "CLOSING")
	for i, n := range r.dns {
		if n.Host != dn.Host {
			r.normalRemoval(n, closeAt.Add(3*time.Second+time.Duration(i)*200*time.Millisecond), r.role(i))
		}
	}
	last := closeAt
	for t := closeAt.Add(5 * time.Minute); t.Before(until); t = t.Add(5 * time.Minute) {
		for i, c := range r.containers {
			ct := t.Add(time.Duration(i) * 35 * time.Millisecond)
			r.resend(ct, c, scmState)
			last = ct.Add(1500 * time.Millisecond)
			r.closeFailed(dn, last, i, c, r.notFound(dn))
		}
	}
	return last
}

// restartAndRecover restarts the stuck datanode at at (the blocked removal
// is interrupted, R10), and after the restart the group is removed normally
// and its containers quasi-closed (F.1 step 2). One close command arrives
// while the re-added division is still STARTING.
func (r *h17674Run) restartAndRecover(at time.Time) {
	dn := r.stuckDN
	r.s.Signal(dn, at, "TERM")
	// R10 RaftServerImpl.java:490.
	r.s.Add(scenario.Line{At: at.Add(150 * time.Millisecond), Host: dn.Host, Level: parsers.LevelWarn, Logger: h17674Division,
		Thread: r.s.Cluster.ThreadPrefix(dn) + "ClosePipelineCommandHandlerThread-0", Source: "RaftServerImpl.java:490",
		Msg: r.member(dn) + ": Waiting closing interrupted, will not continue to remove group locally"})
	r.s.Shutdown(dn, at.Add(600*time.Millisecond))
	up := at.Add(50 * time.Second)
	r.s.Startup(dn, up, "")
	r.resend(up.Add(8*time.Second), r.containers[0], "QUASI_CLOSED")
	r.closeFailed(dn, up.Add(9*time.Second), 0, r.containers[0], h17674NotReady(r.member(dn), "[RUNNING]", "STARTING"))
	role := " FOLLOWER"
	r.removal(dn, up.Add(40*time.Second), role, "RUNNING")
	r.closeSteps(dn, up.Add(40*time.Second+time.Millisecond), r.s.Cluster.ThreadPrefix(dn)+"ClosePipelineCommandHandlerThread-0", 1, true)
	r.removalDone(dn, up.Add(40*time.Second+30*time.Millisecond))
}
