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
	"errors"
	"fmt"
	"path/filepath"
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
