package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/es"
	"github.com/ozdoctor/ozdoctor/sinks/metrics"
)

// ESConfig makes the daemon read one cluster's logs from Elasticsearch
// instead of files. Each poll reads the window [cursor, now - Settle): the
// documents the pushed-down query selects and the silences that end in it.
// The windows partition event time, so no document is read twice; a
// document that reaches Elasticsearch more than Settle after its event time
// falls into a window already read and is missed (counted by no one: choose
// Settle above the shippers' delivery delay).
type ESConfig struct {
	Source es.Config
	// Poll is how often a window is read; default 10s.
	Poll time.Duration
	// Settle is how far behind the wall clock a window ends; default 1m.
	Settle time.Duration
	// LookBack is how far back the first start reads; default 1h.
	LookBack time.Duration
	// Horizon is how far back a silence that ends in a window may start;
	// default 1h.
	Horizon time.Duration
}

func (c *ESConfig) defaults() {
	if c.Poll <= 0 {
		c.Poll = 10 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = time.Minute
	}
	if c.LookBack <= 0 {
		c.LookBack = time.Hour
	}
	if c.Horizon <= 0 {
		c.Horizon = time.Hour
	}
}

// esFollow is the Elasticsearch source of a daemon: a window of documents
// a settling delay behind the wall clock at every poll.
type esFollow struct {
	cfg    ESConfig
	src    *es.Source
	feed   *analysis.DocumentFeed
	cursor time.Time      // event time up to which every document was read
	polled time.Time      // wall time of the last poll
	read   metrics.Source // what it has read, for /metrics
}

// esStream names the source's position in a checkpoint: Offset holds the
// cursor in Unix milliseconds.
func (e *esFollow) esStream() string { return "elasticsearch " + e.src.Name() }

func newESFollow(cfg ESConfig, positions []parsers.Position) (*esFollow, error) {
	cfg.defaults()
	src, err := es.New(cfg.Source)
	if err != nil {
		return nil, err
	}
	e := &esFollow{cfg: cfg, src: src}
	e.read.Name = e.esStream()
	for _, p := range positions {
		if p.Stream == e.esStream() {
			e.cursor = time.UnixMilli(p.Offset).UTC()
		}
	}
	return e, nil
}

// positions hold the cursor.
func (e *esFollow) positions() []parsers.Position {
	return []parsers.Position{{Stream: e.esStream(), Offset: e.cursor.UnixMilli()}}
}

func (e *esFollow) stats() []metrics.Source { return []metrics.Source{e.read} }

func (e *esFollow) inputs() []string { return []string{e.esStream()} }

func (e *esFollow) close() {}

// Poll reads the next window when it is due, feeds it and releases what
// it completes; the cursor moves only when the whole window was read.
func (e *esFollow) Poll(ctx context.Context, in *analysis.Input, now time.Time) (bool, error) {
	if e.feed == nil {
		e.feed = in.Documents()
	}
	if now.Sub(e.polled) < e.cfg.Poll {
		return false, nil
	}
	e.polled = now
	until := now.Add(-e.cfg.Settle).Truncate(time.Millisecond)
	from := e.cursor
	if from.IsZero() {
		from = until.Add(-e.cfg.LookBack)
	}
	if !until.After(from) {
		return false, nil
	}
	silences, err := e.src.Between(from.Add(-e.cfg.Horizon), until).Silences(ctx, analysis.SilencesMatter)
	if err != nil {
		return false, e.failed(err)
	}
	var docs []parsers.Document // a window's signals: read whole before any is fed
	if err := e.src.Between(from, until).Documents(ctx, in.Literals(), func(d parsers.Document) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		return false, e.failed(err)
	}
	var fresh []parsers.Silence
	for _, s := range silences {
		if !s.To.Before(from) { // the earlier ones came with earlier windows
			fresh = append(fresh, s)
		}
	}
	e.feed.Silences(fresh)
	for _, d := range docs {
		e.feed.Document(d, until)
		e.read.Records++
		e.read.Bytes += int64(len(d.Message))
	}
	e.feed.Flush(until)
	in.Release(until)
	e.cursor = until
	e.read.Lag = now.Sub(until)
	return false, nil
}

func (e *esFollow) failed(err error) error {
	return fmt.Errorf("elasticsearch poll (the window is read again next time): %w", err)
}
