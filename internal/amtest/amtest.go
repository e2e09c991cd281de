// Package amtest runs Debian's Alertmanager (prometheus-alertmanager,
// installed by .ci/run) for tests: on a free loopback port, with its
// storage in a temporary directory, notifying a webhook the test serves.
// Tests skip without it, except under CI=true, where it must be there.
package amtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/prom"
)

// Bin is where Debian installs Alertmanager.
const Bin = "/usr/bin/prometheus-alertmanager"

// Need returns Alertmanager's path, or skips the test (fails it under
// CI=true) when it is not installed.
func Need(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(Bin); err == nil {
		return Bin
	}
	if p, err := exec.LookPath("prometheus-alertmanager"); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing (CI=true): install Debian's prometheus-alertmanager", Bin)
	}
	t.Skipf("%s is missing: apt-get install --no-install-recommends prometheus-alertmanager to run this test", Bin)
	return ""
}

// Webhook receives Alertmanager's notifications.
type Webhook struct {
	mu   sync.Mutex
	msgs []Message
}

// Message is one webhook notification.
type Message struct {
	Status string `json:"status"`
	Alerts []struct {
		Status      string            `json:"status"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
		EndsAt      time.Time         `json:"endsAt"`
	} `json:"alerts"`
}

func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m Message
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.msgs = append(h.msgs, m)
	h.mu.Unlock()
}

// Notified reports whether a notification said incident had status
// ("firing" or "resolved").
func (h *Webhook) Notified(incident, status string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.msgs {
		for _, a := range m.Alerts {
			if a.Labels["incident"] == incident && a.Status == status {
				return true
			}
		}
	}
	return false
}

// Wait waits up to 20s until a notification says incident has status.
func (h *Webhook) Wait(t testing.TB, incident, status string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if h.Notified(incident, status) {
			return
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t.Fatalf("no %s notification for incident %q; got %+v", status, incident, h.msgs)
}

// Process is one Alertmanager started by a test.
type Process struct {
	bin, addr, storage, config string
	Cmd                        *exec.Cmd
	log                        *bytes.Buffer
}

// FreeAddr returns a loopback address nothing listens on.
func FreeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// New starts an Alertmanager on a free loopback port that notifies hookURL
// of every alert on its own, resolves included; it stops with the test.
func New(t testing.TB, hookURL string) *Process {
	bin := Need(t)
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
	a := &Process{bin: bin, addr: FreeAddr(t), storage: filepath.Join(dir, "data"), config: filepath.Join(dir, "alertmanager.yml")}
	if err := os.WriteFile(a.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.Stop(t)
		if t.Failed() && a.log != nil {
			t.Logf("alertmanager log:\n%s", a.log)
		}
	})
	a.Start(t)
	return a
}

// URL is the Alertmanager's base URL.
func (a *Process) URL() string { return "http://" + a.addr }

// Start starts the Alertmanager (again, with the same storage) and waits
// until it is ready.
func (a *Process) Start(t testing.TB) {
	t.Helper()
	if a.log == nil {
		a.log = &bytes.Buffer{}
	}
	a.Cmd = exec.Command(a.bin, "--config.file="+a.config, "--storage.path="+a.storage,
		"--web.listen-address="+a.addr, "--cluster.listen-address=", "--log.level=debug")
	a.Cmd.Stdout, a.Cmd.Stderr = a.log, a.log
	if err := a.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(a.URL() + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("alertmanager not ready on %s:\n%s", a.addr, a.log)
}

// WaitLogged waits up to 20s until Alertmanager has written the
// notifications it sent so far to its notification log, which a restart
// reads back to send resolves. It writes an entry only after the webhook
// replied, so a test that stops it as soon as a notification arrives can
// lose the entry. A group's next flush queries the log after its previous
// flush has logged, so the sign is alertmanager_nflog_queries_total rising
// past its value now; it holds when one group is flushing (group_by
// '...': one alert), as the groups here flush every second.
func (a *Process) WaitLogged(t testing.TB) {
	t.Helper()
	start := a.nflogQueries(t)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if a.nflogQueries(t) > start {
			return
		}
	}
	t.Fatalf("alertmanager_nflog_queries_total stayed at %v", start)
}

// nflogQueries returns alertmanager_nflog_queries_total from /metrics.
func (a *Process) nflogQueries(t testing.TB) float64 {
	t.Helper()
	resp, err := http.Get(a.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := prom.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page.Samples {
		if s.Name == "alertmanager_nflog_queries_total" {
			return s.Value
		}
	}
	t.Fatalf("no alertmanager_nflog_queries_total in %s/metrics", a.URL())
	return 0
}

// Stop stops the Alertmanager with SIGTERM (SIGKILL after 10s).
func (a *Process) Stop(t testing.TB) {
	if a.Cmd == nil || a.Cmd.Process == nil {
		return
	}
	a.Cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- a.Cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		a.Cmd.Process.Kill()
		<-done
	}
	a.Cmd = nil
}

// Alert is an alert as GET /api/v2/alerts returns it.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	EndsAt      time.Time         `json:"endsAt"`
	Status      struct {
		State string `json:"state"`
	} `json:"status"`
}

// Alerts returns the Alertmanager's alerts.
func (a *Process) Alerts(t testing.TB) []Alert {
	t.Helper()
	resp, err := http.Get(a.URL() + "/api/v2/alerts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var as []Alert
	if err := json.NewDecoder(resp.Body).Decode(&as); err != nil {
		t.Fatal(err)
	}
	return as
}

// ByIncident returns the alerts by their incident label.
func (a *Process) ByIncident(t testing.TB) map[string]Alert {
	out := map[string]Alert{}
	for _, g := range a.Alerts(t) {
		out[g.Labels["incident"]] = g
	}
	return out
}
