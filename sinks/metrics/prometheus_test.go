package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// TestRealPrometheusScrapes has Debian's Prometheus scrape the metrics and
// answer a query on ozdoctor_alert_active.
func TestRealPrometheusScrapes(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is missing (CI=true): install Debian's prometheus package")
		}
		t.Skip("prometheus is missing: apt-get install --no-install-recommends prometheus to run this test")
	}
	m := New(Options{Version: "test", Detectors: docs})
	m.Observe(tr("a", "", detectors.Firing, detectors.Critical))
	target := httptest.NewServer(m.Handler())
	defer target.Close()

	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: ozdoctor\n    static_configs:\n      - targets: [%q]\n",
		strings.TrimPrefix(target.URL, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", log.String())
		}
	}()

	query := func(q string) (string, bool) {
		resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return "", false
		}
		defer resp.Body.Close()
		var r struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Value  []any             `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Data.Result) != 1 || len(r.Data.Result[0].Value) != 2 {
			return "", false
		}
		v, _ := r.Data.Result[0].Value[1].(string)
		return v, true
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, ok := query(`ozdoctor_alert_active{detector="scm-pause-stale-nodes",defect="HDDS-17519",severity="critical",job="ozdoctor"}`)
		if ok && v == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus has no ozdoctor_alert_active = 1 (last %q)", v)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if v, ok := query(`up{job="ozdoctor"}`); !ok || v != "1" {
		t.Errorf("up = %q", v)
	}
	if v, ok := query(`ozdoctor_build_info{version="test"}`); !ok || v != "1" {
		t.Errorf("build_info = %q", v)
	}
}
