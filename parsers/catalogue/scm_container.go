package catalogue

import "regexp"

// Container lifecycle signals around the deletion of empty QUASI_CLOSED
// containers (HDDS-16809; shared/ozone signatures-scm.md §3). SCM logs them
// from ReplicationManager's EmptyContainerHandler and from the container
// report handlers; datanodes from KeyValueContainer and the dn-container log.
const (
	// EmptyQuasiClosedDelete: SCM deletes a QUASI_CLOSED container whose known
	// replicas are all empty (T40). Container; BCSID = the container's BCSID;
	// MaxBCSID = the highest BCSID among the known replicas; Count = number of
	// known replicas; Attrs["origins"] = their origin datanode UUIDs as printed
	// (comma-separated).
	EmptyQuasiClosedDelete Kind = "empty_quasi_closed_delete"
	// ReplicaDeleteSent: a container report handler sends a delete command for
	// a reported replica (T43). Container; Force; Reason ("DELETED",
	// "DELETING", "CONTAINER_NOT_FOUND"); Index = replica index (r<n>, 0 for
	// RATIS); State = replica state; BCSID = replica BCSID; NonEmpty;
	// Datanode = the reporting datanode; Attrs["container_state"] = SCM's
	// container state ("NOT_FOUND" for unknown containers),
	// Attrs["container_bcsid"] = SCM's container BCSID (sid, when printed),
	// Attrs["origin"] = the replica's origin datanode UUID.
	ReplicaDeleteSent Kind = "replica_delete_sent"
	// ReplicaDeleteSkipped: a follower SCM's report handler would delete a
	// replica but is not the leader ("Skip sending DeleteContainerCommand").
	// The same fields as ReplicaDeleteSent except Force and Reason, which the
	// message does not print; Attrs["exception"] = the NotLeaderException text.
	ReplicaDeleteSkipped Kind = "replica_delete_skipped"
	// ReplicaDeleteCommand: ReplicationManager sends a delete command to a
	// replica (T42; e.g. the non-force deletes of an empty container's
	// replicas). Container; Force; Index = replica index; State = the
	// container's state in the printed ContainerInfo (when printed); Term;
	// Datanode = the target (its UUID and host feed the identity map).
	ReplicaDeleteCommand Kind = "replica_delete_command"
	// ContainerResurrected: SCM brings a DELETING/DELETED container back
	// because a non-empty replica with a higher BCSID reported (T44, T45).
	// Container; State = the new container state (QUASI_CLOSED or CLOSED);
	// Attrs["container_state"] = the state it left; Attrs["replica_state"];
	// Count = the replica's key count; BCSID = the replica's BCSID; Datanode.
	ContainerResurrected Kind = "container_resurrected"
	// DNContainerMarkedDeleted: a datanode marks a container replica DELETED
	// (T46). Container; State = state printed inside the ContainerData
	// (DELETED); Attrs["from"] = the state before; NonEmpty; Index = replica
	// index (ri); Pipeline and Attrs["origin"] = the origin pipeline and
	// datanode UUID, when printed.
	DNContainerMarkedDeleted Kind = "dn_container_marked_deleted"
	// DNContainerForceDeleted: the dn-container log line of a forced replica
	// delete (T47). Container; Index = replica index; BCSID; State; Force
	// (always true).
	DNContainerForceDeleted Kind = "dn_container_force_deleted"
)

// detailsForLogging is the report handlers' rendering of a reported replica
// (AbstractContainerReportHandler.java:64-95, signatures-scm.md §0.1):
// "Container #1 (DELETED, sid=4) r0 (QUASI_CLOSED, bcsid=4, origin=<uuid>,
// non-empty) from dn <uuid>(<host>/<ip>)"; unknown containers print
// "Container #<id> (NOT_FOUND) r…".
const detailsForLogging = `Container #(?P<container>\d+) \((?P<container_state>[A-Z_]+)(?:, sid=(?P<container_bcsid>-?\d+))?\)` +
	` r(?P<index>\d+) \((?P<state>[A-Z_]+), bcsid=(?P<bcsid>-?\d+), origin=(?P<origin>[^,()]*), (?P<nonempty>non-empty|empty)\)` +
	` from dn (?P<dn>[0-9a-fA-F-]{36}(?:\([^()\s]*\))?)`

// reportHandlers are the loggers of AbstractContainerReportHandler's lines:
// getLogger() of the concrete handler (full or incremental report).
var reportHandlers = []string{"ContainerReportHandler", "IncrementalContainerReportHandler"}

func scmContainerEntries() []Entry {
	return []Entry{
		{
			// T40 EmptyContainerHandler.java:99 (signatures-scm.md §3.2), INFO,
			// ozone-2.2.0+ (HDDS-14684); absent from every earlier release.
			Kind:     EmptyQuasiClosedDelete,
			Source:   "hadoop-hdds/server-scm/.../container/replication/health/EmptyContainerHandler.java:99 (T40)",
			Loggers:  []string{"EmptyContainerHandler"},
			Literals: []string{"Deleting empty QUASI_CLOSED container "},
			Pattern: regexp.MustCompile(`Deleting empty QUASI_CLOSED container #(?P<container>\d+)` +
				` \(container BCSID=(?P<bcsid>-?\d+), max replica BCSID=(?P<maxbcsid>-?\d+)\)` +
				` with (?P<count>\d+) replicas from originIds: \[(?P<origins>[^\]\n]*)\]`),
		},
		{
			// T43 AbstractContainerReportHandler.java:459 (2.2.0 :442), INFO:
			// "Sending {}DeleteContainerCommand due to {} for {}" (signatures-scm.md §3.2).
			// ozone-2.1.0+ (:411 @2.1.0, same getDetailsForLogging rendering); absent before.
			Kind:     ReplicaDeleteSent,
			Source:   "hadoop-hdds/server-scm/.../container/AbstractContainerReportHandler.java:459 (T43)",
			Loggers:  reportHandlers,
			Literals: []string{"DeleteContainerCommand due to "},
			Pattern: regexp.MustCompile(`Sending (?P<force>force)?DeleteContainerCommand due to (?P<reason>[A-Z_]+) for ` +
				detailsForLogging),
		},
		{
			// T42 ReplicationManager.java:666, INFO: "Sending command [{}] for
			// container {} to {} with datanode deadline {} and scm deadline {}"
			// with a DeleteContainerCommand and a ContainerInfo (signatures-scm.md
			// §0.1, §3.2, B03). Other command types share the message; only
			// delete commands are candidates. ozone-1.4.0+ (:677 @1.4.0). The
			// command rendering:
			//   A ozone-2.0.0..master "deleteContainerCommand: cmdID: <n>,
			//     encodedToken: "", term: <t>, deadlineMsSinceEpoch: <ms>,
			//     containerID: <id>, replicaIndex: <ri>, force: <b>" (HDDS-12175)
			//   B ozone-1.4.x "deleteContainerCommand: containerID: <id>,
			//     replicaIndex: <ri>, force: <b>" (DeleteContainerCommand.java @1.4.0), no term
			// ContainerInfo is "ContainerInfo{id=#<id>, state=..., ...}" in both.
			Kind:     ReplicaDeleteCommand,
			Source:   "hadoop-hdds/server-scm/.../container/replication/ReplicationManager.java:666 (T42)",
			Loggers:  []string{"ReplicationManager"},
			Literals: []string{"Sending command [deleteContainerCommand: "},
			Pattern: regexp.MustCompile(`Sending command \[deleteContainerCommand: (?:[^\]\n]*?term: (?P<term>\d+))?[^\]\n]*?` +
				`containerID: (?P<container>\d+), replicaIndex: (?P<index>\d+), force: (?P<_forced>true|false)\]` +
				` for container (?:ContainerInfo\{id=#\d+, state=(?P<state>[A-Z_]+)[^}\n]*\}|#\d+)` +
				` to (?P<dn>[0-9a-fA-F-]{36}(?:\([^()\s]*\))?)`),
			Post: func(s *Signal, m Groups) bool {
				s.Force = m.Get("_forced") == "true"
				return true
			},
		},
		{
			// AbstractContainerReportHandler.java:451-452, WARN, follower SCMs:
			// "Skip sending DeleteContainerCommand for " + details + ": " + NotLeaderException
			// (string concatenation; signatures-scm.md §3.2). ozone-2.1.0+ (:403 @2.1.0).
			Kind:     ReplicaDeleteSkipped,
			Source:   "hadoop-hdds/server-scm/.../container/AbstractContainerReportHandler.java:451 (T43 follower)",
			Loggers:  reportHandlers,
			Literals: []string{"Skip sending DeleteContainerCommand for "},
			Pattern: regexp.MustCompile(`Skip sending DeleteContainerCommand for ` + detailsForLogging +
				`(?:: (?P<exception>[^\n]*))?`),
		},
		{
			// T44 AbstractContainerReportHandler.java:349 (to QUASI_CLOSED) and
			// T45 :342 (to CLOSED), INFO (signatures-scm.md §3.2). ozone-2.2.0+ (:343, :350 @2.2.0).
			Kind:     ContainerResurrected,
			Source:   "hadoop-hdds/server-scm/.../container/AbstractContainerReportHandler.java:349, :342 (T44, T45)",
			Loggers:  reportHandlers,
			Literals: []string{"Resurrecting container "},
			Pattern: regexp.MustCompile(`Resurrecting container #(?P<container>\d+) from (?P<container_state>[A-Z_]+)` +
				` to (?P<state>[A-Z_]+) due to non-empty (?P<replica_state>[A-Z_]+) replica` +
				` \(keyCount=(?P<count>\d+), BCSID=(?P<bcsid>-?\d+)\)` +
				` from (?:[^\n]*from dn )?(?P<dn>[0-9a-fA-F-]{36}(?:\([^()\s]*\))?)`),
		},
		{
			// T46 KeyValueContainer.java:425 (2.2.0 :415), WARN: "Marked container
			// DELETED from {}: {}" with the ContainerData rendering of §0.1.
			// ozone-2.1.0+ (:413 @2.1.0, same ContainerData.toString); absent before.
			Kind:     DNContainerMarkedDeleted,
			Source:   "hadoop-hdds/container-service/.../keyvalue/KeyValueContainer.java:425 (T46)",
			Loggers:  []string{"KeyValueContainer"},
			Literals: []string{"Marked container DELETED from "},
			Pattern: regexp.MustCompile(`Marked container DELETED from (?P<from>[A-Z_]+): \w*ContainerData #(?P<container>\d+)` +
				` \((?P<state>[A-Z_]+), (?P<nonempty>non-empty|empty), ri=(?P<index>\d+)` +
				`(?:, origin=\[(?:dn_(?P<origin>[0-9a-fA-F-]{36}))?(?:, )?(?:pipeline_(?P<pipeline>[0-9a-fA-F-]{36}))?)?`),
		},
		{
			// T47 ContainerLogger.java:119 (dn-container log, layout L8, no
			// logger column): "ID=<id> | Index=<ri> | BCSID=<bcsid> | State=<state>
			// | Container force deleted". ozone-1.4.0..2.0.0 print exactly these
			// four fields (ContainerLogger.java:157-163 @1.4.0); 2.1.0+ add
			// "| Volume=<dir> | DataChecksum=<hex>" before the message
			// (:185-193 @2.1.0). ContainerLogger does not exist before 1.4.0.
			Kind:     DNContainerForceDeleted,
			Source:   "hadoop-hdds/container-service/.../common/utils/ContainerLogger.java:119 (T47)",
			Loggers:  []string{"ContainerLog"},
			Literals: []string{"| Container force deleted"},
			Pattern: regexp.MustCompile(`ID=(?P<container>\d+) \| Index=(?P<index>\d+) \| BCSID=(?P<bcsid>-?\d+)` +
				` \| State=(?P<state>[A-Z_]+)(?: \| [A-Za-z]+=[^|\n]*)* \| Container force deleted`),
			Post: func(s *Signal, _ Groups) bool {
				s.Force = true
				return true
			},
		},
	}
}
