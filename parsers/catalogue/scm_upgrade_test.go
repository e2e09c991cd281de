package catalogue

import (
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

const (
	nodeManagerLogger = "org.apache.hadoop.hdds.scm.node.SCMNodeManager"
	dn3Details        = "7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c(dn3.example.com/10.0.0.13)"
	dn3UUID           = "7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c"
)

func matchOne(t *testing.T, c *Catalogue, logger, msg string) []Signal {
	t.Helper()
	first, _, _ := strings.Cut(msg, "\n")
	sigs := c.Match(&parsers.Record{Time: time.Unix(1, 0), Logger: logger, Message: msg})
	if len(sigs) > 0 && !c.Candidate(nil, []byte(first)) {
		t.Errorf("%q matched but its first line is not a candidate", first)
	}
	return sigs
}

func TestSCMUpgradeEntries(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		kind                Kind
		dn                  Datanode
		version, version2   string
		apparent, apparent2 string
		reason, state       string
		count               int64
		attrs               map[string]string
	}
	cases := []struct {
		name, logger, msg string
		want              want
	}{
		{
			// T31 SCMNodeManager.java:2068 [ZDU] (signatures-scm.md §2.2)
			"T31", nodeManagerLogger,
			"Datanode " + dn3Details + " has software version STORAGE_SPACE_DISTRIBUTION (10) which is older than SCM software version ZDU (100) and SCM is finalized. Datanode must be upgraded to join the cluster.",
			want{kind: OldDatanodeOnFinalizedSCM, dn: Datanode{UUID: dn3UUID, Host: "dn3.example.com", IP: "10.0.0.13"},
				version: "STORAGE_SPACE_DISTRIBUTION (10)", version2: "ZDU (100)"},
		},
		{
			// T30 SCMNodeManager.java:771 [ZDU] (§2.2)
			"T30", nodeManagerLogger,
			"Invalid datanode in the cluster : dn3.example.com. Datanode software version = STORAGE_SPACE_DISTRIBUTION (10), Datanode apparent version = STORAGE_SPACE_DISTRIBUTION (10), SCM software version = ZDU (100) SCM apparent version = ZDU (100)",
			want{kind: InvalidDatanode, dn: Datanode{Host: "dn3.example.com"}, version: "STORAGE_SPACE_DISTRIBUTION (10)", version2: "ZDU (100)",
				apparent: "STORAGE_SPACE_DISTRIBUTION (10)", apparent2: "ZDU (100)"},
		},
		{
			// T30 with an unknown deserialised version (§0.1) and a %c{2} logger (L2).
			"T30-unknown-version", "node.SCMNodeManager",
			"Invalid datanode in the cluster : dn3. Datanode software version = UNKNOWN_VERSION (-1), Datanode apparent version = UNKNOWN_VERSION (-1), SCM software version = ZDU (100) SCM apparent version = ZDU (100)",
			want{kind: InvalidDatanode, dn: Datanode{Host: "dn3"}, version: "UNKNOWN_VERSION (-1)", version2: "ZDU (100)",
				apparent: "UNKNOWN_VERSION (-1)", apparent2: "ZDU (100)"},
		},
		{
			// T32 SCMNodeManager.java:2060 [ZDU]
			"T32", "SCMNodeManager",
			"Datanode " + dn3Details + " has software version ZDU (100) which is newer than SCM software version STORAGE_SPACE_DISTRIBUTION (10). SCM must be upgraded before datanodes.",
			want{kind: NewerDatanodeThanSCM, dn: Datanode{UUID: dn3UUID, Host: "dn3.example.com", IP: "10.0.0.13"},
				version: "ZDU (100)", version2: "STORAGE_SPACE_DISTRIBUTION (10)"},
		},
		{
			// T32b SCMNodeManager.java:2076 [ZDU]
			"T32b", "SCMNodeManager:2076",
			"Datanode " + dn3Details + " has apparent version ZDU (100) which is higher than SCM apparent version STORAGE_SPACE_DISTRIBUTION (10). SCM must finalize before datanodes.",
			want{kind: DatanodeApparentAboveSCM, dn: Datanode{UUID: dn3UUID, Host: "dn3.example.com", IP: "10.0.0.13"},
				version: "ZDU (100)", version2: "STORAGE_SPACE_DISTRIBUTION (10)"},
		},
		{
			// T33 SCMNodeManager.java:2043 [ZDU]
			"T33", nodeManagerLogger,
			"Datanode " + dn3Details + " did not report its version. Not allowing it to join the cluster.",
			want{kind: DatanodeVersionUnreported, dn: Datanode{UUID: dn3UUID, Host: "dn3.example.com", IP: "10.0.0.13"}},
		},
		{
			// T34 SCMNodeManager.java:794 [ZDU]
			"T34", nodeManagerLogger,
			"Sending finalize command to datanode " + dn3Details + " with apparent version STORAGE_SPACE_DISTRIBUTION (10) which is less than SCM's finalized apparent version ZDU (100)",
			want{kind: FinalizeCommandSent, dn: Datanode{UUID: dn3UUID, Host: "dn3.example.com", IP: "10.0.0.13"},
				version: "STORAGE_SPACE_DISTRIBUTION (10)", version2: "ZDU (100)"},
		},
		{
			// T35 SCMNodeManager.java:444 [ZDU] / :447 master, toDebugString().
			"T35", nodeManagerLogger,
			"Registered datanode: " + dn3UUID + "{ip: 10.0.0.13, host: dn3.example.com, ports: {REPLICATION=9886, RATIS=9858, STANDALONE=9859}, networkLocation: /default-rack, certSerialId: null, persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}",
			want{kind: DatanodeRegistered, dn: Datanode{UUID: dn3UUID, Host: "dn3.example.com", IP: "10.0.0.13"}},
		},
		{
			// master SCMNodeManager.java:777 (§2.3)
			"master-invalid-data-node", nodeManagerLogger,
			"Invalid data node in the cluster : dn2.example.com. DataNode SoftwareLayoutVersion = 9, SCM SoftwareLayoutVersion = 8",
			want{kind: InvalidDataNodeLayout, dn: Datanode{Host: "dn2.example.com"}, version: "9", version2: "8"},
		},
		{
			// RegisterEndpointTask.java:122 [ZDU] (trailing space as in source)
			"dn-registration-refused", "org.apache.hadoop.ozone.container.common.states.endpoint.RegisterEndpointTask",
			"SCM rejected this datanode's registration with software version STORAGE_SPACE_DISTRIBUTION (10) and apparent version STORAGE_SPACE_DISTRIBUTION (10). This datanode will shut down. Check SCM logs for details and verify that the datanode software version is compatible with the cluster. ",
			want{kind: DatanodeRegistrationRefused, version: "STORAGE_SPACE_DISTRIBUTION (10)", version2: "STORAGE_SPACE_DISTRIBUTION (10)"},
		},
		{
			// SCMClientProtocolServer.java:1187 [ZDU]
			"forced-finalize", "org.apache.hadoop.hdds.scm.server.SCMClientProtocolServer",
			"Forcing upgrade finalization by skipping SCM peer and datanode software version checks",
			want{kind: UpgradeFinalizeRequested, reason: "forced"},
		},
		{
			// OMStartFinalizeUpgradeRequest.java:93 [ZDU]
			"om-triggered", "org.apache.hadoop.ozone.om.request.upgrade.OMStartFinalizeUpgradeRequest",
			"Successfully triggered the finalize upgrade process in SCM",
			want{kind: UpgradeFinalizeRequested, attrs: map[string]string{"scope": "SCM"}},
		},
		{
			// BasicUpgradeFinalizer.java:316 (§2.3)
			"finalization-started", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer",
			"Finalization started.",
			want{kind: UpgradeFinalizeRequested},
		},
		{
			// SCMUpgradeFinalizer.java:57 (§2.3)
			"checkpoint-started", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer",
			"SCM Finalization has crossed checkpoint FINALIZATION_STARTED",
			want{kind: UpgradeFinalizeRequested, state: "FINALIZATION_STARTED", attrs: map[string]string{"scope": "SCM"}},
		},
		{
			// SCMClientProtocolServer.java:1258 [ZDU]
			"finalize-rejected-datanodes", "org.apache.hadoop.hdds.scm.server.SCMClientProtocolServer",
			"Rejecting finalize command: not all 5 healthy datanodes are running SCM's software version ZDU (100).",
			want{kind: UpgradeFinalizeRejected, reason: "datanodes", count: 5, version: "ZDU (100)"},
		},
		{
			// SCMClientProtocolServer.java:1228 [ZDU]
			"finalize-rejected-peer", "org.apache.hadoop.hdds.scm.server.SCMClientProtocolServer",
			"SCM peer scm2 is running software version STORAGE_SPACE_DISTRIBUTION (10) but leader is running version ZDU (100). Rejecting finalize command.",
			want{kind: UpgradeFinalizeRejected, reason: "scm-peer", version: "STORAGE_SPACE_DISTRIBUTION (10)", version2: "ZDU (100)"},
		},
		{
			// ComponentVersionManager.java:100 [ZDU]
			"version-finalized", "org.apache.hadoop.ozone.upgrade.ComponentVersionManager",
			"Version ZDU (100) has been finalized.",
			want{kind: UpgradeFinalized, version: "ZDU (100)"},
		},
		{
			// OMUpgradeFinalizeService.java:121 [ZDU]
			"om-saw-scm-finalized", "org.apache.hadoop.ozone.om.upgrade.OMUpgradeFinalizeService",
			"The SCM Upgrade has been finalized. OM will now finalize. Run count 3",
			want{kind: UpgradeFinalized, count: 3, attrs: map[string]string{"scope": "SCM"}},
		},
		{
			// BasicUpgradeFinalizer.java:311 (§2.3)
			"finalization-done", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer",
			"Finalization is done.",
			want{kind: UpgradeFinalized},
		},
		{
			// AbstractLayoutVersionManager.java:126 (§2.3)
			"finalization-complete", "org.apache.hadoop.ozone.upgrade.AbstractLayoutVersionManager",
			"Finalization is complete.",
			want{kind: UpgradeFinalized},
		},
		{
			// SCMUpgradeFinalizer.java:57 (§2.3), no logger column (L3-like record).
			"checkpoint-complete", "",
			"SCM Finalization has crossed checkpoint FINALIZATION_COMPLETE",
			want{kind: UpgradeFinalized, state: "FINALIZATION_COMPLETE", attrs: map[string]string{"scope": "SCM"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sigs := matchOne(t, c, tc.logger, tc.msg)
			if len(sigs) != 1 {
				t.Fatalf("got %d signals: %+v", len(sigs), sigs)
			}
			s, w := sigs[0], tc.want
			if s.Kind != w.kind || s.Datanode != w.dn || s.Version != w.version || s.Version2 != w.version2 ||
				s.Apparent != w.apparent || s.Apparent2 != w.apparent2 ||
				s.Reason != w.reason || s.State != w.state || s.Count != w.count {
				t.Errorf("got kind=%s dn=%+v version=%q version2=%q apparent=%q apparent2=%q reason=%q state=%q count=%d",
					s.Kind, s.Datanode, s.Version, s.Version2, s.Apparent, s.Apparent2, s.Reason, s.State, s.Count)
			}
			for k, v := range w.attrs {
				if s.Attrs[k] != v {
					t.Errorf("attr %s = %q, want %q (attrs %v)", k, s.Attrs[k], v, s.Attrs)
				}
			}
			if len(s.Attrs) != len(w.attrs) {
				t.Errorf("attrs %v, want %v", s.Attrs, w.attrs)
			}
		})
	}
}

func TestSCMUpgradeNearMisses(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	upgradeKinds := map[Kind]bool{}
	for _, e := range scmUpgradeEntries() {
		upgradeKinds[e.Kind] = true
	}
	cases := []struct{ name, logger, msg string }{
		// Master's pipeline warning on every heartbeat of a not yet finalized DN (§2.3): normal.
		{"pipeline-warn", nodeManagerLogger, "Data node dn3.example.com can not be used in any pipeline in the cluster. DataNode MetadataLayoutVersion = 7, SCM MetadataLayoutVersion = 8"},
		// Raft log replay of an already finalized version (§2.2): not a new finalization.
		{"already-finalized", "org.apache.hadoop.ozone.upgrade.ComponentVersionManager", "Finalize attempt on a version which has already been finalized. ZDU (100) This can happen when Raft Log is replayed during service restart."},
		// Per-feature line and intermediate checkpoint (§2.3).
		{"layout-feature", "org.apache.hadoop.ozone.upgrade.AbstractLayoutVersionManager", "Layout feature HBASE_SUPPORT has been finalized."},
		{"checkpoint-mlv", "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer", "SCM Finalization has crossed checkpoint MLV_EQUALS_SLV"},
		// Right text, wrong logger: another class's message must not be taken for SCM's.
		{"wrong-logger", "org.apache.hadoop.hdds.scm.node.NodeStateManager", "Invalid datanode in the cluster : dn3.example.com. Datanode software version = STORAGE_SPACE_DISTRIBUTION (10), Datanode apparent version = STORAGE_SPACE_DISTRIBUTION (10), SCM software version = ZDU (100) SCM apparent version = ZDU (100)"},
		// DEBUG lines of the status computation (§2.2).
		{"debug-not-finalized", "org.apache.hadoop.hdds.scm.node.NodeManager", "Datanode " + dn3Details + " has not yet finalized: apparent version=STORAGE_SPACE_DISTRIBUTION (10), software version=STORAGE_SPACE_DISTRIBUTION (10)"},
		{"not-leader", nodeManagerLogger, "Skip sending finalize upgrade command since current SCM is not leader."},
		{"skip-finalize", nodeManagerLogger, "Skip sending finalize command to datanode " + dn3Details + " because its apparent version matches SCM's apparent version ZDU (100)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range matchOne(t, c, tc.logger, tc.msg) {
				if upgradeKinds[s.Kind] {
					t.Errorf("near miss produced %s: %+v", s.Kind, s)
				}
			}
		})
	}
	// The two "Invalid ..." wordings map to different kinds.
	zdu := matchOne(t, c, nodeManagerLogger, "Invalid datanode in the cluster : dn3.example.com. Datanode software version = A (1), Datanode apparent version = A (1), SCM software version = B (2) SCM apparent version = B (2)")
	master := matchOne(t, c, nodeManagerLogger, "Invalid data node in the cluster : dn3.example.com. DataNode SoftwareLayoutVersion = 9, SCM SoftwareLayoutVersion = 8")
	if len(zdu) != 1 || zdu[0].Kind != InvalidDatanode || len(master) != 1 || master[0].Kind != InvalidDataNodeLayout {
		t.Errorf("wordings: zdu %+v, master %+v", zdu, master)
	}
	// T31 and T32 differ only by older/newer.
	older := matchOne(t, c, nodeManagerLogger, "Datanode "+dn3Details+" has software version A (1) which is older than SCM software version B (2) and SCM is finalized. Datanode must be upgraded to join the cluster.")
	newer := matchOne(t, c, nodeManagerLogger, "Datanode "+dn3Details+" has software version B (2) which is newer than SCM software version A (1). SCM must be upgraded before datanodes.")
	if len(older) != 1 || older[0].Kind != OldDatanodeOnFinalizedSCM || len(newer) != 1 || newer[0].Kind != NewerDatanodeThanSCM {
		t.Errorf("older %+v, newer %+v", older, newer)
	}
}
