package catalogue

import "regexp"

// Datanode Ratis signals: the container state machine closing its Raft
// division, group removal, close-container and close-pipeline handling
// (shared/ozone signatures-dn-om.md PART A), plus SCM's close-container
// commands that name the datanode and pipeline (A.3 S11).
const (
	// WriteChunkTimeout: "Write chunk has taken {}ns crossing threshold {}ns
	// for index {} groupId {}, cancelling pending write chunk for this group"
	// (T1). Group, Duration (time waited), Index; Attrs threshold_ns.
	WriteChunkTimeout Kind = "dn_write_chunk_timeout"
	// StateMachineCloseServer: "{}: Failed to writeStateMachineData, close
	// server" (T2). Peer = the datanode's own Raft peer ID (its UUID);
	// Thread tells which path closed the division.
	StateMachineCloseServer Kind = "dn_close_server"
	// DivisionShutdown: "<peer>@<group>: shutdown", the first line of
	// RaftServerImpl.close() (T4). Peer, Group.
	DivisionShutdown Kind = "dn_division_shutdown"
	// RaftGroupRemove: "<peer>: remove <role> (<lifecycle>): <member>:t..."
	// (R1). Peer, Group, State = the division's lifecycle state when the
	// removal began (RUNNING normally, CLOSING for a stuck division);
	// Attrs role (LEADER, FOLLOWER, CANDIDATE, LISTENER).
	RaftGroupRemove Kind = "dn_raft_group_remove"
	// RaftStorageRemoved: "<member>: Succeed to remove RaftStorageDirectory
	// {}" or "<member>: Group {} is renamed successfully" (R9): the group
	// removal completed. Peer, Group.
	RaftStorageRemoved Kind = "dn_raft_storage_removed"
	// ClosePipelineDone: "Close Pipeline {} command on datanode {}." (R8).
	// Pipeline, Datanode.UUID.
	ClosePipelineDone Kind = "dn_close_pipeline_done"
	// CloseContainerFailed: "Can't close container #{}" with its exception
	// (C1). Container; from the cause in the continuation lines: Reason =
	// "ServerNotReadyException" (Peer, Group, State = the lifecycle state
	// printed, e.g. CLOSING or STARTING), "GroupMismatchException" (Peer,
	// Group) or "RejectedExecutionException"; empty for any other cause.
	CloseContainerFailed Kind = "dn_close_container_failed"
	// ContainerQuasiClosed: the datanode quasi-closed a container: "Marking
	// Container {} quasi closed" (C3, close command after the pipeline was
	// gone) or the dn-container log line "... State=QUASI_CLOSED | ... |
	// Ratis group removed. Group id: group-X" (A.5). Container; Group when
	// the line names the removed group.
	ContainerQuasiClosed Kind = "dn_container_quasi_closed"
	// SCMCloseContainerCommand: ReplicationManager's "Sending command
	// [closeContainerCommand: ...] for container ContainerInfo{...} to <dn>
	// ..." (S11). Container, Pipeline, Datanode, State = the container's state
	// on SCM, Force.
	SCMCloseContainerCommand Kind = "scm_close_container_command"
)

// Group, member and peer renderings (signatures-dn-om.md §0): RaftGroupId is
// "group-" + 12 upper-case hex digits, a member is "<peerId>@<groupId>".
const (
	groupRe  = `group-[0-9A-Fa-f]{12}`
	memberRe = `[^\s@:]+@` + groupRe
)

func dnRatisEntries() []Entry {
	return []Entry{
		{
			// T1 ContainerStateMachine.java:707 (signatures-dn-om.md A.2); same
			// text since ozone-2.0.0 (:706 @2.0.0, HDDS-12469), absent before.
			Kind:     WriteChunkTimeout,
			Source:   "hadoop-hdds/container-service/.../ratis/ContainerStateMachine.java:707 (T1)",
			Loggers:  []string{"ContainerStateMachine"},
			Literals: []string{"Write chunk has taken "},
			Pattern: regexp.MustCompile(`^Write chunk has taken (?P<ns>\d+)ns crossing threshold (?P<threshold_ns>\d+)ns ` +
				`for index (?P<index>-?\d+) groupId (?P<group>` + groupRe + `), cancelling pending write chunk`),
		},
		{
			// T2 ContainerStateMachine.java:841 (A.2), master only (HDDS-15443):
			// no release up to ozone-2.2.0 (nor the ozone-2.2 branch) has it.
			Kind:     StateMachineCloseServer,
			Source:   "hadoop-hdds/container-service/.../ratis/ContainerStateMachine.java:841 (T2)",
			Loggers:  []string{"ContainerStateMachine"},
			Literals: []string{"Failed to writeStateMachineData, close server"},
			Pattern:  regexp.MustCompile(`^(?P<peer>[^\s:]+): Failed to writeStateMachineData, close server`),
		},
		{
			// T4 ratis RaftServerImpl.java:528 "{}: shutdown" (A.2), logged
			// through RaftServer.Division.LOG (§0 trap 1). Same text and member
			// rendering "<peer>@group-<12 hex>" in every bundled Ratis
			// (RaftServerImpl.java:263 @ratis-1.0.0 .. :528 @ratis-3.2.1); up to
			// ratis-1.0.0 the logger is RaftServerImpl itself.
			Kind:     DivisionShutdown,
			Source:   "ratis-server/.../impl/RaftServerImpl.java:528 (T4)",
			Loggers:  []string{"RaftServer$Division", "RaftServerImpl"},
			Literals: []string{": shutdown"},
			Pattern:  regexp.MustCompile(`^(?P<member>` + memberRe + `): shutdown\s*$`),
		},
		{
			// R1 ratis RaftServerProxy.java:117 "{}: remove {}" (A.5) with the
			// division's RaftServerImpl.toString(); the role is %9s-padded
			// (RoleInfo.toString, §0 trap 2). Two renderings:
			//   A ratis-3.2.0+ (ozone-2.1.0..master) "<role> (<LIFECYCLE>): <state>"
			//     (RaftServerImpl.java:718 @ratis-3.2.1, RATIS-2287)
			//   B ratis-1.0.0..3.1.x (ozone-1.0.0..2.0.0) "<role> <state> <LIFECYCLE>"
			//     (RaftServerImpl.java:456 @ratis-1.0.0, :720 @ratis-3.0.1), where
			//     <state> is ServerState "<member>:t<term>, leader=.., voted=..,
			//     raftlog=.., conf=.." and the lifecycle state ends the line.
			// Logger RaftServerProxy up to ratis-1.0.0, RaftServer after.
			Kind:     RaftGroupRemove,
			Source:   "ratis-server/.../impl/RaftServerProxy.java:117 (R1); @ratis-1.0.0 :100",
			Loggers:  []string{"RaftServer", "RaftServerProxy"},
			Literals: []string{": remove "},
			Pattern: regexp.MustCompile(`^(?P<peer>[^\s:@]+): remove\s+(?P<role>[A-Z]+)\s+(?:\((?P<state>[A-Z]+)\): ` +
				`(?P<member>` + memberRe + `)|(?P<member>` + memberRe + `):t\d+,[^\n]* (?P<state>[A-Z]+)[ \t]*(?:\r?\n|\z))`),
		},
		{
			// R9 ratis RaftServerImpl.java:498, and :517 when
			// hdds.ratis.raft.server.delete.ratis.log.directory=false (A.5).
			// "Succeed to remove" in every bundled Ratis (:301 @ratis-1.0.0);
			// "is renamed successfully" since ratis-2.0.0 (ozone-1.1.0+, :395).
			Kind:     RaftStorageRemoved,
			Source:   "ratis-server/.../impl/RaftServerImpl.java:498, :517 (R9)",
			Loggers:  []string{"RaftServer$Division", "RaftServerImpl"},
			Literals: []string{"Succeed to remove RaftStorageDirectory", " is renamed successfully"},
			Pattern: regexp.MustCompile(`^(?P<member>` + memberRe + `): ` +
				`(?:Succeed to remove RaftStorageDirectory|Group \S+ is renamed successfully)`),
		},
		{
			// R8 ClosePipelineCommandHandler.java:166 (A.5, E.1 #15).
			//   A ozone-1.1.0..master "Close Pipeline {} command on datanode {}."
			//     with PipelineID ("PipelineID=<uuid>" ≤2.0.0, "Pipeline-<uuid>"
			//     2.1.0+) and the datanode UUID (:75 @1.1.0, :142 @2.0.0, :166 @2.1.0+)
			//   B ozone-1.0.0 "Close Pipeline #{} command on datanode #{}." with
			//     the HddsProtos.PipelineID protobuf, whose text form spans lines:
			//     `id: "<uuid>"` / `uuid128 {` / `  mostSigBits: ..` / `  leastSigBits: ..`
			//     / `}` (ClosePipelineCommandHandler.java:78 @1.0.0)
			Kind:     ClosePipelineDone,
			Source:   "hadoop-hdds/container-service/.../commandhandler/ClosePipelineCommandHandler.java:166 (R8); @1.0.0 :78",
			Loggers:  []string{"ClosePipelineCommandHandler"},
			Literals: []string{" command on datanode ", "Close Pipeline #id: "},
			Pattern: regexp.MustCompile(`(?s)^Close Pipeline (?:#id: "(?P<pipeline>[0-9a-fA-F-]{36})".*?|(?P<pipeline>\S+))` +
				` command on datanode #?(?P<dnuuid>[0-9a-fA-F-]{36})`),
		},
		{
			// C1 CloseContainerCommandHandler.java:156 (A.4) with its cause
			// C1a/C1b/C1c (A.6) in the continuation lines. Same text in every
			// release (:129 @1.0.0); the Ratis causes read alike in every bundled
			// Ratis (RaftServerImpl.java:518-519, RaftServerProxy.java:127 @ratis-1.0.0).
			Kind:     CloseContainerFailed,
			Source:   "hadoop-hdds/container-service/.../commandhandler/CloseContainerCommandHandler.java:156 (C1)",
			Loggers:  []string{"CloseContainerCommandHandler"},
			Literals: []string{"Can't close container #"},
			Pattern: regexp.MustCompile(`(?s)^Can't close container #(?P<container>\d+)` +
				`(?:.*?(?:ServerNotReadyException: (?P<_snrmember>` + memberRe + `) is not in \[[A-Z, _]*\]: current state is (?P<state>[A-Z_]+)` +
				`|GroupMismatchException: (?P<_gmpeer>[^\s:]+): (?:Group )?(?P<_gmgroup>` + groupRe + `) not found` +
				`|(?P<_rejected>RejectedExecutionException)))?`),
			Post: closeFailureCause,
		},
		{
			// C3 CloseContainerCommandHandler.java:135 (A.4); ozone-1.3.0+
			// (:112 @1.3.0); earlier releases log no line for this quasi-close.
			Kind:     ContainerQuasiClosed,
			Source:   "hadoop-hdds/container-service/.../commandhandler/CloseContainerCommandHandler.java:135 (C3)",
			Loggers:  []string{"CloseContainerCommandHandler"},
			Literals: []string{"Marking Container "},
			Pattern:  regexp.MustCompile(`^Marking Container #?(?P<container>\d+) quasi closed`),
		},
		{
			// dn-container log, ContainerLogger.java:75-77 with the reason of
			// ContainerStateMachine.java:1325-1326 (A.5): the healthy
			// quasi-close on group removal.
			//   A ozone-2.0.0..master "... | Ratis group removed. Group id: group-X"
			//     (ContainerStateMachine.java:1293 @2.0.0)
			//   B ozone-1.4.x "... | Ratis group removed" (:1121 @1.4.0), no group
			// ContainerLogger (the dn-container log) does not exist before 1.4.0.
			Kind:     ContainerQuasiClosed,
			Source:   "hadoop-hdds/container-service/.../utils/ContainerLogger.java:75 (A.5 dn-container)",
			Literals: []string{"Ratis group removed"},
			Pattern: regexp.MustCompile(`ID=(?P<container>\d+) \|.*?State=QUASI_CLOSED \|(?:.*? \|)? ` +
				`Ratis group removed(?:\. Group id: (?P<group>` + groupRe + `))?`),
		},
		{
			// S11 ReplicationManager.java:666 with a CloseContainerCommand
			// (CloseContainerCommand.java:89-100) and ContainerInfo
			// (ContainerInfo.java:334-342) rendered (A.3). ozone-1.4.0+; 1.4.x
			// print "closeContainerCommand: containerID: <id>, pipelineID:
			// PipelineID=<uuid>, force: <b>" (no cmdID/term), 2.0.0+ the form with
			// cmdID, term and deadline (see ReplicaDeleteCommand).
			Kind:     SCMCloseContainerCommand,
			Source:   "hadoop-hdds/server-scm/.../container/replication/ReplicationManager.java:666 (S11)",
			Loggers:  []string{"ReplicationManager"},
			Literals: []string{"Sending command [closeContainerCommand"},
			Pattern: regexp.MustCompile(`^Sending command \[closeContainerCommand: .*?containerID: (?P<container>\d+), ` +
				`pipelineID: (?P<pipeline>[^,\]]+), force: (?P<_forced>true|false)\] ` +
				`for container ContainerInfo\{id=#\d+, state=(?P<state>[A-Z_]+)[^}]*\} ` +
				`to (?P<dn>[0-9a-fA-F-]{36}(?:\([^)]*\)|\{[^}]*\})?)`),
			Post: func(s *Signal, m Groups) bool {
				s.Force = m.Get("_forced") == "true"
				return true
			},
		},
	}
}

// closeFailureCause turns the cause groups of a C1 record into Reason, Peer,
// Group and State.
func closeFailureCause(s *Signal, m Groups) bool {
	switch {
	case m.Get("_snrmember") != "":
		s.Reason = "ServerNotReadyException"
		setField(s, "member", m.Get("_snrmember"))
	case m.Get("_gmgroup") != "":
		s.Reason = "GroupMismatchException"
		s.Peer, s.Group = m.Get("_gmpeer"), m.Get("_gmgroup")
	case m.Get("_rejected") != "":
		s.Reason = "RejectedExecutionException"
	}
	return true
}
