package divisionclosing

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Registration is the detector of HDDS-17674.
var Registration = detectors.Registration{Doc: doc(), New: newDetector}

const (
	// grace is how long a close may take before a division without a
	// decisive sign is called stuck: a normal close finishes in seconds.
	grace = time.Minute
	// sameBurst bounds the distance between the trigger's lines (T1, T2,
	// T4), which one thread logs back to back.
	sameBurst = 2 * time.Second
	// raceWindow: close failures this soon after a group's removal
	// completed are the GroupMismatch race of a normal removal.
	raceWindow = time.Minute
	// repeatFor and repeatCycles: close failures alone show a stuck division
	// only when the same container keeps failing for more than repeatFor, or
	// in at least repeatCycles of SCM's resend cycles (signatures-dn-om.md
	// F.2): one burst of failures is a race or a datanode shutting down.
	repeatFor    = 10 * time.Minute
	repeatCycles = 3
	// staleCycles: a division resting on close failures alone is dropped
	// when its failures stop for this many resend cycles: SCM re-sends the
	// close command every cycle while the replica stays CLOSING.
	staleCycles = 3
	// defaultResend is hdds.scm.replication.thread.interval's default, for
	// an environment without settings.
	defaultResend = 300 * time.Second

	maxDivisions     = 256
	maxContainers    = 256
	maxSCMViews      = 1024
	maxGroupMappings = 4096
	maxHosts         = 1024

	// horizon is the detector's Doc.Horizon (doc.go says why).
	horizon = 24 * time.Hour

	firstEvidence = 22
	lastEvidence  = 14
)

// ratisThreadRe matches the executor threads of a division
// (<peerId>-client-threadN, <peerId>-server-threadN; signatures-dn-om.md §0).
var ratisThreadRe = regexp.MustCompile(`-(?:client|server)-thread\d+$`)

type detector struct {
	env           *detectors.Env `state:"-"`
	stuckAfter    time.Duration
	stuckAfterSrc string
	writeWait     time.Duration
	writeWaitSrc  string
	resend        time.Duration // SCM's resend cycle (hdds.scm.replication.thread.interval)
	resendSrc     string
	gen           int // settings generation writeWait and resend come from
	now           time.Time
	sweep         detectors.Sweep
	// idleUntil is a time before which check has nothing to do but look at
	// the division the last signal changed (touched): no division's
	// deadline is before it (zero: check them all). A cluster's divisions
	// may stay stuck for days; the check does not visit them all on every
	// signal.
	idleUntil time.Time `state:"-"`
	touched   *division `state:"-"`
	// reported counts the divisions reported so far: the number in a
	// finding's key.
	reported int
	// withdrawals are pending findings of divisions dropped before they
	// were confirmed, emitted withdrawn at the next check (and, in a batch
	// run, the last update of a division forgotten while reported; and a
	// pending finding whose start an earlier line moved).
	withdrawals []detectors.Finding

	// Each map drops its oldest entry (by first insertion) when full.
	divisions *detectors.Bounded[string, *division] // hostKey/group -> open division
	lastT1    *detectors.Bounded[string, sig]       // hostKey -> latest write-chunk timeout
	pendingT2 *detectors.Bounded[string, sig]       // hostKey -> close server waiting for its group (T4)
	completed *detectors.Bounded[string, time.Time] // hostKey/group -> removal completed at
	scm       *detectors.Bounded[string, *scmView]  // dnKey/group -> SCM's close commands
	pipelines *detectors.Bounded[string, string]    // group -> pipeline UUID
	groupOf   *detectors.Bounded[string, string]    // hostKey|container -> group
	peers     *detectors.Bounded[string, string]    // hostKey -> the datanode's own peer ID
	closes    *detectors.Counters                   // hostKey/group -> csmFails samples
}

// csmFails counts a division's closeServer() calls (CSMMetrics
// numWriteStateMachineFails, signatures-dn-om.md D.3: incremented by every
// closeServer(), labels raftgroupid and hostname).
const csmFails = "csm_metrics_num_write_state_machine_fails"

// sig is the part of a signal the detector keeps.
type sig struct {
	at     time.Time
	thread string
	group  string
	peer   string
	ev     detectors.Evidence
}

// division is one datanode Raft division suspected or known to be stuck.
type division struct {
	host, hostKey, group, peer string
	start, last                time.Time

	writeTimeout bool
	ratisClose   bool
	closeThread  string
	removal      string // lifecycle state the group removal found; "" if not seen
	removalRole  string

	failures, notRunning, notFound, rejected int
	containers                               *detectors.Bounded[uint64, *repeats]
	restartedAt                              time.Time
	closesBase                               float64 // csmFails when the division opened
	closeMetric                              bool    // a csmFails sample shows its closeServer()

	key       string    // the finding's, fixed at its first report
	emitted   bool      // reported as stuck (firing, later maybe resolved)
	emittedAt time.Time // when last reported
	pending   bool      // reported pending: suspected, not confirmed yet
	dirty     bool      // evidence since then
	severity  detectors.Severity
	ev        detectors.EvidenceLog
}

// repeats follows the close failures of one container of a division.
// Failures showing the division CLOSING or gone (C1a, C1b) count; a
// RejectedExecutionException (C1c, inferred, also logged at a normal
// shutdown) only adds to n.
type repeats struct {
	n           int       // failed close attempts, of any counted cause
	first, last time.Time // first and latest C1a/C1b failure; zero if none
	cycles      int       // resend cycles with a C1a/C1b failure
	cycleAt     time.Time // the failure that opened the latest cycle
}

// add records a C1a/C1b failure at t; a failure counts as a new resend
// cycle when it comes at least gap after the one that opened the last.
func (r *repeats) add(t time.Time, gap time.Duration) {
	switch {
	case r.first.IsZero():
		r.first, r.cycleAt, r.cycles = t, t, 1
	case t.Sub(r.cycleAt) >= gap:
		r.cycleAt = t
		r.cycles++
	}
	if t.After(r.last) {
		r.last = t
	}
}

// repeated says whether the container kept failing long enough to show the
// division stuck rather than racing a removal or a shutdown.
func (r *repeats) repeated() bool {
	return r.last.Sub(r.first) > repeatFor || r.cycles >= repeatCycles
}

// scmView is what SCM logged about one datanode's replicas of one group.
type scmView struct {
	commands    int
	containers  *detectors.Bounded[uint64, bool]
	state       string
	hosts       []string
	first, last detectors.Evidence
}

func newDetector(env *detectors.Env) (detectors.Detector, error) {
	oldest := detectors.EvictOldest
	d := &detector{env: env,
		divisions: detectors.NewBounded[string, *division](maxDivisions, oldest),
		lastT1:    detectors.NewBounded[string, sig](maxHosts, oldest),
		pendingT2: detectors.NewBounded[string, sig](maxHosts, oldest),
		completed: detectors.NewBounded[string, time.Time](maxGroupMappings, oldest),
		scm:       detectors.NewBounded[string, *scmView](maxSCMViews, oldest),
		pipelines: detectors.NewBounded[string, string](maxGroupMappings, oldest),
		groupOf:   detectors.NewBounded[string, string](maxGroupMappings, oldest),
		peers:     detectors.NewBounded[string, string](maxHosts, oldest),
		closes:    detectors.NewCounters(maxGroupMappings),
	}
	after, set, err := doc().Duration(env, "stuck-after")
	if err != nil {
		return nil, err
	}
	d.stuckAfter, d.stuckAfterSrc = after, "default"
	if set {
		d.stuckAfterSrc = "option stuck-after"
	}
	d.derive()
	return d, nil
}

// derive reads the settings the detector judges against; refresh calls it
// again when they change (ozone-site.xml learned mid-stream).
func (d *detector) derive() {
	d.writeWait, d.writeWaitSrc, d.resend, d.resendSrc = 0, "", defaultResend, "default"
	if d.env.Settings == nil {
		return
	}
	d.gen = d.env.Settings.Generation()
	d.writeWait, d.writeWaitSrc = d.env.Settings.Duration("hdds.container.ratis.statemachine.write.wait.interval", time.Millisecond)
	if r, src := d.env.Settings.Duration("hdds.scm.replication.thread.interval", time.Millisecond); r > 0 {
		d.resend, d.resendSrc = r, src
	}
}

func (d *detector) refresh() {
	if d.env.Settings != nil && d.env.Settings.Generation() != d.gen {
		d.derive()
		d.idleUntil = time.Time{}
	}
}

// StateStats implements detectors.Detector.
func (d *detector) StateStats() []detectors.StateStat {
	return []detectors.StateStat{d.divisions.Stat("divisions"), d.lastT1.Stat("write-chunk timeouts"),
		d.pendingT2.Stat("close-server lines"), d.completed.Stat("completed removals"), d.scm.Stat("scm close commands"),
		d.pipelines.Stat("pipelines"), d.groupOf.Stat("container groups"), d.peers.Stat("datanode peer ids"),
		d.closes.Latest.Stat("close-server counters")}
}

func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	if s.Kind == catalogue.MetricSample {
		d.idleUntil = time.Time{} // the next check visits every division
		d.closeSample(s)
		return
	}
	if s.Time.IsZero() {
		return
	}
	d.refresh()
	if s.Time.After(d.now) {
		d.now = s.Time
	}
	switch s.Kind {
	case catalogue.WriteChunkTimeout:
		d.lastT1.Put(detectors.HostKey(s.Host), keep(s))
	case catalogue.StateMachineCloseServer:
		d.closeServer(s)
	case catalogue.DivisionShutdown:
		d.shutdown(s)
	case catalogue.RaftGroupRemove:
		d.groupRemove(s)
	case catalogue.RaftStorageRemoved:
		d.complete(s, s.Group, "the group's storage was removed (\""+s.Text+"\")", emit)
	case catalogue.ClosePipelineDone:
		if s.Pipeline != "" {
			g := groupID(s.Pipeline)
			d.pipelines.Put(g, s.Pipeline)
			d.complete(s, g, "the close-pipeline command completed (\""+s.Text+"\")", emit)
		}
	case catalogue.ContainerQuasiClosed:
		g := s.Group
		if g == "" {
			g = d.containerGroup(s.Host, s.Container)
		}
		if g != "" {
			d.complete(s, g, fmt.Sprintf("container #%d was quasi-closed (\"%s\")", s.Container, s.Text), emit)
		}
	case catalogue.CloseContainerFailed:
		d.closeFailed(s)
	case catalogue.SCMCloseContainerCommand:
		d.scmCommand(s)
	case catalogue.StartupMsg:
		d.startup(s, emit)
	}
	d.check(d.now, emit)
}

func (d *detector) Advance(now time.Time, emit detectors.Emit) {
	d.refresh()
	if now.After(d.now) {
		d.now = now
	}
	d.check(d.now, emit)
	d.forget(d.now)
}

// Quiet implements detectors.Detector: check has nothing to do before
// idleUntil, and forget nothing before its sweep.
func (d *detector) Quiet(time.Time) time.Time {
	q := d.sweep.Quiet()
	if len(d.withdrawals) > 0 {
		return time.Time{}
	}
	if d.divisions.Len() > 0 {
		q = detectors.Earliest(q, d.idleUntil.Add(-time.Nanosecond))
	}
	return q
}

// forget drops what can no longer matter: trigger lines past the burst,
// removals past the race window, and SCM views with no command for the
// horizon. Divisions stay until they resolve (or are dropped as stale).
func (d *detector) forget(now time.Time) {
	if !d.sweep.Due(now, time.Minute) {
		return
	}
	d.lastT1.DeleteFunc(func(_ string, s sig) bool { return now.Sub(s.at) > sameBurst })
	d.pendingT2.DeleteFunc(func(_ string, s sig) bool { return now.Sub(s.at) > sameBurst })
	d.completed.DeleteFunc(func(_ string, at time.Time) bool { return now.Sub(at) > raceWindow })
	d.scm.DeleteFunc(func(_ string, v *scmView) bool { return now.Sub(v.last.Time) > horizon })
}

// End reports the open divisions as they stand at the end of the input
// (Advance, called at the end first, confirmed those due): a stuck one
// firing, and a suspected one, not confirmed by then, withdrawn: the input
// does not show it stuck, and a pending finding never reaches a report.
func (d *detector) End(end time.Time, emit detectors.Emit) {
	if end.Before(d.now) {
		end = d.now
	}
	for _, v := range d.divisions.Values() {
		if v.emitted {
			d.emit(v, end, detectors.Firing, "", emit)
		} else {
			d.unpend(v, end, "the input ends before the division was confirmed stuck")
		}
	}
	d.drain(emit)
}

// refreshEvery spaces the updates of a stuck division's finding with new
// evidence: the failures it follows come every few seconds, and the input's
// end reports every division as it then stands. A batch run (Env.Batch)
// leaves these updates out.
const refreshEvery = time.Minute

// refreshes says whether v has an update due at refreshEvery.
func (d *detector) refreshes(v *division) bool { return v.emitted && v.dirty && !d.env.Batch }

// check emits divisions that became certain, escalates those stuck past
// stuck-after, refreshes those with new evidence and drops unreported ones
// whose close failures stopped.
//
// Before idleUntil no division that the last signal left alone has
// anything due (deadline), so only the one it changed is looked at: check
// acts as a visit of all would.
func (d *detector) check(now time.Time, emit detectors.Emit) {
	d.drain(emit)
	v := d.touched
	d.touched = nil
	switch {
	case d.divisions.Len() == 0:
		return
	case now.Before(d.idleUntil):
		if v != nil {
			d.checkOne(v, now, emit)
		}
	default:
		d.idleUntil = now.Add(detectors.NoDeadline)
		for _, v := range d.divisions.All() { // dropStale deletes only v
			d.checkOne(v, now, emit)
		}
	}
	d.drain(emit)
}

// checkOne acts on v as check does and brings idleUntil forward to its
// deadline.
func (d *detector) checkOne(v *division, now time.Time, emit detectors.Emit) {
	switch {
	case !v.emitted && d.confirmed(v, now):
		d.emit(v, now, detectors.Firing, "", emit)
	case d.dropStale(v, now):
	case v.emitted && v.severity < detectors.Critical && now.Sub(v.start) >= d.stuckAfter:
		d.emit(v, now, detectors.Firing, "", emit)
	case d.refreshes(v) && now.Sub(v.emittedAt) >= refreshEvery:
		d.emit(v, now, detectors.Firing, "", emit)
	case !v.emitted && !v.pending:
		d.pend(v, now, emit)
	}
	if next := d.deadline(v, now); next.Before(d.idleUntil) {
		d.idleUntil = next
	}
}

// change notes that the signal being observed changed what check decides
// for v (evidence alone does not), which check then looks at. A signal
// changes one division at most and deletes none after changing it; one
// that may change several (a restart) or that check does not follow (a
// metric sample) makes it visit all instead.
func (d *detector) change(v *division) { d.touched = v }

// deadline returns the earliest time after now at which check may act on
// v if no signal comes (of a division dropped, some time: it is harmless).
func (d *detector) deadline(v *division, now time.Time) time.Time {
	if !v.emitted {
		if !v.pending {
			return now
		}
		// Confirmed once the grace passed; dropped once its failures
		// stopped for staleCycles resend cycles.
		return detectors.Earliest(v.start.Add(grace), v.last.Add(staleCycles*d.resend+1))
	}
	next := now.Add(detectors.NoDeadline)
	if v.severity < detectors.Critical {
		next = detectors.Earliest(next, v.start.Add(d.stuckAfter))
	}
	if d.refreshes(v) {
		next = detectors.Earliest(next, v.emittedAt.Add(refreshEvery))
	}
	return next
}

// pend reports a suspected division as pending: its confirmation (the
// grace, or the same container failing over several resend cycles) is not
// due yet.
func (d *detector) pend(v *division, now time.Time, emit detectors.Emit) {
	v.pending = true
	emit(d.pendingFinding(v, now))
}

// unpend queues the withdrawal of a division's pending finding, for a
// division dropped (or re-keyed) before it was confirmed.
func (d *detector) unpend(v *division, now time.Time, reason string) {
	if !v.pending || v.emitted {
		return
	}
	v.pending = false
	d.withdrawals = append(d.withdrawals, detectors.Withdraw(d.pendingFinding(v, now), reason))
}

func (d *detector) drain(emit detectors.Emit) {
	for _, f := range d.withdrawals {
		emit(f)
	}
	d.withdrawals = nil
}

// confirmed says whether the division is stuck rather than slowly closing:
// the trigger or the removal in CLOSING once the grace has passed, or one
// container failing repeatedly (F.2).
func (d *detector) confirmed(v *division, now time.Time) bool {
	if v.removal == "CLOSING" && v.ratisClose {
		return true
	}
	if now.Sub(v.start) < grace {
		return false
	}
	return v.strong() || v.longest() != nil
}

// dropStale drops a division not reported yet that rests on close failures
// alone when they stopped staleCycles resend cycles before now.
func (d *detector) dropStale(v *division, now time.Time) bool {
	if v.emitted || v.strong() || now.Sub(v.last) <= staleCycles*d.resend {
		return false
	}
	d.unpend(v, now, "its close failures stopped for "+strconv.Itoa(staleCycles)+" resend cycles")
	d.divisions.Delete(v.hostKey + "/" + v.group)
	return true
}

// strong says whether the division has evidence besides close failures:
// the close on its own Ratis thread or a removal that found it CLOSING.
func (v *division) strong() bool { return v.ratisClose || v.removal == "CLOSING" }

// longest returns the failures of the container that failed repeatedly in
// the most resend cycles, or nil if none did.
func (v *division) longest() *repeats {
	_, r := v.longestContainer()
	return r
}

// longestContainer returns the container that failed repeatedly in the most
// resend cycles (then over the longest time, then the lowest ID) and its
// failures, or nil if none did.
func (v *division) longestContainer() (uint64, *repeats) {
	var (
		id   uint64
		best *repeats
	)
	for c, r := range v.containers.All() {
		if !r.repeated() {
			continue
		}
		span, bestSpan := r.last.Sub(r.first), time.Duration(0)
		if best != nil {
			bestSpan = best.last.Sub(best.first)
		}
		if best == nil || r.cycles > best.cycles || r.cycles == best.cycles &&
			(span > bestSpan || span == bestSpan && c < id) {
			id, best = c, r
		}
	}
	return id, best
}

// closeServer handles T2. Only a close on the division's own Ratis thread
// can wait for itself: a -ChunkWriter- thread completes asynchronously. In
// layouts without a thread column the write-chunk timeout logged just before
// on the same host identifies the Ratis path.
func (d *detector) closeServer(s *catalogue.Signal) {
	hk := detectors.HostKey(s.Host)
	if s.Peer != "" {
		d.peers.Put(hk, strings.ToLower(s.Peer))
	}
	t1, ok := d.lastT1.Get(hk)
	ok = ok && s.Time.Sub(t1.at) <= sameBurst && sameThread(t1.thread, s.Thread)
	if !ratisThreadRe.MatchString(s.Thread) && !(s.Thread == "" && ok) {
		return
	}
	if !ok {
		d.pendingT2.Put(hk, keep(s))
		return
	}
	d.lastT1.Delete(hk)
	v := d.open(s.Host, t1.group, t1.at)
	v.writeTimeout = true
	v.addEvidence(t1.ev)
	d.markClose(v, s)
	d.change(v)
}

// closeSample handles a csmFails sample: above the count when the division
// opened, it shows the division's closeServer() even where the log line
// rotated away. The next check reports the division with it.
func (d *detector) closeSample(s *catalogue.Signal) {
	group := s.Attrs["raftgroupid"]
	if s.Metric != csmFails || group == "" {
		return
	}
	cs := d.closes.Observe(detectors.HostKey(s.Host)+"/"+group, s)
	if v := d.division(s.Host, group); v != nil {
		d.closeShown(v, cs)
	}
}

// closeShown marks v's closeServer() as shown by the sample cs.
func (d *detector) closeShown(v *division, cs detectors.CounterSample) {
	if v.closeMetric || !cs.Shows(v.start, v.closesBase) {
		return
	}
	v.closeMetric = true
	v.addEvidence(cs.Ev)
	v.dirty = true
}

func (d *detector) markClose(v *division, s *catalogue.Signal) {
	v.ratisClose = true
	v.closeThread = s.Thread
	if s.Peer != "" {
		v.peer = strings.ToLower(s.Peer)
	}
	v.addEvidence(detectors.EvidenceOf(s))
	v.touch(s.Time)
}

// shutdown handles T4: it names the group of a close-server line that had
// no write-chunk timeout before it, and is evidence of the trigger.
func (d *detector) shutdown(s *catalogue.Signal) {
	hk := detectors.HostKey(s.Host)
	if t2, ok := d.pendingT2.Get(hk); ok && s.Time.Sub(t2.at) <= sameBurst && sameThread(t2.thread, s.Thread) {
		d.pendingT2.Delete(hk)
		v := d.open(s.Host, s.Group, t2.at)
		v.ratisClose, v.closeThread = true, t2.thread
		if t2.peer != "" {
			v.peer = t2.peer
		}
		v.addEvidence(t2.ev)
		v.addEvidence(detectors.EvidenceOf(s))
		v.touch(s.Time)
		d.change(v)
		return
	}
	if v, ok := d.divisions.Get(hk + "/" + s.Group); ok && v.ratisClose && s.Time.Sub(v.last) <= sameBurst &&
		sameThread(v.closeThread, s.Thread) {
		v.addEvidence(detectors.EvidenceOf(s))
	}
}

// groupRemove handles R1: a removal that finds the division CLOSING is the
// defect's clearest single line; a removal in RUNNING is a normal close.
func (d *detector) groupRemove(s *catalogue.Signal) {
	hk := detectors.HostKey(s.Host)
	if s.Peer != "" {
		d.peers.Put(hk, strings.ToLower(s.Peer))
	}
	if s.State != "CLOSING" {
		if v, ok := d.divisions.Get(hk + "/" + s.Group); ok && v.emitted {
			v.addEvidence(detectors.EvidenceOf(s))
			v.touch(s.Time)
			d.change(v)
		}
		return
	}
	v := d.open(s.Host, s.Group, s.Time)
	v.removal, v.removalRole = s.State, s.Attrs["role"]
	if s.Peer != "" {
		v.peer = strings.ToLower(s.Peer)
	}
	v.addEvidence(detectors.EvidenceOf(s))
	v.touch(s.Time)
	d.change(v)
}

// closeFailed handles C1. Only causes that show the division CLOSING or
// already removed from the server count; STARTING after a restart and other
// errors are transient. A RejectedExecutionException (inferred, and also
// logged while a datanode shuts down) is added only to a division already
// suspected on other grounds and never counts towards the repetition.
func (d *detector) closeFailed(s *catalogue.Signal) {
	hk := detectors.HostKey(s.Host)
	ck := hk + "|" + strconv.FormatUint(s.Container, 10)
	if s.Peer != "" {
		d.peers.Put(hk, strings.ToLower(s.Peer))
	}
	g := s.Group
	if g == "" {
		g = d.containerGroup(s.Host, s.Container)
	} else {
		d.groupOf.Put(ck, g)
	}
	if g == "" {
		return
	}
	rejected := s.Reason == "RejectedExecutionException"
	stuck := s.Reason == "GroupMismatchException" || (s.Reason == "ServerNotReadyException" && s.State == "CLOSING")
	if !stuck && !rejected {
		return
	}
	if at, ok := d.completed.Get(hk + "/" + g); ok && s.Time.Sub(at) <= raceWindow {
		return
	}
	v, ok := d.divisions.Get(hk + "/" + g)
	if ok && d.dropStale(v, s.Time) {
		ok = false
	}
	if rejected {
		if !ok {
			return
		}
	} else {
		v = d.open(s.Host, g, s.Time)
	}
	if s.Peer != "" && v.peer == "" {
		v.peer = strings.ToLower(s.Peer)
	}
	r, known := v.containers.Get(s.Container)
	if !known {
		r = &repeats{}
		v.containers.Put(s.Container, r) // beyond the limit, the container that failed first is forgotten
	}
	v.failures++
	switch s.Reason {
	case "GroupMismatchException":
		v.notFound++
	case "RejectedExecutionException":
		v.rejected++
	default:
		v.notRunning++
	}
	if r != nil {
		r.n++
		if stuck {
			r.add(s.Time, d.cycleGap())
		}
	}
	v.addEvidence(detectors.EvidenceOf(s))
	v.touch(s.Time)
	d.change(v)
}

// cycleGap is the least distance between failures of two resend cycles:
// the commands reach the datanode with its heartbeat, so a cycle may look
// up to a fifth shorter than hdds.scm.replication.thread.interval.
func (d *detector) cycleGap() time.Duration { return d.resend - d.resend/5 }

// scmCommand handles S11: SCM re-sending a close command to a datanode for a
// container of a pipeline. The pipeline's Raft group joins it to the
// datanode's division.
func (d *detector) scmCommand(s *catalogue.Signal) {
	if s.Pipeline == "" || s.Datanode.UUID == "" {
		return
	}
	g := groupID(s.Pipeline)
	d.pipelines.Put(g, s.Pipeline)
	dk := d.dnKey(s.Datanode)
	if s.Container != 0 {
		c := strconv.FormatUint(s.Container, 10)
		d.groupOf.Put("uuid:"+strings.ToLower(s.Datanode.UUID)+"|"+c, g)
		if !strings.HasPrefix(dk, "uuid:") {
			d.groupOf.Put(dk+"|"+c, g)
		}
	}
	view, ok := d.scm.Get(dk + "/" + g)
	if !ok {
		view = &scmView{containers: detectors.NewBounded[uint64, bool](maxContainers, detectors.EvictOldest), first: detectors.EvidenceOf(s)}
		d.scm.Put(dk+"/"+g, view)
	}
	view.commands++
	view.containers.Put(s.Container, true)
	view.state = s.State
	view.last = detectors.EvidenceOf(s)
	if s.Host != "" && !slices.Contains(view.hosts, s.Host) && len(view.hosts) < 8 {
		view.hosts = append(view.hosts, s.Host)
	}
	if v, ok := d.divisions.Get(dk + "/" + g); ok && v.emitted {
		v.dirty = true
		d.change(v)
	}
}

// startup handles a datanode restart. A division resting on close failures
// alone, all logged by the old process, ends: dropped if not reported yet,
// resolved otherwise (the restart is the fix, F.1 step 2; the failures may
// also be those of the shutdown itself). A division with the trigger or a
// removal in CLOSING died with the old process too, but its finding resolves
// only when the group is then removed normally.
func (d *detector) startup(s *catalogue.Signal, emit detectors.Emit) {
	if s.Component != parsers.ComponentDatanode && s.Attrs["service"] != "HddsDatanodeService" {
		return
	}
	hk := detectors.HostKey(s.Host)
	d.lastT1.Delete(hk)
	d.pendingT2.Delete(hk)
	d.idleUntil = time.Time{} // it may change every division of the host
	for _, v := range d.divisions.Values() {
		if v.hostKey != hk {
			continue
		}
		v.restartedAt = s.Time
		if v.strong() {
			v.addEvidence(detectors.EvidenceOf(s))
			v.dirty = true
			continue
		}
		d.divisions.Delete(v.hostKey + "/" + v.group)
		d.unpend(v, s.Time, "the datanode restarted and the failures came only from the old process")
		if v.emitted {
			v.addEvidence(detectors.EvidenceOf(s))
			v.touch(s.Time)
			d.emit(v, s.Time, detectors.Resolved, "the datanode restarted at "+detectors.Stamp(s.Time)+
				" and the failures came only from the old process", emit)
		}
	}
}

// complete handles a removal completing for group on the signal's host.
func (d *detector) complete(s *catalogue.Signal, group, how string, emit detectors.Emit) {
	hk := detectors.HostKey(s.Host)
	d.completed.Put(hk+"/"+group, s.Time)
	v := d.division(s.Host, group)
	if v == nil {
		return
	}
	d.divisions.Delete(v.hostKey + "/" + v.group)
	if !v.emitted {
		d.unpend(v, s.Time, "the removal completed: "+how)
		return
	}
	v.addEvidence(detectors.EvidenceOf(s))
	v.touch(s.Time)
	d.emit(v, s.Time, detectors.Resolved, how, emit)
}

// division returns the open division of group on host. A datanode's files
// may name it differently (a docker-compose service name in its main log,
// its host name in the dn-container log): the datanode UUID joins them.
func (d *detector) division(host, group string) *division {
	hk := detectors.HostKey(host)
	if v, ok := d.divisions.Get(hk + "/" + group); ok {
		return v
	}
	uuid, _ := d.peers.Get(hk)
	if uuid == "" && d.env.Identity != nil {
		uuid = d.env.Identity.DatanodeOnHost(host)
	}
	if uuid == "" {
		return nil
	}
	for _, v := range d.divisions.Values() {
		if v.group == group && v.peer == uuid {
			return v
		}
	}
	return nil
}

// open returns the division of group on host, opening it at start.
func (d *detector) open(host, group string, start time.Time) *division {
	hk := detectors.HostKey(host)
	k := hk + "/" + group
	if v, ok := d.divisions.Get(k); ok {
		if start.Before(v.start) && !v.emitted {
			// An earlier line moved its start: a pending finding is
			// reported again with it.
			v.start = start
			if v.pending {
				d.withdrawals = append(d.withdrawals, d.pendingFinding(v, v.last))
			}
		}
		return v
	}
	v := &division{host: host, hostKey: hk, group: group, start: start, last: start,
		containers: detectors.NewBounded[uint64, *repeats](maxContainers, detectors.EvictOldest),
		ev:         detectors.EvidenceLog{Head: firstEvidence, Tail: lastEvidence}}
	v.peer, _ = d.peers.Get(hk)
	if _, old, evicted := d.divisions.Put(k, v); evicted {
		d.unpend(old, old.last, "forgotten: more divisions than the detector keeps at once")
		if d.env.Batch && old.emitted && old.dirty { // its updates were left out
			d.emit(old, d.now, detectors.Firing, "", func(f detectors.Finding) { d.withdrawals = append(d.withdrawals, f) })
		}
	}
	v.closesBase = d.closes.Baseline(k)
	if cs, ok := d.closes.Untimed(k); ok {
		d.closeShown(v, cs)
	}
	return v
}

func (v *division) touch(t time.Time) {
	if t.After(v.last) {
		v.last = t
	}
	v.dirty = true
}

func (v *division) addEvidence(e detectors.Evidence) { v.ev.Add(e) }

// emit reports the division's finding as of now.
func (d *detector) emit(v *division, now time.Time, state detectors.State, resolvedBy string, emit detectors.Emit) {
	v.emitted, v.emittedAt, v.dirty = true, now, false
	if now.Sub(v.start) >= d.stuckAfter {
		v.severity = detectors.Critical
	} else if v.severity < detectors.Warning {
		v.severity = detectors.Warning
	}
	emit(d.finding(v, now, state, resolvedBy))
}

// confidence: the removal finding the division CLOSING, or the Ratis-thread
// close followed by failed closes, is the whole signature; one part alone is
// less certain.
func (v *division) confidence() detectors.Confidence {
	if v.removal == "CLOSING" || ((v.ratisClose || v.closeMetric) && v.failures > 0) {
		return detectors.High
	}
	if r := v.longest(); r != nil && r.cycles >= repeatCycles {
		return detectors.High
	}
	return detectors.Medium
}

// containerGroup returns the Raft group a container of host belongs to, as
// learned from the host's close failures or from SCM's commands to it.
func (d *detector) containerGroup(host string, container uint64) string {
	hk, c := detectors.HostKey(host), strconv.FormatUint(container, 10)
	if g, ok := d.groupOf.Get(hk + "|" + c); ok {
		return g
	}
	if peer, ok := d.peers.Get(hk); ok {
		g, _ := d.groupOf.Get("uuid:" + peer + "|" + c)
		return g
	}
	return ""
}

// scmView returns SCM's close commands for the division's datanode and group.
func (d *detector) scmView(v *division, dn catalogue.Datanode) *scmView {
	if view, ok := d.scm.Get(v.hostKey + "/" + v.group); ok {
		return view
	}
	// The datanode's own host name may differ from the one SCM prints (a
	// docker-compose service name, say): join through the UUID.
	if dn.Host != "" {
		if view, ok := d.scm.Get(detectors.HostKey(dn.Host) + "/" + v.group); ok {
			return view
		}
	}
	if dn.UUID != "" {
		if view, ok := d.scm.Get("uuid:" + dn.UUID + "/" + v.group); ok {
			return view
		}
	}
	return nil
}

// dnKey names a datanode SCM mentions by its host when known, else its UUID.
func (d *detector) dnKey(dn catalogue.Datanode) string {
	if dn.Host != "" {
		return detectors.HostKey(dn.Host)
	}
	if d.env.Identity != nil {
		if h := d.env.Identity.DatanodeHost(dn.UUID); h != "" {
			return detectors.HostKey(h)
		}
	}
	return "uuid:" + strings.ToLower(dn.UUID)
}

func keep(s *catalogue.Signal) sig {
	return sig{at: s.Time, thread: s.Thread, group: s.Group, peer: strings.ToLower(s.Peer), ev: detectors.EvidenceOf(s)}
}

// groupID renders the Raft group ID of a pipeline UUID: "group-" and its
// last 12 hex digits, upper case (ratis RaftGroupId.java:63-64).
func groupID(pipeline string) string {
	hex := strings.ReplaceAll(pipeline, "-", "")
	if len(hex) < 12 {
		return ""
	}
	return "group-" + strings.ToUpper(hex[len(hex)-12:])
}

func sameThread(a, b string) bool { return a == "" || b == "" || a == b }
