package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/amtest"
)

// userSignature is an operator's signature on the V7 line of
// MutableVolumeSet.java:244 @ozone-2.2.0 (operational-problems.md §2.1),
// with a title of one's own.
const userSignature = `signature: v1
id: my-volume-failed
problem: my-volume-failure
title: TITLE
description: a volume failed
summary: "volume failed on {{index .Entities.Hosts 0}}"
needs: [datanode]
signals:
  - kind: my_volume_marked_failed
    source: "MutableVolumeSet.java:244 @ozone-2.2.0 (V7)"
    literals: ["Marking volume "]
    pattern: '^Marking volume (?P<volume>\S+) as failed'
    groups: {volume: string}
match:
  by: e.host
  horizon: 1h
  max_open: 100
  steps:
    - name: failed
      on: my_volume_marked_failed
      emit: {severity: warning}
entities:
  hosts: [failed.host]
`

// volumeLine renders V7 in layout L1 at t.
func volumeLine(t time.Time, volume string) string {
	return t.Format("2006-01-02 15:04:05,000") + " [DiskChecker-0] ERROR org.apache.hadoop.ozone.container.common.volume.MutableVolumeSet: Marking volume " + volume + " as failed\n"
}

// The daemon as a process reloads its signatures the Prometheus way: a
// valid change in the signatures directory takes effect without losing
// the open alert (Alertmanager keeps one alert for the incident), and an
// invalid one sent with POST /-/reload is refused with its file:line:column
// while the old set keeps alerting; /metrics says how the last reload went.
func TestWatchReloadsSignatures(t *testing.T) {
	t.Parallel()
	hook := &amtest.Webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := amtest.New(t, hs.URL)
	bin := buildOzdoctor(t)
	dir := t.TempDir()
	sigs, logs, state := filepath.Join(dir, "sigs"), filepath.Join(dir, "logs"), filepath.Join(dir, "state")
	sigFile := filepath.Join(sigs, "my-volume-failed.yaml")
	for _, d := range []string{sigs, filepath.Join(logs, "dn1"), filepath.Join(logs, "dn2")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(sigFile, []byte(strings.Replace(userSignature, "TITLE", "Volume failed (first version)", 1)), 0o644)
	now := time.Now().UTC()
	dn1 := filepath.Join(logs, "dn1", "ozone-hadoop-datanode-dn1.example.com.log")
	os.WriteFile(dn1, []byte(volumeLine(now.Add(-time.Minute), "/data1/hdds")), 0o644)
	addr := freePort(t)
	out := &syncBuffer{}
	cmd := exec.Command(bin, "watch", "--logs", filepath.Join(logs, "*", "*.log"), "--listen", addr, "--state-dir", state,
		"--signatures", sigs, "--poll", "100ms", "--checkpoint-interval", "1s", "--idle-flush", "500ms",
		"--alertmanager.url", am.URL(), "--alertmanager.backoff-max", "1s", "--cluster", "reload")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	base := "http://" + addr
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(45 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 45s; daemon output:\n%s", what, out.String())
			}
		}
	}
	firingOn := func(host string) string { // the key of the firing my-volume-failed alert on host
		res, err := http.Get(base + "/alerts")
		if err != nil {
			return ""
		}
		defer res.Body.Close()
		var a struct {
			Alerts []struct {
				Detector, State, Key, Title string
				Entities                    struct{ Hosts []string }
			}
		}
		json.NewDecoder(res.Body).Decode(&a)
		for _, f := range a.Alerts {
			if f.Detector == "my-volume-failed" && f.State == "firing" && len(f.Entities.Hosts) > 0 && f.Entities.Hosts[0] == host {
				return f.Key
			}
		}
		return ""
	}
	metric := func(name string) string {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			return ""
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, name+" "); ok {
				return v
			}
		}
		return ""
	}
	activeInAM := func(incident string) int {
		n := 0
		for _, a := range am.Alerts(t) {
			if a.Labels["detector"] == "my-volume-failed" && a.Labels["incident"] == incident && a.Status.State == "active" {
				n++
			}
		}
		return n
	}
	waitFor("the user signature's alert on dn1", func() bool { return firingOn("dn1.example.com") != "" })
	incident := firingOn("dn1.example.com")
	waitFor("the alert in Alertmanager", func() bool { return activeInAM(incident) == 1 })
	if metric("ozdoctor_signatures_reload_success") != "1" {
		t.Errorf("reload_success before any reload: %q", metric("ozdoctor_signatures_reload_success"))
	}

	// A valid change in the directory, to the title and the match: reloaded
	// by itself; the open state starts empty (said in the log), the alert
	// stays.
	changed := strings.Replace(userSignature, "TITLE", "Volume failed (second version)", 1)
	os.WriteFile(sigFile, []byte(strings.Replace(changed, "  max_open: 100\n", "  max_open: 200\n", 1)), 0o644)
	waitFor("the reload after the change", func() bool { return strings.Contains(out.String(), "reloaded") })
	if !strings.Contains(out.String(), "signature changed: its open incidents start empty") {
		t.Errorf("no line about the changed signature:\n%s", out.String())
	}
	if firingOn("dn1.example.com") != incident {
		t.Errorf("the alert %s is gone after a valid reload", incident)
	}
	time.Sleep(2 * time.Second)
	if n := activeInAM(incident); n != 1 {
		t.Errorf("%d active alerts in Alertmanager for %s after the reload, want 1", n, incident)
	}

	// An invalid file, with POST /-/reload: refused with its place; the old
	// set runs on and alerts on a new incident.
	os.WriteFile(sigFile, []byte(strings.Replace(userSignature, "  max_open: 100\n", "  max_open: 100\n  max_opne: 3\n", 1)), 0o644)
	res, err := http.Post(base+"/-/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "my-volume-failed.yaml:18:3: unknown key \"max_opne\"") {
		t.Errorf("POST /-/reload of an invalid file: %d %s", res.StatusCode, body)
	}
	waitFor("reload_success 0", func() bool { return metric("ozdoctor_signatures_reload_success") == "0" })
	dn2 := filepath.Join(logs, "dn2", "ozone-hadoop-datanode-dn2.example.com.log")
	os.WriteFile(dn2, []byte(volumeLine(time.Now().UTC(), "/data3/hdds")), 0o644)
	waitFor("the old set's alert on dn2", func() bool { return firingOn("dn2.example.com") != "" })
	waitFor("dn2's alert in Alertmanager", func() bool { return activeInAM(firingOn("dn2.example.com")) == 1 })
	if firingOn("dn1.example.com") != incident {
		t.Errorf("the alert %s is gone after a refused reload", incident)
	}

	// Fixed again: POST /-/reload answers 200 and the metric comes back.
	os.WriteFile(sigFile, []byte(strings.Replace(userSignature, "TITLE", "Volume failed (third version)", 1)), 0o644)
	waitFor("a successful POST /-/reload", func() bool {
		res, err := http.Post(base+"/-/reload", "", nil)
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	waitFor("reload_success 1 after the fix", func() bool { return metric("ozdoctor_signatures_reload_success") == "1" })
	if metric("ozdoctor_signatures_last_reload_success_timestamp_seconds") == "" {
		t.Error("no last_reload_success_timestamp_seconds")
	}
}
