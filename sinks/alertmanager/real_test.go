package alertmanager

// Tests against the real Alertmanager of Debian's prometheus-alertmanager
// package (installed by .ci/run). They skip without it, except under CI=true.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
)

const alertmanagerBin = "/usr/bin/prometheus-alertmanager"

func needAlertmanager(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(alertmanagerBin); err == nil {
		return alertmanagerBin
	}
	if p, err := exec.LookPath("prometheus-alertmanager"); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing (CI=true): install Debian's prometheus-alertmanager", alertmanagerBin)
	}
	t.Skipf("%s is missing: apt-get install --no-install-recommends prometheus-alertmanager to run this test", alertmanagerBin)
	return ""
}

// webhook receives Alertmanager's notifications.
type webhook struct {
	mu   sync.Mutex
	msgs []hookMsg
}

type hookMsg struct {
	Status string `json:"status"`
	Alerts []struct {
		Status      string            `json:"status"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
		EndsAt      time.Time         `json:"endsAt"`
	} `json:"alerts"`
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m hookMsg
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.msgs = append(h.msgs, m)
	h.mu.Unlock()
}

// wait waits until a notification says incident has status.
func (h *webhook) wait(t *testing.T, incident, status string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		for _, m := range h.msgs {
			for _, a := range m.Alerts {
				if a.Labels["incident"] == incident && a.Status == status {
					h.mu.Unlock()
					return
				}
			}
		}
		h.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t.Fatalf("no %s notification for incident %q; got %+v", status, incident, h.msgs)
}

// amProcess is one Alertmanager started by a test.
type amProcess struct {
	bin, addr, storage, config string
	cmd                        *exec.Cmd
	log                        *bytes.Buffer
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// newAlertmanager configures an Alertmanager on a free loopback port that
// notifies hookURL of every alert on its own, resolves included.
func newAlertmanager(t *testing.T, hookURL string) *amProcess {
	bin := needAlertmanager(t)
	dir := t.TempDir()
	cfg := fmt.Sprintf(`route:
  receiver: hook
  group_by: ['...']
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: %q
        send_resolved: true
`, hookURL)
	a := &amProcess{bin: bin, addr: freeAddr(t), storage: filepath.Join(dir, "data"), config: filepath.Join(dir, "alertmanager.yml")}
	if err := os.WriteFile(a.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.stop(t)
		if t.Failed() && a.log != nil {
			t.Logf("alertmanager log:\n%s", a.log)
		}
	})
	a.start(t)
	return a
}

func (a *amProcess) url() string { return "http://" + a.addr }

func (a *amProcess) start(t *testing.T) {
	t.Helper()
	if a.log == nil {
		a.log = &bytes.Buffer{}
	}
	a.cmd = exec.Command(a.bin, "--config.file="+a.config, "--storage.path="+a.storage,
		"--web.listen-address="+a.addr, "--cluster.listen-address=", "--log.level=debug")
	a.cmd.Stdout, a.cmd.Stderr = a.log, a.log
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(a.url() + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("alertmanager not ready on %s:\n%s", a.addr, a.log)
}

func (a *amProcess) stop(t *testing.T) {
	if a.cmd == nil || a.cmd.Process == nil {
		return
	}
	a.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		a.cmd.Process.Kill()
		<-done
	}
	a.cmd = nil
}

// gettable is an alert as GET /api/v2/alerts returns it.
type gettable struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	EndsAt      time.Time         `json:"endsAt"`
	Status      struct {
		State string `json:"state"`
	} `json:"status"`
}

func (a *amProcess) alerts(t *testing.T) map[string]gettable {
	t.Helper()
	resp, err := http.Get(a.url() + "/api/v2/alerts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var as []gettable
	if err := json.NewDecoder(resp.Body).Decode(&as); err != nil {
		t.Fatal(err)
	}
	out := map[string]gettable{}
	for _, g := range as {
		out[g.Labels["incident"]] = g
	}
	return out
}

// liveTransition is a transition of an incident that started 5 minutes ago
// (wall clock), as a live daemon makes them.
func liveTransition(key string, from, to detectors.State) detectors.Transition {
	now := time.Now().UTC()
	f := finding(to, detectors.Critical)
	f.Key, f.Start = key, now.Add(-5*time.Minute)
	if to == detectors.Resolved {
		f.End = now.Add(-time.Second)
	}
	return detectors.Transition{At: now, Fingerprint: detectors.Fingerprint(f.Detector, f.Key), From: from, To: to, Finding: f}
}

func TestRealAlertmanagerFiresAndResolves(t *testing.T) {
	hook := &webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := newAlertmanager(t, hs.URL)
	s := newSink(t, Config{URLs: []string{am.url()}, Cluster: "test-cluster", RunbookBase: "https://example.org/runbooks/",
		GeneratorURL: "http://127.0.0.1:9800/alerts"})

	s.Observe(liveTransition("scm1@pause", "", detectors.Pending))
	s.Observe(liveTransition("scm1@pause", detectors.Pending, detectors.Firing))
	now := time.Now()
	s.Tick(now)
	if st := s.Stats().Targets[0]; st.Sent != 1 || st.Queue != 0 || st.LastError != "" {
		t.Fatalf("stats %+v", st)
	}
	got, ok := am.alerts(t)["scm1@pause"]
	if !ok {
		t.Fatalf("alert not in Alertmanager: %+v", am.alerts(t))
	}
	want := map[string]string{"alertname": "OzoneSCMPauseStaleNodes", "detector": "scm-pause-stale-nodes", "defect": "HDDS-17519",
		"severity": "critical", "cluster": "test-cluster", "incident": "scm1@pause", "host": "scm1", "datanode": "u1,u2"}
	if !equalMaps(got.Labels, want) {
		t.Errorf("labels %v\nwant %v", got.Labels, want)
	}
	if got.Annotations["summary"] != "SCM scm1 paused 6m" || got.Annotations["description"] != "SCM scm1 paused 6m\n\nFirst paragraph." ||
		got.Annotations["remediation"] != "1. check scm1" || got.Annotations["runbook_url"] != "https://example.org/runbooks/scm-pause-stale-nodes" {
		t.Errorf("annotations %v", got.Annotations)
	}
	if got.Status.State != "active" || got.EndsAt.Sub(now.Add(4*time.Minute)).Abs() > time.Second ||
		got.StartsAt.Sub(now.Add(-5*time.Minute)).Abs() > time.Second {
		t.Errorf("state %q startsAt %s endsAt %s (now %s)", got.Status.State, got.StartsAt, got.EndsAt, now)
	}
	hook.wait(t, "scm1@pause", "firing")

	s.Observe(liveTransition("scm1@pause", detectors.Firing, detectors.Resolved))
	s.Tick(time.Now())
	if st := s.Stats(); st.Targets[0].Sent != 2 || st.Targets[0].Queue != 0 || st.Firing != 0 {
		t.Fatalf("stats %+v", st)
	}
	if got, ok := am.alerts(t)["scm1@pause"]; ok {
		t.Errorf("resolved alert still active in Alertmanager: %+v", got)
	}
	hook.wait(t, "scm1@pause", "resolved")
}

func TestRealAlertmanagerOutageLosesNothing(t *testing.T) {
	hook := &webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := newAlertmanager(t, hs.URL)
	cfg := Config{URLs: []string{am.url()}, Cluster: "test-cluster", StateDir: t.TempDir(),
		BackoffMin: 50 * time.Millisecond, BackoffMax: 400 * time.Millisecond, Timeout: 2 * time.Second}
	s := newSink(t, cfg)

	// Incident a fires and Alertmanager notifies it.
	s.Observe(liveTransition("a", "", detectors.Firing))
	s.Tick(time.Now())
	hook.wait(t, "a", "firing")

	// Alertmanager goes away; a resolves and b fires meanwhile.
	am.stop(t)
	s.Observe(liveTransition("a", detectors.Firing, detectors.Resolved))
	s.Observe(liveTransition("b", "", detectors.Pending))
	s.Observe(liveTransition("b", detectors.Pending, detectors.Firing))
	s.Tick(time.Now())
	st := s.Stats().Targets[0]
	if st.Queue != 2 || st.Failed != 2 || !strings.Contains(st.LastError, "connection refused") {
		t.Fatalf("during the outage: %+v", st)
	}

	// ozdoctor restarts while Alertmanager is still down: nothing is lost.
	s = newSink(t, cfg)
	if st := s.Stats(); st.Firing != 1 || st.Targets[0].Queue != 2 || st.StateError != "" {
		t.Fatalf("restarted sink: %+v", st)
	}
	s.Tick(time.Now())
	if st := s.Stats().Targets[0]; st.Queue != 2 || st.Failures != 1 {
		t.Fatalf("restarted sink, Alertmanager down: %+v", st)
	}

	// Alertmanager comes back with its storage; the queue drains.
	am.start(t)
	deadline := time.Now().Add(15 * time.Second)
	for s.Stats().Targets[0].Queue > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("queue not drained: %+v", s.Stats())
		}
		time.Sleep(50 * time.Millisecond)
		s.Tick(time.Now())
	}
	as := am.alerts(t)
	if _, ok := as["a"]; ok {
		t.Errorf("a still active after its resolve: %+v", as["a"])
	}
	if b, ok := as["b"]; !ok || b.Status.State != "active" || b.Labels["cluster"] != "test-cluster" {
		t.Errorf("b not active in Alertmanager: %+v", as)
	}
	hook.wait(t, "b", "firing")
	hook.wait(t, "a", "resolved") // Alertmanager's notification log remembered a across its restart
	if st := s.Stats().Targets[0]; st.Sent != 2 || st.Failures != 0 {
		t.Errorf("after recovery: %+v", st)
	}
}

func TestRealAlertmanagerHungIsRetried(t *testing.T) {
	hook := &webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := newAlertmanager(t, hs.URL)
	s := newSink(t, Config{URLs: []string{am.url()}, Timeout: 300 * time.Millisecond, BackoffMin: 50 * time.Millisecond})

	// A stopped process still has its socket: the connection is accepted
	// by the kernel and the request times out.
	if err := am.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, am.cmd.Process.Pid)
	s.Observe(liveTransition("hung", "", detectors.Firing))
	s.Tick(time.Now())
	st := s.Stats().Targets[0]
	am.cmd.Process.Signal(syscall.SIGCONT)
	if st.Queue != 1 || st.Failed != 1 || st.Failures != 1 {
		t.Fatalf("against a hung Alertmanager: %+v", st)
	}
	time.Sleep(time.Until(st.NextTry))
	s.Tick(time.Now())
	if st := s.Stats().Targets[0]; st.Queue != 0 || st.Sent != 1 {
		t.Fatalf("after it resumed: %+v", st)
	}
	if _, ok := am.alerts(t)["hung"]; !ok {
		t.Fatalf("alert not in Alertmanager: %+v", am.alerts(t))
	}
}

// waitStopped waits until the kernel shows process pid stopped ("T" in
// /proc/<pid>/stat): a signal is delivered asynchronously.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ...: the state follows the last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
	}
	t.Fatalf("process %d did not stop", pid)
}
