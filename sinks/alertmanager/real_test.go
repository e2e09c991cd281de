package alertmanager

// Tests against the real Alertmanager of Debian's prometheus-alertmanager
// package (internal/amtest).

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/amtest"
)

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
	hook := &amtest.Webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := amtest.New(t, hs.URL)
	s := newSink(t, Config{URLs: []string{am.URL()}, Cluster: "test-cluster", RunbookBase: "https://example.org/runbooks/",
		GeneratorURL: "http://127.0.0.1:9800/alerts"})

	s.Observe(liveTransition("scm1@pause", "", detectors.Pending))
	s.Observe(liveTransition("scm1@pause", detectors.Pending, detectors.Firing))
	now := time.Now()
	s.Tick(context.Background(), now)
	if st := s.Stats().Targets[0]; st.Sent != 1 || st.Queue != 0 || st.LastError != "" {
		t.Fatalf("stats %+v", st)
	}
	got, ok := am.ByIncident(t)["scm1@pause"]
	if !ok {
		t.Fatalf("alert not in Alertmanager: %+v", am.ByIncident(t))
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
	hook.Wait(t, "scm1@pause", "firing")

	s.Observe(liveTransition("scm1@pause", detectors.Firing, detectors.Resolved))
	s.Tick(context.Background(), time.Now())
	if st := s.Stats(); st.Targets[0].Sent != 2 || st.Targets[0].Queue != 0 || st.Firing != 0 {
		t.Fatalf("stats %+v", st)
	}
	if got, ok := am.ByIncident(t)["scm1@pause"]; ok {
		t.Errorf("resolved alert still active in Alertmanager: %+v", got)
	}
	hook.Wait(t, "scm1@pause", "resolved")
}

func TestRealAlertmanagerOutageLosesNothing(t *testing.T) {
	hook := &amtest.Webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := amtest.New(t, hs.URL)
	cfg := Config{URLs: []string{am.URL()}, Cluster: "test-cluster", StateDir: t.TempDir(),
		BackoffMin: 50 * time.Millisecond, BackoffMax: 400 * time.Millisecond, Timeout: 2 * time.Second}
	s := newSink(t, cfg)

	// Incident a fires and Alertmanager notifies it.
	s.Observe(liveTransition("a", "", detectors.Firing))
	s.Tick(context.Background(), time.Now())
	hook.Wait(t, "a", "firing")
	am.WaitLogged(t)

	// Alertmanager goes away; a resolves and b fires meanwhile.
	am.Stop(t)
	s.Observe(liveTransition("a", detectors.Firing, detectors.Resolved))
	s.Observe(liveTransition("b", "", detectors.Pending))
	s.Observe(liveTransition("b", detectors.Pending, detectors.Firing))
	s.Tick(context.Background(), time.Now())
	st := s.Stats().Targets[0]
	if st.Queue != 2 || st.Failed != 2 || !strings.Contains(st.LastError, "connection refused") {
		t.Fatalf("during the outage: %+v", st)
	}

	// ozdoctor restarts while Alertmanager is still down: nothing is lost.
	s = newSink(t, cfg)
	if st := s.Stats(); st.Firing != 1 || st.Targets[0].Queue != 2 || st.StateError != "" {
		t.Fatalf("restarted sink: %+v", st)
	}
	s.Tick(context.Background(), time.Now())
	if st := s.Stats().Targets[0]; st.Queue != 2 || st.Failures != 1 {
		t.Fatalf("restarted sink, Alertmanager down: %+v", st)
	}

	// Alertmanager comes back with its storage; the queue drains.
	am.Start(t)
	deadline := time.Now().Add(15 * time.Second)
	for s.Stats().Targets[0].Queue > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("queue not drained: %+v", s.Stats())
		}
		time.Sleep(50 * time.Millisecond)
		s.Tick(context.Background(), time.Now())
	}
	as := am.ByIncident(t)
	if _, ok := as["a"]; ok {
		t.Errorf("a still active after its resolve: %+v", as["a"])
	}
	if b, ok := as["b"]; !ok || b.Status.State != "active" || b.Labels["cluster"] != "test-cluster" {
		t.Errorf("b not active in Alertmanager: %+v", as)
	}
	hook.Wait(t, "b", "firing")
	hook.Wait(t, "a", "resolved") // Alertmanager's notification log remembered a across its restart
	if st := s.Stats().Targets[0]; st.Sent != 2 || st.Failures != 0 {
		t.Errorf("after recovery: %+v", st)
	}
}

func TestRealAlertmanagerHungIsRetried(t *testing.T) {
	hook := &amtest.Webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := amtest.New(t, hs.URL)
	s := newSink(t, Config{URLs: []string{am.URL()}, Timeout: 300 * time.Millisecond, BackoffMin: 50 * time.Millisecond})

	// A stopped process still has its socket: the connection is accepted
	// by the kernel and the request times out.
	if err := am.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, am.Cmd.Process.Pid)
	s.Observe(liveTransition("hung", "", detectors.Firing))
	s.Tick(context.Background(), time.Now())
	st := s.Stats().Targets[0]
	am.Cmd.Process.Signal(syscall.SIGCONT)
	if st.Queue != 1 || st.Failed != 1 || st.Failures != 1 {
		t.Fatalf("against a hung Alertmanager: %+v", st)
	}
	time.Sleep(time.Until(st.NextTry))
	s.Tick(context.Background(), time.Now())
	if st := s.Stats().Targets[0]; st.Queue != 0 || st.Sent != 1 {
		t.Fatalf("after it resumed: %+v", st)
	}
	if _, ok := am.ByIncident(t)["hung"]; !ok {
		t.Fatalf("alert not in Alertmanager: %+v", am.ByIncident(t))
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
