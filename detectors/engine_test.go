package detectors

import (
	"testing"
	"time"

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

func (c *counter) Flush(time.Time, Emit) {}

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
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		e.Observe(&catalogue.Signal{Kind: "k", Peer: "a", Host: "h1", Time: t0.Add(time.Duration(i) * time.Second)})
	}
	e.Observe(&catalogue.Signal{Kind: "other", Peer: "b", Time: t0.Add(5 * time.Second)})
	e.Observe(&catalogue.Signal{Kind: "k", Peer: "c", Host: "h2", Time: t0.Add(10 * time.Minute)})
	fs := e.Flush(t0.Add(time.Hour))
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
	if fs[1].Key != "c" || fs[1].State != Firing {
		t.Errorf("finding c: %+v", fs[1])
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
