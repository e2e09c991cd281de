package detectors

import (
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// seenV1 and seenV2 are two versions of one detector whose state changed.
type seenV1 struct {
	env  *Env `state:"-"`
	seen map[string]int
}

func (d *seenV1) Observe(s *catalogue.Signal, emit Emit) {
	d.seen[s.Peer]++
	emit(Finding{Key: s.Peer, Severity: Warning, Start: s.Time})
}
func (d *seenV1) Advance(time.Time, Emit)       {}
func (d *seenV1) Quiet(now time.Time) time.Time { return now.Add(NoDeadline) }
func (d *seenV1) End(time.Time, Emit)           {}
func (d *seenV1) StateStats() []StateStat       { return nil }

type seenV2 struct {
	seenV1
	last map[string]time.Time
}

func TestEngineCheckpointRoundTripAndChangedState(t *testing.T) {
	reg := func(v2 bool) Registration {
		return Registration{Doc: Doc{Name: "toy", Kinds: []catalogue.Kind{"k"}}, New: func(env *Env) (Detector, error) {
			if v2 {
				return &seenV2{seenV1: seenV1{env: env, seen: map[string]int{}}, last: map[string]time.Time{}}, nil
			}
			return &seenV1{env: env, seen: map[string]int{}}, nil
		}}
	}
	newEngine := func(v2 bool) *Engine {
		e, err := NewEngineWith([]Registration{reg(v2)}, &Env{Settings: site.New(), Identity: NewIdentity()}, EngineOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := newEngine(false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "a", Time: t0, Datanode: catalogue.Datanode{UUID: "u1", Host: "dn1"}})
	e.env.Settings.Set("hdds.heartbeat.interval", "10s", "test")
	data, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	back := newEngine(false)
	fresh, err := back.Restore(data)
	if err != nil || len(fresh) != 0 {
		t.Fatalf("restore: %v %v", fresh, err)
	}
	if back.Now() != e.Now() || back.env.Identity.DatanodeHost("u1") != "dn1" || back.running[0].det.(*seenV1).seen["a"] != 1 {
		t.Errorf("restored engine lost state: now %v", back.Now())
	}
	if v, src, _ := back.env.Settings.Get("hdds.heartbeat.interval"); v != "10s" || src != "test" {
		t.Errorf("settings: %s %s", v, src)
	}
	// The alert is known: the same finding again is an update, not a new alert.
	var to []State
	back.Subscribe(func(tr Transition) { to = append(to, tr.From) })
	back.Observe(&catalogue.Signal{Kind: "k", Peer: "a", Time: t0.Add(time.Second)})
	if !slices.Equal(to, []State{Firing}) {
		t.Errorf("after restore the alert was not known: from %v", to)
	}

	// A binary whose detector state changed starts that detector empty
	// and says so, and keeps the rest.
	v2 := newEngine(true)
	fresh, err = v2.Restore(data)
	if err != nil || !slices.Equal(fresh, []string{"toy"}) {
		t.Fatalf("changed state: fresh %v, err %v", fresh, err)
	}
	if len(v2.Alerts()) != 1 || v2.env.Identity.DatanodeHost("u1") != "dn1" {
		t.Error("engine state lost with the detector's")
	}
}
