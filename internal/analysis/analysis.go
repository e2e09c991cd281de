// Package analysis assembles ozdoctor's pipeline: a Source's records go
// through the Recognizer into the Merger (package stream), whose
// event-time-ordered signals feed the engine (package detectors), whose
// transitions feed the subscribers and the report. Every source reaches
// the pipeline through Pipeline.Step on a clock: Run is the batch mode
// over log bundles, RunDocuments over a search engine's documents, and
// Record and Recording.Replay drive the same pipeline live; Checkpoint and
// RestorePipeline save and resume it. A run fills a report.Result: the
// findings and the coverage, what was read and what could not be, counted
// in one place (Input) for every mode.
package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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

// ErrNoInput is returned when no input could be read at all.
var ErrNoInput = errors.New("no readable input")

// Options configure one analysis.
type Options struct {
	Inputs          []string
	Zone            *time.Location            // zone of log timestamps; nil = UTC
	HostZones       map[string]*time.Location // per-host overrides, by short host name
	Since, Until    time.Time                 // zero = unbounded
	Detectors       []detectors.Registration
	DetectorOptions map[string]string
	Bundle          bundle.Options
	GapThreshold    time.Duration // silences reported to detectors; default 10s
	Progress        func(Progress)
	// Lateness and Idle tune the merger (stream.Options); defaults
	// DefaultLateness and DefaultIdle.
	Lateness, Idle time.Duration
	// SpillBudget, when positive, bounds the memory of the signals a bundle
	// run holds until its walk ends; beyond it they wait in a temporary
	// file in SpillDir ("" the system's). The findings are the same. The
	// list of the files read goes to a temporary file too past an eighth
	// of it (Files).
	SpillBudget int64
	SpillDir    string
	// Workers is how many files on disk a bundle run reads at once (0:
	// one per core). The report is the same for any number.
	Workers int
	// HoldAll makes a bundle run hold every signal until its walk ends
	// instead of handing on what precedes the next file (Run): the order
	// that early release must give, for tests.
	HoldAll bool
	Engine  detectors.EngineOptions
	// Subscribe, if set, receives every alert transition as it happens.
	Subscribe func(detectors.Transition)
	// NoReport says the caller never asks for a report (a daemon, which
	// hands on transitions alone): the findings are not collected, so
	// memory and checkpoints stay flat however many incidents pass, and
	// Finish returns the coverage with no findings.
	NoReport bool
}

// Progress is reported while files are read.
type Progress struct {
	Files int    // files finished
	Bytes int64  // bytes read so far
	Path  string // file being read
}

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
	src := &bundleSource{held: held}
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
	held bool
	walk walkStats
}

func (b *bundleSource) Poll(ctx context.Context, in *Input, _ time.Time) (bool, error) {
	p := in.p
	walkCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.held, p.overtaken = b.held, cancel
	p.merger.Hold()
	p.observer = p.startObserver()
	var problems []bundle.Problem
	var err error
	if workers := p.workers(); workers > 1 {
		problems, err = p.walkParallel(walkCtx, workers)
	} else {
		problems, err = bundle.Walk(walkCtx, p.opt.Inputs, p.bundleOptions(), p.file)
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

// bundleOptions are the walk's: the files on disk ordered by the time of
// their first record.
func (p *Pipeline) bundleOptions() bundle.Options {
	o := p.opt.Bundle
	o.FirstTime = p.firstTime
	return o
}

// firstTime returns the time of the first record in head, the start of f,
// or zero for files whose records may have none (.out files, whose lines
// are untimed records, settings, /prom snapshots).
func (p *Pipeline) firstTime(f bundle.File, head []byte) time.Time {
	switch f.Kind {
	case parsers.KindOut, parsers.KindProm, parsers.KindConfig:
		return time.Time{}
	}
	opt := log4j.Options{Location: p.zone(f.Host), Kind: f.Kind}
	sc, _ := p.heads.Get().(*log4j.Scanner)
	if sc == nil {
		sc = log4j.NewScanner(bytes.NewReader(head), opt)
	} else {
		sc.Reset(bytes.NewReader(head), opt)
	}
	defer p.heads.Put(sc)
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

// Pipeline is one run of the streaming core: files (or pushed signals) in,
// transitions out to the subscribers, a Result at the end.
type Pipeline struct {
	opt       Options
	cat       *catalogue.Catalogue
	recog     *stream.Recognizer
	merger    *stream.Merger
	target    stream.Streams // where files' signals go: the merger, or a recording
	env       *detectors.Env
	engine    *detectors.Engine
	collector detectors.Collector
	metrics   map[string]bool // the /prom metrics detectors read
	cov       report.Coverage
	in        Input        // the sources' view of the pipeline, and the coverage of their followed files
	held      bool         // a bundle run holds every signal to the end of its walk
	overtaken func()       // ends a bundle run's walk whose order did not hold
	heads     sync.Pool    // *log4j.Scanner of the starts of files (firstTime)
	observer  *observer    // a bundle run's while it walks; nil: the engine observes at once
	bytes     atomic.Int64 // read so far, by all workers
	// filesDone and progressMu serve Options.Progress, which workers call.
	filesDone  atomic.Int64
	progressMu sync.Mutex
}

// Default stream settings of a pipeline.
const (
	DefaultLateness = 5 * time.Second
	DefaultIdle     = 30 * time.Second
)

// NewPipeline builds the stages for opt; opt.Subscribe, if set, receives
// every transition as it happens.
func NewPipeline(opt Options) (*Pipeline, error) {
	entries := catalogue.Default()
	for _, r := range opt.Detectors {
		entries = append(entries, r.Entries...)
	}
	cat, err := catalogue.New(entries...)
	if err != nil {
		return nil, err
	}
	if opt.Zone == nil {
		opt.Zone = time.UTC
	}
	if opt.GapThreshold == 0 {
		opt.GapThreshold = 10 * time.Second
	}
	if opt.Lateness == 0 {
		opt.Lateness = DefaultLateness
	}
	if opt.Idle == 0 {
		opt.Idle = DefaultIdle
	}
	p := &Pipeline{opt: opt, cat: cat, recog: stream.NewRecognizer(cat, opt.GapThreshold),
		merger: stream.NewMerger(stream.Options{Lateness: opt.Lateness, Idle: opt.Idle, Since: opt.Since, Until: opt.Until,
			SpillBudget: opt.SpillBudget, SpillDir: opt.SpillDir})}
	p.target = p.merger
	p.in.p = p
	p.env = &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: opt.DetectorOptions,
		Batch: opt.Subscribe == nil} // no one sees a finding before the report
	eng := opt.Engine
	if opt.SpillBudget > 0 {
		p.collector.Spill(opt.SpillDir)
		eng.StateOnly = true // the collector keeps the findings
	}
	if p.engine, err = detectors.NewEngineWith(opt.Detectors, p.env, eng); err != nil {
		return nil, err
	}
	p.metrics = p.engine.Metrics()
	if !opt.NoReport {
		p.engine.Collect(&p.collector) // finalized at the end, by Finish
	}
	if opt.Subscribe != nil {
		p.engine.Subscribe(opt.Subscribe)
	}
	p.cov.Inputs = opt.Inputs
	p.cov.TimeZone = opt.Zone.String()
	if len(opt.HostZones) > 0 {
		p.cov.HostZones = map[string]string{}
		for h, z := range opt.HostZones {
			p.cov.HostZones[h] = z.String()
		}
	}
	if !opt.Since.IsZero() {
		p.cov.Since = &opt.Since
	}
	if !opt.Until.IsZero() {
		p.cov.Until = &opt.Until
	}
	return p, nil
}

// Samples pushes the samples of snap that some detector reads as signals
// taken at at (a scrape's time; zero if unknown), host and comp naming the
// service scraped, on a stream of their own that ends with them: it holds
// the other sources back only until their watermarks pass at. It returns
// how many it pushed.
func (in *Input) Samples(snap *prom.Snapshot, host string, comp parsers.Component, at time.Time, origin string, now time.Time) int {
	return in.p.samples(in.p.target, snap, host, comp, at, origin, now)
}

func (p *Pipeline) samples(target stream.Streams, snap *prom.Snapshot, host string, comp parsers.Component, at time.Time, origin string, now time.Time) int {
	id := target.Open(host, comp, now)
	defer target.Close(id)
	n := 0
	for _, s := range snap.Samples {
		if p.metrics[s.Name] {
			target.Push(id, catalogue.SampleSignal(s, host, comp, at, origin), now)
			n++
		}
	}
	return n
}

// CloseStreams ends every stream the pipeline holds: a restored pipeline's
// sources open theirs anew.
func (p *Pipeline) CloseStreams() { p.merger.CloseAll() }

// Coverage returns what the run has read so far: the files read to their
// end and those still followed.
func (p *Pipeline) Coverage() report.Coverage {
	if len(p.in.files) == 0 {
		return p.finishCoverage()
	}
	saved := p.cov.Files
	p.cov.Files = report.FilesOf(append(slices.Collect(saved.All()), p.in.coverage()...))
	defer func() { p.cov.Files = saved }()
	return p.finishCoverage()
}

// Queued returns how many signals wait in the merger for their turn.
func (p *Pipeline) Queued() int { return p.merger.Queued() }

// Engine returns the pipeline's engine: its alerts and state for a run
// that does not end.
func (p *Pipeline) Engine() *detectors.Engine { return p.engine }

// Release hands the signals that are due at wall time now to the engine
// (zero now: a batch run, where no stream is ever idle).
func (p *Pipeline) Release(now time.Time) {
	observe := p.engine.Observe
	if p.observer != nil {
		observe = p.observer.observe
	}
	if w := p.merger.Release(now, observe); !now.IsZero() {
		p.engine.AdvanceTicks(w)
	}
}

// Finish ends the input: everything queued is handed on, the detectors are
// flushed at the end of the input, and the report is the final state.
func (p *Pipeline) Finish() *report.Result {
	p.in.settle()
	p.drain()
	if e := p.merger.SpillStats().Lost; e != "" {
		p.cov.Skipped = append(p.cov.Skipped, bundle.Problem{Path: "(spill file)", Reason: e})
	}
	p.cov.Skipped = nonNil(p.cov.Skipped)
	cov := p.finishCoverage()
	end := cov.End
	if !p.opt.Until.IsZero() && (end.IsZero() || p.opt.Until.Before(end)) {
		end = p.opt.Until
	}
	p.engine.End(end)
	ran := map[string]bool{}
	for _, d := range cov.Detectors {
		ran[d.Name] = d.Ran
	}
	if err := p.collector.SpillError(); err != nil && cov.Stream.SpillError == "" {
		cov.Stream.SpillError = "findings: " + err.Error()
	}
	findings := p.collector.Findings(p.engine.Finalizer(), func(name string) bool { return ran[name] })
	return &report.Result{Findings: findings, Coverage: cov}
}

// drain hands everything queued to the engine: the merger reads its spilled
// runs back and orders them on this goroutine while the detectors run on
// another.
func (p *Pipeline) drain() {
	o := p.startObserver()
	p.merger.Drain(o.observe)
	o.stop()
}

// observer hands the signals released to the engine on a goroutine of its
// own, in batches: the detectors run beside the merge (and, in a bundle
// run, beside the reading of the files). A batch holds copies (the Merger
// reuses what it hands on), and goes back to be filled again once observed.
type observer struct {
	batch   []catalogue.Signal
	batches chan []catalogue.Signal
	free    chan []catalogue.Signal
	done    chan struct{}
}

const observerBatch = 512

func (p *Pipeline) startObserver() *observer {
	// At most inFlight batches are queued, one observed and one filled: free
	// has room for all but the one filled, so giving one back never blocks.
	const inFlight = 4
	o := &observer{batch: make([]catalogue.Signal, 0, observerBatch), batches: make(chan []catalogue.Signal, inFlight),
		free: make(chan []catalogue.Signal, inFlight+1), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		for b := range o.batches {
			for i := range b {
				p.engine.Observe(&b[i])
			}
			clear(b) // nothing it held stays reachable
			o.free <- b[:0]
		}
	}()
	return o
}

func (o *observer) observe(s *catalogue.Signal) {
	if o.batch = append(o.batch, *s); len(o.batch) == observerBatch {
		o.flush()
	}
}

// flush hands on the batch begun.
func (o *observer) flush() {
	if len(o.batch) == 0 {
		return
	}
	o.batches <- o.batch
	select {
	case o.batch = <-o.free:
	default:
		o.batch = make([]catalogue.Signal, 0, observerBatch)
	}
}

// stop returns once the engine has observed everything handed on.
func (o *observer) stop() {
	o.flush()
	close(o.batches)
	<-o.done
}

// file reads one file of the bundle into the pipeline.
func (p *Pipeline) file(f bundle.File, rd io.Reader) error {
	p.rank(f.Rank)
	fc, err := p.read(f, rd, p.recog, p.target)
	p.commit(fc, f.Rank, f.Next)
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
func (p *Pipeline) commit(fc report.FileCoverage, rank int, next time.Time) {
	p.cov.Files.Add(fc, rank, p.opt.SpillBudget/8, p.opt.SpillDir)
	p.filesDone.Add(1)
	p.progress(fc.Path)
	if !next.IsZero() && !p.held {
		p.merger.HoldUntil(next)
	}
	p.Release(time.Time{})
	if p.overtaken != nil && p.merger.Overtaken() > 0 {
		p.overtaken()
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

// Recognised returns fc, a file's coverage as its name told it (path,
// host, component, kind), with what the Recognizer saw of it: every mode
// reports a file's coverage through it, so the same records give the same
// coverage.
func Recognised(fc report.FileCoverage, res stream.FileResult) report.FileCoverage {
	stats := res.Stats
	fc.Signals = res.Signals
	if fc.Host == "" {
		fc.Host = res.Host
	}
	if fc.Component == "" {
		fc.Component = string(res.Component)
	}
	fc.Layout = stats.Layout
	fc.Lines, fc.Records, fc.Unparsed, fc.Truncated, fc.Binary = stats.Lines, stats.Records, stats.Unparsed, stats.Truncated, stats.Binary
	fc.Damaged, fc.DamagedLines, fc.SilencesDropped = stats.Damaged, stats.DamagedLines, stats.GapsDropped
	fc.First, fc.Last = stats.First, stats.Last
	if len(stats.Services) > 0 {
		fc.Note = fmt.Sprintf("docker-compose capture of %d services", len(stats.Services))
	}
	if stats.Layout == "" && stats.Lines > 0 && parsers.Kind(fc.Kind) != parsers.KindOut {
		fc.Note = "no known log layout"
	}
	if fc.Records > 0 && (fc.Host == "" || fc.Component == "") {
		fc.Note = joinNote(fc.Note, unknownIdentityNote(fc.Host, fc.Component))
	}
	return fc
}

// unknownIdentityNote says what a file whose host or component could not be
// told (from its name, its directory or a STARTUP_MSG) means for the analysis.
func unknownIdentityNote(host, component string) string {
	switch {
	case host == "" && component == "":
		return "host and component unknown: its signals reached no detector that needs SCM, OM or datanode logs"
	case component == "":
		return "component unknown: its signals reached no detector that needs SCM, OM or datanode logs"
	}
	return "host unknown: its events cannot be tied to a host"
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// relative returns a bundle path relative to the input it came from, so that
// reports do not depend on where the bundle was unpacked.
func (p *Pipeline) relative(path string) string {
	for _, in := range p.opt.Inputs {
		in = strings.TrimSuffix(in, "/")
		if rest, ok := strings.CutPrefix(path, in); ok && (rest == "" || rest[0] == '/' || rest[0] == '!') {
			return filepath.Base(in) + rest
		}
	}
	return path
}

func (p *Pipeline) zone(host string) *time.Location {
	if z, ok := p.opt.HostZones[detectors.ShortHost(host)]; ok {
		return z
	}
	return p.opt.Zone
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// finishCoverage sums files into hosts and totals and says which detectors
// had the logs they need, what settings were in force and which clock
// offsets were applied.
func (p *Pipeline) finishCoverage() report.Coverage {
	// In name order: files on disk are read in the order of their times.
	p.cov.Files.SortByRank()
	cov := p.cov
	if offsets := p.merger.Offsets(); offsets != nil {
		cov.Offsets = make([]report.ClockOffset, len(offsets))
		for i, o := range offsets {
			cov.Offsets[i] = report.ClockOffset(o)
		}
	}
	cov.SumFiles()
	cov.Totals.Signals = p.merger.Stats().Released
	cov.Settings = []report.Setting{}
	for _, k := range p.env.Settings.Keys() {
		v, src, _ := p.env.Settings.Get(k)
		if _, def := site.Defaults()[k]; def || src != "default" {
			if def || strings.HasPrefix(k, "ozone.scm.") || strings.HasPrefix(k, "hdds.") {
				cov.Settings = append(cov.Settings, report.Setting{Key: k, Value: v, Source: src})
			}
		}
	}
	cov.Detectors = p.detectorCoverage(cov.Files.Components())
	cov.State, cov.Stream = p.stateCoverage()
	cov.Versions = p.versionCoverage()
	return cov
}

// versionCoverage groups the services' versions by component and version.
func (p *Pipeline) versionCoverage() []report.VersionCoverage {
	var out []report.VersionCoverage
	for _, sv := range p.env.Identity.Services() {
		i := slices.IndexFunc(out, func(v report.VersionCoverage) bool {
			return v.Component == string(sv.Component) && v.Version == sv.Version
		})
		if i < 0 {
			out = append(out, report.VersionCoverage{Component: string(sv.Component), Version: sv.Version})
			i = len(out) - 1
		}
		out[i].Hosts = append(out[i].Hosts, sv.Host)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Component != out[j].Component {
			return out[i].Component < out[j].Component
		}
		return out[i].Version < out[j].Version
	})
	return out
}

// stateCoverage reports the retained state and what the ordering did.
func (p *Pipeline) stateCoverage() ([]report.StateCoverage, report.StreamCoverage) {
	var out []report.StateCoverage
	for _, d := range p.engine.State() {
		for _, s := range d.Stats {
			out = append(out, report.StateCoverage{Owner: d.Detector, Name: s.Name, Entries: s.Entries, Limit: s.Limit, Evicted: s.Evicted})
		}
	}
	n, limit, evicted := p.merger.SyncEvents()
	out = append(out, report.StateCoverage{Owner: "merger", Name: "shared events for clock offsets", Entries: n, Limit: limit, Evicted: evicted})
	ms, es, sp := p.merger.Stats(), p.engine.Stats(), p.merger.SpillStats()
	return out, report.StreamCoverage{Late: ms.Late, Filtered: ms.Filtered, Transitions: es.Transitions, AlertsExpired: es.Expired,
		Unattributed: es.Unattributed, Spilled: sp.Signals, SpillError: sp.Error}
}

// detectorCoverage says, for every detector, whether the logs it needs
// were in the input.
func (p *Pipeline) detectorCoverage(present map[parsers.Component]bool) []report.DetectorCoverage {
	for _, c := range p.merger.Components() {
		present[c] = true
	}
	out := []report.DetectorCoverage{}
	for _, reg := range p.opt.Detectors {
		dc := report.DetectorCoverage{Name: reg.Doc.Name, Defect: reg.Doc.Defect, Ran: true}
		var missing []string
		for _, c := range reg.Doc.Needs {
			if !present[c] {
				missing = append(missing, string(c))
			}
		}
		if len(missing) > 0 {
			dc.Ran, dc.Reason = false, "no "+strings.Join(missing, ", ")+" logs in the input"
		}
		out = append(out, dc)
	}
	return out
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
