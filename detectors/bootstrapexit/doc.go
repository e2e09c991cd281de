// Package bootstrapexit recognises HDDS-16839: an OM started with
// `ozone om --bootstrap` takes a failed reply from the leader as final and
// exits, while the OM ring commits the configuration that makes it a voter.
// The ring then has a voter that is down.
package bootstrapexit

import (
	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func doc() detectors.Doc {
	return detectors.Doc{
		Name:    "om-bootstrap-exit-voter",
		Defect:  "HDDS-16839",
		Title:   "Bootstrapping OM exited on a failed reply but the ring committed it as a voter",
		Summary: "An OM started with --bootstrap exited after \"Failed to Bootstrap OM.\" while the other OMs applied a configuration that lists it.",
		Explanation: "`ozone om --bootstrap` asks the leader OM to add the new OM to the Ratis ring " +
			"(OzoneManagerRatisServer.addOMToRatisRing → RaftServer.setConfiguration). Any reply with success=false " +
			"makes the new OM log \"Failed to Bootstrap OM.\", print \"Failed to Bootstrap OM. Error Code: ..., Error Message: ...\" " +
			"to stderr (the .out file) and exit with status 255, without a RECEIVED SIGNAL or \"Terminating with exit status\" line " +
			"before its SHUTDOWN_MSG: it never retries. But a failed reply does not mean the ring is unchanged. If the leader " +
			"loses leadership after the transitional (old,new) configuration reached a majority, it answers NotLeaderException " +
			"(leader log: \"Failed to add OM ... in Ratis group ... NotLeaderException\", then a step-down such as " +
			"LOST_MAJORITY_HEARTBEATS) and the next leader commits the configuration anyway. If the bootstrap request was " +
			"retried while the first one was still being applied, the retry gets \"Reconfiguration is already in progress\" " +
			"and the first one later succeeds (\"add OM ... in Ratis group ...\"). Either way every OM then applies a configuration " +
			"whose peer list contains the exited OM (\"notifyConfigurationChanged from Ratis: ... New Peer list: ..., <node>(<address>)\"). " +
			"The ring now counts a voter that is down: one more failure can cost it its majority.\n\n" +
			"The detector follows each OM process (STARTUP_MSG args, RECEIVED SIGNAL, Terminating, SHUTDOWN_MSG), takes the " +
			"bootstrap error from the .out file when the bundle has it, learns which OM node runs on which host from the OMs' " +
			"own lines and peer lists, and compares the peer lists of the configurations the other OMs apply (not the mere " +
			"presence of the line: it appears at every election). It is critical when an applied configuration lists an OM " +
			"whose bootstrap process exited and has not started again; a warning when the bundle holds the new OM's side only.",
		Remediation: []string{
			"{{if eq (fact . \"ring\") \"unknown\"}}The bundle does not show the ring after the exit: on the other OMs, look for " +
				"`notifyConfigurationChanged from Ratis: ... New Peer list: ...` lines after {{fact . \"exit_time\"}} and check " +
				"whether {{fact . \"om_node\"}} is in the peer list, or check the leader's `{{fact . \"heartbeat_metric\"}}` on its " +
				":9874/prom (it grows without bound for a voter that is down). " +
				"{{else}}Confirm on the existing OMs that the applied configuration lists {{fact . \"om_node\"}} " +
				"(`notifyConfigurationChanged from Ratis: ... New Peer list: ..., {{fact . \"om_node\"}}(...)` after " +
				"{{fact . \"exit_time\"}}). {{end}}Note that `ozone admin om roles --service-id={{fact . \"om_service_id\"}}` " +
				"lists {{fact . \"om_node\"}} as FOLLOWER even when its process is gone: check the process on " +
				"{{fact . \"om_address\"}} (or Prometheus `up` for its :9874 endpoint) instead.",
			"Start the OM on {{fact . \"om_address\"}} normally, without --bootstrap: `ozone --daemon start om` (or `ozone om` " +
				"in the foreground), with ozone-site.xml listing all OMs. It is already a voter in the committed configuration " +
				"and catches up by installing a snapshot. Do not re-run `ozone om --bootstrap`: the leader already holds " +
				"{{fact . \"om_node\"}} and the request fails again.",
			"Verify: the OM's new STARTUP_MSG shows `args = []`, it logs `Received install snapshot notification from OM leader` " +
				"and `Install Checkpoint is finished`, the leader's `Failed appendEntries` warnings for `...->{{fact . \"om_node\"}}` " +
				"stop and `{{fact . \"heartbeat_metric\"}}` drops back to a few hundred milliseconds.",
			"Alternatively remove the node from the ring: add {{fact . \"om_node\"}} to `ozone.om.decommissioned.nodes` in " +
				"ozone-site.xml on all OMs, then run `ozone admin om decommission --service-id={{fact . \"om_service_id\"}} " +
				"--nodeid={{fact . \"om_node\"}} --node-host-address={{fact . \"om_address\"}}` (the node must be stopped, which it is). " +
				"Verify that the leader logs `remove OM {{fact . \"om_node\"}} in Ratis group ...` and that the next " +
				"`notifyConfigurationChanged` peer list on every OM no longer contains it.",
			"Do not transfer leadership to {{fact . \"om_node\"}} (`ozone admin om transfer`): it is not a fix and the node is down.",
		},
		FalsePositives: []string{
			"A failed bootstrap that did not change the ring: the config pre-check exit (\"Terminating with exit status 1: ... " +
				"do not have or have incorrect information of the bootstrapping OM\"), or an error code LEADER_UNDETERMINED, " +
				"LEADER_NOT_READY, RATIS_NOT_ENABLED, or \"Fail to set configuration ... due to NOPROGRESS\" (staging failed). " +
				"The detector stays quiet for these unless an applied configuration lists the node afterwards.",
			"notifyConfigurationChanged and \"set configuration\" lines appear at every election; only a peer list that " +
				"contains the exited node counts.",
			"LOST_MAJORITY_HEARTBEATS step-downs and \"Failed appendEntries\" warnings happen on GC pauses and ordinary OM " +
				"restarts; an operator stop has \"RECEIVED SIGNAL 15: SIGTERM\" before SHUTDOWN_MSG and is not this defect.",
			"A successful bootstrap (\"Successfully bootstrapped OM ... and joined the Ratis group ...\", process keeps running).",
			"A failed bootstrap followed by another --bootstrap run on the same host: when no applied configuration listed " +
				"the node before the re-run started, the earlier failure left the ring unchanged and stays quiet. The re-run is " +
				"judged on its own: its configuration and the leader's \"add OM\" for it are not the earlier failure's, and a " +
				"re-run that fails and leaves the node in the ring is reported as its own exit. Only the re-run's pre-check " +
				"\"Remote OM ... already contains bootstrapping OM\" shows that the earlier failure left the node in the ring.",
			"A warning (new OM's side only) may be a benign failure: the bundle cannot show whether the ring changed.",
		},
		Resolves: "When the exited OM starts again on its host (a later STARTUP_MSG without --bootstrap, or with --bootstrap " +
			"followed by \"Successfully bootstrapped OM\"), or when the OMs that listed it apply a configuration that no longer " +
			"does (or the leader logs \"remove OM <node> in Ratis group\"): the node was decommissioned. " +
			"A warning (the ring's side not seen) is raised thirty clock tolerances (15m by default) after the exit, or at the " +
			"end of the input if that comes first; it escalates to critical when the ring later lists the node, and resolves " +
			"when the bootstrap is run again before the ring listed it or when the other OMs log after the exit without listing it.",
		Kinds: []catalogue.Kind{
			catalogue.StartupMsg, catalogue.ShutdownMsg, catalogue.SignalReceived, catalogue.Terminating,
			catalogue.OMBootstrapFailed, catalogue.OMBootstrapError, catalogue.OMBootstrapped,
			catalogue.OMRatisStarting, catalogue.OMStopping, catalogue.OMRemoteHasBootstrapNode,
			catalogue.OMPeerChangeSubmitted, catalogue.OMPeerChangeFailed, catalogue.OMPeerChanged,
			catalogue.OMSetConfReceived, catalogue.OMConfChanged, catalogue.OMRaftConfSet, catalogue.OMRoleChanged,
		},
		Needs:   []parsers.Component{parsers.ComponentOM},
		Package: "bootstrapexit",
		// Affected and fixed versions, read in apache/ozone's history (mirror at
		// 2026-08-22; newest tag ozone-2.2.0, 2026-08-03): `git log --all
		// --grep HDDS-16839` finds nothing. `ozone om --bootstrap` came with
		// HDDS-4330 (839fc94e1b0, 2021-07-23; `git tag --contains`: first
		// ozone-1.2.0-RC0, ozone-1.2.0), and OzoneManager.bootstrap has thrown
		// on the first failed reply, without retry, since (read at
		// ozone-1.2.0 OzoneManager.java:1420, OMInterServiceProtocolClientSideImpl.java:113).
		Affected:     ">=1.2.0",
		VersionsRead: "since ozone-1.2.0 (HDDS-4330, 839fc94e1b0, 2021-07-23, added --bootstrap with no retry of a failed reply); HDDS-16839 is in no commit of apache/ozone: not fixed in any release as of ozone-2.2.0 (2026-08-03)",
		// An exit that the ring has not shown by thirty clock tolerances
		// (15m by default) after it is reported then as a warning; an open
		// attempt stays until it resolves (bounded in number). What the
		// horizon forgets is closed attempts and the ring-wide and
		// leader-side lines kept for attempts recognised later: a re-run
		// or a decommission a day after the exit is judged without them.
		Horizon: horizon,
		Options: []detectors.Option{{Name: "clock_tolerance", Kind: detectors.OptionDuration, Default: "30s", Min: "0s",
			Doc: "how far apart two OM hosts' clocks may be; the exit is reported as a warning when the ring has not shown itself thirty tolerances after it"}},
	}
}
