package dashboards_test

//lint:file-ignore SA1019 Grafana file provisioning loads the classic dashboard JSON model (dashboard.Dashboard); dashboardv2 is a different schema.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"go.yaml.in/yaml/v3"

	"github.com/ozdoctor/ozdoctor/dashboards"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/rules"
)

// TestCommittedFilesAreGenerated fails when a file under dashboards/
// differs from what `ozdoctor rules generate` writes.
func TestCommittedFilesAreGenerated(t *testing.T) {
	want, err := dashboards.Generate(registry.All(), rules.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Errorf("%s: %v (run `go run ./cmd/ozdoctor rules generate`)", name, err)
			continue
		}
		if !bytes.Equal(got, b) {
			t.Errorf("dashboards/%s differs from the generator's output: run `go run ./cmd/ozdoctor rules generate`", name)
		}
	}
	files, _ := filepath.Glob("*.json")
	for _, f := range files {
		if _, ok := want[f]; !ok {
			t.Errorf("dashboards/%s is not generated any more: delete it", f)
		}
	}
}

// TestDashboardStrict decodes the committed dashboard strictly through the
// grafana-foundation-sdk and checks it shows what the rules use.
func TestDashboardStrict(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	raw, err := os.ReadFile("ozdoctor.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard.Dashboard
	if err := d.UnmarshalJSONStrict(raw); err != nil {
		var be cog.BuildErrors
		if !errors.As(err, &be) || len(be) > 0 {
			t.Fatalf("strict unmarshal: %v", err)
		}
	}
	// The strict decoder does reject an unknown panel field.
	mutated := strings.Replace(string(raw), `"type": "timeseries",`, `"type": "timeseries", "bogus": 1,`, 1)
	var bad dashboard.Dashboard
	if err := bad.UnmarshalJSONStrict([]byte(mutated)); err == nil || err.Error() == "" {
		t.Error("strict decoding accepted an unknown panel field")
	}
	// In grafana-foundation-sdk v0.0.22 PanelOrRowPanel.UnmarshalJSONStrict
	// validates each panel but returns the typed-nil cog.BuildErrors of a
	// valid one before keeping it, so the strictly decoded dashboard has
	// empty panels: read the structure again with the lenient decoder.
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.Title == nil || *d.Title != dashboards.Title || d.Uid == nil || *d.Uid != dashboards.UID {
		t.Fatalf("title/uid: %v %v", d.Title, d.Uid)
	}
	text := string(raw)
	for _, metric := range []string{"ozdoctor_alert_active", "ozdoctor_alert_pending", "ozdoctor_alert_transitions_total",
		"ozdoctor_signals_total", "ozdoctor_records_read_total", "ozdoctor_bytes_read_total", "ozdoctor_parse_errors_total",
		"ozdoctor_state_entries", "ozdoctor_state_evicted_total", "ozdoctor_source_lag_seconds", "ozdoctor_merger_queued_signals",
		"ozdoctor_alertmanager_queue_length", "ozdoctor_alertmanager_notifications_total", "ozdoctor_scrape_up",
		"ozdoctor_scrape_duration_seconds", "ozdoctor_build_info"} {
		if !strings.Contains(text, metric) {
			t.Errorf("no panel shows %s", metric)
		}
	}
	files, err := rules.Files(registry.All(), rules.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, g := range f.Groups {
			for _, r := range g.Rules {
				if f.Name == "ozone-native.yml" && !strings.Contains(text, "Ozone metrics: "+r.Alert+" ") {
					t.Errorf("no row for native rule %s", r.Alert)
				}
			}
		}
	}
	var rows, panels int
	for _, p := range d.Panels {
		if p.RowPanel != nil {
			rows++
		}
		if p.Panel != nil {
			panels++
			if p.Panel.GridPos == nil || p.Panel.GridPos.W == 0 {
				t.Errorf("panel %v has no position", p.Panel.Title)
			}
		}
	}
	if rows < 4 || panels < 20 {
		t.Errorf("%d rows, %d panels", rows, panels)
	}
	t.Logf("%d rows, %d panels", rows, panels)
}

// TestProvisioning checks the dashboard provider file.
func TestProvisioning(t *testing.T) {
	b, err := os.ReadFile("provisioning/dashboards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		APIVersion int `yaml:"apiVersion"`
		Providers  []struct {
			Name    string `yaml:"name"`
			Type    string `yaml:"type"`
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	if err := yaml.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.APIVersion != 1 || len(p.Providers) != 1 || p.Providers[0].Type != "file" || p.Providers[0].Options.Path == "" {
		t.Fatalf("provider file: %+v", p)
	}
}

// TestDashboardNamesKnownMetrics checks every panel query against the
// sidecar's metrics and Ozone's documented ones.
func TestDashboardNamesKnownMetrics(t *testing.T) {
	allowed := map[string]bool{}
	for _, m := range rules.SidecarMetrics {
		allowed[m] = true
	}
	b, err := os.ReadFile("../rules/testdata/ozone-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			allowed[f[0]] = true
		}
	}
	raw, err := os.ReadFile("ozdoctor.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "expr" {
					exprs = append(exprs, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if len(exprs) < 30 {
		t.Fatalf("only %d queries", len(exprs))
	}
	for _, e := range exprs {
		for _, n := range rules.MetricNames(e) {
			if !allowed[n] {
				t.Errorf("query %q names unknown metric %s", e, n)
			}
		}
	}
}
