package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/tail"
	"github.com/ozdoctor/ozdoctor/sinks/metrics"
)

// liveSource is a source the daemon follows: besides its records, it says
// where it stands, for a checkpoint, and what it has read, for /metrics.
type liveSource interface {
	analysis.Source
	positions() []parsers.Position
	stats() []metrics.Source
	inputs() []string // the report's coverage.inputs
	close()
}

// files is the daemon's source of followed log files: the tailer's chunks
// (parsers/tail) fed line by line to each file's stream, whose open record
// is taken as complete once the file has been quiet for idleFlush.
type files struct {
	tailer    *tail.Tailer
	globs     []string
	idleFlush time.Duration
	follows   map[string]*follow // by the tailer's stream
	sources   map[string]*metrics.Source
}

// follow is one followed file being recognised.
type follow struct {
	fl      *analysis.Followed
	last    time.Time // wall time of its last line
	flushed bool      // its open record was flushed since its last line
}

func newFiles(cfg Config, positions []parsers.Position) (*files, error) {
	t, err := tail.New(tail.Options{Globs: cfg.Logs, Poll: cfg.Poll, LookBack: cfg.LookBack, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	if positions != nil {
		if err := t.Restore(positions); err != nil {
			return nil, err
		}
	}
	return &files{tailer: t, globs: cfg.Logs, idleFlush: cfg.IdleFlush, follows: map[string]*follow{}, sources: map[string]*metrics.Source{}}, nil
}

// Poll reads what the files gained and recognises it at wall time now.
func (f *files) Poll(ctx context.Context, in *analysis.Input, now time.Time) (bool, error) {
	var errs []error
	for {
		chunks, err := f.tailer.Poll(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		for _, c := range chunks {
			f.consume(in, c, now)
		}
		if !f.tailer.More() || ctx.Err() != nil {
			break
		}
	}
	for _, fo := range f.follows {
		if !fo.flushed && now.Sub(fo.last) >= f.idleFlush {
			fo.fl.Flush(now)
			fo.flushed = true
		}
		if fo.flushed {
			fo.fl.CaughtUp(now)
		}
	}
	in.Release(now)
	return false, errors.Join(errs...)
}

// consume feeds one chunk of a followed file to its stream.
func (f *files) consume(in *analysis.Input, c tail.Chunk, now time.Time) {
	fo := f.follows[c.Stream]
	if fo == nil && len(c.Lines) > 0 {
		fo = &follow{fl: in.Follow(in.File(c.Path), c.Lines[0].Num, c.Lines[0].Offset)}
		f.follows[c.Stream] = fo
	}
	if fo == nil {
		return
	}
	src := f.sources[c.Path]
	if src == nil {
		src = &metrics.Source{Name: c.Path}
		f.sources[c.Path] = src
	}
	for _, l := range c.Lines {
		fo.fl.FeedLine(l.Text, l.Num, l.Offset)
		src.Records++
		src.Bytes += int64(len(l.Text)) + 1
	}
	if len(c.Lines) > 0 {
		fo.last, fo.flushed = now, false
	}
	if c.End {
		src.ParseErrors += fo.fl.End(now).Stats.Unparsed
		delete(f.follows, c.Stream)
		return
	}
	fo.fl.Drain(now)
}

// positions are the tailer's, but for a file whose last record is still
// open: the position of its first line, so that a restart reads it again
// whole.
func (f *files) positions() []parsers.Position {
	positions := f.tailer.Positions()
	for i, p := range positions {
		if fo := f.follows[p.Stream]; fo != nil {
			if line, off, ok := fo.fl.OpenPosition(); ok {
				positions[i].Line, positions[i].Offset = line-1, off
			}
		}
	}
	return positions
}

func (f *files) stats() []metrics.Source {
	out := make([]metrics.Source, 0, len(f.sources))
	for _, s := range f.sources {
		out = append(out, *s)
	}
	return out
}

func (f *files) inputs() []string { return f.globs }

func (f *files) close() { f.tailer.Close() }
