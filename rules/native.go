package rules

import (
	"time"
)

const nativeHeader = `Alerting rules on Ozone's own /prom metrics, for clusters without the ozdoctor sidecar.
Metric and label names are those Ozone exports (Hadoop metrics2 names through PrometheusMetricsSink,
Ratis Dropwizard names through RatisDropwizardExports); job and instance are the scrape's target labels.
Ratis metrics carry their own "instance" label (the Raft peer id), which Prometheus renames to
exported_instance unless honor_labels is set: the rules join on the target's instance.
Each rule is coarser than the log detector of the same defect; its annotations say how.

Groups ozone-native-problems-*: operational problems (not defects) that the built-in log signatures
report, where Ozone exports a metric for them; the defect label is the signature's problem key and
the detector label its id:
- dn-volume-failed: OzoneDatanodeVolumeFailed (datanode, 2.1.0+), OzoneSCMDatanodesWithFailedVolumes
  (SCM, 2.2.0+);
- scm-safe-mode-stuck: OzoneSCMStuckInSafeMode;
- dn-out-of-space: OzoneSCMNonWritableDatanodes (SCM, 2.2.0+; the datanodes' volume_info_metrics_*
  families embed the volume's directory in the metric name and are not used);
- jvm-out-of-memory: OzoneJVMHeapNearlyFull, OzoneNettyDirectMemoryNearlyFull (a warning before the
  OutOfMemoryError the signature matches);
- no-writable-pipeline: OzoneSCMPipelineCreationFailing;
- container-missing: OzoneSCMMissingContainers;
- container-replica-unhealthy: OzoneSCMUnhealthyContainers (SCM's count; the signature reads the
  datanodes' logs).
Signatures without a native rule: service-fatal-termination (a process that exits only stops being
scraped, up == 0, which any stop or network fault shows too) and dn-cannot-reach-scm (the datanode
exports no metric for it; SCM's stale/dead node gauges show the consequence, not the cause).

Defects without a native rule (the metrics do not show them):
- none of the five is entirely without a signal, but HDDS-16839 (om-bootstrap-exit-voter) has only
  the consequence on /prom (a voter of the OM ring that does not answer); the failed bootstrap and the
  ring's configuration change are in the OM logs only. The per-peer heartbeat gauge
  ratis_server_<peer>_lastHeartbeatElapsedTime has the peer id in its name and is not used.
- HDDS-17519's pause itself leaves no counter for SIGSTOP or VM suspends (Ozone attaches no Hadoop
  JvmPauseMonitor, so jvm_metrics_gc_num_warn_threshold_exceeded is absent); the rule relies on the
  SCM target's failed scrapes or its GC time.
- HDDS-17425 is visible only on the ZDU branch (HDDS-14496-zdu), whose ozone_build_info and
  component_version_manager_metrics_* gauges name the old datanode; released Ozone has no metric for it.
- HDDS-16809's deletion of the empty QUASI_CLOSED container is not counted on SCM (the report
  handler's force delete is not in replication_manager_metrics_deletion_cmds_sent_total); only the
  datanode's storage_container_metrics_container_force_delete counts the forced delete.`

// Target labels of the test series.
const (
	scmInst = "scm1.example.com:9876"
	dn1Inst = "dn1.example.com:9882"
	dn3Inst = "dn3.example.com:9882"
	om1Inst = "om1.example.com:9874"
	om2Inst = "om2.example.com:9874"
	job     = "ozone"
)

func nl(instance, hostname string, extra ...string) map[string]string {
	m := map[string]string{"instance": instance, "job": job}
	if hostname != "" {
		m["hostname"] = hostname
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

// NativeGroups returns the rules on Ozone's own metrics.
func NativeGroups() []Group {
	return append([]Group{
		{Name: "ozone-native-scm", Rules: []Rule{pauseRule(), olderDatanodeRule(), unversionedDatanodeRule()}},
		{Name: "ozone-native-datanode", Rules: []Rule{forceDeleteRule(), closePipelineStuckRule(), closingAfterWriteFailureRule()}},
		{Name: "ozone-native-om", Rules: []Rule{omVoterRule()}},
	}, problemGroups()...)
}

func native(defect, detector string) map[string]string {
	return map[string]string{"severity": "warning", "defect": defect, "detector": detector, "source": "ozone-native"}
}

func pauseRule() Rule {
	scmGauge := func(name string) string {
		return hs(name, nl(scmInst, "scm1.example.com", "context", "ozone"))
	}
	gc := hs("jvm_metrics_gc_time_millis", nl(scmInst, "scm1.example.com", "context", "jvm", "processname", "StorageContainerManager", "sessionid", "null"))
	up := hs("up", nl(scmInst, ""))
	fire := nl(scmInst, "scm1.example.com", "context", "ozone")
	return Rule{
		Alert: "OzoneSCMPauseMarkedLiveDatanodesStale",
		Expr: "(\n" +
			"    max_over_time(scm_node_manager_in_service_stale_nodes[15m])\n" +
			"  + max_over_time(scm_node_manager_in_service_dead_nodes[15m])\n" +
			"  - scm_node_manager_in_service_stale_nodes\n" +
			"  - scm_node_manager_in_service_dead_nodes\n" +
			") >= 2\n" +
			"and on (instance)\n" +
			"(\n" +
			"    min_over_time(up[15m]) == 0\n" +
			"  or on (instance)\n" +
			"    increase(jvm_metrics_gc_time_millis{processname=\"StorageContainerManager\"}[15m]) >= 30000\n" +
			")",
		Labels: native("HDDS-17519", "scm-pause-stale-nodes"),
		Annotations: map[string]string{
			"summary": "HDDS-17519 suspected on SCM {{ $labels.hostname }}: datanodes went STALE/DEAD and came back while the SCM paused",
			"description": "In the last 15 minutes at least two more datanodes were STALE or DEAD on SCM {{ $labels.instance }} than are now " +
				"(scm_node_manager_in_service_stale_nodes/_dead_nodes jumped and returned) while the SCM's own scrapes failed " +
				"(up == 0) or its GC time grew by 30s or more (jvm_metrics_gc_time_millis): a long SCM pause marked live datanodes " +
				"STALE/DEAD (pipelines closed, replicas of DEAD nodes dropped).\n\n" +
				"Versions: the node-count gauges, jvm_metrics_gc_time_millis and up exist on every Ozone release (2.x, master, ZDU); " +
				"on master the returning nodes pass through HEALTHY_READONLY, on ZDU they go straight to HEALTHY.\n\n" +
				"Precision compared with the log detector (scm-pause-stale-nodes): coarse. Gauges are sampled once per scrape and " +
				"Ozone refreshes them once per metrics period (10s), so a STALE burst shorter than the scrape interval is missed; " +
				"a SIGSTOP or VM suspend shows only as failed scrapes; a network partition of the SCM host or a rack outage " +
				"that returns while the SCM is unreachable looks the same. The log detector sees the skipped health check, " +
				"the pause, each transition and each return, and tells a terminated SCM apart.",
			"remediation": "Run `ozdoctor analyze` on the SCM and datanode logs of the last hour (or `ozdoctor explain HDDS-17519`). " +
				"Check `ozone admin datanode list --node-state STALE` / `--node-state DEAD` (should be empty again), " +
				"`ozone admin pipeline list --state OPEN`, and the SCM's GC logs or hypervisor events at the time of the failed scrapes.",
			"runbook_url": DefaultOptions().RunbookBase + "signatures/scm-pause-stale-nodes/scm-pause-stale-nodes.yaml",
		},
		Panels: []Panel{
			{Title: "SCM stale and dead datanodes", Expr: `scm_node_manager_in_service_stale_nodes`, Legend: "stale {{hostname}}"},
			{Title: "SCM stale and dead datanodes", Expr: `scm_node_manager_in_service_dead_nodes`, Legend: "dead {{hostname}}"},
			{Title: "SCM scrape up", Expr: `up and on (instance) scm_node_manager_in_service_stale_nodes`, Legend: "{{instance}}"},
			{Title: "SCM GC time per minute", Expr: `increase(jvm_metrics_gc_time_millis{processname="StorageContainerManager"}[1m])`, Legend: "{{hostname}}", Unit: "ms"},
		},
		Tests: []Case{
			{Name: "scrapes fail for 3 minutes, then 5 datanodes are STALE and return", At: 10 * time.Minute,
				Series: []Series{
					{up, "1 1 1 1 1 0 0 0 1 1 1 1 1 1 1"},
					{scmGauge("scm_node_manager_in_service_stale_nodes"), "0 0 0 0 0 _ _ _ 5 0 0 0 0 0 0"},
					{scmGauge("scm_node_manager_in_service_dead_nodes"), "0 0 0 0 0 _ _ _ 0 0 0 0 0 0 0"},
					{gc, "1000x15"},
				},
				Fire: []map[string]string{fire}},
			{Name: "a 60s GC pause between scrapes, 3 datanodes DEAD and back", At: 10 * time.Minute,
				Series: []Series{
					{up, "1x15"},
					{scmGauge("scm_node_manager_in_service_stale_nodes"), "0x15"},
					{scmGauge("scm_node_manager_in_service_dead_nodes"), "0 0 0 0 0 3 0 0 0 0 0 0 0 0 0"},
					{gc, "1000 1000 1000 1000 1000 61000x10"},
				},
				Fire: []map[string]string{fire}},
			{Name: "near miss: two datanodes really failed (STALE and stay), SCM scrapes fail", At: 10 * time.Minute,
				Series: []Series{
					{up, "1 1 1 1 1 0 0 0 1 1 1 1 1 1 1"},
					{scmGauge("scm_node_manager_in_service_stale_nodes"), "0 0 0 0 0 _ _ _ 2 2 2 2 2 2 2"},
					{scmGauge("scm_node_manager_in_service_dead_nodes"), "0x15"},
					{gc, "1000x15"},
				}},
			{Name: "near miss: datanodes STALE and back while the SCM is fine (a network blip)", At: 10 * time.Minute,
				Series: []Series{
					{up, "1x15"},
					{scmGauge("scm_node_manager_in_service_stale_nodes"), "0 0 0 0 0 4 0 0 0 0 0 0 0 0 0"},
					{scmGauge("scm_node_manager_in_service_dead_nodes"), "0x15"},
					{gc, "1000+100x15"},
				}},
			{Name: "near miss: SCM scrapes fail but no datanode changed state", At: 10 * time.Minute,
				Series: []Series{
					{up, "1 1 1 1 1 0 0 0 1 1 1 1 1 1 1"},
					{scmGauge("scm_node_manager_in_service_stale_nodes"), "0 0 0 0 0 _ _ _ 0 0 0 0 0 0 0"},
					{scmGauge("scm_node_manager_in_service_dead_nodes"), "0 0 0 0 0 _ _ _ 0 0 0 0 0 0 0"},
					{gc, "1000x15"},
				}},
		},
	}
}

// SCM and datanode build info and version gauges (ZDU branch).
func zduSeries(scmApparent, scmSoftware, dn1Software, dn3Software string) []Series {
	return []Series{
		{hs("ozone_build_info", nl(scmInst, "scm1.example.com", "component", "scm", "revision", "abc123", "version", "2.3.0-ZDU")), "1x20"},
		{hs("component_version_manager_metrics_apparent_version", nl(scmInst, "scm1.example.com")), scmApparent},
		{hs("component_version_manager_metrics_software_version", nl(scmInst, "scm1.example.com")), scmSoftware},
		{hs("ozone_build_info", nl(om1Inst, "om1.example.com", "component", "ozoneManager", "revision", "abc123", "version", "2.3.0-ZDU")), "1x20"},
		{hs("component_version_manager_metrics_software_version", nl(om1Inst, "om1.example.com")), "3x20"},
		{hs("ozone_build_info", nl(dn1Inst, "dn1.example.com", "component", "hddsDatanode", "revision", "abc123", "version", "2.3.0-ZDU")), "1x20"},
		{hs("component_version_manager_metrics_software_version", nl(dn1Inst, "dn1.example.com")), dn1Software},
		{hs("ozone_build_info", nl(dn3Inst, "dn3.example.com", "component", "hddsDatanode", "revision", "0ld0ld", "version", "2.2.0")), "1x20"},
		{hs("component_version_manager_metrics_software_version", nl(dn3Inst, "dn3.example.com")), dn3Software},
	}
}

const zduVersions = "Versions: ozone_build_info and component_version_manager_metrics_* exist only on the ZDU branch " +
	"(HDDS-14496-zdu), where HDDS-17425 lives; released Ozone (2.x) and master export neither, and there a datanode older " +
	"than SCM cannot register at all."

func olderDatanodeRule() Rule {
	return Rule{
		Alert: "OzoneDatanodeOlderThanFinalizedSCM",
		Expr: "(\n" +
			"    component_version_manager_metrics_software_version\n" +
			"  * on (instance) group_left (component) ozone_build_info{component=\"hddsDatanode\"}\n" +
			")\n" +
			"< on () group_left ()\n" +
			"max(\n" +
			"    component_version_manager_metrics_apparent_version\n" +
			"  * on (instance) group_left () ozone_build_info{component=\"scm\"}\n" +
			")",
		For:    10 * time.Minute,
		Labels: native("HDDS-17425", "old-datanode-after-finalize"),
		Annotations: map[string]string{
			"summary": "HDDS-17425 suspected: datanode {{ $labels.hostname }} runs software older than the version SCM finalized",
			"description": "The datanode's component_version_manager_metrics_software_version is below the SCM's apparent (finalized) " +
				"version, yet it is still scraped, so still running and, on ZDU, still HEALTHY: SCM logs the 'older than SCM software " +
				"version … and SCM is finalized' + 'Invalid datanode in the cluster' ERROR pair on each of its heartbeats but does " +
				"not fence it, and `ozone admin upgrade status` counts it as finalized.\n\n" + zduVersions + "\n\n" +
				"Precision compared with the log detector (old-datanode-after-finalize): comparable for a datanode that exports the " +
				"gauge (the same versions SCM compares); it does not see whether SCM logged the ERROR pair, and a datanode on " +
				"pre-ZDU software exports no version gauge at all (see OzoneDatanodeWithoutVersionAfterFinalization).",
			"remediation": "Upgrade the software of {{ $labels.hostname }} to the SCM's version and restart it (it re-registers and " +
				"receives the finalize command), or decommission it: `ozone admin datanode decommission {{ $labels.hostname }}`. " +
				"Until then treat 'Cluster: FINALIZED' in `ozone admin upgrade status` as unreliable. `ozdoctor explain HDDS-17425` has the details.",
			"runbook_url": signatureRunbook("old-datanode-after-finalize"),
		},
		Panels: []Panel{
			{Title: "Software version by component (ZDU)", Legend: "{{component}} {{hostname}}",
				Expr: `component_version_manager_metrics_software_version * on (instance) group_left (component) ozone_build_info`},
			{Title: "SCM apparent version (ZDU)", Legend: "SCM {{hostname}}",
				Expr: `component_version_manager_metrics_apparent_version * on (instance) group_left () ozone_build_info{component="scm"}`},
		},
		Tests: []Case{
			{Name: "SCM finalized at 100, dn3 still runs 10", At: 15 * time.Minute,
				Series: zduSeries("100x20", "100x20", "100x20", "10x20"),
				Fire:   []map[string]string{nl(dn3Inst, "dn3.example.com", "component", "hddsDatanode")}},
			{Name: "near miss: SCM not finalized yet (apparent 10 < software 100), dn3 on 10 during a rolling upgrade", At: 15 * time.Minute,
				Series: zduSeries("10x20", "100x20", "100x20", "10x20")},
			{Name: "near miss: dn3 was upgraded right after finalization", At: 15 * time.Minute,
				Series: zduSeries("100x20", "100x20", "100x20", "10x3 100x16")},
		},
	}
}

func unversionedDatanodeRule() Rule {
	gcDN := func(inst, host string) Series {
		return Series{hs("jvm_metrics_gc_count", nl(inst, host, "context", "jvm", "processname", "HddsDatanode", "sessionid", "null")), "0+3x20"}
	}
	base := func(scmApparent string) []Series {
		return []Series{
			{hs("ozone_build_info", nl(scmInst, "scm1.example.com", "component", "scm", "revision", "abc123", "version", "2.3.0-ZDU")), "1x20"},
			{hs("component_version_manager_metrics_apparent_version", nl(scmInst, "scm1.example.com")), scmApparent},
			{hs("component_version_manager_metrics_software_version", nl(scmInst, "scm1.example.com")), "100x20"},
			gcDN(dn1Inst, "dn1.example.com"),
			{hs("component_version_manager_metrics_software_version", nl(dn1Inst, "dn1.example.com")), "100x20"},
			gcDN(dn3Inst, "dn3.example.com"),
		}
	}
	return Rule{
		Alert: "OzoneDatanodeWithoutVersionAfterFinalization",
		Expr: "group by (instance, job, hostname) (jvm_metrics_gc_count{processname=\"HddsDatanode\"})\n" +
			"unless on (instance)\n" +
			"component_version_manager_metrics_software_version\n" +
			"and on ()\n" +
			"(\n" +
			"    max(component_version_manager_metrics_apparent_version * on (instance) group_left () ozone_build_info{component=\"scm\"})\n" +
			"  >= on ()\n" +
			"    max(component_version_manager_metrics_software_version * on (instance) group_left () ozone_build_info{component=\"scm\"})\n" +
			")",
		For:    10 * time.Minute,
		Labels: native("HDDS-17425", "old-datanode-after-finalize"),
		Annotations: map[string]string{
			"summary": "HDDS-17425 suspected: datanode {{ $labels.hostname }} exports no version while a ZDU SCM is finalized",
			"description": "A running datanode (jvm_metrics_gc_count{processname=\"HddsDatanode\"}) exports no " +
				"component_version_manager_metrics_software_version while the SCM runs ZDU software and has finalized " +
				"(its apparent version equals its software version): the datanode runs software from before the ZDU branch, " +
				"older than SCM's, and is still in the cluster.\n\n" + zduVersions + "\n\n" +
				"Precision compared with the log detector (old-datanode-after-finalize): lower. A datanode whose /prom is " +
				"scraped partly, or an exporter that drops the gauge, looks the same; the log detector sees the ERROR pair " +
				"SCM logs for that very datanode.",
			"remediation": "Check the version of {{ $labels.hostname }} (its STARTUP_MSG `version =` line, or `ozone version` there). " +
				"Upgrade it to the SCM's release and restart it, or decommission it: `ozone admin datanode decommission {{ $labels.hostname }}`.",
			"runbook_url": signatureRunbook("old-datanode-after-finalize"),
		},
		Panels: []Panel{{Title: "Datanodes without a version gauge (ZDU)", Legend: "{{hostname}}",
			Expr: `group by (instance, hostname) (jvm_metrics_gc_count{processname="HddsDatanode"}) unless on (instance) component_version_manager_metrics_software_version`}},
		Tests: []Case{
			{Name: "SCM finalized, dn3 exports no version gauge", At: 15 * time.Minute,
				Series: base("100x20"),
				Fire:   []map[string]string{nl(dn3Inst, "dn3.example.com")}},
			{Name: "near miss: SCM not finalized (rolling upgrade in progress)", At: 15 * time.Minute,
				Series: base("10x20")},
		},
	}
}

func forceDeleteRule() Rule {
	counter := func(inst, host string) string {
		return hs("storage_container_metrics_container_force_delete", nl(inst, host, "context", "dfs"))
	}
	return Rule{
		Alert:  "OzoneDatanodeForceDeletedContainer",
		Expr:   `increase(storage_container_metrics_container_force_delete[15m]) > 0`,
		Labels: native("HDDS-16809", "empty-quasi-closed-delete"),
		Annotations: map[string]string{
			"summary": "HDDS-16809 possible: datanode {{ $labels.hostname }} force-deleted a container replica",
			"description": "The datanode executed a forced container delete (storage_container_metrics_container_force_delete " +
				"grew), which skips the non-empty check. With HDDS-16809, SCM deleted a QUASI_CLOSED container as empty while " +
				"this datanode was away, and force-deletes its non-empty replica when it returns: possibly the only copy of the data.\n\n" +
				"Versions: the counter is in the datanode's ContainerMetrics on current releases; the defect needs SCM's " +
				"empty QUASI_CLOSED deletion (HDDS-14684, ozone-2.2.0 and later).\n\n" +
				"Precision compared with the log detector (empty-quasi-closed-delete): low. Every forced delete counts, also the " +
				"intended ones (hdds.scm.unknown-container.action=DELETE, EC orphan clean-up, stale replicas of a CLOSED " +
				"container); the log detector matches SCM's 'Deleting empty QUASI_CLOSED container' line (max replica BCSID " +
				"below the container's) with the later forced delete of the same container and its BCSID.",
			"remediation": "Do not restart, reformat or clean up {{ $labels.hostname }} yet. Find the container in its log " +
				"('Marked container DELETED from QUASI_CLOSED: … non-empty') and in the SCM log ('Deleting empty QUASI_CLOSED " +
				"container #N (container BCSID=B, max replica BCSID=M)' with M < B); copy what remains of it from the datanode's " +
				"volumes; stop ReplicationManager (`ozone admin replicationmanager stop`) while datanodes with QUASI_CLOSED replicas " +
				"are down. `ozdoctor analyze` on the SCM and datanode logs confirms it.",
			"runbook_url": signatureRunbook("empty-quasi-closed-delete"),
		},
		Panels: []Panel{
			{Title: "Forced container deletes on datanodes", Expr: `increase(storage_container_metrics_container_force_delete[$__rate_interval])`, Legend: "{{hostname}}"},
			{Title: "SCM containers QUASI_CLOSED / DELETING / DELETED", Expr: `scm_container_metrics_quasi_closed_containers`, Legend: "quasi_closed {{hostname}}"},
			{Title: "SCM containers QUASI_CLOSED / DELETING / DELETED", Expr: `scm_container_metrics_deleting_containers`, Legend: "deleting {{hostname}}"},
			{Title: "SCM containers QUASI_CLOSED / DELETING / DELETED", Expr: `scm_container_metrics_deleted_containers`, Legend: "deleted {{hostname}}"},
		},
		Tests: []Case{
			{Name: "dn3 force-deletes one replica", At: 5 * time.Minute,
				Series: []Series{{counter(dn3Inst, "dn3.example.com"), "0 0 0 1x10"}, {counter(dn1Inst, "dn1.example.com"), "0x13"}},
				Fire:   []map[string]string{nl(dn3Inst, "dn3.example.com", "context", "dfs")}},
			{Name: "near miss: the counter is flat", At: 5 * time.Minute,
				Series: []Series{{counter(dn3Inst, "dn3.example.com"), "2x13"}}},
			{Name: "near miss: a datanode restart resets the counter", At: 5 * time.Minute,
				Series: []Series{{counter(dn3Inst, "dn3.example.com"), "3 3 3 0x10"}}},
			{Name: "near miss: a forced delete long ago", At: 40 * time.Minute,
				Series: []Series{{counter(dn3Inst, "dn3.example.com"), "0 0 0 1x40"}}},
		},
	}
}

func closePipelineStuckRule() Rule {
	queue := func(inst, host, command string) string {
		return hs("command_handler_metrics_queue_waiting_task_count", nl(inst, host, "context", "CommandHandlerMetrics", "command", command))
	}
	return Rule{
		Alert:  "OzoneDatanodeClosePipelineStuck",
		Expr:   `min_over_time(command_handler_metrics_queue_waiting_task_count{command="closePipelineCommand"}[30m]) >= 1`,
		For:    5 * time.Minute,
		Labels: native("HDDS-17674", "raft-division-stuck-closing"),
		Annotations: map[string]string{
			"summary": "HDDS-17674 suspected: datanode {{ $labels.hostname }} has had a close-pipeline command waiting for 30 minutes",
			"description": "command_handler_metrics_queue_waiting_task_count{command=\"closePipelineCommand\"} has not dropped below 1 " +
				"for 30 minutes: the datanode's ClosePipeline thread never finishes. With HDDS-17674 it is blocked in Ratis' " +
				"groupRemove, waiting for a Raft division that the datanode closed on its own Ratis thread after a write-chunk " +
				"timeout and that hangs in CLOSING; close-container commands for its containers then fail until a restart.\n\n" +
				"Versions: CommandHandlerMetrics are exported by datanodes of current releases; the defect needs HDDS-15443 " +
				"(master after ozone-2.2.0).\n\n" +
				"Precision compared with the log detector (raft-division-stuck-closing): medium. Any close-pipeline command " +
				"blocked for 30 minutes fires (for example a hung disk under the Raft log); the log detector sees the write " +
				"timeout, the close on the Ratis thread, the division in CLOSING and the repeated close-container failures, " +
				"and names the Raft group and containers.",
			"remediation": "Confirm with `ozone admin container list --state CLOSING` and `jstack` on {{ $labels.hostname }} " +
				"(a thread in RaftServerImpl.groupRemove waiting in CountDownLatch.await), then restart the datanode: " +
				"`ozone --daemon stop datanode` and `ozone --daemon start datanode`. Nothing short of a restart unblocks the division. " +
				"`ozdoctor analyze` on its log names the Raft group and containers.",
			"runbook_url": DefaultOptions().RunbookBase + "detectors/divisionclosing/doc.go",
		},
		Panels: []Panel{
			{Title: "Datanode close-pipeline commands waiting", Legend: "{{hostname}}",
				Expr: `command_handler_metrics_queue_waiting_task_count{command="closePipelineCommand"}`},
			{Title: "Datanode close-container command invocations", Legend: "{{hostname}}",
				Expr: `command_handler_metrics_invocation_count{command="closeContainerCommand"}`},
		},
		Tests: []Case{
			{Name: "one close-pipeline command waits for 40 minutes", At: 45 * time.Minute,
				Series: []Series{
					{queue(dn3Inst, "dn3.example.com", "closePipelineCommand"), "0 0 1x45"},
					{queue(dn1Inst, "dn1.example.com", "closePipelineCommand"), "0x47"},
				},
				Fire: []map[string]string{nl(dn3Inst, "dn3.example.com", "context", "CommandHandlerMetrics", "command", "closePipelineCommand")}},
			{Name: "near miss: a slow close that finished after 10 minutes", At: 45 * time.Minute,
				Series: []Series{{queue(dn3Inst, "dn3.example.com", "closePipelineCommand"), "0 0 1x10 0x35"}}},
			{Name: "near miss: close-container commands queued (not the pipeline)", At: 45 * time.Minute,
				Series: []Series{{queue(dn3Inst, "dn3.example.com", "closeContainerCommand"), "2x47"}}},
		},
	}
}

func closingAfterWriteFailureRule() Rule {
	closing := hs("scm_container_metrics_closing_containers", nl(scmInst, "scm1.example.com"))
	fails := hs("csm_metrics_num_write_state_machine_fails", nl(dn3Inst, "dn3.example.com", "context", "dfs", "raftgroupid", "group-4C3FA0E1B2D9"))
	return Rule{
		Alert: "OzoneContainersStuckClosingAfterDivisionClose",
		Expr: "min_over_time(scm_container_metrics_closing_containers[30m]) > 0\n" +
			"and on ()\n" +
			"(sum(increase(csm_metrics_num_write_state_machine_fails[6h])) > 0)",
		Labels: native("HDDS-17674", "raft-division-stuck-closing"),
		Annotations: map[string]string{
			"summary": "HDDS-17674 suspected: containers stay CLOSING on SCM {{ $labels.hostname }} after a datanode closed a Raft division on a write failure",
			"description": "SCM has had containers in CLOSING for 30 minutes (scm_container_metrics_closing_containers never 0) and " +
				"in the last 6 hours a datanode's ContainerStateMachine closed its Raft server after a failed write " +
				"(csm_metrics_num_write_state_machine_fails grew). With HDDS-17674 that close hangs in CLOSING and the " +
				"containers of the group can be neither closed nor quasi-closed until the datanode restarts.\n\n" +
				"Versions: both metrics exist on current releases; the close on the Ratis thread needs HDDS-15443 (master after " +
				"ozone-2.2.0). Ratis may unregister the group's CSMMetrics when the close starts, so the counter's series can " +
				"vanish right after it grows.\n\n" +
				"Precision compared with the log detector (raft-division-stuck-closing): medium-low. The two facts are joined " +
				"cluster-wide, not by container or Raft group: an unrelated slow close during those 6 hours also fires; the log " +
				"detector ties the containers, the group and the datanode together.",
			"remediation": "Find the datanode and group: `csm_metrics_num_write_state_machine_fails` by hostname and raftgroupid; " +
				"confirm with `ozone admin container list --state CLOSING` and `ozone admin container info <id>` (the replica on that " +
				"datanode stays CLOSING); restart that datanode. `ozdoctor explain HDDS-17674` has the details.",
			"runbook_url": DefaultOptions().RunbookBase + "detectors/divisionclosing/doc.go",
		},
		Panels: []Panel{
			{Title: "SCM containers CLOSING", Expr: `scm_container_metrics_closing_containers`, Legend: "{{hostname}}"},
			{Title: "Raft divisions closed after a failed write", Legend: "{{hostname}} {{raftgroupid}}",
				Expr: `increase(csm_metrics_num_write_state_machine_fails[$__rate_interval])`},
		},
		Tests: []Case{
			{Name: "a division closed at 3m, 2 containers CLOSING for 40 minutes", At: 40 * time.Minute,
				Series: []Series{{closing, "2x45"}, {fails, "0 0 0 1x42"}},
				Fire:   []map[string]string{nl(scmInst, "scm1.example.com")}},
			{Name: "near miss: containers CLOSING for long, but no write failure closed a division", At: 40 * time.Minute,
				Series: []Series{{closing, "2x45"}, {fails, "0x45"}}},
			{Name: "near miss: a division closed, the containers closed within 10 minutes", At: 40 * time.Minute,
				Series: []Series{{closing, "0 0 0 2x10 0x32"}, {fails, "0 0 0 1x42"}}},
		},
	}
}

func omVoterRule() Rule {
	rpc := func(inst, follower, values string) Series {
		return Series{hs("ratis_log_appender_follower_rpc_response_time",
			nl(inst, "", "exported_instance", "omNode-1", "group", "group-C5BA1605619E", "follower", follower)), values}
	}
	leader := func(inst, host, node, v string) Series {
		return Series{hs("omha_metrics_ozone_manager_ha_leader_state", nl(inst, host, "nodeid", node)), v}
	}
	return Rule{
		Alert: "OzoneOMRingVoterNotResponding",
		Expr: "max by (instance, job, group, follower) (ratis_log_appender_follower_rpc_response_time) > 120000\n" +
			"and on (instance)\n" +
			"(omha_metrics_ozone_manager_ha_leader_state == 1)",
		For:    5 * time.Minute,
		Labels: native("HDDS-16839", "om-bootstrap-exit-voter"),
		Annotations: map[string]string{
			"summary": "OM ring voter {{ $labels.follower }} has not answered the leader {{ $labels.instance }} for over 2 minutes",
			"description": "On the OM leader, ratis_log_appender_follower_rpc_response_time (milliseconds since the follower's last " +
				"reply) for {{ $labels.follower }} in {{ $labels.group }} has been above 2 minutes for 5 minutes: the ring counts a " +
				"voter that is down, and one more failure can cost it its majority. HDDS-16839 leaves exactly this behind: an OM " +
				"started with --bootstrap exits on a failed reply while the ring commits it as a voter.\n\n" +
				"Versions: Ratis log-appender metrics are on every OM HA release's /prom (Dropwizard section); " +
				"omha_metrics_ozone_manager_ha_leader_state marks the leader.\n\n" +
				"Precision compared with the log detector (om-bootstrap-exit-voter): low for the defect, exact for its " +
				"consequence. Any OM voter that is down (stopped for maintenance, crashed) fires; only the OM logs show that " +
				"the node exited after 'Failed to Bootstrap OM.' while the ring added it.",
			"remediation": "Check whether the OM {{ $labels.follower }} runs (Prometheus `up` for its :9874 endpoint; " +
				"`ozone admin om roles` lists it as FOLLOWER even when it is gone). If it exited after `ozone om --bootstrap`, start " +
				"it normally without --bootstrap (`ozone --daemon start om`), or decommission it with `ozone admin om decommission`. " +
				"`ozdoctor analyze` on the OM logs and .out files confirms HDDS-16839.",
			"runbook_url": DefaultOptions().RunbookBase + "detectors/bootstrapexit/doc.go",
		},
		Panels: []Panel{
			{Title: "OM leader: time since each follower's last reply", Legend: "{{instance}} → {{follower}}", Unit: "ms",
				Expr: `ratis_log_appender_follower_rpc_response_time and on (instance) (omha_metrics_ozone_manager_ha_leader_state == 1)`},
			{Title: "OM leader state", Expr: `omha_metrics_ozone_manager_ha_leader_state`, Legend: "{{nodeid}}"},
		},
		Tests: []Case{
			{Name: "the bootstrapped voter never answers the leader", At: 12 * time.Minute,
				Series: []Series{
					leader(om1Inst, "om1.example.com", "omNode-1", "1x15"),
					leader(om2Inst, "om2.example.com", "omNode-2", "0x15"),
					rpc(om1Inst, "omNode-2", "200x15"),
					rpc(om1Inst, "omNode-bootstrap-1", "1000+60000x15"),
				},
				Fire: []map[string]string{{"instance": om1Inst, "job": job, "group": "group-C5BA1605619E", "follower": "omNode-bootstrap-1"}}},
			{Name: "near miss: every follower answers", At: 12 * time.Minute,
				Series: []Series{
					leader(om1Inst, "om1.example.com", "omNode-1", "1x15"),
					rpc(om1Inst, "omNode-2", "200x15"),
					rpc(om1Inst, "omNode-bootstrap-1", "300x15"),
				}},
			{Name: "near miss: a stale appender gauge on an OM that is no longer leader", At: 12 * time.Minute,
				Series: []Series{
					leader(om1Inst, "om1.example.com", "omNode-1", "0x15"),
					rpc(om1Inst, "omNode-bootstrap-1", "1000+60000x15"),
				}},
			{Name: "near miss: a follower restarted and answers again within 3 minutes", At: 12 * time.Minute,
				Series: []Series{
					leader(om1Inst, "om1.example.com", "omNode-1", "1x15"),
					rpc(om1Inst, "omNode-2", "200 60000 120000 180000 300x12"),
				}},
		},
	}
}
