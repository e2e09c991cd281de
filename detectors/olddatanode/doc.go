// Package olddatanode detects HDDS-17425: on the ZDU branch, a datanode on
// older software that registered while SCM was finalizing keeps
// heartbeating after SCM finalized. Every SCM logs the ERROR pair "Datanode
// … is older than SCM software version … and SCM is finalized" + "Invalid
// datanode in the cluster" on each of its heartbeats, yet the node stays
// HEALTHY and counts as finalized. A datanode running NEWER software than
// SCM (wrong upgrade order) is reported separately, as an unclassified
// warning, never as HDDS-17425.
package olddatanode

import (
	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Facts["pattern"] values: which finding a Finding is.
const (
	patternOlder = "older-datanode-after-finalization"
	patternNewer = "datanode-newer-than-scm"
)

// Facts["wording"] values of the newer-datanode finding: which SCM check
// logged it.
const (
	wordingMaster = "'Invalid data node in the cluster' (master/2.x)"
	wordingZDU    = "the 'newer than SCM software version … SCM must be upgraded before datanodes' + 'Invalid datanode in the cluster' ERROR pair (ZDU)"
)

// titleNewer is the title of the newer-datanode finding.
const titleNewer = "Datanode runs newer software than SCM: wrong upgrade order (not HDDS-17425)"

func doc() detectors.Doc {
	return detectors.Doc{
		Name:    "old-datanode-after-finalize",
		Defect:  "HDDS-17425",
		Title:   "Datanode on older software stays HEALTHY after SCM finalized",
		Summary: "Every SCM logs the 'older than SCM software version … and SCM is finalized' + 'Invalid datanode in the cluster' ERROR pair on each heartbeat of one datanode, which is never fenced.",
		Explanation: `On the ZDU branch (HDDS-14496-zdu) SCMNodeManager checks each heartbeat's version report
(sendFinalizeToDatanodeIfNeeded). For a datanode whose software is older than SCM's while SCM is
finalized, shouldFenceDatanode logs "Datanode <uuid>(<host>/<ip>) has software version X which is older
than SCM software version Y and SCM is finalized. Datanode must be upgraded to join the cluster." (T31)
and the caller logs "Invalid datanode in the cluster : <host>. Datanode software version = …" (T30) —
and returns. The node is not fenced: it stays registered and HEALTHY, and because its apparent version
equals its own software version it is counted as finalized, so "ozone admin upgrade status" reports
"Cluster: FINALIZED" and "Datanodes finalized: N/N". The check runs before the leader check, on every
SCM, for every heartbeat (hdds.heartbeat.interval, 30 s by default), so the signature is the T31+T30
pair repeating for the same datanode on the leader and on the followers. Such a node got in by
registering while SCM still needed finalization: registration after finalization is refused (T31
alone). The finding reports the datanode, its version and SCM's, first/last seen, the heartbeat count,
and whether a finalization was logged in the input.

Confidence: high = the pair repeated on at least min_heartbeats heartbeats on several SCMs (or on the
only SCM in the input) and an SCM finalization is logged; medium = it repeated that often but no
finalization is in the input, or on one SCM while others are present; low = two heartbeats up to
min_heartbeats-1; a single pair raises nothing (the node was stopped or fenced at once).

Severity is warning: no data is lost, but the cluster reports FINALIZED wrongly and OM finalizes as
soon as HDDS says FINALIZED, with a node in the cluster that runs older software.

A datanode running NEWER software than SCM is a different fault and never an HDDS-17425 finding. SCM
logs it with master/2.x's "Invalid data node in the cluster : <host>. DataNode SoftwareLayoutVersion = N,
SCM SoftwareLayoutVersion = M" (two words "data node"; logged whenever the datanode's software layout
version is above SCM's, and processing goes on) or, on the ZDU branch, with the pair "Datanode … has
software version X which is newer than SCM software version Y. SCM must be upgraded before datanodes."
(T32) + "Invalid datanode in the cluster" (T30). Both compare software (layout) versions, fixed by the
installed release; finalization changes neither, so the lines do not stop when SCM finalizes — they stop
when SCM runs the datanode's release (or the datanode an older one); no finalization grace applies. SCM
itself calls the state invalid (the master code's comment: a datanode "from a future version of ozone …
should not have been added to the cluster"; T32: "SCM must be upgraded before datanodes"), so it is worth
reporting, but on its own. The detector treats both wordings alike, whether or not and whenever a finalization is in the input: when either repeats for the
same datanode on at least min_heartbeats heartbeats of one SCM it raises a separate warning (Defect
"unclassified", Facts pattern "datanode-newer-than-scm", title "Datanode runs newer software than SCM:
wrong upgrade order (not HDDS-17425)", confidence high: SCM's own check names the fault). Fewer
heartbeats (SCM upgraded right after the datanode) stay quiet. T32b + T30 (apparent version above SCM's,
"SCM must finalize before datanodes") is no newer software and raises nothing.`,
		Remediation: []string{
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}Compare versions: datanode {{join .Entities.Datanodes}} reports {{fact . "version_kind"}} {{fact . "datanode_software_version"}}, above SCM's {{fact . "scm_software_version"}}. Check the STARTUP_MSG "version =" of that datanode and of the SCMs{{with fact . "datanode_ozone_version"}} (the datanode printed {{.}}){{end}}. SCM's finalization state does not matter: the check compares software versions, which finalization does not change.{{else}}Identify the node: {{join .Entities.Datanodes}} runs {{fact . "datanode_software_version"}}{{with fact . "datanode_ozone_version"}} (Ozone {{.}}){{end}}, SCM runs {{fact . "scm_software_version"}}{{with fact . "scm_ozone_version"}} (Ozone {{.}}){{end}}. Run ` + "`ozone admin upgrade status --verbose`" + `: "Datanodes finalized: N/N" while "Min Datanode Apparent Version" is lower than "SCM Apparent Version" ({{fact . "scm_apparent_version"}}) confirms it. On /prom the datanode's ` + "`ozone_build_info`" + ` version label and ` + "`component_version_manager_metrics_software_version`" + ` are lower than the SCM's.{{end}}`,
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}SCM must be upgraded before datanodes: upgrade the SCMs to the datanode's release, or reinstall {{fact . "datanode_host"}} with the SCMs' release (inferred).{{else}}Upgrade the software of {{fact . "datanode_host"}} to the SCM's version and restart it: it re-registers and the SCM leader logs "Sending finalize command to datanode …" for it. Restarting it on the old software only changes the symptom: its registration is refused (T31 alone, and the datanode logs "SCM rejected this datanode's registration …").{{end}}`,
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}If the node must leave the cluster meanwhile: ` + "`ozone admin datanode decommission {{fact . \"datanode_host\"}}`" + ` or stop it (inferred).{{else}}Until then treat "Cluster: FINALIZED" as unreliable. To take the node out instead: ` + "`ozone admin datanode decommission {{fact . \"datanode_host\"}}`" + ` or stop it (inferred).{{end}}`,
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}Confirm that {{fact . "wording"}} for {{fact . "datanode_host"}} stops on every SCM.{{else}}Re-check ` + "`ozone admin upgrade status`" + ` (ZDU) or ` + "`ozone admin scm finalizationstatus`" + ` and ` + "`ozone admin om finalizationstatus`" + ` (2.x), and that the ERROR pair for {{fact . "datanode_host"}} stopped on every SCM.{{end}}`,
		},
		FalsePositives: []string{
			"T31 alone when a datanode (re)registers after finalization: correct fencing, its registration is refused (quiet).",
			"T32 + T30 (ZDU) or master/2.x 'Invalid data node in the cluster' (two words): a datanode NEWER than SCM, a different fault. Never an HDDS-17425 finding; repeated on ≥ min_heartbeats heartbeats they raise the separate unclassified 'wrong upgrade order' warning, whatever the finalization state; on fewer heartbeats (SCM upgraded right after the datanode) they stay quiet.",
			"T32b + T30 (apparent version above SCM's): a real misconfiguration but a different fault (quiet).",
			"A rolling upgrade with SCM pre-finalized: old datanodes heartbeat silently (only DEBUG lines); nothing at ERROR (quiet).",
			"'Data node … can not be used in any pipeline' WARNs (master/2.x) until datanodes finalize are normal (quiet).",
			"A single T31+T30 pair per SCM (one heartbeat) and then silence: the node was stopped or fenced at once (quiet).",
		},
		Resolves: "When the T31+T30 pair has stopped for that datanode for longer than resolve_heartbeats heartbeat intervals before the end of the input — e.g. the datanode was upgraded (a new 'Registered datanode' and 'Sending finalize command to datanode' for it) or restarted on old software and refused (T31 alone). Facts 'resolution' says which was seen. The newer-datanode finding resolves the same way when its lines stop (e.g. after the SCMs restarted on the datanode's release).",
		Kinds: []catalogue.Kind{
			catalogue.OldDatanodeOnFinalizedSCM, catalogue.InvalidDatanode, catalogue.NewerDatanodeThanSCM,
			catalogue.DatanodeApparentAboveSCM, catalogue.FinalizeCommandSent, catalogue.DatanodeRegistered,
			catalogue.InvalidDataNodeLayout, catalogue.DatanodeRegistrationRefused, catalogue.UpgradeFinalizeRequested,
			catalogue.UpgradeFinalized, catalogue.StartupMsg, catalogue.ShutdownMsg,
		},
		Needs:   []parsers.Component{parsers.ComponentSCM},
		Package: "olddatanode",
		// Affected and fixed versions, read in apache/ozone's history (mirror at
		// 2026-08-22; newest tag ozone-2.2.0, 2026-08-03): `git log --all
		// --grep HDDS-17425` finds nothing. The unfenced T31+T30 path is
		// HDDS-15377's shouldFenceDatanode (a66822e64fc, 2026-06-09), on
		// branch HDDS-14496-zdu only (`git branch --contains`; `git tag
		// --contains` is empty), whose pom.xml says 2.3.0-SNAPSHOT — as
		// master's does, so a version cannot tell a ZDU build from a master
		// one. Every release up to 2.2.x (and the ozone-2.2 branch,
		// 2.2.1-SNAPSHOT) lacks the code: an SCM on one of them cannot have
		// the defect.
		Affected:     ">=2.3.0",
		VersionsRead: "only builds of branch HDDS-14496-zdu (HDDS-15377, a66822e64fc, 2026-06-09; pom 2.3.0-SNAPSHOT, like master's); in no release tag. HDDS-17425 is in no commit of apache/ozone: not fixed in any release as of ozone-2.2.0 (2026-08-03)",
		// An occurrence resolves by itself resolve_heartbeats heartbeat
		// intervals after its last pair (1m30s by default); what the
		// horizon forgets is resolved occurrences, kept to attach what
		// ended them (a re-registration, a finalize command, a shutdown,
		// an SCM restart), which follows within minutes of the last pair.
		// A day is ample; registrations, STARTUP_MSG versions and banner
		// host names are identities, forgotten only beyond their limit.
		Horizon: horizon,
		Options: []detectors.Option{
			{Name: "min_heartbeats", Kind: detectors.OptionInt, Default: "3", Min: "2",
				Doc: "heartbeats one SCM must log the pair for before the finding is more than low confidence (the newer-datanode finding needs them all)"},
			{Name: "resolve_heartbeats", Kind: detectors.OptionInt, Default: "3", Min: "2",
				Doc: "heartbeat intervals without a pair after which an occurrence is resolved"},
		},
	}
}
