package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/stream"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/report"
)

// Recording is what the Recognizer made of a bundle, stream by stream, in
// the order it was read, with the bundle's coverage. Replaying it through
// the live path (a Merger with a wall clock, streams delivered in chunks)
// must give what a batch run gives: the test of that promise, and a way to
// drive the live path from a bundle.
type Recording struct {
	Streams  []RecordedStream
	coverage report.Coverage
	rank     int // of the streams opened next (Pipeline.rank)
}

// RecordedStream is one stream's events in the order the Recognizer pushed them.
type RecordedStream struct {
	Host      string
	Component parsers.Component
	Events    []RecordedEvent
	rank      int // its file's place in name order
}

// RecordedEvent is a signal, or a relabelling of the stream when Relabel is set.
type RecordedEvent struct {
	Signal    catalogue.Signal
	Relabel   bool
	Host      string
	Component parsers.Component
}

// Open implements stream.Streams.
func (r *Recording) Open(host string, comp parsers.Component, _ time.Time) stream.ID {
	r.Streams = append(r.Streams, RecordedStream{Host: host, Component: comp, rank: r.rank})
	return stream.ID(len(r.Streams) - 1)
}

// Relabel implements stream.Streams.
func (r *Recording) Relabel(id stream.ID, host string, comp parsers.Component) {
	st := &r.Streams[id]
	st.Events = append(st.Events, RecordedEvent{Relabel: true, Host: host, Component: comp})
}

// Push implements stream.Streams.
func (r *Recording) Push(id stream.ID, s catalogue.Signal, _ time.Time) {
	st := &r.Streams[id]
	st.Events = append(st.Events, RecordedEvent{Signal: s})
}

// Progress implements stream.Streams: a replay's watermarks come from its
// signals alone.
func (r *Recording) Progress(stream.ID, time.Time, time.Time) {}

// Close implements stream.Streams.
func (r *Recording) Close(stream.ID) {}

// Record reads the inputs of opt into a Recording.
func Record(ctx context.Context, opt Options) (*Recording, error) {
	p, err := NewPipeline(opt)
	if err != nil {
		return nil, err
	}
	rec := &Recording{}
	p.target = rec
	walk := &bundleSource{p: p}
	problems, err := bundle.Walk(ctx, opt.Inputs, walk.options(), walk.file)
	if err != nil {
		return nil, err
	}
	p.cov.Skipped = append(p.cov.Skipped, problems...)
	rec.coverage = p.cov
	// Files on disk were read in the order of their times; a replay opens
	// their streams in name order, the order that breaks ties in a batch run.
	slices.SortStableFunc(rec.Streams, func(a, b RecordedStream) int { return cmp.Compare(a.rank, b.rank) })
	return rec, nil
}

// ReplayPlan says how a Recording is delivered live.
type ReplayPlan struct {
	Seed int64
	// Step is the simulated wall clock's step; MaxDelay bounds how far
	// behind the clock a stream delivers its records, and MaxEvery how
	// many steps a stream may wait between chunks. MaxDelay + MaxEvery ×
	// Step must stay below the pipeline's Lateness for the order to hold.
	Step, MaxDelay time.Duration
	MaxEvery       int
	// Restarts lists steps after which the pipeline is checkpointed and
	// replaced by a new one restored from the checkpoint.
	Restarts []int
}

// ReplayStats describe a replay.
type ReplayStats struct {
	Steps       int
	LongestIdle time.Duration // longest stretch of wall time a stream delivered nothing while it had more to come
	IdleStream  string        // its host
	Restarts    int           // checkpoints restored into a new pipeline
	// CheckpointBytes is the largest checkpoint written.
	CheckpointBytes int
}

// Replay feeds the recording through a live pipeline: every stream opens at
// the start of a simulated wall clock, delivers its records in chunks a
// random delay behind the clock (untimed ones at once), and the pipeline
// releases what is due at every step. opt must equal the options the
// recording was made with, but for Subscribe.
func (r *Recording) Replay(opt Options, plan ReplayPlan) (*report.Result, ReplayStats, error) {
	p, err := NewPipeline(opt)
	if err != nil {
		return nil, ReplayStats{}, err
	}
	p.cov = r.coverage
	p, stats, err := r.replayInto(p, opt, plan)
	if err != nil {
		return nil, stats, err
	}
	return p.Finish(), stats, nil
}

// replayInto feeds the recording through p (see Replay) and returns the
// pipeline in use at the end: a restart replaces it.
func (r *Recording) replayInto(p *Pipeline, opt Options, plan ReplayPlan) (*Pipeline, ReplayStats, error) {
	src := &replay{r: r, plan: plan, rng: rand.New(rand.NewSource(plan.Seed))}
	wall := r.start().Add(-time.Minute)
	for ; ; wall = wall.Add(plan.Step) {
		ended, err := p.Step(context.Background(), src, wall)
		if err != nil {
			return p, src.stats, err
		}
		if slices.Contains(plan.Restarts, src.stats.Steps) {
			data, err := p.Checkpoint(nil)
			if err != nil {
				return p, src.stats, fmt.Errorf("step %d: %w", src.stats.Steps, err)
			}
			var fresh []string
			if p, _, fresh, err = RestorePipeline(opt, data); err != nil {
				return p, src.stats, fmt.Errorf("step %d: %w", src.stats.Steps, err)
			}
			if len(fresh) > 0 {
				return p, src.stats, fmt.Errorf("step %d: state of %v not restored", src.stats.Steps, fresh)
			}
			src.stats.Restarts++
			src.stats.CheckpointBytes = max(src.stats.CheckpointBytes, len(data))
		}
		if ended {
			return p, src.stats, nil
		}
	}
}

// start is the time of the earliest timed signal.
func (r *Recording) start() time.Time {
	var start time.Time
	for _, st := range r.Streams {
		for _, ev := range st.Events {
			if t := ev.Signal.Time; !ev.Relabel && !t.IsZero() && (start.IsZero() || t.Before(start)) {
				start = t
			}
		}
	}
	return start
}

// replay is a recording as a live source (Replay): at its first poll every
// stream opens, and at each poll a stream due delivers the records that
// are a random delay behind the clock.
type replay struct {
	r       *Recording
	plan    ReplayPlan
	rng     *rand.Rand
	cursors []*cursor // nil before the first poll
	open    int
	stats   ReplayStats
}

// cursor is where one stream of a replay stands.
type cursor struct {
	id    stream.ID
	st    *RecordedStream
	next  int
	delay time.Duration
	every int
	last  time.Time // wall time of the latest delivery
}

func (s *replay) Poll(_ context.Context, in *Input, wall time.Time) (bool, error) {
	streams := in.Signals()
	if s.cursors == nil {
		s.cursors = make([]*cursor, len(s.r.Streams))
		for i := range s.r.Streams {
			st := &s.r.Streams[i]
			s.cursors[i] = &cursor{id: streams.Open(st.Host, st.Component, wall), st: st, last: wall,
				delay: time.Duration(s.rng.Int63n(int64(s.plan.MaxDelay) + 1)), every: 1 + s.rng.Intn(s.plan.MaxEvery)}
		}
		s.open = len(s.cursors)
		for _, c := range s.cursors {
			if len(c.st.Events) == 0 {
				streams.Close(c.id)
				s.open--
			}
		}
	}
	if s.open == 0 {
		return true, nil
	}
	s.stats.Steps++
	for _, c := range s.cursors {
		if c.next == len(c.st.Events) || s.stats.Steps%c.every != 0 {
			continue
		}
		delivered := false
		for ; c.next < len(c.st.Events); c.next++ {
			ev := c.st.Events[c.next]
			if ev.Relabel {
				streams.Relabel(c.id, ev.Host, ev.Component)
				continue
			}
			if t := ev.Signal.Time; !t.IsZero() && t.After(wall.Add(-c.delay)) {
				break
			}
			streams.Push(c.id, ev.Signal, wall)
			delivered = true
		}
		if idle := wall.Sub(c.last); idle > s.stats.LongestIdle {
			s.stats.LongestIdle, s.stats.IdleStream = idle, c.st.Host
		}
		if delivered {
			c.last = wall
		}
		if c.next == len(c.st.Events) {
			streams.Close(c.id)
			s.open--
		}
	}
	in.Release(wall)
	return s.open == 0, nil
}
