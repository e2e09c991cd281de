// Package quasiclosedelete recognises HDDS-16809: SCM deletes a QUASI_CLOSED
// container as empty although its BCSID says a replica it does not know holds
// data, and later force-deletes that non-empty replica when its datanode
// returns.
package quasiclosedelete

import (
	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func doc() detectors.Doc {
	return detectors.Doc{
		Name:    "empty-quasi-closed-delete",
		Defect:  "HDDS-16809",
		Title:   "Empty QUASI_CLOSED container deleted while a replica with data was away",
		Summary: "SCM deleted a QUASI_CLOSED container as empty with max replica BCSID < container BCSID; a returning non-empty replica gets force-deleted.",
		Explanation: "Since ozone-2.2.0 (HDDS-14684) ReplicationManager's EmptyContainerHandler deletes a QUASI_CLOSED " +
			"container when every replica it knows is empty, logging \"Deleting empty QUASI_CLOSED container #N " +
			"(container BCSID=B, max replica BCSID=M) ...\". Replicas that DeadNodeHandler removed (their datanode " +
			"was DEAD) are not known, so their BCSID is not considered. When M < B, the container's BCSID proves " +
			"that some replica committed data up to B, and none of the known replicas has it: the data is on a " +
			"replica SCM cannot see. The container goes DELETING, then DELETED. When the datanode holding that " +
			"replica returns, the container report handler sees a non-empty replica of a DELETED (or DELETING) " +
			"RATIS container whose BCSID is not above the container's and sends a forced delete " +
			"(\"Sending forceDeleteContainerCommand due to DELETED for Container #N ... non-empty\"; follower SCMs " +
			"log \"Skip sending DeleteContainerCommand for ...\" for the same report). The datanode executes it " +
			"without the non-empty safety check (\"Marked container DELETED from QUASI_CLOSED: ... non-empty\", and " +
			"\"Container force deleted\" in its dn-container log): the only copy of the data is gone. Only a " +
			"replica with a BCSID above the container's makes SCM resurrect the container instead.\n\n" +
			"The detector raises a warning (medium confidence) for every T40 deletion with M < B, and escalates " +
			"it to critical (high confidence) when a forced delete of a non-empty replica-index-0 replica of the " +
			"same container, with a BCSID above M, follows on SCM (leader or follower) or on the datanode; " +
			"datanode lines are matched by container ID and host (or the replica's origin UUID) and are recorded " +
			"in Facts as confirmation. The datanode's \"Marked container DELETED ... non-empty\" line prints no " +
			"BCSID: when it is the only line of the forced delete (SCM's line and the dn-container log are missing), " +
			"the finding is critical with medium confidence and says the replica's BCSID is unknown (it may have " +
			"been a stale replica). Datanode lines of a replica that SCM force-deleted due to CONTAINER_NOT_FOUND " +
			"are that delete's and do not escalate. The victim datanode's /prom (scraped by watch, or a snapshot in a " +
			"bundle) corroborates its forced delete: storage_container_metrics_container_force_delete counts the " +
			"datanode's forced deletes, so a sample after the deletion above its value when the victim appeared (0 when " +
			"no earlier sample) is added to the evidence and named in Facts; the counter covers every container of " +
			"the datanode since its start, so it corroborates and never escalates alone. The datanodes SCM held DEAD when it deleted the container (\"A dead datanode " +
			"is detected\" without a return to HEALTHY) are named as the likely holders of the replica with data. " +
			"Lines of other hosts may precede the deletion by up to the skew tolerance and still count.",
		Remediation: []string{
			"{{if eq .Severity.String \"critical\"}}Preserve what is left before anything else runs on " +
				"{{fact . \"forced_delete_datanodes\"}}: do not restart, reformat or wipe that datanode and do not run " +
				"disk clean-up on it. Look for container {{index .Entities.Containers 0}} in every volume of " +
				"hdds.datanode.dir (find <volume> -type d -name {{index .Entities.Containers 0}} -path '*containerDir*', " +
				"and the volume's tmp/deleted-containers directory) and copy whatever still exists (the .container file, " +
				"metadata/ and chunks/) to safe storage." +
				"{{else}}Container {{index .Entities.Containers 0}} may still have a replica with data up to BCSID " +
				"{{fact . \"container_bcsid\"}} on a datanode that was down when SCM deleted it: a member of the " +
				"container's pipeline other than {{fact . \"known_replica_datanodes\"}}" +
				"{{with fact . \"dead_datanodes_at_deletion\"}}; SCM held {{.}} DEAD at the time" +
				"{{else}} (look for it among the DEAD datanodes of that time){{end}}. Before that datanode is started again (SCM force-deletes the replica when it " +
				"reports), copy the replica's directory from its volumes (find <volume> -type d -name " +
				"{{index .Entities.Containers 0}} -path '*containerDir*') to safe storage; do not reformat or wipe " +
				"the datanode.{{end}}",
			"Stop ReplicationManager so that EmptyContainerHandler deletes no further QUASI_CLOSED containers while " +
				"datanodes holding QUASI_CLOSED replicas are down: ozone admin replicationmanager stop (check with " +
				"ozone admin replicationmanager status). This does not stop the report handler's forced delete of a " +
				"returning replica. Start it again with ozone admin replicationmanager start only after every such " +
				"datanode has re-registered and reported its containers. There is no configuration switch for this " +
				"deletion.",
			"Inspect the container and find others deleted the same way: ozone admin container info " +
				"{{index .Entities.Containers 0}} (state, SequenceId, replicas); ozone admin container list --state " +
				"DELETED; and every \"Deleting empty QUASI_CLOSED container\" line with max replica BCSID below " +
				"the container BCSID in the SCM log of {{fact . \"scm\"}}.",
			"Find the keys whose blocks are in container {{index .Entities.Containers 0}} (for example with Recon: " +
				"GET /api/v1/containers/{{index .Entities.Containers 0}}/keys). " +
				"{{if eq .Severity.String \"critical\"}}Their data on the force-deleted replica is gone: restore it " +
				"from the copy made in step 1 or from a backup, or re-write those keys." +
				"{{else}}Their data exists only on the away replica until it is copied.{{end}}",
		},
		FalsePositives: []string{
			"\"Deleting empty QUASI_CLOSED container\" with max replica BCSID equal to the container BCSID: a really " +
				"empty container (quiet).",
			"\"Sending DeleteContainerCommand due to DELETED ...\" without force, for an empty replica: normal " +
				"clean-up (quiet).",
			"Forced deletes of EC replicas (r1...rN, replica index > 0) due to DELETED or DELETING: EC orphan " +
				"clean-up (quiet).",
			"Forced deletes due to CONTAINER_NOT_FOUND (hdds.scm.unknown-container.action=DELETE), and the " +
				"datanode's forced-delete lines of the same replica (quiet).",
			"Forced deletes of a container deleted from CLOSED (no \"Deleting empty QUASI_CLOSED container\" line; " +
				"the CLOSED path logs at DEBUG): intended removal of a stale replica (quiet).",
			"A forced delete of a non-empty replica whose BCSID is not above the max replica BCSID of the " +
				"deletion: a stale replica whose blocks were deleted on the others (quiet).",
			"\"Resurrecting container #N ...\" (T44/T45): the correct outcome when the returning replica's BCSID " +
				"is above the container's; it resolves the finding.",
		},
		Resolves: "When SCM resurrects the container (\"Resurrecting container #N from DELETED|DELETING to " +
			"QUASI_CLOSED|CLOSED due to non-empty ... replica\", T44/T45): a replica with a BCSID above the " +
			"container's returned and the data survives. Otherwise the finding stays firing to the end of the " +
			"input: lost data does not come back by itself.",
		Kinds: []catalogue.Kind{
			catalogue.EmptyQuasiClosedDelete,
			catalogue.ReplicaDeleteSent,
			catalogue.ReplicaDeleteSkipped,
			catalogue.ContainerResurrected,
			catalogue.DNContainerMarkedDeleted,
			catalogue.DNContainerForceDeleted,
			catalogue.NodeDead,
			catalogue.NodeHealthyReadonly,
			catalogue.NodeHealthy,
			catalogue.MetricSample,
		},
		Metrics: []string{forceDeletes},
		Needs:   []parsers.Component{parsers.ComponentSCM},
		Package: "quasiclosedelete",
		// Affected and fixed versions, read in apache/ozone's history (mirror at
		// 2026-08-22; newest tag ozone-2.2.0, 2026-08-03): `git log --all
		// --grep HDDS-16809` finds nothing. The empty-QUASI_CLOSED deletion
		// came with HDDS-14684 (e2ad852dbd2, 2026-03-20); `git tag
		// --contains e2ad852dbd2`: ozone-2.2.0-RC0, ozone-2.2.0 (and it is on
		// the ozone-2.2 branch and master). No release before 2.2.0 has T40.
		Affected:     ">=2.2.0",
		VersionsRead: "since ozone-2.2.0 (HDDS-14684, e2ad852dbd2, 2026-03-20, first tag ozone-2.2.0-RC0); HDDS-16809 is in no commit of apache/ozone: not fixed in any release as of ozone-2.2.0 (2026-08-03)",
		// The replica with the data is force-deleted when its datanode
		// reports it: at its return from DEAD or at its next full container
		// report (hdds.container.report.interval, 60m by default), and
		// SCM resurrects the container from it as soon as it reports. A
		// day without any line about the container covers a datanode
		// repaired overnight; the finding stays as last emitted. Counts
		// of deletions per container (for finding keys) and DEAD datanodes
		// are kept up to max_containers, not by age.
		Horizon: horizon,
		Options: []detectors.Option{
			{Name: "skew_tolerance", Kind: detectors.OptionDuration, Default: "5m", Min: "0s",
				Doc: "how far another host's line may precede the deletion and still count"},
			{Name: "max_containers", Kind: detectors.OptionInt, Default: "10000", Min: "1",
				Doc: "unsafe deletions (and lines waiting for one, DEAD datanodes) remembered at once; the oldest are dropped"},
		},
	}
}
