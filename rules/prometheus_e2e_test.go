//go:build e2e

package rules_test

import (
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
	"testing"
	"time"
)

// promServer serves an Ozone /prom page in Ozone's wire format (metrics2
// families with one "# TYPE" line and no HELP, then "#Dropwizard metrics"
// and simpleclient samples with a trailing comma); page(n) renders the
// n-th scrape, or "" to answer 503 (a failed scrape).
type promServer struct {
	mu    sync.Mutex
	n     int
	page  func(n int) string
	serve *httptest.Server
}

func newPromServer(t *testing.T, page func(n int) string) *promServer {
	s := &promServer{page: page}
	s.serve = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/prom" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.n++
		body := s.page(s.n)
		s.mu.Unlock()
		if body == "" {
			http.Error(w, "paused", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.serve.Close)
	return s
}

func (s *promServer) target() string { return strings.TrimPrefix(s.serve.URL, "http://") }

const dropwizard = "\n\n#Dropwizard metrics\n\n" +
	"# HELP ratis_log_worker_flushCount Generated from Dropwizard metric import (metric=ratis.log_worker.6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9@group-4C3FA0E1B2D9.flushCount, type=com.codahale.metrics.Counter)\n" +
	"# TYPE ratis_log_worker_flushCount gauge\n" +
	"ratis_log_worker_flushCount{instance=\"6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9\",group=\"group-4C3FA0E1B2D9\",} 30.0\n"

func datanodePage(host string, forceDeletes int) string {
	return "# TYPE jvm_metrics_gc_count counter\n" +
		"jvm_metrics_gc_count{context=\"jvm\",processname=\"HddsDatanode\",sessionid=\"null\",hostname=\"" + host + "\"} 42\n" +
		"# TYPE storage_container_metrics_container_force_delete counter\n" +
		fmt.Sprintf("storage_container_metrics_container_force_delete{context=\"dfs\",hostname=%q} %d\n", host, forceDeletes) +
		dropwizard
}

func scmPage(host string, stale int) string {
	return "# TYPE jvm_metrics_gc_time_millis counter\n" +
		"jvm_metrics_gc_time_millis{context=\"jvm\",processname=\"StorageContainerManager\",sessionid=\"null\",hostname=\"" + host + "\"} 48213\n" +
		"# TYPE scm_node_manager_in_service_dead_nodes gauge\n" +
		"scm_node_manager_in_service_dead_nodes{context=\"ozone\",hostname=\"" + host + "\"} 0\n" +
		"# TYPE scm_node_manager_in_service_stale_nodes gauge\n" +
		fmt.Sprintf("scm_node_manager_in_service_stale_nodes{context=\"ozone\",hostname=%q} %d\n", host, stale)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestNativeRulesEndToEnd has a real Prometheus (Debian's) scrape small
// servers that replay Ozone /prom pages of a defect and of a near miss,
// with rules/ozone-native.yml loaded: HDDS-16809's forced delete on dn3
// and HDDS-17519's pause on scm-a must fire; dn1 (no forced delete) and
// scm-b (the same STALE burst without a pause) must not.
func TestNativeRulesEndToEnd(t *testing.T) {
	dn3 := newPromServer(t, func(n int) string { // the defect: a forced delete after the 3rd scrape
		if n <= 3 {
			return datanodePage("dn3.example.com", 0)
		}
		return datanodePage("dn3.example.com", 1)
	})
	dn1 := newPromServer(t, func(int) string { return datanodePage("dn1.example.com", 0) })
	scmA := newPromServer(t, func(n int) string { // the defect: scrapes fail, then 5 nodes STALE and back
		switch {
		case n <= 3:
			return scmPage("scm-a.example.com", 0)
		case n <= 6:
			return ""
		case n <= 8:
			return scmPage("scm-a.example.com", 5)
		}
		return scmPage("scm-a.example.com", 0)
	})
	scmB := newPromServer(t, func(n int) string { // near miss: the same burst, no pause
		if n >= 7 && n <= 8 {
			return scmPage("scm-b.example.com", 5)
		}
		return scmPage("scm-b.example.com", 0)
	})

	addr := startPrometheus(t, "ozone-native.yml", "/prom", dn3.target(), dn1.target(), scmA.target(), scmB.target())

	want := map[string]string{ // alertname -> hostname that must fire
		"OzoneDatanodeForceDeletedContainer":    "dn3.example.com",
		"OzoneSCMPauseMarkedLiveDatanodesStale": "scm-a.example.com",
	}
	quiet := map[string]bool{"dn1.example.com": true, "scm-b.example.com": true}
	fired := map[string]bool{}
	deadline := time.Now().Add(90 * time.Second)
	for len(fired) < len(want) && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		as, err := alerts(addr)
		if err != nil {
			continue // not up yet
		}
		for _, a := range as {
			name, host := a.Labels["alertname"], a.Labels["hostname"]
			if quiet[host] {
				t.Fatalf("near miss %s raised %s (%s): %v", host, name, a.State, a.Labels)
			}
			if want[name] == host && a.State == "firing" && !fired[name] {
				fired[name] = true
				if a.Labels["defect"] == "" || a.Labels["severity"] != "warning" {
					t.Errorf("%s: labels %v", name, a.Labels)
				}
				t.Logf("%s firing for %s", name, host)
			}
		}
	}
	for name, host := range want {
		if !fired[name] {
			t.Errorf("%s did not fire for %s within 90s", name, host)
		}
	}
	// The near misses stay quiet a little longer than the defects took.
	time.Sleep(3 * time.Second)
	as, err := alerts(addr)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		if quiet[a.Labels["hostname"]] {
			t.Errorf("near miss raised %v", a.Labels)
		}
	}
}

type alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
}

// alerts returns the alerts Prometheus holds (pending and firing).
func alerts(addr string) ([]alert, error) {
	resp, err := http.Get("http://" + addr + "/api/v1/alerts")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Alerts []alert `json:"alerts"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	return body.Data.Alerts, nil
}

// startPrometheus runs Debian's prometheus with ruleFile (relative to
// rules/) loaded, scraping targets every second; it returns the address
// of its API. The test is skipped without prometheus, unless CI=true.
func startPrometheus(t *testing.T, ruleFile, metricsPath string, targets ...string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is missing (CI=true): install Debian's prometheus package (.ci/run does)")
		}
		t.Skip("prometheus not found: apt-get install --no-install-recommends prometheus to run the end-to-end rule tests")
	}
	if testing.Short() {
		t.Skip("end-to-end test with a real Prometheus (-short)")
	}
	rulesFile, err := filepath.Abs(ruleFile)
	if err != nil {
		t.Fatal(err)
	}
	quoted := make([]string, len(targets))
	for i, target := range targets {
		quoted[i] = fmt.Sprintf("%q", target)
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: e2e
    metrics_path: %s
    static_configs:
      - targets: [%s]
`, rulesFile, metricsPath, strings.Join(quoted, ", "))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus output:\n%s", logs.String())
		}
	})
	return addr
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSidecarRulesEndToEnd has a real Prometheus scrape a scripted
// /metrics (the daemon's names, driven through escalation and resolution;
// TestSidecarRulesOnTheDaemon scrapes the daemon itself) with rules/ozdoctor-sidecar.yml loaded: the
// detector's alert fires with the finding's severity and defect and the
// Doc's annotations, escalates, then resolves when the gauge drops to 0;
// the sidecar's scrape-failure rule stays quiet for a scrape that works.
func TestSidecarRulesEndToEnd(t *testing.T) {
	var mu sync.Mutex
	phase := "warning"
	sidecar := newPromServer(t, func(int) string {
		mu.Lock()
		defer mu.Unlock()
		w, c := 0, 0
		switch phase {
		case "warning":
			w = 1
		case "critical":
			c = 1
		}
		return "# HELP ozdoctor_alert_active Findings firing now.\n# TYPE ozdoctor_alert_active gauge\n" +
			fmt.Sprintf("ozdoctor_alert_active{defect=\"HDDS-16809\",detector=\"empty-quasi-closed-delete\",severity=\"critical\"} %d\n", c) +
			fmt.Sprintf("ozdoctor_alert_active{defect=\"HDDS-16809\",detector=\"empty-quasi-closed-delete\",severity=\"warning\"} %d\n", w) +
			"# TYPE ozdoctor_scrape_up gauge\nozdoctor_scrape_up{target=\"http://scm1.example.com:9876/prom\"} 1\n"
	})
	addr := startPrometheus(t, "ozdoctor-sidecar.yml", "/prom", sidecar.target())
	waitFor := func(what string, ok func([]alert) bool) []alert {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			time.Sleep(500 * time.Millisecond)
			as, err := alerts(addr)
			if err != nil {
				continue
			}
			for _, a := range as {
				if a.Labels["alertname"] == "OzdoctorPromScrapeFailing" {
					t.Fatalf("scrape-failure rule raised for a working scrape: %v", a.Labels)
				}
			}
			if ok(as) {
				return as
			}
		}
		t.Fatalf("%s: not within 60s", what)
		return nil
	}
	firing := func(sev string) func([]alert) bool {
		return func(as []alert) bool {
			for _, a := range as {
				if a.Labels["alertname"] == "OzdoctorEmptyQuasiClosedDelete" && a.State == "firing" && a.Labels["severity"] == sev {
					return true
				}
			}
			return false
		}
	}
	as := waitFor("warning alert firing", firing("warning"))
	for _, a := range as {
		if a.Labels["alertname"] != "OzdoctorEmptyQuasiClosedDelete" {
			continue
		}
		if a.Labels["defect"] != "HDDS-16809" || a.Labels["detector"] != "empty-quasi-closed-delete" ||
			!strings.Contains(a.Annotations["summary"], "HDDS-16809 on ") ||
			!strings.HasSuffix(a.Annotations["runbook_url"], "signatures/empty-quasi-closed-delete/empty-quasi-closed-delete.yaml") ||
			!strings.Contains(a.Annotations["remediation"], "may still have a replica with data") {
			t.Errorf("warning alert: %v %v", a.Labels, a.Annotations)
		}
	}
	mu.Lock()
	phase = "critical"
	mu.Unlock()
	as = waitFor("critical alert firing", firing("critical"))
	for _, a := range as {
		if a.Labels["severity"] == "critical" && !strings.Contains(a.Annotations["remediation"], "Preserve what is left") {
			t.Errorf("critical alert's remediation: %q", a.Annotations["remediation"])
		}
	}
	mu.Lock()
	phase = "resolved"
	mu.Unlock()
	waitFor("alerts resolved", func(as []alert) bool {
		for _, a := range as {
			if a.Labels["alertname"] == "OzdoctorEmptyQuasiClosedDelete" {
				return false
			}
		}
		return true
	})
}
