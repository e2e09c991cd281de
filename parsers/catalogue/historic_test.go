package catalogue

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
)

// Parameters of the historic renderings below.
const (
	hDN      = "3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f"
	hDN2     = "7c2e9b1f-0d3a-4e5b-8f6c-1a2b3c4d5e6f"
	hPipe    = "8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"
	hGroup   = "group-A5B6C7D8E9F0" // RaftGroupId of hPipe
	hSCM     = "5b1f0c2e-8d7a-4c3b-9e21-6f0a1b2c3d4e"
	hOMGroup = "group-C5BA1605619E"
	// DatanodeDetails.toString: ozone-1.0.0 (DatanodeDetails.java:255-265 @1.0.0).
	hDNLong10 = hDN + "{ip: 10.0.0.11, host: dn1.example.com, networkLocation: /default-rack, certSerialId: null}"
	// DatanodeDetails.toString ozone-1.1.0..1.3.0 (:481-494 @1.1.0) and
	// toDebugString 1.4.0+ (:535-548 @1.4.0); Port.toString is "NAME=value".
	hDNLong = hDN + "{ip: 10.0.0.11, host: dn1.example.com, ports: [REPLICATION=9886, RATIS=9858, RATIS_ADMIN=9857, " +
		"RATIS_SERVER=9856, STANDALONE=9859], networkLocation: /default-rack, certSerialId: null, " +
		"persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}"
	hDN2Long = hDN2 + "{ip: 10.0.0.12, host: dn2.example.com, ports: [REPLICATION=9886, RATIS=9858, RATIS_ADMIN=9857, " +
		"RATIS_SERVER=9856, STANDALONE=9859], networkLocation: /default-rack, certSerialId: null, " +
		"persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}"
	// DatanodeDetails.toString since ozone-1.4.0 (:531-533 @1.4.0, HDDS-7753).
	hDNShort  = hDN + "(dn1.example.com/10.0.0.11)"
	hDN2Short = hDN2 + "(dn2.example.com/10.0.0.12)"
)

var hDNWant = Datanode{UUID: hDN, Host: "dn1.example.com", IP: "10.0.0.11"}

// l1 renders one record in layout L1 (%d{ISO8601} [%t] %p %c: %m%n), the
// tarball default for daemon log files.
func l1(ts, thread, level, logger, msg string) string {
	return ts + " [" + thread + "] " + level + " " + logger + ": " + msg + "\n"
}

// historicCase is one historic rendering of one catalogue entry.
type historicCase struct {
	kind     Kind   // the entry's kind
	form     string // the form letter of docs/wording-by-release.md
	releases string // the Ozone releases that printed this form
	source   string // the template read, tag and file:line
	file     parsers.Kind
	comp     parsers.Component
	log      string
	want     Signal // Kind and the fields to check (zero fields are not compared)
}

func historicCases() []historicCase {
	const (
		ts    = "2022-03-01 10:20:07,118"
		scmC  = parsers.ComponentSCM
		dnC   = parsers.ComponentDatanode
		omC   = parsers.ComponentOM
		rjpm  = "org.apache.ratis.util.JvmPauseMonitor"
		hjpm  = "org.apache.hadoop.util.JvmPauseMonitor"
		nodeP = "org.apache.hadoop.hdds.scm.node."
		pipeP = "org.apache.hadoop.hdds.scm.pipeline."
		omrs  = "org.apache.hadoop.ozone.om.ratis.OzoneManagerRatisServer"
		om    = "org.apache.hadoop.ozone.om.OzoneManager"
		div   = "org.apache.ratis.server.RaftServer$Division"
		rsi   = "org.apache.ratis.server.impl.RaftServerImpl"
		rm    = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"
		cch   = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CloseContainerCommandHandler"
		cph   = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.ClosePipelineCommandHandler"
	)
	banner := func(lines ...string) string {
		return "STARTUP_MSG: \n/************************************************************\n" +
			strings.Join(lines, "\n") + "\n************************************************************/"
	}
	// Pipeline.toString: ozone-1.0.0/1.1.0 (Pipeline.java:359-372 @1.0.0),
	// 1.2.0..1.3.0 (:381-394 @1.2.0), 1.4.1 (:515-535 @1.4.1), 2.0.0+ (:523-539 @2.0.0).
	pipe10 := "Pipeline[ Id: " + hPipe + ", Nodes: " + hDNLong10 + ", Type:RATIS, Factor:ONE, State:CLOSED, leaderId:" + hDN +
		", CreationTimestamp2020-09-01T10:00:00.123Z]"
	pipe12 := "Pipeline[ Id: " + hPipe + ", Nodes: " + hDNLong + hDN2Long + ", ReplicationConfig: RATIS/THREE, State:CLOSED, leaderId:" +
		hDN + ", CreationTimestamp2022-03-01T09:00:00.123Z[UTC]]"
	pipe141 := "Pipeline[ Id: " + hPipe + ", Nodes: " + hDNShort + " ReplicaIndex: 0" + hDN2Short + " ReplicaIndex: 0, " +
		"ReplicationConfig: RATIS/THREE, State:CLOSED, leaderId:" + hDN + ", CreationTimestamp2024-03-01T09:00:00.123Z[UTC]]"
	pipe20 := "Pipeline{ Id: " + hPipe + ", Nodes: [ {" + hDNShort + ", ReplicaIndex: 0}, {" + hDN2Short + ", ReplicaIndex: 0},], " +
		"ReplicationConfig: RATIS/THREE, State:CLOSED, leaderId:" + hDN + ", CreationTimestamp2025-03-01T09:00:00.123Z[UTC]}"
	// ServerState.toString (ServerState.java:355-357 @ratis-2.0.0) inside
	// RaftServerImpl.toString up to ratis-3.1.x.
	state22 := hDN + "@" + hGroup + ":t3, leader=" + hDN + ", voted=" + hDN + ", raftlog=" + hDN + "@" + hGroup +
		"-SegmentedRaftLog:OPENED:c12, conf=12: [" + hDN + "|rpc:10.0.0.11:9858|admin:10.0.0.11:9857|client:10.0.0.11:9856|priority:1], old=null"
	// RaftPeer renderings in a RaftGroup: ratis-2.2.0 (RaftPeer.java:216-225) and 3.x (:238-241).
	peers22 := "[omNode-1|rpc:om1.example.com:9872|priority:0, omNode-4|rpc:om4.example.com:9872|priority:0]"
	peers31 := "[omNode-1|om1.example.com:9872, omNode-4|om4.example.com:9872]"
	return []historicCase{
		// ---- process ----
		{StartupMsg, "A", "1.0.0-1.3.0", "ozone-1.2.1 hadoop-hdds/common/.../hdds/StringUtils.java:139-152", parsers.KindLog, omC,
			l1(ts, "main", "INFO", "org.apache.hadoop.ozone.om.OzoneManagerStarter", banner(
				"STARTUP_MSG: Starting OzoneManager",
				"STARTUP_MSG:   host = om4.example.com/10.0.0.14",
				"STARTUP_MSG:   args = [--bootstrap]",
				"STARTUP_MSG:   version = 1.2.1",
				"STARTUP_MSG:   classpath = /opt/hadoop/etc/hadoop:/opt/hadoop/share/ozone/lib/ozone-manager-1.2.1.jar",
				"STARTUP_MSG:   build = https://github.com/apache/ozone.git/7a1a3a1e6a0d5b0b5c4b2a6f1d7b8c9e0f1a2b3c ; compiled by 'runner' on 2021-12-16T10:12Z",
				"STARTUP_MSG:   java = 11.0.13")),
			Signal{Kind: StartupMsg, Version: "1.2.1", Attrs: map[string]string{"service": "OzoneManager",
				"hostname": "om4.example.com", "ip": "10.0.0.14", "args": "--bootstrap"}}},
		{StartupMsg, "B", "1.4.0-2.0.0", "ozone-1.4.1 hadoop-hdds/common/.../hdds/StringUtils.java:160-175", parsers.KindLog, scmC,
			l1(ts, "main", "INFO", "org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter", banner(
				"STARTUP_MSG: Starting StorageContainerManager",
				"STARTUP_MSG:   host = scm1.example.com/10.0.0.2",
				"STARTUP_MSG:   args = []",
				"STARTUP_MSG:   version = 1.4.1",
				"STARTUP_MSG:   classpath = /opt/hadoop/etc/hadoop:/opt/hadoop/share/ozone/lib/hdds-server-scm-1.4.1.jar",
				"STARTUP_MSG:   build = https://github.com/apache/ozone/4d3b6ce1a1a4a6a3c1b4a1e3b0f7d2a8c3e4f5a6 ; compiled by 'runner' on 2024-11-15T12:14Z",
				"STARTUP_MSG:   java = 11.0.24",
				"STARTUP_MSG:   conf = {ozone.scm.dead.node.interval=10m, ozone.scm.stale.node.interval=5m}")),
			Signal{Kind: StartupMsg, Version: "1.4.1", Attrs: map[string]string{"service": "StorageContainerManager",
				"hostname": "scm1.example.com", "ip": "10.0.0.2", "conf": "ozone.scm.dead.node.interval=10m, ozone.scm.stale.node.interval=5m"}}},
		{StartupMsg, "C", "2.1.0-master", "ozone-2.2.0 hadoop-hdds/framework/.../utils/HddsServerUtil.java:825-833", parsers.KindLog, dnC,
			l1(ts, "main", "INFO", "org.apache.hadoop.ozone.HddsDatanodeService", banner(
				"STARTUP_MSG: Starting HddsDatanodeService",
				"STARTUP_MSG:        host = dn1.example.com/10.0.0.11",
				"STARTUP_MSG:     version = 2.2.0",
				"STARTUP_MSG:       build = https://github.com/apache/ozone/95bda680",
				"STARTUP_MSG:        java = 21.0.8",
				"STARTUP_MSG:        args = []",
				"STARTUP_MSG:   classpath = /opt/hadoop/share/ozone/lib/hdds-container-service-2.2.0.jar",
				"STARTUP_MSG:        conf = {hdds.heartbeat.interval=30s}")),
			Signal{Kind: StartupMsg, Version: "2.2.0", Attrs: map[string]string{"service": "HddsDatanodeService",
				"hostname": "dn1.example.com", "ip": "10.0.0.11", "conf": "hdds.heartbeat.interval=30s"}}},

		// ---- SCM node health ----
		{ShutdownMsg, "A", "1.0.0-master", "ozone-1.0.0 hadoop-hdds/common/.../hdds/StringUtils.java:123-125", parsers.KindLog, omC,
			l1(ts, "shutdown-hook-0", "INFO", "org.apache.hadoop.ozone.om.OzoneManagerStarter",
				"SHUTDOWN_MSG: \n/************************************************************\n"+
					"SHUTDOWN_MSG: Shutting down OzoneManager at om4.example.com/10.0.0.14\n"+
					"************************************************************/"),
			Signal{Kind: ShutdownMsg, Attrs: map[string]string{"service": "OzoneManager", "hostname": "om4.example.com", "ip": "10.0.0.14"}}},
		{SignalReceived, "A", "1.0.0-master", "ozone-1.0.0 hadoop-hdds/common/.../utils/SignalLogger.java:60-61; master framework/.../SignalLogger.java:70", parsers.KindLog, dnC,
			l1(ts, "SIGTERM handler", "ERROR", "org.apache.hadoop.ozone.HddsDatanodeService", "RECEIVED SIGNAL 15: SIGTERM"),
			Signal{Kind: SignalReceived, Count: 15, Reason: "SIGTERM"}},
		{Terminating, "A", "1.0.0-master", "ratis-1.0.0..3.2.1 ratis-common/.../util/ExitUtils.java:129", parsers.KindLog, scmC,
			l1(ts, "SCMStateMachineUpdater", "INFO", "org.apache.hadoop.hdds.scm.server.StorageContainerManager",
				"Terminating with exit status 1: scm statemachine is closed by ratis, terminate SCM"),
			Signal{Kind: Terminating, Count: 1}},
		{HeartbeatCheckSkipped, "A", "1.0.0-master", "ozone-1.0.0 server-scm/.../node/NodeStateManager.java:522-523", parsers.KindLog, scmC,
			l1(ts, "SCMHeartbeatProcessor", "INFO", nodeP+"NodeStateManager",
				"Detected long delay in scheduling HB processing thread. Skipping heartbeat checks for one iteration."),
			Signal{Kind: HeartbeatCheckSkipped}},
		{HeartbeatCheckSlow, "A", "1.0.0-master", "ozone-1.0.0 NodeStateManager.java:641-647", parsers.KindLog, scmC,
			l1(ts, "SCMHeartbeatProcessor", "ERROR", nodeP+"NodeStateManager",
				"Total time spend processing datanode HB's is greater than configured values for datanode heartbeats. "+
					"Please adjust the heartbeat configs. Time Spend on HB processing: 42 seconds Datanode heartbeat Interval: 30000 seconds."),
			Signal{Kind: HeartbeatCheckSlow, Duration: 42 * time.Second}},
		{JVMPause, "A", "1.4.0-master", "ratis-3.1.1 ratis-common/.../util/JvmPauseMonitor.java:70-90,168", parsers.KindLog, scmC,
			l1(ts, "JvmPauseMonitor0", "WARN", rjpm, "JvmPauseMonitor-"+hSCM+": Detected pause in JVM or host machine approximately 12.5s with 11.9s GC time.\n"+
				"GC pool 'G1 Young Generation' had collection(s): count=1 time=11900ms"),
			Signal{Kind: JVMPause, Duration: 12500 * time.Millisecond, Attrs: map[string]string{"monitor": "JvmPauseMonitor-" + hSCM, "gc": "11.9s"}}},
		{JVMPause, "B", "1.1.0-1.3.0", "ratis-2.2.0 JvmPauseMonitor.java:66-87,124", parsers.KindLog, dnC,
			l1(ts, "Thread-17", "WARN", rjpm, "JvmPauseMonitor-"+hDN+": Detected pause in JVM or host machine (eg GC): pause of approximately 52114523456ns. No GCs detected."),
			Signal{Kind: JVMPause, Duration: 52114523456, Attrs: map[string]string{"monitor": "JvmPauseMonitor-" + hDN}}},
		{JVMPause, "B", "1.1.0-1.3.0", "ratis-2.4.0 JvmPauseMonitor.java:68-89,126 (with GC)", parsers.KindLog, dnC,
			l1(ts, "Thread-17", "WARN", rjpm, "JvmPauseMonitor-"+hDN+": Detected pause in JVM or host machine (eg GC): pause of approximately 1250000000ns.\n"+
				"GC pool 'G1 Young Generation' had collection(s): count=1 time=1180ms"),
			Signal{Kind: JVMPause, Duration: 1250 * time.Millisecond}},
		{JVMPause, "C", "1.0.0-1.3.0", "hadoop util/JvmPauseMonitor (started by StorageContainerManager.java:814 @ozone-1.0.0)", parsers.KindLog, scmC,
			l1(ts, "org.apache.hadoop.util.JvmPauseMonitor$Monitor@5a2e4553", "WARN", hjpm,
				"Detected pause in JVM or host machine (eg GC): pause of approximately 52114ms\nNo GCs detected"),
			Signal{Kind: JVMPause, Duration: 52114 * time.Millisecond}},
		{RaftPauseStepDown, "A", "1.4.0-master", "ratis-3.0.1 ratis-server/.../impl/RaftServerProxy.java:241", parsers.KindLog, scmC,
			l1(ts, "JvmPauseMonitor0", "WARN", "org.apache.ratis.server.RaftServer", hSCM+": JVM pause detected 12.345s longer than the step-down-threshold 10s"),
			Signal{Kind: RaftPauseStepDown, Peer: hSCM, Duration: 12345 * time.Millisecond}},
		{RaftPauseClose, "A", "1.4.0-master", "ratis-3.0.1 RaftServerProxy.java:237", parsers.KindLog, scmC,
			l1(ts, "JvmPauseMonitor0", "ERROR", "org.apache.ratis.server.RaftServer", hSCM+": JVM pause detected 62.1s longer than the close-threshold 60s, shutting down ..."),
			Signal{Kind: RaftPauseClose, Peer: hSCM, Duration: 62100 * time.Millisecond, Attrs: map[string]string{"threshold": "60s"}}},
		{NodeStale, "A", "1.0.0", "ozone-1.0.0 server-scm/.../node/StaleNodeHandler.java:58", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", nodeP+"StaleNodeHandler",
				"Datanode "+hDNLong10+" moved to stale state. Finalizing its pipelines [PipelineID="+hPipe+"]"),
			Signal{Kind: NodeStale, Datanode: hDNWant, Pipelines: []string{hPipe}}},
		{NodeStale, "A", "1.1.0-1.3.0", "ozone-1.3.0 StaleNodeHandler.java:59", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", nodeP+"StaleNodeHandler",
				"Datanode "+hDNLong+" moved to stale state. Finalizing its pipelines [PipelineID="+hPipe+"]"),
			Signal{Kind: NodeStale, Datanode: hDNWant, Pipelines: []string{hPipe}}},
		{NodeStale, "B", "1.4.0-2.0.0", "ozone-1.4.1 StaleNodeHandler.java:57", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", nodeP+"StaleNodeHandler",
				"Datanode "+hDNShort+" moved to stale state. Finalizing its pipelines [PipelineID="+hPipe+"]"),
			Signal{Kind: NodeStale, Datanode: hDNWant, Pipelines: []string{hPipe}}},
		{NodeStale, "C", "2.1.0-master", "ozone-2.1.0 StaleNodeHandler.java:51", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", nodeP+"StaleNodeHandler",
				"Datanode "+hDNShort+" moved to stale state. Finalizing its pipelines [Pipeline-"+hPipe+"]"),
			Signal{Kind: NodeStale, Datanode: hDNWant, Pipelines: []string{hPipe}}},
		{NodeDead, "A", "1.1.0-1.3.0", "ozone-1.1.0 server-scm/.../node/DeadNodeHandler.java:77", parsers.KindLog, scmC,
			l1(ts, "EventQueue-DeadNodeForDeadNodeHandler", "INFO", nodeP+"DeadNodeHandler", "A dead datanode is detected. "+hDNLong),
			Signal{Kind: NodeDead, Datanode: hDNWant}},
		{NodeDead, "B", "1.4.0-master", "ozone-1.4.0 DeadNodeHandler.java:82", parsers.KindLog, scmC,
			l1(ts, "EventQueue-DeadNodeForDeadNodeHandler", "INFO", nodeP+"DeadNodeHandler", "A dead datanode is detected. "+hDNShort),
			Signal{Kind: NodeDead, Datanode: hDNWant}},
		{DeadNodeQueueCleared, "A", "1.4.0-master", "ozone-1.4.0 DeadNodeHandler.java:95", parsers.KindLog, scmC,
			l1(ts, "EventQueue-DeadNodeForDeadNodeHandler", "INFO", nodeP+"DeadNodeHandler", "Clearing command queue of size 3 for DN "+hDNShort),
			Signal{Kind: DeadNodeQueueCleared, Datanode: hDNWant, Count: 3}},
		{DeadNodeCommandsCleaned, "A", "1.4.1-master", "ozone-1.4.1 server-scm/.../block/SCMDeletedBlockTransactionStatusManager.java:204", parsers.KindLog, scmC,
			l1(ts, "EventQueue-DeadNodeForDeadNodeHandler", "INFO",
				"org.apache.hadoop.hdds.scm.block.SCMDeletedBlockTransactionStatusManager$SCMDeleteBlocksCommandStatusManager",
				"Clean SCMCommand record for Datanode: "+hDN),
			Signal{Kind: DeadNodeCommandsCleaned, Datanode: Datanode{UUID: hDN}}},
		{NodeHealthyReadonly, "A", "1.2.0-1.3.0", "ozone-1.2.0 server-scm/.../node/HealthyReadOnlyNodeHandler.java:58", parsers.KindLog, scmC,
			l1(ts, "EventQueue-HealthyReadonlyNodeForHealthyReadOnlyNodeHandler", "INFO", nodeP+"HealthyReadOnlyNodeHandler",
				"Datanode "+hDNLong+" moved to HEALTHY READONLY state."),
			Signal{Kind: NodeHealthyReadonly, Datanode: hDNWant}},
		{NodeHealthyReadonly, "B", "1.4.0-master", "ozone-1.4.0 HealthyReadOnlyNodeHandler.java:55", parsers.KindLog, scmC,
			l1(ts, "EventQueue-HealthyReadonlyNodeForHealthyReadOnlyNodeHandler", "INFO", nodeP+"HealthyReadOnlyNodeHandler",
				"Datanode "+hDNShort+" moved to HEALTHY READONLY state."),
			Signal{Kind: NodeHealthyReadonly, Datanode: hDNWant}},
		{NodeHealthy, "A", "1.2.0-1.3.0", "ozone-1.2.0 server-scm/.../node/ReadOnlyHealthyToHealthyNodeHandler.java:51", parsers.KindLog, scmC,
			l1(ts, "EventQueue-ReadonlyHealthyToHealthyNodeForReadOnlyHealthyToHealthyNodeHandler", "INFO",
				nodeP+"ReadOnlyHealthyToHealthyNodeHandler", "Datanode "+hDNLong+" moved to HEALTHY state."),
			Signal{Kind: NodeHealthy, Datanode: hDNWant}},
		{NodeHealthy, "B", "1.4.0-master", "ozone-1.4.0 ReadOnlyHealthyToHealthyNodeHandler.java:51", parsers.KindLog, scmC,
			l1(ts, "EventQueue-ReadonlyHealthyToHealthyNodeForReadOnlyHealthyToHealthyNodeHandler", "INFO",
				nodeP+"ReadOnlyHealthyToHealthyNodeHandler", "Datanode "+hDNShort+" moved to HEALTHY state."),
			Signal{Kind: NodeHealthy, Datanode: hDNWant}},
		{PipelineClosed, "A", "1.0.0-1.1.0", "ozone-1.0.0 server-scm/.../pipeline/PipelineStateManager.java:120", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", pipeP+"PipelineStateManager", "Pipeline "+pipe10+" moved to CLOSED state"),
			Signal{Kind: PipelineClosed, Pipeline: hPipe}},
		{PipelineClosed, "B", "1.2.0-1.3.0", "ozone-1.2.0 pipeline/PipelineManagerImpl.java:349", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", pipeP+"PipelineManagerImpl", "Pipeline "+pipe12+" moved to CLOSED state"),
			Signal{Kind: PipelineClosed, Pipeline: hPipe}},
		{PipelineClosed, "C", "1.4.0-2.0.0", "ozone-1.4.0 PipelineManagerImpl.java:518", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", pipeP+"PipelineManagerImpl", "Pipeline PipelineID="+hPipe+" moved to CLOSED state"),
			Signal{Kind: PipelineClosed, Pipeline: hPipe}},
		{PipelineClosed, "D", "2.1.0-master", "ozone-2.1.0 PipelineManagerImpl.java:511", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", pipeP+"PipelineManagerImpl", "Pipeline Pipeline-"+hPipe+" moved to CLOSED state"),
			Signal{Kind: PipelineClosed, Pipeline: hPipe}},
		{PipelineFinalizeFailed, "A", "1.0.0-1.3.0", "ozone-1.3.0 server-scm/.../node/StaleNodeHandler.java:66", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", nodeP+"StaleNodeHandler",
				"Could not finalize pipeline=PipelineID="+hPipe+" for dn="+hDNLong),
			Signal{Kind: PipelineFinalizeFailed, Datanode: hDNWant, Pipeline: hPipe}},
		{PipelineFinalizeFailed, "B", "1.4.0-2.0.0", "ozone-2.0.0 StaleNodeHandler.java:57", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", nodeP+"StaleNodeHandler",
				"Could not finalize pipeline=PipelineID="+hPipe+" for dn="+hDNShort),
			Signal{Kind: PipelineFinalizeFailed, Datanode: hDNWant, Pipeline: hPipe}},
		{PipelineFinalizeFailed, "C", "2.1.0-master", "ozone-2.1.0 StaleNodeHandler.java:57", parsers.KindLog, scmC,
			l1(ts, "EventQueue-StaleNodeForStaleNodeHandler", "INFO", nodeP+"StaleNodeHandler",
				"Could not finalize pipeline=Pipeline-"+hPipe+" for dn="+hDNShort),
			Signal{Kind: PipelineFinalizeFailed, Datanode: hDNWant, Pipeline: hPipe}},
		{PipelineRemoved, "A", "1.0.0-1.1.0", "ozone-1.1.0 pipeline/PipelineStateManager.java:106", parsers.KindLog, scmC,
			l1(ts, "RatisPipelineUtilsThread", "INFO", pipeP+"PipelineStateManager", "Pipeline "+pipe10+" removed from db"),
			Signal{Kind: PipelineRemoved, Pipeline: hPipe}},
		{PipelineRemoved, "B", "1.2.0-1.3.0", "ozone-1.3.0 pipeline/PipelineStateManagerImpl.java:245", parsers.KindLog, scmC,
			l1(ts, "RatisPipelineUtilsThread", "INFO", pipeP+"PipelineStateManagerImpl", "Pipeline "+pipe12+" removed."),
			Signal{Kind: PipelineRemoved, Pipeline: hPipe}},
		{PipelineRemoved, "B", "1.4.0-1.4.1", "ozone-1.4.1 pipeline/PipelineManagerImpl.java:459", parsers.KindLog, scmC,
			l1(ts, "RatisPipelineUtilsThread", "INFO", pipeP+"PipelineManagerImpl", "Pipeline "+pipe141+" removed."),
			Signal{Kind: PipelineRemoved, Pipeline: hPipe}},
		{PipelineRemoved, "C", "2.0.0-master", "ozone-2.0.0 PipelineManagerImpl.java:457", parsers.KindLog, scmC,
			l1(ts, "RatisPipelineUtilsThread", "INFO", pipeP+"PipelineManagerImpl", "Pipeline "+pipe20+" removed."),
			Signal{Kind: PipelineRemoved, Pipeline: hPipe}},
		{HeartbeatFromUnregistered, "A", "1.0.0-1.3.0", "ozone-1.0.0 server-scm/.../server/SCMDatanodeHeartbeatDispatcher.java:96-97", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 3 on default port 9861", "INFO", "org.apache.hadoop.hdds.scm.server.SCMDatanodeHeartbeatDispatcher",
				"SCM received heartbeat from an unregistered datanode "+hDNLong10+". Asking datanode to re-register."),
			Signal{Kind: HeartbeatFromUnregistered, Datanode: hDNWant}},
		{HeartbeatFromUnregistered, "B", "1.4.0-master", "ozone-2.1.0 SCMDatanodeHeartbeatDispatcher.java:91-92", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 3 on default port 9861", "INFO", "org.apache.hadoop.hdds.scm.server.SCMDatanodeHeartbeatDispatcher",
				"SCM received heartbeat from an unregistered datanode "+hDNShort+". Asking datanode to re-register."),
			Signal{Kind: HeartbeatFromUnregistered, Datanode: hDNWant}},
		{IntervalReset, "A", "1.0.0-master", "ozone-1.0.0 hadoop-hdds/framework/.../server/ServerUtils.java:67-70", parsers.KindLog, scmC,
			l1(ts, "main", "WARN", "org.apache.hadoop.hdds.server.ServerUtils",
				"ozone.scm.stale.node.interval value = 10000 is smaller than min = 90000 based on the key value of hdds.heartbeat.interval, reset to the min value 90000."),
			Signal{Kind: IntervalReset, Duration: 90 * time.Second, Reason: "smaller"}},

		// ---- SCM registration and upgrade ----
		{DatanodeRegistered, "B", "1.0.0-1.3.0", "ozone-1.3.0 server-scm/.../node/SCMNodeManager.java:397", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 5 on default port 9861", "INFO", nodeP+"SCMNodeManager", "Registered Data node : "+hDNLong),
			Signal{Kind: DatanodeRegistered, Datanode: hDNWant}},
		{DatanodeRegistered, "B", "1.0.0", "ozone-1.0.0 SCMNodeManager.java:273", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 5 on default port 9861", "INFO", nodeP+"SCMNodeManager", "Registered Data node : "+hDNLong10),
			Signal{Kind: DatanodeRegistered, Datanode: hDNWant}},
		{DatanodeRegistered, "A", "1.4.0-master", "ozone-1.4.0 SCMNodeManager.java:405 (toDebugString)", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 5 on default port 9861", "INFO", nodeP+"SCMNodeManager", "Registered datanode: "+hDNLong),
			Signal{Kind: DatanodeRegistered, Datanode: hDNWant}},
		{InvalidDataNodeLayout, "A", "1.2.0-master", "ozone-1.2.0 SCMNodeManager.java:589-592", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 5 on default port 9861", "ERROR", nodeP+"SCMNodeManager",
				"Invalid data node in the cluster : dn1.example.com. DataNode SoftwareLayoutVersion = 3, SCM SoftwareLayoutVersion = 2"),
			Signal{Kind: InvalidDataNodeLayout, Datanode: Datanode{Host: "dn1.example.com"}, Version: "3", Version2: "2"}},
		{UpgradeFinalizeRequested, "A", "1.2.0-master", "ozone-1.2.0 hadoop-hdds/common/.../upgrade/BasicUpgradeFinalizer.java:332,342", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 1 on default port 9860", "INFO", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer", "Finalization started."),
			Signal{Kind: UpgradeFinalizeRequested}},
		{UpgradeFinalizeRequested, "A", "1.3.0-master", "ozone-1.3.0 server-scm/.../upgrade/SCMUpgradeFinalizer.java:61", parsers.KindLog, scmC,
			l1(ts, "IPC Server handler 1 on default port 9860", "INFO", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer",
				"SCM Finalization has crossed checkpoint FINALIZATION_STARTED"),
			Signal{Kind: UpgradeFinalizeRequested, State: "FINALIZATION_STARTED", Attrs: map[string]string{"scope": "SCM"}}},
		{UpgradeFinalized, "A", "1.3.0-master", "ozone-1.3.0 server-scm/.../upgrade/SCMUpgradeFinalizer.java:61", parsers.KindLog, scmC,
			l1(ts, "FinalizationThread", "INFO", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer",
				"SCM Finalization has crossed checkpoint FINALIZATION_COMPLETE"),
			Signal{Kind: UpgradeFinalized, State: "FINALIZATION_COMPLETE", Attrs: map[string]string{"scope": "SCM"}}},
		{UpgradeFinalized, "A", "1.2.0-master", "ozone-1.2.0 BasicUpgradeFinalizer.java:337,342", parsers.KindLog, omC,
			l1(ts, "FinalizationThread", "INFO", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer", "Finalization is done."),
			Signal{Kind: UpgradeFinalized}},
		{UpgradeFinalized, "A", "1.3.0-master", "ozone-1.3.0 hadoop-hdds/common/.../upgrade/AbstractLayoutVersionManager.java:129", parsers.KindLog, omC,
			l1(ts, "FinalizationThread", "INFO", "org.apache.hadoop.ozone.upgrade.AbstractLayoutVersionManager", "Finalization is complete."),
			Signal{Kind: UpgradeFinalized}},

		// ---- containers ----
		{EmptyQuasiClosedDelete, "A", "2.2.0-master", "ozone-2.2.0 server-scm/.../replication/health/EmptyContainerHandler.java:99", parsers.KindLog, scmC,
			l1(ts, "ReplicationMonitor", "INFO", "org.apache.hadoop.hdds.scm.container.replication.health.EmptyContainerHandler",
				"Deleting empty QUASI_CLOSED container #12 (container BCSID=4, max replica BCSID=0) with 2 replicas from originIds: ["+
					hDN+", "+hDN2+"]. If resurrected, container will transition to QUASI_CLOSED"),
			Signal{Kind: EmptyQuasiClosedDelete, Container: 12, BCSID: 4, Count: 2}},
		{ReplicaDeleteSent, "A", "2.1.0-master", "ozone-2.1.0 server-scm/.../container/AbstractContainerReportHandler.java:64-87,411", parsers.KindLog, scmC,
			l1(ts, "FixedThreadPoolWithAffinityExecutor-3-0", "INFO", "org.apache.hadoop.hdds.scm.container.ContainerReportHandler",
				"Sending forceDeleteContainerCommand due to DELETED for Container #1 (DELETED, sid=4) r0 (QUASI_CLOSED, bcsid=4, origin="+
					hDN+", non-empty) from dn "+hDNShort),
			Signal{Kind: ReplicaDeleteSent, Container: 1, Force: true, Reason: "DELETED", State: "QUASI_CLOSED", BCSID: 4, NonEmpty: true, Datanode: hDNWant}},
		{ReplicaDeleteSkipped, "A", "2.1.0-master", "ozone-2.1.0 AbstractContainerReportHandler.java:403", parsers.KindLog, scmC,
			l1(ts, "FixedThreadPoolWithAffinityExecutor-3-0", "WARN", "org.apache.hadoop.hdds.scm.container.ContainerReportHandler",
				"Skip sending DeleteContainerCommand for Container #1 (DELETED, sid=4) r0 (QUASI_CLOSED, bcsid=4, origin="+hDN+
					", non-empty) from dn "+hDNShort+": org.apache.ratis.protocol.exceptions.NotLeaderException: Server "+hSCM+"@group-4F6E8A1C2D3E is not the leader"),
			Signal{Kind: ReplicaDeleteSkipped, Container: 1, State: "QUASI_CLOSED", Datanode: hDNWant}},
		{ReplicaDeleteCommand, "A", "2.0.0-master", "ozone-2.0.0 ReplicationManager.java:664; DeleteContainerCommand.java toString @2.0.0", parsers.KindLog, scmC,
			l1(ts, "ReplicationMonitor", "INFO", rm,
				"Sending command [deleteContainerCommand: cmdID: 41, encodedToken: \"\", term: 3, deadlineMsSinceEpoch: 1740823230000, "+
					"containerID: 12, replicaIndex: 0, force: false] for container ContainerInfo{id=#12, state=DELETING, "+
					"stateEnterTime=2025-03-01T10:00:00.000Z, pipelineID=PipelineID="+hPipe+", owner=omservice} to "+hDNShort+
					" with datanode deadline 1740823230000 and scm deadline 1740823590000"),
			Signal{Kind: ReplicaDeleteCommand, Container: 12, Term: 3, State: "DELETING", Datanode: hDNWant}},
		{ReplicaDeleteCommand, "B", "1.4.0-1.4.1", "ozone-1.4.0 ReplicationManager.java:677; DeleteContainerCommand.java toString @1.4.0", parsers.KindLog, scmC,
			l1(ts, "ReplicationMonitor", "INFO", rm,
				"Sending command [deleteContainerCommand: containerID: 12, replicaIndex: 0, force: true] for container ContainerInfo{id=#12, "+
					"state=DELETING, stateEnterTime=2024-03-01T10:00:00.000Z, pipelineID=PipelineID="+hPipe+", owner=omservice} to "+hDNShort+
					" with datanode deadline 1709287230000 and scm deadline 1709287590000"),
			Signal{Kind: ReplicaDeleteCommand, Container: 12, Force: true, State: "DELETING", Datanode: hDNWant}},
		{ContainerResurrected, "A", "2.2.0-master", "ozone-2.2.0 AbstractContainerReportHandler.java:350", parsers.KindLog, scmC,
			l1(ts, "FixedThreadPoolWithAffinityExecutor-3-0", "INFO", "org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler",
				"Resurrecting container #1 from DELETED to QUASI_CLOSED due to non-empty QUASI_CLOSED replica (keyCount=3, BCSID=6) from "+hDNShort),
			Signal{Kind: ContainerResurrected, Container: 1, State: "QUASI_CLOSED", Count: 3, BCSID: 6, Datanode: hDNWant}},
		{DNContainerMarkedDeleted, "A", "2.1.0-master", "ozone-2.1.0 container-service/.../keyvalue/KeyValueContainer.java:413", parsers.KindLog, dnC,
			l1(ts, "ContainerOp-3b1f8a0e-0", "WARN", "org.apache.hadoop.ozone.container.keyvalue.KeyValueContainer",
				"Marked container DELETED from QUASI_CLOSED: KeyValueContainerData #1 (DELETED, non-empty, ri=0, origin=[dn_"+hDN+", pipeline_"+hPipe+"])"),
			Signal{Kind: DNContainerMarkedDeleted, Container: 1, State: "DELETED", NonEmpty: true, Pipeline: hPipe}},
		{DNContainerForceDeleted, "A", "1.4.0-2.0.0", "ozone-1.4.0 container-service/.../utils/ContainerLogger.java:119,152-163", parsers.KindContainer, dnC,
			"2024-03-01 10:20:07,118 | INFO  | ID=5 | Index=0 | BCSID=7 | State=DELETED | Container force deleted |\n",
			Signal{Kind: DNContainerForceDeleted, Container: 5, BCSID: 7, State: "DELETED", Force: true}},
		{DNContainerForceDeleted, "B", "2.1.0-master", "ozone-2.1.0 ContainerLogger.java:118,180-193", parsers.KindContainer, dnC,
			"2025-09-01 10:20:07,118 | INFO  | ID=5 | Index=0 | BCSID=7 | State=DELETED | Volume=/data/hdds/hdds | DataChecksum=2a21d155 | Container force deleted |\n",
			Signal{Kind: DNContainerForceDeleted, Container: 5, BCSID: 7, State: "DELETED", Force: true}},

		// ---- datanode Ratis ----
		{WriteChunkTimeout, "A", "2.0.0-master", "ozone-2.0.0 container-service/.../ratis/ContainerStateMachine.java:706", parsers.KindLog, dnC,
			l1(ts, hDN+"-server-thread2", "ERROR", "org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine",
				"Write chunk has taken 600012345678ns crossing threshold 600000000000ns for index 1042 groupId "+hGroup+
					", cancelling pending write chunk for this group"),
			Signal{Kind: WriteChunkTimeout, Group: hGroup, Index: 1042, Duration: 600012345678}},
		{StateMachineCloseServer, "A", "master", "master container-service/.../ratis/ContainerStateMachine.java:841", parsers.KindLog, dnC,
			l1(ts, hDN+"-server-thread2", "ERROR", "org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine",
				hDN+": Failed to writeStateMachineData, close server\n"+
					"org.apache.hadoop.hdds.scm.container.common.helpers.StorageContainerException: Write chunk has taken 600012345678ns crossing threshold 600000000000ns"),
			Signal{Kind: StateMachineCloseServer, Peer: hDN}},
		{DivisionShutdown, "A", "1.1.0-master", "ratis-2.2.0 ratis-server/.../impl/RaftServerImpl.java:412", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", div, hDN+"@"+hGroup+": shutdown"),
			Signal{Kind: DivisionShutdown, Peer: hDN, Group: hGroup}},
		{DivisionShutdown, "A", "1.0.0", "ratis-1.0.0 RaftServerImpl.java:263 (logger RaftServerImpl)", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", rsi, hDN+"@"+hGroup+": shutdown"),
			Signal{Kind: DivisionShutdown, Peer: hDN, Group: hGroup}},
		{RaftGroupRemove, "A", "2.1.0-master", "ratis-3.2.1 RaftServerProxy.java:117; RaftServerImpl.java:718 (RATIS-2287); ServerState.java:370; RaftConfigurationImpl.java:301", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", "org.apache.ratis.server.RaftServer",
				hDN+": remove    LEADER (RUNNING): "+hDN+"@"+hGroup+":t3, leader="+hDN+", voted="+hDN+", raftlog="+hDN+"@"+hGroup+
					"-SegmentedRaftLog:OPENED:c12:last(t:3, i:12), conf=conf: {index: 12, cur=peers:["+hDN+"|10.0.0.11:9858]|listeners:[], old=null}"),
			Signal{Kind: RaftGroupRemove, Peer: hDN, Group: hGroup, State: "RUNNING", Attrs: map[string]string{"role": "LEADER"}}},
		{RaftGroupRemove, "B", "1.1.0-2.0.0", "ratis-2.2.0 RaftServerProxy.java:106; RaftServerImpl.java:590", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", "org.apache.ratis.server.RaftServer",
				hDN+": remove  FOLLOWER "+state22+" CLOSING"),
			Signal{Kind: RaftGroupRemove, Peer: hDN, Group: hGroup, State: "CLOSING", Attrs: map[string]string{"role": "FOLLOWER"}}},
		{RaftGroupRemove, "B", "1.0.0", "ratis-1.0.0 RaftServerProxy.java:100,153; RaftServerImpl.java:456 (logger RaftServerProxy)", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", "org.apache.ratis.server.impl.RaftServerProxy",
				hDN+": remove    LEADER "+hDN+"@"+hGroup+":t1, leader="+hDN+", voted="+hDN+", raftlog="+hDN+"@"+hGroup+
					"-SegmentedRaftLog:OPENED:c5, conf=5: ["+hDN+":10.0.0.11:9858], old=null RUNNING"),
			Signal{Kind: RaftGroupRemove, Peer: hDN, Group: hGroup, State: "RUNNING", Attrs: map[string]string{"role": "LEADER"}}},
		{RaftStorageRemoved, "A", "1.0.0-master", "ratis-2.4.0 RaftServerImpl.java:428", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", div, hDN+"@"+hGroup+": Succeed to remove RaftStorageDirectory /data/ratis/"+strings.TrimPrefix(hGroup, "group-")),
			Signal{Kind: RaftStorageRemoved, Peer: hDN, Group: hGroup}},
		{RaftStorageRemoved, "B", "1.1.0-master", "ratis-2.0.0 RaftServerImpl.java:395", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", div, hDN+"@"+hGroup+": Group "+hGroup+":["+hDN+"|rpc:10.0.0.11:9858|priority:0] is renamed successfully"),
			Signal{Kind: RaftStorageRemoved, Peer: hDN, Group: hGroup}},
		{ClosePipelineDone, "A", "1.1.0-2.0.0", "ozone-1.1.0 container-service/.../commandhandler/ClosePipelineCommandHandler.java:75", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", cph, "Close Pipeline PipelineID="+hPipe+" command on datanode "+hDN+"."),
			Signal{Kind: ClosePipelineDone, Pipeline: hPipe, Datanode: Datanode{UUID: hDN}}},
		{ClosePipelineDone, "A", "2.1.0-master", "ozone-2.1.0 ClosePipelineCommandHandler.java:166", parsers.KindLog, dnC,
			l1(ts, "ClosePipelineCommandHandlerThread-0", "INFO", cph, "Close Pipeline Pipeline-"+hPipe+" command on datanode "+hDN+"."),
			Signal{Kind: ClosePipelineDone, Pipeline: hPipe, Datanode: Datanode{UUID: hDN}}},
		{ClosePipelineDone, "B", "1.0.0", "ozone-1.0.0 ClosePipelineCommandHandler.java:78 (HddsProtos.PipelineID text form)", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", cph, "Close Pipeline #id: \""+hPipe+"\"\nuuid128 {\n  mostSigBits: -8494138826541899406\n"+
				"  leastSigBits: -8965316006431225616\n}\n command on datanode #"+hDN+"."),
			Signal{Kind: ClosePipelineDone, Pipeline: hPipe, Datanode: Datanode{UUID: hDN}}},
		{CloseContainerFailed, "A", "1.0.0-master", "ozone-1.0.0 CloseContainerCommandHandler.java:129; ratis-1.0.0 RaftServerImpl.java:518-519", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "ERROR", cch, "Can't close container #12\n"+
				"org.apache.ratis.protocol.exceptions.ServerNotReadyException: "+hDN+"@"+hGroup+" is not in [RUNNING]: current state is CLOSING\n"+
				"\tat org.apache.ratis.server.impl.RaftServerImpl.lambda$checkLifeCycleState$4(RaftServerImpl.java:519)"),
			Signal{Kind: CloseContainerFailed, Container: 12, Reason: "ServerNotReadyException", Peer: hDN, Group: hGroup, State: "CLOSING"}},
		{ContainerQuasiClosed, "A", "1.3.0-master", "ozone-1.3.0 CloseContainerCommandHandler.java:112", parsers.KindLog, dnC,
			l1(ts, "Command processor thread", "INFO", cch, "Marking Container 12 quasi closed"),
			Signal{Kind: ContainerQuasiClosed, Container: 12}},
		{ContainerQuasiClosed, "A", "2.0.0-master", "ozone-2.0.0 ContainerStateMachine.java:1293; ContainerLogger.java:72-75", parsers.KindContainer, dnC,
			"2025-03-01 10:20:07,118 | WARN  | ID=12 | Index=0 | BCSID=9 | State=QUASI_CLOSED | Ratis group removed. Group id: " + hGroup + " |\n",
			Signal{Kind: ContainerQuasiClosed, Container: 12, Group: hGroup}},
		{ContainerQuasiClosed, "B", "1.4.0-1.4.1", "ozone-1.4.0 ContainerStateMachine.java:1121; ContainerLogger.java:72-75", parsers.KindContainer, dnC,
			"2024-03-01 10:20:07,118 | WARN  | ID=12 | Index=0 | BCSID=9 | State=QUASI_CLOSED | Ratis group removed |\n",
			Signal{Kind: ContainerQuasiClosed, Container: 12}},
		{SCMCloseContainerCommand, "A", "2.0.0-master", "ozone-2.0.0 ReplicationManager.java:664; CloseContainerCommand.java toString @2.0.0", parsers.KindLog, scmC,
			l1(ts, "ReplicationMonitor", "INFO", rm,
				"Sending command [closeContainerCommand: cmdID: 4411, encodedToken: \"\", term: 0, deadlineMsSinceEpoch: 1740823230000, "+
					"containerID: 12, pipelineID: PipelineID="+hPipe+", force: true] for container ContainerInfo{id=#12, state=QUASI_CLOSED, "+
					"stateEnterTime=2025-03-01T10:00:00.000Z, pipelineID=PipelineID="+hPipe+", owner=omservice} to "+hDNShort+
					" with datanode deadline 1740823230000 and scm deadline 1740823590000"),
			Signal{Kind: SCMCloseContainerCommand, Container: 12, Pipeline: hPipe, State: "QUASI_CLOSED", Force: true, Datanode: hDNWant}},
		{SCMCloseContainerCommand, "B", "1.4.0-1.4.1", "ozone-1.4.0 ReplicationManager.java:677; CloseContainerCommand.java toString @1.4.0", parsers.KindLog, scmC,
			l1(ts, "ReplicationMonitor", "INFO", rm,
				"Sending command [closeContainerCommand: containerID: 12, pipelineID: PipelineID="+hPipe+", force: false] for container "+
					"ContainerInfo{id=#12, state=QUASI_CLOSED, stateEnterTime=2024-03-01T10:00:00.000Z, pipelineID=PipelineID="+hPipe+
					", owner=omservice} to "+hDNShort+" with datanode deadline 1709287230000 and scm deadline 1709287590000"),
			Signal{Kind: SCMCloseContainerCommand, Container: 12, Pipeline: hPipe, State: "QUASI_CLOSED", Datanode: hDNWant}},

		// ---- OM ring ----
		{OMBootstrapFailed, "A", "1.3.0-master", "ozone-1.3.0 OzoneManager.java:1712", parsers.KindLog, omC,
			l1(ts, "main", "ERROR", om, "Failed to Bootstrap OM."),
			Signal{Kind: OMBootstrapFailed}},
		{OMBootstrapError, "A", "1.2.0-master", "ozone-1.2.0 OMInterServiceProtocolClientSideImpl.java:113-114 via GenericCli (.out, untimed)", parsers.KindOut, omC,
			"Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: Failed to add OM omNode-4 to Ratis ring.\n",
			Signal{Kind: OMBootstrapError, OMNode: "omNode-4", Attrs: map[string]string{"code": "RATIS_BOOTSTRAP_ERROR"}}},
		{OMBootstrapped, "A", "1.2.0-master", "ozone-1.2.0 OzoneManager.java:1429-1430; ratis-2.2.0 RaftGroup/RaftPeer toString", parsers.KindLog, omC,
			l1(ts, "main", "INFO", om, "Successfully bootstrapped OM omNode-4 and joined the Ratis group "+hOMGroup+":"+peers22),
			Signal{Kind: OMBootstrapped, OMNode: "omNode-4", Group: hOMGroup, Peers: []string{"omNode-1", "omNode-4"}}},
		{OMRatisStarting, "A", "1.0.0-master", "ozone-1.0.0 OzoneManagerRatisServer.java:365-366", parsers.KindLog, omC,
			l1(ts, "main", "INFO", omrs, "Starting OzoneManagerRatisServer omNode-1 at port 9872"),
			Signal{Kind: OMRatisStarting, OMNode: "omNode-1", Attrs: map[string]string{"port": "9872"}}},
		{OMStopping, "A", "1.3.0-master", "ozone-1.3.0 OzoneManager.java:2033", parsers.KindLog, omC,
			l1(ts, "shutdown-hook-0", "INFO", om, "omNode-4[om4.example.com:9862]: Stopping Ozone Manager"),
			Signal{Kind: OMStopping, OMNode: "omNode-4"}},
		{OMStopping, "B", "1.2.0-1.2.1", "ozone-1.2.0 OzoneManager.java:1644", parsers.KindLog, omC,
			l1(ts, "shutdown-hook-0", "INFO", om, "Stopping Ozone Manager"),
			Signal{Kind: OMStopping}},
		{OMRemoteHasBootstrapNode, "A", "1.4.0-master", "ozone-1.4.0 OzoneManager.java:1851-1852", parsers.KindLog, omC,
			l1(ts, "main", "WARN", om, "Remote OM omNode-1 already contains bootstrapping OM(omNode-4) as part of its Raft group peers."),
			Signal{Kind: OMRemoteHasBootstrapNode, OMNode: "omNode-4", Attrs: map[string]string{"remote": "omNode-1"}}},
		{OMPeerChangeSubmitted, "B", "1.2.0-1.3.0", "ozone-1.2.0 OzoneManagerRatisServer.java:305-307; ratis-2.2.0 RaftPeer.java:216-225", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "INFO", omrs,
				"omNode-1: Submitting SetConfiguration request to Ratis server to add new OM peer omNode-4|rpc:om4.example.com:9872|priority:0 "+
					"to the Ratis group "+hOMGroup+":[omNode-1|rpc:om1.example.com:9872|priority:0]"),
			Signal{Kind: OMPeerChangeSubmitted, OMNode: "omNode-4", Group: hOMGroup, Peers: []string{"omNode-1"},
				Attrs: map[string]string{"op": "add", "leader": "omNode-1", "omhost": "om4.example.com"}}},
		{OMPeerChangeSubmitted, "A", "1.4.0-master", "ozone-1.4.0 OzoneManagerRatisServer.java:340-342; ratis-3.0.1 RaftPeer.java:238-241", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "INFO", omrs,
				"omNode-1: Submitting SetConfiguration request to Ratis server to add new OM peer omNode-4|om4.example.com:9872 "+
					"to the Ratis group "+hOMGroup+":[omNode-1|om1.example.com:9872]"),
			Signal{Kind: OMPeerChangeSubmitted, OMNode: "omNode-4", Group: hOMGroup, Attrs: map[string]string{"op": "add", "omhost": "om4.example.com"}}},
		{OMPeerChangeSubmitted, "B", "1.3.0", "ozone-1.3.0 OzoneManagerRatisServer.java:342-344 (remove); ratis-2.4.0 RaftPeer.java:238-248", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "INFO", omrs,
				"omNode-1: Submitting SetConfiguration request to Ratis server to remove OM peer omNode-4 from Ratis group "+hOMGroup+
					":[omNode-1|rpc:om1.example.com:9872|priority:0|startupRole:FOLLOWER, omNode-4|rpc:om4.example.com:9872|priority:0|startupRole:FOLLOWER]"),
			Signal{Kind: OMPeerChangeSubmitted, OMNode: "omNode-4", Group: hOMGroup, Peers: []string{"omNode-1", "omNode-4"}, Attrs: map[string]string{"op": "remove"}}},
		{OMPeerChangeSubmitted, "A", "1.4.0-master", "ozone-1.4.0 OzoneManagerRatisServer.java:372-374 (remove); ratis-3.0.1 RaftPeer.java:238-241", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "INFO", omrs,
				"omNode-1: Submitting SetConfiguration request to Ratis server to remove OM peer omNode-4 from Ratis group "+hOMGroup+":"+peers31),
			Signal{Kind: OMPeerChangeSubmitted, OMNode: "omNode-4", Group: hOMGroup, Peers: []string{"omNode-1", "omNode-4"}, Attrs: map[string]string{"op": "remove"}}},
		{OMPeerChangeFailed, "A", "2.1.0-master", "ozone-2.1.0 OzoneManagerRatisServer.java:421-423", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "ERROR", omrs,
				"Failed to add OM omNode-4 in Ratis group "+hOMGroup+". Ratis SetConfiguration reply: RaftClientReply:client-1A2B3C4D5E6F->omNode-1@"+
					hOMGroup+", cid=12, FAILED org.apache.ratis.protocol.exceptions.NotLeaderException: Server omNode-1@"+hOMGroup+" is not the leader, logIndex=0, commits[omNode-1:c40]"),
			Signal{Kind: OMPeerChangeFailed, OMNode: "omNode-4", Group: hOMGroup, Reason: "NotLeaderException", Attrs: map[string]string{"op": "add"}}},
		{OMPeerChangeFailed, "B", "1.2.0-2.0.0", "ozone-1.2.0 OzoneManagerRatisServer.java:322-324", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "ERROR", omrs,
				"Failed to add OM omNode-4 to Ratis group "+hOMGroup+". Ratis SetConfiguration reply: RaftClientReply:client-1A2B3C4D5E6F->omNode-1@"+
					hOMGroup+", cid=12, FAILED org.apache.ratis.protocol.exceptions.NotLeaderException: Server omNode-1@"+hOMGroup+" is not the leader"),
			Signal{Kind: OMPeerChangeFailed, OMNode: "omNode-4", Group: hOMGroup, Reason: "NotLeaderException", Attrs: map[string]string{"op": "add"}}},
		{OMPeerChangeFailed, "B", "1.3.0-2.0.0", "ozone-1.3.0 OzoneManagerRatisServer.java:359-361 (remove)", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "ERROR", omrs,
				"Failed to remove OM omNode-4 from Ratis group "+hOMGroup+". Ratis SetConfiguration reply: RaftClientReply:client-1A2B3C4D5E6F->omNode-1@"+
					hOMGroup+", cid=13, FAILED org.apache.ratis.protocol.exceptions.NotLeaderException: Server omNode-1@"+hOMGroup+" is not the leader"),
			Signal{Kind: OMPeerChangeFailed, OMNode: "omNode-4", Group: hOMGroup, Reason: "NotLeaderException", Attrs: map[string]string{"op": "remove"}}},
		{OMPeerChanged, "A", "2.1.0-master", "ozone-2.1.0 OzoneManagerRatisServer.java:419", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "INFO", omrs, "remove OM omNode-4 in Ratis group "+hOMGroup+"."),
			Signal{Kind: OMPeerChanged, OMNode: "omNode-4", Group: hOMGroup, Attrs: map[string]string{"op": "remove"}}},
		{OMPeerChanged, "B", "1.2.0-2.0.0", "ozone-1.2.0 OzoneManagerRatisServer.java:320", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "INFO", omrs, "Added OM omNode-4 to Ratis group "+hOMGroup+"."),
			Signal{Kind: OMPeerChanged, OMNode: "omNode-4", Group: hOMGroup, Attrs: map[string]string{"op": "add"}}},
		{OMPeerChanged, "B", "1.3.0-2.0.0", "ozone-1.3.0 OzoneManagerRatisServer.java:356-357 (remove)", parsers.KindLog, omC,
			l1(ts, "IPC Server handler 0 on default port 9862", "INFO", omrs, "Removed OM omNode-4 from Ratis group "+hOMGroup+"."),
			Signal{Kind: OMPeerChanged, OMNode: "omNode-4", Group: hOMGroup, Attrs: map[string]string{"op": "remove"}}},
		{OMSetConfReceived, "A", "1.3.0-master", "ratis-2.4.0 RaftServerImpl.java:1112; SetConfigurationRequest.java:90-93,187-188", parsers.KindLog, omC,
			l1(ts, "grpc-default-executor-1", "INFO", div,
				"omNode-1@"+hOMGroup+": receive setConfiguration SetConfigurationRequest:client-1A2B3C4D5E6F->omNode-1@"+hOMGroup+
					", cid=12, seq=null, RW, null, SET_UNCONDITIONALLY, servers:"+peers31+", listeners:[]"),
			Signal{Kind: OMSetConfReceived, Peer: "omNode-1", Group: hOMGroup, Peers: []string{"omNode-1", "omNode-4"}}},
		{OMSetConfReceived, "B", "1.0.0-1.2.1", "ratis-2.2.0 RaftServerImpl.java:974; SetConfigurationRequest.java:40-41", parsers.KindLog, omC,
			l1(ts, "grpc-default-executor-1", "INFO", div,
				"omNode-1@"+hOMGroup+": receive setConfiguration client-1A2B3C4D5E6F->omNode-1@"+hOMGroup+", cid=12, seq=0, RW, null, peers:"+peers22),
			Signal{Kind: OMSetConfReceived, Peer: "omNode-1", Group: hOMGroup, Peers: []string{"omNode-1", "omNode-4"}}},
		{OMConfChanged, "A", "2.1.0-master", "ozone-2.1.0 OzoneManagerStateMachine.java:252-265", parsers.KindLog, omC,
			l1(ts, "omNode-1@"+hOMGroup+"-StateMachineUpdater", "INFO", "org.apache.hadoop.ozone.om.ratis.OzoneManagerStateMachine",
				"notifyConfigurationChanged from Ratis: term=3, index=41, New Peer list: omNode-1(om1.example.com:9872), omNode-4(om4.example.com:9872), New Listener list"),
			Signal{Kind: OMConfChanged, Term: 3, Index: 41, Peers: []string{"omNode-1", "omNode-4"}}},
		{OMConfChanged, "B", "2.0.0", "ozone-2.0.0 OzoneManagerStateMachine.java:219-226", parsers.KindLog, omC,
			l1(ts, "omNode-1@"+hOMGroup+"-StateMachineUpdater", "INFO", "org.apache.hadoop.ozone.om.ratis.OzoneManagerStateMachine",
				"notifyConfigurationChanged from Ratis: term=3, index=41, New Peer list: omNode-1(om1.example.com:9872), omNode-4(om4.example.com:9872)"),
			Signal{Kind: OMConfChanged, Term: 3, Index: 41, Peers: []string{"omNode-1", "omNode-4"},
				Attrs: map[string]string{"peerlist": "omNode-1(om1.example.com:9872), omNode-4(om4.example.com:9872)"}}},
		{OMRaftConfSet, "A", "1.4.1-master", "ratis-3.1.1 ServerState.java:386; RaftConfigurationImpl.java:301-302", parsers.KindLog, omC,
			l1(ts, "grpc-default-executor-1", "INFO", div,
				"omNode-1@"+hOMGroup+": set configuration conf: {index: 41, cur=peers:"+peers31+"|listeners:[], old=peers:[omNode-1|om1.example.com:9872]|listeners:[]}"),
			Signal{Kind: OMRaftConfSet, Peer: "omNode-1", Group: hOMGroup, Index: 41, Peers: []string{"omNode-1", "omNode-4"}, OldPeers: []string{"omNode-1"}}},
		{OMRaftConfSet, "B", "1.3.0-1.4.0", "ratis-2.4.0 ServerState.java:430; RaftConfigurationImpl.java:241-242; PeerConfiguration.java:99-100", parsers.KindLog, omC,
			l1(ts, "grpc-default-executor-1", "INFO", div,
				"omNode-1@"+hOMGroup+": set configuration 41: peers:[omNode-1|rpc:om1.example.com:9872|priority:0|startupRole:FOLLOWER, "+
					"omNode-4|rpc:om4.example.com:9872|priority:0|startupRole:FOLLOWER]|listeners:[], old=null"),
			Signal{Kind: OMRaftConfSet, Peer: "omNode-1", Group: hOMGroup, Index: 41, Peers: []string{"omNode-1", "omNode-4"}}},
		{OMRaftConfSet, "C", "1.1.0-1.2.1", "ratis-2.2.0 ServerState.java:387; RaftConfigurationImpl.java toString", parsers.KindLog, omC,
			l1(ts, "grpc-default-executor-1", "INFO", div, "omNode-1@"+hOMGroup+": set configuration 41: "+peers22+", old=null"),
			Signal{Kind: OMRaftConfSet, Peer: "omNode-1", Group: hOMGroup, Index: 41, Peers: []string{"omNode-1", "omNode-4"}}},
		{OMRaftConfSet, "D", "1.0.0", "ratis-1.0.0 ServerState.java:356; RaftConfiguration.java:210-211; RaftPeer.java:89-90", parsers.KindLog, omC,
			l1(ts, "grpc-default-executor-1", "INFO", rsi,
				"omNode-1@"+hOMGroup+": set configuration 41: [omNode-1:om1.example.com:9872, omNode-4:om4.example.com:9872], old=null at 41"),
			Signal{Kind: OMRaftConfSet, Peer: "omNode-1", Group: hOMGroup, Index: 41, Peers: []string{"omNode-1", "omNode-4"}}},
		{OMRoleChanged, "A", "1.1.0-master", "ratis-2.2.0 RaftServerImpl.java:289-291, reason from :1062", parsers.KindLog, omC,
			l1(ts, "omNode-1@"+hOMGroup+"-LeaderStateImpl", "INFO", div,
				"omNode-1@"+hOMGroup+": changes role from    LEADER to FOLLOWER at term 4 for candidate:omNode-2"),
			Signal{Kind: OMRoleChanged, Peer: "omNode-1", Group: hOMGroup, State: "LEADER", Term: 4, Reason: "candidate:omNode-2", Attrs: map[string]string{"to": "FOLLOWER"}}},
		{OMRoleChanged, "A", "1.0.0", "ratis-1.0.0 RaftServerImpl.java:185 (logger RaftServerImpl)", parsers.KindLog, omC,
			l1(ts, "omNode-1@"+hOMGroup+"-LeaderElection1", "INFO", rsi,
				"omNode-1@"+hOMGroup+": changes role from CANDIDATE to LEADER at term 2 for changeToLeader"),
			Signal{Kind: OMRoleChanged, Peer: "omNode-1", Group: hOMGroup, State: "CANDIDATE", Term: 2, Attrs: map[string]string{"to": "LEADER"}}},
	}
}

// TestHistoricWordings renders each historic form of each entry in the
// layout its release wrote, reads it through the real scanner and the
// default catalogue, and checks the signal's kind and key fields.
func TestHistoricWordings(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range historicCases() {
		name := string(tc.kind) + "/" + tc.form + "/" + tc.releases
		t.Run(name, func(t *testing.T) {
			if tc.source == "" || tc.want.Kind != tc.kind {
				t.Fatalf("case is incomplete: %+v", tc)
			}
			var got []Signal
			for _, r := range caseRecords(t, c, tc) {
				got = append(got, c.Match(&r)...)
			}
			var s *Signal
			for i := range got {
				if got[i].Kind == tc.kind {
					s = &got[i]
				}
			}
			if s == nil {
				t.Fatalf("no %s signal from %q (got %+v)", tc.kind, tc.log, got)
			}
			checkFields(t, *s, tc.want)
		})
	}
}

// caseRecords returns the records of one historic rendering, parsed as the
// scanner hands them on.
func caseRecords(tb testing.TB, c *Catalogue, tc historicCase) []parsers.Record {
	sc := log4j.NewScanner(strings.NewReader(tc.log), log4j.Options{Candidate: c.Filter().Candidate, Kind: tc.file})
	var recs []parsers.Record
	for sc.Next() {
		r := *sc.Record()
		r.Host, r.Component = "host.example.com", tc.comp
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return recs
}

// checkFields compares the fields set in want with got.
func checkFields(t *testing.T, got, want Signal) {
	t.Helper()
	cmp := func(name string, g, w any) {
		if !reflect.ValueOf(w).IsZero() && !reflect.DeepEqual(g, w) {
			t.Errorf("%s = %v, want %v", name, g, w)
		}
	}
	cmp("Datanode.UUID", got.Datanode.UUID, want.Datanode.UUID)
	cmp("Datanode.Host", got.Datanode.Host, want.Datanode.Host)
	cmp("Datanode.IP", got.Datanode.IP, want.Datanode.IP)
	cmp("Container", got.Container, want.Container)
	cmp("Pipeline", got.Pipeline, want.Pipeline)
	cmp("Pipelines", got.Pipelines, want.Pipelines)
	cmp("Group", got.Group, want.Group)
	cmp("Peer", got.Peer, want.Peer)
	cmp("OMNode", got.OMNode, want.OMNode)
	cmp("Peers", got.Peers, want.Peers)
	cmp("OldPeers", got.OldPeers, want.OldPeers)
	cmp("Duration", got.Duration, want.Duration)
	cmp("Count", got.Count, want.Count)
	cmp("Index", got.Index, want.Index)
	cmp("Term", got.Term, want.Term)
	cmp("BCSID", got.BCSID, want.BCSID)
	cmp("State", got.State, want.State)
	cmp("Reason", got.Reason, want.Reason)
	cmp("Version", got.Version, want.Version)
	cmp("Version2", got.Version2, want.Version2)
	cmp("NonEmpty", got.NonEmpty, want.NonEmpty)
	cmp("Force", got.Force, want.Force)
	for k, v := range want.Attrs {
		if got.Attrs[k] != v {
			t.Errorf("Attrs[%q] = %q, want %q", k, got.Attrs[k], v)
		}
	}
}

// ratis-1.0.0 printed a RaftPeer as "id:address" (RaftPeer.java:89-90).
func TestRatis1PeerRendering(t *testing.T) {
	in := "[omNode-1:om1.example.com:9872, omNode-4:10.0.0.14:9872]"
	if got := ParsePeers(in); !reflect.DeepEqual(got, []string{"omNode-1", "omNode-4"}) {
		t.Errorf("ParsePeers: %v", got)
	}
	got := ParsePeerAddresses(in)
	want := []PeerAddress{{ID: "omNode-1", Addr: "om1.example.com:9872"}, {ID: "omNode-4", Addr: "10.0.0.14:9872"}}
	if !reflect.DeepEqual(got, want) || got[0].Host() != "om1.example.com" {
		t.Errorf("ParsePeerAddresses: %+v", got)
	}
}

// A scanner's Filter matches each record it passed with the key filter of
// the record's logger: it finds the signals the whole catalogue finds, in
// every historic wording, and none where the catalogue finds none. Near
// misses: each record again as logged by another entry's logger and by a
// logger no entry names, whose filters lack some of the record's keys.
func TestFilterMatchesAsTheCatalogue(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	entries := c.Entries()
	byLogger, signals, quiet := 0, 0, 0
	match := func(f *Filter, r *parsers.Record, name string) {
		t.Helper()
		got, want := f.AppendMatches(nil, r), c.AppendMatches(nil, r)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s, logger %q: %q: the filter found %+v, the catalogue %+v", name, r.Logger, r.Message, got, want)
		}
		if k := &f.known[loggerSlot(r.Logger)]; r.Logger != "" && string(k.logger) == r.Logger {
			byLogger++
			if len(want) == 0 {
				quiet++
			}
		}
		signals += len(want)
	}
	for i, tc := range historicCases() {
		name := string(tc.kind) + "/" + tc.form
		f := c.Filter()
		sc := log4j.NewScanner(strings.NewReader(tc.log), log4j.Options{Candidate: f.Candidate, Kind: tc.file})
		for sc.Next() {
			r := *sc.Record()
			match(f, &r, name)
			first, _, _ := strings.Cut(r.Message, "\n")
			others := append([]string{"org.example.Unrelated"}, entries[i%len(entries)].Loggers...)
			for _, lg := range others {
				r.Logger = lg
				f.Candidate([]byte(lg), []byte(first)) // the scanner shows the filter each record's logger
				match(f, &r, name)
			}
		}
	}
	t.Logf("%d records matched with their logger's filter (%d of them quiet), %d signals", byLogger, quiet, signals)
	if byLogger < 100 || signals < 50 || quiet < 20 {
		t.Fatalf("%d records matched with their logger's filter, %d of them quiet, %d signals: want most cases' records, signals and near misses", byLogger, quiet, signals)
	}
}
