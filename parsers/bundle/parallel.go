package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// Turn is the place of one file on disk (with every file inside it, when it
// is an archive) in a WalkParallel: files on disk are visited at once, and
// take their turns in walk order.
type Turn struct {
	prev <-chan struct{} // closed when every earlier file on disk is done
	done chan struct{}
	// Value is the caller's: what it keeps for this file until its turn.
	Value any
}

// Wait blocks until every file on disk before this one in walk order is
// done: from then on, what the caller does for this file follows all it did
// for those.
func (t *Turn) Wait() { <-t.prev }

// WalkParallel is Walk visiting up to workers files on disk at once (each
// with every file inside it, in order), for the cores of the machine. visit
// is called concurrently for files of different files on disk, with their
// Turn; end is called once per file on disk, after its last visit, when its
// turn has come (Turn.Wait has returned), and may use all the caller kept
// for it. The problems are those Walk would report, in the same order, with
// one difference: a total read limit reached stops the walk after the file
// on disk that reached it, read whole.
func WalkParallel(ctx context.Context, inputs []string, opt Options, workers int,
	visit func(t *Turn, f File, r io.Reader) error, end func(t *Turn)) ([]Problem, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if visit == nil || end == nil {
		return nil, errors.New("bundle: nil callback")
	}
	workers = max(workers, 1)
	w := &walker{ctx: ctx, opt: opt, bufs: &buffers{}}
	par := &parallel{w: w, visit: visit, end: end, slots: make(chan struct{}, workers),
		window: make(chan struct{}, 4*workers), last: closed(), files: make(chan func())}
	for range cap(par.window) {
		go par.run()
	}
	w.par = par
	w.walkInputs(inputs, workers)
	<-par.last // every file on disk done
	close(par.files)
	w.par = nil
	return w.problems, ctx.Err()
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// parallel dispatches the files on disk of a WalkParallel. What the walk
// itself finds (problems, bytes read) joins in turn, so that the walk's
// problems are in walk order.
type parallel struct {
	w       *walker // the walk's own
	visit   func(*Turn, File, io.Reader) error
	end     func(*Turn)
	slots   chan struct{} // files on disk being read
	window  chan struct{} // files on disk not done: bounds what waits for its turn
	last    <-chan struct{}
	stopped atomic.Bool // the total read limit was reached
	// files are the files on disk dispatched, each run by one of as many
	// goroutines as window holds: a goroutine of its own for each file
	// grew its stack again for every file (2.5% of a run's CPU over ten
	// thousand files).
	files chan func()
}

// run runs dispatched files until the walk ends.
func (par *parallel) run() {
	for file := range par.files {
		file()
	}
}

// inTurn runs fn after everything dispatched before it.
func (par *parallel) inTurn(fn func()) {
	t := par.nextTurn()
	go func() {
		t.Wait()
		fn()
		close(t.done)
	}()
}

// nextTurn returns the turn after everything dispatched so far.
func (par *parallel) nextTurn() *Turn {
	t := &Turn{prev: par.last, done: make(chan struct{})}
	par.last = t.done
	return t
}

// dispatch visits a file on disk once a worker is free. It has a walker of
// its own, whose problems and bytes join the walk's in turn.
func (par *parallel) dispatch(n node) {
	par.window <- struct{}{}
	par.slots <- struct{}{}
	t := par.nextTurn()
	par.files <- func() {
		defer func() { <-par.window }()
		defer close(t.done)
		sub := &walker{ctx: par.w.ctx, opt: par.w.opt, bufs: par.w.bufs}
		sub.fn = func(f File, r io.Reader) error { return par.visit(t, f, r) }
		sub.visitPath(n)
		<-par.slots
		t.Wait()
		if !par.stopped.Load() {
			par.end(t)
			par.join(n.path, sub)
		}
	}
}

// join adds a file on disk's walk to the whole walk's.
func (par *parallel) join(p string, sub *walker) {
	w := par.w
	w.problems = append(w.problems, sub.problems...)
	w.total += sub.total
	if !sub.stopped && w.total >= w.opt.MaxTotalBytes {
		w.problems = append(w.problems, Problem{Path: p, Reason: fmt.Sprintf("the walk's total read limit of %s was reached in this file: all files after it were not read (raise the total limit to read them)",
			size(w.opt.MaxTotalBytes))})
	}
	if sub.stopped || w.total >= w.opt.MaxTotalBytes {
		par.stopped.Store(true)
	}
}
