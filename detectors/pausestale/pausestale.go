package pausestale

import (
	"sort"
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
	maxStarted = 64   // hosts known to run an SCM from its STARTUP_MSG
)

type detector struct {
	env   *detectors.Env
	cfg   config
	scms  map[string]*scmState
	hosts []string             // keys of scms, sorted
	stops map[string]time.Time // datanode short host -> its latest SHUTDOWN_MSG
	// started holds the hosts whose STARTUP_MSG names the SCM, so that a
	// stream whose component is unknown can be told to be an SCM's.
	started map[string]bool
}

// scmState is what the detector follows on one SCM host.
type scmState struct {
	host    string
	seen    time.Time
	pending []catalogue.Signal // node lines not yet attributed to a pause
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
	return &detector{env: env, cfg: cfg, scms: map[string]*scmState{}, stops: map[string]time.Time{}, started: map[string]bool{}}, nil
}

// Observe implements detectors.Detector.
func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	if s.Time.IsZero() {
		return
	}
	switch s.Kind {
	case catalogue.IntervalReset:
		if s.Component == parsers.ComponentSCM || s.Component == parsers.ComponentUnknown {
			d.cfg.reset(s)
		}
	case catalogue.ShutdownMsg:
		d.onShutdown(s, emit)
	case catalogue.StartupMsg:
		d.onStartup(s, emit)
	case catalogue.Terminating:
		d.onTerminating(s, emit)
	case catalogue.HeartbeatFromUnregistered, catalogue.DatanodeRegistered:
		if st := d.scms[s.Host]; st != nil && st.term != nil && !st.term.restart.IsZero() {
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
	c := &d.cfg
	for _, h := range d.hosts {
		st := d.scms[h]
		if st.ep != nil && now.After(st.ep.closeAt(c)) {
			d.finish(st, now, emit)
		}
		cut := now.Add(-c.tolerance() - time.Second)
		i := 0
		for i < len(st.pending) && st.pending[i].Time.Before(cut) {
			i++
		}
		st.pending = st.pending[i:]
		if t := st.term; t != nil && (t.expired(now) || !t.restart.IsZero() && now.Sub(t.restart) > 2*c.returnWindow()) {
			// An unconfirmed close is dropped here once exitWait has
			// passed: the SCM did not terminate, or any later line of
			// its own (which moves the clock past exitWait before it is
			// observed) contradicts the termination.
			st.term = nil
		}
	}
}

// Flush implements detectors.Detector.
func (d *detector) Flush(end time.Time, emit detectors.Emit) {
	for _, h := range d.hosts {
		st := d.scms[h]
		if st.ep != nil {
			d.finish(st, end, emit)
		}
		// The input ends within exitWait of a close ERROR: whether the
		// SCM terminated is not in the input.
		if t := st.term; t != nil && !t.confirmed() && !t.expired(end) {
			emit(t.finding(&d.cfg, d.env, end))
		}
	}
}

// fromSCM reports whether a pause line was logged by an SCM (or by a
// stream whose component is unknown).
func fromSCM(s *catalogue.Signal) bool {
	return s.Component == parsers.ComponentSCM || s.Component == parsers.ComponentUnknown
}

// knownSCM reports whether s was logged by a stream known to be an SCM's:
// its component, or an SCM STARTUP_MSG on its host when the component is
// unknown. OMs and datanodes run the same Ratis server and log the same
// close-threshold ERROR.
func (d *detector) knownSCM(s *catalogue.Signal) bool {
	return s.Component == parsers.ComponentSCM || s.Component == parsers.ComponentUnknown && d.started[s.Host]
}

func (d *detector) onPause(s *catalogue.Signal, emit detectors.Emit) {
	if !fromSCM(s) || (s.Kind == catalogue.LogGap && s.Component != parsers.ComponentSCM) {
		return
	}
	c := &d.cfg
	st := d.scm(s.Host, s.Time)
	if s.Kind == catalogue.RaftPauseClose && d.knownSCM(s) {
		d.startTermination(st, s)
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
	pending := st.pending
	st.pending = nil
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
			emit(ep.finding(c, d.env, s.Time))
		}
		return
	}
	if len(st.pending) >= maxPending {
		st.pending = append(st.pending[:0], st.pending[1:]...)
	}
	st.pending = append(st.pending, *s)
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
	at, ok := d.stops[detectors.ShortHost(dn.Host)]
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
		if _, ok := d.stops[detectors.ShortHost(host)]; !ok && len(d.stops) >= maxStops {
			d.forgetOldestStop()
		}
		d.stops[detectors.ShortHost(host)] = s.Time
	case s.Attrs["service"] == "StorageContainerManager":
		// Before the termination line, only a SHUTDOWN_MSG within exitWait
		// of the close ERROR counts (Advance drops the close after that);
		// after it, the shutdown hooks may take a while.
		if st := d.scms[s.Host]; st != nil && st.term != nil && st.term.restart.IsZero() &&
			(!st.term.sawExit || !s.Time.After(st.term.exitAt.Add(d.cfg.holdoff()))) {
			st.term.addShutdown(s)
			emit(st.term.finding(&d.cfg, d.env, time.Time{}))
		}
	}
}

func (d *detector) forgetOldestStop() {
	var oldest string
	var at time.Time
	for h, t := range d.stops {
		if oldest == "" || t.Before(at) || (t.Equal(at) && h < oldest) {
			oldest, at = h, t
		}
	}
	delete(d.stops, oldest)
}

func (d *detector) onStartup(s *catalogue.Signal, emit detectors.Emit) {
	if s.Attrs["service"] != "StorageContainerManager" {
		return
	}
	if !d.started[s.Host] && len(d.started) < maxStarted {
		d.started[s.Host] = true
	}
	st := d.scms[s.Host]
	if st == nil || st.term == nil || !st.term.confirmed() || !st.term.restart.IsZero() {
		return
	}
	st.term.restart = s.Time
	st.term.ev.Add(detectors.EvidenceOf(s))
	emit(st.term.finding(&d.cfg, d.env, time.Time{}))
}

// startTermination handles the Ratis close-threshold ERROR (T06) of an SCM.
// Nothing is reported yet: the SCM's termination line or SHUTDOWN_MSG must
// follow within exitWait (onTerminating, onShutdown); Advance drops the
// close when they do not, and Flush reports it when the input ends first.
func (d *detector) startTermination(st *scmState, s *catalogue.Signal) {
	c := &d.cfg
	if t := st.term; t == nil || !t.restart.IsZero() || s.Time.Sub(t.pauseEnd) > c.holdoff() {
		st.term = newTermination(st.host, s)
		if p := &st.lastPause; p.Kind == catalogue.JVMPause && !s.Time.Before(p.Time) && s.Time.Sub(p.Time) <= c.tolerance() {
			st.term.addPause(p)
		}
	}
	st.term.addPause(s)
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
		st.term = newTermination(st.host, p)
		st.term.addPause(p)
	}
	st.term.addExit(s)
	emit(st.term.finding(c, d.env, time.Time{}))
}

// scm returns the state of an SCM host, creating it (and forgetting the
// least recently seen host beyond maxSCMs).
func (d *detector) scm(host string, t time.Time) *scmState {
	st := d.scms[host]
	if st == nil {
		if len(d.scms) >= maxSCMs {
			d.forgetOldestSCM()
		}
		st = &scmState{host: host}
		d.scms[host] = st
		i := sort.SearchStrings(d.hosts, host)
		d.hosts = append(d.hosts, "")
		copy(d.hosts[i+1:], d.hosts[i:])
		d.hosts[i] = host
	}
	if t.After(st.seen) {
		st.seen = t
	}
	return st
}

func (d *detector) forgetOldestSCM() {
	oldest := -1
	for i, h := range d.hosts {
		if oldest < 0 || d.scms[h].seen.Before(d.scms[d.hosts[oldest]].seen) {
			oldest = i
		}
	}
	delete(d.scms, d.hosts[oldest])
	d.hosts = append(d.hosts[:oldest], d.hosts[oldest+1:]...)
}
