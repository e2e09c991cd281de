package pausestale

import (
	"slices"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Registration is the detector's entry in the registry.
var Registration = detectors.Registration{Doc: doc(), New: newDetector}

// Bounds on the state kept.
const (
	maxSCMs    = 16   // SCM hosts tracked
	maxPending = 512  // node lines per SCM waiting for a pause line logged just after them
	maxStops   = 4096 // datanode hosts whose SHUTDOWN_MSG is remembered
)

// horizon is the detector's Doc.Horizon (doc.go says why).
const horizon = time.Hour

type detector struct {
	env  *detectors.Env `state:"-"`
	cfg  config
	scms *detectors.Bounded[string, *scmState] // by host, least recently seen evicted
	// stops holds each datanode's latest SHUTDOWN_MSG by short host.
	stops *detectors.Bounded[string, time.Time]
	sweep detectors.Sweep
}

// scmState is what the detector follows on one SCM host.
type scmState struct {
	host    string
	seen    time.Time
	pending *detectors.Ring[catalogue.Signal] // node lines not yet attributed to a pause
	ep      *episode
	term    *termination
	// lastPause is the latest pause line at least as long as the Ratis
	// close threshold (the JVM pause WARN that precedes the close ERROR).
	lastPause catalogue.Signal
}

func newDetector(env *detectors.Env) (detectors.Detector, error) {
	cfg, err := newConfig(env)
	if err != nil {
		return nil, err
	}
	return &detector{env: env, cfg: cfg,
		scms:  detectors.NewBounded[string, *scmState](maxSCMs, detectors.EvictLeastRecent),
		stops: detectors.NewBounded[string, time.Time](maxStops, detectors.EvictLeastRecent)}, nil
}

// StateStats implements detectors.StateReporter.
func (d *detector) StateStats() []detectors.StateStat {
	out := []detectors.StateStat{d.scms.Stat("scm hosts"), d.stops.Stat("datanode shutdowns")}
	pend := detectors.StateStat{Name: "node lines before a pause line"}
	nodes := detectors.StateStat{Name: "episode datanodes"}
	for _, st := range d.scms.All() {
		s := st.pending.Stat("")
		pend.Entries += s.Entries
		pend.Limit += s.Limit
		pend.Evicted += s.Evicted
		if st.ep != nil {
			s := st.ep.nodes.Stat("")
			nodes.Entries += s.Entries
			nodes.Limit += s.Limit
			nodes.Evicted += s.Evicted
		}
	}
	return append(out, pend, nodes)
}

// hosts returns the SCM hosts followed, sorted.
func (d *detector) hosts() []string { return slices.Sorted(slices.Values(d.scms.Keys())) }

// Observe implements detectors.Detector.
func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	if s.Time.IsZero() {
		return
	}
	d.cfg.refresh(d.env.Settings)
	switch s.Kind {
	case catalogue.IntervalReset:
		if fromSCM(s) {
			d.cfg.reset(s)
		}
	case catalogue.ShutdownMsg:
		d.onShutdown(s, emit)
	case catalogue.StartupMsg:
		d.onStartup(s, emit)
	case catalogue.Terminating:
		d.onTerminating(s, emit)
	case catalogue.HeartbeatFromUnregistered, catalogue.DatanodeRegistered:
		if st, _ := d.scms.Get(s.Host); st != nil && st.term != nil && !st.term.restart.IsZero() {
			st.term.addReregistration(s)
			emit(st.term.finding(&d.cfg, d.env, time.Time{}))
		}
	case catalogue.JVMPause, catalogue.HeartbeatCheckSkipped, catalogue.HeartbeatCheckSlow,
		catalogue.RaftPauseStepDown, catalogue.RaftPauseClose, catalogue.LogGap:
		d.onPause(s, emit)
	default:
		d.onNode(s, emit)
	}
}

// Advance implements detectors.Detector.
func (d *detector) Advance(now time.Time, emit detectors.Emit) {
	d.cfg.refresh(d.env.Settings)
	c := &d.cfg
	// In the map's order (least recently seen first), which is as fixed as
	// the input; Advance runs for every new signal time and does not sort.
	for h, st := range d.scms.All() {
		if st.ep != nil && now.After(st.ep.closeAt(c)) {
			d.finish(st, now, emit)
		}
		cut := now.Add(-c.tolerance() - time.Second)
		st.pending.DropWhile(func(s catalogue.Signal) bool { return s.Time.Before(cut) })
		if t := st.term; t != nil && t.expired(now) {
			// An unconfirmed close is withdrawn here once exitWait has
			// passed: the SCM did not terminate, or any later line of
			// its own (which moves the clock past exitWait before it is
			// observed) contradicts the termination.
			d.dropTerm(st, "no termination line or SHUTDOWN_MSG of the SCM within "+exitWait.String()+" of the close", emit)
		} else if t != nil && !t.restart.IsZero() && now.Sub(t.restart) > 2*c.returnWindow() {
			st.term = nil
		}
		if st.ep == nil && st.term == nil && st.pending.Len() == 0 && now.Sub(st.seen) > horizon {
			d.scms.Delete(h)
		}
	}
	if d.sweep.Due(now, time.Minute) {
		// A SHUTDOWN_MSG explains transitions up to the dead interval plus
		// the hold-off after it.
		keep := max(horizon, c.dead.d+c.holdoff()+c.tolerance())
		d.stops.DeleteFunc(func(_ string, at time.Time) bool { return now.Sub(at) > keep })
	}
}

// Quiet implements detectors.Sleeper: the earliest condition of Advance.
func (d *detector) Quiet(time.Time) time.Time {
	c := &d.cfg
	q := d.sweep.Quiet()
	for _, st := range d.scms.All() {
		if st.ep != nil {
			q = detectors.Earliest(q, st.ep.closeAt(c))
		}
		if st.pending.Len() > 0 {
			q = detectors.Earliest(q, st.pending.At(0).Time.Add(c.tolerance()+time.Second))
		}
		if t := st.term; t != nil {
			if !t.confirmed() {
				q = detectors.Earliest(q, t.pauseEnd.Add(exitWait))
			}
			if !t.restart.IsZero() {
				q = detectors.Earliest(q, t.restart.Add(2*c.returnWindow()))
			}
		} else if st.ep == nil && st.pending.Len() == 0 {
			q = detectors.Earliest(q, st.seen.Add(horizon))
		}
	}
	return q
}

// dropTerm forgets the termination of st; one still unconfirmed was
// emitted pending and is withdrawn.
func (d *detector) dropTerm(st *scmState, reason string, emit detectors.Emit) {
	if t := st.term; t != nil && !t.confirmed() {
		emit(detectors.Withdraw(t.finding(&d.cfg, d.env, time.Time{}), reason))
	}
	st.term = nil
}

// Flush implements detectors.Detector.
func (d *detector) Flush(end time.Time, emit detectors.Emit) {
	d.cfg.refresh(d.env.Settings)
	for _, h := range d.hosts() {
		st, _ := d.scms.Get(h)
		if st.ep != nil {
			d.finish(st, end, emit)
		}
		// The input ends within exitWait of a close ERROR: whether the
		// SCM terminated is not in the input.
		if t := st.term; t != nil && !t.confirmed() {
			if t.expired(end) {
				d.dropTerm(st, "no termination line or SHUTDOWN_MSG of the SCM within "+exitWait.String()+" of the close", emit)
			} else {
				emit(t.finding(&d.cfg, d.env, end))
			}
		}
	}
}

// fromSCM reports whether s was logged by an SCM. OMs and datanodes run the
// same Ratis server and log the same pause and close-threshold lines; streams
// whose component is unknown never reach a detector (see Engine.Observe).
func fromSCM(s *catalogue.Signal) bool { return s.Component == parsers.ComponentSCM }

func (d *detector) onPause(s *catalogue.Signal, emit detectors.Emit) {
	if !fromSCM(s) {
		return
	}
	c := &d.cfg
	st := d.scm(s.Host, s.Time)
	if s.Kind == catalogue.RaftPauseClose {
		d.startTermination(st, s, emit)
	}
	if s.Kind != catalogue.LogGap && s.Duration >= c.close.d {
		st.lastPause = *s
	}
	if s.Kind != catalogue.HeartbeatCheckSkipped && s.Duration < c.minPause() {
		return // too short to make a live datanode STALE
	}
	if ep := st.ep; ep != nil {
		if gap := s.Time.Sub(ep.pauseEnd); gap <= c.holdoff() && gap >= -c.holdoff() {
			ep.addPause(s) // another line about the same pause
			return
		}
		d.finish(st, s.Time, emit)
	}
	st.ep = newEpisode(st.host, s)
	st.ep.addPause(s)
	// Node lines logged just before the pause line belong to it too.
	from := s.Time.Add(-c.tolerance())
	pending := st.pending.Items()
	st.pending.Clear()
	for i := range pending {
		if !pending[i].Time.Before(from) {
			d.onNode(&pending[i], emit)
		}
	}
}

// onNode handles the SCM's node and pipeline lines.
func (d *detector) onNode(s *catalogue.Signal, emit detectors.Emit) {
	c := &d.cfg
	st := d.scm(s.Host, s.Time)
	if ep := st.ep; ep != nil && !s.Time.Before(ep.pauseEnd.Add(-c.tolerance())) && !s.Time.After(ep.closeAt(c)) {
		if ep.observe(c, s, d.stopped) && ep.qualifies(c, len(d.env.Identity.Datanodes())) {
			f := ep.finding(c, d.env, s.Time)
			if !ep.strong() {
				// A silence alone is judged against the cluster's size,
				// which the run may still be learning: decided at finish.
				f.State = detectors.Pending
			}
			ep.emitted = true
			emit(f)
		}
		return
	}
	st.pending.Push(*s)
}

// finish closes the open episode of st at now and reports it if it shows
// the defect (or, for a named pause, if its datanodes could not return
// before the input ended).
func (d *detector) finish(st *scmState, now time.Time, emit detectors.Emit) {
	c := &d.cfg
	ep := st.ep
	st.ep = nil
	if ep.qualifies(c, len(d.env.Identity.Datanodes())) {
		emit(ep.finding(c, d.env, now))
		return
	}
	if !ep.strong() {
		if ep.emitted {
			emit(detectors.Withdraw(ep.finding(c, d.env, now), "the silence in the SCM log is not followed by a burst of most of the cluster's datanodes"))
		}
		return
	}
	_, out, _ := ep.split()
	for _, n := range out {
		if now.Before(n.last.Add(c.returnWindow())) {
			emit(ep.finding(c, d.env, now))
			return
		}
	}
}

// stopped reports whether the datanode logged SHUTDOWN_MSG in the time that
// could explain its transition at t: it really went away.
func (d *detector) stopped(dn catalogue.Datanode, t time.Time) bool {
	dn = d.env.Identity.Complete(dn)
	if dn.Host == "" {
		return false
	}
	at, ok := d.stops.Get(detectors.ShortHost(dn.Host))
	return ok && !at.Before(t.Add(-d.cfg.dead.d-d.cfg.holdoff())) && !at.After(t.Add(d.cfg.tolerance()))
}

func (d *detector) onShutdown(s *catalogue.Signal, emit detectors.Emit) {
	switch {
	case s.Attrs["service"] == "HddsDatanodeService" || s.Component == parsers.ComponentDatanode:
		host := s.Host
		if host == "" {
			host = s.Attrs["hostname"]
		}
		if host == "" {
			return
		}
		d.stops.Put(detectors.ShortHost(host), s.Time)
	case s.Attrs["service"] == "StorageContainerManager":
		// Before the termination line, only a SHUTDOWN_MSG within exitWait
		// of the close ERROR counts (Advance drops the close after that);
		// after it, the shutdown hooks may take a while.
		if st, _ := d.scms.Get(s.Host); st != nil && st.term != nil && st.term.restart.IsZero() &&
			(!st.term.sawExit || !s.Time.After(st.term.exitAt.Add(d.cfg.holdoff()))) {
			st.term.addShutdown(s)
			emit(st.term.finding(&d.cfg, d.env, time.Time{}))
		}
	}
}

func (d *detector) onStartup(s *catalogue.Signal, emit detectors.Emit) {
	if s.Attrs["service"] != "StorageContainerManager" {
		return
	}
	st, _ := d.scms.Get(s.Host)
	if st == nil || st.term == nil || !st.term.confirmed() || !st.term.restart.IsZero() {
		return
	}
	st.term.restart = s.Time
	st.term.ev.Add(detectors.EvidenceOf(s))
	emit(st.term.finding(&d.cfg, d.env, time.Time{}))
}

// startTermination handles the Ratis close-threshold ERROR (T06) of an SCM.
// It is reported pending: the SCM's termination line or SHUTDOWN_MSG must
// follow within exitWait (onTerminating, onShutdown); Advance withdraws the
// close when they do not, and Flush reports it firing when the input ends
// first.
func (d *detector) startTermination(st *scmState, s *catalogue.Signal, emit detectors.Emit) {
	c := &d.cfg
	if t := st.term; t == nil || !t.restart.IsZero() || s.Time.Sub(t.pauseEnd) > c.holdoff() {
		d.dropTerm(st, "another close of the SCM's Ratis server followed", emit)
		st.term = newTermination(st.host, s)
		if p := &st.lastPause; p.Kind == catalogue.JVMPause && !s.Time.Before(p.Time) && s.Time.Sub(p.Time) <= c.tolerance() {
			st.term.addPause(p)
		}
	}
	st.term.addPause(s)
	if !st.term.confirmed() {
		emit(st.term.finding(c, d.env, time.Time{}))
	}
}

// onTerminating handles "Terminating with exit status 0: scm statemachine is
// closed by ratis" (T07). Without the close ERROR it counts only within
// exitWait of a pause line longer than the close threshold.
func (d *detector) onTerminating(s *catalogue.Signal, emit detectors.Emit) {
	if !strings.Contains(strings.ToLower(s.Reason), scmClosedByRatis) {
		return
	}
	c := &d.cfg
	st := d.scm(s.Host, s.Time)
	if t := st.term; t == nil || !t.restart.IsZero() || t.sawExit {
		p := &st.lastPause
		if p.Time.IsZero() || s.Time.Before(p.Time) || s.Time.Sub(p.Time) > exitWait {
			return
		}
		d.dropTerm(st, "a later termination of the SCM follows another pause", emit)
		st.term = newTermination(st.host, p)
		st.term.addPause(p)
	}
	st.term.addExit(s)
	emit(st.term.finding(c, d.env, time.Time{}))
}

// scm returns the state of an SCM host, creating it (and forgetting the
// least recently seen host beyond maxSCMs).
func (d *detector) scm(host string, t time.Time) *scmState {
	st, ok := d.scms.Get(host)
	if !ok {
		st = &scmState{host: host, pending: detectors.NewRing[catalogue.Signal](maxPending)}
	}
	d.scms.Put(host, st)
	if t.After(st.seen) {
		st.seen = t
	}
	return st
}
