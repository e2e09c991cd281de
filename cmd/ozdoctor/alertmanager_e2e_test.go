//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/amtest"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// The sidecar as a process against Debian's Alertmanager, on logs written
// live: a small cluster's logs, timed from now, are written line by line as
// the wall clock passes them, HDDS-17674 beginning 10s in. The daemon is
// killed with SIGKILL between the first lines of the signature and its
// confirmation a minute later, and restarted while Alertmanager is down.
// The restarted daemon confirms the incident; once Alertmanager is back it
// holds exactly one active alert for it, with its labels and annotations.
// (Resolves across an Alertmanager outage: sinks/alertmanager's tests.)
func TestWatchAlertmanagerEndToEnd(t *testing.T) {
	hook := &amtest.Webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := amtest.New(t, hs.URL)
	bin := buildOzdoctor(t)

	start := time.Now().UTC().Truncate(time.Second).Add(2 * time.Second)
	incidentAt := start.Add(10 * time.Second)
	s := scenario.New(7, start, 3*time.Minute, scenario.NewCluster(rand.New(rand.NewSource(7)), 1, 1, 3))
	scripts.All()["hdds17674/stuck-leader"](s, incidentAt)
	src, logs, state := t.TempDir(), t.TempDir(), t.TempDir()
	if err := s.Render(src, scenario.Render{Noise: 30}); err != nil { // a line every 2s per host
		t.Fatal(err)
	}
	batch, err := analysis.Run(context.Background(), analysis.Options{Inputs: []string{src}, Detectors: registry.All()})
	if err != nil || batch.Findings.Len() != 1 || batch.Findings.Slice()[0].Defect != "HDDS-17674" {
		t.Fatalf("the scenario's bundle run: %v %v", err, batch.Findings.Slice())
	}
	incident := batch.Findings.Slice()[0].Key
	rp, err := scenario.NewReplay(src, logs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stopReplay := context.WithCancel(context.Background())
	defer stopReplay()
	go func() {
		if err := rp.Run(ctx, 100*time.Millisecond); err != nil {
			t.Error(err)
		}
	}()

	addr := freePort(t)
	startDaemon := func() (*exec.Cmd, *syncBuffer) {
		out := &syncBuffer{}
		cmd := exec.Command(bin, "watch", "--logs", filepath.Join(logs, "*", "*.log"), "--state-dir", state, "--listen", addr,
			"--poll", "100ms", "--checkpoint-interval", "1s", "--alertmanager.url", am.URL(), "--alertmanager.backoff-max", "1s",
			"--cluster", "e2e", "--runbook-base", "https://example.org/runbooks/")
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, out
	}
	cmd, out := startDaemon()
	defer func() { cmd.Process.Kill() }()
	waitFor := func(what string, within time.Duration, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(within); !ok(); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %s; daemon output:\n%s", what, within, out.String())
			}
		}
	}
	state17674 := func() string {
		res, err := http.Get("http://" + addr + "/alerts")
		if err != nil {
			return ""
		}
		defer res.Body.Close()
		var a struct{ Alerts []struct{ Key, State string } }
		json.NewDecoder(res.Body).Decode(&a)
		for _, f := range a.Alerts {
			if f.Key == incident {
				return f.State
			}
		}
		return ""
	}
	active := func() []amtest.Alert {
		var as []amtest.Alert
		for _, a := range am.Alerts(t) {
			if a.Labels["incident"] == incident && a.Status.State == "active" {
				as = append(as, a)
			}
		}
		return as
	}

	// The first lines of the signature are read (the alert is pending),
	// a checkpoint is written, and the daemon is killed.
	waitFor("HDDS-17674 pending", time.Minute, func() bool { return state17674() == "pending" })
	time.Sleep(1500 * time.Millisecond)
	if time.Now().After(incidentAt.Add(50 * time.Second)) {
		t.Fatal("too slow to kill the daemon before the confirmation")
	}
	cmd.Process.Kill()
	cmd.Wait()
	firstOut := out.String()

	am.Stop(t)
	cmd, out = startDaemon()
	waitFor("HDDS-17674 firing after the restart", 2*time.Minute, func() bool { return state17674() == "firing" })
	am.Start(t)
	waitFor("HDDS-17674 active in Alertmanager", 30*time.Second, func() bool { return len(active()) == 1 })
	time.Sleep(3 * time.Second) // a second alert for the incident would arrive by now
	as := active()
	if len(as) != 1 {
		t.Fatalf("%d active alerts for %s, want 1: %+v", len(as), incident, as)
	}
	a := as[0]
	want := map[string]string{"alertname": "OzoneRaftDivisionStuckClosing", "defect": "HDDS-17674",
		"detector": "raft-division-stuck-closing", "cluster": "e2e", "incident": incident}
	for k, v := range want {
		if a.Labels[k] != v {
			t.Errorf("label %s = %q, want %q (labels %v)", k, a.Labels[k], v, a.Labels)
		}
	}
	for _, n := range []string{"summary", "description", "remediation"} {
		if a.Annotations[n] == "" {
			t.Errorf("no annotation %s: %v", n, a.Annotations)
		}
	}
	if a.Annotations["runbook_url"] != "https://example.org/runbooks/raft-division-stuck-closing" || !a.StartsAt.Equal(batch.Findings.Slice()[0].Start) {
		t.Errorf("runbook %q, startsAt %s (the incident started %s)", a.Annotations["runbook_url"], a.StartsAt, batch.Findings.Slice()[0].Start)
	}
	if n := firing(firstOut)[""] + len(firing(firstOut)); n != 0 {
		t.Errorf("the killed daemon had already fired:\n%s", firstOut)
	}
	if fired := firing(out.String()); len(fired) != 1 {
		t.Errorf("the restarted daemon fired %v, want the incident once", fired)
	}
	hook.Wait(t, incident, "firing")
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("SIGINT: %v", err)
	}
}
