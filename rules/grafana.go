package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/grafana/grafana-foundation-sdk/go/alerting"
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/expr"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
)

// GrafanaFolder is the folder the Grafana-managed rules are provisioned in.
const GrafanaFolder = "ozdoctor"

// GrafanaRules builds a file's rules as Grafana-managed alert rules with
// the grafana-foundation-sdk: query A is the rule's PromQL (instant), B
// reduces each series to its count of points (1 for every series the
// expression returns, whatever its value), C fires when B > 0. The
// expression's labels pass through, as in Prometheus.
func GrafanaRules(f File, o Options) ([]alerting.Rule, error) {
	var out []alerting.Rule
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			rule, err := grafanaRule(r, g.Name, o)
			if err != nil {
				return nil, fmt.Errorf("grafana rule %s: %w", r.Alert, err)
			}
			out = append(out, rule)
		}
	}
	return out, nil
}

// GrafanaUID is the stable uid of a rule: its name, shortened with a hash
// when Grafana's 40-character limit needs it.
func GrafanaUID(alert string) string {
	uid := "ozd-" + strings.ToLower(alert)
	if len(uid) <= 40 {
		return uid
	}
	sum := sha256.Sum256([]byte(alert))
	return uid[:31] + "-" + hex.EncodeToString(sum[:])[:8]
}

func grafanaRule(r Rule, group string, o Options) (alerting.Rule, error) {
	ds := common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr(o.DatasourceUID)}
	exprDS := common.DataSourceRef{Type: cog.ToPtr("__expr__"), Uid: cog.ToPtr("__expr__")}
	window := alerting.Duration(600)
	if r.For > 10*time.Minute {
		window = alerting.Duration(r.For.Seconds())
	}
	b := alerting.NewRuleBuilder(r.Alert).
		Uid(GrafanaUID(r.Alert)).
		RuleGroup(group).
		FolderUID(GrafanaFolder).
		OrgID(1).
		Condition("C").
		For(grafanaDuration(r.For)).
		NoDataState(alerting.RuleNoDataStateOK).
		ExecErrState(alerting.RuleExecErrStateError).
		Labels(r.Labels).
		Annotations(r.Annotations).
		WithQuery(alerting.NewQueryBuilder("A").
			DatasourceUid(o.DatasourceUID).
			RelativeTimeRange(window, 0).
			Model(prometheus.NewDataqueryBuilder().
				RefId("A").
				Datasource(ds).
				Expr(r.Expr).
				Instant())).
		WithQuery(alerting.NewQueryBuilder("B").
			DatasourceUid("__expr__").
			Model(expr.NewExprBuilder().TypeReduce(expr.NewTypeReduceBuilder().
				RefId("B").
				Datasource(exprDS).
				Expression("A").
				Reducer(expr.TypeReduceReducerCount)))).
		WithQuery(alerting.NewQueryBuilder("C").
			DatasourceUid("__expr__").
			Model(expr.NewExprBuilder().TypeThreshold(expr.NewTypeThresholdBuilder().
				RefId("C").
				Datasource(exprDS).
				Expression("B").
				Conditions([]cog.Builder[expr.ExprTypeThresholdConditions]{
					expr.NewExprTypeThresholdConditionsBuilder().Evaluator(
						expr.NewExprTypeThresholdConditionsEvaluatorBuilder().
							Type(expr.ExprTypeThresholdConditionsEvaluatorTypeGt).
							Params([]float64{0})),
				}))))
	return b.Build()
}

func grafanaDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	return promDuration(d)
}

// provisioning is Grafana's alerting file-provisioning format.
type provisioning struct {
	APIVersion int                 `yaml:"apiVersion"`
	Groups     []provisioningGroup `yaml:"groups"`
}

type provisioningGroup struct {
	OrgID    int          `yaml:"orgId"`
	Name     string       `yaml:"name"`
	Folder   string       `yaml:"folder"`
	Interval string       `yaml:"interval"`
	Rules    []*yaml.Node `yaml:"rules"`
}

// provisioningOnly are the API fields of a rule that the provisioning
// format takes from its group instead.
var provisioningOnly = []string{"folderUID", "ruleGroup", "orgID"}

// GrafanaYAML renders a file's rules in Grafana's alerting provisioning
// format (put the file in Grafana's provisioning/alerting directory).
func GrafanaYAML(f File, o Options) ([]byte, error) {
	rules, err := GrafanaRules(f, o)
	if err != nil {
		return nil, err
	}
	p := provisioning{APIVersion: 1}
	groups := map[string]int{}
	for _, r := range rules {
		m, err := ruleMap(r)
		if err != nil {
			return nil, err
		}
		n, err := orderedNode(m, ruleKeyOrder)
		if err != nil {
			return nil, err
		}
		i, ok := groups[r.RuleGroup]
		if !ok {
			i = len(p.Groups)
			groups[r.RuleGroup] = i
			p.Groups = append(p.Groups, provisioningGroup{OrgID: 1, Name: r.RuleGroup, Folder: GrafanaFolder, Interval: "1m"})
		}
		p.Groups[i].Rules = append(p.Groups[i].Rules, n)
	}
	return marshalYAML(comment(generatedBy+"\nGrafana alerting provisioning file: "+f.Title+
		" rules as Grafana-managed alert rules.\nThe Prometheus data source must have the UID \""+o.DatasourceUID+"\"."), p)
}

// ruleMap turns a rule into the map the provisioning file holds: its JSON
// form without the group-level fields.
func ruleMap(r alerting.Rule) (map[string]any, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	var m map[string]any
	dec := json.NewDecoder(&b)
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	for _, k := range provisioningOnly {
		delete(m, k)
	}
	return jsonNumbers(m).(map[string]any), nil
}

// ruleKeyOrder is the order of a provisioned rule's keys, as Grafana's
// own exports write them; other keys follow alphabetically.
var ruleKeyOrder = []string{"uid", "title", "condition", "data", "noDataState", "execErrState", "for", "labels", "annotations"}

// orderedNode renders m as a YAML mapping with the keys of order first.
func orderedNode(m map[string]any, order []string) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	rank := map[string]int{}
	for i, k := range order {
		rank[k] = i
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, iok := rank[keys[i]]
		rj, jok := rank[keys[j]]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		var v yaml.Node
		if err := v.Encode(m[k]); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &v)
	}
	return n, nil
}

// jsonNumbers turns json.Number into int64 or float64 so that YAML writes
// plain numbers.
func jsonNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = jsonNumbers(x)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}
