package analysis

import (
	"context"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/stream"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/report"
)

// Source is one input of a pipeline, in the manner of mtail's LogStream: a
// small adapter whose one method hands the pipeline, through the Input,
// what its inputs hold by wall time now, and says whether it has ended. A
// batch run polls with a zero now, and a source reads to its end; a live
// run polls on the wall clock, and a source hands on what is there and
// returns. Reading to the end and following are the same code path. A
// source releases what it completed (Input.Release) on its own clock: the
// wall clock for followed files, the end of its window for a search
// engine read a settling delay behind it.
//
// The sources: a bundle's walk (Bundle), a search engine's documents
// (Documents), a recording (Recording.Replay); in the daemon, followed
// files, Elasticsearch windows and /prom pages.
type Source interface {
	Poll(ctx context.Context, in *Input, now time.Time) (ended bool, err error)
}

// Step is how every source reaches the pipeline: it polls src at wall time
// now (zero: the batch clock, on which a source reads to its end).
func (p *Pipeline) Step(ctx context.Context, src Source, now time.Time) (ended bool, err error) {
	return src.Poll(ctx, &p.in, now)
}

// Analyze is a batch run of src: it is polled on the batch clock to its
// end, then the pipeline finishes. ErrNoInput (with the coverage) says no
// file or stream could be read.
func (p *Pipeline) Analyze(ctx context.Context, src Source) (*report.Result, error) {
	for {
		ended, err := p.Step(ctx, src, time.Time{})
		if err != nil {
			return nil, err
		}
		if ended {
			break
		}
	}
	p.in.settle()
	if p.cov.Files.Len() == 0 {
		p.cov.Skipped = nonNil(p.cov.Skipped)
		return &report.Result{Coverage: p.finishCoverage()}, ErrNoInput
	}
	return p.Finish(), nil
}

// Input is what a source sees of its pipeline: where it opens its streams
// (followed files, documents, /prom samples, or signals of its own), tells
// what it could not read, and hands on what is due. The coverage of every
// stream it opens is counted here, from what the Recognizer saw of it, so
// every mode reports the same coverage for the same records.
type Input struct {
	p      *Pipeline
	files  []*followedFile // in the order first opened
	byPath map[string]*followedFile
}

// followedFile is the coverage of a file followed under one path: its
// latest stream's, with the bytes of every stream of the path (a file
// rotated away and back) summed.
type followedFile struct {
	fc    report.FileCoverage // as its name told it, with Bytes and Note
	open  *stream.Follower    // nil once let go
	ended stream.FileResult   // the latest stream let go
}

// Signals is where a source that makes its own signals (a recording, a
// test) opens its streams and pushes them.
func (in *Input) Signals() stream.Streams { return in.p.target }

// Skipped tells that an input could not be read, and why.
func (in *Input) Skipped(problems ...bundle.Problem) {
	in.p.cov.Skipped = append(in.p.cov.Skipped, problems...)
}

// Release hands on what is due at wall time now (zero: what precedes every
// open stream's watermark, in a batch run): a source calls it once its
// records up to now are all there.
func (in *Input) Release(now time.Time) { in.p.Release(now) }

// Follow starts recognising a file that grows, named f, from its line
// firstLine at byte offset: its lines are fed as they come (Followed).
func (in *Input) Follow(f stream.File, firstLine int, offset int64) *Followed {
	return in.follow(in.p.recog, f, firstLine, offset)
}

// File names the file at path as a bundle's would be (host, component and
// kind from its path), with the zone of its host.
func (in *Input) File(path string) stream.File {
	host, comp, kind := bundle.Classify(path)
	return stream.File{Path: path, Host: host, Component: comp, Kind: kind, Zone: in.p.zone(host)}
}

func (in *Input) follow(recog *stream.Recognizer, f stream.File, firstLine int, offset int64) *Followed {
	ff := in.byPath[f.Path]
	if ff == nil {
		ff = &followedFile{fc: report.FileCoverage{Path: f.Path, Host: f.Host, Component: string(f.Component), Kind: string(f.Kind)}}
		if in.byPath == nil {
			in.byPath = map[string]*followedFile{}
		}
		in.byPath[f.Path] = ff
		in.files = append(in.files, ff)
	}
	ff.open = recog.Follow(f, firstLine, offset, in.p.target)
	return &Followed{Follower: ff.open, file: ff}
}

// Followed is one followed file's stream: a stream.Follower whose fed
// bytes and result count in the coverage.
type Followed struct {
	*stream.Follower
	file *followedFile
}

// FeedLine hands on one line of the file, which starts at offset.
func (f *Followed) FeedLine(text []byte, line int, offset int64) {
	f.Follower.FeedLine(text, line, offset)
	f.file.fc.Bytes += int64(len(text)) + 1
}

// End ends the stream (the file was let go) and returns what was
// recognised of it.
func (f *Followed) End(now time.Time) stream.FileResult {
	res := f.Follower.End(now)
	f.file.ended = res
	if f.file.open == f.Follower { // not a newer stream of the same path
		f.file.open = nil
	}
	return res
}

// coverage returns the files followed, each as the Recognizer saw it.
func (in *Input) coverage() []report.FileCoverage {
	out := make([]report.FileCoverage, 0, len(in.files))
	for _, ff := range in.files {
		res := ff.ended
		if ff.open != nil {
			res = ff.open.Result()
		}
		fc := ff.fc
		fc.Note = ""
		fc = Recognised(fc, res)
		fc.Note = joinNote(fc.Note, ff.fc.Note)
		out = append(out, fc)
	}
	return out
}

// settle moves the files followed into the run's coverage: the input has
// ended.
func (in *Input) settle() {
	for _, fc := range in.coverage() {
		in.p.cov.Files.Add(fc, 0, 0, "")
	}
	in.files, in.byPath = nil, nil
}

// SourceFunc is a function as a Source (a page of samples read, a test's
// signals).
type SourceFunc func(ctx context.Context, in *Input, now time.Time) (ended bool, err error)

// Poll calls f.
func (f SourceFunc) Poll(ctx context.Context, in *Input, now time.Time) (bool, error) {
	return f(ctx, in, now)
}
