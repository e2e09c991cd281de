package metrics

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/sinks/alertmanager"
	"github.com/ozdoctor/ozdoctor/sinks/elasticsearch"
)

var t0 = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)

// scrape fetches /metrics from a real HTTP server serving m.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %v %s\n%s", err, resp.Status, b)
	}
	return string(b)
}

// values returns the samples of name as "label=value,..." -> value.
func values(t *testing.T, text, name string) map[string]float64 {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parse scrape: %v", err)
	}
	out := map[string]float64{}
	fam, ok := fams[name]
	if !ok {
		return out
	}
	for _, mt := range fam.Metric {
		var ls []string
		for _, l := range mt.Label {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		sort.Strings(ls)
		out[strings.Join(ls, ",")] = value(mt)
	}
	return out
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	}
	return m.GetUntyped().GetValue()
}

func want(t *testing.T, text, name string, exp map[string]float64) {
	t.Helper()
	got := values(t, text, name)
	for k, v := range exp {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s{%s} = %v (present %v), want %v; all: %v", name, k, g, ok, v, got)
		}
	}
}

func tr(key string, from, to detectors.State, sev detectors.Severity) detectors.Transition {
	f := detectors.Finding{Detector: "scm-pause-stale-nodes", Defect: "HDDS-17519", Key: key, Severity: sev, State: to, Start: t0}
	return detectors.Transition{At: t0, Fingerprint: detectors.Fingerprint(f.Detector, f.Key), From: from, To: to, Finding: f}
}

var docs = []detectors.Doc{{Name: "scm-pause-stale-nodes", Defect: "HDDS-17519"}, {Name: "om-bootstrap-exit-voter", Defect: "HDDS-1"}}

func TestAlertsFromTransitions(t *testing.T) {
	m := New(Options{Version: "1.2.3", Detectors: docs, NoRuntime: true})
	out := scrape(t, m)
	want(t, out, "ozdoctor_alert_pending", map[string]float64{"detector=scm-pause-stale-nodes": 0, "detector=om-bootstrap-exit-voter": 0})
	want(t, out, "ozdoctor_alert_transitions_total", map[string]float64{"detector=om-bootstrap-exit-voter,to=firing": 0})
	want(t, out, "ozdoctor_build_info", map[string]float64{"goversion=" + runtime.Version() + ",version=1.2.3": 1})

	m.Observe(tr("a", "", detectors.Pending, detectors.Warning))
	m.Observe(tr("b", "", detectors.Pending, detectors.Warning))
	out = scrape(t, m)
	want(t, out, "ozdoctor_alert_pending", map[string]float64{"detector=scm-pause-stale-nodes": 2})
	if got := values(t, out, "ozdoctor_alert_active"); len(got) != 0 {
		t.Errorf("active before any firing: %v", got)
	}

	m.Observe(tr("a", detectors.Pending, detectors.Firing, detectors.Warning))
	wd := tr("b", detectors.Pending, detectors.Inactive, detectors.Warning)
	m.Observe(wd)
	upd := tr("a", detectors.Firing, detectors.Firing, detectors.Warning)
	upd.Previous = detectors.Warning
	m.Observe(upd) // an update: no transition
	out = scrape(t, m)
	w := "defect=HDDS-17519,detector=scm-pause-stale-nodes,severity=warning"
	c := "defect=HDDS-17519,detector=scm-pause-stale-nodes,severity=critical"
	want(t, out, "ozdoctor_alert_active", map[string]float64{w: 1})
	want(t, out, "ozdoctor_alert_pending", map[string]float64{"detector=scm-pause-stale-nodes": 0})

	esc := tr("a", detectors.Firing, detectors.Firing, detectors.Critical)
	esc.Escalated, esc.Previous = true, detectors.Warning
	m.Observe(esc)
	m.Observe(tr("c", "", detectors.Firing, detectors.Critical))
	out = scrape(t, m)
	want(t, out, "ozdoctor_alert_active", map[string]float64{w: 0, c: 2})

	m.Observe(tr("a", detectors.Firing, detectors.Resolved, detectors.Critical))
	out = scrape(t, m)
	want(t, out, "ozdoctor_alert_active", map[string]float64{w: 0, c: 1})
	want(t, out, "ozdoctor_alert_transitions_total", map[string]float64{
		"detector=scm-pause-stale-nodes,to=pending":  2,
		"detector=scm-pause-stale-nodes,to=firing":   2,
		"detector=scm-pause-stale-nodes,to=inactive": 1,
		"detector=scm-pause-stale-nodes,to=resolved": 1,
	})
	want(t, out, "ozdoctor_alert_escalations_total", map[string]float64{"detector=scm-pause-stale-nodes": 1})

	// A restart from a checkpoint: the engine's alerts replace the known ones.
	m.SetAlerts([]detectors.Finding{
		{Detector: "om-bootstrap-exit-voter", Defect: "HDDS-1", Key: "x", Severity: detectors.Critical, State: detectors.Firing},
		{Detector: "om-bootstrap-exit-voter", Defect: "HDDS-1", Key: "y", Severity: detectors.Critical, State: detectors.Resolved},
	})
	out = scrape(t, m)
	want(t, out, "ozdoctor_alert_active", map[string]float64{c: 0, "defect=HDDS-1,detector=om-bootstrap-exit-voter,severity=critical": 1})
}

// withSinks registers on m's registry the collectors of the Alertmanager
// sink (reporting am) and of the Elasticsearch findings queue, as the
// daemon does.
func withSinks(m *Metrics, am alertmanager.Stats) *Metrics {
	m.Registry().MustRegister(alertmanager.Collector{Stats: func() alertmanager.Stats { return am }},
		elasticsearch.Collector{Stats: func() elasticsearch.QueueStats {
			return elasticsearch.QueueStats{Queue: 2, Sent: 30, Failed: 3, Dropped: 1}
		}})
	return m
}

func runtimeStats() Stats {
	return Stats{
		Signals: map[string]int64{"NodeStale": 3, "JvmPause": 1},
		Sources: []Source{{Name: "/var/log/ozone/ozone-scm.log", Records: 100, Bytes: 4096, ParseErrors: 2, Lag: 1500 * time.Millisecond},
			{Name: "/var/log/ozone/ozone-scm.log", Records: 1}}, // a duplicate is shown once
		States: []DetectorState{{Detector: "scm-pause-stale-nodes",
			Stats: []detectors.StateStat{{Name: "datanodes", Entries: 5, Limit: 100, Evicted: 7}}}},
		MergerQueued: 12,
		Scrapes:      []Scrape{{Target: "http://127.0.0.1:9876/prom", Up: true, Duration: 250 * time.Millisecond}, {Target: "http://127.0.0.1:9877/prom"}},
		Engine:       detectors.EngineStats{Late: 4, Expired: 5, Evicted: 6},
	}
}

func TestRuntimeFigures(t *testing.T) {
	am := alertmanager.Stats{StateErrors: 2, Targets: []alertmanager.TargetStats{
		{URL: "http://am1:9093", Queue: 3, Sent: 10, Failed: 4, Dropped: 1, Failures: 2},
		{URL: "http://am2:9093", Sent: 11}, {URL: "http://am2:9093", Sent: 12}}} // a duplicate is shown once
	m := withSinks(New(Options{Version: "v", NoRuntime: true}), am)
	s := runtimeStats()
	m.Update(s)
	s.Signals["NodeStale"] = 99 // Update keeps its own copy
	out := scrape(t, m)
	want(t, out, "ozdoctor_signals_total", map[string]float64{"kind=NodeStale": 3, "kind=JvmPause": 1})
	src := "source=/var/log/ozone/ozone-scm.log"
	want(t, out, "ozdoctor_records_read_total", map[string]float64{src: 100})
	want(t, out, "ozdoctor_bytes_read_total", map[string]float64{src: 4096})
	want(t, out, "ozdoctor_parse_errors_total", map[string]float64{src: 2})
	want(t, out, "ozdoctor_source_lag_seconds", map[string]float64{src: 1.5})
	st := "detector=scm-pause-stale-nodes,state=datanodes"
	want(t, out, "ozdoctor_state_entries", map[string]float64{st: 5})
	want(t, out, "ozdoctor_state_limit", map[string]float64{st: 100})
	want(t, out, "ozdoctor_state_evicted_total", map[string]float64{st: 7})
	want(t, out, "ozdoctor_merger_queued_signals", map[string]float64{"": 12})
	want(t, out, "ozdoctor_engine_late_signals_total", map[string]float64{"": 4})
	want(t, out, "ozdoctor_engine_alerts_evicted_total", map[string]float64{"": 6})
	want(t, out, "ozdoctor_scrape_up", map[string]float64{"target=http://127.0.0.1:9876/prom": 1, "target=http://127.0.0.1:9877/prom": 0})
	want(t, out, "ozdoctor_scrape_duration_seconds", map[string]float64{"target=http://127.0.0.1:9876/prom": 0.25})
	want(t, out, "ozdoctor_alertmanager_queue_length", map[string]float64{"url=http://am1:9093": 3, "url=http://am2:9093": 0})
	want(t, out, "ozdoctor_alertmanager_notifications_total", map[string]float64{
		"result=sent,url=http://am1:9093": 10, "result=failed,url=http://am1:9093": 4, "result=dropped,url=http://am1:9093": 1,
		"result=sent,url=http://am2:9093": 11})
	want(t, out, "ozdoctor_alertmanager_up", map[string]float64{"url=http://am1:9093": 0, "url=http://am2:9093": 1})
	want(t, out, "ozdoctor_alertmanager_state_errors_total", map[string]float64{"": 2})
	want(t, out, "ozdoctor_elasticsearch_findings_queue_length", map[string]float64{"": 2})
	want(t, out, "ozdoctor_elasticsearch_findings_documents_total", map[string]float64{"result=sent": 30, "result=failed": 3, "result=dropped": 1})
}

func TestPrivateRegistry(t *testing.T) {
	a, b := New(Options{}), New(Options{})
	a.Observe(tr("a", "", detectors.Firing, detectors.Critical))
	if got := values(t, scrape(t, b), "ozdoctor_alert_active"); len(got) != 0 {
		t.Errorf("metrics leak between instances: %v", got)
	}
	if out := scrape(t, a); !strings.Contains(out, "go_goroutines") || !strings.Contains(out, "process_") {
		t.Errorf("runtime collectors missing")
	}
}

// TestPromtoolCheckMetrics runs Debian's promtool on a full scrape.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is missing (CI=true): install Debian's prometheus package")
		}
		t.Skip("promtool is missing: apt-get install --no-install-recommends prometheus to run this test")
	}
	m := withSinks(New(Options{Version: "1.0.0", Detectors: docs}), alertmanager.Stats{Targets: []alertmanager.TargetStats{{URL: "http://am:9093"}}})
	m.Update(runtimeStats())
	m.Observe(tr("a", "", detectors.Firing, detectors.Critical))
	out := scrape(t, m)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(out)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil || strings.TrimSpace(buf.String()) != "" {
		t.Fatalf("promtool check metrics: %v\n%s", err, buf.String())
	}
}
