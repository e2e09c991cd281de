package alertmanager

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

var t0 = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)

// recorder is an Alertmanager stand-in on loopback that answers with a
// settable status and records what it accepted.
type recorder struct {
	mu       sync.Mutex
	status   int
	delay    time.Duration
	posts    [][]postable // accepted requests
	attempts int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.attempts++
	status, delay := r.status, r.delay
	r.mu.Unlock()
	if req.Method != http.MethodPost || req.URL.Path != "/api/v2/alerts" {
		http.Error(w, "wrong endpoint "+req.Method+" "+req.URL.Path, http.StatusNotFound)
		return
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
		}
	}
	if status == 0 {
		status = http.StatusOK
	}
	if status/100 != 2 {
		http.Error(w, "no", status)
		return
	}
	var ps []postable
	if err := json.NewDecoder(req.Body).Decode(&ps); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.posts = append(r.posts, ps)
	r.mu.Unlock()
}

func (r *recorder) set(status int) {
	r.mu.Lock()
	r.status = status
	r.mu.Unlock()
}

// take returns the alerts accepted since the last take.
func (r *recorder) take() []postable {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []postable
	for _, p := range r.posts {
		out = append(out, p...)
	}
	r.posts = nil
	return out
}

func (r *recorder) tries() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts
}

func newServer(t *testing.T) (*recorder, string) {
	r := &recorder{}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

// finding is a finding of testDoc's detector as the engine hands it on,
// finalized: its remediation filled.
func finding(state detectors.State, sev detectors.Severity) detectors.Finding {
	f := detectors.Finding{Detector: "scm-pause-stale-nodes", Defect: "HDDS-17519", Key: "scm1@10:00",
		Severity: sev, Title: "Live datanodes marked STALE/DEAD after an SCM pause", Summary: "SCM scm1 paused 6m",
		Entities: detectors.Entities{Hosts: []string{"scm1"}, Datanodes: []catalogue.Datanode{{UUID: "u2", Host: "dn2"}, {UUID: "u1", Host: "dn1"}}},
		Start:    t0, State: state}
	f.Remediation, _ = testDoc.Remediate(&f)
	return f
}

func transition(from, to detectors.State, f detectors.Finding) detectors.Transition {
	f.State = to
	if to == detectors.Resolved {
		f.End = t0.Add(10 * time.Minute)
	}
	return detectors.Transition{At: t0.Add(time.Minute), Fingerprint: detectors.Fingerprint(f.Detector, f.Key),
		From: from, To: to, Finding: f}
}

var testDoc = detectors.Doc{Name: "scm-pause-stale-nodes", Explanation: "First paragraph.\n\nSecond one.",
	Remediation: []string{"check {{index .Entities.Hosts 0}}"}}

func newSink(t *testing.T, cfg Config) *Sink {
	t.Helper()
	if cfg.Rand == nil {
		cfg.Rand = func() float64 { return 0.5 }
	}
	cfg.Docs = append(cfg.Docs, testDoc)
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFiringIsSentWithLabelsAndResent(t *testing.T) {
	rec, url := newServer(t)
	s := newSink(t, Config{URLs: []string{url}, Cluster: "prod", RunbookBase: "https://runbooks/ozdoctor/"})
	now := time.Date(2026, 8, 23, 12, 0, 0, 0, time.UTC)
	s.Observe(transition("", detectors.Pending, finding(detectors.Pending, detectors.Warning)))
	s.Tick(context.Background(), now)
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("pending alert sent: %+v", got)
	}
	s.Observe(transition(detectors.Pending, detectors.Firing, finding(detectors.Pending, detectors.Warning)))
	s.Tick(context.Background(), now)
	got := rec.take()
	if len(got) != 1 {
		t.Fatalf("got %d alerts, want 1", len(got))
	}
	a := got[0]
	want := map[string]string{"alertname": "OzoneSCMPauseStaleNodes", "detector": "scm-pause-stale-nodes", "defect": "HDDS-17519",
		"severity": "warning", "cluster": "prod", "incident": "scm1@10:00", "host": "scm1", "datanode": "u1,u2"}
	if !equalMaps(a.Labels, want) {
		t.Errorf("labels %v\nwant %v", a.Labels, want)
	}
	if a.Annotations["description"] != "SCM scm1 paused 6m\n\nFirst paragraph." || a.Annotations["remediation"] != "1. check scm1" ||
		a.Annotations["runbook_url"] != "https://runbooks/ozdoctor/scm-pause-stale-nodes" || a.Annotations["summary"] != "SCM scm1 paused 6m" {
		t.Errorf("annotations %v", a.Annotations)
	}
	if !a.StartsAt.Equal(t0) || !a.EndsAt.Equal(now.Add(4*time.Minute)) {
		t.Errorf("startsAt %s endsAt %s", a.StartsAt, a.EndsAt)
	}
	s.Tick(context.Background(), now.Add(30*time.Second))
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("resent before the resend interval: %d", len(got))
	}
	s.Tick(context.Background(), now.Add(time.Minute))
	if got := rec.take(); len(got) != 1 || !got[0].EndsAt.Equal(now.Add(5*time.Minute)) {
		t.Fatalf("resend: %+v", got)
	}
	s.Observe(transition(detectors.Firing, detectors.Resolved, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), now.Add(70*time.Second))
	got = rec.take()
	if len(got) != 1 || !got[0].EndsAt.Equal(t0.Add(10*time.Minute)) || !equalMaps(got[0].Labels, want) {
		t.Fatalf("resolve: %+v", got)
	}
	s.Tick(context.Background(), now.Add(3*time.Minute))
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("sent after the acknowledged resolve: %+v", got)
	}
	st := s.Stats()
	if st.Firing != 0 || st.Targets[0].Queue != 0 || st.Targets[0].Sent != 3 || st.Targets[0].Failed != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestWithdrawnIsNotSent(t *testing.T) {
	rec, url := newServer(t)
	s := newSink(t, Config{URLs: []string{url}})
	f := finding(detectors.Pending, detectors.Warning)
	s.Observe(transition("", detectors.Pending, f))
	s.Observe(transition(detectors.Pending, detectors.Inactive, detectors.Withdraw(f, "confirmed healthy")))
	s.Tick(context.Background(), t0)
	if rec.tries() != 0 || s.Stats().Targets[0].Queue != 0 {
		t.Fatalf("withdrawn alert sent or queued: %d tries, %+v", rec.tries(), s.Stats())
	}
}

func TestOutageCoalescesAndBacksOff(t *testing.T) {
	rec, url := newServer(t)
	rec.set(http.StatusInternalServerError)
	s := newSink(t, Config{URLs: []string{url}, BackoffMin: time.Second, BackoffMax: 8 * time.Second})
	now := t0.Add(time.Hour)
	s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), now)
	st := s.Stats().Targets[0]
	// Backoff d for n failures is min(1s·2^(n-1), 8s); jitter 0.5 waits d/2 + d/4.
	if st.Queue != 1 || st.Failed != 1 || st.Failures != 1 || !st.NextTry.Equal(now.Add(750*time.Millisecond)) ||
		!strings.Contains(st.LastError, "500") {
		t.Fatalf("after a 500: %+v", st)
	}
	s.Tick(context.Background(), now.Add(500*time.Millisecond)) // backing off: no request
	if rec.tries() != 1 {
		t.Fatalf("%d tries during the backoff, want 1", rec.tries())
	}
	waits := []time.Duration{1500 * time.Millisecond, 3 * time.Second, 6 * time.Second, 6 * time.Second}
	at := st.NextTry
	for i, w := range waits {
		s.Tick(context.Background(), at)
		st = s.Stats().Targets[0]
		if st.Failures != i+2 || !st.NextTry.Equal(at.Add(w)) {
			t.Fatalf("failure %d: next try %s after, want %s (%+v)", i+2, st.NextTry.Sub(at), w, st)
		}
		at = st.NextTry
	}
	// The resolve replaces the queued firing of the same alert.
	s.Observe(transition(detectors.Firing, detectors.Resolved, finding(detectors.Firing, detectors.Warning)))
	if q := s.Stats().Targets[0].Queue; q != 1 {
		t.Fatalf("queue %d after the resolve, want 1 (coalesced)", q)
	}
	rec.set(http.StatusOK)
	s.Tick(context.Background(), at)
	got := rec.take()
	if len(got) != 1 || !got[0].EndsAt.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("after the outage: %+v", got)
	}
	st = s.Stats().Targets[0]
	if st.Queue != 0 || st.Failures != 0 || !st.NextTry.IsZero() || st.Sent != 1 || st.Failed != 5 {
		t.Fatalf("stats after recovery %+v", st)
	}
}

func TestJitterComesFromRand(t *testing.T) {
	rec, url := newServer(t)
	rec.set(http.StatusServiceUnavailable)
	for _, c := range []struct {
		r    float64
		want time.Duration
	}{{0, 2 * time.Second}, {0.999, 4*time.Second - 2*time.Millisecond}} {
		s := newSink(t, Config{URLs: []string{url}, BackoffMin: 4 * time.Second, Rand: func() float64 { return c.r }})
		s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
		s.Tick(context.Background(), t0)
		if got := s.Stats().Targets[0].NextTry.Sub(t0); got != c.want {
			t.Errorf("rand %v: wait %s, want %s", c.r, got, c.want)
		}
	}
}

func TestTimeoutIsRetried(t *testing.T) {
	rec, url := newServer(t)
	rec.delay = 2 * time.Second
	s := newSink(t, Config{URLs: []string{url}, Timeout: 100 * time.Millisecond})
	s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), t0)
	st := s.Stats().Targets[0]
	if st.Queue != 1 || st.Failed != 1 || st.Failures != 1 || !strings.Contains(st.LastError, "deadline") {
		t.Fatalf("after a timeout: %+v", st)
	}
	rec.mu.Lock()
	rec.delay = 0
	rec.mu.Unlock()
	s.Tick(context.Background(), st.NextTry)
	if got := rec.take(); len(got) != 1 {
		t.Fatalf("after the timeout: %d alerts", len(got))
	}
}

func TestClientErrorsAreDroppedButNot429(t *testing.T) {
	rec, url := newServer(t)
	rec.set(http.StatusBadRequest)
	s := newSink(t, Config{URLs: []string{url}})
	s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), t0)
	st := s.Stats().Targets[0]
	if st.Queue != 0 || st.Dropped != 1 || st.Failures != 0 || !strings.Contains(st.LastError, "400") {
		t.Fatalf("after a 400: %+v", st)
	}
	rec.set(http.StatusTooManyRequests)
	s.Tick(context.Background(), t0.Add(time.Minute)) // the resend
	st = s.Stats().Targets[0]
	if st.Queue != 1 || st.Failed != 1 || st.Failures != 1 {
		t.Fatalf("after a 429: %+v", st)
	}
}

func TestEveryURLGetsEveryAlert(t *testing.T) {
	up, url1 := newServer(t)
	down, url2 := newServer(t)
	down.set(http.StatusBadGateway)
	s := newSink(t, Config{URLs: []string{url1, url2}})
	s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), t0)
	if len(up.take()) != 1 {
		t.Fatal("the healthy Alertmanager got nothing")
	}
	st := s.Stats()
	if st.Targets[0].Queue != 0 || st.Targets[1].Queue != 1 || st.Targets[1].URL != url2 {
		t.Fatalf("per-URL queues: %+v", st.Targets)
	}
}

func TestQueueIsBounded(t *testing.T) {
	rec, url := newServer(t)
	rec.set(http.StatusInternalServerError)
	s := newSink(t, Config{URLs: []string{url}, MaxQueue: 2})
	for _, k := range []string{"a", "b", "c"} {
		f := finding(detectors.Firing, detectors.Warning)
		f.Key = k
		s.Observe(transition(detectors.Firing, detectors.Resolved, f))
	}
	st := s.Stats()
	if st.Targets[0].Queue != 2 || st.Targets[0].Dropped != 1 {
		t.Fatalf("%+v", st.Targets[0])
	}
	rec.set(http.StatusOK)
	s.Tick(context.Background(), t0)
	var keys []string
	for _, a := range rec.take() {
		keys = append(keys, a.Labels["incident"])
	}
	if strings.Join(keys, " ") != "b c" {
		t.Fatalf("kept %v, want the two newest", keys)
	}
}

func TestEscalationResolvesTheFormerSeverity(t *testing.T) {
	rec, url := newServer(t)
	s := newSink(t, Config{URLs: []string{url}})
	s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
	now := t0.Add(time.Hour)
	s.Tick(context.Background(), now)
	rec.take()
	esc := transition(detectors.Firing, detectors.Firing, finding(detectors.Firing, detectors.Critical))
	esc.Escalated, esc.Previous = true, detectors.Warning
	// Entities learned later do not change the alert's identity...
	upd := transition(detectors.Firing, detectors.Firing, finding(detectors.Firing, detectors.Warning))
	upd.Finding.Entities.Hosts = append(upd.Finding.Entities.Hosts, "scm2")
	upd.Previous = detectors.Warning
	upd.Finding.Summary = "updated"
	s.Observe(upd)
	s.Tick(context.Background(), now.Add(time.Second))
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("an update was sent before the resend: %+v", got)
	}
	s.Tick(context.Background(), now.Add(time.Minute))
	if got := rec.take(); len(got) != 1 || got[0].Labels["host"] != "scm1" || got[0].Annotations["summary"] != "updated" {
		t.Fatalf("update: %+v", got)
	}
	// ...a severity does.
	s.Observe(esc)
	s.Tick(context.Background(), now.Add(time.Minute+2*time.Second))
	got := rec.take()
	if len(got) != 2 {
		t.Fatalf("escalation sent %d alerts, want 2: %+v", len(got), got)
	}
	if got[0].Labels["severity"] != "warning" || !got[0].EndsAt.Equal(t0.Add(time.Minute)) ||
		got[1].Labels["severity"] != "critical" || !got[1].EndsAt.Equal(now.Add(time.Minute+2*time.Second+4*time.Minute)) {
		t.Fatalf("escalation: %+v", got)
	}
}

func TestResolvedBeforeFiringIsHeld(t *testing.T) {
	rec, url := newServer(t)
	s := newSink(t, Config{URLs: []string{url}, MinFiring: 3 * time.Minute})
	now := t0.Add(time.Hour)
	s.Observe(transition("", detectors.Resolved, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), now)
	got := rec.take()
	if len(got) != 1 || !got[0].EndsAt.Equal(now.Add(3*time.Minute)) {
		t.Fatalf("%+v", got)
	}
	s2 := newSink(t, Config{URLs: []string{url}, MinFiring: -1})
	s2.Observe(transition("", detectors.Resolved, finding(detectors.Firing, detectors.Warning)))
	s2.Tick(context.Background(), now)
	if got := rec.take(); len(got) != 1 || !got[0].EndsAt.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("without hold: %+v", got)
	}
}

func TestRestartFromStateDirLosesNothing(t *testing.T) {
	rec, url := newServer(t)
	rec.set(http.StatusInternalServerError)
	dir := t.TempDir()
	s := newSink(t, Config{URLs: []string{url}, StateDir: dir})
	other := finding(detectors.Firing, detectors.Critical)
	other.Key = "still-firing"
	s.Observe(transition("", detectors.Firing, other))
	s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), t0)
	s.Observe(transition(detectors.Firing, detectors.Resolved, finding(detectors.Firing, detectors.Warning)))
	if st := s.Stats(); st.StateError != "" || st.Targets[0].Queue != 2 {
		t.Fatalf("%+v", st)
	}
	// A new sink from the same directory, the Alertmanager back.
	rec.set(http.StatusOK)
	s2 := newSink(t, Config{URLs: []string{url}, StateDir: dir})
	if st := s2.Stats(); st.Firing != 1 || st.Targets[0].Queue != 2 || st.StateError != "" {
		t.Fatalf("reloaded: %+v", st)
	}
	now := t0.Add(time.Hour)
	s2.Tick(context.Background(), now)
	got := map[string]postable{}
	for _, a := range rec.take() {
		got[a.Labels["incident"]] = a
	}
	if len(got) != 2 || !got["scm1@10:00"].EndsAt.Equal(t0.Add(10*time.Minute)) ||
		!got["still-firing"].EndsAt.Equal(now.Add(4*time.Minute)) {
		t.Fatalf("after restart: %+v", got)
	}
	// The firing one is still re-sent by the restarted sink.
	s2.Tick(context.Background(), now.Add(time.Minute))
	if got := rec.take(); len(got) != 1 || got[0].Labels["incident"] != "still-firing" {
		t.Fatalf("resend after restart: %+v", got)
	}
}

func TestUnwritableStateDirKeepsRunning(t *testing.T) {
	rec, url := newServer(t)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSink(t, Config{URLs: []string{url}, StateDir: notDir})
	s.Observe(transition("", detectors.Firing, finding(detectors.Firing, detectors.Warning)))
	s.Tick(context.Background(), t0)
	st := s.Stats()
	if st.StateError == "" || st.StateErrors == 0 || len(rec.take()) != 1 {
		t.Fatalf("%+v", st)
	}
	// Once the directory can be written again, the state is saved.
	if err := os.Remove(notDir); err != nil {
		t.Fatal(err)
	}
	s.Observe(transition(detectors.Firing, detectors.Resolved, finding(detectors.Firing, detectors.Warning)))
	if st := s.Stats(); st.StateError != "" {
		t.Fatalf("after the directory came back: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(notDir, stateFile)); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentObserveAndTick(t *testing.T) {
	rec, url := newServer(t)
	s := newSink(t, Config{URLs: []string{url}, StateDir: t.TempDir()})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			f := finding(detectors.Firing, detectors.Warning)
			f.Key = strings.Repeat("k", i%20+1)
			to := detectors.Firing
			if i%3 == 2 {
				to = detectors.Resolved
			}
			s.Observe(transition(detectors.Firing, to, f))
		}
	})
	for i := range 50 {
		s.Tick(context.Background(), t0.Add(time.Duration(i)*time.Second))
		s.Stats()
	}
	wg.Wait()
	s.Tick(context.Background(), t0.Add(time.Hour))
	if st := s.Stats().Targets[0]; st.Queue != 0 || st.Sent == 0 {
		t.Fatalf("%+v", st)
	}
	rec.take()
}

func TestCorruptStateIsReported(t *testing.T) {
	_, url := newServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, stateFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSink(t, Config{URLs: []string{url}, StateDir: dir})
	if st := s.Stats(); !strings.Contains(st.StateError, stateFile) {
		t.Fatalf("%+v", st)
	}
}

func TestAlertName(t *testing.T) {
	for in, want := range map[string]string{
		"scm-pause-stale-nodes":       "OzoneSCMPauseStaleNodes",
		"om-bootstrap-exit-voter":     "OzoneOMBootstrapExitVoter",
		"raft-division-stuck-closing": "OzoneRaftDivisionStuckClosing",
		"empty-quasi-closed-delete":   "OzoneEmptyQuasiClosedDelete",
		"old-datanode-after-finalize": "OzoneOldDatanodeAfterFinalize",
	} {
		if got := AlertName(in); got != want {
			t.Errorf("AlertName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBound(t *testing.T) {
	if got := bound([]string{"10", "9", "100", "9"}); got != "9,10,100" {
		t.Errorf("got %q", got)
	}
	var many []string
	for i := range 100 {
		many = append(many, strings.Repeat("x", 10)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	got := bound(many)
	if len(got) > MaxLabelLen || !strings.HasSuffix(got, " more") || !strings.HasPrefix(got, "xxxxxxxxxxaa,") {
		t.Errorf("got %q (%d bytes)", got, len(got))
	}
	if got := bound([]string{strings.Repeat("é", 200)}); len(got) > MaxLabelLen || !strings.HasSuffix(got, "…") {
		t.Errorf("long single value: %q", got)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func TestBatchesOf64(t *testing.T) {
	rec, url := newServer(t)
	s := newSink(t, Config{URLs: []string{url}})
	for i := range 130 {
		f := finding(detectors.Firing, detectors.Warning)
		f.Key = strings.Repeat("k", i+1)
		s.Observe(transition("", detectors.Firing, f))
	}
	s.Tick(context.Background(), t0)
	rec.mu.Lock()
	var sizes []int
	for _, p := range rec.posts {
		sizes = append(sizes, len(p))
	}
	rec.mu.Unlock()
	if len(sizes) != 3 || sizes[0] != 64 || sizes[1] != 64 || sizes[2] != 2 {
		t.Fatalf("batches %v, want [64 64 2]", sizes)
	}
	if st := s.Stats().Targets[0]; st.Sent != 130 || st.Queue != 0 {
		t.Fatalf("%+v", st)
	}
}

func TestFiringDoesNotPushOutAResolve(t *testing.T) {
	rec, url := newServer(t)
	rec.set(http.StatusInternalServerError)
	s := newSink(t, Config{URLs: []string{url}, MaxQueue: 2})
	for _, k := range []string{"a", "b"} {
		f := finding(detectors.Firing, detectors.Warning)
		f.Key = k
		s.Observe(transition(detectors.Firing, detectors.Resolved, f))
	}
	f := finding(detectors.Firing, detectors.Critical)
	f.Key = "c"
	s.Observe(transition("", detectors.Firing, f))
	st := s.Stats()
	if st.Targets[0].Queue != 2 || st.Targets[0].Dropped != 1 || st.Firing != 1 {
		t.Fatalf("%+v", st)
	}
	rec.set(http.StatusOK)
	s.Tick(context.Background(), t0)
	s.Tick(context.Background(), t0.Add(time.Minute)) // the resend brings c once there is room
	var keys []string
	for _, a := range rec.take() {
		keys = append(keys, a.Labels["incident"])
	}
	if strings.Join(keys, " ") != "a b c" {
		t.Fatalf("sent %v, want a b c", keys)
	}
}
