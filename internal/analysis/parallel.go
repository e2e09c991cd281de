package analysis

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/stream"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// A bundle's files on disk are read by several workers at once
// (bundle.WalkParallel). The engine must see what one worker would give it,
// in the same order: a file on disk whose turn has not come records what
// its Recognizer does to the streams, and replays it in turn; once its turn
// has come (the files before it are done), it goes straight into the
// pipeline. The records of all files share a budget (half the spill
// budget): a file whose record would outgrow it waits for its turn, so
// that memory stays bounded whatever the files' sizes.

// walkParallel reads the inputs with workers at once into the pipeline.
func (b *bundleSource) walkParallel(ctx context.Context, workers int) ([]bundle.Problem, error) {
	p := b.p
	recognizers := make(chan *stream.Recognizer, workers)
	for range workers {
		recognizers <- stream.NewRecognizer(p.cat, p.opt.GapThreshold)
	}
	budget := &recordBudget{} // unbounded
	if p.opt.SpillBudget > 0 {
		budget.limit = max(p.opt.SpillBudget/2, 1<<20)
	}
	records := &sync.Pool{} // *[]call, empty: records given back
	visit := func(t *bundle.Turn, f bundle.File, rd io.Reader) error {
		tr, _ := t.Value.(*turnRecord)
		if tr == nil {
			tr = &turnRecord{p: p, turn: t, budget: budget, records: records}
			t.Value = tr
		}
		tr.do(func() { p.rank(f.Rank) })
		recog := <-recognizers
		defer func() { recognizers <- recog }()
		target := &turnStreams{tr: tr}
		fc, err := p.read(f, rd, recog, target)
		tr.do(func() { b.commit(fc, f.Rank, f.Next) })
		return err
	}
	end := func(t *bundle.Turn) {
		if tr, _ := t.Value.(*turnRecord); tr != nil {
			tr.goLive()
		}
	}
	return bundle.WalkParallel(ctx, p.opt.Inputs, b.options(), workers, visit, end)
}

// turnRecord is what a file on disk keeps until its turn.
type turnRecord struct {
	p       *Pipeline
	turn    *bundle.Turn
	live    bool   // its turn has come: calls go to the pipeline
	pending []call // what to do in turn, in order
	cost    int64  // estimated bytes pending
	budget  *recordBudget
	records *sync.Pool // of pending lists, shared by the files of a walk
}

// call is one call kept for the turn: fn, or if nil the push of sig to
// the stream of s's id. Pushes are most calls on signal-dense logs: kept
// in a list reused from file to file, they allocate nothing.
type call struct {
	fn  func()
	s   *turnStreams
	id  stream.ID
	sig catalogue.Signal
	now time.Time
}

// recordBudget is what the records of files waiting for their turn may
// hold together.
type recordBudget struct {
	limit int64 // 0: unbounded
	spent atomic.Int64
}

// do runs fn in turn: now if the turn has come, else when it does.
func (tr *turnRecord) do(fn func()) {
	if tr.live {
		fn()
		return
	}
	tr.keep().fn = fn
}

// keep appends a call to the pending ones and returns it, to be filled.
func (tr *turnRecord) keep() *call {
	if tr.pending == nil {
		if l, _ := tr.records.Get().(*[]call); l != nil {
			tr.pending = *l
		}
	}
	tr.pending = append(tr.pending, call{})
	return &tr.pending[len(tr.pending)-1]
}

// goLive waits for the turn and runs what was pending.
func (tr *turnRecord) goLive() {
	if tr.live {
		return
	}
	tr.turn.Wait()
	for i := range tr.pending {
		if c := &tr.pending[i]; c.fn != nil {
			c.fn()
		} else {
			tr.p.merger.PushRef(c.s.ids[c.id], &c.sig, c.now)
		}
	}
	tr.budget.spent.Add(-tr.cost)
	if tr.pending != nil {
		clear(tr.pending) // let go of the signals' text
		l := tr.pending[:0]
		tr.records.Put(&l)
	}
	tr.pending, tr.cost, tr.live = nil, 0, true
}

// spend accounts for what a pending call keeps, and waits for the turn when
// the budget is spent.
func (tr *turnRecord) spend(n int64) {
	tr.cost += n
	if spent := tr.budget.spent.Add(n); tr.budget.limit > 0 && spent > tr.budget.limit {
		tr.goLive()
	}
}

// turnStreams are the streams of one file of a file on disk: calls are
// made in turn, with the pipeline's stream IDs.
type turnStreams struct {
	tr  *turnRecord
	ids []stream.ID // the pipeline's, by this file's own
}

func (s *turnStreams) Open(host string, comp parsers.Component, now time.Time) stream.ID {
	local := stream.ID(len(s.ids))
	s.ids = append(s.ids, -1)
	s.tr.do(func() { s.ids[local] = s.tr.p.merger.Open(host, comp, now) })
	return local
}

func (s *turnStreams) Relabel(id stream.ID, host string, comp parsers.Component) {
	s.tr.do(func() { s.tr.p.merger.Relabel(s.ids[id], host, comp) })
}

func (s *turnStreams) Push(id stream.ID, sig catalogue.Signal, now time.Time) {
	if s.tr.live {
		s.tr.p.merger.PushRef(s.ids[id], &sig, now)
		return
	}
	c := s.tr.keep()
	c.s, c.id, c.sig, c.now = s, id, sig, now
	s.tr.spend(stream.Cost(&sig))
}

func (s *turnStreams) Progress(id stream.ID, t, now time.Time) {
	s.tr.do(func() { s.tr.p.merger.Progress(s.ids[id], t, now) })
}

func (s *turnStreams) Close(id stream.ID) {
	s.tr.do(func() { s.tr.p.merger.Close(s.ids[id]) })
}
