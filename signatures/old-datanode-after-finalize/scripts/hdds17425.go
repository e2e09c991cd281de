// Package scripts renders HDDS-17425's occurrences and near misses for the
// cases of the old-datanode-after-finalize signature and of
// datanode-newer-than-scm, which shares them.
package scripts

import (
	"fmt"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// HDDS-17425 (ZDU branch): a datanode on older software that registered
// while SCM was finalizing keeps heartbeating after SCM finalized; every SCM
// logs T31 then T30 for it on every heartbeat and the node stays HEALTHY
// (shared/ozone signatures-scm.md §2). Near misses: correct fencing at
// registration, a datanode whose apparent version is above SCM's (T32b +
// T30), a normal pre-finalized rolling upgrade, and a datanode NEWER than
// SCM — master's "Invalid data node in the cluster" or ZDU's T32 + T30 —
// which is never HDDS-17425: repeated, it is a wrong upgrade order (a
// separate finding); it stops only when SCM runs the datanode's release,
// since the check compares software versions, which finalization does not
// change (§2.3).

const (
	h17425NodeManagerClass      = "org.apache.hadoop.hdds.scm.node.SCMNodeManager"
	h17425VersionManagerClass   = "org.apache.hadoop.ozone.upgrade.ComponentVersionManager"
	h17425UpgradeFinalizerClass = "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer"
	h17425LayoutManagerClass    = "org.apache.hadoop.ozone.upgrade.AbstractLayoutVersionManager"
	h17425RegisterEndpointClass = "org.apache.hadoop.ozone.container.common.states.endpoint.RegisterEndpointTask"

	// ZDU component versions as ComponentVersion.toString prints them (§0.1).
	h17425ZduVersion = "ZDU (100)"
	h17425OldVersion = "STORAGE_SPACE_DISTRIBUTION (10)"
	// Ozone release the old datanode runs (STARTUP_MSG version).
	h17425OldRelease = "2.1.1"
	// Software layout versions for master's "Invalid data node" line (§2.3).
	h17425ScmSLV, h17425NewerDNSLV = 10, 11
)

func Scripts() map[string]scenario.Script {
	return map[string]scenario.Script{
		// Positive: registered during finalization, pair on every SCM until the end.
		"hdds17425/registered-during-finalization": func(s *scenario.Scenario, at time.Time) {
			dn := h17425OldDatanode(s)
			end := h17425ZduFinalizeWithLateRegistration(s, at, dn)
			h17425OldPairs(s, dn, end, s.End)
		},
		// Positive: the whole cluster was restarted on the new release (banners
		// name the versions), then the old datanode slips in during finalization.
		"hdds17425/upgraded-cluster-old-datanode": func(s *scenario.Scenario, at time.Time) {
			s.StartCluster(at)
			dn := h17425OldDatanode(s)
			end := h17425ZduFinalizeWithLateRegistration(s, at.Add(10*time.Minute), dn)
			h17425OldPairs(s, dn, end, s.End)
		},
		// Positive (medium): the pair repeats; the finalization happened before the bundle starts.
		"hdds17425/finalization-not-in-bundle": func(s *scenario.Scenario, at time.Time) {
			h17425OldPairs(s, h17425OldDatanode(s), at, s.End)
		},
		// Positive (low): two heartbeats only, then the datanode is stopped.
		"hdds17425/two-heartbeats": func(s *scenario.Scenario, at time.Time) {
			dn := h17425OldDatanode(s)
			end := h17425ZduFinalizeWithLateRegistration(s, at, dn)
			hb := h17425HeartbeatInterval(s)
			last := h17425OldPairs(s, dn, end, end.Add(2*hb))
			h17425DatanodeStops(s, dn, last.Add(5*time.Second))
		},
		// Positive, resolved: the datanode is upgraded after 20 minutes.
		"hdds17425/datanode-upgraded": func(s *scenario.Scenario, at time.Time) {
			dn := h17425OldDatanode(s)
			end := h17425ZduFinalizeWithLateRegistration(s, at, dn)
			last := h17425OldPairs(s, dn, end, end.Add(20*time.Minute))
			stop := last.Add(7 * time.Second)
			h17425DatanodeStops(s, dn, stop)
			up := stop.Add(40 * time.Second)
			s.Startup(dn, up, "")
			h17425Registered(s, dn, up.Add(6*time.Second))
			h17425FinalizeCommands(s, []scenario.Node{dn}, up.Add(6*time.Second+h17425HeartbeatInterval(s)))
		},
		// Positive, resolved: restarted on the old software, now fenced at registration.
		"hdds17425/restarted-on-old-software": func(s *scenario.Scenario, at time.Time) {
			dn := h17425OldDatanode(s)
			end := h17425ZduFinalizeWithLateRegistration(s, at, dn)
			last := h17425OldPairs(s, dn, end, end.Add(15*time.Minute))
			stop := last.Add(4 * time.Second)
			h17425DatanodeStops(s, dn, stop)
			h17425FencedRestart(s, dn, stop.Add(30*time.Second))
		},
		// Near miss: finalized cluster, an old datanode is started later and refused (correct fencing).
		"hdds17425/fenced-at-registration": func(s *scenario.Scenario, at time.Time) {
			dn := h17425OldDatanode(s)
			h17425ZduFinalize(s, at, h17425Others(s, dn))
			h17425FencedRestart(s, dn, at.Add(10*time.Minute))
			h17425FencedRestart(s, dn, at.Add(25*time.Minute))
		},
		// Near miss: one pair, then the operator stops the node and it is fenced on restart.
		"hdds17425/single-pair": func(s *scenario.Scenario, at time.Time) {
			dn := h17425OldDatanode(s)
			end := h17425ZduFinalizeWithLateRegistration(s, at, dn)
			last := h17425OldPairs(s, dn, end, end.Add(time.Second))
			h17425DatanodeStops(s, dn, last.Add(8*time.Second))
			h17425FencedRestart(s, dn, last.Add(3*time.Minute))
		},
		// Not HDDS-17425 (separate wrong-upgrade-order finding): datanode newer
		// than SCM, T32 + T30 on every heartbeat until the end.
		"hdds17425/newer-datanode": func(s *scenario.Scenario, at time.Time) {
			h17425NewerPairs(s, h17425OldDatanode(s), at, s.End, false)
		},
		// Near miss, quiet: T32 + T30 on two heartbeats, then the SCMs are
		// upgraded to the datanode's release and the lines stop.
		"hdds17425/newer-datanode-until-scm-upgraded": func(s *scenario.Scenario, at time.Time) {
			hb := h17425HeartbeatInterval(s)
			h17425NewerPairs(s, h17425OldDatanode(s), at, at.Add(hb+hb/2), false)
			h17425UpgradeSCMs(s, at.Add(hb+hb/2), "SCMNodeManager.java:444")
		},
		// Near miss: datanode's apparent version above SCM's, T32b + T30 on every heartbeat.
		"hdds17425/apparent-above-scm": func(s *scenario.Scenario, at time.Time) {
			h17425NewerPairs(s, h17425OldDatanode(s), at, s.End, true)
		},
		// Near miss: a normal ZDU rolling upgrade with SCM pre-finalized, then finalization.
		"hdds17425/rolling-upgrade": func(s *scenario.Scenario, at time.Time) {
			t := at
			for _, dn := range s.Cluster.Datanodes {
				h17425DatanodeStops(s, dn, t)
				s.Startup(dn, t.Add(25*time.Second), "")
				h17425Registered(s, dn, t.Add(31*time.Second))
				t = t.Add(3 * time.Minute)
			}
			h17425ZduFinalize(s, t.Add(5*time.Minute), s.Cluster.Datanodes)
		},
		// Near miss, quiet: master's line for a newer datanode on two
		// heartbeats, then the SCMs are upgraded to its release and it stops.
		"hdds17425/master-newer-until-scm-upgraded": func(s *scenario.Scenario, at time.Time) {
			hb := h17425HeartbeatInterval(s)
			h17425MasterInvalidLines(s, h17425OldDatanode(s), at, at.Add(hb+hb/2))
			h17425UpgradeSCMs(s, at.Add(hb+hb/2), "SCMNodeManager.java:447")
		},
		// Not HDDS-17425 (separate wrong-upgrade-order finding): master's line
		// for a newer datanode repeats on every heartbeat, before and after
		// SCM finalizes; finalization does not change the software layout
		// versions it compares (§2.3).
		"hdds17425/master-newer-datanode": func(s *scenario.Scenario, at time.Time) {
			dn := h17425OldDatanode(s)
			h17425MasterFinalize(s, at.Add(12*time.Minute), h17425Others(s, dn))
			h17425MasterInvalidLines(s, dn, at, s.End)
		},
	}
}

// h17425OldDatanode picks the datanode that plays the old (or newer) software.
func h17425OldDatanode(s *scenario.Scenario) scenario.Node {
	dns := s.Cluster.Datanodes
	return dns[min(2, len(dns)-1)]
}

// h17425Others returns the datanodes except dn.
func h17425Others(s *scenario.Scenario, dn scenario.Node) []scenario.Node {
	var out []scenario.Node
	for _, n := range s.Cluster.Datanodes {
		if n.Host != dn.Host {
			out = append(out, n)
		}
	}
	return out
}

// h17425HeartbeatInterval is hdds.heartbeat.interval from the scenario's site, else 30s.
func h17425HeartbeatInterval(s *scenario.Scenario) time.Duration {
	if v, ok := s.Site["hdds.heartbeat.interval"]; ok {
		if d, err := site.ParseDuration(v, time.Millisecond); err == nil && d > 0 {
			return d
		}
	}
	return 30 * time.Second
}

// h17425IpcThread is a Hadoop IPC handler of SCM's datanode port (§0.2).
func h17425IpcThread(s *scenario.Scenario) string {
	return fmt.Sprintf("IPC Server handler %d on default port 9861", s.Rand.Intn(100))
}

// h17425StateMachineThread is the SCM's Ratis apply thread (name inferred from
// Ratis StateMachineUpdater: "<memberId>-StateMachineUpdater").
func h17425StateMachineThread(s *scenario.Scenario, scm scenario.Node) string {
	return scenario.MemberID(scm, s.Cluster.SCMGroup()) + "-StateMachineUpdater"
}

// h17425Jitter returns up to max of random delay.
func h17425Jitter(s *scenario.Scenario, max time.Duration) time.Duration {
	return time.Duration(s.Rand.Int63n(int64(max)))
}

// h17425OldPairs logs, on every SCM and every heartbeat of dn in [from, to), the
// HDDS-17425 pair T31 + T30. It returns the time of the last heartbeat.
func h17425OldPairs(s *scenario.Scenario, dn scenario.Node, from, to time.Time) time.Time {
	hb := h17425HeartbeatInterval(s)
	last := from
	for t := from; t.Before(to) && t.Before(s.End); t = t.Add(hb + h17425Jitter(s, 300*time.Millisecond)) {
		last = t
		for _, scm := range s.Cluster.SCMs {
			at, th := t.Add(h17425Jitter(s, 400*time.Millisecond)), h17425IpcThread(s)
			// T31 SCMNodeManager.java:2068 [ZDU] (signatures-scm.md §2.2)
			s.Add(scenario.Line{At: at, Host: scm.Host, Level: parsers.LevelError, Logger: h17425NodeManagerClass, Thread: th,
				Msg: "Datanode " + dn.Details() + " has software version " + h17425OldVersion + " which is older than SCM software version " +
					h17425ZduVersion + " and SCM is finalized. Datanode must be upgraded to join the cluster.",
				Source: "SCMNodeManager.java:2068"})
			// T30 SCMNodeManager.java:771 [ZDU] (§2.2)
			s.Add(scenario.Line{At: at.Add(time.Millisecond), Host: scm.Host, Level: parsers.LevelError, Logger: h17425NodeManagerClass, Thread: th,
				Msg: "Invalid datanode in the cluster : " + dn.Host + ". Datanode software version = " + h17425OldVersion +
					", Datanode apparent version = " + h17425OldVersion + ", SCM software version = " + h17425ZduVersion +
					" SCM apparent version = " + h17425ZduVersion,
				Source: "SCMNodeManager.java:771"})
		}
	}
	return last
}

// h17425NewerPairs logs T32 (or T32b) + T30 on every SCM for every heartbeat of a
// datanode newer than SCM.
func h17425NewerPairs(s *scenario.Scenario, dn scenario.Node, from, to time.Time, apparent bool) {
	hb := h17425HeartbeatInterval(s)
	for t := from; t.Before(to) && t.Before(s.End); t = t.Add(hb + h17425Jitter(s, 300*time.Millisecond)) {
		for _, scm := range s.Cluster.SCMs {
			at, th := t.Add(h17425Jitter(s, 400*time.Millisecond)), h17425IpcThread(s)
			dnSoft, dnApp, scmSoft, scmApp := h17425ZduVersion, h17425ZduVersion, h17425OldVersion, h17425OldVersion
			if apparent {
				// T32b SCMNodeManager.java:2076 [ZDU] (§2.2): same software, DN finalized further than SCM.
				scmSoft = h17425ZduVersion
				s.Add(scenario.Line{At: at, Host: scm.Host, Level: parsers.LevelError, Logger: h17425NodeManagerClass, Thread: th,
					Msg: "Datanode " + dn.Details() + " has apparent version " + dnApp + " which is higher than SCM apparent version " +
						scmApp + ". SCM must finalize before datanodes.",
					Source: "SCMNodeManager.java:2076"})
			} else {
				// T32 SCMNodeManager.java:2060 [ZDU] (§2.2)
				dnApp = h17425OldVersion
				s.Add(scenario.Line{At: at, Host: scm.Host, Level: parsers.LevelError, Logger: h17425NodeManagerClass, Thread: th,
					Msg: "Datanode " + dn.Details() + " has software version " + dnSoft + " which is newer than SCM software version " +
						scmSoft + ". SCM must be upgraded before datanodes.",
					Source: "SCMNodeManager.java:2060"})
			}
			// T30 SCMNodeManager.java:771 [ZDU] (§2.2)
			s.Add(scenario.Line{At: at.Add(time.Millisecond), Host: scm.Host, Level: parsers.LevelError, Logger: h17425NodeManagerClass, Thread: th,
				Msg: "Invalid datanode in the cluster : " + dn.Host + ". Datanode software version = " + dnSoft +
					", Datanode apparent version = " + dnApp + ", SCM software version = " + scmSoft +
					" SCM apparent version = " + scmApp,
				Source: "SCMNodeManager.java:771"})
		}
	}
}

// h17425Registered logs T35 on every SCM for dn (ZDU line number).
func h17425Registered(s *scenario.Scenario, dn scenario.Node, at time.Time) {
	h17425RegisteredOn(s, s.Cluster.SCMs, dn, at, "SCMNodeManager.java:444")
}

// h17425RegisteredOn logs T35 on the given SCMs for dn; src is the ZDU
// (:444) or master (:447) line.
func h17425RegisteredOn(s *scenario.Scenario, scms []scenario.Node, dn scenario.Node, at time.Time, src string) {
	for _, scm := range scms {
		// T35 SCMNodeManager.java:444 [ZDU], master :447 (§2.2), arg DatanodeDetails.toDebugString() (§0.1)
		s.Add(scenario.Line{At: at.Add(h17425Jitter(s, 300*time.Millisecond)), Host: scm.Host, Level: parsers.LevelInfo, Logger: h17425NodeManagerClass,
			Thread: h17425IpcThread(s),
			Msg: "Registered datanode: " + dn.UUID + "{ip: " + dn.IP + ", host: " + dn.Host +
				", ports: {REPLICATION=9886, RATIS=9858, RATIS_ADMIN=9857, RATIS_SERVER=9856, RATIS_DATASTREAM=9855, STANDALONE=9859}" +
				", networkLocation: /default-rack, certSerialId: null, persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}",
			Source: src})
	}
}

// h17425UpgradeSCMs: the operator stops every SCM at at and starts it on the
// new release (the cluster's version) 20 s later; SCM's software (layout)
// version is now the newer datanode's. At each datanode's next heartbeat
// every SCM asks it to re-register (SCM forgot it) and registers it again;
// regSrc is T35's line (ZDU :444, master :447).
func h17425UpgradeSCMs(s *scenario.Scenario, at time.Time, regSrc string) {
	for _, scm := range s.Cluster.SCMs {
		t := at.Add(h17425Jitter(s, 2*time.Second))
		s.Signal(scm, t, "SIGTERM")
		s.Shutdown(scm, t.Add(400*time.Millisecond))
		s.Startup(scm, at.Add(20*time.Second+h17425Jitter(s, 2*time.Second)), "")
	}
	back := at.Add(25 * time.Second)
	hb := h17425HeartbeatInterval(s)
	for _, dn := range s.Cluster.Datanodes {
		t := back.Add(h17425Jitter(s, hb))
		for _, scm := range s.Cluster.SCMs {
			ts := t.Add(h17425Jitter(s, 400*time.Millisecond))
			// SCMDatanodeHeartbeatDispatcher.java:91 (signatures-scm.md §1.3, other heartbeat lines)
			s.Add(scenario.Line{At: ts, Host: scm.Host, Level: parsers.LevelInfo,
				Logger: "org.apache.hadoop.hdds.scm.server.SCMDatanodeHeartbeatDispatcher", Thread: h17425IpcThread(s),
				Msg:    "SCM received heartbeat from an unregistered datanode " + dn.Details() + ". Asking datanode to re-register.",
				Source: "SCMDatanodeHeartbeatDispatcher.java:91"})
			h17425RegisteredOn(s, []scenario.Node{scm}, dn, ts.Add(time.Second), regSrc)
		}
	}
}

// h17425FinalizeCommands logs, at the datanodes' next heartbeat after at, T34 on the
// leader SCM and the not-leader skip on the followers (§2.2).
func h17425FinalizeCommands(s *scenario.Scenario, dns []scenario.Node, at time.Time) {
	hb := h17425HeartbeatInterval(s)
	for _, dn := range dns {
		t := at.Add(h17425Jitter(s, hb))
		for i, scm := range s.Cluster.SCMs {
			ts := t.Add(h17425Jitter(s, 400*time.Millisecond))
			if i == 0 {
				// T34 SCMNodeManager.java:794 [ZDU] (§2.2), leader only
				s.Add(scenario.Line{At: ts, Host: scm.Host, Level: parsers.LevelInfo, Logger: h17425NodeManagerClass, Thread: h17425IpcThread(s),
					Msg: "Sending finalize command to datanode " + dn.Details() + " with apparent version " + h17425OldVersion +
						" which is less than SCM's finalized apparent version " + h17425ZduVersion,
					Source: "SCMNodeManager.java:794"})
				continue
			}
			// SCMNodeManager.java:806 [ZDU] (§2.2), followers
			s.Add(scenario.Line{At: ts, Host: scm.Host, Level: parsers.LevelWarn, Logger: h17425NodeManagerClass, Thread: h17425IpcThread(s),
				Msg: "Skip sending finalize upgrade command since current SCM is not leader.", Source: "SCMNodeManager.java:806"})
		}
	}
}

// h17425ZduFinalize logs a ZDU finalization driven by OM at at: OM triggers it,
// every SCM finalizes, the leader sends finalize commands to dns, OM
// finalizes. It returns when the SCMs had finalized.
func h17425ZduFinalize(s *scenario.Scenario, at time.Time, dns []scenario.Node) time.Time {
	om := s.Cluster.OMs[0]
	// OMStartFinalizeUpgradeRequest.java:93 [ZDU] (§2.2); apply thread name inferred
	s.Add(scenario.Line{At: at, Host: om.Host, Level: parsers.LevelInfo,
		Logger: "org.apache.hadoop.ozone.om.request.upgrade.OMStartFinalizeUpgradeRequest",
		Thread: "OMStateMachineApplyTransactionThread - 0",
		Msg:    "Successfully triggered the finalize upgrade process in SCM", Source: "OMStartFinalizeUpgradeRequest.java:93"})
	done := at.Add(8 * time.Second)
	for _, scm := range s.Cluster.SCMs {
		// ComponentVersionManager.java:100 [ZDU] (§2.2), on leader and followers
		s.Add(scenario.Line{At: done.Add(h17425Jitter(s, 500*time.Millisecond)), Host: scm.Host, Level: parsers.LevelInfo,
			Logger: h17425VersionManagerClass, Thread: h17425StateMachineThread(s, scm),
			Msg: "Version " + h17425ZduVersion + " has been finalized.", Source: "ComponentVersionManager.java:100"})
	}
	h17425FinalizeCommands(s, dns, done.Add(time.Second))
	// OMUpgradeFinalizeService.java:121 [ZDU] (§2.2); BackgroundService thread name inferred
	s.Add(scenario.Line{At: done.Add(h17425HeartbeatInterval(s) + 20*time.Second), Host: om.Host, Level: parsers.LevelInfo,
		Logger: "org.apache.hadoop.ozone.om.upgrade.OMUpgradeFinalizeService", Thread: "OMUpgradeFinalizeService#0",
		Msg: "The SCM Upgrade has been finalized. OM will now finalize. Run count 1", Source: "OMUpgradeFinalizeService.java:121"})
	return done
}

// h17425ZduFinalizeWithLateRegistration: dn restarts on its old software while the
// finalization is running and registers before SCM applies it (the guard
// "not all healthy datanodes run SCM's software version" had already
// passed). It returns the time of dn's first heartbeat after SCM finalized.
func h17425ZduFinalizeWithLateRegistration(s *scenario.Scenario, at time.Time, dn scenario.Node) time.Time {
	h17425DatanodeStops(s, dn, at.Add(-50*time.Second))
	h17425OldStartup(s, dn, at.Add(-20*time.Second))
	h17425Registered(s, dn, at.Add(3*time.Second))
	done := h17425ZduFinalize(s, at, h17425Others(s, dn))
	return done.Add(h17425HeartbeatInterval(s) - 5*time.Second)
}

// h17425FencedRestart: dn starts on old software after SCM finalized; every SCM
// refuses its registration with T31 alone and the datanode shuts down.
func h17425FencedRestart(s *scenario.Scenario, dn scenario.Node, at time.Time) {
	h17425OldStartup(s, dn, at)
	reg := at.Add(6 * time.Second)
	for _, scm := range s.Cluster.SCMs {
		// T31 SCMNodeManager.java:2068 [ZDU] (§2.2), alone at registration (SCMNodeManager.java:407)
		s.Add(scenario.Line{At: reg.Add(h17425Jitter(s, 300*time.Millisecond)), Host: scm.Host, Level: parsers.LevelError, Logger: h17425NodeManagerClass,
			Thread: h17425IpcThread(s),
			Msg: "Datanode " + dn.Details() + " has software version " + h17425OldVersion + " which is older than SCM software version " +
				h17425ZduVersion + " and SCM is finalized. Datanode must be upgraded to join the cluster.",
			Source: "SCMNodeManager.java:2068"})
	}
	scm := s.Cluster.SCMs[0]
	// RegisterEndpointTask.java:122 [ZDU] (§2.2); endpoint thread name per layouts.md pitfall 3
	s.Add(scenario.Line{At: reg.Add(500 * time.Millisecond), Host: dn.Host, Level: parsers.LevelError, Logger: h17425RegisterEndpointClass,
		Thread: "EndpointStateMachineTaskThread-" + scm.Host + "/" + scm.IP + ":9861-0 ",
		Msg: "SCM rejected this datanode's registration with software version " + h17425OldVersion + " and apparent version " + h17425OldVersion +
			". This datanode will shut down. Check SCM logs for details and verify that the datanode software version is compatible with the cluster. ",
		Source: "RegisterEndpointTask.java:122"})
	s.Shutdown(dn, reg.Add(2*time.Second))
}

// h17425DatanodeStops: an operator stops dn (SIGTERM, SHUTDOWN_MSG).
func h17425DatanodeStops(s *scenario.Scenario, dn scenario.Node, at time.Time) {
	s.Signal(dn, at, "SIGTERM")
	s.Shutdown(dn, at.Add(300*time.Millisecond))
}

// h17425OldStartup logs dn's STARTUP_MSG banner with the old Ozone release.
func h17425OldStartup(s *scenario.Scenario, dn scenario.Node, at time.Time) {
	cur := s.Cluster.Version
	s.Cluster.Version = h17425OldRelease
	s.Startup(dn, at, "")
	s.Cluster.Version = cur
}

// h17425MasterFinalize logs a master/2.x SCM finalization starting at at on every
// SCM (§2.3); it returns when the SCMs logged "Finalization is done.". The
// other datanodes log nothing here; SCM warns once for each of them until
// they finalize.
func h17425MasterFinalize(s *scenario.Scenario, at time.Time, dns []scenario.Node) time.Time {
	var done time.Time
	for i, scm := range s.Cluster.SCMs {
		t := at.Add(h17425Jitter(s, time.Second))
		th := h17425StateMachineThread(s, scm)
		add := func(d time.Duration, level parsers.Level, logger, msg, src string) {
			s.Add(scenario.Line{At: t.Add(d), Host: scm.Host, Level: level, Logger: logger, Thread: th, Msg: msg, Source: src})
		}
		// BasicUpgradeFinalizer.java:316 (§2.3)
		add(0, parsers.LevelInfo, h17425UpgradeFinalizerClass, "Finalization started.", "BasicUpgradeFinalizer.java:316")
		// SCMUpgradeFinalizer.java:57 (§2.3)
		add(5*time.Millisecond, parsers.LevelInfo, h17425UpgradeFinalizerClass, "SCM Finalization has crossed checkpoint FINALIZATION_STARTED", "SCMUpgradeFinalizer.java:57")
		// SCMUpgradeFinalizer.java:131-134, logged :159 (§2.3), two lines
		add(9*time.Millisecond, parsers.LevelInfo, h17425UpgradeFinalizerClass,
			"  Existing pipelines and containers will be closed during Upgrade.\n  New pipelines creation will remain frozen until Upgrade is finalized.",
			"SCMUpgradeFinalizer.java:159")
		// BasicUpgradeFinalizer.java:300 (§2.3)
		add(40*time.Millisecond, parsers.LevelInfo, h17425UpgradeFinalizerClass, "No onFinalize work defined for feature: STORAGE_SPACE_DISTRIBUTION.", "BasicUpgradeFinalizer.java:300")
		// AbstractLayoutVersionManager.java:124 (§2.3)
		add(42*time.Millisecond, parsers.LevelInfo, h17425LayoutManagerClass, "Layout feature STORAGE_SPACE_DISTRIBUTION has been finalized.", "AbstractLayoutVersionManager.java:124")
		// AbstractLayoutVersionManager.java:126 (§2.3)
		add(43*time.Millisecond, parsers.LevelInfo, h17425LayoutManagerClass, "Finalization is complete.", "AbstractLayoutVersionManager.java:126")
		// SCMUpgradeFinalizer.java:57 (§2.3)
		add(60*time.Millisecond, parsers.LevelInfo, h17425UpgradeFinalizerClass, "SCM Finalization has crossed checkpoint MLV_EQUALS_SLV", "SCMUpgradeFinalizer.java:57")
		if i == 0 {
			// SCMUpgradeFinalizer.java:192, :201 (§2.3), leader
			add(70*time.Millisecond, parsers.LevelInfo, h17425UpgradeFinalizerClass, "Waiting for at least one open Ratis 3 pipeline after SCM finalization.", "SCMUpgradeFinalizer.java:192")
			add(2*time.Second, parsers.LevelInfo, h17425UpgradeFinalizerClass, "Open pipeline found after SCM finalization", "SCMUpgradeFinalizer.java:201")
		}
		// SCMUpgradeFinalizer.java:57 (§2.3)
		add(2100*time.Millisecond, parsers.LevelInfo, h17425UpgradeFinalizerClass, "SCM Finalization has crossed checkpoint FINALIZATION_COMPLETE", "SCMUpgradeFinalizer.java:57")
		// BasicUpgradeFinalizer.java:311 (§2.3)
		add(2110*time.Millisecond, parsers.LevelInfo, h17425UpgradeFinalizerClass, "Finalization is done.", "BasicUpgradeFinalizer.java:311")
		if d := t.Add(2110 * time.Millisecond); d.After(done) {
			done = d
		}
		for _, dn := range dns {
			// SCMNodeManager.java:793 (§2.3): normal until the datanode finalizes
			s.Add(scenario.Line{At: t.Add(h17425HeartbeatInterval(s)/2 + h17425Jitter(s, h17425HeartbeatInterval(s)/2)), Host: scm.Host, Level: parsers.LevelWarn,
				Logger: h17425NodeManagerClass, Thread: h17425IpcThread(s),
				Msg: "Data node " + dn.Host + " can not be used in any pipeline in the cluster. DataNode MetadataLayoutVersion = " +
					fmt.Sprint(h17425ScmSLV-1) + ", SCM MetadataLayoutVersion = " + fmt.Sprint(h17425ScmSLV),
				Source: "SCMNodeManager.java:793"})
		}
	}
	return done
}

// h17425MasterInvalidLines logs master's "Invalid data node in the cluster" on every
// SCM for each heartbeat of dn in [from, to).
func h17425MasterInvalidLines(s *scenario.Scenario, dn scenario.Node, from, to time.Time) {
	hb := h17425HeartbeatInterval(s)
	for t := from; t.Before(to) && t.Before(s.End); t = t.Add(hb + h17425Jitter(s, 300*time.Millisecond)) {
		for _, scm := range s.Cluster.SCMs {
			// SCMNodeManager.java:777 master (§2.3)
			s.Add(scenario.Line{At: t.Add(h17425Jitter(s, 400*time.Millisecond)), Host: scm.Host, Level: parsers.LevelError, Logger: h17425NodeManagerClass,
				Thread: h17425IpcThread(s),
				Msg: fmt.Sprintf("Invalid data node in the cluster : %s. DataNode SoftwareLayoutVersion = %d, SCM SoftwareLayoutVersion = %d",
					dn.Host, h17425NewerDNSLV, h17425ScmSLV),
				Source: "SCMNodeManager.java:777"})
		}
	}
}
