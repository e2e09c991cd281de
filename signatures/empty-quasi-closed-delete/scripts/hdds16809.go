// Package scripts renders HDDS-16809's occurrences and near misses for the
// cases of the empty-quasi-closed-delete signature.
package scripts

import (
	"fmt"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/parsers"
)

// HDDS-16809: SCM deletes an empty QUASI_CLOSED container although a replica
// that was away (its datanode DEAD) holds data up to the container's BCSID;
// when that datanode returns, the report handler force-deletes the non-empty
// replica. Lines are rendered from shared/ozone signatures-scm.md §3 (T40-T47),
// §1.3 (T15-T20) and §6 (B23).
func Scripts() map[string]scenario.Script {
	return map[string]scenario.Script{
		// Positive variants.
		"hdds16809/force-delete":          h16809ForceDelete,
		"hdds16809/force-delete-deleting": h16809ForceDeleteDeleting,
		"hdds16809/scm-only":              h16809SCMOnly,
		"hdds16809/leader-change":         h16809LeaderChange,
		"hdds16809/warning":               h16809Warning,
		"hdds16809/resurrected":           h16809Resurrected,
		"hdds16809/resurrected-closed":    h16809ResurrectedClosed,
		// Near misses (shared/ozone signatures-scm.md §7.3 false positives).
		"hdds16809/empty-equal":          h16809EmptyEqual,
		"hdds16809/nonforce-empty":       h16809NonForceEmpty,
		"hdds16809/stale-replica":        h16809StaleReplica,
		"hdds16809/closed-stale-replica": h16809ClosedStaleReplica,
		"hdds16809/ec-force":             h16809ECForce,
		"hdds16809/not-found":            h16809NotFound,
		"hdds16809/resurrect":            h16809Resurrect,
		// Near misses after an unsafe deletion of the same container: the
		// forced delete that follows is not the defect's, so the warning of
		// the deletion must not escalate.
		"hdds16809/unsafe-then-ec-force":       h16809UnsafeThenECForce,
		"hdds16809/unsafe-then-not-found":      h16809UnsafeThenNotFound,
		"hdds16809/unsafe-then-nonforce-empty": h16809UnsafeThenNonForceEmpty,
		"hdds16809/unsafe-then-stale-replica":  h16809UnsafeThenStaleReplica,
	}
}

// Loggers of the lines these scripts write.
const (
	h16809EmptyHandler  = "org.apache.hadoop.hdds.scm.container.replication.health.EmptyContainerHandler"
	h16809RM            = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"
	h16809FCR           = "org.apache.hadoop.hdds.scm.container.ContainerReportHandler"
	h16809ICR           = "org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler"
	h16809DeadHandler   = "org.apache.hadoop.hdds.scm.node.DeadNodeHandler"
	h16809ReadOnly      = "org.apache.hadoop.hdds.scm.node.HealthyReadOnlyNodeHandler"
	h16809ToHealthy     = "org.apache.hadoop.hdds.scm.node.ReadOnlyHealthyToHealthyNodeHandler"
	h16809KVContainer   = "org.apache.hadoop.ozone.container.keyvalue.KeyValueContainer"
	h16809ContainerLog  = "ContainerLog"
	h16809NotLeaderText = "org.apache.ratis.protocol.exceptions.NotLeaderException: Server %s is not the leader, suggested leader is: %s|%s:9894"
)

// h16809Run holds the hosts and IDs of one script run.
type h16809Run struct {
	s         *scenario.Scenario
	leader    scenario.Node // SCM whose ReplicationManager deletes the container
	container uint64
	pipeline  string
	dns       []scenario.Node // replica holders; the last one is away at deletion time
	term      int64
	cmdID     int64
}

func newH16809Run(s *scenario.Scenario) *h16809Run {
	r := &h16809Run{s: s, container: uint64(1000 + s.Rand.Intn(90000)), pipeline: scenario.UUID(s.Rand),
		term: int64(2 + s.Rand.Intn(5)), cmdID: int64(100 + s.Rand.Intn(900))}
	if len(s.Cluster.SCMs) > 0 {
		r.leader = s.Cluster.SCMs[0]
	}
	n := len(s.Cluster.Datanodes)
	if n > 0 {
		first := s.Rand.Intn(n)
		for i := 0; i < 3 && i < n; i++ {
			r.dns = append(r.dns, s.Cluster.Datanodes[(first+i)%n])
		}
	}
	return r
}

// away is the datanode that is DEAD when SCM deletes the container.
func (r *h16809Run) away() scenario.Node { return r.dns[len(r.dns)-1] }

// present are the datanodes whose (empty) replicas SCM knows at deletion time.
func (r *h16809Run) present() []scenario.Node { return r.dns[:len(r.dns)-1] }

// thread prefixes a thread name as Ozone does for n (signatures-scm.md §0.2).
func (r *h16809Run) thread(n scenario.Node, name string) string {
	return r.s.Cluster.ThreadPrefix(n) + name
}

func (r *h16809Run) jitter(max time.Duration) time.Duration {
	return time.Duration(r.s.Rand.Int63n(int64(max)))
}

// dead renders SCM's DeadNodeHandler lines for dn (T15, T16).
func (r *h16809Run) dead(at time.Time, dn scenario.Node) {
	th := r.thread(r.leader, "EventQueue-DeadNodeForDeadNodeHandler")
	// T15 DeadNodeHandler.java:99 (signatures-scm.md §1.3).
	r.s.Add(scenario.Line{At: at, Host: r.leader.Host, Level: parsers.LevelInfo, Logger: h16809DeadHandler, Thread: th,
		Msg: "A dead datanode is detected. " + dn.Details(), Source: "DeadNodeHandler.java:99"})
	// T16 DeadNodeHandler.java:121 (signatures-scm.md §1.3).
	r.s.Add(scenario.Line{At: at.Add(3 * time.Millisecond), Host: r.leader.Host, Level: parsers.LevelInfo, Logger: h16809DeadHandler, Thread: th,
		Msg: "Clearing command queue of size 0 for DN " + dn.Details(), Source: "DeadNodeHandler.java:121"})
}

// back renders SCM's lines for dn returning to HEALTHY (T18, T20).
func (r *h16809Run) back(at time.Time, dn scenario.Node) {
	// T18 HealthyReadOnlyNodeHandler.java:54 (signatures-scm.md §1.3).
	r.s.Add(scenario.Line{At: at, Host: r.leader.Host, Level: parsers.LevelInfo, Logger: h16809ReadOnly,
		Thread: r.thread(r.leader, "EventQueue-HealthyReadonlyNodeForHealthyReadOnlyNodeHandler"),
		Msg:    "Datanode " + dn.Details() + " moved to HEALTHY READONLY state.", Source: "HealthyReadOnlyNodeHandler.java:54"})
	// T20 ReadOnlyHealthyToHealthyNodeHandler.java:46 (signatures-scm.md §1.3; thread as in §1.5).
	r.s.Add(scenario.Line{At: at.Add(3 * time.Second), Host: r.leader.Host, Level: parsers.LevelInfo, Logger: h16809ToHealthy,
		Thread: r.thread(r.leader, "EventQueue-HealthyReadonlyToHealthyNodeForReadOnlyHealthyToHealthyNodeHandler"),
		Msg:    "Datanode " + dn.Details() + " moved to HEALTHY state.", Source: "ReadOnlyHealthyToHealthyNodeHandler.java:46"})
}

// emptyDelete renders T40 and the non-force delete commands for the known
// (empty) replicas (T42), then each datanode deleting its empty replica (T46,
// T47) within a heartbeat interval.
func (r *h16809Run) emptyDelete(at time.Time, bcsid, maxReplica int64) {
	known := r.present()
	origins := ""
	for i, d := range known {
		if i > 0 {
			origins += ", "
		}
		origins += d.UUID
	}
	// T40 EmptyContainerHandler.java:99 (signatures-scm.md §3.2).
	r.s.Add(scenario.Line{At: at, Host: r.leader.Host, Level: parsers.LevelInfo, Logger: h16809EmptyHandler,
		Thread: r.thread(r.leader, "ReplicationMonitor"), Source: "EmptyContainerHandler.java:99",
		Msg: fmt.Sprintf("Deleting empty QUASI_CLOSED container #%d (container BCSID=%d, max replica BCSID=%d) with %d replicas "+
			"from originIds: [%s]. If resurrected, container will transition to QUASI_CLOSED", r.container, bcsid, maxReplica, len(known), origins)})
	r.rmDeletes(at.Add(4*time.Millisecond), "DELETING", at)
	for _, d := range known {
		r.dnDelete(at.Add(2*time.Second+r.jitter(30*time.Second)), d, "QUASI_CLOSED", false, maxReplica, 0)
	}
}

// rmDeletes renders ReplicationManager's non-force delete command for each
// known replica (T42 ReplicationManager.java:666; DeleteContainerCommand and
// ContainerInfo renderings of signatures-scm.md §0.1).
func (r *h16809Run) rmDeletes(at time.Time, state string, stateEnter time.Time) {
	for i, d := range r.present() {
		t := at.Add(time.Duration(i) * time.Millisecond)
		scmDeadline := t.Add(12 * time.Minute).UnixMilli()
		dnDeadline := t.Add(6 * time.Minute).UnixMilli()
		r.cmdID++
		// T42 ReplicationManager.java:666 (signatures-scm.md §3.2, B03).
		r.s.Add(scenario.Line{At: t, Host: r.leader.Host, Level: parsers.LevelInfo, Logger: h16809RM,
			Thread: r.thread(r.leader, "ReplicationMonitor"), Source: "ReplicationManager.java:666",
			Msg: fmt.Sprintf("Sending command [deleteContainerCommand: cmdID: %d, encodedToken: \"\", term: %d, deadlineMsSinceEpoch: %d, "+
				"containerID: %d, replicaIndex: 0, force: false] for container ContainerInfo{id=#%d, state=%s, stateEnterTime=%s, "+
				"pipelineID=Pipeline-%s, owner=%s} to %s with datanode deadline %d and scm deadline %d",
				r.cmdID, r.term, dnDeadline, r.container, r.container, state, stateEnter.UTC().Format("2006-01-02T15:04:05.000Z"),
				r.pipeline, r.s.Cluster.OMService, d.Details(), dnDeadline, scmDeadline)})
	}
}

// dnDelete renders a datanode deleting its replica: T46 in its log and T47
// in its dn-container log ("Container force deleted" or "Empty container
// deleted").
func (r *h16809Run) dnDelete(at time.Time, dn scenario.Node, from string, nonEmpty bool, bcsid int64, ri int) {
	r.dnDeleteOf(at, dn, r.container, r.pipeline, from, nonEmpty, bcsid, ri, nonEmpty)
}

func (r *h16809Run) dnDeleteOf(at time.Time, dn scenario.Node, container uint64, pipeline, from string, nonEmpty bool, bcsid int64, ri int, force bool) {
	empty := "empty"
	if nonEmpty {
		empty = "non-empty"
	}
	// T46 KeyValueContainer.java:425 with ContainerData.toString (signatures-scm.md §0.1, §3.3).
	r.s.Add(scenario.Line{At: at, Host: dn.Host, Level: parsers.LevelWarn, Logger: h16809KVContainer,
		Thread: r.thread(dn, "DeleteContainerThread-0"), Source: "KeyValueContainer.java:425",
		Msg: fmt.Sprintf("Marked container DELETED from %s: KeyValueContainerData #%d (DELETED, %s, ri=%d, origin=[dn_%s, pipeline_%s])",
			from, container, empty, ri, dn.UUID, pipeline)})
	msg, src := "Empty container deleted", "ContainerLogger.java:121"
	if force {
		msg, src = "Container force deleted", "ContainerLogger.java:119"
	}
	// T47 ContainerLogger.java:119/:121, dn-container log (signatures-scm.md §3.3, §4.2).
	r.s.Add(scenario.Line{At: at.Add(2 * time.Millisecond), Host: dn.Host, Level: parsers.LevelInfo, Logger: h16809ContainerLog,
		Source: src, File: parsers.KindContainer,
		Msg: fmt.Sprintf("ID=%d | Index=%d | BCSID=%d | State=DELETED | %s", container, ri, bcsid, msg)})
}

// details renders the report handlers' detailsForLogging (signatures-scm.md §0.1).
func h16809Details(container uint64, scmState string, sid int64, ri int, replicaState string, bcsid int64, dn scenario.Node, nonEmpty bool) string {
	empty := "empty"
	if nonEmpty {
		empty = "non-empty"
	}
	head := fmt.Sprintf("Container #%d (%s, sid=%d)", container, scmState, sid)
	if scmState == "NOT_FOUND" {
		head = fmt.Sprintf("Container #%d (NOT_FOUND)", container)
	}
	return fmt.Sprintf("%s r%d (%s, bcsid=%d, origin=%s, %s) from dn %s", head, ri, replicaState, bcsid, dn.UUID, empty, dn.Details())
}

// reportDelete renders the delete a report handler sends on the leader (T43)
// and the "Skip sending" WARN of every follower SCM for the same report.
func (r *h16809Run) reportDelete(at time.Time, leader scenario.Node, logger string, force bool, reason, details string) {
	f := ""
	if force {
		f = "force"
	}
	// T43 AbstractContainerReportHandler.java:459 (signatures-scm.md §3.2).
	r.s.Add(scenario.Line{At: at, Host: leader.Host, Level: parsers.LevelInfo, Logger: logger,
		Thread: r.thread(leader, "FixedThreadPoolWithAffinityExecutor-0-0"), Source: "AbstractContainerReportHandler.java:459",
		Msg: fmt.Sprintf("Sending %sDeleteContainerCommand due to %s for %s", f, reason, details)})
	for i, n := range r.s.Cluster.SCMs {
		if n.Host == leader.Host {
			continue
		}
		// AbstractContainerReportHandler.java:451-452 on a follower (signatures-scm.md §3.2),
		// NotLeaderException text (signatures-dn-om.md, Ratis exceptions).
		r.s.Add(scenario.Line{At: at.Add(time.Duration(5+i*7) * time.Millisecond), Host: n.Host, Level: parsers.LevelWarn, Logger: logger,
			Thread: r.thread(n, fmt.Sprintf("FixedThreadPoolWithAffinityExecutor-%d-0", i)), Source: "AbstractContainerReportHandler.java:451",
			Msg: "Skip sending DeleteContainerCommand for " + details + ": " +
				fmt.Sprintf(h16809NotLeaderText, scenario.MemberID(n, r.s.Cluster.SCMGroup()), leader.UUID, leader.Host)})
	}
}

// resurrect renders T44 (to QUASI_CLOSED) or T45 (to CLOSED) on the leader.
func (r *h16809Run) resurrect(at time.Time, from, replicaState string, keys, bcsid int64, dn scenario.Node) {
	msg := fmt.Sprintf("Resurrecting container #%d from %s to QUASI_CLOSED due to non-empty %s replica (keyCount=%d, BCSID=%d) from %s",
		r.container, from, replicaState, keys, bcsid, dn.Details())
	src := "AbstractContainerReportHandler.java:349" // T44
	if replicaState == "CLOSED" {
		msg = fmt.Sprintf("Resurrecting container #%d from %s to CLOSED due to non-empty CLOSED replica (keyCount=%d, BCSID=%d) from %s",
			r.container, from, keys, bcsid, dn.Details())
		src = "AbstractContainerReportHandler.java:342" // T45
	}
	// T44/T45 AbstractContainerReportHandler.java:349/:342 (signatures-scm.md §3.2).
	r.s.Add(scenario.Line{At: at, Host: r.leader.Host, Level: parsers.LevelInfo, Logger: h16809FCR,
		Thread: r.thread(r.leader, "FixedThreadPoolWithAffinityExecutor-0-0"), Source: src, Msg: msg})
}

// h16809Prelude renders the away datanode being stopped and going DEAD
// (after ozone.scm.dead.node.interval, 10 min) before the deletion at at,
// and returns the run.
func h16809Prelude(s *scenario.Scenario, at time.Time) (*h16809Run, bool) {
	r := newH16809Run(s)
	if len(r.dns) < 2 || len(s.Cluster.SCMs) == 0 {
		return nil, false
	}
	stop := at.Add(-22*time.Minute - r.jitter(time.Minute))
	s.Signal(r.away(), stop, "TERM")
	s.Shutdown(r.away(), stop.Add(300*time.Millisecond))
	r.dead(at.Add(-12*time.Minute+r.jitter(time.Minute)), r.away())
	return r, true
}

// returns renders the away datanode starting again and SCM seeing it
// HEALTHY at ret.
func (r *h16809Run) returns(ret time.Time) {
	r.s.Startup(r.away(), ret.Add(-75*time.Second), "")
	r.back(ret, r.away())
}

// h16809ForceDelete is the defect: T40 with max replica BCSID < container
// BCSID, then the returning datanode's non-empty replica at the container's
// BCSID is force-deleted (T43, followers' "Skip sending") and the datanode
// confirms (T46, T47).
func h16809ForceDelete(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	const b = 4
	r.emptyDelete(at, b, 0)
	ret := at.Add(40*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	cmd := ret.Add(2*time.Second + r.jitter(time.Second))
	r.reportDelete(cmd, r.leader, h16809FCR, true, "DELETED",
		h16809Details(r.container, "DELETED", b, 0, "QUASI_CLOSED", b, r.away(), true))
	r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "QUASI_CLOSED", true, b, 0)
}

// h16809ForceDeleteDeleting: the away datanode returns while the container
// is still DELETING; the incremental report handler force-deletes its
// non-empty CLOSED replica with reason DELETING.
func h16809ForceDeleteDeleting(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	const b, m = 118, 96
	r.emptyDelete(at, b, m)
	ret := at.Add(90*time.Second + r.jitter(30*time.Second))
	r.returns(ret)
	cmd := ret.Add(4*time.Second + r.jitter(time.Second))
	r.reportDelete(cmd, r.leader, h16809ICR, true, "DELETING",
		h16809Details(r.container, "DELETING", b, 0, "CLOSED", b, r.away(), true))
	r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "CLOSED", true, b, 0)
}

// h16809SCMOnly: the defect seen only in SCM logs (the returning datanode's
// lines are not in the bundle).
func h16809SCMOnly(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	const b = 37
	r.emptyDelete(at, b, 12)
	ret := at.Add(25*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	r.reportDelete(ret.Add(2*time.Second), r.leader, h16809FCR, true, "DELETED",
		h16809Details(r.container, "DELETED", b, 0, "QUASI_CLOSED", 30, r.away(), true))
}

// h16809LeaderChange: leadership moves between the deletion and the return;
// the new leader force-deletes the replica and the old leader logs "Skip
// sending" (with one SCM this is h16809ForceDelete).
func h16809LeaderChange(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	const b = 9
	r.emptyDelete(at, b, 2)
	newLeader := r.leader
	if len(s.Cluster.SCMs) > 1 {
		newLeader = s.Cluster.SCMs[1]
	}
	ret := at.Add(55*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	cmd := ret.Add(2*time.Second + r.jitter(time.Second))
	r.reportDelete(cmd, newLeader, h16809FCR, true, "DELETED",
		h16809Details(r.container, "DELETED", b, 0, "QUASI_CLOSED", b, r.away(), true))
	r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "QUASI_CLOSED", true, b, 0)
}

// h16809Warning: the unsafe deletion only; the away datanode has not come
// back within the logs.
func h16809Warning(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	r.emptyDelete(at, 4, 0)
}

// h16809Resurrected: the unsafe deletion, then the away replica returns with
// a higher BCSID and SCM resurrects the container (T44): the correct outcome.
func h16809Resurrected(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	r.emptyDelete(at, 4, 0)
	ret := at.Add(30*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	r.resurrect(ret.Add(2*time.Second), "DELETED", "QUASI_CLOSED", 3, 6, r.away())
}

// h16809ResurrectedClosed: like h16809Resurrected with a CLOSED replica (T45).
func h16809ResurrectedClosed(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	r.emptyDelete(at, 20, 11)
	ret := at.Add(2*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	r.resurrect(ret.Add(2*time.Second), "DELETING", "CLOSED", 8, 21, r.away())
}

// h16809EmptyEqual: an empty QUASI_CLOSED container deleted with max replica
// BCSID equal to the container BCSID (the safe case).
func h16809EmptyEqual(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	r.emptyDelete(at, 7, 7)
}

// h16809NonForceEmpty: a safe deletion, then the away datanode returns with
// an empty replica, which gets a normal (non-force) delete.
func h16809NonForceEmpty(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	const b = 7
	r.emptyDelete(at, b, b)
	ret := at.Add(35*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	cmd := ret.Add(2 * time.Second)
	r.reportDelete(cmd, r.leader, h16809FCR, false, "DELETED",
		h16809Details(r.container, "DELETED", b, 0, "QUASI_CLOSED", b, r.away(), false))
	r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "QUASI_CLOSED", false, b, 0)
}

// h16809StaleReplica: a safe deletion, then a non-empty replica whose BCSID
// is not above the known replicas' returns and is force-deleted: its blocks
// were deleted on the other replicas (intended removal).
func h16809StaleReplica(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	const b = 15
	r.emptyDelete(at, b, b)
	ret := at.Add(45*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	cmd := ret.Add(2 * time.Second)
	r.reportDelete(cmd, r.leader, h16809FCR, true, "DELETED",
		h16809Details(r.container, "DELETED", b, 0, "QUASI_CLOSED", 11, r.away(), true))
	r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "QUASI_CLOSED", true, 11, 0)
}

// h16809ClosedStaleReplica: a CLOSED container deleted normally (no T40; the
// CLOSED path logs at DEBUG), then a stale non-empty replica returns and is
// force-deleted (HDDS-12421 behaviour).
func h16809ClosedStaleReplica(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	const b = 52
	r.rmDeletes(at, "DELETING", at)
	for _, d := range r.present() {
		r.dnDeleteOf(at.Add(2*time.Second+r.jitter(30*time.Second)), d, r.container, r.pipeline, "CLOSED", false, b, 0, false)
	}
	ret := at.Add(50*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	cmd := ret.Add(2 * time.Second)
	r.reportDelete(cmd, r.leader, h16809FCR, true, "DELETED",
		h16809Details(r.container, "DELETED", b, 0, "CLOSED", b, r.away(), true))
	r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "CLOSED", true, b, 0)
}

// h16809ECForce: EC orphan cleanup: force deletes of non-empty replicas with
// replica index > 0, reasons DELETING and DELETED.
func h16809ECForce(s *scenario.Scenario, at time.Time) {
	r := newH16809Run(s)
	if len(r.dns) == 0 || len(s.Cluster.SCMs) == 0 {
		return
	}
	for i, dn := range r.dns {
		ri := i + 2
		reason := "DELETED"
		if i%2 == 1 {
			reason = "DELETING"
		}
		cmd := at.Add(time.Duration(i) * 7 * time.Second)
		r.reportDelete(cmd, r.leader, h16809ICR, true, reason,
			h16809Details(r.container, reason, 0, ri, "CLOSED", 0, dn, true))
		r.dnDeleteOf(cmd.Add(3*time.Second+r.jitter(27*time.Second)), dn, r.container, r.pipeline, "CLOSED", true, 0, ri, true)
	}
}

// h16809NotFound: a replica of a container SCM does not know, deleted by
// force because hdds.scm.unknown-container.action=DELETE.
func h16809NotFound(s *scenario.Scenario, at time.Time) {
	r := newH16809Run(s)
	if len(r.dns) == 0 || len(s.Cluster.SCMs) == 0 {
		return
	}
	dn := r.away()
	details := h16809Details(r.container, "NOT_FOUND", 0, 0, "CLOSED", 17, dn, true)
	// B23 ContainerReportHandler.java:224 (signatures-scm.md §3.2, §6).
	s.Add(scenario.Line{At: at, Host: r.leader.Host, Level: parsers.LevelError, Logger: h16809FCR,
		Thread: r.thread(r.leader, "FixedThreadPoolWithAffinityExecutor-0-0"), Source: "ContainerReportHandler.java:224",
		Msg: "CONTAINER_NOT_FOUND for " + details})
	cmd := at.Add(time.Millisecond)
	r.reportDelete(cmd, r.leader, h16809FCR, true, "CONTAINER_NOT_FOUND", details)
	r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), dn, "CLOSED", true, 17, 0)
}

// h16809Resurrect: a safe deletion, then a replica with a higher BCSID
// returns and SCM resurrects the container (T44).
func h16809Resurrect(s *scenario.Scenario, at time.Time) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	r.emptyDelete(at, 5, 5)
	ret := at.Add(20*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	r.resurrect(ret.Add(2*time.Second), "DELETED", "QUASI_CLOSED", 2, 9, r.away())
}

// Unsafe deletion used by the near misses below: container BCSID 4, max
// replica BCSID 2, so only a replica with a BCSID above 2 holds data SCM
// does not know of.
const h16809NearB, h16809NearM = 4, 2

// h16809UnsafeThen renders an unsafe deletion (T40 with max replica BCSID
// below the container BCSID) and the away datanode's return, and calls
// follow with the time its first container report is handled.
func h16809UnsafeThen(s *scenario.Scenario, at time.Time, follow func(r *h16809Run, cmd time.Time)) {
	r, ok := h16809Prelude(s, at)
	if !ok {
		return
	}
	r.emptyDelete(at, h16809NearB, h16809NearM)
	ret := at.Add(30*time.Minute + r.jitter(time.Minute))
	r.returns(ret)
	follow(r, ret.Add(2*time.Second+r.jitter(time.Second)))
}

// h16809UnsafeThenECForce: after the unsafe deletion, the returning datanode
// reports a non-empty replica with replica index 2 under the same container
// ID, force-deleted as EC orphan clean-up (T43 r2, T46 ri=2, T47 Index=2).
// Its BCSID is above the max replica BCSID: only the index tells it apart.
func h16809UnsafeThenECForce(s *scenario.Scenario, at time.Time) {
	h16809UnsafeThen(s, at, func(r *h16809Run, cmd time.Time) {
		const ri = 2
		r.reportDelete(cmd, r.leader, h16809ICR, true, "DELETED",
			h16809Details(r.container, "DELETED", h16809NearB, ri, "CLOSED", h16809NearB, r.away(), true))
		r.dnDeleteOf(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), r.container, r.pipeline, "CLOSED", true, h16809NearB, ri, true)
	})
}

// h16809UnsafeThenNotFound: after the unsafe deletion, SCM reports the
// returning replica as unknown (B23) and force-deletes it because
// hdds.scm.unknown-container.action=DELETE (T43 due to CONTAINER_NOT_FOUND).
// The datanode's lines (T46 non-empty, T47 force deleted, BCSID above the max
// replica BCSID) look like the defect's; SCM's reason tells them apart.
func h16809UnsafeThenNotFound(s *scenario.Scenario, at time.Time) {
	h16809UnsafeThen(s, at, func(r *h16809Run, cmd time.Time) {
		details := h16809Details(r.container, "NOT_FOUND", 0, 0, "QUASI_CLOSED", h16809NearB, r.away(), true)
		// B23 ContainerReportHandler.java:224 (signatures-scm.md §3.2, §6).
		r.s.Add(scenario.Line{At: cmd, Host: r.leader.Host, Level: parsers.LevelError, Logger: h16809FCR,
			Thread: r.thread(r.leader, "FixedThreadPoolWithAffinityExecutor-0-0"), Source: "ContainerReportHandler.java:224",
			Msg: "CONTAINER_NOT_FOUND for " + details})
		r.reportDelete(cmd.Add(time.Millisecond), r.leader, h16809FCR, true, "CONTAINER_NOT_FOUND", details)
		r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "QUASI_CLOSED", true, h16809NearB, 0)
	})
}

// h16809UnsafeThenNonForceEmpty: after the unsafe deletion, the returning
// datanode's replica is empty after all (BCSID 4, no blocks): a normal
// delete (T43 without force, T46 empty, T47 "Empty container deleted").
func h16809UnsafeThenNonForceEmpty(s *scenario.Scenario, at time.Time) {
	h16809UnsafeThen(s, at, func(r *h16809Run, cmd time.Time) {
		r.reportDelete(cmd, r.leader, h16809FCR, false, "DELETED",
			h16809Details(r.container, "DELETED", h16809NearB, 0, "QUASI_CLOSED", h16809NearB, r.away(), false))
		r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "QUASI_CLOSED", false, h16809NearB, 0)
	})
}

// h16809UnsafeThenStaleReplica: after the unsafe deletion, the returning
// non-empty replica's BCSID equals the max replica BCSID (2): it is stale
// (its blocks were deleted on the known replicas), not the one with the
// data up to BCSID 4, and its forced delete loses nothing (T43, T46, T47).
func h16809UnsafeThenStaleReplica(s *scenario.Scenario, at time.Time) {
	h16809UnsafeThen(s, at, func(r *h16809Run, cmd time.Time) {
		r.reportDelete(cmd, r.leader, h16809FCR, true, "DELETED",
			h16809Details(r.container, "DELETED", h16809NearB, 0, "QUASI_CLOSED", h16809NearM, r.away(), true))
		r.dnDelete(cmd.Add(3*time.Second+r.jitter(27*time.Second)), r.away(), "QUASI_CLOSED", true, h16809NearM, 0)
	})
}
