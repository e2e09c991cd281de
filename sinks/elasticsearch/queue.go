package elasticsearch

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/store/atomicfile"
)

// QueueConfig configures a Queue. Zero values take the defaults.
type QueueConfig struct {
	// StateDir keeps the queue across restarts; "" keeps it in memory.
	StateDir string
	// MaxQueue bounds the documents waiting; when full, the oldest
	// transition is dropped first, then the oldest finding (counted).
	// Default 10000.
	MaxQueue int
	// Batch is the most documents per bulk request; default 500.
	Batch int
	// BackoffMin and BackoffMax bound the wait after failures, doubled per
	// consecutive failure, of which a random half to all is waited.
	// Defaults 1s and 5m.
	BackoffMin, BackoffMax time.Duration
}

// queueFile is the queue's file in the state directory.
const queueFile = "elasticsearch-findings.json"

// Queue indexes a daemon's alert transitions and the findings they change:
// Observe queues their documents (a finding's document replaces the one
// queued for the same finding), Tick sends them. It keeps the queue in the
// state directory (written atomically after every change), so an
// Elasticsearch outage or a restart loses nothing; a request that fails,
// times out or is answered with 429 or 5xx is retried with backoff, a
// document refused with another 4xx is dropped and counted. The template is
// installed before the first document is sent.
type Queue struct {
	sink *Sink
	cfg  QueueConfig

	tick sync.Mutex // one Tick at a time

	mu        sync.Mutex
	entries   map[string]*queued // by index and ID
	seq       uint64
	installed bool
	failures  int
	nextTry   time.Time
	stats     QueueStats
}

// QueueStats say what the queue did.
type QueueStats struct {
	Queue                 int
	Sent, Failed, Dropped int64
	LastError             string
}

type queued struct {
	Doc        Doc    `json:"doc"`
	Seq        uint64 `json:"seq"`
	Transition bool   `json:"transition,omitempty"`
}

// NewQueue returns the queue of s, loaded from the state directory.
func (s *Sink) NewQueue(cfg QueueConfig) (*Queue, error) {
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = 10000
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 500
	}
	if cfg.BackoffMin <= 0 {
		cfg.BackoffMin = time.Second
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = 5 * time.Minute
	}
	q := &Queue{sink: s, cfg: cfg, entries: map[string]*queued{}}
	if cfg.StateDir == "" {
		return q, nil
	}
	b, err := os.ReadFile(filepath.Join(cfg.StateDir, queueFile))
	if os.IsNotExist(err) {
		return q, nil
	}
	if err != nil {
		return nil, fmt.Errorf("elasticsearch queue: %w", err)
	}
	var saved []*queued
	if err := json.Unmarshal(b, &saved); err != nil {
		return nil, fmt.Errorf("elasticsearch queue %s: %w (move it away to start afresh)", filepath.Join(cfg.StateDir, queueFile), err)
	}
	for _, e := range saved {
		q.entries[e.Doc.Index+"/"+e.Doc.ID] = e
		q.seq = max(q.seq, e.Seq)
	}
	return q, nil
}

// Observe queues the documents of a transition: the finding's (replacing
// the one queued for it; a withdrawn pending alert's says "inactive") and,
// for a change of state or severity, the transition's. The engine
// finalized the finding.
func (q *Queue) Observe(t detectors.Transition) {
	if t.To == detectors.Inactive { // withdrawn: its document says so
		t.Finding.State = detectors.Inactive
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.put(q.sink.FindingDoc(t.Finding), false)
	if !t.Update() {
		q.put(q.sink.TransitionDoc(t), true)
	}
	q.save()
}

// put queues d (caller holds mu), making room when the queue is full.
func (q *Queue) put(d Doc, transition bool) {
	k := d.Index + "/" + d.ID
	if _, ok := q.entries[k]; !ok && len(q.entries) >= q.cfg.MaxQueue {
		var victim string
		for vk, e := range q.entries {
			v := q.entries[victim]
			if victim == "" || e.Transition && !v.Transition || e.Transition == v.Transition && e.Seq < v.Seq {
				victim = vk
			}
		}
		delete(q.entries, victim)
		q.stats.Dropped++
	}
	q.seq++
	q.entries[k] = &queued{Doc: d, Seq: q.seq, Transition: transition}
}

// Tick sends the oldest queued documents when Elasticsearch is not being
// backed off; it blocks until the request is answered or times out.
func (q *Queue) Tick(ctx context.Context, now time.Time) {
	q.tick.Lock()
	defer q.tick.Unlock()
	q.mu.Lock()
	if len(q.entries) == 0 || now.Before(q.nextTry) {
		q.mu.Unlock()
		return
	}
	keys := slices.SortedFunc(maps.Keys(q.entries), func(a, b string) int { return cmp.Compare(q.entries[a].Seq, q.entries[b].Seq) })
	keys = keys[:min(len(keys), q.cfg.Batch)]
	batch := make([]queued, len(keys))
	docs := make([]Doc, len(keys))
	for i, k := range keys {
		batch[i], docs[i] = *q.entries[k], q.entries[k].Doc
	}
	installed := q.installed
	q.mu.Unlock()

	var err error
	if !installed {
		err = q.sink.InstallTemplate(ctx)
	}
	var statuses []int
	var reasons []string
	if err == nil {
		statuses, reasons, err = q.sink.bulk(ctx, docs)
	}

	q.mu.Lock()
	defer q.mu.Unlock()
	if err != nil {
		q.failed(now, err.Error(), int64(len(docs)))
		return
	}
	q.installed = true
	retry := false
	for i, st := range statuses {
		switch {
		case st < 300:
			q.stats.Sent++
		case st == http.StatusTooManyRequests || st >= 500:
			retry = true
			q.stats.Failed++
			q.stats.LastError = reasons[i]
			continue
		default: // refused: it will not be accepted later either
			q.stats.Dropped++
			q.stats.LastError = reasons[i]
		}
		if e, ok := q.entries[keys[i]]; ok && e.Seq == batch[i].Seq {
			delete(q.entries, keys[i]) // not replaced while it was sent
		}
	}
	if retry {
		q.failed(now, q.stats.LastError, 0)
	} else {
		q.failures, q.nextTry = 0, time.Time{}
	}
	q.save()
}

// failed backs off after a failure (caller holds mu).
func (q *Queue) failed(now time.Time, err string, docs int64) {
	q.stats.Failed += docs
	q.stats.LastError = err
	q.failures++
	d := q.cfg.BackoffMin
	for i := 1; i < q.failures && d < q.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, q.cfg.BackoffMax)
	q.nextTry = now.Add(d/2 + time.Duration(rand.Float64()*float64(d/2)))
}

// save writes the queue (caller holds mu); a failure is kept in the stats
// and the queue goes on in memory.
func (q *Queue) save() {
	if q.cfg.StateDir == "" {
		return
	}
	saved := make([]*queued, 0, len(q.entries))
	for _, k := range slices.Sorted(maps.Keys(q.entries)) {
		saved = append(saved, q.entries[k])
	}
	b, err := json.Marshal(saved)
	if err == nil {
		err = atomicfile.Write(filepath.Join(q.cfg.StateDir, queueFile), b)
	}
	if err != nil {
		q.stats.LastError = "write the queue: " + err.Error()
	}
}

// Stats returns what the queue did.
func (q *Queue) Stats() QueueStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := q.stats
	st.Queue = len(q.entries)
	return st
}
