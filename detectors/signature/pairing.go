package signature

import (
	"slices"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/interpreter"
	"go.yaml.in/yaml/v3"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// maxPairWindow bounds a followed_by window: a pair is two messages of one
// operation (one call, one thread), not a sequence, which steps say.
const maxPairWindow = time.Minute

// FollowedBy makes a step (or an alternative) take a signal only once a
// second signal follows it within a short window: the two messages one
// operation logs, such as an ERROR and the caller's ERROR after it. The
// step binds the first signal; the second joins the evidence.
type FollowedBy struct {
	On     Kinds `yaml:"on"`
	Where  Expr  `yaml:"where"`  // over e (the follower), first (the signal that waits), params, windows
	Within Expr  `yaml:"within"` // a constant duration, at most maxPairWindow
	Pos    Pos   `yaml:"-"`
}

// UnmarshalYAML decodes a followed_by and keeps its place.
func (f *FollowedBy) UnmarshalYAML(n *yaml.Node) error {
	type plain FollowedBy
	if err := n.Decode((*plain)(f)); err != nil {
		return err
	}
	f.Pos = Pos{n.Line, n.Column}
	return nil
}

// follow is a compiled followed_by.
type follow struct {
	kinds  []catalogue.Kind
	where  *predicate // nil: every follower of the kinds
	within time.Duration
}

// held is a signal waiting for its follower.
type held struct {
	Event    Event
	Evidence detectors.Evidence
}

// compileFollow compiles an alternative's followed_by; what names the
// alternative in errors.
func (c *compiler) compileFollow(f *FollowedBy, what string) *follow {
	if f == nil {
		return nil
	}
	out := &follow{}
	what += " followed_by"
	if len(f.On) == 0 {
		c.errorf(f.Pos, "%s: missing on (the signal kinds that complete the pair)", what)
	}
	for _, k := range f.On {
		if !c.kinds[catalogue.Kind(k)] {
			c.errorf(f.Pos, "%s: unknown signal kind %q (see `ozdoctor catalogue`, or add it under signals:)", what, k)
		}
		out.kinds = append(out.kinds, catalogue.Kind(k))
	}
	d, ok := literalDuration(f.Within.Src)
	switch {
	case !f.Within.Set():
		c.errorf(f.Pos, "%s: missing within (how long the first signal waits for its follower)", what)
	case !ok || d <= 0 || d > maxPairWindow:
		c.errorf(f.Within.Pos, "%s: within %q: want a constant duration above 0 and at most %s", what, f.Within.Src, Human(maxPairWindow))
	default:
		out.within = d
	}
	if f.Where.Set() {
		env, err := c.env(nil, true).Extend(cel.Variable("first", eventType))
		if err != nil {
			c.errorf(f.Pos, "%s: %v", what, err)
			return out
		}
		out.where = c.predicate(env, f.Where, what+" where")
	}
	return out
}

// followKinds returns the kinds that complete a pair of any step.
func (s *Signature) followKinds() []catalogue.Kind {
	var out []catalogue.Kind
	for _, st := range s.match.steps {
		for _, a := range st.alts {
			if a.follow != nil {
				out = appendKinds(out, a.follow.kinds)
			}
		}
	}
	return out
}

// waits reports whether a step takes signals of kind k only once followed.
func (d *detector) waits(k catalogue.Kind) (time.Duration, bool) {
	var w time.Duration
	for _, st := range d.sig.match.steps {
		for _, a := range st.alts {
			if a.follow != nil && slices.Contains(a.kinds, k) {
				w = max(w, a.follow.within)
			}
		}
	}
	return w, w > 0
}

// release offers e as a follower to the held signals: each it completes
// leaves the queue and is observed as a pair (the first signal, with both
// lines as its evidence). It appends the pairs to out, oldest first.
func (d *detector) release(e *Event, ev detectors.Evidence, out []held) []held {
	if len(d.Held) == 0 || !d.follows(e) {
		return out
	}
	kept := d.Held[:0]
	for i := range d.Held { // by index: a held signal is large
		if h := &d.Held[i]; d.completes(h, e) {
			out = append(out, *h)
		} else {
			kept = append(kept, *h)
		}
	}
	clear(d.Held[len(kept):])
	d.Held = kept
	return out
}

// follows reports whether e is of a kind some step's followed_by names.
func (d *detector) follows(e *Event) bool {
	for _, st := range d.sig.match.steps {
		for _, a := range st.alts {
			if a.follow != nil && slices.Contains(a.follow.kinds, catalogue.Kind(e.Kind)) {
				return true
			}
		}
	}
	return false
}

// completes reports whether e is the follower that h waits for.
func (d *detector) completes(h *held, e *Event) bool {
	if e.Time.Before(h.Event.Time) {
		return false
	}
	for _, st := range d.sig.match.steps {
		for _, a := range st.alts {
			f := a.follow
			if f == nil || !slices.Contains(a.kinds, catalogue.Kind(h.Event.Kind)) ||
				!slices.Contains(f.kinds, catalogue.Kind(e.Kind)) || e.Time.Sub(h.Event.Time) > f.within {
				continue
			}
			if f.where != nil {
				if !f.where.holds(e, &h.Event, d.vars, func() interpreter.Activation { return &eventVars{vars: d.varsAct, e: e, first: &h.Event} }) {
					continue
				}
			}
			return true
		}
	}
	return false
}

// hold keeps e until a follower completes it or its window passes.
func (d *detector) hold(e *Event, ev detectors.Evidence) {
	d.Held = append(d.Held, held{Event: owned(e), Evidence: ev})
	if len(d.Held) > maxRecent {
		d.Held = slices.Delete(d.Held, 0, len(d.Held)-maxRecent)
	}
}

// expireHeld forgets the held signals whose window passed at now.
func (d *detector) expireHeld(now time.Time) {
	d.Held = slices.DeleteFunc(d.Held, func(h held) bool {
		w, _ := d.waits(catalogue.Kind(h.Event.Kind))
		return now.Sub(h.Event.Time) > w
	})
}

// heldDeadline is the earliest time a held signal's window passes.
func (d *detector) heldDeadline(q time.Time) time.Time {
	for _, h := range d.Held {
		w, _ := d.waits(catalogue.Kind(h.Event.Kind))
		q = detectors.Earliest(q, h.Event.Time.Add(w+time.Nanosecond))
	}
	return q
}
