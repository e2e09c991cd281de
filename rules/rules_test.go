package rules_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/alerting"
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"go.yaml.in/yaml/v3"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/rules"
)

func generated(t *testing.T) map[string][]byte {
	t.Helper()
	out, err := rules.Generate(registry.All(), rules.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCommittedFilesAreGenerated fails when a file under rules/ differs
// from what `ozdoctor rules generate` writes, or when a generated-looking
// file is not generated any more.
func TestCommittedFilesAreGenerated(t *testing.T) {
	want := generated(t)
	for name, b := range want {
		got, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Errorf("%s: %v (run `go run ./cmd/ozdoctor rules generate`)", name, err)
			continue
		}
		if !bytes.Equal(got, b) {
			t.Errorf("rules/%s differs from the generator's output: run `go run ./cmd/ozdoctor rules generate`", name)
		}
	}
	for _, pattern := range []string{"*.yml", "tests/*.yml", "grafana/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			if _, ok := want[filepath.ToSlash(f)]; !ok {
				t.Errorf("rules/%s is not generated any more: delete it", f)
			}
		}
	}
}

// TestEveryDetectorHasARule checks the sidecar file covers the registry.
func TestEveryDetectorHasARule(t *testing.T) {
	files, err := rules.Files(registry.All(), rules.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, r := range rules.AllRules(files) {
		if names[r.Alert] {
			t.Errorf("duplicate alert name %s", r.Alert)
		}
		names[r.Alert] = true
		var pos, neg int
		for _, c := range r.Tests {
			if len(c.Fire) > 0 {
				pos++
			} else {
				neg++
			}
		}
		if pos == 0 || neg == 0 {
			t.Errorf("%s: %d positive and %d near-miss promtool cases; want both", r.Alert, pos, neg)
		}
	}
	for _, reg := range registry.All() {
		if !names[rules.AlertName(reg.Doc.Name)] {
			t.Errorf("detector %s has no sidecar rule", reg.Doc.Name)
		}
	}
}

// A native rule names the problem and the detector the way the detector's
// findings do, so that Grafana, Alertmanager routes and the dashboard's
// panels group the log finding and the metric alert under one key.
func TestNativeRulesNameTheDetectorsProblem(t *testing.T) {
	files, err := rules.Files(registry.All(), rules.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	problem := map[string]string{}
	keys := map[string]bool{}
	for _, reg := range registry.All() {
		problem[reg.Doc.Name] = reg.Doc.Defect
		keys[reg.Doc.Defect] = true
	}
	for _, f := range files {
		if f.Name != "ozone-native.yml" {
			continue
		}
		for _, g := range f.Groups {
			for _, r := range g.Rules {
				key, det := r.Labels["defect"], r.Labels["detector"]
				if !keys[key] {
					t.Errorf("%s: defect %q is no detector's problem key", r.Alert, key)
				}
				if det != "" && problem[det] != key {
					t.Errorf("%s: detector %q reports %q, not %q", r.Alert, det, problem[det], key)
				}
			}
		}
	}
}

func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is missing (CI=true): install Debian's prometheus package (.ci/run does)")
		}
		t.Skip("promtool not found: apt-get install --no-install-recommends prometheus to run the rule checks")
	}
	return p
}

// TestPromtool runs `promtool check rules` and `promtool test rules` on
// the committed files.
func TestPromtool(t *testing.T) {
	bin := promtool(t)
	rulesFiles, _ := filepath.Glob("*.yml")
	testFiles, _ := filepath.Glob("tests/*.yml")
	if len(rulesFiles) == 0 || len(testFiles) == 0 {
		t.Fatal("no rule or test files")
	}
	for _, args := range [][]string{append([]string{"check", "rules"}, rulesFiles...), append([]string{"test", "rules"}, testFiles...)} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestGrafanaRulesStrict reads the provisioning files back and decodes
// each rule strictly through the grafana-foundation-sdk.
func TestGrafanaRulesStrict(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	files, _ := filepath.Glob("grafana/*.yaml")
	if len(files) == 0 {
		t.Fatal("no Grafana rule files")
	}
	uids := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			APIVersion int `yaml:"apiVersion"`
			Groups     []struct {
				OrgID    int              `yaml:"orgId"`
				Name     string           `yaml:"name"`
				Folder   string           `yaml:"folder"`
				Interval string           `yaml:"interval"`
				Rules    []map[string]any `yaml:"rules"`
			} `yaml:"groups"`
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if p.APIVersion != 1 || len(p.Groups) == 0 {
			t.Fatalf("%s: apiVersion %d, %d groups", f, p.APIVersion, len(p.Groups))
		}
		for _, g := range p.Groups {
			if g.Folder == "" || g.Interval == "" || g.Name == "" {
				t.Errorf("%s: group %q lacks folder, name or interval", f, g.Name)
			}
			for _, r := range g.Rules {
				r["folderUID"], r["ruleGroup"], r["orgID"] = g.Folder, g.Name, g.OrgID
				raw, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				var rule alerting.Rule
				if err := rule.UnmarshalJSONStrict(raw); err != nil {
					var be cog.BuildErrors
					if !errors.As(err, &be) || len(be) > 0 {
						t.Errorf("%s: rule %v: %v", f, r["title"], err)
						continue
					}
				}
				if rule.Uid == nil || uids[*rule.Uid] || len(*rule.Uid) > 40 {
					t.Errorf("%s: rule %s: missing, duplicate or long uid", f, rule.Title)
				} else {
					uids[*rule.Uid] = true
				}
				if rule.Condition != "C" || len(rule.Data) != 3 || rule.Annotations["summary"] == "" {
					t.Errorf("%s: rule %s: condition %q, %d queries", f, rule.Title, rule.Condition, len(rule.Data))
				}
			}
		}
	}
	// The strict decoder does reject what Grafana would not know.
	var bogus alerting.Rule
	if err := bogus.UnmarshalJSONStrict([]byte(`{"title":"x","condition":"C","data":[{"refId":"A","bogus":1}]}`)); err == nil || err.Error() == "" {
		t.Error("strict decoding accepted an unknown query field")
	}
	keys := make([]string, 0, len(uids))
	for k := range uids {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%d Grafana rules: %s", len(keys), strings.Join(keys, " "))
}

// ozoneMetrics reads testdata/ozone-metrics.txt.
func ozoneMetrics(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("testdata/ozone-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			names[f[0]] = true
		}
	}
	return names
}

// TestRulesNameKnownMetrics checks that the sidecar rules use only the
// sidecar's metrics and the native rules (and their dashboard panels) only
// Ozone's documented metrics.
func TestRulesNameKnownMetrics(t *testing.T) {
	ozone := ozoneMetrics(t)
	sidecar := map[string]bool{}
	for _, m := range rules.SidecarMetrics {
		sidecar[m] = true
	}
	files, err := rules.Files(registry.All(), rules.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		allowed := sidecar
		if f.Name == "ozone-native.yml" {
			allowed = ozone
		}
		for _, r := range rules.AllRules([]rules.File{f}) {
			exprs := []string{r.Expr}
			for _, p := range r.Panels {
				exprs = append(exprs, p.Expr)
			}
			for _, e := range exprs {
				names := rules.MetricNames(e)
				if len(names) == 0 {
					t.Errorf("%s: no metric in %q", r.Alert, e)
				}
				for _, n := range names {
					if !allowed[n] {
						t.Errorf("%s (%s) names %s, which is neither in testdata/ozone-metrics.txt nor in the sidecar's metrics", r.Alert, f.Name, n)
					}
				}
			}
		}
	}
}

func TestMetricNames(t *testing.T) {
	got := strings.Join(rules.MetricNames(`max by (instance, job) (rate(a_total{x="y or z"}[5m])) > 1e3 and on (instance) (b == 1) unless c offset 5m`), " ")
	if got != "a_total b c" {
		t.Errorf("MetricNames = %q", got)
	}
}
