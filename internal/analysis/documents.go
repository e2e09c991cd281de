package analysis

import (
	"context"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/stream"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/report"
)

// DocumentSource is a search engine holding log documents a shipper stored
// (parsers/es is one).
type DocumentSource interface {
	Name() string
	// Silences returns the spans without documents of the files keep selects.
	Silences(ctx context.Context, keep func(host, path string) bool) ([]parsers.Silence, error)
	// Documents calls fn with the documents that hold one of literals, in
	// event-time order, then file offset.
	Documents(ctx context.Context, literals []catalogue.Literal, fn func(parsers.Document) error) error
}

// releaseEvery is how many documents pass between hand-overs of due signals
// to the engine.
const releaseEvery = 1024

// RunDocuments analyses the documents of src as Run analyses a bundle: each
// host's file is one stream whose lines feed the same recognizer; silences
// come from the source (the documents are a filtered selection, so gaps
// between them say nothing).
func RunDocuments(ctx context.Context, opt Options, src DocumentSource) (*report.Result, error) {
	opt.Inputs = []string{src.Name()}
	p, err := NewPipeline(opt)
	if err != nil {
		return nil, err
	}
	return p.Analyze(ctx, Documents(src))
}

// Documents is the batch source of src's documents: its silences, then
// every document that holds a literal, in one Poll.
func Documents(src DocumentSource) Source { return documents{src} }

type documents struct{ src DocumentSource }

func (d documents) Poll(ctx context.Context, in *Input, _ time.Time) (bool, error) {
	feed := in.Documents()
	silences, err := d.src.Silences(ctx, SilencesMatter)
	if err != nil {
		return true, err
	}
	feed.Silences(silences)
	n := 0
	err = d.src.Documents(ctx, in.Literals(), func(doc parsers.Document) error {
		feed.Document(doc, time.Time{})
		if n++; n%releaseEvery == 0 {
			in.Release(time.Time{})
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	feed.End(time.Time{})
	return true, nil
}

// SilencesMatter selects the files whose silences detectors read: SCM logs
// (and files whose component cannot be told from their path).
func SilencesMatter(host, path string) bool {
	_, comp, _ := bundle.Classify(path)
	return comp == parsers.ComponentSCM || comp == parsers.ComponentUnknown
}

// Literals are the catalogue's literals a document source pushes down.
func (in *Input) Literals() []catalogue.Literal { return in.p.cat.LiteralEdges() }

// DocumentFeed hands a document source's documents and silences to a
// pipeline: each host's file is one stream.
type DocumentFeed struct {
	in      *Input
	recog   *stream.Recognizer // without silences: the documents are a selection
	streams map[string]*docStream
	order   []*docStream
}

// Documents returns a feed of documents into the pipeline.
func (in *Input) Documents() *DocumentFeed {
	return &DocumentFeed{in: in, recog: stream.NewRecognizer(in.p.cat, 0), streams: map[string]*docStream{}}
}

// Document feeds one document's lines (several when the shipper folded a
// record) at wall time now (zero in a batch run).
func (f *DocumentFeed) Document(d parsers.Document, now time.Time) {
	key := d.Host + "\x00" + d.Path
	ds := f.streams[key]
	if ds == nil {
		ds = f.openDocStream(d)
		f.streams[key] = ds
		f.order = append(f.order, ds)
	}
	ds.feed(d, now)
}

// Flush completes every stream's open record: the documents up to now are
// all there.
func (f *DocumentFeed) Flush(now time.Time) {
	for _, ds := range f.order {
		ds.fl.Flush(now)
	}
}

// End closes the streams.
func (f *DocumentFeed) End(now time.Time) {
	for _, ds := range f.order {
		ds.fl.End(now)
	}
	f.streams, f.order = map[string]*docStream{}, nil
}

// docStream is one host's file as its documents arrive.
type docStream struct {
	fl   *Followed
	line int
}

func (f *DocumentFeed) openDocStream(d parsers.Document) *docStream {
	file := f.in.File(d.Path)
	if d.Host != "" {
		file.Host, file.Zone = d.Host, f.in.p.zone(d.Host)
	}
	file.Path = d.Host + ":" + d.Path
	fl := f.in.follow(f.recog, file, 1, 0)
	fl.file.fc.Note = "documents selected by the pushed-down query"
	return &docStream{fl: fl}
}

// feed hands on a document's lines.
func (ds *docStream) feed(d parsers.Document, now time.Time) {
	off := d.Offset
	for line := range strings.SplitSeq(strings.TrimSuffix(d.Message, "\n"), "\n") {
		ds.line++
		ds.fl.Follower.FeedLine([]byte(line), ds.line, off) // counted below, as the document's bytes
		if off >= 0 {
			off += int64(len(line)) + 1
		}
	}
	ds.fl.file.fc.Bytes += int64(len(d.Message))
	ds.fl.Drain(now)
}

// Silences hands a source's silences on as LogGap signals, one stream per
// file.
func (f *DocumentFeed) Silences(silences []parsers.Silence) {
	p := f.in.p
	byFile := map[string]stream.ID{}
	var ids []stream.ID
	for _, s := range silences {
		_, comp, _ := bundle.Classify(s.Path)
		key := s.Host + "\x00" + s.Path
		id, ok := byFile[key]
		if !ok {
			id = p.merger.Open(s.Host, comp, time.Time{})
			byFile[key] = id
			ids = append(ids, id)
		}
		p.merger.Push(id, catalogue.Signal{
			Kind: catalogue.LogGap, Time: s.To, Duration: s.To.Sub(s.From), Host: s.Host, Component: comp,
			Origin: parsers.Origin{File: s.Host + ":" + s.Path},
			Text:   catalogue.GapText(s.From, s.To),
		}, time.Time{})
	}
	for _, id := range ids {
		p.merger.Close(id)
	}
}
