package catalogue

import (
	"regexp"
	"strconv"
	"time"
)

// SCM node-health signals: pauses of a service's JVM or host, the SCM's
// datanode health transitions and what the event handlers do about them
// (shared/ozone signatures-scm.md §1.3, §6). Registration ("Registered
// datanode", B27) is DatanodeRegistered in scm_upgrade.go.
const (
	// HeartbeatCheckSkipped: T01, NodeStateManager skipped one health check
	// because its thread ran at least min(stale, dead interval) late. No fields.
	HeartbeatCheckSkipped Kind = "scm_hb_check_skipped"
	// HeartbeatCheckSlow: T02, one health check took longer than the check
	// interval. Duration = the time it took (logged in whole seconds).
	HeartbeatCheckSlow Kind = "scm_hb_check_slow"
	// JVMPause: T03, a pause monitor saw the JVM or its host stop. Duration =
	// the pause; Attrs["monitor"] = the monitor's name as logged (Ratis:
	// "JvmPauseMonitor-<peer id>"), Attrs["gc"] = GC time within the pause as
	// printed by Ratis 2.5+ ("" when it saw no GC, and always for Ratis 2.0-2.4
	// and Hadoop's monitor, which list GC pools on further lines instead).
	JVMPause Kind = "jvm_pause"
	// RaftPauseStepDown: T04, Ratis stepped down a leader after a pause.
	// Peer = Ratis peer ID, Duration = the pause.
	RaftPauseStepDown Kind = "raft_pause_step_down"
	// RaftPauseClose: T06, Ratis closed its server after a pause longer than
	// the close threshold. Peer, Duration; Attrs["threshold"] as printed.
	RaftPauseClose Kind = "raft_pause_close"
	// NodeStale: T10, a datanode moved to STALE. Datanode; Pipelines = the
	// pipelines StaleNodeHandler finalizes.
	NodeStale Kind = "scm_node_stale"
	// NodeDead: T15, a datanode moved to DEAD. Datanode.
	NodeDead Kind = "scm_node_dead"
	// DeadNodeQueueCleared: T16 from DeadNodeHandler. Datanode, Count = the
	// commands dropped.
	DeadNodeQueueCleared Kind = "scm_dead_node_queue_cleared"
	// DeadNodeCommandsCleaned: T17, the block-deletion command records of a
	// dead datanode were dropped. Datanode.UUID.
	DeadNodeCommandsCleaned Kind = "scm_dead_node_commands_cleaned"
	// NodeHealthyReadonly: T18, a datanode moved to HEALTHY_READONLY (back from
	// STALE or DEAD, or forced during upgrade finalization). Datanode.
	NodeHealthyReadonly Kind = "scm_node_healthy_readonly"
	// NodeHealthy: T20 (HEALTHY_READONLY→HEALTHY) or T18z (ZDU branch,
	// STALE/DEAD→HEALTHY). Datanode.
	NodeHealthy Kind = "scm_node_healthy"
	// PipelineClosed: T13 (B11), a pipeline moved to CLOSED. Pipeline.
	PipelineClosed Kind = "scm_pipeline_closed"
	// PipelineFinalizeFailed: T11, StaleNodeHandler could not close a
	// pipeline of a STALE datanode (a follower SCM, whose Ratis write
	// fails). Pipeline, Datanode.
	PipelineFinalizeFailed Kind = "scm_pipeline_finalize_failed"
	// PipelineRemoved: B14, a pipeline was removed from SCM. Pipeline.
	PipelineRemoved Kind = "scm_pipeline_removed"
	// HeartbeatFromUnregistered: B28, SCM asked a datanode it does not know
	// (typically after an SCM restart) to register again. Datanode.
	HeartbeatFromUnregistered Kind = "scm_hb_unregistered"
	// IntervalReset: ServerUtils reset an interval that violated its sanity
	// rule. Attrs["key"], Attrs["basekey"], Attrs["value"] (configured, ms);
	// Reason = "smaller" or "larger"; Duration = the value in effect.
	IntervalReset Kind = "scm_interval_reset"
)

const scmSrc = "hadoop-hdds/server-scm/src/main/java/org/apache/hadoop/hdds/scm/"

// dnPat matches DatanodeDetails in either rendering (the short form of
// ozone-1.4.0+ or the long form of ≤1.3.0 and toDebugString) when followed
// by fixed text.
const dnPat = `(?P<dn>[0-9a-fA-F-]{36}(?:\([^()]*\)|\{.*?\})?)`

func scmNodeEntries() []Entry {
	return []Entry{
		{
			// Same text in every release (NodeStateManager.java:522-523 @1.0.0).
			Kind:     HeartbeatCheckSkipped,
			Source:   scmSrc + "node/NodeStateManager.java:730 (T01)",
			Loggers:  []string{"NodeStateManager"},
			Literals: []string{"Skipping heartbeat checks for one iteration"},
			Pattern:  regexp.MustCompile(`Detected long delay in scheduling HB processing thread\. Skipping heartbeat checks for one iteration\.`),
		},
		{
			// Same text in every release (NodeStateManager.java:641-644 @1.0.0).
			// The second value is the check interval in ms despite "seconds".
			Kind:     HeartbeatCheckSlow,
			Source:   scmSrc + "node/NodeStateManager.java:891 (T02)",
			Loggers:  []string{"NodeStateManager"},
			Literals: []string{"Total time spend processing datanode HB's"},
			Pattern: regexp.MustCompile(`Time Spend on HB processing: (?P<seconds>\d+) seconds ` +
				`Datanode heartbeat Interval: (?P<interval_ms>\d+) seconds\.`),
			Post: func(s *Signal, m Groups) bool {
				n, err := strconv.ParseInt(m.Get("seconds"), 10, 64)
				s.Duration = time.Duration(n) * time.Second
				return err == nil
			},
		},
		{
			// T03. Three monitors printed a pause (WARN):
			//   A Ratis 2.5+ (ozone-1.4.0..master: ratis-3.0.1..3.2.1)
			//     ratis-common/.../util/JvmPauseMonitor.java:89-90, logged :168:
			//     "JvmPauseMonitor-<id>: Detected pause in JVM or host machine
			//     approximately 52.114s without any GCs." or "... with 0.12s GC time."
			//     (TimeDuration.toString(SECONDS, 3)), then one "GC pool" line per collector.
			//   B Ratis 2.0-2.4 (ozone-1.1.0..1.3.0: ratis-2.0.0, 2.2.0, 2.4.0)
			//     JvmPauseMonitor.java:66-68 (ratis-2.0.0), logged :124: "JvmPauseMonitor-<id>:
			//     Detected pause in JVM or host machine (eg GC): pause of approximately
			//     52114523456ns." + " No GCs detected." or "GC pool" lines; the pause is
			//     Timestamp.elapsedTime() minus 500ms, a TimeDuration in NANOSECONDS.
			//     Ratis 1.0.0 (ozone-1.0.0) has no JvmPauseMonitor.
			//   C Hadoop util/JvmPauseMonitor (§1.4): "Detected pause in JVM or host
			//     machine (eg GC): pause of approximately 1234ms" + "\nNo GCs detected"
			//     or "GC pool" lines, no monitor prefix; started by SCM, OM and
			//     datanodes up to ozone-1.3.0 (StorageContainerManager.java:814 @1.0.0,
			//     :1471 @1.3.0); ozone-1.4.0 switched to the Ratis monitor
			//     (RatisHelper.newJvmPauseMonitor, StorageContainerManager.java:385 @1.4.0).
			// Attrs["gc"] is set by form A only.
			Kind:     JVMPause,
			Source:   "ratis-common/src/main/java/org/apache/ratis/util/JvmPauseMonitor.java:168 (T03); hadoop util/JvmPauseMonitor (§1.4)",
			Loggers:  []string{"JvmPauseMonitor"},
			Literals: []string{"Detected pause in JVM or host machine"},
			Pattern: regexp.MustCompile(`^(?:(?P<monitor>\S+): )?Detected pause in JVM or host machine ` +
				`(?:approximately (?P<ratisdur>\d+(?:\.\d+)?[a-zμ]+)(?: without any GCs\.| with (?P<gc>\d+(?:\.\d+)?[a-zμ]+) GC time\.)` +
				`|\(eg GC\): pause of approximately (?:(?P<ms>\d+)ms\b|(?P<ratisdur>\d+(?:\.\d+)?(?:ns|μs|us|s|min|hr|day))\.))`),
		},
		{
			// ratis-3.0.1+ (ozone-1.4.0..master); Ratis 2.x stepped down on a
			// pause without a line of its own (RaftServerProxy.java:214-221 @ratis-2.2.0).
			Kind:     RaftPauseStepDown,
			Source:   "ratis-server/src/main/java/org/apache/ratis/server/impl/RaftServerProxy.java:250 (T04)",
			Loggers:  []string{"RaftServer"},
			Literals: []string{"longer than the step-down-threshold"},
			Pattern: regexp.MustCompile(`^(?P<peer>\S+): JVM pause detected (?P<ratisdur>\S+) ` +
				`longer than the step-down-threshold (?P<threshold>\S+)`),
		},
		{
			// ratis-3.0.1+ (ozone-1.4.0..master); Ratis 2.x closed silently.
			Kind:     RaftPauseClose,
			Source:   "ratis-server/src/main/java/org/apache/ratis/server/impl/RaftServerProxy.java:246 (T06)",
			Loggers:  []string{"RaftServer"},
			Literals: []string{"longer than the close-threshold"},
			Pattern: regexp.MustCompile(`^(?P<peer>\S+): JVM pause detected (?P<ratisdur>\S+) ` +
				`longer than the close-threshold (?P<threshold>[^\s,]+), shutting down`),
		},
		{
			// Every release (StaleNodeHandler.java:58 @1.0.0 .. :51 @2.0.0+); the
			// datanode renders as DatanodeDetails (long form ≤1.3, short form
			// 1.4.0+, see ParseDatanode), the pipelines as a set of PipelineID
			// ("PipelineID=<uuid>" ≤2.0.0, "Pipeline-<uuid>" 2.1.0+).
			Kind:     NodeStale,
			Source:   scmSrc + "node/StaleNodeHandler.java:51 (T10)",
			Loggers:  []string{"StaleNodeHandler"},
			Literals: []string{"moved to stale state. Finalizing its pipelines"},
			Pattern:  regexp.MustCompile(`^Datanode ` + dnPat + ` moved to stale state\. Finalizing its pipelines (?P<pipelines>\[[^\]]*\])`),
		},
		{
			// ozone-1.1.0+ (DeadNodeHandler.java:77 @1.1.0); ozone-1.0.0's
			// DeadNodeHandler logs no line for a dead node.
			Kind:     NodeDead,
			Source:   scmSrc + "node/DeadNodeHandler.java:99 (T15)",
			Loggers:  []string{"DeadNodeHandler"},
			Literals: []string{"A dead datanode is detected. "},
			Pattern:  regexp.MustCompile(`^A dead datanode is detected\. ` + dnPat),
		},
		{
			// ozone-1.4.0+ (DeadNodeHandler.java:95 @1.4.0). The same text from
			// SCMNodeManager.removeNode (2.0.0+) is a different event.
			Kind:     DeadNodeQueueCleared,
			Source:   scmSrc + "node/DeadNodeHandler.java:121 (T16)",
			Loggers:  []string{"DeadNodeHandler"},
			Literals: []string{"Clearing command queue of size "},
			Pattern:  regexp.MustCompile(`^Clearing command queue of size (?P<count>\d+) for DN ` + dnPat),
		},
		{
			// ozone-1.4.1+ (SCMDeletedBlockTransactionStatusManager.java:204 @1.4.1).
			Kind:     DeadNodeCommandsCleaned,
			Source:   scmSrc + "block/SCMDeletedBlockTransactionStatusManager.java:231 (T17, B32)",
			Loggers:  []string{"SCMDeletedBlockTransactionStatusManager$SCMDeleteBlocksCommandStatusManager"},
			Literals: []string{"Clean SCMCommand record for Datanode: "},
			Pattern:  regexp.MustCompile(`^Clean SCMCommand record for Datanode: (?P<dnuuid>[0-9a-fA-F-]{36})`),
		},
		{
			// ozone-1.2.0+ (HealthyReadOnlyNodeHandler.java:58 @1.2.0); 1.0/1.1
			// had no HEALTHY_READONLY state.
			Kind:     NodeHealthyReadonly,
			Source:   scmSrc + "node/HealthyReadOnlyNodeHandler.java:54 (T18)",
			Loggers:  []string{"HealthyReadOnlyNodeHandler"},
			Literals: []string{"moved to HEALTHY READONLY state."},
			Pattern:  regexp.MustCompile(`^Datanode ` + dnPat + ` moved to HEALTHY READONLY state\.`),
		},
		{
			// ozone-1.2.0+ (ReadOnlyHealthyToHealthyNodeHandler.java:51 @1.2.0);
			// 1.0/1.1's NonHealthyToHealthyNodeHandler logs nothing.
			Kind: NodeHealthy,
			Source: scmSrc + "node/ReadOnlyHealthyToHealthyNodeHandler.java:46 (T20); " +
				"[ZDU] node/UnhealthyToHealthyNodeHandler.java:46 (T18z)",
			Loggers:  []string{"ReadOnlyHealthyToHealthyNodeHandler", "UnhealthyToHealthyNodeHandler"},
			Literals: []string{"moved to HEALTHY state."},
			Pattern:  regexp.MustCompile(`^Datanode ` + dnPat + ` moved to HEALTHY state\.`),
		},
		{
			// "Pipeline {} moved to CLOSED state" in every release; the
			// logger and the argument changed:
			//   A ozone-1.0.0..1.1.0 PipelineStateManager.java:120/:121 with the
			//     Pipeline: "Pipeline[ Id: <uuid>, Nodes: <dn><dn>..., Type:RATIS,
			//     Factor:THREE, State:CLOSED, leaderId:..., CreationTimestamp...]"
			//   B ozone-1.2.0..1.3.0 PipelineManagerImpl.java:349/:442 with the
			//     Pipeline ("ReplicationConfig: RATIS/THREE" instead of Type/Factor)
			//   C ozone-1.4.0..2.0.0 PipelineManagerImpl.java:518 with the
			//     PipelineID: "PipelineID=<uuid>"
			//   D ozone-2.1.0..master PipelineManagerImpl.java:511/:505: "Pipeline-<uuid>"
			Kind:     PipelineClosed,
			Source:   scmSrc + "pipeline/PipelineManagerImpl.java:505 (T13, B11); ≤1.1 pipeline/PipelineStateManager.java:121",
			Loggers:  []string{"PipelineManagerImpl", "PipelineStateManager"},
			Literals: []string{" moved to CLOSED state"},
			Pattern: regexp.MustCompile(`^Pipeline (?:Pipeline\[ Id: (?P<pipeline>[0-9a-fA-F-]{36}),[^\n]*?` +
				`|(?P<pipeline>\S+)) moved to CLOSED state`),
		},
		{
			// Every release with StaleNodeHandler's finalize loop
			// (StaleNodeHandler.java:57); PipelineID renders as
			// "PipelineID=<uuid>" ≤2.0.0 and "Pipeline-<uuid>" 2.1.0+.
			Kind:     PipelineFinalizeFailed,
			Source:   scmSrc + "node/StaleNodeHandler.java:57 (T11)",
			Loggers:  []string{"StaleNodeHandler"},
			Literals: []string{"Could not finalize pipeline="},
			Pattern:  regexp.MustCompile(`^Could not finalize pipeline=(?P<pipeline>\S+) for dn=` + dnPat),
		},
		{
			// The removed Pipeline rendered whole:
			//   A ozone-1.0.0..1.1.0 PipelineStateManager.java:105/:106
			//     "Pipeline {} removed from db", "Pipeline[ Id: <uuid>, ...]"
			//   B ozone-1.2.0..1.3.0 PipelineStateManagerImpl.java:223/:245 and
			//     ozone-1.4.x PipelineManagerImpl.java:459 "Pipeline {} removed.",
			//     "Pipeline[ Id: <uuid>, Nodes: ..., ReplicationConfig: ..., ...]"
			//   C ozone-2.0.0..master PipelineManagerImpl.java:457/:464/:459,
			//     "Pipeline{ Id: <uuid>, Nodes: [ {<dn>, ReplicaIndex: 0},], ...}"
			//     (Pipeline.java:523 @2.0.0, HDDS-12573)
			Kind:     PipelineRemoved,
			Source:   scmSrc + "pipeline/PipelineManagerImpl.java:459 (B14); ≤1.3 PipelineStateManagerImpl.java:245, ≤1.1 PipelineStateManager.java:106",
			Loggers:  []string{"PipelineManagerImpl", "PipelineStateManagerImpl", "PipelineStateManager"},
			Literals: []string{"Pipeline Pipeline{ Id: ", "Pipeline Pipeline[ Id: "},
			Pattern:  regexp.MustCompile(`(?s)^Pipeline Pipeline[{\[] Id: (?P<pipeline>[0-9a-fA-F-]{36}),.*[}\]] removed(?:\.| from db)\s*$`),
		},
		{
			// Every release (SCMDatanodeHeartbeatDispatcher.java:96 @1.0.0).
			Kind:     HeartbeatFromUnregistered,
			Source:   scmSrc + "server/SCMDatanodeHeartbeatDispatcher.java:91 (B28)",
			Loggers:  []string{"SCMDatanodeHeartbeatDispatcher"},
			Literals: []string{"heartbeat from an unregistered datanode "},
			Pattern:  regexp.MustCompile(`^SCM received heartbeat from an unregistered datanode ` + dnPat + `\. Asking datanode to re-register\.`),
		},
		{
			// HddsServerUtil.java:428-475 sanity rules; values in milliseconds.
			// Same text in every release (ServerUtils.java:68,74 @1.0.0).
			Kind:     IntervalReset,
			Source:   "hadoop-hdds/framework/src/main/java/org/apache/hadoop/hdds/server/ServerUtils.java:73,79 (§1.2)",
			Loggers:  []string{"ServerUtils"},
			Literals: []string{" is smaller than min = ", " is larger than max = "},
			Pattern: regexp.MustCompile(`^(?P<key>\S+) value = (?P<value>-?\d+) is (?P<reason>smaller|larger) than (?:min|max) = -?\d+ ` +
				`based on the key value of (?P<basekey>\S+), reset to the (?:min|max) value (?P<ms>-?\d+)\.`),
		},
	}
}
