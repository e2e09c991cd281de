package detectors

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Engine runs detectors over a time-ordered signal stream and owns the state
// of their alerts, in the manner of Prometheus' alerting rules: an alert is
// identified by a stable fingerprint (its detector and the key that names
// the incident), moves pending → firing → resolved, may escalate without
// becoming a new alert, and every change is handed to the subscribers as it
// happens. Resolved alerts are kept for a retention period, then dropped.
// The engine never reads the wall clock: time is what Observe and Advance
// say.
type Engine struct {
	env     *Env
	running []running
	sched   *schedule
	byKind  map[catalogue.Kind][]int
	alerts  map[string]*alert       // by detector + "\x00" + key
	steps   map[string]*remediation // by detector: parsed once, filled per finding
	subs    []func(Transition)
	raw     []*Collector // see Collect
	all     *Collector   // when opt.Collect
	opt     EngineOptions
	now     time.Time
	swept   time.Time // clock of the last retention sweep
	// expiry is when the next resolved alert may be forgotten at the
	// earliest (zero: unknown, as after a restore): sweeps before it find
	// nothing, and skip the alerts; between signals no tick is needed for
	// the sweep before it.
	expiry time.Time
	// gens are the generations of the settings and identities that the
	// detectors' last Advance saw: a change brings the next tick.
	gens  [2]int
	stats EngineStats
}

// EngineOptions tune the alert state kept.
type EngineOptions struct {
	// Retention is how long (event time) a resolved alert is remembered
	// after it resolved; 0 means DefaultRetention.
	Retention time.Duration
	// MaxAlerts bounds the alerts remembered; beyond it the alert resolved
	// longest ago is forgotten first, then the one seen longest ago. 0
	// means DefaultMaxAlerts.
	MaxAlerts int
	// Tick is the grid of event time on which detectors' deadlines pass
	// between signals; 0 means DefaultTick. Detectors see Advance at every
	// signal's time and at the ticks at which one has something to do (see
	// Detector.Quiet), whatever the mode, so a bundle and a live run make the same
	// decisions at the same moments.
	Tick time.Duration
	// EveryTick calls every detector's Advance at every tick and every
	// signal's time even when it is quiet (see Detector.Quiet), which must not
	// change a finding: for tests.
	EveryTick bool
	// Collect keeps every finding of the run for Finish to return (a
	// Collector subscribed by the engine itself); a run of unbounded
	// length subscribes the sinks it needs instead.
	Collect bool
	// StateOnly keeps of each alert what its transitions need (detector,
	// key, start, state, severity), not its evidence: for a run whose
	// subscribers keep the findings themselves, as a bundle run's
	// spilling collector does. Alerts then returns those fields alone.
	StateOnly bool
}

// Defaults of EngineOptions.
const (
	DefaultRetention = time.Hour
	DefaultMaxAlerts = 10000
	DefaultTick      = time.Second
)

// EngineStats count what the engine did.
type EngineStats struct {
	Signals     int64 // signals observed
	Late        int64 // signals older than the engine's clock
	Transitions int64 // state changes handed on (updates not counted)
	Expired     int64 // resolved alerts dropped after the retention period
	Evicted     int64 // alerts dropped to stay within MaxAlerts
	// Unattributed counts deliveries withheld from detectors because the
	// signal's stream has no known component.
	Unattributed int64
}

type running struct {
	doc  Doc
	det  Detector
	emit Emit // made once: detectors are called per signal and tick
	// Unless awake, quiet is det's Quiet as its last Observe or Advance
	// left it, and pos its place in the schedule's heap (see schedule).
	quiet time.Time
	awake bool
	pos   int
}

// alert is the engine's record of one finding's life.
type alert struct {
	fingerprint string
	finding     Finding
	since       time.Time // engine clock when it entered its state
}

// Transition is one change of an alert. From is "" for a new alert; To is
// Inactive when a pending alert was withdrawn by its detector. An update of
// an alert's content that changes neither its state nor its severity is a
// Transition with From == To and Escalated false.
type Transition struct {
	At          time.Time // engine clock (event time) when it happened
	Fingerprint string
	From, To    State
	Escalated   bool     // severity rose while the state stayed
	Finding     Finding  // the finding as of the change, finalized (see Subscribe)
	Previous    Severity // severity before the change (0 for a new alert)
}

// Update reports whether t changed neither state nor severity.
func (t Transition) Update() bool {
	return t.From == t.To && !t.Escalated && t.Previous == t.Finding.Severity
}

// Inactive is the To of a pending alert its detector withdrew (see
// Withdraw): the part of the signature seen was not confirmed in time, as
// a Prometheus alert goes back from pending to inactive. Withdrawn alerts
// never reach a report.
const Inactive State = "inactive"

// NewEngine builds the detectors of regs with env, collecting the run's
// findings for Finish.
func NewEngine(regs []Registration, env *Env) (*Engine, error) {
	return NewEngineWith(regs, env, EngineOptions{Collect: true})
}

// NewEngineWith builds the detectors of regs with env and options.
func NewEngineWith(regs []Registration, env *Env, opt EngineOptions) (*Engine, error) {
	if opt.Retention <= 0 {
		opt.Retention = DefaultRetention
	}
	if opt.MaxAlerts <= 0 {
		opt.MaxAlerts = DefaultMaxAlerts
	}
	if opt.Tick <= 0 {
		opt.Tick = DefaultTick
	}
	e := &Engine{env: env, byKind: map[catalogue.Kind][]int{}, alerts: map[string]*alert{}, steps: map[string]*remediation{}, opt: opt}
	if opt.Collect {
		e.all = &Collector{}
		e.Collect(e.all)
	}
	for _, r := range regs {
		d, err := r.New(env)
		if err != nil {
			return nil, fmt.Errorf("detector %s: %w", r.Doc.Name, err)
		}
		i := len(e.running)
		e.running = append(e.running, running{doc: r.Doc, det: d, emit: e.emitter(r.Doc)})
		e.steps[r.Doc.Name] = r.Doc.remediation()
		for _, k := range r.Doc.Kinds {
			e.byKind[k] = append(e.byKind[k], i)
		}
	}
	e.sched = newSchedule(e.running)
	return e, nil
}

// Subscribe hands every later transition to fn, in order, its finding
// finalized as a report shows it: remediation steps filled from the
// detector's doc, datanodes completed with the identities learned so far.
// The finding is finalized once per transition for all subscribers.
func (e *Engine) Subscribe(fn func(Transition)) { e.subs = append(e.subs, fn) }

// Collect hands every later transition to c, before the subscribers, with
// its finding as the detector emitted it: a report finalizes its findings
// at the end (Finalizer), with everything the run learned by then.
func (e *Engine) Collect(c *Collector) { e.raw = append(e.raw, c) }

// Kinds returns every signal kind some detector consumes.
func (e *Engine) Kinds() map[catalogue.Kind]bool {
	m := make(map[catalogue.Kind]bool, len(e.byKind))
	for k := range e.byKind {
		m[k] = true
	}
	return m
}

// Metrics returns every /prom metric name some detector reads.
func (e *Engine) Metrics() map[string]bool {
	m := map[string]bool{}
	for _, r := range e.running {
		for _, name := range r.doc.Metrics {
			m[name] = true
		}
	}
	return m
}

// Now returns the engine's clock.
func (e *Engine) Now() time.Time { return e.now }

// Stats returns what the engine did so far.
func (e *Engine) Stats() EngineStats { return e.stats }

// Observe learns from one signal and dispatches it. Signals must come in
// event-time order, untimed ones first; a signal older than the engine's
// clock is dispatched at the clock's time (it arrived late).
func (e *Engine) Observe(s *catalogue.Signal) {
	e.stats.Signals++
	e.env.Learn(s)
	if !s.Time.IsZero() {
		if s.Time.Before(e.now) {
			e.stats.Late++
		}
		e.AdvanceTicks(s.Time)
		e.Advance(s.Time)
	}
	for _, i := range e.byKind[s.Kind] {
		// A stream whose component could not be told feeds no detector
		// that needs a specific component's logs.
		if s.Component == parsers.ComponentUnknown && len(e.running[i].doc.Needs) > 0 {
			e.stats.Unattributed++
			continue
		}
		r := &e.running[i]
		r.det.Observe(s, r.emit)
		e.sched.wake(i)
	}
}

// AdvanceTicks moves the engine's clock through every tick up to t (but not
// to t itself when t is between ticks): a live source calls it with its
// watermark, so that deadlines pass while no signal comes. Ticks at which
// every detector and the retention sweep are quiet are skipped.
func (e *Engine) AdvanceTicks(t time.Time) {
	if e.now.IsZero() {
		return // the clock starts at the first signal
	}
	tick := e.opt.Tick
	b := e.now.Truncate(tick).Add(tick)
	if t.Before(b) {
		return // within the clock's tick: nothing passes, the clock stays
	}
	for ; !b.After(t); b = b.Add(tick) {
		if q := e.quiet(); !b.After(q) {
			if b = q.Truncate(tick).Add(tick); b.After(t) {
				break
			}
		}
		e.Advance(b)
	}
	if last := t.Truncate(tick); last.After(e.now) {
		e.now = last
	}
}

// quiet returns a time through which Advance would change nothing while no
// signal comes (see Detector.Quiet); a time before the clock when it cannot
// tell.
func (e *Engine) quiet() time.Time {
	if e.opt.EveryTick || e.gens != e.env.generations() {
		return time.Time{}
	}
	if e.expiry.IsZero() {
		return time.Time{} // unknown until the next sweep
	}
	// The sweep runs in a later second than the last, past the expiry.
	q := e.expiry
	if next := e.swept.Truncate(time.Second).Add(time.Second - time.Nanosecond); next.After(q) {
		q = next
	}
	return e.sched.quiet(e.now, q)
}

// Advance moves the engine's clock to t: detectors make the decisions whose
// deadlines passed, and resolved alerts past the retention are forgotten.
// A detector that saw no signal since its last Advance and is quiet
// through t (see Detector.Quiet) is passed over.
func (e *Engine) Advance(t time.Time) {
	if !t.After(e.now) {
		return
	}
	prev := e.now
	skip := !e.opt.EveryTick && e.gens == e.env.generations()
	e.now = t
	for _, i := range e.sched.dueAt(prev, t, !skip) {
		r := &e.running[i]
		r.det.Advance(t, r.emit)
		e.sched.wake(i)
	}
	e.gens = e.env.generations()
	// Retention is swept at most once a second of event time, not per
	// signal.
	if t.Unix() <= e.swept.Unix() { // the same second (Unix seconds are whole ones of the time line)
		return
	}
	e.swept = t
	if !e.expiry.IsZero() && !t.After(e.expiry) {
		return
	}
	e.expiry = t.Add(NoDeadline) // apply brings it forward
	for k, a := range e.alerts {
		if a.finding.State != Resolved {
			continue
		}
		if t.Sub(a.since) > e.opt.Retention {
			delete(e.alerts, k)
			e.stats.Expired++
		} else if x := a.since.Add(e.opt.Retention); x.Before(e.expiry) {
			e.expiry = x
		}
	}
}

// End ends the input at end: the detectors are advanced to end (every
// deadline up to it passes in Advance, as in a run that goes on), then
// report what is still open.
func (e *Engine) End(end time.Time) {
	e.AdvanceTicks(end)
	e.Advance(end)
	for i := range e.running {
		e.running[i].det.End(end, e.running[i].emit)
	}
}

// Finish ends the input at end (End) and returns the run's findings when
// the engine collects them (EngineOptions.Collect), else the alerts it
// still remembers that fired or resolved; finalized, sorted.
func (e *Engine) Finish(end time.Time) []Finding {
	e.End(end)
	if e.all != nil {
		return e.all.Findings(e.finalize, nil).Slice()
	}
	out := []Finding{}
	for _, f := range e.Alerts() {
		if f.State != Pending {
			out = append(out, f)
		}
	}
	return out
}

// Alerts returns the alerts the engine remembers (pending, firing and
// recently resolved), by start, detector and key; finalized with the
// identities learned so far, unless StateOnly keeps only their state.
func (e *Engine) Alerts() []Finding {
	out := make([]Finding, 0, len(e.alerts))
	for _, k := range slices.Sorted(maps.Keys(e.alerts)) {
		f := e.alerts[k].finding
		if !e.opt.StateOnly {
			f = e.finalize(f)
		}
		out = append(out, f)
	}
	SortFindings(out)
	return out
}

// DetectorState is the retained state of one detector.
type DetectorState struct {
	Detector string
	Stats    []StateStat
}

// State returns the size of the engine's retained state: its alerts, then
// that of every detector that reports some.
func (e *Engine) State() []DetectorState {
	out := []DetectorState{{Detector: "engine", Stats: []StateStat{{Name: "alerts", Entries: len(e.alerts),
		Limit: e.opt.MaxAlerts, Evicted: e.stats.Evicted}}}}
	for _, r := range e.running {
		if st := r.det.StateStats(); len(st) > 0 {
			out = append(out, DetectorState{Detector: r.doc.Name, Stats: st})
		}
	}
	return out
}

// SortFindings orders findings by start, then detector, keeping the order
// of findings that tie.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int { return compareFindings(&a, &b) })
}

// compareFindings orders by start, then detector.
func compareFindings(a, b *Finding) int {
	if c := a.Start.Compare(b.Start); c != 0 {
		return c
	}
	return strings.Compare(a.Detector, b.Detector)
}

// finalize returns f as a report shows it: remediation steps filled from
// its detector's doc, and its datanodes completed with what the run has
// learned since the detector emitted it.
func (e *Engine) finalize(f Finding) Finding {
	return finalizeWith(f, e.env.Identity, e.steps[f.Detector])
}

// Finalizer returns finalize holding only what it needs (the detectors'
// docs and the identities learned), not the detectors' state: the findings
// of a Collect-ed report are finalized with it as they are read, after the
// run, so that a datanode whose identity was learned after its finding
// was emitted is completed too.
func (e *Engine) Finalizer() func(Finding) Finding {
	id, steps := e.env.Identity, e.steps
	return func(f Finding) Finding { return finalizeWith(f, id, steps[f.Detector]) }
}

func finalizeWith(f Finding, id *Identity, steps *remediation) Finding {
	if len(f.Entities.Datanodes) > 0 {
		dns := make([]catalogue.Datanode, len(f.Entities.Datanodes))
		for i, d := range f.Entities.Datanodes {
			dns[i] = id.Complete(d)
		}
		f.Entities.Datanodes = dns
	}
	if steps == nil {
		return f
	}
	if filled, err := steps.fill(&f); err == nil {
		f.Remediation = filled
	} else {
		f.Remediation = []string{err.Error()}
	}
	return f
}

// Fingerprint returns the stable identity of a detector's alert of key.
func Fingerprint(detector, key string) string {
	h := fnv.New64a()
	h.Write([]byte(detector))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return hex.EncodeToString(h.Sum(nil))
}

// emitter returns the Emit of doc's detector.
func (e *Engine) emitter(doc Doc) Emit {
	return func(f Finding) {
		f.Detector = doc.Name
		if f.Defect == "" {
			f.Defect = doc.Defect
		}
		if f.Title == "" {
			f.Title = doc.Title
		}
		if f.State == "" {
			f.State = Firing
		}
		e.apply(f)
	}
}

// apply moves the alert of f to f's state and hands the change on.
func (e *Engine) apply(f Finding) {
	k := f.Detector + "\x00" + f.Key
	a, known := e.alerts[k]
	t := Transition{At: e.now, Finding: f, To: f.State}
	switch {
	case Withdrawn(f):
		if !known || a.finding.State != Pending {
			return // only a pending alert can be taken back
		}
		delete(e.alerts, k)
		t.Fingerprint, t.From, t.To, t.Previous = a.fingerprint, Pending, Inactive, a.finding.Severity
		e.send(t)
		return
	case !known:
		a = &alert{fingerprint: Fingerprint(f.Detector, f.Key), since: e.now}
		e.alerts[k] = a
		e.bound(k)
	default:
		t.From, t.Previous = a.finding.State, a.finding.Severity
		t.Escalated = t.From == t.To && f.Severity > a.finding.Severity
		if t.From != t.To {
			a.since = e.now
		}
	}
	t.Fingerprint = a.fingerprint
	a.finding = f
	if e.opt.StateOnly {
		a.finding = f.stub()
	}
	if f.State == Resolved && !e.expiry.IsZero() {
		e.expiry = Earliest(e.expiry, a.since.Add(e.opt.Retention))
	}
	e.send(t)
}

func (e *Engine) send(t Transition) {
	if !t.Update() {
		e.stats.Transitions++
	}
	for _, c := range e.raw {
		c.Add(t)
	}
	if len(e.subs) == 0 {
		return // a bundle run's report is finalized once, at its end
	}
	t.Finding = e.finalize(t.Finding)
	for _, fn := range e.subs {
		fn(t)
	}
}

// bound forgets alerts beyond MaxAlerts, keeping keep: the one resolved
// longest ago first, then the one in its state longest.
func (e *Engine) bound(keep string) {
	for len(e.alerts) > e.opt.MaxAlerts {
		victim := ""
		var vr bool
		var vt time.Time
		for _, k := range slices.Sorted(maps.Keys(e.alerts)) {
			a := e.alerts[k]
			if k == keep {
				continue
			}
			r := a.finding.State == Resolved
			if victim == "" || r && !vr || r == vr && a.since.Before(vt) {
				victim, vr, vt = k, r, a.since
			}
		}
		delete(e.alerts, victim)
		e.stats.Evicted++
	}
}
