package catalogue

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

const (
	nodeDNUUID = "3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f"
	nodeDN     = nodeDNUUID + "(dn1.example.com/10.0.0.11)"
	nodePipe   = "8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"
	nodePipe2  = "1d2e3f40-5a6b-4c7d-8e9f-a0b1c2d3e4f5"
	nodeSCMID  = "5b1f0c2e-8d7a-4c3b-9e21-6f0a1b2c3d4e"
)

var nodeDNWant = Datanode{UUID: nodeDNUUID, Host: "dn1.example.com", IP: "10.0.0.11"}

// matchSCMNode runs the default catalogue on one record and returns the signals
// of kind k, failing when the first line is not a prefilter candidate.
func matchSCMNode(t *testing.T, c *Catalogue, logger, msg string) []Signal {
	t.Helper()
	first, _, _ := strings.Cut(msg, "\n")
	r := &parsers.Record{Time: time.Date(2026, 8, 23, 10, 20, 7, 0, time.UTC), Logger: logger, Message: msg,
		Host: "scm1.example.com", Component: parsers.ComponentSCM}
	sigs := c.Match(r)
	if len(sigs) > 0 && !c.Candidate(nil, []byte(first)) {
		t.Errorf("%q matched but is not a candidate", first)
	}
	return sigs
}

func TestSCMNodeEntries(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const (
		nsm  = "org.apache.hadoop.hdds.scm.node.NodeStateManager"
		jpm  = "org.apache.ratis.util.JvmPauseMonitor"
		rs   = "org.apache.ratis.server.RaftServer"
		pm   = "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl"
		dnh  = "org.apache.hadoop.hdds.scm.node.DeadNodeHandler"
		long = nodeDNUUID + "{ip: 10.0.0.11, host: dn1.example.com, ports: [RATIS=9858, STANDALONE=9859], " +
			"networkLocation: /default-rack, certSerialId: null, persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}"
	)
	cases := []struct {
		name, logger, msg string
		want              Signal // only Kind and the fields the kind documents are compared
	}{
		{"T01", nsm,
			// T01 NodeStateManager.java:730
			"Detected long delay in scheduling HB processing thread. Skipping heartbeat checks for one iteration.",
			Signal{Kind: HeartbeatCheckSkipped}},
		{"T02", nsm,
			// T02 NodeStateManager.java:891 (second value in ms)
			"Total time spend processing datanode HB's is greater than configured values for datanode heartbeats. " +
				"Please adjust the heartbeat configs. Time Spend on HB processing: 7 seconds Datanode heartbeat Interval: 3000 seconds.",
			Signal{Kind: HeartbeatCheckSlow, Duration: 7 * time.Second}},
		{"T03 ratis no GC", jpm,
			// T03 JvmPauseMonitor.java:168
			"JvmPauseMonitor-" + nodeSCMID + ": Detected pause in JVM or host machine approximately 361.207s without any GCs.",
			Signal{Kind: JVMPause, Duration: 361207 * time.Millisecond, Attrs: map[string]string{"monitor": "JvmPauseMonitor-" + nodeSCMID}}},
		{"T03 ratis GC multi-line whole seconds", jpm,
			// T03 JvmPauseMonitor.java:70-91, GC pool lines follow
			"JvmPauseMonitor-" + nodeSCMID + ": Detected pause in JVM or host machine approximately 52s with 51.870s GC time.\n" +
				"GC pool 'G1 Old Generation' had collection(s): count=1 time=51870ms",
			Signal{Kind: JVMPause, Duration: 52 * time.Second, Attrs: map[string]string{"monitor": "JvmPauseMonitor-" + nodeSCMID, "gc": "51.870s"}}},
		{"T03 hadoop", "org.apache.hadoop.util.JvmPauseMonitor",
			// §1.4 Hadoop JvmPauseMonitor
			"Detected pause in JVM or host machine (eg GC): pause of approximately 12345ms\nNo GCs detected",
			Signal{Kind: JVMPause, Duration: 12345 * time.Millisecond}},
		{"T04", rs,
			// T04 RaftServerProxy.java:250
			nodeSCMID + ": JVM pause detected 12.345s longer than the step-down-threshold 10s",
			Signal{Kind: RaftPauseStepDown, Peer: nodeSCMID, Duration: 12345 * time.Millisecond, Attrs: map[string]string{"threshold": "10s"}}},
		{"T06", rs,
			// T06 RaftServerProxy.java:246
			nodeSCMID + ": JVM pause detected 75.311s longer than the close-threshold 60s, shutting down ...",
			Signal{Kind: RaftPauseClose, Peer: nodeSCMID, Duration: 75311 * time.Millisecond, Attrs: map[string]string{"threshold": "60s"}}},
		{"T10", "org.apache.hadoop.hdds.scm.node.StaleNodeHandler",
			// T10 StaleNodeHandler.java:51
			"Datanode " + nodeDN + " moved to stale state. Finalizing its pipelines [Pipeline-" + nodePipe + ", Pipeline-" + nodePipe2 + "]",
			Signal{Kind: NodeStale, Datanode: nodeDNWant, Pipelines: []string{nodePipe, nodePipe2}}},
		{"T10 no pipelines", "StaleNodeHandler",
			// T10 with an empty set, %c{1} logger
			"Datanode " + nodeDN + " moved to stale state. Finalizing its pipelines []",
			Signal{Kind: NodeStale, Datanode: nodeDNWant}},
		{"T10 1.4 rendering", "org.apache.hadoop.hdds.scm.node.StaleNodeHandler",
			// T10 with ≤1.4 DatanodeDetails and ≤2.0 PipelineID (§0.1)
			"Datanode " + long + " moved to stale state. Finalizing its pipelines [PipelineID=" + nodePipe + "]",
			Signal{Kind: NodeStale, Datanode: nodeDNWant, Pipelines: []string{nodePipe}}},
		{"T15", dnh,
			// T15 DeadNodeHandler.java:99
			"A dead datanode is detected. " + nodeDN,
			Signal{Kind: NodeDead, Datanode: nodeDNWant}},
		{"T16", dnh,
			// T16 DeadNodeHandler.java:121
			"Clearing command queue of size 3 for DN " + nodeDN,
			Signal{Kind: DeadNodeQueueCleared, Datanode: nodeDNWant, Count: 3}},
		{"T17", "org.apache.hadoop.hdds.scm.block.SCMDeletedBlockTransactionStatusManager$SCMDeleteBlocksCommandStatusManager",
			// T17 SCMDeletedBlockTransactionStatusManager.java:231
			"Clean SCMCommand record for Datanode: " + nodeDNUUID,
			Signal{Kind: DeadNodeCommandsCleaned, Datanode: Datanode{UUID: nodeDNUUID}}},
		{"T18", "org.apache.hadoop.hdds.scm.node.HealthyReadOnlyNodeHandler",
			// T18 HealthyReadOnlyNodeHandler.java:54
			"Datanode " + nodeDN + " moved to HEALTHY READONLY state.",
			Signal{Kind: NodeHealthyReadonly, Datanode: nodeDNWant}},
		{"T20", "org.apache.hadoop.hdds.scm.node.ReadOnlyHealthyToHealthyNodeHandler",
			// T20 ReadOnlyHealthyToHealthyNodeHandler.java:46
			"Datanode " + nodeDN + " moved to HEALTHY state.",
			Signal{Kind: NodeHealthy, Datanode: nodeDNWant}},
		{"T18z", "org.apache.hadoop.hdds.scm.node.UnhealthyToHealthyNodeHandler",
			// T18z [ZDU] UnhealthyToHealthyNodeHandler.java:46
			"Datanode " + nodeDN + " moved to HEALTHY state.",
			Signal{Kind: NodeHealthy, Datanode: nodeDNWant}},
		{"T13", pm,
			// T13 PipelineManagerImpl.java:505
			"Pipeline Pipeline-" + nodePipe + " moved to CLOSED state",
			Signal{Kind: PipelineClosed, Pipeline: nodePipe}},
		{"B14", pm,
			// B14 PipelineManagerImpl.java:459 with Pipeline.toString (§0.1)
			"Pipeline Pipeline{ Id: " + nodePipe + ", Nodes: [ {" + nodeDN + ", ReplicaIndex: 0}], " +
				"ReplicationConfig: RATIS/THREE, State:CLOSED, leaderId:" + nodeDNUUID + ", CreationTimestamp2026-08-23T10:00:00.000Z[UTC]} removed.",
			Signal{Kind: PipelineRemoved, Pipeline: nodePipe}},
		{"B28", "org.apache.hadoop.hdds.scm.server.SCMDatanodeHeartbeatDispatcher",
			// B28 SCMDatanodeHeartbeatDispatcher.java:91
			"SCM received heartbeat from an unregistered datanode " + nodeDN + ". Asking datanode to re-register.",
			Signal{Kind: HeartbeatFromUnregistered, Datanode: nodeDNWant}},
		{"ServerUtils reset", "org.apache.hadoop.hdds.server.ServerUtils",
			// ServerUtils.java:73 (§1.2), values in ms
			"ozone.scm.dead.node.interval value = 45000 is smaller than min = 60000 based on the key value of " +
				"ozone.scm.stale.node.interval, reset to the min value 60000.",
			Signal{Kind: IntervalReset, Reason: "smaller", Duration: time.Minute,
				Attrs: map[string]string{"key": "ozone.scm.dead.node.interval", "value": "45000", "basekey": "ozone.scm.stale.node.interval"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sigs := matchSCMNode(t, c, tc.logger, tc.msg)
			var got *Signal
			for i := range sigs {
				if sigs[i].Kind == tc.want.Kind {
					got = &sigs[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s signal; got %+v", tc.want.Kind, sigs)
			}
			if got.Datanode != tc.want.Datanode || got.Pipeline != tc.want.Pipeline || got.Duration != tc.want.Duration ||
				got.Count != tc.want.Count || got.Peer != tc.want.Peer || got.Reason != tc.want.Reason ||
				!reflect.DeepEqual(got.Pipelines, tc.want.Pipelines) {
				t.Errorf("fields:\n got %+v\nwant %+v", *got, tc.want)
			}
			for k, v := range tc.want.Attrs {
				if got.Attrs[k] != v {
					t.Errorf("Attrs[%s] = %q, want %q", k, got.Attrs[k], v)
				}
			}
		})
	}
}

// TestSCMNodeNearMisses: lines that share words with the entries but are
// other events, or the same text from another logger.
func TestSCMNodeNearMisses(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, logger, msg string
		not               Kind
	}{
		// T16's text from SCMNodeManager.removeNode is a decommission, not a dead node.
		{"T16 from SCMNodeManager", "org.apache.hadoop.hdds.scm.node.SCMNodeManager",
			"Clearing command queue of size 3 for DN " + nodeDN, DeadNodeQueueCleared},
		// The same skip text in a non-Ozone scheduler (another logger).
		{"skip from another class", "com.example.jobs.JobWorkerStateManager",
			"Detected long delay in scheduling HB processing thread. Skipping heartbeat checks for one iteration.", HeartbeatCheckSkipped},
		// T18 must not be read as a return to HEALTHY.
		{"readonly is not healthy", "org.apache.hadoop.hdds.scm.node.HealthyReadOnlyNodeHandler",
			"Datanode " + nodeDN + " moved to HEALTHY READONLY state.", NodeHealthy},
		// T19 names HEALTHY_READONLY but is a pipeline close.
		{"T19", "org.apache.hadoop.hdds.scm.node.HealthyReadOnlyNodeHandler",
			"Sending close command for pipeline Pipeline-" + nodePipe + " in state CLOSED which uses HEALTHY_READONLY datanode " +
				nodeDN + ". This will send close commands for its containers.", NodeHealthyReadonly},
		// A step-down after a pause is not a close.
		{"T04 is not T06", "org.apache.ratis.server.RaftServer",
			nodeSCMID + ": JVM pause detected 12.345s longer than the step-down-threshold 10s", RaftPauseClose},
		// B13 scrubbing names a CLOSED pipeline but is no state change.
		{"B13", "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl",
			"Scrubbing pipeline: id: Pipeline-" + nodePipe + " since it stays at CLOSED stage.", PipelineClosed},
		// ServerUtils larger-than rule for an unrelated key still parses, but
		// a line about another subject does not.
		{"unrelated min", "org.apache.hadoop.hdds.server.ServerUtils",
			"queue length 5 is smaller than min = 10", IntervalReset},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range matchSCMNode(t, c, tc.logger, tc.msg) {
				if s.Kind == tc.not {
					t.Errorf("matched %s: %+v", tc.not, s)
				}
			}
		})
	}
}
