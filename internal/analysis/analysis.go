// Package analysis runs ozdoctor's pipeline over log bundles: it walks the
// inputs, scans every file with its detected layout, turns candidate records
// into signals with the message catalogue, merges the per-file signal
// streams in event-time order and feeds them to the detectors. It returns the
// findings and the coverage: what was read and what could not be.
package analysis

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
	"github.com/ozdoctor/ozdoctor/parsers/prom"
	"github.com/ozdoctor/ozdoctor/parsers/site"
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
}

// Progress is reported while files are read.
type Progress struct {
	Files int    // files finished
	Bytes int64  // bytes read so far
	Path  string // file being read
}

// Result is the outcome of an analysis.
type Result struct {
	Findings []detectors.Finding `json:"findings"`
	Coverage Coverage            `json:"coverage"`
}

// stream is the signals of one log stream: a file, or one service of a
// docker-compose capture.
type stream struct {
	file      int  // index into Coverage.Files
	compose   bool // a docker-compose service: the host is a stand-in until a banner names it
	host      string
	component parsers.Component
	signals   []catalogue.Signal
}

// Run analyses the inputs.
func Run(ctx context.Context, opt Options) (*Result, error) {
	cat, err := catalogue.New()
	if err != nil {
		return nil, err
	}
	if opt.Zone == nil {
		opt.Zone = time.UTC
	}
	if opt.GapThreshold == 0 {
		opt.GapThreshold = 10 * time.Second
	}
	r := &run{opt: opt, cat: cat, settings: site.New()}
	r.cov.Inputs = opt.Inputs
	r.cov.TimeZone = opt.Zone.String()
	if len(opt.HostZones) > 0 {
		r.cov.HostZones = map[string]string{}
		for h, z := range opt.HostZones {
			r.cov.HostZones[h] = z.String()
		}
	}
	if !opt.Since.IsZero() {
		r.cov.Since = &opt.Since
	}
	if !opt.Until.IsZero() {
		r.cov.Until = &opt.Until
	}
	problems, err := bundle.Walk(ctx, opt.Inputs, opt.Bundle, r.file)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.cov.Skipped = append(r.cov.Skipped, problems...)
	if r.cov.Skipped == nil {
		r.cov.Skipped = []bundle.Problem{}
	}
	if len(r.cov.Files) == 0 {
		return &Result{Findings: []detectors.Finding{}, Coverage: r.finishCoverage()}, ErrNoInput
	}
	findings, err := r.detect()
	if err != nil {
		return nil, err
	}
	return &Result{Findings: findings, Coverage: r.finishCoverage()}, nil
}

type run struct {
	opt      Options
	cat      *catalogue.Catalogue
	settings *site.Config
	cov      Coverage
	streams  []*stream
	bytes    int64
	scanner  *log4j.Scanner // reused across files for its read buffer
}

// file reads one file of the bundle.
func (r *run) file(f bundle.File, rd io.Reader) error {
	cr := &countingReader{r: rd, run: r, path: f.Path}
	fc := FileCoverage{Path: f.Path, Host: f.Host, Component: string(f.Component), Kind: string(f.Kind)}
	var err error
	switch f.Kind {
	case parsers.KindConfig:
		var props map[string]string
		if props, err = site.ParseXML(cr); err == nil {
			for k, v := range props {
				r.settings.Set(k, v, "ozone-site.xml ("+r.relative(f.Path)+")")
			}
			fc.Note = fmt.Sprintf("%d settings", len(props))
		}
	case parsers.KindProm:
		var snap *prom.Snapshot
		if snap, err = prom.Parse(cr); err == nil {
			fc.Samples, fc.Unparsed = int64(len(snap.Samples)), int64(snap.Errors)
		}
	default:
		err = r.scan(f, cr, &fc)
	}
	fc.Bytes = cr.n
	r.cov.Files = append(r.cov.Files, fc)
	if r.opt.Progress != nil {
		r.opt.Progress(Progress{Files: len(r.cov.Files), Bytes: r.bytes, Path: f.Path})
	}
	return err
}

// scan reads one log file into signal streams.
func (r *run) scan(f bundle.File, rd io.Reader, fc *FileCoverage) error {
	opt := log4j.Options{
		Location:  r.zone(f.Host),
		Candidate: r.cat.Candidate,
		Kind:      f.Kind,
	}
	// Silences are evidence of an SCM pause (HDDS-17519); elsewhere they
	// are ordinary (quiet services log little), so only SCM logs (and
	// compose captures, which hold SCMs among others) report them.
	if f.Component == parsers.ComponentSCM || f.Component == parsers.ComponentUnknown {
		opt.GapThreshold = r.opt.GapThreshold
	}
	if r.scanner == nil {
		r.scanner = log4j.NewScanner(rd, opt)
	} else {
		r.scanner.Reset(rd, opt)
	}
	sc := r.scanner
	fileIdx := len(r.cov.Files)
	byService := map[string]*stream{}
	streamFor := func(service string) *stream {
		st, ok := byService[service]
		if !ok {
			st = &stream{file: fileIdx, host: f.Host, component: f.Component}
			if service != "" {
				st.compose = true
				st.host, st.component = serviceIdentity(service)
			}
			byService[service] = st
			r.streams = append(r.streams, st)
		}
		return st
	}
	for sc.Next() {
		rec := sc.Record()
		st := streamFor(rec.Service)
		rec.Origin.File, rec.Host, rec.Component = f.Path, st.host, st.component
		for _, s := range r.cat.Match(rec) {
			if s.Kind == catalogue.StartupMsg {
				r.learnFromStartup(st, &s)
			}
			st.signals = append(st.signals, s)
		}
	}
	stats := sc.Stats()
	for _, g := range stats.Gaps {
		st := streamFor(g.Service)
		if st.component != parsers.ComponentSCM {
			continue
		}
		st.signals = append(st.signals, catalogue.Signal{
			Kind: catalogue.LogGap, Time: g.To, Duration: g.To.Sub(g.From),
			Host: st.host, Component: st.component,
			Origin: parsers.Origin{File: f.Path, Line: g.Line},
			Text:   fmt.Sprintf("no record for %s (%s to %s)", g.To.Sub(g.From), g.From.Format(time.RFC3339), g.To.Format(time.RFC3339)),
		})
	}
	for _, st := range byService {
		// Host and component found in the content fill what the name and
		// directory did not tell.
		for i := range st.signals {
			if st.signals[i].Host == "" || st.compose {
				st.signals[i].Host = st.host
			}
			if st.signals[i].Component == "" {
				st.signals[i].Component = st.component
			}
		}
		fc.Signals += int64(len(st.signals))
		if fc.Host == "" {
			fc.Host = st.host
		}
		if fc.Component == "" {
			fc.Component = string(st.component)
		}
	}
	fc.Layout = stats.Layout
	fc.Lines, fc.Records, fc.Unparsed, fc.Truncated, fc.Binary = stats.Lines, stats.Records, stats.Unparsed, stats.Truncated, stats.Binary
	fc.First, fc.Last = stats.First, stats.Last
	if len(stats.Services) > 0 {
		fc.Note = fmt.Sprintf("docker-compose capture of %d services", len(stats.Services))
	}
	if stats.Layout == "" && stats.Lines > 0 && f.Kind != parsers.KindOut {
		fc.Note = "no known log layout"
	}
	return sc.Err()
}

// learnFromStartup fills a stream's unknown host and component from its
// STARTUP_MSG banner, and collects the banner's configuration.
func (r *run) learnFromStartup(st *stream, s *catalogue.Signal) {
	if h := s.Attrs["hostname"]; h != "" && (st.host == "" || st.compose) {
		st.host = h
	}
	if st.component == "" {
		st.component = catalogue.ServiceComponent(s.Attrs["service"])
	}
	if s.Host == "" || st.compose {
		s.Host = st.host
	}
	if s.Component == "" {
		s.Component = st.component
	}
	if conf := s.Attrs["conf"]; conf != "" && st.component == parsers.ComponentSCM {
		for k, v := range site.ParseStartupConf(conf) {
			r.settings.Set(k, v, "STARTUP_MSG conf ("+st.host+")")
		}
	}
}

// relative returns a bundle path relative to the input it came from, so that
// reports do not depend on where the bundle was unpacked.
func (r *run) relative(p string) string {
	for _, in := range r.opt.Inputs {
		in = strings.TrimSuffix(in, "/")
		if rest, ok := strings.CutPrefix(p, in); ok && (rest == "" || rest[0] == '/' || rest[0] == '!') {
			return filepath.Base(in) + rest
		}
	}
	return p
}

func (r *run) zone(host string) *time.Location {
	if z, ok := r.opt.HostZones[detectors.ShortHost(host)]; ok {
		return z
	}
	return r.opt.Zone
}

// detect merges the streams in event-time order and runs the detectors.
func (r *run) detect() ([]detectors.Finding, error) {
	present := map[parsers.Component]bool{}
	for _, st := range r.streams {
		present[st.component] = true
	}
	for _, fc := range r.cov.Files {
		present[parsers.Component(fc.Component)] = true
	}
	var regs []detectors.Registration
	for _, reg := range r.opt.Detectors {
		dc := DetectorCoverage{Name: reg.Doc.Name, Defect: reg.Doc.Defect, Ran: true}
		var missing []string
		for _, c := range reg.Doc.Needs {
			if !present[c] {
				missing = append(missing, string(c))
			}
		}
		if len(missing) > 0 {
			dc.Ran, dc.Reason = false, "no "+strings.Join(missing, ", ")+" logs in the input"
		} else {
			regs = append(regs, reg)
		}
		r.cov.Detectors = append(r.cov.Detectors, dc)
	}
	r.cov.Offsets = estimateOffsets(r.streams)
	applyOffsets(r.streams, r.cov.Offsets)
	signals := r.merge()
	env := &detectors.Env{Settings: r.settings, Identity: detectors.NewIdentity(), Options: r.opt.DetectorOptions}
	for i := range signals {
		env.Identity.Learn(signals[i])
	}
	eng, err := detectors.NewEngine(regs, env)
	if err != nil {
		return nil, err
	}
	for _, s := range signals {
		eng.Observe(s)
	}
	end := r.cov.End
	for _, fc := range r.cov.Files {
		if fc.Last.After(end) {
			end = fc.Last
		}
	}
	if !r.opt.Until.IsZero() && (end.IsZero() || r.opt.Until.Before(end)) {
		end = r.opt.Until
	}
	findings := eng.Flush(end)
	if findings == nil {
		findings = []detectors.Finding{}
	}
	return findings, nil
}

// merge returns every signal within [Since, Until]: untimed ones first (in
// file order), then a k-way merge of the streams by event time.
func (r *run) merge() []*catalogue.Signal {
	var untimed []*catalogue.Signal
	h := &streamHeap{}
	for _, st := range r.streams {
		timed := st.signals[:0]
		for i := range st.signals {
			s := st.signals[i]
			switch {
			case s.Time.IsZero():
				untimed = append(untimed, &s)
			case !r.opt.Since.IsZero() && s.Time.Before(r.opt.Since),
				!r.opt.Until.IsZero() && s.Time.After(r.opt.Until):
			default:
				timed = append(timed, s)
			}
		}
		st.signals = timed
		// A file is nearly sorted already (async appenders can swap
		// neighbours); a stable sort keeps file order for equal times.
		sort.SliceStable(timed, func(i, j int) bool { return timed[i].Time.Before(timed[j].Time) })
		if len(timed) > 0 {
			*h = append(*h, &cursor{sigs: timed, file: st.file})
		}
	}
	heap.Init(h)
	out := untimed
	for h.Len() > 0 {
		c := (*h)[0]
		out = append(out, &c.sigs[c.i])
		c.i++
		if c.i == len(c.sigs) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	r.cov.Totals.Signals = int64(len(out))
	return out
}

type cursor struct {
	sigs []catalogue.Signal
	i    int
	file int
}

type streamHeap []*cursor

func (h streamHeap) Len() int { return len(h) }
func (h streamHeap) Less(i, j int) bool {
	a, b := h[i].sigs[h[i].i].Time, h[j].sigs[h[j].i].Time
	if !a.Equal(b) {
		return a.Before(b)
	}
	return h[i].file < h[j].file
}
func (h streamHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *streamHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *streamHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// serviceIdentity maps a docker-compose service prefix ("scm_1",
// "ozone-datanode-1", "om2_1") to a stand-in host name and a component. The
// prefix names a container, not a host: a STARTUP_MSG banner in the stream
// replaces it with the real host name.
func serviceIdentity(service string) (string, parsers.Component) {
	_, comp, _ := bundle.Classify(service + "/x.log")
	return service, comp
}

// finishCoverage sums files into hosts and totals.
func (r *run) finishCoverage() Coverage {
	cov := r.cov
	hosts := map[string]*HostCoverage{}
	for _, fc := range cov.Files {
		t := &cov.Totals
		t.Files++
		t.Bytes += fc.Bytes
		t.Lines += fc.Lines
		t.Records += fc.Records
		t.Unparsed += fc.Unparsed
		t.Truncated += fc.Truncated
		t.Samples += fc.Samples
		if !fc.First.IsZero() && (cov.Start.IsZero() || fc.First.Before(cov.Start)) {
			cov.Start = fc.First
		}
		if fc.Last.After(cov.End) {
			cov.End = fc.Last
		}
		name := fc.Host
		if name == "" {
			name = "(unknown host)"
		}
		// "scm1" (a directory) and "scm1.example.com" (a file name) are one host.
		hc, ok := hosts[detectors.ShortHost(name)]
		if !ok {
			hc = &HostCoverage{Host: name}
			hosts[detectors.ShortHost(name)] = hc
		}
		if len(name) > len(hc.Host) {
			hc.Host = name
		}
		hc.Files++
		hc.Records += fc.Records
		if fc.Component != "" && !slices.Contains(hc.Components, fc.Component) {
			hc.Components = append(hc.Components, fc.Component)
		}
		if !fc.First.IsZero() && (hc.First.IsZero() || fc.First.Before(hc.First)) {
			hc.First = fc.First
		}
		if fc.Last.After(hc.Last) {
			hc.Last = fc.Last
		}
	}
	cov.Hosts = []HostCoverage{}
	for _, hc := range hosts {
		sort.Strings(hc.Components)
		cov.Hosts = append(cov.Hosts, *hc)
	}
	sort.Slice(cov.Hosts, func(i, j int) bool { return cov.Hosts[i].Host < cov.Hosts[j].Host })
	if cov.Files == nil {
		cov.Files = []FileCoverage{}
	}
	cov.Settings = []Setting{}
	for _, k := range r.settings.Keys() {
		v, src, _ := r.settings.Get(k)
		if _, def := site.Defaults()[k]; def || src != "default" {
			if def || strings.HasPrefix(k, "ozone.scm.") || strings.HasPrefix(k, "hdds.") {
				cov.Settings = append(cov.Settings, Setting{Key: k, Value: v, Source: src})
			}
		}
	}
	return cov
}

// countingReader counts bytes and reports progress every 64 MiB.
type countingReader struct {
	r    io.Reader
	run  *run
	path string
	n    int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	before := c.run.bytes
	c.n += int64(n)
	c.run.bytes += int64(n)
	if c.run.opt.Progress != nil && before>>26 != c.run.bytes>>26 {
		c.run.opt.Progress(Progress{Files: len(c.run.cov.Files), Bytes: c.run.bytes, Path: c.path})
	}
	return n, err
}
