package detectors

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// counter raises one finding per entity, escalating it on the third signal
// and resolving it when Advance passes a minute after the last one.
type counter struct {
	seen     map[string]int
	last     map[string]time.Time
	advanced []time.Time
}

func (c *counter) Observe(s *catalogue.Signal, emit Emit) {
	c.seen[s.Peer]++
	c.last[s.Peer] = s.Time
	f := Finding{Key: s.Peer, Severity: Warning, Start: s.Time, End: s.Time, Entities: Entities{Hosts: []string{s.Host}}}
	if c.seen[s.Peer] >= 3 {
		f.Severity = Critical
	}
	emit(f)
}

func (c *counter) Advance(now time.Time, emit Emit) {
	c.advanced = append(c.advanced, now)
	for k, t := range c.last {
		if now.Sub(t) > time.Minute {
			emit(Finding{Key: k, Severity: Critical, State: Resolved, End: now, Start: t, Entities: Entities{Hosts: []string{"h"}}})
			delete(c.last, k)
		}
	}
}

// Quiet cannot tell: the counter is advanced at every tick.
func (c *counter) Quiet(time.Time) time.Time { return time.Time{} }

func (c *counter) End(time.Time, Emit) {}

func (c *counter) StateStats() []StateStat { return nil }

func TestEngineDispatchesByKindAndReplacesByKey(t *testing.T) {
	c := &counter{seen: map[string]int{}, last: map[string]time.Time{}}
	reg := Registration{
		Doc: Doc{Name: "toy", Defect: "HDDS-0", Title: "Toy", Kinds: []catalogue.Kind{"k"},
			Remediation: []string{"restart {{join .Entities.Hosts}}"}},
		New: func(*Env) (Detector, error) { return c, nil },
	}
	e, err := NewEngine([]Registration{reg}, &Env{Settings: site.New(), Identity: NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	var col Collector
	var ts []Transition
	e.Collect(&col)
	e.Subscribe(func(t Transition) { ts = append(ts, t) })
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		e.Observe(&catalogue.Signal{Kind: "k", Peer: "a", Host: "h1", Time: t0.Add(time.Duration(i) * time.Second)})
	}
	e.Observe(&catalogue.Signal{Kind: "other", Peer: "b", Time: t0.Add(5 * time.Second)})
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "c", Host: "h2", Time: t0.Add(10 * time.Minute)})
	e.Finish(t0.Add(time.Hour))
	fs := col.Findings(e.Finalizer(), nil).Slice()
	if len(fs) != 2 {
		t.Fatalf("want 2 findings (a, c), got %v", fs)
	}
	a := fs[0]
	if a.Key != "a" || a.State != Resolved || a.Severity != Critical || a.Detector != "toy" || a.Defect != "HDDS-0" || a.Title != "Toy" {
		t.Errorf("finding a: %+v", a)
	}
	if len(a.Remediation) != 1 || a.Remediation[0] != "restart h" {
		t.Errorf("remediation: %q", a.Remediation)
	}
	if c.seen["b"] != 0 {
		t.Error("signal of an unwanted kind was dispatched")
	}
	// Finish moves the clock through the ticks to the end: c's deadline
	// passes there, as it would in a live run.
	if fs[1].Key != "c" || fs[1].State != Resolved {
		t.Errorf("finding c: %+v", fs[1])
	}
	// a: new (firing, warning), two updates the second of which escalates,
	// resolved; c: new, resolved.
	var got []string
	for _, tr := range ts {
		got = append(got, fmt.Sprintf("%s:%s>%s:%v:%s", tr.Finding.Key, tr.From, tr.To, tr.Escalated, tr.Finding.Severity))
	}
	want := []string{"a:>firing:false:warning", "a:firing>firing:false:warning", "a:firing>firing:true:critical",
		"a:firing>resolved:false:critical", "c:>firing:false:warning", "c:firing>resolved:false:critical"}
	if !slices.Equal(got, want) {
		t.Errorf("transitions:\n got %q\nwant %q", got, want)
	}
	if ts[1].Update() != true || ts[2].Update() || ts[0].Fingerprint != Fingerprint("toy", "a") || ts[0].Fingerprint != ts[3].Fingerprint {
		t.Errorf("update flags or fingerprints: %+v", ts)
	}
	if st := e.Stats(); st.Transitions != 5 || st.Signals != 5 {
		t.Errorf("stats: %+v", st)
	}
	for i := 1; i < len(c.advanced); i++ {
		if !c.advanced[i].After(c.advanced[i-1]) {
			t.Errorf("clock went backwards: %v", c.advanced)
		}
	}
}

func TestIdentityLearnsDatanodesAndShortHosts(t *testing.T) {
	id := NewIdentity()
	id.Learn(&catalogue.Signal{Datanode: catalogue.Datanode{UUID: "ABC", Host: "dn1.example.com"}})
	if id.DatanodeHost("abc") != "dn1.example.com" || id.DatanodeOnHost("dn1") != "abc" {
		t.Errorf("identity: %+v", id)
	}
	d := id.Complete(catalogue.Datanode{Host: "dn1.example.com"})
	if d.UUID != "abc" {
		t.Errorf("complete: %+v", d)
	}
	id.Learn(&catalogue.Signal{Component: "om", Attrs: map[string]string{
		"peerlist": "peers:[omNode-1|om1.example.com:9872, omNode-4|om4.example.com:9872]|listeners:[]"}})
	if id.OMHost("omNode-4") != "om4.example.com" || id.OMOnHost("om1") != "omNode-1" {
		t.Errorf("OM identity from a peer list: %q %q", id.OMHost("omNode-4"), id.OMOnHost("om1"))
	}
	if ShortHost("10.0.0.1") != "10.0.0.1" || ShortHost("om1.example.com") != "om1" {
		t.Error("ShortHost")
	}
}

func TestSeverityText(t *testing.T) {
	for _, s := range []Severity{Info, Warning, Critical} {
		b, _ := s.MarshalText()
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v round trip: %v %v", s, back, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("want an error for an unknown severity")
	}
}

// pendingToy raises a pending finding on each signal and withdraws or
// confirms it on the next one.
type pendingToy struct{ n int }

func (p *pendingToy) Observe(s *catalogue.Signal, emit Emit) {
	p.n++
	switch p.n {
	case 1, 3:
		emit(Finding{Key: s.Peer, State: Pending, Severity: Warning, Start: s.Time})
	case 2:
		emit(Withdraw(Finding{Key: s.Peer}, "not confirmed"))
	case 4:
		emit(Finding{Key: s.Peer, State: Firing, Severity: Warning, Start: s.Time})
	}
}
func (p *pendingToy) Advance(time.Time, Emit)       {}
func (p *pendingToy) Quiet(now time.Time) time.Time { return now.Add(NoDeadline) }
func (p *pendingToy) End(time.Time, Emit)           {}
func (p *pendingToy) StateStats() []StateStat       { return nil }

// An engine that keeps only its alerts' state hands its subscribers the
// same transitions, whole, as one that keeps their findings; its Alerts
// have their key, start, state and severity and nothing else.
func TestEngineStateOnly(t *testing.T) {
	run := func(stateOnly bool) (string, []Finding) {
		c := &counter{seen: map[string]int{}, last: map[string]time.Time{}}
		reg := Registration{Doc: Doc{Name: "toy", Kinds: []catalogue.Kind{"k"}}, New: func(*Env) (Detector, error) { return c, nil }}
		e, err := NewEngineWith([]Registration{reg}, &Env{Settings: site.New(), Identity: NewIdentity()}, EngineOptions{StateOnly: stateOnly})
		if err != nil {
			t.Fatal(err)
		}
		var ts []Transition
		e.Subscribe(func(t Transition) { ts = append(ts, t) })
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i, peer := range []string{"a", "b", "a", "a", "b"} {
			e.Observe(&catalogue.Signal{Kind: "k", Peer: peer, Host: "h" + peer, Time: t0.Add(time.Duration(i) * 20 * time.Second)})
		}
		e.Advance(t0.Add(130 * time.Second)) // a resolves, b fires on
		b, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), e.Alerts()
	}
	want, full := run(false)
	got, light := run(true)
	if got != want {
		t.Fatalf("transitions with StateOnly\n%s\nwant\n%s", got, want)
	}
	if len(full) != 2 || len(light) != 2 {
		t.Fatalf("alerts %v and %v, want a and b", full, light)
	}
	for i, f := range light {
		if f.Key != full[i].Key || f.State != full[i].State || f.Severity != full[i].Severity || !f.Start.Equal(full[i].Start) ||
			len(f.Entities.Hosts) != 0 || len(full[i].Entities.Hosts) != 1 {
			t.Errorf("alert %d with StateOnly %+v, without %+v", i, f, full[i])
		}
	}
}

func TestEngineWithdrawsPendingAndExpiresResolved(t *testing.T) {
	reg := Registration{Doc: Doc{Name: "toy", Kinds: []catalogue.Kind{"k"}}, New: func(*Env) (Detector, error) { return &pendingToy{}, nil }}
	e, err := NewEngineWith([]Registration{reg}, &Env{Settings: site.New(), Identity: NewIdentity()}, EngineOptions{Retention: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var col Collector
	var to []State
	e.Collect(&col)
	e.Subscribe(func(t Transition) { to = append(to, t.To) })
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "x", Time: t0})
	if fs := col.Findings(e.Finalizer(), nil).Slice(); len(fs) != 0 {
		t.Errorf("a pending finding reached the report: %v", fs)
	}
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "x", Time: t0.Add(time.Second)})
	if len(e.Alerts()) != 0 {
		t.Errorf("withdrawn alert still held: %v", e.Alerts())
	}
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "y", Time: t0.Add(2 * time.Second)})
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "y", Time: t0.Add(3 * time.Second)})
	if !slices.Equal(to, []State{Pending, Inactive, Pending, Firing}) {
		t.Errorf("transitions: %v", to)
	}
	if fs := col.Findings(e.Finalizer(), nil).Slice(); len(fs) != 1 || fs[0].Key != "y" {
		t.Errorf("report: %v", fs)
	}
	// A resolved alert is forgotten after the retention, a firing one is not.
	e.apply(Finding{Detector: "toy", Key: "z", State: Resolved})
	e.Advance(t0.Add(10 * time.Minute))
	if a := e.Alerts(); len(a) != 1 || a[0].Key != "y" || e.Stats().Expired != 1 {
		t.Errorf("after retention: %v %+v", a, e.Stats())
	}
	// Sweeps that skip the alerts (none can have expired) still forget one
	// at the first sweep past its retention.
	at := t0.Add(10 * time.Minute)
	e.apply(Finding{Detector: "toy", Key: "w", State: Resolved})
	for _, d := range []time.Duration{2 * time.Second, 30 * time.Second, time.Minute} {
		e.Advance(at.Add(d))
	}
	if len(e.Alerts()) != 2 {
		t.Errorf("forgotten before its retention passed: %v", e.Alerts())
	}
	e.Advance(at.Add(time.Minute + time.Second))
	if a := e.Alerts(); len(a) != 1 || e.Stats().Expired != 2 {
		t.Errorf("a minute and a second after it resolved: %v %+v", a, e.Stats())
	}
}

// A signal from a stream whose component is unknown reaches no detector that
// needs a specific component's logs, and is counted; one that needs none
// still gets it.
func TestEngineWithholdsUnknownComponentFromDetectorsWithNeeds(t *testing.T) {
	scm := &counter{seen: map[string]int{}, last: map[string]time.Time{}}
	any := &counter{seen: map[string]int{}, last: map[string]time.Time{}}
	reg := func(name string, c *counter, needs ...parsers.Component) Registration {
		return Registration{Doc: Doc{Name: name, Defect: "HDDS-0", Title: name, Kinds: []catalogue.Kind{"k"}, Needs: needs},
			New: func(*Env) (Detector, error) { return c, nil }}
	}
	e, err := NewEngine([]Registration{reg("scm-only", scm, parsers.ComponentSCM), reg("any", any)},
		&Env{Settings: site.New(), Identity: NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "unknown", Host: "h1", Time: t0})
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "scm", Host: "h1", Component: parsers.ComponentSCM, Time: t0.Add(time.Second)})
	if scm.seen["unknown"] != 0 || scm.seen["scm"] != 1 {
		t.Errorf("scm-only detector saw %v", scm.seen)
	}
	if any.seen["unknown"] != 1 || any.seen["scm"] != 1 {
		t.Errorf("detector without needs saw %v", any.seen)
	}
	if st := e.Stats(); st.Unattributed != 1 {
		t.Errorf("Unattributed = %d, want 1", st.Unattributed)
	}
}

// sleeper fires an alert at a signal, resolves it 10 s later and fires it
// again 5 s after its retention (a minute) passed: deadlines its Quiet tells.
type sleeper struct {
	deadlines []time.Time
	advanced  int
}

func (s *sleeper) Observe(sig *catalogue.Signal, emit Emit) {
	emit(Finding{Key: "k", Start: sig.Time})
	resolve := sig.Time.Add(10 * time.Second)
	s.deadlines = []time.Time{resolve, resolve.Add(time.Minute + 5*time.Second)}
}

func (s *sleeper) Advance(now time.Time, emit Emit) {
	s.advanced++
	if len(s.deadlines) == 0 || now.Before(s.deadlines[0]) {
		return
	}
	state := Firing
	if len(s.deadlines) == 2 {
		state = Resolved
	}
	emit(Finding{Key: "k", State: state, Start: now})
	s.deadlines = s.deadlines[1:]
}

func (s *sleeper) End(time.Time, Emit) {}

func (s *sleeper) StateStats() []StateStat { return nil }

func (s *sleeper) Quiet(now time.Time) time.Time {
	if len(s.deadlines) == 0 {
		return now.Add(NoDeadline)
	}
	return s.deadlines[0].Add(-time.Nanosecond)
}

// At a signal's time the engine passes over the detectors quiet through
// that time, and they make the transitions they make when every detector
// is advanced at every signal.
func TestEnginePassesOverQuietDetectors(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var runs [2][]string
	var advanced [2][2]int
	for i, every := range []bool{true, false} {
		a, b := &sleeper{}, &sleeper{}
		var regs []Registration
		for _, d := range []struct {
			kind catalogue.Kind
			s    *sleeper
		}{{"a", a}, {"b", b}} {
			regs = append(regs, Registration{Doc: Doc{Name: string(d.kind), Kinds: []catalogue.Kind{d.kind}},
				New: func(*Env) (Detector, error) { return d.s, nil }})
		}
		e, err := NewEngineWith(regs, &Env{Settings: site.New(), Identity: NewIdentity()},
			EngineOptions{Retention: time.Minute, EveryTick: every})
		if err != nil {
			t.Fatal(err)
		}
		e.Subscribe(func(tr Transition) {
			runs[i] = append(runs[i], fmt.Sprintf("%s %s %q->%s", tr.At.Sub(t0), tr.Fingerprint, tr.From, tr.To))
		})
		e.Observe(&catalogue.Signal{Kind: "a", Time: t0})
		for s := 1; s <= 300; s++ { // b's signals, one a second, between ticks
			e.Observe(&catalogue.Signal{Kind: "b", Time: t0.Add(time.Duration(s)*time.Second + 500*time.Millisecond)})
		}
		advanced[i] = [2]int{a.advanced, b.advanced}
	}
	if !slices.Equal(runs[0], runs[1]) || len(runs[0]) < 3 {
		t.Errorf("transitions at every signal %q\npassing over quiet detectors %q", runs[0], runs[1])
	}
	// Every tick and signal time: 601 calls each. a has deadlines at 10 s
	// and 75 s: it is advanced there, not at each of b's 300 signals; b's
	// next deadline moves with each of its signals, 10 s on, so its
	// Advance has nothing to do either.
	if advanced[0] != [2]int{601, 601} || advanced[1][0] > 4 || advanced[1][1] > 4 {
		t.Errorf("Advance calls of a and b: %v at every signal, %v passing over", advanced[0], advanced[1])
	}
}

// The engine skips the ticks at which its detectors and its retention
// sweep are quiet, and makes the same transitions at the same times as
// when it calls Advance at every tick: a resolved alert forgotten after
// the retention fires again as a new one.
func TestEngineSkipsQuietTicks(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 500e6, time.UTC)
	var runs [2][]string
	var advanced [2]int
	for i, every := range []bool{true, false} {
		s := &sleeper{}
		reg := Registration{Doc: Doc{Name: "toy", Kinds: []catalogue.Kind{"k"}}, New: func(*Env) (Detector, error) { return s, nil }}
		e, err := NewEngineWith([]Registration{reg}, &Env{Settings: site.New(), Identity: NewIdentity()},
			EngineOptions{Retention: time.Minute, EveryTick: every})
		if err != nil {
			t.Fatal(err)
		}
		e.Subscribe(func(tr Transition) {
			runs[i] = append(runs[i], fmt.Sprintf("%s %q->%s", tr.At.Sub(t0), tr.From, tr.To))
		})
		e.Observe(&catalogue.Signal{Kind: "k", Time: t0})
		e.AdvanceTicks(t0.Add(10 * time.Minute))
		if got, want := e.Now(), t0.Add(10*time.Minute).Truncate(time.Second); !got.Equal(want) {
			t.Errorf("every tick %v: clock %v, want %v", every, got, want)
		}
		advanced[i] = s.advanced
	}
	want := []string{`0s ""->firing`, `10.5s "firing"->resolved`, `1m15.5s ""->firing`}
	for i := range runs {
		if !slices.Equal(runs[i], want) {
			t.Errorf("every tick %v: %q, want %q", i == 0, runs[i], want)
		}
	}
	if advanced[0] < 600 || advanced[1] > 5 {
		t.Errorf("Advance calls: %d at every tick, %d skipping", advanced[0], advanced[1])
	}
}

// The engine parses each doc's remediation once and fills it for every
// finding as Doc.Remediate does: a step that cannot be parsed or filled
// shows as the error, naming the step; an earlier step's failure first.
func TestFinalizeFillsRemediationAsTheDocSays(t *testing.T) {
	docs := []Doc{
		{Name: "ok", Remediation: []string{"restart {{join .Entities.Hosts}}", "check {{.Key}}"}},
		{Name: "unparsed", Remediation: []string{"restart {{join .Entities.Hosts}}", "check {{.Key"}},
		{Name: "unfilled", Remediation: []string{"check {{.Key.Missing}}", "check {{.Key"}},
	}
	want := map[string][]string{
		"ok":       {"restart h1", "check k"},
		"unparsed": {"unparsed remediation step 2: template: unparsed1:1: unclosed action"},
		"unfilled": {`unfilled remediation step 1: template: unfilled0:1:12: executing "unfilled0" at <.Key.Missing>: can't evaluate field Missing in type string`},
	}
	var regs []Registration
	for _, d := range docs {
		regs = append(regs, Registration{Doc: d, New: func(*Env) (Detector, error) { return &counter{}, nil }})
	}
	e, err := NewEngine(regs, &Env{Settings: site.New(), Identity: NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	finalizer := e.Finalizer()
	for _, d := range docs {
		f := Finding{Detector: d.Name, Key: "k", Entities: Entities{Hosts: []string{"h1"}}}
		byDoc, err := d.Remediate(&f)
		if err != nil {
			byDoc = []string{err.Error()}
		}
		for how, got := range map[string][]string{"Remediate": byDoc, "finalize": e.finalize(f).Remediation, "Finalizer": finalizer(f).Remediation} {
			if !slices.Equal(got, want[d.Name]) {
				t.Errorf("%s of %s: %q, want %q", how, d.Name, got, want[d.Name])
			}
		}
	}
}

// dnToy raises one firing finding per signal, naming the signal's datanode
// by UUID alone, as a line that gives no host does.
type dnToy struct{}

func (dnToy) Observe(s *catalogue.Signal, emit Emit) {
	emit(Finding{Key: s.Peer, Severity: Warning, Start: s.Time, Entities: Entities{Datanodes: []catalogue.Datanode{{UUID: s.Peer}}}})
}
func (dnToy) Advance(time.Time, Emit)       {}
func (dnToy) Quiet(now time.Time) time.Time { return now.Add(NoDeadline) }
func (dnToy) End(time.Time, Emit)           {}
func (dnToy) StateStats() []StateStat       { return nil }

// A subscriber receives findings finalized by the engine: remediation
// filled from the doc, a datanode completed with the identity learned
// before the transition. Near miss: a datanode learned only after its
// transition is sent as emitted (no host made up), and completed by what
// reads the engine later (Alerts, a Collect-ed report with Finalizer); the
// collector itself keeps the findings as emitted.
func TestSubscribersReceiveFinalizedFindings(t *testing.T) {
	reg := Registration{Doc: Doc{Name: "dn", Kinds: []catalogue.Kind{"k"},
		Remediation: []string{"restart{{range .Entities.Datanodes}} {{.UUID}}@{{.Host}}{{end}}"}},
		New: func(*Env) (Detector, error) { return dnToy{}, nil }}
	e, err := NewEngineWith([]Registration{reg}, &Env{Settings: site.New(), Identity: NewIdentity()}, EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var col Collector
	e.Collect(&col)
	sent := map[string]Finding{}
	e.Subscribe(func(tr Transition) { sent[tr.Finding.Key] = tr.Finding })
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	learn := func(at time.Duration, uuid, host string) {
		e.Observe(&catalogue.Signal{Kind: "identity", Time: t0.Add(at), Datanode: catalogue.Datanode{UUID: uuid, Host: host}})
	}
	learn(0, "u1", "dn1")
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "u1", Time: t0.Add(time.Second)})
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "u2", Time: t0.Add(2 * time.Second)})
	learn(3*time.Second, "u2", "dn2")

	check := func(how string, f Finding, host, step string) {
		t.Helper()
		if len(f.Entities.Datanodes) != 1 || f.Entities.Datanodes[0].Host != host || !slices.Equal(f.Remediation, []string{step}) {
			t.Errorf("%s %s: datanodes %+v remediation %q, want host %q and %q", how, f.Key, f.Entities.Datanodes, f.Remediation, host, step)
		}
	}
	check("sent", sent["u1"], "dn1", "restart u1@dn1")
	check("sent", sent["u2"], "", "restart u2@") // near miss: learned after
	alerts := e.Alerts()
	if len(alerts) != 2 {
		t.Fatalf("alerts: %v", alerts)
	}
	for _, f := range alerts {
		check("alert", f, "dn"+f.Key[1:], "restart "+f.Key+"@dn"+f.Key[1:])
	}
	if len(col.findings) != 2 || col.findings[0].Remediation != nil || col.findings[1].Entities.Datanodes[0].Host != "" {
		t.Errorf("collector got findings not as emitted: %v", col.findings)
	}
	e.End(t0.Add(time.Minute))
	for _, f := range col.Findings(e.Finalizer(), nil).Slice() {
		check("report", f, "dn"+f.Key[1:], "restart "+f.Key+"@dn"+f.Key[1:])
	}
}
