package catalogue

import "regexp"

// SCM upgrade and datanode version signals (shared/ozone signatures-scm.md
// §2): the ZDU branch's version fence in SCMNodeManager (T30–T35), the
// master/2.x layout-version line, and the finalization milestones logged by
// SCM, OM and datanodes.
const (
	// OldDatanodeOnFinalizedSCM: T31, a datanode whose software is older
	// than SCM's while SCM is finalized (ZDU). Datanode (UUID, host, IP),
	// Version = the datanode's software version, Version2 = SCM's.
	OldDatanodeOnFinalizedSCM Kind = "old_datanode_on_finalized_scm"
	// InvalidDatanode: T30, "Invalid datanode in the cluster" (ZDU), logged
	// after T31/T32/T32b on heartbeats. Datanode.Host, Version = the
	// datanode's software version, Version2 = SCM's software version;
	// Apparent and Apparent2 = the datanode's and SCM's apparent versions
	// (typed fields, not Attrs: a sick cluster logs it on every heartbeat).
	InvalidDatanode Kind = "invalid_datanode"
	// NewerDatanodeThanSCM: T32, a datanode whose software is newer than
	// SCM's (wrong upgrade order, ZDU). Datanode, Version = the datanode's
	// software version, Version2 = SCM's.
	NewerDatanodeThanSCM Kind = "newer_datanode_than_scm"
	// DatanodeApparentAboveSCM: T32b, a datanode whose apparent version is
	// above SCM's (ZDU). Datanode, Version = the datanode's apparent
	// version, Version2 = SCM's.
	DatanodeApparentAboveSCM Kind = "datanode_apparent_above_scm"
	// DatanodeVersionUnreported: T33, registration refused because the
	// datanode sent no version (ZDU). Datanode.
	DatanodeVersionUnreported Kind = "datanode_version_unreported"
	// FinalizeCommandSent: T34, the SCM leader tells a datanode to finalize
	// (ZDU). Datanode, Version = the datanode's apparent version, Version2 =
	// SCM's finalized apparent version.
	FinalizeCommandSent Kind = "finalize_command_sent"
	// DatanodeRegistered: T35/B27 "Registered datanode: {}" (1.4.0+;
	// "Registered Data node : {}" up to 1.3.0). Datanode (UUID, host, IP from
	// the long DatanodeDetails form).
	DatanodeRegistered Kind = "datanode_registered"
	// InvalidDataNodeLayout: master/2.x "Invalid data node in the cluster",
	// a datanode whose software layout version is above SCM's.
	// Datanode.Host, Version = the datanode's SLV, Version2 = SCM's SLV.
	InvalidDataNodeLayout Kind = "invalid_data_node_layout"
	// DatanodeRegistrationRefused: the datanode's own line when SCM refuses
	// its registration (ZDU). Version = its software version, Version2 = its
	// apparent version; the datanode is the logging host.
	DatanodeRegistrationRefused Kind = "datanode_registration_refused"
	// UpgradeFinalizeRequested: an upgrade finalization was started. Reason
	// = "forced" when SCM skipped its peer and datanode version checks, else
	// "". Attrs scope = "SCM" when the line names SCM's finalization.
	UpgradeFinalizeRequested Kind = "upgrade_finalize_requested"
	// UpgradeFinalizeRejected: SCM refused a finalize request (ZDU). Reason =
	// "datanodes" (Count = healthy datanodes, Version = SCM's software
	// version) or "scm-peer" (Peer, Version = the peer's, Version2 = the
	// leader's software version).
	UpgradeFinalizeRejected Kind = "upgrade_finalize_rejected"
	// UpgradeFinalized: a component completed its upgrade finalization, or
	// (Attrs scope = "SCM") a line says SCM's finalization completed.
	// Version = the finalized version when the line names one; Count = OM's
	// run count for the OM line.
	UpgradeFinalized Kind = "upgrade_finalized"
)

func scmUpgradeEntries() []Entry {
	return []Entry{
		{
			// T31 [ZDU] node/SCMNodeManager.java:2068 (signatures-scm.md §2.2).
			Kind:     OldDatanodeOnFinalizedSCM,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:2068 [ZDU] (T31)",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{" and SCM is finalized. Datanode must be upgraded"},
			Pattern: regexp.MustCompile(`Datanode (?P<dn>.+?) has software version (?P<version>.+?) which is older than ` +
				`SCM software version (?P<version2>.+?) and SCM is finalized\. Datanode must be upgraded to join the cluster\.`),
		},
		{
			// T30 [ZDU] node/SCMNodeManager.java:771 (§2.2); no comma before "SCM apparent version".
			Kind:     InvalidDatanode,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:771 [ZDU] (T30)",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{"Invalid datanode in the cluster : "},
			Pattern: regexp.MustCompile(`Invalid datanode in the cluster : (?P<dnhost>\S+?)\. ` +
				`Datanode software version = (?P<version>.+?), Datanode apparent version = (?P<apparent>.+?), ` +
				`SCM software version = (?P<version2>.+?) SCM apparent version = (?P<apparent2>[^\n]*[^\s])`),
		},
		{
			// T32 [ZDU] node/SCMNodeManager.java:2060 (§2.2).
			Kind:     NewerDatanodeThanSCM,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:2060 [ZDU] (T32)",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{". SCM must be upgraded before datanodes."},
			Pattern: regexp.MustCompile(`Datanode (?P<dn>.+?) has software version (?P<version>.+?) which is newer than ` +
				`SCM software version (?P<version2>.+?)\. SCM must be upgraded before datanodes\.`),
		},
		{
			// T32b [ZDU] node/SCMNodeManager.java:2076 (§2.2).
			Kind:     DatanodeApparentAboveSCM,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:2076 [ZDU] (T32b)",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{". SCM must finalize before datanodes."},
			Pattern: regexp.MustCompile(`Datanode (?P<dn>.+?) has apparent version (?P<version>.+?) which is higher than ` +
				`SCM apparent version (?P<version2>.+?)\. SCM must finalize before datanodes\.`),
		},
		{
			// T33 [ZDU] node/SCMNodeManager.java:2043 (§2.2), registration only.
			Kind:     DatanodeVersionUnreported,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:2043 [ZDU] (T33)",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{" did not report its version. Not allowing it to join"},
			Pattern:  regexp.MustCompile(`Datanode (?P<dn>.+?) did not report its version\. Not allowing it to join the cluster\.`),
		},
		{
			// T34 [ZDU] node/SCMNodeManager.java:794 (§2.2), leader only.
			Kind:     FinalizeCommandSent,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:794 [ZDU] (T34)",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{"Sending finalize command to datanode "},
			Pattern: regexp.MustCompile(`Sending finalize command to datanode (?P<dn>.+?) with apparent version (?P<version>.+?) ` +
				`which is less than SCM's finalized apparent version (?P<version2>[^\n]*[^\s])`),
		},
		{
			// T35 [ZDU] node/SCMNodeManager.java:444, master :447 (B27).
			//   A ozone-1.4.0..master "Registered datanode: {}" with
			//     toDebugString() (SCMNodeManager.java:405 @1.4.0)
			//   B ozone-1.0.0..1.3.0 "Registered Data node : {}" with toString(),
			//     which was then the long form "<uuid>{ip: .., host: .., ...}"
			//     (SCMNodeManager.java:273 @1.0.0, :397 @1.3.0)
			Kind:     DatanodeRegistered,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:447 (T35, B27); ≤1.3 :397",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{"Registered datanode: ", "Registered Data node : "},
			Pattern:  regexp.MustCompile(`^Registered (?:datanode: |Data node : )(?P<dn>[^\n]+)`),
		},
		{
			// master node/SCMNodeManager.java:777, 2.2.0 :773 (§2.3); DN SLV > SCM SLV.
			// Same text since ozone-1.2.0 (:589 @1.2.0); absent before (no layout versions).
			Kind:     InvalidDataNodeLayout,
			Source:   "hadoop-hdds/server-scm/.../node/SCMNodeManager.java:777 (§2.3)",
			Loggers:  []string{"SCMNodeManager"},
			Literals: []string{"Invalid data node in the cluster : "},
			Pattern: regexp.MustCompile(`Invalid data node in the cluster : (?P<dnhost>\S+?)\. ` +
				`DataNode SoftwareLayoutVersion = (?P<version>-?\d+), SCM SoftwareLayoutVersion = (?P<version2>-?\d+)`),
		},
		{
			// [ZDU] container-service .../states/endpoint/RegisterEndpointTask.java:122 (§2.2).
			Kind:     DatanodeRegistrationRefused,
			Source:   "hadoop-hdds/container-service/.../states/endpoint/RegisterEndpointTask.java:122 [ZDU]",
			Loggers:  []string{"RegisterEndpointTask"},
			Literals: []string{"SCM rejected this datanode's registration"},
			Pattern: regexp.MustCompile(`SCM rejected this datanode's registration with software version (?P<version>.+?) ` +
				`and apparent version (?P<version2>.+?)\. This datanode will shut down\.`),
		},
		{
			// [ZDU] server/SCMClientProtocolServer.java:1187 (§2.2).
			Kind:     UpgradeFinalizeRequested,
			Source:   "hadoop-hdds/server-scm/.../server/SCMClientProtocolServer.java:1187 [ZDU]",
			Loggers:  []string{"SCMClientProtocolServer"},
			Literals: []string{"Forcing upgrade finalization by skipping"},
			Pattern:  regexp.MustCompile(`Forcing upgrade finalization by skipping SCM peer and datanode software version checks`),
			Post: func(s *Signal, _ Groups) bool {
				s.Reason = "forced"
				return true
			},
		},
		{
			// [ZDU] om/request/upgrade/OMStartFinalizeUpgradeRequest.java:93 (§2.2).
			Kind:     UpgradeFinalizeRequested,
			Source:   "hadoop-ozone/ozone-manager/.../om/request/upgrade/OMStartFinalizeUpgradeRequest.java:93 [ZDU]",
			Loggers:  []string{"OMStartFinalizeUpgradeRequest"},
			Literals: []string{"Successfully triggered the finalize upgrade process in SCM"},
			Pattern:  regexp.MustCompile(`Successfully triggered the finalize upgrade process in (?P<scope>SCM)`),
		},
		{
			// BasicUpgradeFinalizer.java:306, logged :316 (§2.3); interface logger UpgradeFinalizer.
			// Same text since ozone-1.2.0 (hadoop-hdds/common/.../BasicUpgradeFinalizer.java:332 @1.2.0).
			Kind:     UpgradeFinalizeRequested,
			Source:   "hadoop-hdds/framework/.../ozone/upgrade/BasicUpgradeFinalizer.java:316 (§2.3)",
			Loggers:  []string{"UpgradeFinalizer"},
			Literals: []string{"Finalization started."},
			Pattern:  regexp.MustCompile(`^Finalization started\.`),
		},
		{
			// SCMUpgradeFinalizer.java:57 (§2.3), checkpoint FINALIZATION_STARTED;
			// since ozone-1.3.0 (:61 @1.3.0).
			Kind:     UpgradeFinalizeRequested,
			Source:   "hadoop-hdds/server-scm/.../server/upgrade/SCMUpgradeFinalizer.java:57 (§2.3)",
			Loggers:  []string{"UpgradeFinalizer", "SCMUpgradeFinalizer"},
			Literals: []string{"SCM Finalization has crossed checkpoint "},
			Pattern:  regexp.MustCompile(`(?P<scope>SCM) Finalization has crossed checkpoint (?P<state>FINALIZATION_STARTED)\b`),
		},
		{
			// [ZDU] server/SCMClientProtocolServer.java:1258 (§2.2).
			Kind:     UpgradeFinalizeRejected,
			Source:   "hadoop-hdds/server-scm/.../server/SCMClientProtocolServer.java:1258 [ZDU]",
			Loggers:  []string{"SCMClientProtocolServer"},
			Literals: []string{"Rejecting finalize command: not all "},
			Pattern: regexp.MustCompile(`Rejecting finalize command: not all (?P<count>\d+) healthy datanodes are running ` +
				`SCM's software version (?P<version>.+?)\.$`),
			Post: func(s *Signal, _ Groups) bool {
				s.Reason = "datanodes"
				return true
			},
		},
		{
			// [ZDU] server/SCMClientProtocolServer.java:1228 (§2.2).
			Kind:     UpgradeFinalizeRejected,
			Source:   "hadoop-hdds/server-scm/.../server/SCMClientProtocolServer.java:1228 [ZDU]",
			Loggers:  []string{"SCMClientProtocolServer"},
			Literals: []string{"but leader is running version "},
			Pattern: regexp.MustCompile(`SCM peer (?P<peer>\S+) is running software version (?P<version>.+?) ` +
				`but leader is running version (?P<version2>.+?)\. Rejecting finalize command\.`),
			Post: func(s *Signal, _ Groups) bool {
				s.Reason = "scm-peer"
				return true
			},
		},
		{
			// [ZDU] hadoop-hdds/framework/.../ozone/upgrade/ComponentVersionManager.java:100 (§2.2),
			// one per version step on leader and followers.
			Kind:     UpgradeFinalized,
			Source:   "hadoop-hdds/framework/.../ozone/upgrade/ComponentVersionManager.java:100 [ZDU]",
			Loggers:  []string{"ComponentVersionManager"},
			Literals: []string{" has been finalized."},
			Pattern:  regexp.MustCompile(`^Version (?P<version>.+?) has been finalized\.$`),
		},
		{
			// [ZDU] om/upgrade/OMUpgradeFinalizeService.java:121 (§2.2): OM saw SCM finalized.
			Kind:     UpgradeFinalized,
			Source:   "hadoop-ozone/ozone-manager/.../om/upgrade/OMUpgradeFinalizeService.java:121 [ZDU]",
			Loggers:  []string{"OMUpgradeFinalizeService"},
			Literals: []string{" has been finalized."},
			Pattern:  regexp.MustCompile(`The (?P<scope>SCM) Upgrade has been finalized\. OM will now finalize\. Run count (?P<count>\d+)`),
		},
		{
			// BasicUpgradeFinalizer.java:311 (§2.3); interface logger UpgradeFinalizer.
			// Same text since ozone-1.2.0 (:337 @1.2.0).
			Kind:     UpgradeFinalized,
			Source:   "hadoop-hdds/framework/.../ozone/upgrade/BasicUpgradeFinalizer.java:311 (§2.3)",
			Loggers:  []string{"UpgradeFinalizer"},
			Literals: []string{"Finalization is done."},
			Pattern:  regexp.MustCompile(`^Finalization is done\.`),
		},
		{
			// AbstractLayoutVersionManager.java:126 (§2.3); since ozone-1.3.0 (:129 @1.3.0).
			Kind:     UpgradeFinalized,
			Source:   "hadoop-hdds/framework/.../ozone/upgrade/AbstractLayoutVersionManager.java:126 (§2.3)",
			Loggers:  []string{"AbstractLayoutVersionManager"},
			Literals: []string{"Finalization is complete."},
			Pattern:  regexp.MustCompile(`^Finalization is complete\.`),
		},
		{
			// SCMUpgradeFinalizer.java:57 (§2.3), checkpoint FINALIZATION_COMPLETE;
			// since ozone-1.3.0 (:61 @1.3.0).
			Kind:     UpgradeFinalized,
			Source:   "hadoop-hdds/server-scm/.../server/upgrade/SCMUpgradeFinalizer.java:57 (§2.3)",
			Loggers:  []string{"UpgradeFinalizer", "SCMUpgradeFinalizer"},
			Literals: []string{"SCM Finalization has crossed checkpoint "},
			Pattern:  regexp.MustCompile(`(?P<scope>SCM) Finalization has crossed checkpoint (?P<state>FINALIZATION_COMPLETE)\b`),
		},
	}
}
