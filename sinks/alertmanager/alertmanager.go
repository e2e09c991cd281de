// Package alertmanager pushes ozdoctor's alerts to Prometheus Alertmanager
// through its API v2 (POST /api/v2/alerts), the way Prometheus does.
//
// A Sink is fed with the engine's transitions (Observe is a
// func(detectors.Transition), to subscribe) and sends on Tick, which the
// daemon calls with the wall clock (every second or so): firing alerts are
// sent when they fire or escalate (an update of their content waits for the
// next resend) and re-sent every ResendInterval with endsAt four resend intervals
// ahead, so that Alertmanager resolves them by itself if ozdoctor dies;
// resolved alerts are sent with endsAt the finding's end until an
// Alertmanager acknowledges them. Pending and withdrawn alerts are never
// sent.
//
// Every configured Alertmanager gets every alert, each through its own
// queue of pending notifications: the latest state per alert (a resolve
// replaces the firing of the same alert), bounded in entries, kept in the
// state directory (written atomically) so that a restart loses nothing, and
// retried with exponential backoff and jitter while the Alertmanager is
// down, times out or answers 5xx or 429. Another 4xx drops the alerts sent
// (a bad request will not get better) and counts them. When the state
// directory cannot be written, the sink keeps running in memory and says so
// in its Stats.
//
// Labels: alertname (AlertName of the detector), detector, defect,
// severity, cluster, incident (the finding's Key: with the detector it names
// the incident, as the engine's fingerprint does) and the identifying
// entities host, datanode, container, pipeline, raft_group and om_node
// (sorted and comma-joined when there are several, bounded by MaxLabelLen).
// An alert keeps the labels it first fired with while its severity stays:
// entities learned later change its annotations, not its identity in
// Alertmanager. An escalation changes the severity label, which makes a new
// alert in Alertmanager: the one of the former severity is resolved.
// Annotations: title, summary, description (the finding's summary and the
// first paragraph of the detector's explanation), remediation (the steps,
// numbered) and runbook_url (RunbookBase followed by the detector's name).
package alertmanager

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// Config configures a Sink.
type Config struct {
	// URLs are the Alertmanagers' base URLs (http://host:9093); the API
	// path is appended unless a URL already ends with /api/v2/alerts.
	URLs []string
	// Cluster is the value of the cluster label ("" leaves it out).
	Cluster string
	// RunbookBase, followed by the detector's name, is the runbook_url
	// annotation ("" leaves it out).
	RunbookBase string
	// GeneratorURL is sent as every alert's generatorURL (e.g. the
	// daemon's /alerts page); "" leaves it out.
	GeneratorURL string
	// Docs are the detectors' docs: their explanation's first paragraph
	// goes into the description annotation.
	Docs []detectors.Doc
	// StateDir keeps the queues across restarts; "" keeps them in memory.
	StateDir string
	// ResendInterval is how often firing alerts are sent again; 0 means
	// DefaultResendInterval. A firing alert's endsAt is four of them
	// ahead of the time it is sent.
	ResendInterval time.Duration
	// Timeout bounds one POST; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxQueue bounds the notifications queued per Alertmanager and the
	// firing alerts remembered; 0 means DefaultMaxQueue. When a queue is
	// full its oldest firing notification is dropped first (the next
	// resend brings it back), then its oldest resolve; a firing
	// notification never pushes out a resolve (it waits for the next
	// resend). Every notification dropped is counted.
	MaxQueue int
	// BackoffMin and BackoffMax bound the wait before retrying an
	// Alertmanager that failed: BackoffMin doubled per consecutive failure
	// up to BackoffMax, of which a random half to all is waited. 0 means
	// DefaultBackoffMin and DefaultBackoffMax.
	BackoffMin, BackoffMax time.Duration
	// MinFiring applies to an alert that resolves before it was ever sent
	// firing (a detector that recognises an incident only once it is
	// over): it is sent with endsAt MinFiring after the first attempt to
	// send it, so that Alertmanager holds it active long enough to notify
	// it and resolves it then by itself. 0 means DefaultMinFiring; a
	// negative value sends such an alert as resolved at once (Alertmanager
	// then notifies nothing for it).
	MinFiring time.Duration
	// Rand returns numbers in [0, 1) for the backoff's jitter; nil means
	// math/rand/v2's Float64.
	Rand func() float64
	// Client sends the requests; nil means a client without proxy settings
	// of its own (http.DefaultTransport) and Timeout per request.
	Client *http.Client
}

// Defaults of Config.
const (
	DefaultResendInterval = time.Minute
	DefaultTimeout        = 10 * time.Second
	DefaultMaxQueue       = 10000
	DefaultBackoffMin     = time.Second
	DefaultBackoffMax     = 5 * time.Minute
	DefaultMinFiring      = 5 * time.Minute
)

// maxBatch is the number of alerts per POST, as Prometheus sends them.
const maxBatch = 64

// stateFile is the name of the sink's file in the state directory.
const stateFile = "alertmanager.json"

// Stats say what the sink did, for metrics.
type Stats struct {
	Targets []TargetStats // in the order of Config.URLs
	Firing  int           // firing alerts re-sent every ResendInterval
	// Forgotten counts firing alerts dropped to stay within MaxQueue.
	Forgotten int64
	// StateError is the last failure to load or write the state directory
	// ("" after a successful write); StateErrors counts them.
	StateError  string
	StateErrors int64
}

// TargetStats describe one Alertmanager.
type TargetStats struct {
	URL       string
	Queue     int   // notifications waiting to be acknowledged
	Sent      int64 // notifications acknowledged (2xx)
	Failed    int64 // notifications in requests that failed and will be retried
	Dropped   int64 // notifications rejected with a 4xx or pushed out of a full queue
	LastError string
	// Failures counts the consecutive failed attempts; NextTry is when the
	// next one is due (zero when none failed).
	Failures int
	NextTry  time.Time
}

// Sink sends transitions to Alertmanagers. Observe and Tick may be called
// from different goroutines.
type Sink struct {
	cfg    Config
	docs   map[string]detectors.Doc
	client *http.Client
	rand   func() float64

	tick sync.Mutex // one Tick at a time

	mu         sync.Mutex
	firing     map[string]*firingAlert // by engine fingerprint
	targets    []*target
	seq        uint64
	lastResend time.Time
	forgotten  int64
	stateErr   string
	stateErrs  int64
}

// notice is the state of one alert as Alertmanager is to learn it.
type notice struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations,omitempty"`
	StartsAt    time.Time         `json:"startsAt"`
	Resolved    bool              `json:"resolved,omitempty"`
	EndsAt      time.Time         `json:"endsAt,omitzero"` // when resolved
	// Hold: resolved before it was ever sent firing; its endsAt is fixed
	// MinFiring after the first attempt (see Config.MinFiring), which then
	// sets Held.
	Hold bool `json:"hold,omitempty"`
	Held bool `json:"held,omitempty"`
}

// key identifies the alert in Alertmanager: its label set.
func (n notice) key() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(n.Labels)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(n.Labels[k])
		b.WriteByte(0)
	}
	return b.String()
}

type firingAlert struct {
	Fingerprint string `json:"fingerprint"`
	Notice      notice `json:"notice"`
	Seq         uint64 `json:"seq"`
}

// entry is one queued notification.
type entry struct {
	Notice notice `json:"notice"`
	Seq    uint64 `json:"seq"` // enqueue order; a replaced entry gets a new one
}

type target struct {
	endpoint string
	entries  map[string]*entry // by notice key
	stats    TargetStats
}

// New returns a sink for cfg. The state directory's queues are loaded; a
// failure to read them is reported in Stats, not returned.
func New(cfg Config) (*Sink, error) {
	if len(cfg.URLs) == 0 {
		return nil, errors.New("alertmanager: no URL")
	}
	if cfg.ResendInterval <= 0 {
		cfg.ResendInterval = DefaultResendInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = DefaultMaxQueue
	}
	if cfg.BackoffMin <= 0 {
		cfg.BackoffMin = DefaultBackoffMin
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.BackoffMax < cfg.BackoffMin {
		return nil, fmt.Errorf("alertmanager: backoff max %s below min %s", cfg.BackoffMax, cfg.BackoffMin)
	}
	if cfg.MinFiring == 0 {
		cfg.MinFiring = DefaultMinFiring
	}
	s := &Sink{cfg: cfg, docs: map[string]detectors.Doc{}, client: cfg.Client,
		rand: cfg.Rand, firing: map[string]*firingAlert{}}
	if s.client == nil {
		s.client = &http.Client{Timeout: cfg.Timeout}
	}
	if s.rand == nil {
		s.rand = rand.Float64
	}
	for _, d := range cfg.Docs {
		s.docs[d.Name] = d
	}
	seen := map[string]bool{}
	for _, u := range cfg.URLs {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("alertmanager: URL %q: want http:// or https://", u)
		}
		if seen[u] {
			return nil, fmt.Errorf("alertmanager: URL %q given twice", u)
		}
		seen[u] = true
		ep := strings.TrimRight(u, "/")
		if !strings.HasSuffix(ep, "/api/v2/alerts") {
			ep += "/api/v2/alerts"
		}
		s.targets = append(s.targets, &target{endpoint: ep, entries: map[string]*entry{}, stats: TargetStats{URL: u}})
	}
	s.load()
	return s, nil
}

// Observe takes one transition of the engine (subscribe it with
// Engine.Subscribe or analysis.Options.Subscribe). It queues what
// Alertmanager must learn and writes the state directory; sending is
// Tick's.
func (s *Sink) Observe(t detectors.Transition) {
	if t.To != detectors.Firing && t.To != detectors.Resolved {
		return // pending and withdrawn alerts are never sent
	}
	if t.To == detectors.Resolved && t.From == detectors.Resolved {
		return // an update of an alert Alertmanager already has as resolved
	}
	f := t.Finding // finalized by the engine
	n := notice{Labels: s.labelsOf(f), Annotations: s.annotationsOf(f), StartsAt: f.Start}
	if n.StartsAt.IsZero() {
		n.StartsAt = t.At
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.firing[t.Fingerprint]
	switch t.To {
	case detectors.Firing:
		if old != nil {
			if old.Notice.Labels["severity"] == n.Labels["severity"] {
				n.Labels = old.Notice.Labels // same alert in Alertmanager
			} else if old.Notice.key() != n.key() {
				s.enqueue(resolve(old.Notice, t.At)) // the former severity's alert ends
			}
		} else if len(s.firing) >= s.cfg.MaxQueue {
			s.forgetOldest()
		}
		s.seq++
		s.firing[t.Fingerprint] = &firingAlert{Fingerprint: t.Fingerprint, Notice: n, Seq: s.seq}
		if old != nil && t.Update() {
			// An update of its content goes with the next resend, and
			// is saved with it: no write per update.
			return
		}
		s.enqueue(n)
	case detectors.Resolved:
		end := f.End
		if end.IsZero() {
			end = t.At
		}
		if old != nil {
			n.Labels = old.Notice.Labels
			delete(s.firing, t.Fingerprint)
		} else {
			n.Hold = s.cfg.MinFiring > 0 && t.From != detectors.Firing
		}
		s.enqueue(resolve(n, end))
	}
	s.save()
}

func resolve(n notice, end time.Time) notice {
	n.Resolved, n.EndsAt = true, end
	return n
}

// forgetOldest drops the firing alert queued longest ago (caller holds mu).
func (s *Sink) forgetOldest() {
	var victim *firingAlert
	for _, a := range s.firing {
		if victim == nil || a.Seq < victim.Seq {
			victim = a
		}
	}
	if victim != nil {
		delete(s.firing, victim.Fingerprint)
		s.forgotten++
	}
}

// enqueue puts n in every target's queue, replacing the notification of the
// same alert (caller holds mu).
func (s *Sink) enqueue(n notice) {
	k := n.key()
	for _, t := range s.targets {
		if _, ok := t.entries[k]; !ok && len(t.entries) >= s.cfg.MaxQueue && !t.dropOldest(n.Resolved) {
			t.stats.Dropped++ // a firing alert does not push out a resolve; the next resend tries again
			continue
		}
		s.seq++
		t.entries[k] = &entry{Notice: n, Seq: s.seq}
	}
}

// dropOldest makes room: the oldest firing notification (a resend brings it
// back), else, if resolves is set, the oldest resolve. It reports whether it
// made room.
func (t *target) dropOldest(resolves bool) bool {
	var vk string
	var v *entry
	for k, e := range t.entries {
		if e.Notice.Resolved && !resolves {
			continue
		}
		if v == nil || !e.Notice.Resolved && v.Notice.Resolved ||
			e.Notice.Resolved == v.Notice.Resolved && e.Seq < v.Seq {
			vk, v = k, e
		}
	}
	if v == nil {
		return false
	}
	delete(t.entries, vk)
	t.stats.Dropped++
	return true
}

// Tick sends what is due at wall time now: firing alerts again every
// ResendInterval, and every queue whose Alertmanager is not backing off. It
// blocks until the requests are answered, time out (Config.Timeout) or ctx
// ends (what was not sent stays queued); the daemon calls it about every
// second, from any goroutine.
func (s *Sink) Tick(ctx context.Context, now time.Time) {
	s.tick.Lock()
	defer s.tick.Unlock()
	s.mu.Lock()
	if s.lastResend.IsZero() || now.Sub(s.lastResend) >= s.cfg.ResendInterval {
		s.lastResend = now
		for _, fp := range slices.Sorted(maps.Keys(s.firing)) {
			s.enqueue(s.firing[fp].Notice)
		}
	}
	type job struct {
		t     *target
		keys  []string
		batch []entry
		res   result
	}
	var jobs []*job
	changed := false
	for _, t := range s.targets {
		if len(t.entries) == 0 || now.Before(t.stats.NextTry) {
			continue
		}
		j := &job{t: t}
		keys := slices.SortedFunc(maps.Keys(t.entries), func(a, b string) int {
			return cmp.Compare(t.entries[a].Seq, t.entries[b].Seq)
		})
		for _, k := range keys {
			e := t.entries[k]
			if e.Notice.Hold {
				e.Notice.Hold, e.Notice.Held = false, true
				if until := now.Add(s.cfg.MinFiring); until.After(e.Notice.EndsAt) {
					e.Notice.EndsAt = until
				}
				changed = true
			}
			j.keys = append(j.keys, k)
			j.batch = append(j.batch, *e)
		}
		jobs = append(jobs, j)
	}
	if changed {
		s.save()
	}
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() { j.res = s.deliver(ctx, j.t.endpoint, j.batch, now) })
	}
	wg.Wait()

	s.mu.Lock()
	defer s.mu.Unlock()
	if len(jobs) == 0 {
		return
	}
	for _, j := range jobs {
		t, r := j.t, j.res
		for i := range r.done {
			k := j.keys[i]
			if e, ok := t.entries[k]; ok && e.Seq == j.batch[i].Seq {
				delete(t.entries, k) // not replaced while it was sent
			}
		}
		t.stats.Sent += int64(r.sent)
		t.stats.Dropped += int64(r.rejected)
		t.stats.Failed += int64(r.failed)
		if r.err != "" {
			t.stats.LastError = r.err
		}
		if r.retry {
			t.stats.Failures++
			t.stats.NextTry = now.Add(s.backoff(t.stats.Failures))
		} else {
			t.stats.Failures, t.stats.NextTry = 0, time.Time{}
		}
	}
	s.save()
}

// backoff returns the wait after n consecutive failures.
func (s *Sink) backoff(n int) time.Duration {
	d := s.cfg.BackoffMin
	for i := 1; i < n && d < s.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, s.cfg.BackoffMax)
	return d/2 + time.Duration(s.rand()*float64(d/2))
}

// result of delivering a queue: the first done entries were acknowledged
// or rejected; the rest are to be retried when retry is set.
type result struct {
	done                   int
	sent, rejected, failed int
	retry                  bool
	err                    string
}

// postable is an alert as Alertmanager's API v2 takes it.
type postable struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

func (s *Sink) postable(n notice, now time.Time) postable {
	p := postable{Labels: n.Labels, Annotations: n.Annotations, StartsAt: n.StartsAt.UTC(), GeneratorURL: s.cfg.GeneratorURL}
	if n.Resolved {
		p.EndsAt = n.EndsAt
		if !n.Held && p.EndsAt.After(now) {
			p.EndsAt = now // over: a host clock ahead of ours does not keep it active
		}
	} else {
		p.EndsAt = now.Add(4 * s.cfg.ResendInterval)
	}
	p.EndsAt = p.EndsAt.UTC()
	if p.StartsAt.After(now) {
		p.StartsAt = now.UTC()
	}
	if p.StartsAt.After(p.EndsAt) {
		p.StartsAt = p.EndsAt // Alertmanager rejects an alert ending before it starts
	}
	return p
}

// deliver posts the batch in requests of maxBatch alerts, stopping at the
// first that is to be retried.
func (s *Sink) deliver(ctx context.Context, endpoint string, batch []entry, now time.Time) result {
	var r result
	for lo := 0; lo < len(batch); lo += maxBatch {
		hi := min(lo+maxBatch, len(batch))
		ps := make([]postable, 0, hi-lo)
		for _, e := range batch[lo:hi] {
			ps = append(ps, s.postable(e.Notice, now))
		}
		retry, err := s.post(ctx, endpoint, ps)
		switch {
		case err == nil:
			r.sent += hi - lo
		case retry:
			r.failed += hi - lo
			r.retry, r.err = true, err.Error()
			return r
		default:
			r.rejected += hi - lo
			r.err = err.Error()
		}
		r.done = hi
	}
	return r
}

// post sends one request; retry says whether a failure may succeed later.
func (s *Sink) post(ctx context.Context, endpoint string, ps []postable) (retry bool, err error) {
	body, err := json.Marshal(ps)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return true, fmt.Errorf("post %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch c := resp.StatusCode; {
	case c/100 == 2:
		return false, nil
	case c/100 == 4 && c != http.StatusTooManyRequests:
		return false, fmt.Errorf("post %s: %s: %s", endpoint, resp.Status, bytes.TrimSpace(msg))
	default:
		return true, fmt.Errorf("post %s: %s: %s", endpoint, resp.Status, bytes.TrimSpace(msg))
	}
}

// Stats returns what the sink did so far.
func (s *Sink) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Firing: len(s.firing), Forgotten: s.forgotten, StateError: s.stateErr, StateErrors: s.stateErrs}
	for _, t := range s.targets {
		ts := t.stats
		ts.Queue = len(t.entries)
		st.Targets = append(st.Targets, ts)
	}
	return st
}
