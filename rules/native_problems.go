package rules

import (
	"strings"
	"time"
)

// Native rules for the operational problems (not defects) that Ozone's own
// /prom shows: the metric names and their versions are those of the
// catalogue's research notes (operational-problems.md §1 and §2.1–§2.8,
// names computed with Ozone's PrometheusMetricsSink normalisation), the
// label sets those the Hadoop metrics2 sink writes for each source:
//
//   - every record carries hostname (injected by the metrics system);
//   - context only when the source sets one: @Metrics(context = "ozone")
//     on a source whose registry is snapshotted (VolumeHealthMetrics,
//     SCMNodeMetrics), "jvm" for JvmMetrics, "Netty metrics" for
//     NettyMetrics (setContext); SafeModeMetrics (no @Metrics),
//     SCMPipelineMetrics and ReplicationManagerMetrics (their getMetrics
//     does not snapshot the registry) write no context label;
//   - JvmMetrics adds processname and sessionid.
//
// job and instance are the scrape's target labels, as in native.go.

// problem labels a native rule of an operational problem: defect is the
// problem key the log signature reports (its `problem:`), detector the
// signature's id. A problem without a signature yet gets no detector label
// at all rather than detector="": Prometheus drops empty labels from an
// alert, so an expected detector="" in the promtool cases would never match,
// and Grafana would carry an empty label that Alertmanager routes cannot
// tell from a missing one.
func problem(key, detector, severity string) map[string]string {
	m := map[string]string{"severity": severity, "defect": key, "source": "ozone-native"}
	if detector != "" {
		m["detector"] = detector
	}
	return m
}

// signatureRunbook is the runbook of a signature-backed rule: the
// signature's file in the repository.
func signatureRunbook(id string) string {
	return DefaultOptions().RunbookBase + "signatures/" + id + "/" + id + ".yaml"
}

// problemGroups are the groups of native rules on operational problems.
func problemGroups() []Group {
	return []Group{
		{Name: "ozone-native-problems-scm", Rules: []Rule{
			scmSafeModeStuckRule(), scmVolumeFailuresRule(), scmNonWritableNodesRule(),
			pipelineCreationFailingRule(), missingContainersRule(), unhealthyContainersRule(),
		}},
		{Name: "ozone-native-problems-datanode", Rules: []Rule{datanodeVolumeFailedRule()}},
		{Name: "ozone-native-problems-jvm", Rules: []Rule{heapNearlyFullRule(), nettyDirectMemoryRule()}},
	}
}

func datanodeVolumeFailedRule() Rule {
	gauge := func(inst, host, kind, metric string) string {
		return hs("volume_health_metrics_"+kind+"_volume_"+metric, nl(inst, host, "context", "ozone"))
	}
	healthy := func(inst, host string, data, meta, db string) []Series {
		return []Series{
			{gauge(inst, host, "data", "num_failed_volumes"), data},
			{gauge(inst, host, "meta", "num_failed_volumes"), meta},
			{gauge(inst, host, "db", "num_failed_volumes"), db},
		}
	}
	fire := func(kind string) map[string]string {
		return nl(dn3Inst, "dn3.example.com", "context", "ozone", "volume_type", kind)
	}
	return Rule{
		Alert: "OzoneDatanodeVolumeFailed",
		Expr: "label_replace(volume_health_metrics_data_volume_num_failed_volumes > 0, \"volume_type\", \"data\", \"\", \"\")\n" +
			"or\n" +
			"label_replace(volume_health_metrics_meta_volume_num_failed_volumes > 0, \"volume_type\", \"meta\", \"\", \"\")\n" +
			"or\n" +
			"label_replace(volume_health_metrics_db_volume_num_failed_volumes > 0, \"volume_type\", \"db\", \"\", \"\")",
		Labels: problem("dn-volume-failure", "dn-volume-failed", "warning"),
		Annotations: map[string]string{
			"summary": "Datanode {{ $labels.hostname }} has a FAILED {{ $labels.volume_type }} volume",
			"description": "volume_health_metrics_{{ $labels.volume_type }}_volume_num_failed_volumes is above 0 on datanode " +
				"{{ $labels.instance }}: its volume check marked a {{ $labels.volume_type }} volume FAILED (directory check or " +
				"the read/write/sync/read-back test failed past the tolerated count, or the check timed out). Its containers are " +
				"dropped from the datanode and SCM re-replicates them from the other replicas; a FAILED volume is never re-checked " +
				"until the datanode restarts. If more volumes fail than hdds.datanode.failed.{data,metadata,db}.volumes.tolerated " +
				"allows, the datanode shuts itself down.\n\n" +
				"Versions: VolumeHealthMetrics-<TYPE> (data, meta, db) is exported by datanodes of ozone-2.1.0 and later " +
				"(HDDS-13093); earlier datanodes export no such gauge and this rule stays silent for them.\n\n" +
				"Precision compared with the log signature (dn-volume-failed): lower. The gauge counts FAILED volumes, refreshed " +
				"once per metrics period; it names neither the volume's directory nor the cause (the log's 'Volume … failed health " +
				"check' reason), and a datanode that shut down for too many bad volumes is no longer scraped, so the alert " +
				"resolves exactly when the problem turns critical (watch `up` for it). The log signature names each volume, " +
				"escalates to critical on 'DatanodeStateMachine Shutdown due to too many bad volumes', and tells the " +
				"HDDS-12239 disk-full look-alike apart.",
			"remediation": "List the datanodes with failed volumes: `ozone admin datanode list --nodes-with-failed-volumes` " +
				"(ozone-2.2.0; earlier `ozone admin datanode list --json` or the datanode web UI's Volume Information). On " +
				"{{ $labels.hostname }} check the disk (`dmesg`, SMART) and replace it, then restart the datanode (a FAILED volume " +
				"is only re-checked at start-up). Watch `ozone admin container report` until under-replicated returns to 0. " +
				"`ozdoctor analyze` on its log names the volume and the cause.",
			"runbook_url": signatureRunbook("dn-volume-failed"),
		},
		Panels: []Panel{
			{Title: "Datanode failed volumes", Expr: `volume_health_metrics_data_volume_num_failed_volumes`, Legend: "data {{hostname}}"},
			{Title: "Datanode failed volumes", Expr: `volume_health_metrics_meta_volume_num_failed_volumes`, Legend: "meta {{hostname}}"},
			{Title: "Datanode failed volumes", Expr: `volume_health_metrics_db_volume_num_failed_volumes`, Legend: "db {{hostname}}"},
			{Title: "Datanode healthy data volumes", Expr: `volume_health_metrics_data_volume_num_healthy_volumes`, Legend: "healthy {{hostname}}"},
			{Title: "Datanode healthy data volumes", Expr: `volume_health_metrics_data_volume_total_volumes`, Legend: "total {{hostname}}"},
		},
		Tests: []Case{
			{Name: "a data volume of dn3 fails at 3m", At: 5 * time.Minute,
				Series: append(healthy(dn3Inst, "dn3.example.com", "0 0 0 1x10", "0x13", "0x13"),
					healthy(dn1Inst, "dn1.example.com", "0x13", "0x13", "0x13")...),
				Fire: []map[string]string{fire("data")}},
			{Name: "the metadata and the DB volume of dn3 fail", At: 5 * time.Minute,
				Series: healthy(dn3Inst, "dn3.example.com", "0x13", "0 0 1x11", "0 0 0 1x10"),
				Fire:   []map[string]string{fire("meta"), fire("db")}},
			{Name: "near miss: a volume is not healthy (not formatted yet) but none FAILED", At: 5 * time.Minute,
				Series: append(healthy(dn3Inst, "dn3.example.com", "0x13", "0x13", "0x13"),
					Series{gauge(dn3Inst, "dn3.example.com", "data", "num_healthy_volumes"), "5x13"},
					Series{gauge(dn3Inst, "dn3.example.com", "data", "total_volumes"), "6x13"})},
			{Name: "near miss: the disk was replaced and the datanode restarted (back to 0)", At: 10 * time.Minute,
				Series: healthy(dn3Inst, "dn3.example.com", "0 0 1x5 _ _ 0x5", "0x13", "0x13")},
		},
	}
}

func scmVolumeFailuresRule() Rule {
	scm := func(metric string) string { return hs(metric, nl(scmInst, "scm1.example.com", "context", "ozone")) }
	return Rule{
		Alert:  "OzoneSCMDatanodesWithFailedVolumes",
		Expr:   `scm_node_manager_volume_failures > 0`,
		For:    5 * time.Minute,
		Labels: problem("dn-volume-failure", "dn-volume-failed", "warning"),
		Annotations: map[string]string{
			"summary": "SCM {{ $labels.hostname }} reports datanodes with failed volumes",
			"description": "scm_node_manager_volume_failures (the number of datanodes that reported at least one failed volume) " +
				"has been above 0 on SCM {{ $labels.instance }} for 5 minutes: their containers on the failed volumes are gone " +
				"and SCM re-replicates them.\n\n" +
				"Versions: the gauge is exported by SCM of ozone-2.2.0 and later (HDDS-14990); earlier SCMs do not export it " +
				"(use OzoneDatanodeVolumeFailed on the datanodes, 2.1.0 and later).\n\n" +
				"Precision compared with the log signature (dn-volume-failed): lower. One cluster-wide count from the datanodes' " +
				"node reports: it names neither the datanode nor the volume nor the cause, and a datanode that shut down for too " +
				"many bad volumes leaves the count when it goes DEAD. The log signature names each datanode and volume and " +
				"escalates on the shutdown.",
			"remediation": "Find the datanodes: `ozone admin datanode list --nodes-with-failed-volumes`; on each, check the disk " +
				"(`dmesg`, SMART), replace it and restart the datanode. Watch `ozone admin container report` until " +
				"under-replicated returns to 0. `ozdoctor analyze` on the datanode logs names the volumes and causes.",
			"runbook_url": signatureRunbook("dn-volume-failed"),
		},
		Panels: []Panel{
			{Title: "SCM datanodes with failed volumes", Expr: `scm_node_manager_volume_failures`, Legend: "{{hostname}}"},
		},
		Tests: []Case{
			{Name: "one datanode reports a failed volume for 10 minutes", At: 12 * time.Minute,
				Series: []Series{{scm("scm_node_manager_volume_failures"), "0 0 1x15"}},
				Fire:   []map[string]string{nl(scmInst, "scm1.example.com", "context", "ozone")}},
			{Name: "near miss: the count drops after 3 minutes (the datanode restarted with a new disk)", At: 12 * time.Minute,
				Series: []Series{{scm("scm_node_manager_volume_failures"), "0 0 1x3 0x12"}}},
			{Name: "near miss: a whole datanode is DEAD, no volume failed", At: 12 * time.Minute,
				Series: []Series{
					{scm("scm_node_manager_volume_failures"), "0x17"},
					{scm("scm_node_manager_in_service_dead_nodes"), "0 0 1x15"},
				}},
		},
	}
}

func scmSafeModeStuckRule() Rule {
	// SafeModeMetrics has no @Metrics annotation: no context label.
	sm := func(metric string) string { return hs(metric, nl(scmInst, "scm1.example.com")) }
	return Rule{
		Alert:  "OzoneSCMStuckInSafeMode",
		Expr:   `safe_mode_metrics_scm_in_safe_mode == 1`,
		For:    15 * time.Minute,
		Labels: problem("scm-safe-mode-stuck", "scm-safe-mode-stuck", "warning"),
		Annotations: map[string]string{
			"summary": "SCM {{ $labels.hostname }} has been in safe mode for more than 15 minutes",
			"description": "safe_mode_metrics_scm_in_safe_mode has been 1 on SCM {{ $labels.instance }} for 15 minutes: a safe-mode " +
				"rule (registered datanodes, healthy pipelines, pipelines with one reported replica, containers with reported " +
				"replicas, state machine ready) is not satisfied. While in safe mode SCM refuses block allocation, so writes " +
				"fail with SCM_IN_SAFE_MODE ('SafeModePrecheck failed for allocateBlock').\n\n" +
				"Versions: SafeModeMetrics (with the per-rule counts and thresholds behind the dashboard panels) is exported by " +
				"SCM on the releases the upstream 'Ozone - SCM Safemode' dashboard covers (shipped at ozone-2.2.0); SCM sets it " +
				"only while hdds.scm.safemode.enabled is true.\n\n" +
				"Precision compared with the log signature (scm-safe-mode-stuck): lower. The gauge says in or out only; the " +
				"log's periodic 'SCM SafeMode Status' lines (2.2.0) and the 'SCM in safe mode. …' lines name the waiting rule " +
				"and its counts. A start of a very large cluster whose container rule legitimately needs more than 15 minutes " +
				"fires too; a gap in the SCM's scrapes (restart) resets the 15 minutes.",
			"remediation": "Run `ozone admin safemode status --verbose` (add `--all` in HA, 2.2.0) to see the waiting rule; " +
				"fix it: start the missing datanodes (check their logs for 'Unable to communicate to SCM server'), check " +
				"pipelines with `ozone admin pipeline list`; `ozone admin safemode wait -t <seconds>` waits for the exit. Only as " +
				"a last resort: `ozone admin safemode exit`. In HA a lagging follower may stay in safe mode (HDDS-13842).",
			"runbook_url": signatureRunbook("scm-safe-mode-stuck"),
		},
		Panels: []Panel{
			{Title: "SCM in safe mode", Expr: `safe_mode_metrics_scm_in_safe_mode`, Legend: "{{hostname}}"},
			{Title: "SCM safe mode: registered datanodes", Expr: `safe_mode_metrics_current_registered_datanodes_count`, Legend: "registered {{hostname}}"},
			{Title: "SCM safe mode: registered datanodes", Expr: `safe_mode_metrics_num_required_datanodes_threshold`, Legend: "required {{hostname}}"},
			{Title: "SCM safe mode: healthy pipelines", Expr: `safe_mode_metrics_current_healthy_pipelines_count`, Legend: "healthy {{hostname}}"},
			{Title: "SCM safe mode: healthy pipelines", Expr: `safe_mode_metrics_num_healthy_pipelines_threshold`, Legend: "required {{hostname}}"},
		},
		Tests: []Case{
			{Name: "SCM waits for a third datanode for 20 minutes", At: 20 * time.Minute,
				Series: []Series{
					{sm("safe_mode_metrics_scm_in_safe_mode"), "1x25"},
					{sm("safe_mode_metrics_current_registered_datanodes_count"), "2x25"},
					{sm("safe_mode_metrics_num_required_datanodes_threshold"), "3x25"},
				},
				Fire: []map[string]string{nl(scmInst, "scm1.example.com")}},
			{Name: "near miss: a normal start, safe mode for 5 minutes", At: 20 * time.Minute,
				Series: []Series{{sm("safe_mode_metrics_scm_in_safe_mode"), "1x5 0x20"}}},
			{Name: "near miss: a slow start that leaves safe mode after 14 minutes", At: 20 * time.Minute,
				Series: []Series{{sm("safe_mode_metrics_scm_in_safe_mode"), "1x14 0x11"}}},
		},
	}
}

func scmNonWritableNodesRule() Rule {
	scm := func(metric string) string { return hs(metric, nl(scmInst, "scm1.example.com", "context", "ozone")) }
	return Rule{
		Alert:  "OzoneSCMNonWritableDatanodes",
		Expr:   `scm_node_manager_non_writable_nodes > 0`,
		For:    15 * time.Minute,
		Labels: problem("out-of-space", "dn-out-of-space", "warning"),
		Annotations: map[string]string{
			"summary": "SCM {{ $labels.hostname }} counts datanodes without space for new writes",
			"description": "scm_node_manager_non_writable_nodes has been above 0 on SCM {{ $labels.instance }} for 15 minutes: " +
				"SCM counts datanodes whose reported free space (data or metadata volumes) is too small for a new container or " +
				"block. Writes placed on them fail with DISK_OUT_OF_SPACE, and when too few datanodes have room SCM cannot " +
				"place new containers or pipelines ('Unable to find enough nodes that meet the space requirement').\n\n" +
				"Versions: the gauge is exported by SCM of ozone-2.2.0 and later. The datanodes' own VolumeInfoMetrics put " +
				"the volume's directory into the metric name (volume_info_metrics_<dir>_ozone_available), so no generic rule " +
				"can use them; earlier SCMs have no count of full datanodes.\n\n" +
				"Precision compared with the log signature (dn-out-of-space): lower. One cluster-wide count: it names neither " +
				"the datanode nor the volume, and does not tell one full datanode from a cluster out of space; the log " +
				"signature sees the rejected writes per datanode and volume and SCM's placement failures.",
			"remediation": "Find the full datanodes: `ozone admin datanode usageinfo --most-used --count 10` (or " +
				"`--address <dn>`), `ozone admin datanode list --json`. Add disks or datanodes, then balance: `ozone admin " +
				"containerbalancer start` (across datanodes) or `ozone admin datanode diskbalancer start` (within one, 2.2.0). " +
				"Free space by deleting data (check the block-deletion backlog), and check " +
				"hdds.datanode.volume.min.free.space(.percent).",
			"runbook_url": signatureRunbook("dn-out-of-space"),
		},
		Panels: []Panel{
			{Title: "SCM non-writable datanodes", Expr: `scm_node_manager_non_writable_nodes`, Legend: "{{hostname}}"},
		},
		Tests: []Case{
			{Name: "two datanodes stay full for 20 minutes", At: 20 * time.Minute,
				Series: []Series{{scm("scm_node_manager_non_writable_nodes"), "0 0 2x25"}},
				Fire:   []map[string]string{nl(scmInst, "scm1.example.com", "context", "ozone")}},
			{Name: "near miss: one datanode is full for 5 minutes, then its container closes and space is freed", At: 20 * time.Minute,
				Series: []Series{{scm("scm_node_manager_non_writable_nodes"), "0 0 1x5 0x20"}}},
		},
	}
}

func pipelineCreationFailingRule() Rule {
	// SCMPipelineMetrics.getMetrics does not snapshot its registry: no context label.
	pm := func(metric string) string { return hs(metric, nl(scmInst, "scm1.example.com")) }
	series := func(failed, destroyed, created string) []Series {
		return []Series{
			{pm("scm_pipeline_metrics_num_pipeline_creation_failed"), failed},
			{pm("scm_pipeline_metrics_num_pipeline_destroyed"), destroyed},
			{pm("scm_pipeline_metrics_num_pipeline_created"), created},
		}
	}
	return Rule{
		Alert: "OzoneSCMPipelineCreationFailing",
		// The failure counter alone is not enough: PipelineManagerImpl counts
		// every failed create, also the background creator's when every
		// datanode already has its pipeline limit (a healthy, saturated
		// cluster fails on each run). The rule asks for failures while
		// pipelines were lost and not replaced.
		Expr: "increase(scm_pipeline_metrics_num_pipeline_creation_failed[30m]) > 0\n" +
			"and on (instance)\n" +
			"(\n" +
			"    increase(scm_pipeline_metrics_num_pipeline_destroyed[6h])\n" +
			"  - increase(scm_pipeline_metrics_num_pipeline_created[6h])\n" +
			") >= 1",
		For:    15 * time.Minute,
		Labels: problem("no-writable-pipeline", "no-writable-pipeline", "warning"),
		Annotations: map[string]string{
			"summary": "SCM {{ $labels.hostname }} keeps failing to create pipelines after pipelines were closed",
			"description": "On SCM {{ $labels.instance }} pipeline creation failed in the last 30 minutes " +
				"(scm_pipeline_metrics_num_pipeline_creation_failed grew) and in the last 6 hours more pipelines were destroyed " +
				"than created (…_num_pipeline_destroyed minus …_num_pipeline_created), for 15 minutes: closed pipelines are not " +
				"replaced. When no writable pipeline is left, block allocation fails ('Unable to allocate a block' on SCM, " +
				"INTERNAL_ERROR 'Unable to allocate a container to the block' on clients). The usual causes are datanodes lost, " +
				"full or with failed volumes; during upgrade finalization creation is frozen on purpose.\n\n" +
				"Versions: SCMPipelineMetrics' counters are exported by SCM on every release the notes cover; there is no " +
				"open-pipeline gauge.\n\n" +
				"Precision compared with the logs (signature no-writable-pipeline): the counters are cluster-wide " +
				"and count attempts, not pipelines: a cluster that lost pipelines for good (fewer datanodes after a " +
				"decommission) and is saturated also fires, and a loss older than 6 hours is no longer seen. The SCM log says " +
				"why each creation failed and which replication config has no pipeline.",
			"remediation": "Check the open pipelines: `ozone admin pipeline list --state OPEN --json`; the healthy in-service " +
				"datanodes: `ozone admin datanode list` (RATIS/THREE needs at least 3); space: `ozone admin datanode usageinfo " +
				"--most-used`; the per-datanode limit ozone.scm.datanode.pipeline.limit. Fix the cause (datanodes down, full or " +
				"with failed volumes); `ozone admin pipeline create` only to test.",
		},
		Panels: []Panel{
			{Title: "SCM pipeline creations and failures per 10 minutes", Expr: `increase(scm_pipeline_metrics_num_pipeline_creation_failed[10m])`, Legend: "failed {{hostname}}"},
			{Title: "SCM pipeline creations and failures per 10 minutes", Expr: `increase(scm_pipeline_metrics_num_pipeline_created[10m])`, Legend: "created {{hostname}}"},
			{Title: "SCM pipeline creations and failures per 10 minutes", Expr: `increase(scm_pipeline_metrics_num_pipeline_destroyed[10m])`, Legend: "destroyed {{hostname}}"},
		},
		Tests: []Case{
			{Name: "two datanodes lost at 5m: 3 pipelines closed, every creation fails since", At: 40 * time.Minute,
				Series: series("0x5 1+1x40", "0x5 3x40", "10x46"),
				Fire:   []map[string]string{nl(scmInst, "scm1.example.com")}},
			{Name: "near miss: a saturated healthy cluster, creation fails on every run, no pipeline lost", At: 40 * time.Minute,
				Series: series("0+1x46", "0x46", "10x46")},
			{Name: "near miss: a datanode restart, 3 pipelines closed and recreated 5 minutes later", At: 40 * time.Minute,
				Series: series("0x5 1+1x40", "0x5 3x40", "10x10 13x36")},
		},
	}
}

func replicationManagerRule(alert, metric, key, severity string, forDur time.Duration, annotations map[string]string, fireValues, quietValues, quietName string, at time.Duration) Rule {
	// ReplicationManagerMetrics.getMetrics does not snapshot its registry: no context label.
	rm := hs(metric, nl(scmInst, "scm1.example.com"))
	return Rule{
		Alert:       alert,
		Expr:        metric + " > 0",
		For:         forDur,
		Labels:      problem(key, key, severity),
		Annotations: annotations,
		Panels:      []Panel{{Title: "SCM containers: " + strings.TrimPrefix(metric, "replication_manager_metrics_"), Expr: metric, Legend: "{{hostname}}"}},
		Tests: []Case{
			{Name: "the count stays above 0", At: at, Series: []Series{{rm, fireValues}},
				Fire: []map[string]string{nl(scmInst, "scm1.example.com")}},
			{Name: "near miss: " + quietName, At: at, Series: []Series{{rm, quietValues}}},
		},
	}
}

func missingContainersRule() Rule {
	return replicationManagerRule("OzoneSCMMissingContainers", "replication_manager_metrics_missing_containers",
		"container-missing", "critical", 15*time.Minute, map[string]string{
			"summary": "SCM {{ $labels.hostname }} has containers with no online replica",
			"description": "replication_manager_metrics_missing_containers has been above 0 on SCM {{ $labels.instance }} for " +
				"15 minutes: ReplicationManager found containers with no online replica. Their data cannot be read until a " +
				"datanode holding a replica returns; if none does, it is lost.\n\n" +
				"Versions: ReplicationManagerMetrics' health-state gauges are exported by SCM of current releases; since " +
				"1.4.0 (HDDS-9550/HDDS-9602) containers without blocks count as EMPTY, not MISSING. Only the leader SCM's " +
				"ReplicationManager runs.\n\n" +
				"Precision compared with the logs (signature container-missing): the gauge is a count: it " +
				"names no container; the SCM log's 'Container … does not have any replicas and is unrecoverable.' names each. " +
				"A mass datanode restart shows MISSING until the container reports arrive (the 15 minutes hide that).",
			"remediation": "Run `ozone admin container report` and `ozone admin replicationmanager status`; for a container " +
				"`ozone admin container info <id>` shows its replicas and their datanodes (Recon's Missing view lists them " +
				"too). Bring back the datanodes that hold the last replicas (`ozone admin datanode list --node-state DEAD`); " +
				"only then treat the data as lost.",
		}, "0 0 3x30", "0 0 120x8 0x22", "a mass datanode restart, MISSING for 8 minutes until the reports arrive", 25*time.Minute)
}

func unhealthyContainersRule() Rule {
	return replicationManagerRule("OzoneSCMUnhealthyContainers", "replication_manager_metrics_unhealthy_containers",
		"container-replica-unhealthy", "warning", time.Hour, map[string]string{
			"summary": "SCM {{ $labels.hostname }} has had containers with unhealthy replicas for an hour",
			"description": "replication_manager_metrics_unhealthy_containers has been above 0 on SCM {{ $labels.instance }} " +
				"for an hour: CLOSED or QUASI_CLOSED containers have replicas in a different state, usually replicas the " +
				"datanodes' container scanners marked UNHEALTHY, and ReplicationManager has not repaired them.\n\n" +
				"Versions: ReplicationManagerMetrics' health-state gauges are exported by SCM of current releases. On releases " +
				"before ozone-2.2.0 file-descriptor exhaustion made the scanners mark healthy replicas UNHEALTHY (HDDS-15150).\n\n" +
				"Precision compared with the logs (signature container-replica-unhealthy, on the datanodes): the gauge is a count on SCM: " +
				"it names neither the container nor the datanode nor why; the datanode log's 'Corruption detected in container " +
				"[…]. Marking it UNHEALTHY.' names the container and the cause ('Too many open files' on a release before " +
				"2.2.0 means HDDS-15150, not corruption).",
			"remediation": "Run `ozone admin container report`, then `ozone admin container info <id>` for the replica states " +
				"per datanode; on the datanode `ozone debug datanode container inspect`; for keys in it `ozone debug replicas " +
				"verify`; 2.1.0 and later: `ozone admin container reconcile <id>`. If the scanner's cause was 'Too many open " +
				"files', raise the datanode's nofile limit and restart it.",
		}, "0 0 4x75", "0 0 4x20 0x55", "ReplicationManager repaired the replicas within 20 minutes", 70*time.Minute)
}

func heapNearlyFullRule() Rule {
	jvm := func(metric string) string {
		return hs(metric, nl(om1Inst, "om1.example.com", "context", "jvm", "processname", "OzoneManager", "sessionid", "null"))
	}
	series := func(used string) []Series {
		return []Series{{jvm("jvm_metrics_mem_heap_used_m"), used}, {jvm("jvm_metrics_mem_heap_max_m"), "4096x25"}}
	}
	return Rule{
		Alert: "OzoneJVMHeapNearlyFull",
		Expr: "jvm_metrics_mem_heap_used_m\n" +
			"/ (jvm_metrics_mem_heap_max_m > 0)\n" +
			"> 0.95",
		For:    10 * time.Minute,
		Labels: problem("jvm-out-of-memory", "jvm-out-of-memory", "warning"),
		Annotations: map[string]string{
			"summary": "{{ $labels.processname }} on {{ $labels.hostname }} has used over 95% of its heap for 10 minutes",
			"description": "jvm_metrics_mem_heap_used_m / jvm_metrics_mem_heap_max_m has stayed above 0.95 for 10 minutes on " +
				"{{ $labels.processname }} ({{ $labels.instance }}): garbage collection no longer frees the heap, and the next " +
				"large allocation throws java.lang.OutOfMemoryError (Java heap space, GC overhead limit exceeded); after an " +
				"OOM the service's state is undefined.\n\n" +
				"Versions: Hadoop's JvmMetrics (MiB gauges) are on every Ozone service's /prom on every release.\n\n" +
				"Precision compared with the log signature (jvm-out-of-memory): different. The rule warns before an OOM that " +
				"the logs show only when it happens, but sees the heap alone: direct buffers (OzoneNettyDirectMemoryNearlyFull), " +
				"metaspace, native threads and mmap failures are not in this ratio, an allocation spike that OOMs between " +
				"scrapes is missed, and a process that died of the OOM is no longer scraped. The log signature matches the " +
				"OutOfMemoryError itself, of every kind, in .log and .out files.",
			"remediation": "Capture the state before restarting: `jcmd <pid> GC.heap_info` and a heap dump " +
				"(`jcmd <pid> GC.heap_dump <file>`, or run with -XX:+HeapDumpOnOutOfMemoryError). Raise -Xmx in the " +
				"service's OZONE_<SERVICE>_OPTS, then restart the service. " +
				"`ozdoctor analyze` on its .log and .out files shows whether it has already thrown an OutOfMemoryError.",
			"runbook_url": signatureRunbook("jvm-out-of-memory"),
		},
		Panels: []Panel{
			{Title: "JVM heap used / max", Expr: `jvm_metrics_mem_heap_used_m / (jvm_metrics_mem_heap_max_m > 0)`,
				Legend: "{{processname}} {{hostname}}", Unit: "percentunit"},
		},
		Tests: []Case{
			{Name: "OM heap at 96% from 5m on", At: 20 * time.Minute,
				Series: series("1000x5 3950x20"),
				Fire:   []map[string]string{nl(om1Inst, "om1.example.com", "context", "jvm", "processname", "OzoneManager", "sessionid", "null")}},
			{Name: "near miss: one allocation spike to 96%, collected after 3 minutes", At: 20 * time.Minute,
				Series: series("1000x5 3950x3 1500x17")},
			{Name: "near miss: a full but healthy heap at 93% for the whole time", At: 20 * time.Minute,
				Series: series("3800x25")},
		},
	}
}

func nettyDirectMemoryRule() Rule {
	nm := func(metric string) string {
		return hs(metric, nl(dn3Inst, "dn3.example.com", "context", "Netty metrics"))
	}
	series := func(used string) []Series {
		return []Series{{nm("netty_metrics_used_direct_mem"), used}, {nm("netty_metrics_max_direct_mem"), "2147483648x25"}}
	}
	return Rule{
		Alert: "OzoneNettyDirectMemoryNearlyFull",
		Expr: "netty_metrics_used_direct_mem\n" +
			"/ (netty_metrics_max_direct_mem > 0)\n" +
			"> 0.9",
		For:    10 * time.Minute,
		Labels: problem("jvm-out-of-memory", "jvm-out-of-memory", "warning"),
		Annotations: map[string]string{
			"summary": "Netty direct memory on {{ $labels.hostname }} has been over 90% of its limit for 10 minutes",
			"description": "netty_metrics_used_direct_mem / netty_metrics_max_direct_mem has stayed above 0.9 for 10 minutes on " +
				"{{ $labels.instance }}: the next allocations of the Ratis-shaded Netty pool fail with " +
				"OutOfDirectMemoryError ('failed to allocate … byte(s) of direct memory'), which breaks the datanode's write " +
				"and replication paths.\n\n" +
				"Versions: NettyMetrics is exported by datanodes of ozone-1.4.0 and later (HDDS-9070), OM and SCM of 2.0.0 and " +
				"later (HDDS-11100), S3 Gateway of 2.2.0 and later (HDDS-13944). It reports the Ratis-shaded Netty pool only, " +
				"not the unshaded one of gRPC/S3G.\n\n" +
				"Precision compared with the log signature (jvm-out-of-memory): different. The rule warns before the failure, " +
				"for the shaded pool only; the log signature matches OutOfDirectMemoryError and 'Direct buffer memory' of " +
				"either pool once they are thrown. Netty pools keep arenas they once allocated, so a pool that grew near its " +
				"cap under a burst can stay high without failing.",
			"remediation": "Cap and size the pools as apache/ozone-site's troubleshooting page 'Netty direct memory' explains: " +
				"OZONE_RATIS_NETTY_MAX_DIRECT_MEMORY / OZONE_NETTY_MAX_DIRECT_MEMORY (byte counts, not '512m'); look for pipeline churn (frequent Raft group creation, RATIS-2065 before Ozone 1.4.1). " +
				"Restart the service if it has already thrown OutOfDirectMemoryError; `ozdoctor analyze` on its .log and .out " +
				"files shows whether it has.",
			"runbook_url": signatureRunbook("jvm-out-of-memory"),
		},
		Panels: []Panel{
			{Title: "Netty direct memory used / max", Expr: `netty_metrics_used_direct_mem / (netty_metrics_max_direct_mem > 0)`,
				Legend: "{{hostname}}", Unit: "percentunit"},
		},
		Tests: []Case{
			{Name: "dn3's shaded Netty pool at 95% from 5m on", At: 20 * time.Minute,
				Series: series("536870912x5 2040109465x20"),
				Fire:   []map[string]string{nl(dn3Inst, "dn3.example.com", "context", "Netty metrics")}},
			{Name: "near miss: a write burst takes it to 95% for 3 minutes", At: 20 * time.Minute,
				Series: series("536870912x5 2040109465x3 536870912x17")},
			{Name: "near miss: Netty does not track direct memory (used = -1)", At: 20 * time.Minute,
				Series: series("-1x25")},
		},
	}
}
