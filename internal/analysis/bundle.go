package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/stream"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
	"github.com/ozdoctor/ozdoctor/parsers/prom"
	"github.com/ozdoctor/ozdoctor/parsers/site"
	"github.com/ozdoctor/ozdoctor/report"
)

// Run analyses the inputs: the bundle walker is the source, every file's
// records become signals (stream.Recognizer), the signals of all files are
// ordered by event time (stream.Merger) and the engine runs the detectors
// on them. Batch analysis is the streaming pipeline whose sources all
// reached their end.
//
// The files on disk are read in the order of their first records
// (bundle.Options.FirstTime), and the Merger hands on what precedes the
// next file's first record as soon as a file is read: the detectors run
// while the walk goes on, and memory holds the signals of one span of time
// instead of all. The order is then the one holding every signal to the
// end of the walk would give, unless a file holds records older than a
// file before it (by more than the lateness): the Merger counts those
// (Overtaken), and the run is done again holding everything, so that the
// report is the ordered one either way (coverage.stream.overtaken says
// so).
func Run(ctx context.Context, opt Options) (*report.Result, error) {
	if opt.HoldAll {
		res, _, err := run(ctx, opt, true)
		return res, err
	}
	var sent []detectors.Transition
	first := opt
	if opt.Subscribe != nil { // told once the order is known to hold
		first.Subscribe = func(tr detectors.Transition) { sent = append(sent, tr) }
	}
	res, walk, err := run(ctx, first, false)
	if walk.overtaken > 0 {
		res, _, err = run(ctx, opt, true)
		if res != nil {
			res.Coverage.Stream.Overtaken = walk.overtaken
		}
		return res, err
	}
	if opt.Subscribe != nil {
		for _, tr := range sent {
			opt.Subscribe(tr)
		}
	}
	return res, err
}

// walkStats say how a walk of Run handed signals on.
type walkStats struct {
	released  int64 // before the walk ended
	overtaken int64 // Merger.Overtaken: the run was stopped
}

// run is one walk of Run, holding every signal to its end if held, else
// stopping at the first overtaken signal.
func run(ctx context.Context, opt Options, held bool) (*report.Result, walkStats, error) {
	p, err := NewPipeline(opt)
	if err != nil {
		return nil, walkStats{}, err
	}
	src := &bundleSource{p: p, held: held}
	res, err := p.Analyze(ctx, src)
	if errors.Is(err, errOvertaken) {
		return nil, src.walk, nil
	}
	return res, src.walk, err
}

// errOvertaken stops a walk whose order did not hold.
var errOvertaken = errors.New("a file held records older than a file before it")

// bundleSource is the source of a bundle run: the walk of its inputs
// (parsers/bundle), read by several workers at once (walkParallel) in the
// order of the files' first records, the merger holding every signal to
// the end of the walk if held, else handing on what precedes the next
// file. Its one Poll reads the whole walk.
type bundleSource struct {
	p        *Pipeline
	held     bool      // the merger holds every signal to the end of the walk
	overtake func()    // ends a walk whose order did not hold
	heads    sync.Pool // *log4j.Scanner of the starts of files (firstTime)
	walk     walkStats
}

func (b *bundleSource) Poll(ctx context.Context, in *Input, _ time.Time) (bool, error) {
	p := b.p
	walkCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.overtake = cancel
	p.merger.Hold()
	p.observer = p.startObserver()
	var problems []bundle.Problem
	var err error
	if workers := p.workers(); workers > 1 {
		problems, err = b.walkParallel(walkCtx, workers)
	} else {
		problems, err = bundle.Walk(walkCtx, p.opt.Inputs, b.options(), b.file)
	}
	p.observer.stop()
	p.observer = nil
	b.walk.released, b.walk.overtaken = p.merger.Stats().Released, p.merger.Overtaken()
	if b.walk.overtaken > 0 && ctx.Err() == nil {
		p.merger.Discard()
		return true, errOvertaken
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		p.merger.Discard()
		return true, err
	}
	p.merger.Unhold()
	in.Skipped(problems...)
	return true, nil
}

// options are the walk's: the files on disk ordered by the time of
// their first record.
func (b *bundleSource) options() bundle.Options {
	o := b.p.opt.Bundle
	o.FirstTime = b.firstTime
	return o
}

// firstTime returns the time of the first record in head, the start of f,
// or zero for files whose records may have none (.out files, whose lines
// are untimed records, settings, /prom snapshots).
func (b *bundleSource) firstTime(f bundle.File, head []byte) time.Time {
	switch f.Kind {
	case parsers.KindOut, parsers.KindProm, parsers.KindConfig:
		return time.Time{}
	}
	opt := log4j.Options{Location: b.p.zone(f.Host), Kind: f.Kind}
	sc, _ := b.heads.Get().(*log4j.Scanner)
	if sc == nil {
		sc = log4j.NewScanner(bytes.NewReader(head), opt)
	} else {
		sc.Reset(bytes.NewReader(head), opt)
	}
	defer b.heads.Put(sc)
	for sc.Next() {
		if t := sc.Record().Time; !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

func (p *Pipeline) workers() int {
	if p.opt.Workers > 0 {
		return p.opt.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// file reads one file of the bundle into the pipeline.
func (b *bundleSource) file(f bundle.File, rd io.Reader) error {
	p := b.p
	p.rank(f.Rank)
	fc, err := p.read(f, rd, p.recog, p.target)
	b.commit(fc, f.Rank, f.Next)
	return err
}

// read reads one file of the bundle, its signals into target, and returns
// its coverage.
func (p *Pipeline) read(f bundle.File, rd io.Reader, recog *stream.Recognizer, target stream.Streams) (report.FileCoverage, error) {
	cr := &countingReader{r: rd, p: p, path: f.Path}
	fc := report.FileCoverage{Path: f.Path, Host: f.Host, Component: string(f.Component), Kind: string(f.Kind)}
	var err error
	switch f.Kind {
	case parsers.KindConfig:
		var props map[string]string
		if props, err = site.ParseXML(cr); err == nil {
			id := target.Open(f.Host, f.Component, time.Time{})
			target.Push(id, catalogue.Signal{Kind: catalogue.SiteSettings, Host: f.Host, Component: f.Component,
				Origin: parsers.Origin{File: f.Path}, Text: "ozone-site.xml (" + p.relative(f.Path) + ")", Attrs: props}, time.Time{})
			target.Close(id)
			fc.Note = fmt.Sprintf("%d settings", len(props))
		}
	case parsers.KindProm:
		var snap *prom.Snapshot
		if snap, err = prom.Parse(cr); err == nil {
			fc.Samples, fc.Unparsed = int64(len(snap.Samples)), int64(snap.Errors)
			// Untimed: a file's time says when it was copied, not scraped.
			fc.Signals = int64(p.samples(target, snap, f.Host, f.Component, time.Time{}, f.Path, time.Time{}))
		}
	default:
		err = p.scan(f, cr, recog, target, &fc)
	}
	fc.Bytes = cr.n
	return fc, err
}

// rank places the streams of the files read next among the signals of one
// time (bundle.File.Rank).
func (p *Pipeline) rank(r int) {
	p.merger.Rank(r)
	if rec, ok := p.target.(*Recording); ok {
		rec.rank = r
	}
}

// commit adds a file read, the rank-th on disk, to the run's coverage and
// hands on what is due: no file after it starts before next (zero:
// unknown).
func (b *bundleSource) commit(fc report.FileCoverage, rank int, next time.Time) {
	p := b.p
	p.cov.Files.Add(fc, rank, p.opt.SpillBudget/8, p.opt.SpillDir)
	p.filesDone.Add(1)
	p.progress(fc.Path)
	if !next.IsZero() && !b.held {
		p.merger.HoldUntil(next)
	}
	p.Release(time.Time{})
	if b.overtake != nil && p.merger.Overtaken() > 0 {
		b.overtake()
	}
}

func (p *Pipeline) progress(path string) {
	if p.opt.Progress != nil {
		p.progressMu.Lock()
		defer p.progressMu.Unlock()
		p.opt.Progress(Progress{Files: int(p.filesDone.Load()), Bytes: p.bytes.Load(), Path: path})
	}
}

// scan reads one log file into target.
func (p *Pipeline) scan(f bundle.File, rd io.Reader, recog *stream.Recognizer, target stream.Streams, fc *report.FileCoverage) error {
	res, err := recog.Scan(stream.File{Path: f.Path, Host: f.Host, Component: f.Component, Kind: f.Kind, Zone: p.zone(f.Host)},
		rd, target, time.Time{})
	*fc = Recognised(*fc, res)
	return err
}

// countingReader counts bytes and reports progress every 64 MiB.
type countingReader struct {
	r    io.Reader
	p    *Pipeline
	path string
	n    int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	if after := c.p.bytes.Add(int64(n)); (after-int64(n))>>26 != after>>26 {
		c.p.progress(c.path)
	}
	return n, err
}
