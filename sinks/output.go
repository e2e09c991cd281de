package sinks

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// Output takes the alerts' transitions as they happen: the sidecar's one
// seam for what consumes them, in the manner of Prometheus' notifier.
// Alertmanager, Elasticsearch, /metrics and JSON lines are outputs; the
// daemon hands each transition to every one in order, and ticks them.
type Output interface {
	// Observe takes one transition; it must not block on the network.
	Observe(t detectors.Transition)
	// Tick delivers what the output holds (queued alerts, batches) at wall
	// time now, until ctx ends; an output that holds nothing does nothing.
	Tick(ctx context.Context, now time.Time)
}

// TransitionLines writes every transition that is not a mere update as one
// JSON line to W: the sidecar's stdout, for log shippers.
type TransitionLines struct{ W io.Writer }

// transitionLine is one line of TransitionLines.
type transitionLine struct {
	At          time.Time         `json:"at"`
	Fingerprint string            `json:"fingerprint"`
	From        detectors.State   `json:"from,omitempty"`
	To          detectors.State   `json:"to"`
	Escalated   bool              `json:"escalated,omitempty"`
	Finding     detectors.Finding `json:"finding"`
}

// Observe implements Output.
func (l TransitionLines) Observe(t detectors.Transition) {
	if t.Update() {
		return
	}
	line, _ := json.Marshal(transitionLine{t.At, t.Fingerprint, t.From, t.To, t.Escalated, t.Finding})
	l.W.Write(append(line, '\n'))
}

// Tick implements Output: the lines are written as they come.
func (TransitionLines) Tick(context.Context, time.Time) {}
