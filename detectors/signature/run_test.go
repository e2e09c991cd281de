package signature

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

var t0 = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

func mustCompile(t *testing.T, text string) *Signature {
	t.Helper()
	f, err := Parse("sig.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile("sig.yaml", f, KnownKinds())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sig builds a signal of a built-in kind at t0+at.
func sig(kind catalogue.Kind, at time.Duration, host string, comp parsers.Component) catalogue.Signal {
	return catalogue.Signal{Kind: kind, Time: t0.Add(at), Host: host, Component: comp, Text: string(kind) + " on " + host}
}

// run feeds signals to an engine running s and returns its transitions
// (as "at detector key from>to severity") and the findings at end.
func run(t *testing.T, s *Signature, signals []catalogue.Signal, end time.Duration) ([]string, []detectors.Finding) {
	t.Helper()
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Batch: true}
	eng, err := detectors.NewEngine([]detectors.Registration{s.Registration()}, env)
	if err != nil {
		t.Fatal(err)
	}
	var trs []string
	eng.Subscribe(func(tr detectors.Transition) {
		trs = append(trs, fmt.Sprintf("%s %s>%s %s", tr.At.Sub(t0), tr.From, tr.To, tr.Finding.Severity))
	})
	for i := range signals {
		eng.Observe(&signals[i])
	}
	eng.AdvanceTicks(t0.Add(end))
	fs := eng.Finish(t0.Add(end))
	return trs, fs
}

const startAndExit = `signature: v1
id: safe-mode-test
problem: safe-mode
title: t
summary: "stuck on {{index .Entities.Hosts 0}}"
params:
  stuck_after: {type: duration, default: 15m, min: 1m, doc: how long safe mode may last}
match:
  by: e.host
  horizon: 2h
  max_open: 2
  steps:
    - name: started
      on: startup
      where: e.component == "scm"
    - name: stuck
      absent: true
      on: shutdown
      within: params.stuck_after
      emit: {severity: warning}
  until: {on: signal_received}
  resolve: {on: terminating}
entities:
  hosts: [started.host]
`

func TestAbsentIsDecidedOnEventTimeOnly(t *testing.T) {
	s := mustCompile(t, startAndExit)
	scm := parsers.ComponentSCM
	// No shutdown within 15m: the absent step is met at the deadline.
	trs, fs := run(t, s, []catalogue.Signal{sig(catalogue.StartupMsg, 0, "scm1", scm)}, 20*time.Minute)
	if want := []string{"15m1s >firing warning"}; strings.Join(trs, "|") != strings.Join(want, "|") {
		t.Errorf("transitions %q, want %q", trs, want)
	}
	if len(fs) != 1 || fs[0].State != detectors.Firing || fs[0].Entities.Hosts[0] != "scm1" {
		t.Errorf("findings %v", fs)
	}
	// The input ends before the deadline: no finding (and no match).
	trs, fs = run(t, s, []catalogue.Signal{sig(catalogue.StartupMsg, 0, "scm1", scm)}, 14*time.Minute)
	if len(trs) != 0 || len(fs) != 0 {
		t.Errorf("before the deadline: %q %v", trs, fs)
	}
	// The awaited-absent signal comes in time: quiet.
	trs, _ = run(t, s, []catalogue.Signal{sig(catalogue.StartupMsg, 0, "scm1", scm), sig(catalogue.ShutdownMsg, 10*time.Minute, "scm1", scm)}, time.Hour)
	if len(trs) != 0 {
		t.Errorf("shutdown in time: %q", trs)
	}
	// Another host's shutdown does not count (join key).
	trs, _ = run(t, s, []catalogue.Signal{sig(catalogue.StartupMsg, 0, "scm1", scm), sig(catalogue.ShutdownMsg, 10*time.Minute, "scm2", scm)}, time.Hour)
	if len(trs) != 1 {
		t.Errorf("other host's shutdown: %q", trs)
	}
	// until cancels the open instance before the deadline.
	trs, _ = run(t, s, []catalogue.Signal{sig(catalogue.StartupMsg, 0, "scm1", scm), sig(catalogue.SignalReceived, 5*time.Minute, "scm1", scm)}, time.Hour)
	if len(trs) != 0 {
		t.Errorf("until: %q", trs)
	}
	// resolve after firing.
	trs, fs = run(t, s, []catalogue.Signal{sig(catalogue.StartupMsg, 0, "scm1", scm), sig(catalogue.Terminating, 30*time.Minute, "scm1", scm)}, time.Hour)
	if want := "15m1s >firing warning|30m0s firing>resolved warning"; strings.Join(trs, "|") != want {
		t.Errorf("resolve: %q, want %q", trs, want)
	}
	if len(fs) != 1 || fs[0].State != detectors.Resolved {
		t.Errorf("resolve: %v", fs)
	}
}

func TestParamsOverride(t *testing.T) {
	s := mustCompile(t, startAndExit)
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: map[string]string{"safe-mode-test.stuck_after": "2m"}}
	d, err := s.newDetector(env)
	if err != nil {
		t.Fatal(err)
	}
	if d.withins[1] != 2*time.Minute {
		t.Errorf("within %v, want 2m", d.withins[1])
	}
	if _, err := detectors.ValidateOptions([]detectors.Registration{s.Registration()}, map[string]string{"safe-mode-test.stuck_after": "10s"}); err == nil {
		t.Error("a value under min was accepted")
	}
}

const escalate = `signature: v1
id: escalate-test
problem: p
title: t
summary: "x"
match:
  by: e.host
  horizon: 1h
  max_open: 3
  steps:
    - name: first
      on: jvm_pause
      count: {min: 2, distinct: e.thread}
      within: 1m
      emit: {severity: warning, state: pending}
    - name: confirm
      on: log_gap
      within: 5m
      emit: {severity: critical, confidence: high}
entities:
  hosts: [first.first.host]
facts:
  threads: first.values.join(",")
`

func threadSig(at time.Duration, host, thread string) catalogue.Signal {
	s := sig(catalogue.JVMPause, at, host, parsers.ComponentSCM)
	s.Thread = thread
	return s
}

func TestCountPendingEscalateAndWithdraw(t *testing.T) {
	s := mustCompile(t, escalate)
	// Two pauses of the same thread are one distinct value: nothing.
	trs, _ := run(t, s, []catalogue.Signal{threadSig(0, "h", "a"), threadSig(10*time.Second, "h", "a")}, time.Hour)
	if len(trs) != 0 {
		t.Errorf("same thread: %q", trs)
	}
	// Two threads 2m apart are outside the sliding 1m window; the third
	// pause is within 1m of the second: pending, then critical.
	in := []catalogue.Signal{threadSig(0, "h", "a"), threadSig(2*time.Minute, "h", "b"), threadSig(2*time.Minute+30*time.Second, "h", "c"),
		sig(catalogue.LogGap, 4*time.Minute, "h", parsers.ComponentSCM)}
	trs, fs := run(t, s, in, time.Hour)
	if want := "2m30s >pending warning|4m0s pending>firing critical"; strings.Join(trs, "|") != want {
		t.Errorf("escalation: %q, want %q", trs, want)
	}
	if len(fs) != 1 || fs[0].Facts["threads"] != "b,c" || fs[0].Confidence != detectors.High {
		t.Errorf("facts %v", fs)
	}
	// No confirmation within 5m: the pending finding is withdrawn and
	// never reported.
	trs, fs = run(t, s, in[:3], time.Hour)
	if want := "2m30s >pending warning|7m31s pending>inactive warning"; strings.Join(trs, "|") != want {
		t.Errorf("withdrawal: %q, want %q", trs, want)
	}
	for _, f := range fs {
		if !detectors.Withdrawn(f) {
			t.Errorf("reported %v", f)
		}
	}
}

const skewed = `signature: v1
id: skew-test
problem: p
title: t
summary: "x"
match:
  horizon: 1h
  max_open: 3
  skew: 10s
  steps:
    - name: stale
      on: scm_node_stale
    - name: down
      on: shutdown
      where: e.host == stale.datanode.host
      within: 1m
      emit: {severity: critical}
`

func TestSkewLetsALaterStepPrecede(t *testing.T) {
	s := mustCompile(t, skewed)
	stale := sig(catalogue.NodeStale, 0, "scm1", parsers.ComponentSCM)
	stale.Datanode.Host = "dn1"
	early := sig(catalogue.ShutdownMsg, -5*time.Second, "dn1", parsers.ComponentDatanode)
	trs, _ := run(t, s, []catalogue.Signal{early, stale}, time.Hour)
	if len(trs) != 1 {
		t.Errorf("5s early, 10s skew: %q", trs)
	}
	tooEarly := sig(catalogue.ShutdownMsg, -20*time.Second, "dn1", parsers.ComponentDatanode)
	if trs, _ := run(t, s, []catalogue.Signal{tooEarly, stale}, time.Hour); len(trs) != 0 {
		t.Errorf("20s early, 10s skew: %q", trs)
	}
}

func TestQuietResolutionAndEviction(t *testing.T) {
	text := strings.Replace(escalate, "  max_open: 3\n", "  max_open: 2\n", 1)
	text = strings.Replace(text, "      emit: {severity: warning, state: pending}\n", "      emit: {severity: warning}\n", 1)
	text = strings.Replace(text, "entities:", "  resolve: {quiet: 3m}\nentities:", 1)
	s := mustCompile(t, text)
	in := []catalogue.Signal{threadSig(0, "h1", "a"), threadSig(time.Second, "h1", "b"),
		threadSig(2*time.Second, "h2", "a"), threadSig(3*time.Second, "h2", "b"),
		threadSig(4*time.Second, "h3", "a")}
	trs, _ := run(t, s, in, time.Hour)
	// h1 and h2 fire; h3's instance evicts h1's (max_open 2); h2 resolves
	// 3m after its last signal.
	if want := "1s >firing warning|3s >firing warning|3m3.000000001s firing>resolved warning"; !strings.HasPrefix(strings.Join(trs, "|"), "1s >firing warning|3s >firing warning|3m") {
		t.Errorf("transitions %q, want like %q", trs, want)
	}
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	d, _ := s.newDetector(env)
	for i := range in {
		d.Observe(&in[i], func(detectors.Finding) {})
	}
	if st := d.StateStats()[0]; st.Entries != 2 || st.Evicted != 1 {
		t.Errorf("state %+v, want 2 open and 1 evicted", st)
	}
}

// Random cuts of a signal stream into a checkpointed engine give the same
// transitions as the uncut run.
func TestCheckpointCutsKeepTransitions(t *testing.T) {
	s := mustCompile(t, escalate)
	rng := rand.New(rand.NewSource(7))
	for seed := range 20 {
		var in []catalogue.Signal
		at := time.Duration(0)
		for range 60 {
			at += time.Duration(rng.Intn(40)) * time.Second
			host := fmt.Sprintf("h%d", rng.Intn(3))
			if rng.Intn(4) == 0 {
				in = append(in, sig(catalogue.LogGap, at, host, parsers.ComponentSCM))
			} else {
				in = append(in, threadSig(at, host, fmt.Sprintf("t%d", rng.Intn(3))))
			}
		}
		want, _ := run(t, s, in, at+time.Hour)
		cut := 1 + rng.Intn(len(in)-1)
		got := runCut(t, s, in, cut, at+time.Hour)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("seed %d cut at %d:\n got %q\nwant %q", seed, cut, got, want)
		}
		if len(want) == 0 {
			t.Fatalf("seed %d: no transition at all", seed)
		}
	}
}

func runCut(t *testing.T, s *Signature, in []catalogue.Signal, cut int, end time.Duration) []string {
	t.Helper()
	var trs []string
	sub := func(tr detectors.Transition) {
		trs = append(trs, fmt.Sprintf("%s %s>%s %s", tr.At.Sub(t0), tr.From, tr.To, tr.Finding.Severity))
	}
	newEngine := func() *detectors.Engine {
		env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Batch: true}
		eng, err := detectors.NewEngine([]detectors.Registration{s.Registration()}, env)
		if err != nil {
			t.Fatal(err)
		}
		eng.Subscribe(sub)
		return eng
	}
	eng := newEngine()
	for i := range in[:cut] {
		eng.Observe(&in[i])
	}
	snap, err := eng.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	eng = newEngine()
	if fresh, err := eng.Restore(snap); err != nil || len(fresh) > 0 {
		t.Fatalf("restore: %v %v", fresh, err)
	}
	for i := range in[cut:] {
		eng.Observe(&in[cut+i])
	}
	eng.AdvanceTicks(t0.Add(end))
	eng.Finish(t0.Add(end))
	return trs
}

// A declared group that did not match is "" in attrs, so that an
// expression reading it needs no guard.
func TestUnmatchedOptionalGroupIsEmpty(t *testing.T) {
	f, err := Parse("sig.yaml", []byte(strings.Replace(base, `'^Marking volume (?P<volume>\S+) as failed'`, `'^Marking volume (?P<volume>\S+) as failed(?P<why> because \S+)?'`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	f.Signals[0].Groups["why"] = "string"
	s, err := Compile("sig.yaml", f, KnownKinds())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalogue.New(append(catalogue.Default(), s.Entries()...)...)
	if err != nil {
		t.Fatal(err)
	}
	sigs := cat.Match(&parsers.Record{Time: t0, Host: "dn1", Message: "Marking volume /data1 as failed"})
	if len(sigs) != 1 {
		t.Fatalf("signals %v", sigs)
	}
	if v, ok := sigs[0].Attrs["why"]; !ok || v != "" || sigs[0].Attrs["volume"] != "/data1" {
		t.Errorf("attrs %v", sigs[0].Attrs)
	}
}

// The hash a reload compares changes with the match, not with the text
// around it.
func TestHashFollowsTheMatchOnly(t *testing.T) {
	h := mustCompile(t, base).Hash
	moved := strings.Replace(base, "title: A test signature\n", "title: Another title\ndescription2_is_not_a_key: x\n", 1)
	moved = strings.Replace(moved, "description2_is_not_a_key: x\n", "# a comment line\n", 1)
	if got := mustCompile(t, moved).Hash; got != h {
		t.Errorf("a new title and a line above changed the hash: %s → %s", h, got)
	}
	if got := mustCompile(t, strings.Replace(base, "max_open: 10", "max_open: 11", 1)).Hash; got == h {
		t.Error("a changed match kept the hash")
	}
}

const safeModeProm = `signature: v1
id: prom-test
problem: safe-mode
title: t
summary: "stuck on {{index .Entities.Hosts 0}}{{with fact . \"in_safe_mode\"}} (/prom: {{.}}){{end}}"
metrics: [safe_mode_metrics_scm_in_safe_mode]
match:
  by: e.host
  horizon: 2h
  max_open: 4
  steps:
    - name: started
      on: startup
      where: e.component == "scm"
      emit: {severity: warning, confidence: medium}
  corroborate:
    - name: prom
      on: metric_sample
      where: e.metric == "safe_mode_metrics_scm_in_safe_mode" && e.value == 1.0
      confidence: high
entities:
  hosts: [started.host]
facts:
  in_safe_mode: prom.value
`

// A corroboration confirms an instance of its key whether it comes before
// (an untimed snapshot, or a scrape within the horizon) or after it.
func TestCorroborationBeforeOrAfter(t *testing.T) {
	s := mustCompile(t, safeModeProm)
	scm := parsers.ComponentSCM
	sample := func(at time.Duration, host string, v float64) catalogue.Signal {
		x := sig(catalogue.MetricSample, at, host, scm)
		x.Metric, x.Value = "safe_mode_metrics_scm_in_safe_mode", v
		return x
	}
	untimed := sample(0, "scm1", 1)
	untimed.Time = time.Time{}
	start := sig(catalogue.StartupMsg, time.Hour, "scm1", scm)
	for _, tc := range []struct {
		name    string
		signals []catalogue.Signal
		conf    detectors.Confidence
		fact    string
	}{
		{"untimed snapshot first", []catalogue.Signal{untimed, start}, detectors.High, "1"},
		{"scrape after", []catalogue.Signal{start, sample(70*time.Minute, "scm1", 1)}, detectors.High, "1"},
		{"scrape within the horizon before", []catalogue.Signal{sample(0, "scm1", 1), start}, detectors.High, "1"},
		{"scrape older than the horizon", []catalogue.Signal{sample(-2*time.Hour, "scm1", 1), start}, detectors.Medium, ""},
		{"another host", []catalogue.Signal{start, sample(70*time.Minute, "scm2", 1)}, detectors.Medium, ""},
		{"value does not match", []catalogue.Signal{start, sample(70*time.Minute, "scm1", 0)}, detectors.Medium, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fs := run(t, s, tc.signals, 3*time.Hour)
			if len(fs) != 1 {
				t.Fatalf("findings %v", fs)
			}
			f := fs[0]
			if f.Confidence != tc.conf || f.Facts["in_safe_mode"] != tc.fact {
				t.Errorf("confidence %s fact %q, want %s %q", f.Confidence, f.Facts["in_safe_mode"], tc.conf, tc.fact)
			}
			if want := 1; tc.fact != "" {
				want = 2
				if len(f.Evidence) != want || !strings.Contains(f.Summary, "(/prom: 1)") {
					t.Errorf("evidence %d (want %d), summary %q", len(f.Evidence), want, f.Summary)
				}
			} else if len(f.Evidence) != want {
				t.Errorf("evidence %d, want %d", len(f.Evidence), want)
			}
		})
	}
}

// The state a signature keeps between incidents (the skew buffer, the
// corroborations seen) shrinks on the same ticks whether the engine calls
// Advance at every tick or only when a detector has something to do.
func TestKeptStateDoesNotDependOnTicks(t *testing.T) {
	text := strings.Replace(safeModeProm, "  horizon: 2h\n", "  horizon: 2h\n  skew: 5m\n", 1)
	text = strings.Replace(text, "      emit: {severity: warning, confidence: medium}\n",
		"    - name: stopped\n      on: shutdown\n      emit: {severity: warning, confidence: medium}\n", 1)
	s := mustCompile(t, text)
	scm := parsers.ComponentSCM
	scrape := sig(catalogue.MetricSample, 0, "scm1", scm)
	scrape.Metric, scrape.Value = "safe_mode_metrics_scm_in_safe_mode", 1
	signals := []catalogue.Signal{scrape, sig(catalogue.ShutdownMsg, time.Minute, "scm2", scm), sig(catalogue.StartupMsg, 5*time.Hour, "scm3", scm)}
	var states [2]string
	for i, every := range []bool{true, false} {
		env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Batch: true}
		eng, err := detectors.NewEngineWith([]detectors.Registration{s.Registration()}, env, detectors.EngineOptions{EveryTick: every})
		if err != nil {
			t.Fatal(err)
		}
		for j := range signals {
			eng.Observe(&signals[j])
		}
		eng.AdvanceTicks(t0.Add(5 * time.Hour))
		states[i] = fmt.Sprint(eng.State())
	}
	if states[0] != states[1] {
		t.Errorf("every tick: %s\nquiet ticks skipped: %s", states[0], states[1])
	}
	if !strings.Contains(states[0], "{recent 0 4096 0} {corroborations 0 4 0}") {
		t.Errorf("state %s: the buffers are not emptied", states[0])
	}
}
