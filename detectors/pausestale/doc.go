// Package pausestale recognises HDDS-17519: after a long pause of the SCM
// process (GC, VM freeze, SIGSTOP) the SCM marks live datanodes STALE or DEAD
// because their heartbeats could not be processed during the pause, although
// they heartbeat again right after; a pause longer than the Ratis close
// threshold makes the SCM terminate itself instead.
package pausestale

import (
	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func doc() detectors.Doc {
	return detectors.Doc{
		Name:    "scm-pause-stale-nodes",
		Defect:  "HDDS-17519",
		Title:   "Live datanodes marked STALE/DEAD after an SCM pause",
		Summary: "A long SCM pause (GC, VM freeze) made the SCM mark datanodes STALE or DEAD that were alive and heartbeat again right after, or made the SCM terminate itself.",
		Explanation: `The SCM's NodeStateManager checks every ozone.scm.heartbeat.thread.interval (3s) how old ` +
			`each datanode's last processed heartbeat is: older than ozone.scm.stale.node.interval (5m) makes ` +
			`the node STALE, older than ozone.scm.dead.node.interval (10m) makes it DEAD. While the SCM process ` +
			`is paused (a long GC, a VM suspend or migration, SIGSTOP, a debugger) no heartbeat is processed, ` +
			`so on resuming every datanode looks silent for the length of the pause. A pause of at least ` +
			`min(stale, dead interval) makes the check skip exactly one run ("Detected long delay in scheduling ` +
			`HB processing thread. Skipping heartbeat checks for one iteration."), but the next run follows ` +
			`3s later — too soon for the datanodes, which send a heartbeat only every hdds.heartbeat.interval ` +
			`(30s) with an RPC timeout of ozone.scm.heartbeat.rpc-timeout (5s): a hold-off of one heartbeat ` +
			`interval plus the RPC timeout (35s) would be needed. A pause just under the stale interval is not ` +
			`skipped at all. Either way live datanodes move to STALE (StaleNodeHandler closes all their ` +
			`pipelines) and, when the pause exceeded the dead interval, to DEAD (DeadNodeHandler drops their ` +
			`replicas from the container map, destroys their pipelines and clears their command queues, and ` +
			`ReplicationManager starts copying containers that are not under-replicated at all). With their ` +
			`next heartbeat they come back (HEALTHY READONLY then HEALTHY on 2.x, HEALTHY directly on the ZDU ` +
			`branch). A pause longer than the Ratis close threshold (60s unless raised) makes Ratis close the ` +
			`SCM's server and the SCM terminates with "scm statemachine is closed by ratis". That outcome marks ` +
			`no datanode STALE or DEAD, so it is not HDDS-17519: it is reported as its own finding (defect ` +
			`"unclassified", title "SCM terminated after a pause longer than the Ratis close threshold (not ` +
			`HDDS-17519)") with the remediation of a terminated SCM.` + "\n\n" +
			`The signature is a pause on the SCM — the Ratis JvmPauseMonitor WARN "Detected pause in JVM or ` +
			`host machine approximately …", the skip line, or a silence in the SCM's own log — followed within ` +
			`the hold-off by STALE/DEAD transitions of datanodes that return within about one heartbeat ` +
			`interval; or the pause, the Ratis close-threshold ERROR, "Terminating with exit status 0: scm ` +
			`statemachine is closed by ratis" (or the SCM's SHUTDOWN_MSG) within a few seconds of it, and the SCM's ` +
			`restart banner. Thresholds come from ozone-site.xml ` +
			`or the SCM's STARTUP_MSG when the input has them, else Ozone's defaults; the finding names the ` +
			`values it used.`,
		Remediation: []string{
			`{{if or (eq (fact . "outcome") "scm-terminated") (eq (fact . "outcome") "ratis-closed")}}Check that the SCM on {{index .Entities.Hosts 0}} is running and leads or follows again: ` +
				"`ozone admin scm roles`; datanodes re-register by themselves (\"SCM received heartbeat from an unregistered datanode\")." +
				`{{else}}Confirm the datanodes are alive and back: ` + "`ozone admin datanode list --node-state STALE`" + ` and ` +
				"`ozone admin datanode list --node-state DEAD`" + ` should not list {{join .Entities.Datanodes}}; they were back within {{fact . "max_return"}} ` +
				`(one heartbeat interval is {{fact . "heartbeat_interval"}}).{{end}}`,
			`{{if or (eq (fact . "outcome") "scm-terminated") (eq (fact . "outcome") "ratis-closed")}}Pipelines and containers are as the restarted SCM loaded them; check ` +
				"`ozone admin pipeline list --state OPEN`" + ` and ` + "`ozone admin safemode status`" + `.` +
				`{{else if eq (fact . "pipelines_closed") "0"}}This SCM closed none of the {{len .Entities.Pipelines}} pipeline(s) of the affected datanodes ` +
				`(a follower's closes fail; the leader decides). Check ` + "`ozone admin scm roles`" + ` for the leader and ` +
				"`ozone admin pipeline list --state OPEN`" + ` for their pipelines.` +
				`{{else}}All pipelines of the affected datanodes were closed ({{len .Entities.Pipelines}} named in the log). Check ` +
				"`ozone admin pipeline list --state OPEN`" + `; BackgroundPipelineCreator recreates pipelines by itself, and if writes fail ` +
				"`ozone admin pipeline create -t RATIS -f THREE`" + ` creates one explicitly.{{end}}`,
			`{{if eq (fact . "outcome") "dead"}}{{fact . "dead_nodes"}} datanode(s) went DEAD: SCM dropped their replicas and ReplicationManager copies ` +
				`their containers; the extra copies are deleted after the nodes' next full container report (hdds.container.report.interval, 60m). ` +
				"Watch `ozone admin container report` and `replication_manager_metrics_under_replicated_containers`; as the nodes are known healthy, " +
				"`ozone admin replicationmanager stop` (and `ozone admin replicationmanager start` after their next full container report) avoids the churn." +
				`{{else}}No datanode went DEAD, so no replica was dropped and ReplicationManager has nothing to undo.{{end}}`,
			`Find and fix the cause of the SCM's pause on {{index .Entities.Hosts 0}} ({{fact . "pause"}}): GC (heap size and collector; ` +
				"`jvm_metrics_gc_time_millis`" + ` jumps by about the pause), a VM suspend, snapshot or live migration (no GC time), or a stopped ` +
				"process (SIGSTOP, a debugger, `jstack -F`). Raising ozone.scm.stale.node.interval and ozone.scm.dead.node.interval only moves " +
				"the threshold; a pause longer than the Ratis close threshold (60s unless ozone.scm.ha.raft.server.close.threshold is raised) terminates the SCM.",
		},
		FalsePositives: []string{
			"A datanode that really failed: it alone (or its rack) goes STALE/DEAD with no pause on the SCM, does not return within a heartbeat interval, and its own log stops or shows SHUTDOWN_MSG — not reported.",
			"Short GC pauses, and a skipped health check or a long pause that no STALE/DEAD transition follows: a pause without the defect's damage — not reported.",
			"2.x upgrade finalization: every datanode moves to HEALTHY READONLY after \"SCM Finalization has crossed checkpoint MLV_EQUALS_SLV\", with no STALE — not reported.",
			"Planned datanode restarts and SCM restarts (re-registration, no STALE burst after a pause) — not reported.",
			"The Ratis close-threshold ERROR alone: OMs and datanodes run the same Ratis server and log it too (only an SCM's counts, by its component or its STARTUP_MSG), " +
				"and the SCM is reported terminated only when its termination line or SHUTDOWN_MSG follows within " + exitWait.String() + "; a close ERROR the SCM's log goes on after is not reported " +
				"(when the input ends within those " + exitWait.String() + ", it is reported at medium confidence as \"termination not in the input\").",
			"A silence in the SCM log alone is weak evidence: it counts only when a burst of STALE/DEAD transitions of several datanodes that all return follows it (medium confidence).",
		},
		Resolves: "When every datanode the pause made STALE or DEAD has logged its return (HEALTHY READONLY or HEALTHY) within one heartbeat interval plus the RPC timeout and two health checks; " +
			"for the termination outcome, when the SCM's STARTUP_MSG shows it running again (a close the input ends right after, with no termination line, stays firing). Otherwise the finding is firing (ongoing at the end of the input).",
		Kinds: []catalogue.Kind{
			catalogue.JVMPause, catalogue.HeartbeatCheckSkipped, catalogue.HeartbeatCheckSlow,
			catalogue.RaftPauseStepDown, catalogue.RaftPauseClose, catalogue.LogGap,
			catalogue.NodeStale, catalogue.NodeDead, catalogue.DeadNodeQueueCleared, catalogue.DeadNodeCommandsCleaned,
			catalogue.NodeHealthyReadonly, catalogue.NodeHealthy, catalogue.PipelineClosed, catalogue.PipelineRemoved, catalogue.PipelineFinalizeFailed,
			catalogue.IntervalReset, catalogue.Terminating, catalogue.StartupMsg, catalogue.ShutdownMsg,
			catalogue.HeartbeatFromUnregistered, catalogue.DatanodeRegistered,
		},
		Needs:   []parsers.Component{parsers.ComponentSCM},
		Package: "pausestale",
		// Affected and fixed versions, read in apache/ozone's history (mirror at
		// master 0c20b823e209, 2026-08-22; newest tag ozone-2.2.0, 2026-08-03):
		// `git log --all --grep HDDS-17519` finds nothing, so no branch or tag
		// has a fix. The one-iteration skip ("Detected long delay in
		// scheduling HB processing thread") came with HDDS-1454 (b8881e47d89,
		// 2019-06-19; `git tag --contains`: ozone-0.4.2-alpha-RC0, first
		// release ozone-0.5.0-beta), and before it the health check did not
		// skip at all: every release marks live datanodes STALE after a pause
		// of the stale interval.
		Affected:     "*",
		VersionsRead: "every release (HDDS-1454, b8881e47d89, first in ozone-0.5.0-beta, added the one-iteration skip; before it no skip at all); HDDS-17519 is in no commit of apache/ozone: not fixed in any release as of ozone-2.2.0 (2026-08-03), nor on master (0c20b823e209, 2026-08-22)",
		// An episode closes by itself within the hold-off plus the return
		// window after its last transition (under two minutes with
		// Ozone's defaults), a termination within two return windows of
		// the restart; what outlives them is a datanode's SHUTDOWN_MSG,
		// which counts for the dead interval plus the hold-off (10m35s by
		// default), and an SCM host with nothing open. An hour covers a
		// dead interval raised sixfold; longer configured intervals keep
		// the SHUTDOWN_MSGs as long as they need. Hosts known from their
		// STARTUP_MSG to run an SCM are not forgotten by age (an SCM runs
		// for months), only beyond their limit.
		Horizon: horizon,
		Options: []detectors.Option{{Name: "min_burst_nodes", Kind: detectors.OptionInt, Default: "2", Min: "1",
			Doc: "how many returning datanodes a silence in the SCM log (with no pause line) needs to count as a pause"}},
	}
}
