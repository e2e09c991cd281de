// Package divisionclosing recognises HDDS-17674: a datanode closes one of
// its Raft divisions on the Ratis thread after a write-chunk timeout, the
// close waits for itself, and the division stays CLOSING — its pipeline
// never finishes closing and its containers can be neither closed nor
// quasi-closed until the datanode restarts.
package divisionclosing

import (
	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func doc() detectors.Doc {
	return detectors.Doc{
		Name:   "raft-division-stuck-closing",
		Defect: "HDDS-17674",
		Title:  "Datanode Raft division stuck in CLOSING after a write-chunk timeout",
		Summary: "A datanode closed a Raft division on its own Ratis thread; the division hangs in CLOSING, " +
			"the pipeline close never completes and close-container commands for its containers fail forever.",
		Explanation: "On builds with HDDS-15443 (master after ozone-2.2.0) ContainerStateMachine.write() closes the " +
			"Raft division when a write fails: when the oldest pending write chunk is older than " +
			"hdds.container.ratis.statemachine.write.wait.interval (10m) it logs \"Write chunk has taken ...ns crossing " +
			"threshold ...ns ..., cancelling pending write chunk for this group\", returns an already-failed future and " +
			"closeServer() runs synchronously on the Ratis thread that called write() (\"<dn>: Failed to writeStateMachineData, " +
			"close server\" on a <dn>-client-threadN or -server-threadN thread). RaftServerImpl.close() moves the division " +
			"to CLOSING and then waits for the executor that runs the calling thread (up to one day) or for locks that " +
			"thread holds, so it never reaches CLOSED. The later group removal (\"<dn>: remove    LEADER (CLOSING): ...\") " +
			"takes the division out of the server's map and then waits forever for the close, so notifyGroupRemove never " +
			"runs: the storage directory is not removed, \"Close Pipeline ... command on datanode ...\" is never logged, the " +
			"pipeline stays in the datanode's active set and every close-container command SCM sends for the group's " +
			"containers goes through Ratis and fails with \"Can't close container #N\", caused first by " +
			"\"ServerNotReadyException: <dn>@group-X is not in [RUNNING]: current state is CLOSING\" and, after the " +
			"removal, by \"GroupMismatchException: <dn>: group-X not found.\". SCM's ReplicationManager re-sends the close " +
			"command every replication interval while the replica stays CLOSING. The detector follows each datanode's " +
			"groups: the trigger or a removal in CLOSING opens a finding once the close has not completed within a minute. " +
			"Close failures alone open one only when the same container keeps failing with CLOSING or \"not found\" for more " +
			"than 10 minutes or in at least 3 of SCM's resend cycles (hdds.scm.replication.thread.interval, 5m); a burst of " +
			"failures within one cycle is a race or a shutdown, a RejectedExecutionException never counts towards the " +
			"repetition, and a datanode restart ends such a finding (the failures came from the old process). SCM's re-sent " +
			"commands (pipeline UUID -> group-<last 12 hex>) corroborate the finding, and so does the datanode's /prom " +
			"(scraped by watch, or a snapshot in a bundle): csm_metrics_num_write_state_machine_fails{raftgroupid=\"group-X\"} " +
			"counts the division's closeServer() calls, so a value above the one before the incident shows the close on the " +
			"Ratis thread even when its log line rotated away (with the close failures it makes the finding high confidence). " +
			"The series may vanish when close unregisters the metrics: its absence says nothing.",
		Remediation: []string{
			"Confirm on SCM: `ozone admin container list --state CLOSING`" +
				"{{if .Entities.Containers}}, then {{range $i, $c := .Entities.Containers}}{{if $i}}, {{end}}`ozone admin container info {{$c}}`{{end}}{{end}}: " +
				"the replica on {{join .Entities.Datanodes}} stays CLOSING while the other replicas are QUASI_CLOSED or CLOSED; " +
				"`ozone admin pipeline list --state CLOSED` and `ozone admin datanode list` show the pipeline and the datanode.",
			"Optionally confirm the hang on {{(index .Entities.Datanodes 0).Host}}: `jstack <datanode pid>` shows a thread in " +
				"RaftServerImpl.groupRemove waiting in CountDownLatch.await and a Ratis -client-/-server- thread inside " +
				"RaftServerImpl.close called from ContainerStateMachine.closeServer.",
			"Restart the datanode on {{(index .Entities.Datanodes 0).Host}}: `ozone --daemon stop datanode` then " +
				"`ozone --daemon start datanode` (or restart its pod). Nothing short of a restart unblocks {{index .Entities.RaftGroups 0}}.",
			"After the restart check that {{index .Entities.RaftGroups 0}} is removed normally: the datanode log shows " +
				"`Succeed to remove RaftStorageDirectory` for it{{if .Entities.Pipelines}} and `Close Pipeline Pipeline-{{index .Entities.Pipelines 0}} command on datanode`{{end}}, " +
				"the dn-container log shows `Ratis group removed. Group id: {{index .Entities.RaftGroups 0}}`, and " +
				"`ozone admin container info` reports the replica QUASI_CLOSED or CLOSED.",
			"{{if .Entities.Pipelines}}`ozone admin pipeline close {{index .Entities.Pipelines 0}}` and {{end}}" +
				"`ozone admin container close <containerId>` only re-drive SCM: they end in more `Can't close container` " +
				"lines on the datanode and do not unblock it.",
			"If the datanode cannot be restarted, move its replicas elsewhere with " +
				"`ozone admin datanode decommission {{(index .Entities.Datanodes 0).Host}}` " +
				"(or `ozone admin datanode maintenance {{(index .Entities.Datanodes 0).Host}}`).",
		},
		FalsePositives: []string{
			"A write-chunk timeout alone on ozone 2.0-2.2 (no \"Failed to writeStateMachineData, close server\"): a slow write " +
				"that does not close the division; not reported.",
			"\"Failed to writeStateMachineData, close server\" on a -ChunkWriter- thread: the chunk write failed asynchronously " +
				"and the close can finish; reported only if no removal or close completion follows.",
			"\"Can't close container\" failures that do not repeat for one container across resend cycles: a " +
				"GroupMismatchException racing a normal group removal, or \"current state is CLOSING\" and " +
				"RejectedExecutionException while a datanode shuts down (a restart drops them); ignored. \"current state is " +
				"STARTING\" after a datanode restart is ignored however long it repeats.",
			"A normal pipeline close: the removal prints (RUNNING), the storage directory is removed and " +
				"\"Close Pipeline ... command on datanode\" follows within seconds; ignored.",
			"\"Container statemachine is closed by ratis, terminating HddsDatanodeService\" is a different failure " +
				"(the whole Ratis server closed and the datanode exits).",
		},
		Resolves: "When, for that group on that datanode, the storage removal (\"Succeed to remove RaftStorageDirectory\" or " +
			"\"Group ... is renamed successfully\"), the close-pipeline completion (\"Close Pipeline ... command on datanode ...\") " +
			"or the quasi-close of one of its containers (\"Marking Container N quasi closed\", or \"Ratis group removed. " +
			"Group id: group-X\" in the dn-container log) is logged — normally after the datanode restart. A finding that " +
			"rests on close failures alone resolves at the datanode's restart (STARTUP_MSG).",
		Kinds: []catalogue.Kind{
			catalogue.WriteChunkTimeout,
			catalogue.StateMachineCloseServer,
			catalogue.DivisionShutdown,
			catalogue.RaftGroupRemove,
			catalogue.RaftStorageRemoved,
			catalogue.ClosePipelineDone,
			catalogue.CloseContainerFailed,
			catalogue.ContainerQuasiClosed,
			catalogue.SCMCloseContainerCommand,
			catalogue.StartupMsg,
			catalogue.MetricSample,
		},
		Metrics: []string{csmFails},
		Needs:   []parsers.Component{parsers.ComponentDatanode},
		Package: "divisionclosing",
		// Affected and fixed versions, read in apache/ozone's history (mirror at
		// 2026-08-22; newest tag ozone-2.2.0, 2026-08-03): `git log --all
		// --grep HDDS-17674` finds nothing. The close on the Ratis thread came
		// with HDDS-15443 (4cbdd201de0, 2026-06-11), on master (pom
		// 2.3.0-SNAPSHOT) and the branches made from it; `git tag --contains
		// 4cbdd201de0` is empty and the ozone-2.2 branch (2.2.1-SNAPSHOT)
		// has no HDDS-15443 commit. Releases 2.0.0-2.2.0 log the write-chunk
		// timeout (HDDS-12469, 7d8c771aadf, first tag ozone-2.0.0-RC0) but
		// do not close the division.
		Affected:     ">=2.3.0",
		VersionsRead: "master builds after HDDS-15443 (4cbdd201de0, 2026-06-11; pom 2.3.0-SNAPSHOT), in no release tag nor the ozone-2.2 branch; HDDS-17674 is in no commit of apache/ozone: not fixed in any release as of ozone-2.2.0 (2026-08-03)",
		// A division stuck in CLOSING stays so until the datanode restarts
		// or the group is removed: reported divisions are kept until they
		// resolve (bounded in number), and unreported ones resting on close
		// failures are dropped after three resend cycles without one. The
		// horizon forgets SCM's close commands for a datanode's group when
		// SCM sent none for a day (it re-sends them every resend cycle,
		// 5m by default, while a replica stays CLOSING); trigger lines and
		// completed removals are forgotten after their own windows
		// (seconds, and a minute).
		Horizon: horizon,
		Options: []detectors.Option{{Name: "stuck-after", Kind: detectors.OptionDuration, Default: "5m", Min: "1s",
			Doc: "how long a division must have been stuck in CLOSING for the finding to be critical"}},
	}
}
