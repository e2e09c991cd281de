package detectors

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/site"
	"github.com/ozdoctor/ozdoctor/store/snapshot"
)

// engineCore is the engine's own state in a checkpoint.
type engineCore struct {
	alerts   map[string]*alert
	now      time.Time
	swept    time.Time
	stats    EngineStats
	identity *Identity
	settings *site.Config
	all      *Collector
}

// engineCheckpoint is an engine snapshot: its core and each detector's
// state, by detector name, each versioned by the shape of its types.
type engineCheckpoint struct {
	Core      json.RawMessage            `json:"core"`
	Detectors map[string]json.RawMessage `json:"detectors"`
}

// Snapshot returns the engine's state as versioned bytes: its clock, its
// alerts, what it learned from the stream (identities, settings) and every
// detector's state.
func (e *Engine) Snapshot() ([]byte, error) {
	core, err := snapshot.Marshal(&engineCore{alerts: e.alerts, now: e.now, swept: e.swept, stats: e.stats,
		identity: e.env.Identity, settings: e.env.Settings, all: e.all})
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	cp := engineCheckpoint{Core: core, Detectors: map[string]json.RawMessage{}}
	for _, r := range e.running {
		b, err := snapshot.Marshal(r.det)
		if err != nil {
			return nil, fmt.Errorf("detector %s: %w", r.doc.Name, err)
		}
		cp.Detectors[r.doc.Name] = b
	}
	return json.Marshal(cp)
}

// Restore loads a snapshot into an engine freshly built with the same
// detectors and options. A detector whose state's types changed since the
// snapshot was written (or that the snapshot lacks) starts empty; their
// names are returned so the caller can say so.
func (e *Engine) Restore(data []byte) (fresh []string, err error) {
	var cp engineCheckpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, fmt.Errorf("engine checkpoint: %w", err)
	}
	core := engineCore{}
	if err := snapshot.Unmarshal(cp.Core, &core); err != nil {
		return nil, fmt.Errorf("engine checkpoint: %w", err)
	}
	for _, r := range e.running {
		raw, ok := cp.Detectors[r.doc.Name]
		if !ok {
			fresh = append(fresh, r.doc.Name)
			continue
		}
		if err := snapshot.Unmarshal(raw, r.det); err != nil {
			if errors.Is(err, snapshot.ErrShape) {
				fresh = append(fresh, r.doc.Name)
				continue
			}
			return nil, fmt.Errorf("detector %s: %w", r.doc.Name, err)
		}
	}
	e.sched.wakeAll() // their state is the checkpoint's now: Quiet is asked again
	e.alerts, e.now, e.swept, e.stats = core.alerts, core.now, core.swept, core.stats
	if e.alerts == nil {
		e.alerts = map[string]*alert{}
	}
	*e.env.Identity, *e.env.Settings = *core.identity, *core.settings
	if e.all != nil && core.all != nil {
		*e.all = *core.all
	}
	return fresh, nil
}
