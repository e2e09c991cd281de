package signature

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// maxRecent bounds the signals a signature keeps for its skew allowance
// (and a count step's window).
const maxRecent = 4096

// maxValues bounds the distinct values and hosts a met count step keeps
// on counting (its Distinct stops growing with them).
const maxValues = 1024

// Registration returns the signature as a detector the engine runs like
// any other: its findings go through the engine's alert state machine,
// its state into the daemon's checkpoint.
func (s *Signature) Registration() detectors.Registration {
	return detectors.Registration{Doc: s.doc, Entries: s.entries,
		New: func(env *detectors.Env) (detectors.Detector, error) { return s.newDetector(env) }}
}

// detector runs one signature. Its exported fields are its state (saved
// in checkpoints); the rest is rebuilt from the signature and the Env.
type detector struct {
	sig     *Signature             `state:"-"`
	env     *detectors.Env         `state:"-"`
	vars    map[string]any         `state:"-"` // params.* and windows.*
	varsAct interpreter.Activation `state:"-"`
	gen     int                    `state:"-"` // settings generation of vars' windows
	horizon time.Duration          `state:"-"`
	skew    time.Duration          `state:"-"`
	quiet   time.Duration          `state:"-"`
	withins []time.Duration        `state:"-"`
	Hash    string                 // the signature's Hash when this state was made
	Open    []*instance
	Evicted int64
	Recent  []recent // signals a later step may still take (skew)
	Seen    []seen   // the latest corroborating signal per corroboration and key
	Held    []held   // signals waiting for their followed_by (pairing.go)
	paired  bool     `state:"-"` // the signal observed is a released pair
}

// instance is one partial or complete match, for one join key.
type instance struct {
	Key        string
	Step       int       // the next step to meet; len(steps) once all are
	Bound      []binding // one per step met
	Start      time.Time
	Last       time.Time
	Deadline   time.Time // the current step's (zero: only the horizon)
	Counted    []counted // the current count step's window
	Emitted    bool
	Pending    bool
	Closed     bool
	Dirty      bool // evidence came since the finding was last emitted
	Severity   detectors.Severity
	Confidence detectors.Confidence
	Evidence   detectors.EvidenceLog
	Confirmed  []confirmed // corroborations taken, the first of each
	Each       []member    // members of count steps with each (each.go)
}

type binding struct {
	Event      Event
	Burst      Burst
	Confidence string // of the any_of alternative that matched
}

type counted struct {
	Time  time.Time
	Value string
	Event Event
	Per   string `json:",omitempty"` // count.per's value (counting.go)
}

type recent struct {
	Event    Event
	Evidence detectors.Evidence
}

// seen is a corroborating signal kept for instances that open later: a
// /prom snapshot in a bundle is untimed and may be read before the logs.
type seen struct {
	Index    int // into the match's corroborate
	Key      string
	Event    Event
	Evidence detectors.Evidence
}

// confirmed is a corroboration an instance took.
type confirmed struct {
	Index      int
	Event      Event
	Confidence string
}

func (s *Signature) newDetector(env *detectors.Env) (*detector, error) {
	d := &detector{sig: s, env: env, gen: -1, Hash: s.Hash}
	d.vars = map[string]any{}
	for _, p := range s.params {
		switch p.kind {
		case detectors.OptionInt:
			n, _, err := s.doc.Int(env, p.name)
			if err != nil {
				return nil, err
			}
			d.vars["params."+p.name] = int64(n)
		case detectors.OptionDuration:
			v, _, err := s.doc.Duration(env, p.name)
			if err != nil {
				return nil, err
			}
			d.vars["params."+p.name] = v
		default:
			d.vars["params."+p.name] = env.Option(s.doc.Name+"."+p.name, optionDefault(s.doc, p.name))
		}
	}
	if err := d.refresh(); err != nil {
		return nil, err
	}
	return d, nil
}

func optionDefault(doc detectors.Doc, name string) string {
	for _, o := range doc.Options {
		if o.Name == name {
			return o.Default
		}
	}
	return ""
}

// refresh recomputes the windows and durations when the cluster's
// settings changed (and at the start).
func (d *detector) refresh() error {
	if d.Hash != d.sig.Hash { // restored from a checkpoint of another version of the signature
		d.Hash, d.Open, d.Recent = d.sig.Hash, nil, nil
		d.Held = nil
	}
	if g := d.env.Settings.Generation(); g == d.gen {
		return nil
	}
	d.gen = d.env.Settings.Generation()
	cfg := d.env.Settings
	src := "" // where the window being evaluated read its setting (source.go)
	setting := cel.Function("setting", cel.Overload("setting_string_duration", []*cel.Type{cel.StringType, cel.DurationType}, cel.DurationType,
		cel.BinaryBinding(func(k, def ref.Val) ref.Val {
			src = settingSource(cfg, string(k.(types.String)))
			return types.Duration{Duration: settingDuration(cfg, string(k.(types.String)), def.(types.Duration).Duration)}
		})))
	for _, w := range d.sig.windows {
		env, err := extend(append(slices.Clone(w.opts), setting)...)
		if err != nil {
			return fmt.Errorf("%s: window %s: %w", d.sig.ID, w.name, err)
		}
		prg, err := env.Program(w.ast)
		if err != nil {
			return fmt.Errorf("%s: window %s: %w", d.sig.ID, w.name, err)
		}
		out, _, err := prg.Eval(d.vars)
		if err != nil {
			return fmt.Errorf("%s: window %s: %w", d.sig.ID, w.name, err)
		}
		d.vars["windows."+w.name] = out.Value().(time.Duration)
		d.vars["sources."+w.name], src = src, ""
	}
	act, err := interpreter.NewActivation(d.vars)
	if err != nil {
		return err
	}
	d.varsAct = act
	m := &d.sig.match
	d.horizon = d.eval(m.horizon)
	d.skew = d.eval(m.skew)
	d.withins = d.withins[:0]
	for _, st := range m.steps {
		d.withins = append(d.withins, d.eval(st.within))
	}
	if m.resolve != nil {
		d.quiet = d.eval(m.resolve.quiet)
	}
	return nil
}

func (d *detector) eval(x durationExpr) time.Duration {
	if x.prg == nil {
		return x.lit
	}
	out, _, err := x.prg.Eval(d.vars)
	if err != nil {
		return 0
	}
	v, _ := out.Value().(time.Duration)
	return v
}

// activation is what an expression sees: e, the bound steps, params and
// windows.
func (d *detector) activation(in *instance, e *Event) interpreter.Activation {
	a := make(map[string]any, len(in.Bound)+len(in.Confirmed)+1)
	if e != nil {
		a["e"] = e
	}
	for i := range in.Bound { // by index: a copy of each bound event would escape
		st := d.sig.match.steps[i]
		switch {
		case st.absent:
		case st.count != nil:
			a[st.name] = &in.Bound[i].Burst
		default:
			a[st.name] = &in.Bound[i].Event
		}
	}
	for j := range in.Confirmed {
		a[d.sig.match.corroborate[in.Confirmed[j].Index].name] = &in.Confirmed[j].Event
	}
	child, _ := interpreter.NewActivation(a) // a map is always one
	return interpreter.NewHierarchicalActivation(d.varsAct, child)
}

// matchAlt returns the alternative of alts that e meets for instance in
// (nil: a new instance) and the join key it names.
func (d *detector) matchAlt(alts []alt, in *instance, e *Event) (int, string, bool) {
	var act interpreter.Activation
	for i, a := range alts {
		if !slices.Contains(a.kinds, catalogue.Kind(e.Kind)) || (a.follow != nil) != d.paired {
			continue
		}
		if act == nil {
			act = d.activation(orEmpty(in), e)
		}
		key, ok := d.key(a, act)
		if !ok || (in != nil && key != in.Key) {
			continue
		}
		if a.where != nil && !isTrue(a.where, act) {
			continue
		}
		return i, key, true
	}
	return -1, "", false
}

func orEmpty(in *instance) *instance {
	if in == nil {
		return &instance{}
	}
	return in
}

func (d *detector) key(a alt, act interpreter.Activation) (string, bool) {
	by := a.by
	if by == nil {
		by = d.sig.match.by
	}
	if by == nil {
		return "", true
	}
	out, _, err := by.Eval(act)
	if err != nil {
		return "", false
	}
	s, ok := out.Value().(string)
	return s, ok
}

func isTrue(p cel.Program, act interpreter.Activation) bool {
	out, _, err := p.Eval(act)
	if err != nil {
		return false
	}
	b, ok := out.Value().(bool)
	return ok && b
}

// Observe feeds one signal to the open instances, then starts one.
func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	if err := d.refresh(); err != nil {
		return
	}
	e := eventOf(s) // shares the signal's maps and slices: owned copies what is kept
	ev := detectors.EvidenceOf(s)
	if d.Held != nil {
		d.expireHeld(e.Time)
		for _, h := range d.release(e, ev) {
			d.paired = true
			d.observe(&h.Event, h.Evidence, emit)
			d.paired = false
		}
	}
	d.observe(e, ev, emit)
	if _, ok := d.waits(catalogue.Kind(e.Kind)); ok {
		d.hold(e, ev)
	}
}

// observe feeds one signal (or a released pair) to the open instances,
// then starts one.
func (d *detector) observe(e *Event, ev detectors.Evidence, emit detectors.Emit) {
	if slices.ContainsFunc(d.Open, func(in *instance) bool { return !in.Closed }) {
		keys, all := d.keysOf(e)
		for _, in := range d.Open {
			if !in.Closed && (all || slices.Contains(keys, in.Key)) {
				d.feed(in, e, ev, emit)
			}
		}
	}
	m := &d.sig.match
	if _, key, ok := d.matchAlt(m.steps[0].alts, nil, e); ok && !d.hasOpen(key) {
		in := &instance{Key: key, Start: e.Time, Last: e.Time}
		d.add(in)
		for _, sn := range d.Seen {
			if (sn.Key == key || d.sig.match.corroborate[sn.Index].anyKey) && (sn.Event.Time.IsZero() || !sn.Event.Time.Before(e.Time.Add(-d.horizon))) {
				d.confirm(in, sn.Index, &sn.Event, sn.Evidence)
			}
		}
		d.current(in, e, ev, emit) // the signal that opens it is no until or resolve of its own
	}
	if d.paired {
		d.compact()
		return
	}
	d.corroborate(e, ev, emit)
	if d.skew > 0 && d.laterKind(catalogue.Kind(e.Kind)) {
		d.Recent = append(d.Recent, recent{Event: owned(e), Evidence: ev})
		if len(d.Recent) > maxRecent {
			d.Recent = slices.Delete(d.Recent, 0, len(d.Recent)-maxRecent)
		}
	}
	d.compact()
}

// corroborate offers e to the corroborations: the instances of its key
// take it, and it is kept for those that open later.
func (d *detector) corroborate(e *Event, ev detectors.Evidence, emit detectors.Emit) {
	for i, co := range d.sig.match.corroborate {
		if _, key, ok := d.matchAlt(co.alts, nil, e); ok {
			d.keep(seen{Index: i, Key: key, Event: owned(e), Evidence: ev})
			for _, in := range d.Open {
				if !in.Closed && (in.Key == key || co.anyKey) && d.confirm(in, i, e, ev) {
					d.update(in, emit)
				}
			}
		}
	}
}

// keep remembers sn as the latest of its corroboration and key, within
// max_open of them.
func (d *detector) keep(sn seen) {
	d.Seen = slices.DeleteFunc(d.Seen, func(o seen) bool { return o.Index == sn.Index && o.Key == sn.Key })
	d.Seen = append(d.Seen, sn)
	if len(d.Seen) > d.sig.match.maxOpen {
		d.Seen = slices.Delete(d.Seen, 0, len(d.Seen)-d.sig.match.maxOpen)
	}
}

// confirm binds corroboration i's signal e to in unless one is bound
// already; it reports whether it did.
func (d *detector) confirm(in *instance, i int, e *Event, ev detectors.Evidence) bool {
	if slices.ContainsFunc(in.Confirmed, func(c confirmed) bool { return c.Index == i }) {
		return false
	}
	co := d.sig.match.corroborate[i]
	in.Confirmed = append(in.Confirmed, confirmed{Index: i, Event: owned(e), Confidence: d.altConfidence(co.alts[0], &instance{}, e)})
	in.Evidence.Add(ev)
	return true
}

// keysOf returns the join keys e can name, from every by expression of
// the signature evaluated on e alone, so that a signal is offered only to
// the instances of those keys; all when one needs a bound step.
func (d *detector) keysOf(e *Event) (keys []string, all bool) {
	if len(d.sig.bys) == 0 {
		return []string{""}, false
	}
	act := d.activation(&instance{}, e)
	for _, by := range d.sig.bys {
		out, _, err := by.Eval(act)
		if err != nil {
			if isUnbound(err) {
				return nil, true
			}
			continue // e lacks the field: the key it names is no instance's
		}
		if k, ok := out.Value().(string); ok && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, false
}

// isUnbound reports whether err says an expression read a step not bound.
func isUnbound(err error) bool {
	return strings.Contains(err.Error(), "no such attribute")
}

// owned returns a copy of e that shares nothing with the signal it was
// made from, for the state to keep.
func owned(e *Event) Event {
	c := *e
	c.Attrs = maps.Clone(e.Attrs)
	c.Pipelines, c.Peers, c.OldPeers = slices.Clone(e.Pipelines), slices.Clone(e.Peers), slices.Clone(e.OldPeers)
	return c
}

func (d *detector) hasOpen(key string) bool {
	for _, in := range d.Open {
		if !in.Closed && in.Key == key {
			return true
		}
	}
	return false
}

// laterKind reports whether a step after the first takes signals of k.
func (d *detector) laterKind(k catalogue.Kind) bool {
	for _, st := range d.sig.match.steps[1:] {
		for _, a := range st.alts {
			if slices.Contains(a.kinds, k) {
				return true
			}
		}
	}
	return false
}

func (d *detector) add(in *instance) {
	open := 0
	for _, o := range d.Open {
		if !o.Closed {
			open++
		}
	}
	if open >= d.sig.match.maxOpen {
		for _, o := range d.Open {
			if !o.Closed {
				o.Closed = true
				d.Evicted++
				break
			}
		}
	}
	d.Open = append(d.Open, in)
}

func (d *detector) compact() {
	d.Open = slices.DeleteFunc(d.Open, func(in *instance) bool { return in.Closed })
}

// feed offers e to one instance: until, resolve, then its current step.
func (d *detector) feed(in *instance, e *Event, ev detectors.Evidence, emit detectors.Emit) {
	m := &d.sig.match
	if m.until != nil {
		if _, _, ok := d.matchAlt(m.until.alts, in, e); ok {
			in.Evidence.Add(ev)
			d.end(in, e.Time, "cancelled by "+e.Kind, emit)
			return
		}
	}
	if m.resolve != nil && in.Emitted {
		if _, _, ok := d.matchAlt(m.resolve.alts, in, e); ok {
			in.Evidence.Add(ev)
			in.Last = e.Time
			d.resolve(in, emit)
			return
		}
	}
	if d.eachFollow(in, e, ev, emit) {
		return
	}
	if in.Step < len(m.steps) && d.current(in, e, ev, emit) {
		return
	}
	// More of what a met step matched is evidence; a met count step goes
	// on counting.
	for i := range min(in.Step, len(m.steps)) {
		st := m.steps[i]
		if st.absent || (st.count == nil && in.Step < len(m.steps)) {
			continue
		}
		if _, _, ok := d.matchAlt(st.alts, in, e); ok {
			in.Evidence.Add(ev)
			in.Last = e.Time
			if st.count != nil {
				d.recount(&in.Bound[i].Burst, st, in, e)
				d.eachJoin(in, i, e, emit)
				d.regrade(in, st)
			}
			d.update(in, emit)
			return
		}
	}
}

// update hands on an emitted finding that gained evidence: at once in a
// live run, at the end in a batch run (whose report is read then).
func (d *detector) update(in *instance, emit detectors.Emit) {
	if !in.Emitted {
		return
	}
	if d.env.Batch {
		in.Dirty = true
		return
	}
	emit(d.finding(in, d.state(in), ""))
}

// current offers e to the instance's current step and reports whether
// the step took it.
func (d *detector) current(in *instance, e *Event, ev detectors.Evidence, emit detectors.Emit) bool {
	st := d.sig.match.steps[in.Step]
	ai, _, ok := d.matchAlt(st.alts, in, e)
	if !ok {
		return false
	}
	in.Evidence.Add(ev)
	if st.absent { // what had to stay away came
		d.fail(in, e.Time, e.Kind+" came within "+Human(d.withins[in.Step]), emit)
		return true
	}
	in.Last = e.Time
	b := binding{Event: owned(e), Confidence: d.altConfidence(st.alts[ai], in, e)}
	if st.count != nil {
		burst, met := d.count(in, st, e)
		if !met {
			return true
		}
		b = binding{Burst: burst, Confidence: b.Confidence}
	}
	d.met(in, b, e.Time, emit)
	return true
}

func (d *detector) altConfidence(a alt, in *instance, e *Event) string {
	return d.value(a.confidence, d.activation(in, e))
}

// count adds e to the current count step's window and reports the burst
// once the minimum is met.
func (d *detector) count(in *instance, st step, e *Event) (Burst, bool) {
	act := d.activation(in, e)
	value := ""
	if st.count.distinct != nil {
		out, _, err := st.count.distinct.Eval(act)
		if err != nil {
			return Burst{}, false
		}
		value, _ = out.Value().(string)
	}
	in.Counted = append(in.Counted, counted{Time: e.Time, Value: value, Event: owned(e), Per: d.perValue(st, act)})
	if in.Step == 0 { // a first step counts in a window sliding with the signals
		w := d.withins[0]
		in.Counted = slices.DeleteFunc(in.Counted, func(c counted) bool { return e.Time.Sub(c.Time) > w })
		if len(in.Counted) > 0 {
			in.Start = in.Counted[0].Time
		}
	}
	if len(in.Counted) > maxRecent {
		in.Counted = in.Counted[len(in.Counted)-maxRecent:]
	}
	minN := int64(1)
	if out, _, err := st.count.min.Eval(act); err == nil {
		minN, _ = out.Value().(int64)
	}
	b := Burst{First: in.Counted[0].Event, Last: owned(e)}
	for _, c := range in.Counted {
		b.Count++
		if st.count.distinct == nil || !slices.Contains(b.Values, c.Value) {
			if st.count.distinct != nil {
				b.Values = append(b.Values, c.Value)
			}
			b.Distinct++
		}
		if !slices.Contains(b.Hosts, c.Event.Host) {
			b.Hosts = append(b.Hosts, c.Event.Host)
		}
	}
	if st.count.per != nil {
		b.Per = perCounts(in.Counted)
		if !perMet(b.Per, minN) {
			return Burst{}, false
		}
	} else if int64(b.Distinct) < minN {
		return Burst{}, false
	}
	d.eachStart(in, st, &b)
	in.Counted = nil
	return b, true
}

// recount adds a signal to a met count step's burst.
func (d *detector) recount(b *Burst, st step, in *instance, e *Event) {
	b.Count++
	b.Last = owned(e)
	if st.count.distinct != nil {
		if out, _, err := st.count.distinct.Eval(d.activation(in, e)); err == nil {
			if v, _ := out.Value().(string); len(b.Values) < maxValues && !slices.Contains(b.Values, v) {
				b.Values = append(b.Values, v)
				b.Distinct++
			}
		}
	} else {
		b.Distinct++
	}
	if len(b.Hosts) < maxValues && !slices.Contains(b.Hosts, e.Host) {
		b.Hosts = append(b.Hosts, e.Host)
	}
	d.recountPer(b, st, in, e)
}

// met binds the current step and moves to the next.
func (d *detector) met(in *instance, b binding, at time.Time, emit detectors.Emit) {
	st := d.sig.match.steps[in.Step]
	in.Bound = append(in.Bound, b)
	in.Step++
	in.Deadline = time.Time{}
	if st.emit != nil {
		d.emitStep(in, st, b, emit)
	}
	if in.Step == len(d.sig.match.steps) {
		return
	}
	if w := d.withins[in.Step]; w > 0 {
		in.Deadline = at.Add(w)
	}
	// A later step's signal from another host may precede this one by up
	// to the skew allowance.
	if d.skew > 0 && !d.sig.match.steps[in.Step].absent {
		from := at.Add(-d.skew)
		for _, r := range d.Recent {
			if r.Event.Time.Before(from) || r.Event.Time.After(at) {
				continue
			}
			if in.Closed || in.Step == len(d.sig.match.steps) {
				return
			}
			e := r.Event
			d.feed(in, &e, r.Evidence, emit)
		}
	}
}

func (d *detector) emitStep(in *instance, st step, b binding, emit detectors.Emit) {
	act := d.emitActivation(in)
	if sev := d.value(st.emit.severity, act); sev != "" {
		if v, err := detectors.ParseSeverity(sev); err == nil && v > in.Severity {
			in.Severity = v
		}
	}
	if in.Severity == 0 {
		in.Severity = detectors.Warning
	}
	switch conf := d.value(st.emit.confidence, act); {
	case conf != "":
		in.Confidence = detectors.Confidence(conf)
	case b.Confidence != "":
		in.Confidence = detectors.Confidence(b.Confidence)
	case in.Confidence == "":
		in.Confidence = detectors.Medium
	}
	in.Emitted, in.Pending, in.Dirty = true, st.emit.pending, false
	emit(d.finding(in, d.state(in), ""))
}

func (d *detector) state(in *instance) detectors.State {
	if in.Pending {
		return detectors.Pending
	}
	return detectors.Firing
}

func (d *detector) value(v valueExpr, act interpreter.Activation) string {
	if v.prg == nil {
		return v.lit
	}
	out, _, err := v.prg.Eval(act)
	if err != nil {
		return ""
	}
	s, _ := out.Value().(string)
	return s
}

// fail ends an instance whose step did not come (or whose absent step's
// signal came): a pending finding is withdrawn, a firing one stays and
// waits for its resolution.
func (d *detector) fail(in *instance, at time.Time, reason string, emit detectors.Emit) {
	switch {
	case in.Emitted && in.Pending:
		emit(detectors.Withdraw(d.finding(in, detectors.Pending, ""), reason))
		in.Closed = true
	case in.Emitted:
		in.Step, in.Deadline, in.Counted = len(d.sig.match.steps), time.Time{}, nil
	default:
		in.Closed = true
	}
}

// end closes an instance cancelled by until.
func (d *detector) end(in *instance, at time.Time, reason string, emit detectors.Emit) {
	if in.Emitted && in.Pending {
		emit(detectors.Withdraw(d.finding(in, detectors.Pending, ""), reason))
	} else if in.Emitted {
		in.Last = at
		emit(d.finding(in, detectors.Resolved, reason))
	}
	in.Closed = true
}

func (d *detector) resolve(in *instance, emit detectors.Emit) {
	if in.Pending {
		emit(detectors.Withdraw(d.finding(in, detectors.Pending, ""), "resolved before it was confirmed"))
	} else {
		emit(d.finding(in, detectors.Resolved, ""))
	}
	in.Closed = true
}

// Advance decides the deadlines that passed: an absent step is met, a
// step that did not come fails, a quiet instance resolves, and what is
// older than the horizon is forgotten.
func (d *detector) Advance(now time.Time, emit detectors.Emit) {
	if err := d.refresh(); err != nil {
		return
	}
	steps := d.sig.match.steps
	for _, in := range d.Open {
		for !in.Closed && in.Step < len(steps) && !in.Deadline.IsZero() && now.After(in.Deadline) {
			at := in.Deadline
			if steps[in.Step].absent {
				d.met(in, binding{}, at, emit)
			} else {
				d.fail(in, at, steps[in.Step].name+" did not come within "+Human(d.withins[in.Step]), emit)
			}
		}
		if in.Closed || d.eachSettle(in, now, emit) {
			continue
		}
		if in.Emitted && !in.Pending && d.quiet > 0 && !in.Last.IsZero() && now.Sub(in.Last) > d.quiet && d.quietCounts(in) {
			d.resolve(in, emit)
			continue
		}
		// An instance of untimed lines (.out files) has no time to age
		// from: max_open bounds those.
		if d.horizon > 0 && !in.Last.IsZero() && now.Sub(in.Last) > d.horizon && in.Deadline.IsZero() {
			in.Closed = true
		}
	}
	if d.horizon > 0 {
		d.Seen = slices.DeleteFunc(d.Seen, func(sn seen) bool { return !sn.Event.Time.IsZero() && now.Sub(sn.Event.Time) > d.horizon })
	}
	d.expireHeld(now)
	if d.skew > 0 {
		from := now.Add(-d.skew)
		d.Recent = slices.DeleteFunc(d.Recent, func(r recent) bool { return r.Event.Time.Before(from) })
	} else {
		d.Recent = nil
	}
	d.compact()
}

// Quiet returns the earliest time at which Advance has something to do.
func (d *detector) Quiet(now time.Time) time.Time {
	q := now.Add(detectors.NoDeadline)
	for _, in := range d.Open {
		if in.Closed {
			continue
		}
		if !in.Deadline.IsZero() {
			q = detectors.Earliest(q, in.Deadline)
		}
		q = d.eachQuiet(in, q)
		if in.Emitted && !in.Pending && d.quiet > 0 && !in.Last.IsZero() && d.quietCounts(in) {
			q = detectors.Earliest(q, in.Last.Add(d.quiet))
		}
		if d.horizon > 0 && !in.Last.IsZero() {
			q = detectors.Earliest(q, in.Last.Add(d.horizon))
		}
	}
	// The skew buffer and the corroborations kept shrink in Advance too:
	// their state must not depend on which ticks a run takes.
	for _, r := range d.Recent {
		q = detectors.Earliest(q, r.Event.Time.Add(d.skew))
	}
	for _, sn := range d.Seen {
		if d.horizon > 0 && !sn.Event.Time.IsZero() {
			q = detectors.Earliest(q, sn.Event.Time.Add(d.horizon))
		}
	}
	return d.heldDeadline(q)
}

// Flush reports the open findings as they stand at the end of the input.
// An instance whose deadline the input did not reach is no match: its
// finding (if one was emitted) says so in Facts["outcome"].
func (d *detector) Flush(end time.Time, emit detectors.Emit) {
	for _, in := range d.Open {
		if in.Closed {
			continue
		}
		deferred := in.Step < len(d.sig.match.steps) && !in.Deadline.IsZero() && !end.After(in.Deadline)
		if !in.Emitted || (!in.Dirty && !deferred) {
			continue
		}
		in.Dirty = false
		note := ""
		if deferred {
			note = "the input ended at " + detectors.Stamp(end.UTC()) + ", before " + d.sig.match.steps[in.Step].name + "'s deadline " + detectors.Stamp(in.Deadline.UTC())
		}
		emit(d.finding(in, d.state(in), note))
	}
}

// StateStats reports the bounded parts of the state.
func (d *detector) StateStats() []detectors.StateStat {
	return []detectors.StateStat{
		{Name: "open", Entries: len(d.Open), Limit: d.sig.match.maxOpen, Evicted: d.Evicted},
		{Name: "recent", Entries: len(d.Recent), Limit: maxRecent},
		{Name: "corroborations", Entries: len(d.Seen), Limit: d.sig.match.maxOpen},
		{Name: "held for followed_by", Entries: len(d.Held), Limit: maxRecent},
	}
}

// finding renders an instance as a finding in state; note, if any, goes
// into Facts["outcome"].
func (d *detector) finding(in *instance, state detectors.State, note string) detectors.Finding {
	act := d.activation(in, nil)
	f := detectors.Finding{
		Key: in.Key, Severity: in.Severity, Confidence: in.Confidence, Start: in.Start, End: in.Last,
		State: state, Facts: map[string]string{},
	}
	if f.Key == "" {
		f.Key = d.sig.ID
	}
	for _, c := range in.Confirmed {
		if rank(detectors.Confidence(c.Confidence)) > rank(f.Confidence) {
			f.Confidence = detectors.Confidence(c.Confidence)
		}
	}
	f.Key += "/" + in.Start.UTC().Format("20060102T150405Z")
	if k := d.findingKey(act); k != "" {
		f.Key = k
	}
	en := d.sig.entities
	for _, p := range en.hosts {
		f.Entities.Hosts = appendStrings(f.Entities.Hosts, p, act)
	}
	for _, p := range en.pipelines {
		f.Entities.Pipelines = appendStrings(f.Entities.Pipelines, p, act)
	}
	for _, p := range en.groups {
		f.Entities.RaftGroups = appendStrings(f.Entities.RaftGroups, p, act)
	}
	for _, p := range en.oms {
		f.Entities.OMNodes = appendStrings(f.Entities.OMNodes, p, act)
	}
	for _, p := range en.containers {
		if out, _, err := p.Eval(act); err == nil {
			for _, v := range entityValues(out) {
				if n, ok := v.(int64); ok && n > 0 && !slices.Contains(f.Entities.Containers, uint64(n)) {
					f.Entities.Containers = append(f.Entities.Containers, uint64(n))
				}
			}
		}
	}
	for _, p := range en.datanodes {
		if out, _, err := p.Eval(act); err == nil {
			for _, v := range entityValues(out) {
				dn, ok := v.(*Datanode)
				if x, isValue := v.(Datanode); isValue {
					dn, ok = &x, true
				}
				if !ok {
					continue
				}
				c := d.env.Identity.Complete(catalogue.Datanode{UUID: dn.UUID, Host: dn.Host, IP: dn.IP})
				if !c.IsZero() && !slices.Contains(f.Entities.Datanodes, c) {
					f.Entities.Datanodes = append(f.Entities.Datanodes, c)
				}
			}
		}
	}
	for _, fact := range d.sig.facts {
		if out, _, err := fact.prg.Eval(act); err == nil {
			if v := factString(out.Value()); v != "" {
				f.Facts[fact.name] = v
			}
		}
	}
	if n := in.Evidence.Dropped(); n > 0 {
		f.Facts["evidence_dropped"] = strconv.Itoa(n)
	}
	if note != "" {
		f.Facts["outcome"] = note
	}
	f.Evidence = in.Evidence.List()
	detectors.SortEvidence(f.Evidence)
	if d.sig.summary != nil {
		var b bytes.Buffer
		if err := d.sig.summary.Execute(&b, &f); err != nil {
			f.Summary = d.sig.doc.Title
			f.Facts[detectors.FactTemplateError] = "summary: " + err.Error()
		} else {
			f.Summary = b.String()
		}
	}
	d.sig.doc.GateVersion(&f, d.env.Identity, f.Entities.Hosts...)
	return f
}

// rank orders confidences: low < medium < high.
func rank(c detectors.Confidence) int {
	return slices.Index([]detectors.Confidence{detectors.Low, detectors.Medium, detectors.High}, c)
}

func appendStrings(dst []string, p cel.Program, act interpreter.Activation) []string {
	out, _, err := p.Eval(act)
	if err != nil {
		return dst
	}
	for _, v := range entityValues(out) {
		if s, ok := v.(string); ok && s != "" && !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}

func factString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case time.Duration:
		return Human(x)
	case time.Time:
		return detectors.Stamp(x.UTC())
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
