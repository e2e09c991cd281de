package signature

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
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

// rowHead and rowTail bound the signals a table's row keeps: its first
// ones and its latest ones (Row.Events).
const rowHead, rowTail = 20, 20

// maxRowKeys bounds the keys a row is known by.
const maxRowKeys = 8

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
	sig      *Signature              `state:"-"`
	env      *detectors.Env          `state:"-"`
	vars     map[string]any          `state:"-"` // params.* and windows.*
	varsAct  interpreter.Activation  `state:"-"`
	byMemo   keyMemo                 `state:"-"` // match.by of the signal observed
	cur      Event                   `state:"-"` // the signal observed, as e (Observe)
	released []held                  `state:"-"` // the pairs the signal observed completed (Observe)
	gen      int                     `state:"-"` // settings generation of vars' windows
	horizon  time.Duration           `state:"-"`
	skew     time.Duration           `state:"-"`
	quiet    time.Duration           `state:"-"`
	withins  []time.Duration         `state:"-"`
	tableHz  []time.Duration         `state:"-"` // run tables' horizons
	emits    int                     `state:"-"` // findings emitted so far (feed tells whether it emitted one)
	rowKinds map[catalogue.Kind]bool `state:"-"` // the kinds incident tables take
	Hash     string                  // the signature's Hash when this state was made
	Open     []*instance
	Evicted  int64
	Recent   []recent // signals a later step may still take (skew)
	Seen     []seen   // the latest corroborating signal per corroboration and key
	// Tables holds the run tables' rows, by table (nil for incident
	// tables, whose rows are their incidents').
	Tables []*detectors.Bounded[string, row]
	// Occurrences counts the incidents opened per join key, for
	// match.key's occurrence (nil without a key).
	Occurrences *detectors.Bounded[string, int]
	Reported    int   // incidents that emitted a finding: the n-th names it (findingKey)
	RowsEvicted int64 // rows the incident tables' max_rows evicted
	// Identities is the identity generation the findings were last
	// rendered with: a finding is rendered again when the run learns how
	// to name its datanodes better.
	Identities int
	Held       []held // signals waiting for their followed_by (pairing.go)
	paired     bool   `state:"-"` // the signal observed is a released pair
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
	Touched    time.Time   // the latest signal it took, a table's included
	Occurrence int         // it is the n-th incident of its join key (match.key)
	FindingKey string      // the finding's key, fixed when it first emitted
	Rows       [][]row     // the incident tables' rows, by table
	Snap       [][]row     // the as_of: open run tables' rows when it opened, by table
	Ended      Event       // the signal of until or resolve that ended it
	EndedBy    string      // "until" or "resolve"
	Named      string      // what the finding last emitted named (see naming)
	Stale      bool        // a run table it reads as it stands changed since it was rendered
	Judged     string      // the computed severity and confidence when it was last rendered
}

// latest is the time of the incident's latest signal.
func (in *instance) latest() time.Time {
	if in.Touched.After(in.Last) {
		return in.Touched
	}
	return in.Last
}

// row is one row of a table: its signals, the first and the latest
// ones kept (rowHead, rowTail).
type row struct {
	Keys   []string // the first is its key
	First  Event
	Last   Event
	Count  int
	Counts map[string]int // by kind
	Head   []Event
	Tail   []Event // a ring once full
	Next   int     // the oldest signal of the full ring
}

func (r *row) add(e Event) {
	if r.Count == 0 {
		r.First = e
	}
	r.Last = e
	r.Count++
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[e.Kind]++
	switch {
	case len(r.Head) < rowHead:
		r.Head = append(r.Head, e)
	case len(r.Tail) < rowTail:
		r.Tail = append(r.Tail, e)
	default:
		r.Tail[r.Next] = e
		r.Next = (r.Next + 1) % rowTail
	}
}

// view is the row as expressions see it.
func (r *row) view() Row {
	ev := make([]Event, 0, len(r.Head)+len(r.Tail))
	ev = append(ev, r.Head...)
	ev = append(ev, r.Tail[r.Next:]...)
	ev = append(ev, r.Tail[:r.Next]...)
	return Row{Key: r.Keys[0], Keys: slices.Clone(r.Keys), First: r.First, Last: r.Last, Count: r.Count, Counts: maps.Clone(r.Counts), Events: ev}
}

// clone copies r so that it shares nothing with the original.
func (r row) clone() row {
	r.Keys, r.Counts, r.Head, r.Tail = slices.Clone(r.Keys), maps.Clone(r.Counts), slices.Clone(r.Head), slices.Clone(r.Tail)
	return r
}

func views(rows []row) []Row {
	out := make([]Row, len(rows))
	for i := range rows {
		out[i] = rows[i].view()
	}
	return out
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
	d := &detector{sig: s, env: env, gen: -1, Hash: s.Hash, rowKinds: map[catalogue.Kind]bool{}}
	d.reset()
	for _, t := range s.match.tables {
		for _, a := range append(slices.Clone(t.alts), t.remove...) {
			for _, k := range a.kinds {
				if !t.run {
					d.rowKinds[k] = true
				}
			}
		}
	}
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

// reset empties the state the signature's tables and keys keep.
func (d *detector) reset() {
	d.Tables, d.Occurrences = nil, nil
	for _, t := range d.sig.match.tables {
		var b *detectors.Bounded[string, row]
		if t.run {
			b = detectors.NewBounded[string, row](t.maxRows, detectors.EvictOldest)
		}
		d.Tables = append(d.Tables, b)
	}
	if d.sig.match.key != nil {
		d.Occurrences = detectors.NewBounded[string, int](d.sig.match.maxOpen, detectors.EvictOldest)
	}
}

// identityFuncs are the late-bound functions that read what the run
// learned of datanodes' identities.
func (d *detector) identityFuncs() map[string]cel.LateBoundFunction {
	id := d.env.Identity
	return map[string]cel.LateBoundFunction{
		"complete": func(_ string, args ...ref.Val) ref.Val {
			dn, ok := datanodeOf(args[0])
			if !ok {
				return types.NewErr("complete: not a datanode")
			}
			c := id.Complete(catalogue.Datanode{UUID: dn.UUID, Host: dn.Host, IP: dn.IP})
			return adapter().NativeToValue(&Datanode{UUID: c.UUID, Host: c.Host, IP: c.IP})
		},
		"name": func(_ string, args ...ref.Val) ref.Val {
			dn, ok := datanodeOf(args[0])
			if !ok {
				return types.NewErr("name: not a datanode")
			}
			return types.String(detectors.DatanodeName(id.Complete(catalogue.Datanode{UUID: dn.UUID, Host: dn.Host, IP: dn.IP})))
		},
	}
}

// adapter turns Go values into CEL values of the signature types.
func adapter() types.Adapter {
	env, _ := typesEnv() // built at every Compile before any detector runs
	return env.CELTypeAdapter()
}

// datanodeOf reads a Datanode from a CEL value.
func datanodeOf(v ref.Val) (Datanode, bool) {
	switch x := v.Value().(type) {
	case *Datanode:
		return *x, true
	case Datanode:
		return x, true
	}
	if n, err := v.ConvertToNative(reflect.TypeFor[Datanode]()); err == nil {
		dn, ok := n.(Datanode)
		return dn, ok
	}
	return Datanode{}, false
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
		d.reset()
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
	act, err := interpreter.NewFunctionActivation(d.vars, d.identityFuncs())
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
	d.tableHz = d.tableHz[:0]
	for _, t := range m.tables {
		d.tableHz = append(d.tableHz, d.eval(t.horizon))
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

// activation is what an expression sees: e, the bound steps, the
// corroborations taken, params and windows; e alone and the params and
// windows without an instance.
func (d *detector) activation(in *instance, e *Event) interpreter.Activation {
	if in == nil {
		return &eventVars{vars: d.varsAct, e: e}
	}
	return &incidentVars{d: d, in: in, e: e}
}

// incidentVars binds an incident's names without building a map: e (when
// not nil), the steps bound so far, the corroborations taken (those not
// taken yet as empty signals when zeros is set), occurrence with
// match.key, then the signature's params and windows.
type incidentVars struct {
	d     *detector
	in    *instance
	e     *Event
	zeros bool
}

func (a *incidentVars) ResolveName(name string) (any, bool) {
	if name == "e" && a.e != nil {
		return a.e, true
	}
	m := &a.d.sig.match
	for i := range a.in.Bound { // by index: a copy of each bound event would escape
		switch st := &m.steps[i]; {
		case st.name != name || st.absent:
		case st.count != nil:
			return &a.in.Bound[i].Burst, true
		default:
			return &a.in.Bound[i].Event, true
		}
	}
	for j := range a.in.Confirmed {
		if m.corroborate[a.in.Confirmed[j].Index].name == name {
			return &a.in.Confirmed[j].Event, true
		}
	}
	if a.zeros && slices.ContainsFunc(m.corroborate, func(co step) bool { return co.name == name }) {
		return &Event{}, true
	}
	if name == "occurrence" && m.key != nil {
		return int64(a.in.Occurrence), true
	}
	return a.d.varsAct.ResolveName(name)
}

// Parent is the signature's params and windows, where the late-bound
// identity functions are found too.
func (a *incidentVars) Parent() interpreter.Activation { return a.d.varsAct }

// outputActivation is what the outputs see: activation's, the signal
// that ended the incident under its condition's name (a zero Event
// until then), the tables' rows, and the let values, evaluated in order
// (one that fails is left unbound).
func (d *detector) outputActivation(in *instance) interpreter.Activation {
	m := &d.sig.match
	a := make(map[string]any, len(in.Bound)+len(in.Confirmed)+len(m.tables)+len(d.sig.lets)+2)
	for i, b := range in.Bound {
		st := m.steps[i]
		switch {
		case st.absent:
		case st.count != nil:
			a[st.name] = &in.Bound[i].Burst
		default:
			a[st.name] = &b.Event
		}
	}
	for _, c := range in.Confirmed {
		a[m.corroborate[c.Index].name] = &c.Event
	}
	for _, cd := range []*cond{m.until, m.resolve} {
		if cd != nil && cd.name != "" {
			a[cd.name] = &Event{}
		}
	}
	switch {
	case in.EndedBy == "until" && m.until.name != "":
		a[m.until.name] = &in.Ended
	case in.EndedBy == "resolve" && m.resolve.name != "":
		a[m.resolve.name] = &in.Ended
	}
	for i, t := range m.tables {
		switch {
		case !t.run:
			a[t.name] = views(tableRows(in.Rows, i))
		case t.asOfOpen:
			a[t.name] = views(tableRows(in.Snap, i))
		default:
			a[t.name] = views(d.Tables[i].Values())
		}
	}
	child, _ := interpreter.NewActivation(a) // a map is always one; it reads a as it grows
	act := interpreter.NewHierarchicalActivation(d.varsAct, child)
	for _, l := range d.sig.lets {
		if out, _, err := l.prg.Eval(act); err == nil {
			a[l.name] = out
		}
	}
	return act
}

func tableRows(rows [][]row, i int) []row {
	if i < len(rows) {
		return rows[i]
	}
	return nil
}

// matchAlt returns the alternative of alts that e meets for instance in
// (nil: a new instance) and the join key it names.
func (d *detector) matchAlt(alts []alt, in *instance, e *Event) (int, string, bool) {
	var act interpreter.Activation
	get := d.lazily(in, e, &act)
	for i, a := range alts {
		if !slices.Contains(a.kinds, catalogue.Kind(e.Kind)) || (a.follow != nil) != d.paired {
			continue
		}
		var key string
		ok := true
		switch {
		case a.by != nil:
			key, ok = evalKey(a.by, get())
		case d.sig.match.by != nil:
			key, ok = d.matchBy(e)
		}
		if !ok || (in != nil && key != in.Key) {
			continue
		}
		if a.where != nil && !a.where.holds(e, nil, d.vars, get) {
			continue
		}
		return i, key, true
	}
	return -1, "", false
}

// lazily returns what gives activation(in, e), built into *act when
// first asked for.
func (d *detector) lazily(in *instance, e *Event, act *interpreter.Activation) func() interpreter.Activation {
	return func() interpreter.Activation {
		if *act == nil {
			*act = d.activation(in, e)
		}
		return *act
	}
}

// keyMemo is match.by's value for the signal Observe offers (or the
// pair it released): keysOf and the matchAlt calls of the instances it is
// offered to read it once.
type keyMemo struct {
	e       *Event // the signal offered; nil outside Observe
	key     string
	ok, set bool
}

// matchBy returns match.by's value for e, evaluated once for the signal
// offered. Any other (a kept signal offered again, whose place in its
// slice another may take) is evaluated each time.
func (d *detector) matchBy(e *Event) (string, bool) {
	m := &d.byMemo
	if e == m.e && m.set {
		return m.key, m.ok
	}
	key, ok := "", true
	if plan := d.sig.match.byPlan; plan != nil {
		key = plan.key(e)
	} else {
		key, ok = evalKey(d.sig.match.by, d.activation(nil, e))
	}
	if e == m.e {
		m.key, m.ok, m.set = key, ok, true
	}
	return key, ok
}

// evalKey evaluates a join-key expression; false when it fails (e lacks
// the field it names).
func evalKey(by cel.Program, act interpreter.Activation) (string, bool) {
	out, _, err := by.Eval(act)
	if err != nil {
		return "", false
	}
	return stringOf(out)
}

// stringOf returns the string v holds, without boxing it as Value does.
func stringOf(v ref.Val) (string, bool) {
	s, ok := v.(types.String)
	return string(s), ok
}

// eventVars binds e, and first when it is not nil (a pair's held signal),
// over the signature's params and windows: the activation of an
// expression that reads no step.
type eventVars struct {
	vars     interpreter.Activation
	e, first *Event
}

func (a *eventVars) ResolveName(name string) (any, bool) {
	switch {
	case name == "e":
		return a.e, true
	case name == "first" && a.first != nil:
		return a.first, true
	}
	return a.vars.ResolveName(name)
}

// Parent is the signature's params and windows, where the late-bound
// identity functions are found too.
func (a *eventVars) Parent() interpreter.Activation { return a.vars }

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
	// e shares the signal's maps and slices, and its place is taken by
	// the next signal: owned copies what is kept.
	d.cur = eventOf(s)
	e := &d.cur
	ev := detectors.EvidenceOf(s)
	d.runTables(e)
	if d.Held != nil {
		d.expireHeld(e.Time)
		d.released = d.release(e, ev, d.released[:0])
		for i := range d.released {
			h := &d.released[i]
			d.paired, d.byMemo = true, keyMemo{e: &h.Event}
			d.observe(&h.Event, h.Evidence, emit)
			d.paired = false
		}
		clear(d.released)
	}
	d.byMemo = keyMemo{e: e}
	d.observe(e, ev, emit)
	if _, ok := d.waits(catalogue.Kind(e.Kind)); ok {
		d.hold(e, ev)
	}
	d.byMemo = keyMemo{}
}

// observe feeds one signal (or a released pair) to the open instances,
// then starts one.
func (d *detector) observe(e *Event, ev detectors.Evidence, emit detectors.Emit) {
	if d.sig.match.takes[catalogue.Kind(e.Kind)] && slices.ContainsFunc(d.Open, func(in *instance) bool { return !in.Closed }) {
		var buf [4]string
		keys, all := d.keysOf(buf[:0], e)
		for _, in := range d.Open {
			if !in.Closed && (all || slices.Contains(keys, in.Key)) {
				d.feed(in, e, ev, emit)
			}
		}
	}
	m := &d.sig.match
	if _, key, ok := d.matchAlt(m.steps[0].alts, nil, e); ok && !d.hasOpen(key) {
		in := &instance{Key: key, Start: e.Time, Last: e.Time, Touched: e.Time}
		d.add(in, emit)
		d.opened(in)
		d.takeRows(in, e)
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
	if d.skew > 0 && (d.laterKind(catalogue.Kind(e.Kind)) || d.tableKind(catalogue.Kind(e.Kind))) {
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
	in.Confirmed = append(in.Confirmed, confirmed{Index: i, Event: owned(e), Confidence: d.altConfidence(co.alts[0], nil, e)})
	in.Evidence.Add(ev)
	return true
}

// keysOf appends the join keys e can name to keys, from every by
// expression of the signature evaluated on e alone, so that a signal is
// offered only to the instances of those keys; all when one needs a bound
// step.
func (d *detector) keysOf(keys []string, e *Event) (_ []string, all bool) {
	if len(d.sig.bys) == 0 {
		return append(keys, ""), false
	}
	var act interpreter.Activation
	for _, by := range d.sig.bys {
		var k string
		ok := true
		if by == d.sig.match.by {
			k, ok = d.matchBy(e)
		} else {
			if act == nil {
				act = d.activation(nil, e)
			}
			out, _, err := by.Eval(act)
			if err != nil {
				if isUnbound(err) {
					return nil, true
				}
				continue // e lacks the field: the key it names is no instance's
			}
			k, ok = stringOf(out)
		}
		if ok && !slices.Contains(keys, k) {
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

// opened counts a new incident for match.key and copies the as_of: open
// run tables into it.
func (d *detector) opened(in *instance) {
	if d.Occurrences != nil {
		n, _ := d.Occurrences.Get(in.Key)
		n++
		d.Occurrences.Put(in.Key, n)
		in.Occurrence = n
	}
	for i, t := range d.sig.match.tables {
		if t.run && t.asOfOpen {
			if in.Snap == nil {
				in.Snap = make([][]row, len(d.sig.match.tables))
			}
			for _, r := range d.Tables[i].Values() {
				in.Snap[i] = append(in.Snap[i], r.clone())
			}
		}
	}
}

// tableMatch reports whether e is a signal of alts (kinds and where) in
// act, which it builds when needed.
func (d *detector) tableMatch(alts []alt, in *instance, e *Event, act *interpreter.Activation) bool {
	get := d.lazily(in, e, act)
	for _, a := range alts {
		if slices.Contains(a.kinds, catalogue.Kind(e.Kind)) && (a.where == nil || a.where.holds(e, nil, d.vars, get)) {
			get() // the caller reads the row keys in it
			return true
		}
	}
	return false
}

// rowKeys evaluates a table's row expression: the keys a signal's row
// may be known by, non-empty.
func rowKeys(t table, act interpreter.Activation) []string {
	var keys []string
	forEach(t.row, act, func(v ref.Val) {
		if k, ok := v.Value().(string); ok && k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	})
	return keys
}

// runTables offers e to the run tables, whose rows are kept by their
// first key.
func (d *detector) runTables(e *Event) {
	for i, t := range d.sig.match.tables {
		if !t.run {
			continue
		}
		var act interpreter.Activation
		switch {
		case d.tableMatch(t.remove, nil, e, &act):
			if ks := rowKeys(t, act); len(ks) > 0 && d.Tables[i].Has(ks[0]) {
				d.Tables[i].Delete(ks[0])
				d.tableChanged(t)
			}
		case d.tableMatch(t.alts, nil, e, &act):
			if ks := rowKeys(t, act); len(ks) > 0 {
				r, _ := d.Tables[i].Get(ks[0])
				r.Keys = ks[:1]
				r.add(owned(e))
				d.Tables[i].Put(ks[0], r)
				d.tableChanged(t)
			}
		}
	}
}

// tableChanged marks the findings that read t as it stands for
// rendering again (at the next Advance: one rendering for many rows).
func (d *detector) tableChanged(t table) {
	if t.asOfOpen {
		return
	}
	for _, in := range d.Open {
		if in.Emitted && !in.Closed {
			in.Stale = true
		}
	}
}

// takeRows offers e to the incident's tables and reports whether one
// took it. A signal joins the first row that shares one of its keys
// (its other keys join the row's): lines that name one datanode by UUID,
// by origin or by host alike make one row.
func (d *detector) takeRows(in *instance, e *Event) bool {
	took := false
	var act interpreter.Activation
	for i, t := range d.sig.match.tables {
		if t.run {
			continue
		}
		remove := d.tableMatch(t.remove, in, e, &act)
		if !remove && !d.tableMatch(t.alts, in, e, &act) {
			continue
		}
		ks := rowKeys(t, act)
		if len(ks) == 0 {
			continue
		}
		if in.Rows == nil {
			in.Rows = make([][]row, len(d.sig.match.tables))
		}
		rows := in.Rows[i]
		j := slices.IndexFunc(rows, func(r row) bool {
			return slices.ContainsFunc(ks, func(k string) bool { return slices.Contains(r.Keys, k) })
		})
		switch {
		case remove && j >= 0:
			rows = slices.Delete(rows, j, j+1)
		case remove:
			continue
		case j >= 0:
			rows[j].add(owned(e))
			for _, k := range ks {
				if !slices.Contains(rows[j].Keys, k) && len(rows[j].Keys) < maxRowKeys {
					rows[j].Keys = append(rows[j].Keys, k)
				}
			}
		default:
			if len(rows) >= t.maxRows {
				rows = slices.Delete(rows, 0, 1)
				d.RowsEvicted++
			}
			r := row{Keys: ks[:min(len(ks), maxRowKeys)]}
			r.add(owned(e))
			rows = append(rows, r)
		}
		in.Rows[i] = rows
		took = true
	}
	if took && e.Time.After(in.Touched) {
		in.Touched = e.Time
	}
	return took
}

// tableKind reports whether an incident table takes signals of k.
func (d *detector) tableKind(k catalogue.Kind) bool { return d.rowKinds[k] }

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

func (d *detector) add(in *instance, emit detectors.Emit) {
	open := 0
	for _, o := range d.Open {
		if !o.Closed {
			open++
		}
	}
	if open >= d.sig.match.maxOpen {
		for _, o := range d.Open {
			if !o.Closed {
				d.forget(o, emit)
				d.Evicted++
				break
			}
		}
	}
	d.Open = append(d.Open, in)
}

// forget closes an incident the horizon or max_open gives up: its finding
// stays as last emitted, so a batch run's update still due is sent first.
func (d *detector) forget(in *instance, emit detectors.Emit) {
	if in.Emitted && in.Dirty {
		d.send(in, d.finding(in, d.state(in), ""), emit)
	}
	in.Closed = true
}

func (d *detector) compact() {
	d.Open = slices.DeleteFunc(d.Open, func(in *instance) bool { return in.Closed })
}

// feed offers e to one instance: until, resolve, then its current step.
func (d *detector) feed(in *instance, e *Event, ev detectors.Evidence, emit detectors.Emit) {
	m := &d.sig.match
	took, emits := d.takeRows(in, e), d.emits
	if m.until != nil {
		if _, _, ok := d.matchAlt(m.until.alts, in, e); ok {
			in.Evidence.Add(ev)
			in.Ended, in.EndedBy = owned(e), "until"
			d.end(in, e.Time, "cancelled by "+e.Kind, emit)
			return
		}
	}
	if m.resolve != nil && in.Emitted {
		if _, _, ok := d.matchAlt(m.resolve.alts, in, e); ok {
			in.Evidence.Add(ev)
			in.Last = e.Time
			in.Ended, in.EndedBy = owned(e), "resolve"
			d.resolve(in, emit)
			return
		}
	}
	// A signal only a table took changes the finding all the same.
	defer func() {
		if took && d.emits == emits && !in.Closed {
			d.update(in, emit)
		}
	}()
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
				if st.count.track {
					d.eachJoin(in, i, e)
				} else {
					d.regrade(in, i)
				}
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
	// A batch run renders the finding at the end, unless its computed
	// severity or confidence changed: that is a transition of its own.
	if d.env.Batch && (!d.sig.match.computed() || d.judge(in, d.outputActivation(in)) == in.Judged) {
		in.Dirty = true
		return
	}
	d.send(in, d.finding(in, d.state(in), ""), emit)
}

// computed reports whether the finding's severity or confidence is
// computed from the incident (match.severity, match.confidence).
func (m *match) computed() bool {
	return m.severity.prg != nil || m.confidence.prg != nil
}

// judge returns the computed severity and confidence of in.
func (d *detector) judge(in *instance, act interpreter.Activation) string {
	return d.value(d.sig.match.severity, act) + "/" + d.value(d.sig.match.confidence, act)
}

// send emits in's finding f and remembers what it named.
func (d *detector) send(in *instance, f detectors.Finding, emit detectors.Emit) {
	d.emits++
	in.Named, in.Stale, in.Dirty = naming(f), false, false
	emit(f)
}

// naming hashes what a finding says that the run's identities may
// change: its summary, facts and entities.
func naming(f detectors.Finding) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%v\x00%v", f.Summary, f.Entities, f.Facts) // fmt prints maps sorted
	return strconv.FormatUint(h.Sum64(), 16)
}

// rename renders again the findings that say something else now: the
// identities learned since they were last rendered name them differently
// (a datanode's host or UUID), or a run table they read as it stands
// changed. A batch run renders them at the end.
func (d *detector) rename(emit detectors.Emit) {
	g := d.env.Identity.Generation()
	renamed := g != d.Identities
	d.Identities = g
	for _, in := range d.Open {
		if in.Closed || !in.Emitted || !renamed && !in.Stale {
			continue
		}
		in.Stale = false
		if d.env.Batch {
			in.Dirty = true
			continue
		}
		if f := d.finding(in, d.state(in), ""); naming(f) != in.Named {
			d.send(in, f, emit)
		}
	}
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
	if a.confidence.prg == nil {
		return a.confidence.lit // no activation to build
	}
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
	// Lines of other hosts that the incident's tables take may precede
	// the signal that opened it by up to the skew allowance.
	if in.Step == 1 && d.skew > 0 && len(d.rowKinds) > 0 {
		from := at.Add(-d.skew)
		for _, r := range d.Recent {
			if r.Event.Time.Before(from) || r.Event.Time.After(at) || !d.rowKinds[catalogue.Kind(r.Event.Kind)] {
				continue
			}
			var buf [4]string
			if keys, all := d.keysOf(buf[:0], &r.Event); all || slices.Contains(keys, in.Key) {
				e := r.Event
				d.takeRows(in, &e)
			}
		}
	}
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
	if !in.Emitted {
		d.Reported++
		in.FindingKey = d.findingKey(in, act)
	}
	in.Emitted, in.Pending, in.Dirty = true, st.emit.pending, false
	d.send(in, d.finding(in, d.state(in), ""), emit)
}

// findingKey names in's finding when it first emits: match.key's value,
// else the join key (the signature's id without one) and the number of
// the signature's incident it is, "dn1.example.com#3".
func (d *detector) findingKey(in *instance, act interpreter.Activation) string {
	if d.sig.match.key != nil {
		if out, _, err := d.sig.match.key.Eval(act); err == nil {
			if k, _ := out.Value().(string); k != "" {
				return k
			}
		}
	}
	key := in.Key
	if key == "" {
		key = d.sig.ID
	}
	return key + "#" + strconv.Itoa(d.Reported)
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
		d.emits++
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
		d.emits++
		emit(detectors.Withdraw(d.finding(in, detectors.Pending, ""), reason))
	} else if in.Emitted {
		in.Last = at
		d.send(in, d.finding(in, detectors.Resolved, reason), emit)
	}
	in.Closed = true
}

func (d *detector) resolve(in *instance, emit detectors.Emit) {
	d.emits++
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
		if last := in.latest(); in.Emitted && !in.Pending && d.quiet > 0 && !last.IsZero() && now.Sub(last) > d.quiet && d.quietCounts(in) {
			d.resolve(in, emit)
			continue
		}
		// An instance of untimed lines (.out files) has no time to age
		// from: max_open bounds those.
		if last := in.latest(); d.horizon > 0 && !last.IsZero() && now.Sub(last) > d.horizon && in.Deadline.IsZero() {
			d.forget(in, emit)
		}
	}
	for i, t := range d.sig.match.tables {
		if hz := d.tableHz[i]; t.run && hz > 0 {
			if d.Tables[i].DeleteFunc(func(_ string, r row) bool { return !r.Last.Time.IsZero() && now.Sub(r.Last.Time) > hz }) > 0 {
				d.tableChanged(t)
			}
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
	d.rename(emit)
}

// Quiet returns the earliest time at which Advance has something to do.
func (d *detector) Quiet(now time.Time) time.Time {
	q := now.Add(detectors.NoDeadline)
	for _, in := range d.Open {
		if in.Closed {
			continue
		}
		if in.Stale {
			return now // rendered again at the next tick
		}
		if !in.Deadline.IsZero() {
			q = detectors.Earliest(q, in.Deadline)
		}
		q = d.eachQuiet(in, q)
		if last := in.latest(); in.Emitted && !in.Pending && d.quiet > 0 && !last.IsZero() && d.quietCounts(in) {
			q = detectors.Earliest(q, last.Add(d.quiet))
		}
		if last := in.latest(); d.horizon > 0 && !last.IsZero() {
			q = detectors.Earliest(q, last.Add(d.horizon))
		}
	}
	for i, t := range d.sig.match.tables {
		if hz := d.tableHz[i]; t.run && hz > 0 {
			for _, r := range d.Tables[i].All() {
				if !r.Last.Time.IsZero() {
					q = detectors.Earliest(q, r.Last.Time.Add(hz))
				}
			}
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

// End reports the open findings as they stand at the end of the input.
// An instance whose deadline the input did not reach is no match: its
// finding (if one was emitted) says so in Facts["outcome"].
func (d *detector) End(end time.Time, emit detectors.Emit) {
	d.rename(emit)
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
		d.send(in, d.finding(in, d.state(in), note), emit)
	}
}

// StateStats reports the bounded parts of the state.
func (d *detector) StateStats() []detectors.StateStat {
	m := &d.sig.match
	out := []detectors.StateStat{
		{Name: "open", Entries: len(d.Open), Limit: m.maxOpen, Evicted: d.Evicted},
		{Name: "recent", Entries: len(d.Recent), Limit: maxRecent},
		{Name: "corroborations", Entries: len(d.Seen), Limit: m.maxOpen},
		{Name: "held for followed_by", Entries: len(d.Held), Limit: maxRecent},
	}
	if d.Occurrences != nil {
		out = append(out, d.Occurrences.Stat("incidents counted per key"))
	}
	rows, limit := 0, 0
	for i, t := range m.tables {
		if t.run {
			out = append(out, d.Tables[i].Stat("table "+t.name))
			continue
		}
		limit += t.maxRows * m.maxOpen
		for _, in := range d.Open {
			rows += len(tableRows(in.Rows, i))
		}
	}
	if limit > 0 {
		out = append(out, detectors.StateStat{Name: "incident tables' rows", Entries: rows, Limit: limit, Evicted: d.RowsEvicted})
	}
	return out
}

// finding renders an instance as a finding in state; note, if any, goes
// into Facts["outcome"].
func (d *detector) finding(in *instance, state detectors.State, note string) detectors.Finding {
	act := d.outputActivation(in)
	f := detectors.Finding{
		Key: in.FindingKey, Severity: in.Severity, Confidence: in.Confidence, Start: in.Start, End: in.Last,
		State: state, Facts: map[string]string{},
	}
	for _, c := range in.Confirmed {
		if rank(detectors.Confidence(c.Confidence)) > rank(f.Confidence) {
			f.Confidence = detectors.Confidence(c.Confidence)
		}
	}
	in.Judged = d.judge(in, act)
	if sev := d.value(d.sig.match.severity, act); sev != "" {
		if v, err := detectors.ParseSeverity(sev); err == nil {
			f.Severity = v
		}
	}
	if conf := d.value(d.sig.match.confidence, act); conf != "" {
		f.Confidence = detectors.Confidence(conf)
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
		forEach(p, act, func(v ref.Val) {
			if n, ok := v.Value().(int64); ok && n > 0 && !slices.Contains(f.Entities.Containers, uint64(n)) {
				f.Entities.Containers = append(f.Entities.Containers, uint64(n))
			}
		})
	}
	for _, p := range en.datanodes {
		forEach(p, act, func(v ref.Val) {
			if dn, ok := datanodeOf(v); ok {
				c := d.env.Identity.Complete(catalogue.Datanode{UUID: dn.UUID, Host: dn.Host, IP: dn.IP})
				if !c.IsZero() && !slices.ContainsFunc(f.Entities.Datanodes, func(o catalogue.Datanode) bool { return sameDatanode(o, c) }) {
					f.Entities.Datanodes = append(f.Entities.Datanodes, c)
				}
			}
		})
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
	if len(d.sig.evidence) > 0 {
		dropped := in.Evidence.Dropped()
		f.Evidence, dropped = d.moreEvidence(f.Evidence, act, dropped)
		if n := len(f.Evidence); n > 0 && f.Evidence[n-1].Time.After(f.End) {
			f.End = f.Evidence[n-1].Time
		}
		delete(f.Facts, "evidence_dropped")
		if dropped > 0 {
			f.Facts["evidence_dropped"] = strconv.Itoa(dropped)
		}
	}
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
	for k := range f.Facts {
		if strings.HasPrefix(k, "_") { // for the summary only
			delete(f.Facts, k)
		}
	}
	gate := f.Entities.Hosts
	if len(d.sig.affected) > 0 {
		// The version fact names every host's; the affected hosts' decide.
		detectors.Doc{}.GateVersion(&f, d.env.Identity, f.Entities.Hosts...)
		gate = nil
		for _, p := range d.sig.affected {
			gate = appendStrings(gate, p, act)
		}
	}
	d.sig.doc.GateVersion(&f, d.env.Identity, gate...)
	return f
}

// rank orders confidences: low < medium < high.
func rank(c detectors.Confidence) int {
	return slices.Index([]detectors.Confidence{detectors.Low, detectors.Medium, detectors.High}, c)
}

func appendStrings(dst []string, p cel.Program, act interpreter.Activation) []string {
	forEach(p, act, func(v ref.Val) {
		if s, ok := v.Value().(string); ok && s != "" && !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	})
	return dst
}

// forEach evaluates p and calls fn with its value, or with each element
// of the list it gives.
func forEach(p cel.Program, act interpreter.Activation, fn func(ref.Val)) {
	out, _, err := p.Eval(act)
	if err != nil {
		return
	}
	eachValue(out, fn)
}

// eachValue calls fn with v, or with each element of the list (or list of
// lists) v is.
func eachValue(v ref.Val, fn func(ref.Val)) {
	if l, ok := v.(traits.Lister); ok {
		for it := l.Iterator(); it.HasNext() == types.True; {
			eachValue(it.Next(), fn)
		}
		return
	}
	fn(v)
}

// moreEvidence adds the lines of the evidence expressions to ev (the
// steps' lines, dropped of them left out): sorted by time, each once,
// the first and the latest kept; it returns the lines and how many are
// left out in all. An expression gives events, or rows: a row's signals,
// those it no longer holds counted as left out.
func (d *detector) moreEvidence(ev []detectors.Evidence, act interpreter.Activation, dropped int) ([]detectors.Evidence, int) {
	all := slices.Clone(ev)
	add := func(e Event) {
		line := detectors.Evidence{File: e.File, Line: e.Line, Host: e.Host, Component: e.Component, Time: e.Time, Text: e.Text}
		if !slices.Contains(all, line) {
			all = append(all, line)
		}
	}
	for _, p := range d.sig.evidence {
		forEach(p, act, func(v ref.Val) {
			switch x := v.Value().(type) {
			case *Event:
				add(*x)
			case Event:
				add(x)
			case *Row:
				for _, e := range x.Events {
					add(e)
				}
				dropped += x.Count - len(x.Events)
			case Row:
				for _, e := range x.Events {
					add(e)
				}
				dropped += x.Count - len(x.Events)
			}
		})
	}
	detectors.SortEvidence(all)
	var kept detectors.EvidenceLog
	for _, e := range all {
		kept.Add(e)
	}
	return kept.List(), dropped + kept.Dropped()
}

// sameDatanode reports whether a and b name one datanode: the same UUID,
// or, when one lacks it, the same host.
func sameDatanode(a, b catalogue.Datanode) bool {
	if a.UUID != "" && b.UUID != "" {
		return a.UUID == b.UUID
	}
	return a.Host != "" && b.Host != "" && detectors.HostKey(a.Host) == detectors.HostKey(b.Host)
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
