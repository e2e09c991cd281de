// Package olddatanode detects HDDS-17425: on the ZDU branch, a datanode on
// older software that registered while SCM was finalizing keeps
// heartbeating after SCM finalized. Every SCM logs the ERROR pair "Datanode
// … is older than SCM software version … and SCM is finalized" + "Invalid
// datanode in the cluster" on each of its heartbeats, yet the node stays
// HEALTHY and counts as finalized.
package olddatanode

import (
	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Facts["pattern"] values: which finding a Finding is.
const (
	patternOlder = "older-datanode-after-finalization"
	patternNewer = "newer-datanode-after-finalization"
)

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

The same detector raises a separate warning (Facts pattern "newer-datanode-after-finalization") when
master/2.x's "Invalid data node in the cluster : <host>. DataNode SoftwareLayoutVersion = N, SCM
SoftwareLayoutVersion = M" (a datanode NEWER than SCM) keeps repeating more than a few heartbeat
intervals after SCM logged its finalization. That line before finalization, stopping once SCM
finalizes, is the known HDDS-17090 behaviour and stays quiet. The separate finding is not HDDS-17425;
its title says so.`,
		Remediation: []string{
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}Compare versions: datanode {{join .Entities.Datanodes}} reports software layout version {{fact . "datanode_software_version"}}, above SCM's {{fact . "scm_software_version"}}, although SCM finalized at {{fact . "finalization_logged"}}. Check ` + "`ozone admin scm finalizationstatus`" + ` and ` + "`ozone admin om finalizationstatus`" + `, and the STARTUP_MSG "version =" of that datanode and of the SCMs.{{else}}Identify the node: {{join .Entities.Datanodes}} runs {{fact . "datanode_software_version"}}{{with fact . "datanode_ozone_version"}} (Ozone {{.}}){{end}}, SCM runs {{fact . "scm_software_version"}}{{with fact . "scm_ozone_version"}} (Ozone {{.}}){{end}}. Run ` + "`ozone admin upgrade status --verbose`" + `: "Datanodes finalized: N/N" while "Min Datanode Apparent Version" is lower than "SCM Apparent Version" ({{fact . "scm_apparent_version"}}) confirms it. On /prom the datanode's ` + "`ozone_build_info`" + ` version label and ` + "`component_version_manager_metrics_software_version`" + ` are lower than the SCM's.{{end}}`,
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}SCM must be upgraded before datanodes: upgrade the SCMs to the datanode's release, or reinstall {{fact . "datanode_host"}} with the SCMs' release (inferred).{{else}}Upgrade the software of {{fact . "datanode_host"}} to the SCM's version and restart it: it re-registers and the SCM leader logs "Sending finalize command to datanode …" for it. Restarting it on the old software only changes the symptom: its registration is refused (T31 alone, and the datanode logs "SCM rejected this datanode's registration …").{{end}}`,
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}If the node must leave the cluster meanwhile: ` + "`ozone admin datanode decommission {{fact . \"datanode_host\"}}`" + ` or stop it (inferred).{{else}}Until then treat "Cluster: FINALIZED" as unreliable. To take the node out instead: ` + "`ozone admin datanode decommission {{fact . \"datanode_host\"}}`" + ` or stop it (inferred).{{end}}`,
			`{{if eq (fact . "pattern") "` + patternNewer + `"}}Confirm that "Invalid data node in the cluster : {{fact . "datanode_host"}}" stops on every SCM.{{else}}Re-check ` + "`ozone admin upgrade status`" + ` (ZDU) or ` + "`ozone admin scm finalizationstatus`" + ` and ` + "`ozone admin om finalizationstatus`" + ` (2.x), and that the ERROR pair for {{fact . "datanode_host"}} stopped on every SCM.{{end}}`,
		},
		FalsePositives: []string{
			"T31 alone when a datanode (re)registers after finalization: correct fencing, its registration is refused (quiet).",
			"T32 + T30 (datanode NEWER than SCM: wrong upgrade order) and T32b + T30 (apparent version above SCM's): real misconfigurations but a different fault (quiet).",
			"A rolling upgrade with SCM pre-finalized: old datanodes heartbeat silently (only DEBUG lines); nothing at ERROR (quiet).",
			"Master/2.x 'Invalid data node in the cluster' (two words) for a newer datanode before SCM finalized, stopping once it finalized (HDDS-17090, quiet); 'Data node … can not be used in any pipeline' WARNs until datanodes finalize are normal.",
			"A single T31+T30 pair per SCM (one heartbeat) and then silence: the node was stopped or fenced at once (quiet).",
			"Master 'Invalid data node in the cluster' repeating with no SCM finalization in the input: the HDDS-17090 state, or a finalization outside the input — cannot be told apart (quiet).",
		},
		Resolves: "When the T31+T30 pair has stopped for that datanode for longer than resolve_heartbeats heartbeat intervals before the end of the input — e.g. the datanode was upgraded (a new 'Registered datanode' and 'Sending finalize command to datanode' for it) or restarted on old software and refused (T31 alone). Facts 'resolution' says which was seen. The newer-datanode finding resolves the same way when its line stops.",
		Kinds: []catalogue.Kind{
			catalogue.OldDatanodeOnFinalizedSCM, catalogue.InvalidDatanode, catalogue.NewerDatanodeThanSCM,
			catalogue.DatanodeApparentAboveSCM, catalogue.FinalizeCommandSent, catalogue.DatanodeRegistered,
			catalogue.InvalidDataNodeLayout, catalogue.DatanodeRegistrationRefused, catalogue.UpgradeFinalizeRequested,
			catalogue.UpgradeFinalized, catalogue.StartupMsg, catalogue.ShutdownMsg,
		},
		Needs: []parsers.Component{parsers.ComponentSCM},
	}
}
