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
	// printed ("" when the monitor saw no GC).
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

// dnPat matches DatanodeDetails in either rendering (short 2.x form or the
// ≤1.4 / toDebugString long form) when followed by fixed text.
const dnPat = `(?P<dn>[0-9a-fA-F-]{36}(?:\([^()]*\)|\{.*?\})?)`

func scmNodeEntries() []Entry {
	return []Entry{
		{
			Kind:     HeartbeatCheckSkipped,
			Source:   scmSrc + "node/NodeStateManager.java:730 (T01)",
			Loggers:  []string{"NodeStateManager"},
			Literals: []string{"Skipping heartbeat checks for one iteration"},
			Pattern:  regexp.MustCompile(`Detected long delay in scheduling HB processing thread\. Skipping heartbeat checks for one iteration\.`),
		},
		{
			// The second value is the check interval in ms despite "seconds".
			Kind:     HeartbeatCheckSlow,
			Source:   scmSrc + "node/NodeStateManager.java:891 (T02)",
			Loggers:  []string{"NodeStateManager"},
			Literals: []string{"Total time spend processing datanode HB's"},
			Pattern: regexp.MustCompile(`Time Spend on HB processing: (?P<seconds>\d+) seconds ` +
				`Datanode heartbeat Interval: (?P<interval_ms>\d+) seconds\.`),
			Post: func(s *Signal, m map[string]string) bool {
				n, err := strconv.ParseInt(m["seconds"], 10, 64)
				s.Duration = time.Duration(n) * time.Second
				return err == nil
			},
		},
		{
			// Ratis JvmPauseMonitor.java:70-91,168 (T03); Hadoop
			// JvmPauseMonitor (§1.4) for processes that start it.
			Kind:     JVMPause,
			Source:   "ratis-common/src/main/java/org/apache/ratis/util/JvmPauseMonitor.java:168 (T03); hadoop util/JvmPauseMonitor (§1.4)",
			Loggers:  []string{"JvmPauseMonitor"},
			Literals: []string{"Detected pause in JVM or host machine"},
			Pattern: regexp.MustCompile(`^(?:(?P<monitor>\S+): )?Detected pause in JVM or host machine ` +
				`(?:approximately (?P<ratisdur>\d+(?:\.\d+)?[a-zμ]+)(?: without any GCs\.| with (?P<gc>\d+(?:\.\d+)?[a-zμ]+) GC time\.)` +
				`|\(eg GC\): pause of approximately (?P<ms>\d+)ms)`),
		},
		{
			Kind:     RaftPauseStepDown,
			Source:   "ratis-server/src/main/java/org/apache/ratis/server/impl/RaftServerProxy.java:250 (T04)",
			Loggers:  []string{"RaftServer"},
			Literals: []string{"longer than the step-down-threshold"},
			Pattern: regexp.MustCompile(`^(?P<peer>\S+): JVM pause detected (?P<ratisdur>\S+) ` +
				`longer than the step-down-threshold (?P<threshold>\S+)`),
		},
		{
			Kind:     RaftPauseClose,
			Source:   "ratis-server/src/main/java/org/apache/ratis/server/impl/RaftServerProxy.java:246 (T06)",
			Loggers:  []string{"RaftServer"},
			Literals: []string{"longer than the close-threshold"},
			Pattern: regexp.MustCompile(`^(?P<peer>\S+): JVM pause detected (?P<ratisdur>\S+) ` +
				`longer than the close-threshold (?P<threshold>[^\s,]+), shutting down`),
		},
		{
			Kind:     NodeStale,
			Source:   scmSrc + "node/StaleNodeHandler.java:51 (T10)",
			Loggers:  []string{"StaleNodeHandler"},
			Literals: []string{"moved to stale state. Finalizing its pipelines"},
			Pattern:  regexp.MustCompile(`^Datanode ` + dnPat + ` moved to stale state\. Finalizing its pipelines (?P<pipelines>\[[^\]]*\])`),
		},
		{
			Kind:     NodeDead,
			Source:   scmSrc + "node/DeadNodeHandler.java:99 (T15)",
			Loggers:  []string{"DeadNodeHandler"},
			Literals: []string{"A dead datanode is detected. "},
			Pattern:  regexp.MustCompile(`^A dead datanode is detected\. ` + dnPat),
		},
		{
			// The same text from SCMNodeManager.removeNode is a different event.
			Kind:     DeadNodeQueueCleared,
			Source:   scmSrc + "node/DeadNodeHandler.java:121 (T16)",
			Loggers:  []string{"DeadNodeHandler"},
			Literals: []string{"Clearing command queue of size "},
			Pattern:  regexp.MustCompile(`^Clearing command queue of size (?P<count>\d+) for DN ` + dnPat),
		},
		{
			Kind:     DeadNodeCommandsCleaned,
			Source:   scmSrc + "block/SCMDeletedBlockTransactionStatusManager.java:231 (T17, B32)",
			Loggers:  []string{"SCMDeletedBlockTransactionStatusManager$SCMDeleteBlocksCommandStatusManager"},
			Literals: []string{"Clean SCMCommand record for Datanode: "},
			Pattern:  regexp.MustCompile(`^Clean SCMCommand record for Datanode: (?P<dnuuid>[0-9a-fA-F-]{36})`),
		},
		{
			Kind:     NodeHealthyReadonly,
			Source:   scmSrc + "node/HealthyReadOnlyNodeHandler.java:54 (T18)",
			Loggers:  []string{"HealthyReadOnlyNodeHandler"},
			Literals: []string{"moved to HEALTHY READONLY state."},
			Pattern:  regexp.MustCompile(`^Datanode ` + dnPat + ` moved to HEALTHY READONLY state\.`),
		},
		{
			Kind: NodeHealthy,
			Source: scmSrc + "node/ReadOnlyHealthyToHealthyNodeHandler.java:46 (T20); " +
				"[ZDU] node/UnhealthyToHealthyNodeHandler.java:46 (T18z)",
			Loggers:  []string{"ReadOnlyHealthyToHealthyNodeHandler", "UnhealthyToHealthyNodeHandler"},
			Literals: []string{"moved to HEALTHY state."},
			Pattern:  regexp.MustCompile(`^Datanode ` + dnPat + ` moved to HEALTHY state\.`),
		},
		{
			Kind:     PipelineClosed,
			Source:   scmSrc + "pipeline/PipelineManagerImpl.java:505 (T13, B11)",
			Loggers:  []string{"PipelineManagerImpl"},
			Literals: []string{" moved to CLOSED state"},
			Pattern:  regexp.MustCompile(`^Pipeline (?P<pipeline>\S+) moved to CLOSED state`),
		},
		{
			Kind:     PipelineRemoved,
			Source:   scmSrc + "pipeline/PipelineManagerImpl.java:459 (B14)",
			Loggers:  []string{"PipelineManagerImpl"},
			Literals: []string{"Pipeline Pipeline{ Id: "},
			Pattern:  regexp.MustCompile(`(?s)^Pipeline Pipeline\{ Id: (?P<pipeline>[0-9a-fA-F-]{36}),.*\} removed\.\s*$`),
		},
		{
			Kind:     HeartbeatFromUnregistered,
			Source:   scmSrc + "server/SCMDatanodeHeartbeatDispatcher.java:91 (B28)",
			Loggers:  []string{"SCMDatanodeHeartbeatDispatcher"},
			Literals: []string{"heartbeat from an unregistered datanode "},
			Pattern:  regexp.MustCompile(`^SCM received heartbeat from an unregistered datanode ` + dnPat + `\. Asking datanode to re-register\.`),
		},
		{
			// HddsServerUtil.java:428-475 sanity rules; values in milliseconds.
			Kind:     IntervalReset,
			Source:   "hadoop-hdds/framework/src/main/java/org/apache/hadoop/hdds/server/ServerUtils.java:73,79 (§1.2)",
			Loggers:  []string{"ServerUtils"},
			Literals: []string{" is smaller than min = ", " is larger than max = "},
			Pattern: regexp.MustCompile(`^(?P<key>\S+) value = (?P<value>-?\d+) is (?P<reason>smaller|larger) than (?:min|max) = -?\d+ ` +
				`based on the key value of (?P<basekey>\S+), reset to the (?:min|max) value (?P<ms>-?\d+)\.`),
		},
	}
}
