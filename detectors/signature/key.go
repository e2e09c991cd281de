package signature

import (
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

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
