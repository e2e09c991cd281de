package signature

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/interpreter"

	"go.yaml.in/yaml/v3"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Each is a count step's follow-up per member: every distinct value the
// step counted (a member) must meet a signal of its own within a window
// after its latest counted signal, e.g. every datanode marked STALE must
// come back. A member whose window passes without it is missed. Once
// every member met its follow-up or was missed, the finding resolves
// (a pending one is withdrawn when fewer than min met it).
type Each struct {
	On     Kinds `yaml:"on"`
	Where  Expr  `yaml:"where"`
	Same   Expr  `yaml:"same"`   // the member a follow-up is for (string); default: the count's distinct
	Within Expr  `yaml:"within"` // after the member's latest counted signal
	Min    Expr  `yaml:"min"`    // members that must meet it (int, default 1): a pending finding fires then
	Pos    Pos   `yaml:"-"`
}

type each struct {
	alts   []alt // one: on/where
	same   cel.Program
	within durationExpr
	min    cel.Program // nil: 1
}

// member is one member of a count step with each, in an instance's state.
type member struct {
	Step   int
	Value  string
	Event  Event     // its latest counted signal
	Back   time.Time // when its follow-up came (zero: not yet)
	Missed bool      // its window passed without one
}

// each compiles a count step's each.
func (c *compiler) each(bound []step, st Step, distinct cel.Program) *each {
	x := st.Count.Each
	if x == nil {
		return nil
	}
	what := "step " + st.Name + " count.each"
	// The follow-up comes after the step is met: it sees the step's burst.
	self := step{name: st.Name, count: &count{}}
	env := c.env(append(slices.Clone(bound), self), true)
	out := &each{alts: c.alts(env, []Alt{{On: x.On, Where: x.Where, Pos: x.Pos}}, what)}
	switch {
	case x.Same.Set():
		out.same = c.program(env, x.Same, cel.StringType, what+" same")
	case distinct != nil:
		out.same = distinct
	default:
		c.errorf(x.Pos, "%s: needs count.distinct or same (a member is a distinct value)", what)
	}
	if !x.Within.Set() {
		c.errorf(x.Pos, "%s: needs within (how long after its signal a member may meet its follow-up)", what)
	} else {
		out.within = c.duration(x.Within, what+" within")
	}
	if x.Min.Set() {
		out.min = c.program(c.env(bound, false), x.Min, cel.IntType, what+" min")
	}
	return out
}

// UnmarshalYAML decodes an each and keeps its place.
func (x *Each) UnmarshalYAML(n *yaml.Node) error {
	type plain Each
	if err := n.Decode((*plain)(x)); err != nil {
		return err
	}
	x.Pos = Pos{n.Line, n.Column}
	return nil
}

// eachAdd records e (of value v) as the latest counted signal of a member
// of step i: a member counted again waits for a new follow-up.
func (d *detector) eachAdd(in *instance, i int, v string, e Event) {
	for j := range in.Each {
		if m := &in.Each[j]; m.Step == i && m.Value == v {
			m.Event, m.Back, m.Missed = e, time.Time{}, false
			return
		}
	}
	if n := len(in.Each); n >= maxValues {
		return
	}
	in.Each = append(in.Each, member{Step: i, Value: v, Event: e})
}

// eachStart records the signals and members of a count step that was just
// met, from what it counted.
func (d *detector) eachStart(in *instance, st step, b *Burst) {
	if !st.count.track {
		return
	}
	for _, c := range in.Counted {
		if len(b.Signals) < maxValues {
			b.Signals = append(b.Signals, c.Event)
		}
		if st.count.distinct != nil {
			d.eachAdd(in, in.Step, c.Value, c.Event)
		}
	}
	d.eachFill(in, in.Step, b)
}

// eachJoin records a signal a met count step with each went on counting,
// and re-decides the emits of the met steps: the members they read changed.
func (d *detector) eachJoin(in *instance, i int, e *Event) {
	st := d.sig.match.steps[i]
	b := &in.Bound[i].Burst
	if len(b.Signals) < maxValues {
		b.Signals = append(b.Signals, owned(e))
	}
	if st.count.distinct != nil {
		v := ""
		if out, _, err := st.count.distinct.Eval(d.activation(in, e)); err == nil {
			v, _ = out.Value().(string)
		}
		d.eachAdd(in, i, v, owned(e))
	}
	d.eachFill(in, i, b)
	d.reemit(in)
}

// reemit evaluates the emits of the met steps again, as the signals they
// read changed: a severity only rises (escalation), a confidence given
// by an expression follows it.
func (d *detector) reemit(in *instance) {
	steps := d.sig.match.steps[:min(in.Step, len(d.sig.match.steps))]
	if !in.Emitted || !slices.ContainsFunc(steps, func(st step) bool {
		return st.emit != nil && (st.emit.severity.prg != nil || st.emit.confidence.prg != nil)
	}) {
		return
	}
	act := d.emitActivation(in)
	for _, st := range steps {
		if st.emit == nil {
			continue
		}
		if sev := d.value(st.emit.severity, act); sev != "" {
			if v, err := detectors.ParseSeverity(sev); err == nil && v > in.Severity {
				in.Severity = v
			}
		}
		if st.emit.confidence.prg != nil {
			if conf := d.value(st.emit.confidence, act); conf != "" {
				in.Confidence = detectors.Confidence(conf)
			}
		}
	}
}

// eachFill sets the fields of step i's burst that each decides.
func (d *detector) eachFill(in *instance, i int, b *Burst) {
	b.Members, b.Missed, b.Returned, b.MaxReturn = nil, nil, 0, 0
	for _, m := range in.Each {
		if m.Step != i {
			continue
		}
		if m.Missed {
			b.Missed = append(b.Missed, m.Event)
			continue
		}
		b.Members = append(b.Members, m.Event)
		if !m.Back.IsZero() {
			b.Returned++
			b.MaxReturn = max(b.MaxReturn, m.Back.Sub(m.Event.Time))
		}
	}
}

// eachFollow offers e to the follow-ups of the met count steps with each;
// it reports whether one took it.
func (d *detector) eachFollow(in *instance, e *Event, ev detectors.Evidence, emit detectors.Emit) bool {
	steps := d.sig.match.steps
	for i := range min(in.Step, len(steps)) {
		x := steps[i].count
		if steps[i].absent || x == nil || x.each == nil || !slices.Contains(x.each.alts[0].kinds, catalogue.Kind(e.Kind)) {
			continue
		}
		act := d.activation(in, e)
		if w := x.each.alts[0].where; w != nil && !w.holds(e, nil, d.vars, func() interpreter.Activation { return act }) {
			continue
		}
		out, _, err := x.each.same.Eval(act)
		if err != nil {
			continue
		}
		v, _ := out.Value().(string)
		within := d.eval(x.each.within)
		for j := range in.Each {
			m := &in.Each[j]
			if m.Step != i || m.Value != v || m.Missed || e.Time.Before(m.Event.Time) {
				continue
			}
			if m.Back.IsZero() {
				if e.Time.Sub(m.Event.Time) > within {
					continue
				}
				m.Back = e.Time
			}
			in.Evidence.Add(ev)
			in.Last = e.Time
			d.eachFill(in, i, &in.Bound[i].Burst)
			d.reemit(in)
			if in.Emitted && in.Pending && d.eachReturned(in, i) {
				in.Pending = false // the follow-ups confirm it
				emit(d.finding(in, detectors.Firing, ""))
			} else {
				d.update(in, emit)
			}
			d.eachSettle(in, e.Time, emit)
			return true
		}
	}
	return false
}

// eachReturned reports whether enough members of step i met their
// follow-up (each.min, default 1).
func (d *detector) eachReturned(in *instance, i int) bool {
	x := d.sig.match.steps[i].count.each
	n := int64(1)
	if x.min != nil {
		if out, _, err := x.min.Eval(d.activation(in, nil)); err == nil {
			n, _ = out.Value().(int64)
		}
	}
	return int64(in.Bound[i].Burst.Returned) >= n
}

// eachSettle marks the members whose window passed by now as missed and,
// once every member of every step with each met its follow-up or was
// missed (and all steps are met), resolves the instance, or withdraws its
// pending finding when too few met it. It reports whether it ended the
// instance.
func (d *detector) eachSettle(in *instance, now time.Time, emit detectors.Emit) bool {
	steps := d.sig.match.steps
	any, open := false, false
	for i := range min(in.Step, len(steps)) {
		x := steps[i].count
		if steps[i].absent || x == nil || x.each == nil {
			continue
		}
		any = true
		within := d.eval(x.each.within)
		changed := false
		for j := range in.Each {
			m := &in.Each[j]
			if m.Step != i || m.Missed || !m.Back.IsZero() {
				continue
			}
			if now.After(m.Event.Time.Add(within)) {
				m.Missed, changed = true, true
			} else {
				open = true
			}
		}
		if changed {
			d.eachFill(in, i, &in.Bound[i].Burst)
		}
	}
	if !any || open || in.Step < len(steps) || !in.Emitted || in.Closed {
		return false
	}
	for i := range steps {
		if x := steps[i].count; x != nil && x.each != nil && !d.eachReturned(in, i) {
			if in.Pending {
				emit(detectors.Withdraw(d.finding(in, detectors.Pending, ""), "too few members of "+steps[i].name+" met their follow-up within "+Human(d.eval(x.each.within))))
				in.Closed = true
				return true
			}
		}
	}
	d.resolve(in, emit)
	return true
}

// eachQuiet returns the earliest end of a member's window in in.
func (d *detector) eachQuiet(in *instance, q time.Time) time.Time {
	steps := d.sig.match.steps
	for _, m := range in.Each {
		if m.Missed || !m.Back.IsZero() || m.Step >= len(steps) || steps[m.Step].count == nil || steps[m.Step].count.each == nil {
			continue
		}
		q = detectors.Earliest(q, m.Event.Time.Add(d.eval(steps[m.Step].count.each.within)).Add(time.Nanosecond))
	}
	return q
}

// trackMembers decides which count steps keep their signals and members:
// those with each, and those an expression reads them of. Keeping them
// costs a copy of every counted signal, which a dense count (pipeline or
// election churn) would pay for nothing.
func trackMembers(s *Signature, f *File) {
	var srcs []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if x, ok := v.Interface().(Expr); ok {
				srcs = append(srcs, x.Src)
				return
			}
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(f).Elem())
	for i := range s.match.steps {
		c := s.match.steps[i].count
		if c == nil {
			continue
		}
		name := s.match.steps[i].name
		c.track = c.each != nil || slices.ContainsFunc(srcs, func(src string) bool {
			return strings.Contains(src, name+".signals") || strings.Contains(src, name+".members")
		})
	}
}
