package detectors

import (
	"fmt"
	"sort"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Engine runs detectors over a time-ordered signal stream and keeps the
// latest version of every finding.
type Engine struct {
	env      *Env
	running  []running
	byKind   map[catalogue.Kind][]int
	findings map[string]Finding // detector + "\x00" + key
	order    []string
	now      time.Time
}

type running struct {
	doc Doc
	det Detector
}

// NewEngine builds the detectors of regs with env.
func NewEngine(regs []Registration, env *Env) (*Engine, error) {
	e := &Engine{env: env, byKind: map[catalogue.Kind][]int{}, findings: map[string]Finding{}}
	for _, r := range regs {
		d, err := r.New(env)
		if err != nil {
			return nil, fmt.Errorf("detector %s: %w", r.Doc.Name, err)
		}
		i := len(e.running)
		e.running = append(e.running, running{doc: r.Doc, det: d})
		for _, k := range r.Doc.Kinds {
			e.byKind[k] = append(e.byKind[k], i)
		}
	}
	return e, nil
}

// Kinds returns every signal kind some detector consumes.
func (e *Engine) Kinds() map[catalogue.Kind]bool {
	m := make(map[catalogue.Kind]bool, len(e.byKind))
	for k := range e.byKind {
		m[k] = true
	}
	return m
}

// Observe dispatches one signal. Signals must come in event-time order,
// untimed ones first; a signal older than the engine's clock is dispatched
// at the clock's time (it arrived late).
func (e *Engine) Observe(s *catalogue.Signal) {
	e.env.Identity.Learn(s)
	if !s.Time.IsZero() {
		e.Advance(s.Time)
	}
	for _, i := range e.byKind[s.Kind] {
		e.running[i].det.Observe(s, e.emitter(i))
	}
}

// Advance moves the engine's clock to t.
func (e *Engine) Advance(t time.Time) {
	if !t.After(e.now) {
		return
	}
	e.now = t
	for i := range e.running {
		e.running[i].det.Advance(t, e.emitter(i))
	}
}

// Flush ends the input at end and returns every finding, ordered by start.
func (e *Engine) Flush(end time.Time) []Finding {
	for i := range e.running {
		e.running[i].det.Flush(end, e.emitter(i))
	}
	out := make([]Finding, 0, len(e.order))
	for _, k := range e.order {
		out = append(out, e.Remediated(e.findings[k]))
	}
	sort.SliceStable(out, func(a, b int) bool {
		if !out[a].Start.Equal(out[b].Start) {
			return out[a].Start.Before(out[b].Start)
		}
		return out[a].Detector < out[b].Detector
	})
	return out
}

// Remediated returns f with its remediation steps filled in from its
// detector's doc (done once per reported finding, not at every update).
func (e *Engine) Remediated(f Finding) Finding {
	for _, r := range e.running {
		if r.doc.Name != f.Detector {
			continue
		}
		if steps, err := r.doc.Remediate(&f); err == nil {
			f.Remediation = steps
		} else {
			f.Remediation = []string{err.Error()}
		}
	}
	return f
}

func (e *Engine) emitter(i int) Emit {
	doc := e.running[i].doc
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
		k := f.Detector + "\x00" + f.Key
		if _, ok := e.findings[k]; !ok {
			e.order = append(e.order, k)
		}
		e.findings[k] = f
	}
}
