package stream

import (
	"io"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
)

// Recognizer turns the records of a log file into signals: it detects the
// layout, folds multi-line records, matches the catalogue, names each
// stream's host and component (file name, docker-compose service, then the
// stream's own STARTUP_MSG banner) and reports silences in SCM logs. It
// reuses one scanner's buffers across files.
type Recognizer struct {
	cat     *catalogue.Catalogue
	scanner *log4j.Scanner    // Scan's, reused from file to file
	filter  *catalogue.Filter // Scan's, likewise
	// GapThreshold is the shortest silence in an SCM log reported as a
	// LogGap signal.
	GapThreshold time.Duration
}

// File is one log file to recognise.
type File struct {
	Path      string
	Host      string // from the file name or directory, "" if unknown
	Component parsers.Component
	Kind      parsers.Kind
	Zone      *time.Location // of the file's timestamps
}

// FileResult is what one file gave.
type FileResult struct {
	Stats     log4j.Stats
	Signals   int64
	Host      string // the host learned, when the name did not tell
	Component parsers.Component
}

// NewRecognizer returns a Recognizer matching cat's entries.
func NewRecognizer(cat *catalogue.Catalogue, gapThreshold time.Duration) *Recognizer {
	return &Recognizer{cat: cat, filter: cat.Filter(), GapThreshold: gapThreshold}
}

// source is one stream of a file: the file, or one compose service.
type source struct {
	id        ID
	compose   bool // the host is a stand-in until a banner names it
	host      string
	component parsers.Component
	signals   int64
	reported  time.Time // the newest time Streams.Progress was told
}

// Streams receives the signals of the streams a Recognizer finds; a
// Merger is one.
type Streams interface {
	Open(host string, comp parsers.Component, now time.Time) ID
	Relabel(id ID, host string, comp parsers.Component)
	Push(id ID, s catalogue.Signal, now time.Time)
	// Progress tells that the stream has read records up to event time t,
	// signals or not.
	Progress(id ID, t, now time.Time)
	Close(id ID)
}

// Scan reads f from rd and pushes its signals into m at wall time now.
func (r *Recognizer) Scan(f File, rd io.Reader, m Streams, now time.Time) (FileResult, error) {
	opt := r.options(f, 0, r.filter)
	if r.scanner == nil {
		r.scanner = log4j.NewScanner(rd, opt)
	} else {
		r.scanner.Reset(rd, opt)
	}
	fs := r.newFileScan(f, r.scanner, r.filter, m)
	fs.drain(now)
	return fs.close(now), r.scanner.Err()
}

// Follower recognises a file that grows (a tailer's): its lines are fed as
// they come, its records leave as they complete.
type Follower struct {
	fs *fileScan
	// fed are the (line, offset) of the lines fed since the oldest record
	// still open began, for OpenPosition.
	fed []linePos
}

type linePos struct {
	line   int
	offset int64
}

// Follow starts recognising f from its line firstLine (1 for the start of
// the file) at byte offset, pushing into m.
func (r *Recognizer) Follow(f File, firstLine int, offset int64, m Streams) *Follower {
	filter := r.cat.Filter()
	opt := r.options(f, firstLine-1, filter)
	opt.ByteOffset = offset
	sc := log4j.NewFeeder(opt)
	return &Follower{fs: r.newFileScan(f, sc, filter, m)}
}

// FeedLine hands on one line of the file, which starts at offset.
func (fl *Follower) FeedLine(text []byte, line int, offset int64) {
	fl.fs.sc.FeedLine(text)
	fl.fed = append(fl.fed, linePos{line, offset})
}

// Drain pushes the signals of the records the lines fed so far complete,
// at wall time now.
func (fl *Follower) Drain(now time.Time) {
	fl.fs.drain(now)
	open := fl.fs.sc.OpenLine()
	i := 0
	for i < len(fl.fed) && (open == 0 || fl.fed[i].line < open) {
		i++
	}
	fl.fed = append(fl.fed[:0], fl.fed[i:]...)
}

// Flush ends the records still open (the file has been idle) and pushes
// their signals.
func (fl *Follower) Flush(now time.Time) {
	fl.fs.sc.Flush()
	fl.Drain(now)
}

// CaughtUp tells that the file has been read to its end, with no record
// open, at wall time now: whatever it logs next is logged from now on, so
// its streams hold the others back no further than now (minus the
// lateness). A quiet file then costs an alert nothing but the lateness.
func (fl *Follower) CaughtUp(now time.Time) {
	if fl.fs.sc.OpenLine() > 0 {
		return
	}
	for _, src := range fl.fs.order {
		fl.fs.m.Progress(src.id, now, now)
	}
}

// Result returns what was recognised of the file so far.
func (fl *Follower) Result() FileResult { return fl.fs.result() }

// End ends the file (it was let go): its records and streams are closed.
func (fl *Follower) End(now time.Time) FileResult {
	fl.fs.sc.End()
	fl.Drain(now)
	return fl.fs.close(now)
}

// OpenPosition returns the line and offset where the oldest record still
// open began, and false when none is: a checkpoint restarts the file there
// so that the record is read again whole.
func (fl *Follower) OpenPosition() (line int, offset int64, ok bool) {
	if open := fl.fs.sc.OpenLine(); open > 0 && len(fl.fed) > 0 && fl.fed[0].line == open {
		return open, fl.fed[0].offset, true
	}
	return 0, 0, false
}

// options are the scanner options for f, filtered by filter.
func (r *Recognizer) options(f File, lineOffset int, filter *catalogue.Filter) log4j.Options {
	opt := log4j.Options{Location: f.Zone, Candidate: filter.Candidate, Kind: f.Kind, LineOffset: lineOffset}
	// Silences are evidence of an SCM pause (HDDS-17519); elsewhere they
	// are ordinary (quiet services log little), so only SCM logs (and
	// compose captures, which hold SCMs among others) report them.
	if f.Component == parsers.ComponentSCM || f.Component == parsers.ComponentUnknown {
		opt.GapThreshold = r.GapThreshold
	}
	return opt
}

// fileScan is the recognition of one file: its streams (the file, or each
// service of a docker-compose capture).
type fileScan struct {
	r         *Recognizer
	f         File
	sc        *log4j.Scanner
	filter    *catalogue.Filter // sc's: it matches the records it passed
	m         Streams
	order     []*source // in the order opened
	byService map[string]*source
	signals   []catalogue.Signal // a record's, reused: they are pushed by value
}

func (r *Recognizer) newFileScan(f File, sc *log4j.Scanner, filter *catalogue.Filter, m Streams) *fileScan {
	return &fileScan{r: r, f: f, sc: sc, filter: filter, m: m, byService: map[string]*source{}}
}

// source returns the stream of a compose service ("" for the file's own),
// opening it in the merger at wall time now.
func (fs *fileScan) source(service string, now time.Time) *source {
	src, ok := fs.byService[service]
	if !ok {
		src = &source{host: fs.f.Host, component: fs.f.Component}
		if service != "" {
			src.compose = true
			src.host, src.component = serviceIdentity(service)
		}
		src.id = fs.m.Open(src.host, src.component, now)
		fs.byService[service] = src
		fs.order = append(fs.order, src)
	}
	return src
}

// drain pushes the signals of every record the scanner completes.
func (fs *fileScan) drain(now time.Time) {
	for fs.sc.Next() {
		rec := fs.sc.Record()
		src := fs.source(rec.Service, now)
		rec.Origin.File, rec.Host, rec.Component = fs.f.Path, src.host, src.component
		fs.signals = fs.filter.AppendMatches(fs.signals[:0], rec)
		for _, s := range fs.signals {
			if s.Kind == catalogue.StartupMsg || s.Kind == catalogue.ShutdownMsg {
				fs.r.learn(fs.m, src, &s)
			}
			src.signals++
			fs.m.Push(src.id, s, now)
		}
		// A silence is reported after the signals of the record that ends it.
		if !rec.Time.IsZero() {
			fs.sendGaps(rec.Time, now)
		}
	}
	// Lines without signals move a stream's watermark too (the scanner
	// reads the time of every line, candidate or not): a stream that keeps
	// logging ordinary lines holds the others back no longer than its own
	// lines lag. A record still open is not late for it: the watermark
	// stays the lateness behind the stream's newest time.
	for service, src := range fs.byService {
		if t := fs.sc.Latest(service); t.After(src.reported) {
			fs.m.Progress(src.id, t, now)
			src.reported = t
		}
	}
}

// sendGaps pushes the silences found up to upTo (zero: all of them), and
// has the scanner forget them: a quiet log has a silence per record.
func (fs *fileScan) sendGaps(upTo, now time.Time) {
	gaps := fs.sc.Gaps()
	sent := 0
	for ; sent < len(gaps) && (upTo.IsZero() || !gaps[sent].To.After(upTo)); sent++ {
		g := gaps[sent]
		src := fs.source(g.Service, now)
		if src.component != parsers.ComponentSCM && src.component != parsers.ComponentUnknown {
			continue
		}
		src.signals++
		fs.m.Push(src.id, catalogue.Signal{
			Kind: catalogue.LogGap, Time: g.To, Duration: g.To.Sub(g.From),
			Host: src.host, Component: src.component,
			Origin: parsers.Origin{File: fs.f.Path, Line: g.Line},
			Text:   catalogue.GapText(g.From, g.To),
		}, now)
	}
	fs.sc.ForgetGaps(sent)
}

// close sends the last silences, closes the file's streams and returns
// what the file gave.
func (fs *fileScan) close(now time.Time) FileResult {
	fs.sendGaps(time.Time{}, now)
	for _, src := range fs.order {
		fs.m.Close(src.id)
	}
	return fs.result()
}

// result returns what was recognised of the file so far.
func (fs *fileScan) result() FileResult {
	res := FileResult{Stats: fs.sc.Stats()}
	for _, src := range fs.order {
		res.Signals += src.signals
		if res.Host == "" {
			res.Host = src.host
		}
		if res.Component == "" {
			res.Component = src.component
		}
	}
	return res
}

// learn fills a stream's unknown host and component from its STARTUP_MSG
// or SHUTDOWN_MSG banner, in the stream and in its signals not released yet.
func (r *Recognizer) learn(m Streams, src *source, s *catalogue.Signal) {
	host, comp := src.host, src.component
	if h := s.Attrs["hostname"]; h != "" && (src.host == "" || src.compose) {
		host = h
		src.compose = false
	}
	if comp == "" {
		comp = catalogue.ServiceComponent(s.Attrs["service"])
	}
	if host != src.host || comp != src.component {
		src.host, src.component = host, comp
		m.Relabel(src.id, host, comp)
	}
	s.Host, s.Component = host, comp
}

// serviceIdentity maps a docker-compose service prefix ("scm_1",
// "ozone-datanode-1", "om2_1") to a stand-in host name and a component. The
// prefix names a container, not a host: a STARTUP_MSG banner in the stream
// replaces it with the real host name.
func serviceIdentity(service string) (string, parsers.Component) {
	_, comp, _ := bundle.Classify(service + "/x.log")
	return service, comp
}
