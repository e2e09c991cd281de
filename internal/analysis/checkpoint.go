package analysis

import (
	"encoding/json"
	"fmt"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/report"
	"github.com/ozdoctor/ozdoctor/store/snapshot"
)

// CheckpointFormat is the version of a pipeline checkpoint.
const CheckpointFormat = 1

// checkpoint is a pipeline's state: the engine (alerts, identities,
// settings, detectors), the merger (watermarks, queued signals, clock
// offsets), the report's findings and coverage so far, and where each
// stream's source stood.
type checkpoint struct {
	Format    int                `json:"format"`
	Engine    json.RawMessage    `json:"engine"`
	Merger    json.RawMessage    `json:"merger"`
	Collector json.RawMessage    `json:"collector"`
	Coverage  report.Coverage    `json:"coverage"`
	Bytes     int64              `json:"bytes"`
	Positions []parsers.Position `json:"positions,omitempty"`
}

// Checkpoint returns the pipeline's state as bytes, with the sources'
// positions, so that RestorePipeline continues as if the process had never
// stopped.
func (p *Pipeline) Checkpoint(positions []parsers.Position) ([]byte, error) {
	cp := checkpoint{Format: CheckpointFormat, Coverage: p.cov, Bytes: p.bytes.Load(), Positions: positions}
	var err error
	if cp.Engine, err = p.engine.Snapshot(); err != nil {
		return nil, err
	}
	if cp.Merger, err = p.merger.Snapshot(); err != nil {
		return nil, fmt.Errorf("merger: %w", err)
	}
	if cp.Collector, err = snapshot.Marshal(&p.collector); err != nil {
		return nil, fmt.Errorf("findings: %w", err)
	}
	return json.Marshal(cp)
}

// RestorePipeline builds a pipeline for opt from a checkpoint. It returns
// the sources' positions and the detectors whose state could not be
// restored (their state's types changed): they start empty.
func RestorePipeline(opt Options, data []byte) (*Pipeline, []parsers.Position, []string, error) {
	var cp checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, nil, nil, fmt.Errorf("checkpoint: %w", err)
	}
	if cp.Format != CheckpointFormat {
		return nil, nil, nil, fmt.Errorf("checkpoint format %d, want %d", cp.Format, CheckpointFormat)
	}
	p, err := NewPipeline(opt)
	if err != nil {
		return nil, nil, nil, err
	}
	fresh, err := p.engine.Restore(cp.Engine)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := p.merger.Restore(cp.Merger); err != nil {
		return nil, nil, nil, fmt.Errorf("merger checkpoint: %w", err)
	}
	if err := snapshot.Unmarshal(cp.Collector, &p.collector); err != nil {
		return nil, nil, nil, fmt.Errorf("findings checkpoint: %w", err)
	}
	p.cov = cp.Coverage
	p.bytes.Store(cp.Bytes)
	return p, cp.Positions, fresh, nil
}
