package signature

import (
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"
)

// A match's key expression names its findings' keys itself, instead of
// the join key and the incident's start: a string over the bound steps
// (not e), e.g. to keep the key of the detector a signature replaces.
// An expression that fails (a step it reads is not bound yet) or gives
// "" leaves the default key.

// compileKey compiles match.key over every step.
func (c *compiler) compileKey(s *Signature) {
	if !c.file.Match.Key.Set() {
		return
	}
	s.match.key = c.program(c.env(s.match.steps, false), c.file.Match.Key, cel.StringType, "match.key")
}

// findingKey returns the key match.key gives (or "").
func (d *detector) findingKey(act interpreter.Activation) string {
	if d.sig.match.key == nil {
		return ""
	}
	out, _, err := d.sig.match.key.Eval(act)
	if err != nil {
		return ""
	}
	k, _ := out.Value().(string)
	return k
}

// millisFn is millis(timestamp): the time in UTC as RFC 3339 with
// milliseconds, always three digits ("2026-08-23T10:47:28.684Z"); and
// millis(duration): the duration to the millisecond as Go prints it
// ("7m30.681s", where human gives "7m31s").
var millisFn = cel.Function("millis",
	cel.Overload("millis_timestamp", []*cel.Type{cel.TimestampType}, cel.StringType,
		cel.UnaryBinding(func(v ref.Val) ref.Val {
			return types.String(v.Value().(time.Time).UTC().Format("2006-01-02T15:04:05.000Z"))
		})),
	cel.Overload("millis_duration", []*cel.Type{cel.DurationType}, cel.StringType,
		cel.UnaryBinding(func(v ref.Val) ref.Val {
			return types.String(v.Value().(time.Duration).Round(time.Millisecond).String())
		})))
