package signature

import (
	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/interpreter"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// compilePer compiles a count step's per: the minimum is met once the
// signals of one value of per reach it (one SCM logging the pair on min
// heartbeats, say), and the Burst counts the signals of each value.
func (c *compiler) compilePer(cs *count, st Step, env *cel.Env) {
	if !st.Count.Per.Set() {
		return
	}
	if st.Count.Distinct.Set() {
		c.errorf(st.Count.Per.Pos, "step %s: count.per and count.distinct exclude each other", st.Name)
		return
	}
	cs.per = c.program(env, st.Count.Per, cel.StringType, "step "+st.Name+" count.per")
}

// perValue is e's value of the step's per expression ("" without one).
func (d *detector) perValue(st step, act interpreter.Activation) string {
	if st.count.per == nil {
		return ""
	}
	out, _, err := st.count.per.Eval(act)
	if err != nil {
		return ""
	}
	v, _ := out.Value().(string)
	return v
}

// perCounts counts the window's signals by their per value.
func perCounts(cs []counted) map[string]int {
	out := map[string]int{}
	for _, c := range cs {
		if _, ok := out[c.Per]; ok || len(out) < maxValues {
			out[c.Per]++
		}
	}
	return out
}

func perMet(per map[string]int, min int64) bool {
	for _, n := range per {
		if int64(n) >= min {
			return true
		}
	}
	return false
}

// recountPer adds a signal to a met count step's per counts.
func (d *detector) recountPer(b *Burst, st step, in *instance, e *Event) {
	if st.count.per == nil {
		return
	}
	v := d.perValue(st, d.activation(in, e))
	if b.Per == nil {
		b.Per = map[string]int{}
	}
	if _, ok := b.Per[v]; ok || len(b.Per) < maxValues {
		b.Per[v]++
	}
}

// regrade re-evaluates the emits of met step i, a count step whose burst
// grew, and of the met steps after it, which may read it: a severity or
// confidence the grown burst gives raises the finding's (it never lowers
// it: the burst only grows), an escalation of the same finding.
func (d *detector) regrade(in *instance, i int) {
	if !in.Emitted {
		return
	}
	var act interpreter.Activation
	for _, st := range d.sig.match.steps[i:min(in.Step, len(d.sig.match.steps))] {
		if st.emit == nil || st.emit.severity.prg == nil && (st.emit.confidence.prg == nil || in.Confidence == detectors.High) {
			continue // nothing left to raise: spare the expressions on every signal
		}
		if act == nil {
			act = d.emitActivation(in)
		}
		if sev := d.value(st.emit.severity, act); sev != "" {
			if v, err := detectors.ParseSeverity(sev); err == nil && v > in.Severity {
				in.Severity = v
			}
		}
		if conf := detectors.Confidence(d.value(st.emit.confidence, act)); rank(conf) > rank(in.Confidence) {
			in.Confidence = conf
		}
	}
}

// withCorroborations declares the corroborations for emit expressions.
func (c *compiler) withCorroborations(env *cel.Env) *cel.Env {
	var opts []cel.EnvOption
	for _, co := range c.file.Match.Corroborate {
		if stepNameRe.MatchString(co.Name) {
			opts = append(opts, cel.Variable(co.Name, eventType))
		}
	}
	if len(opts) == 0 {
		return env
	}
	out, err := env.Extend(opts...)
	if err != nil {
		return env // the names are checked where the corroborations compile
	}
	return out
}

// emitActivation is what emit expressions see: the activation, with each
// corroboration not taken yet as an empty signal (kind == "").
func (d *detector) emitActivation(in *instance) interpreter.Activation {
	return &incidentVars{d: d, in: in, zeros: true}
}
