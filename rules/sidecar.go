package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
)

const sidecarHeader = `Alerting rules on the metrics of the ozdoctor sidecar (` + "`ozdoctor watch`" + `, its /metrics).
Group ozdoctor-detectors: one rule per detector, firing while the sidecar holds a firing finding
of it (ozdoctor_alert_active > 0). The labels severity and defect come from the finding, so an
escalation from warning to critical is a new alert with severity="critical". The annotations are
the detector's own documentation (detectors/<package>/doc.go); remediation steps are generic,
with <placeholders> where the finding names hosts, containers or nodes (the sidecar's alert in
Alertmanager and its report carry the filled-in steps).
Group ozdoctor-sidecar-health: the sidecar's own health (lagging sources, parse errors,
Alertmanager delivery, /prom scrapes, state evictions).`

// AlertName is the alert name of a detector's sidecar rule:
// scm-pause-stale-nodes → OzdoctorScmPauseStaleNodes.
func AlertName(detector string) string {
	var b strings.Builder
	b.WriteString("Ozdoctor")
	for _, part := range strings.FieldsFunc(detector, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// SidecarGroups returns the rules on the sidecar's metrics: one per
// detector, and the sidecar's health.
func SidecarGroups(regs []detectors.Registration, o Options) ([]Group, error) {
	g := Group{Name: "ozdoctor-detectors"}
	for _, reg := range regs {
		r, err := detectorRule(reg.Doc, o)
		if err != nil {
			return nil, err
		}
		g.Rules = append(g.Rules, r)
	}
	return []Group{g, {Name: "ozdoctor-sidecar-health", Rules: healthRules()}}, nil
}

// sidecar labels of the test series: the sidecar runs next to scm1.
const (
	sidecarInstance = "scm1.example.com:9464"
	sidecarJob      = "ozdoctor"
)

func detectorRule(d detectors.Doc, o Options) (Rule, error) {
	warning, err := GenericRemediation(d, false)
	if err != nil {
		return Rule{}, err
	}
	critical, err := GenericRemediation(d, true)
	if err != nil {
		return Rule{}, err
	}
	remediation := warning
	if critical != warning {
		remediation = `{{ if eq $labels.severity "critical" }}` + critical + `{{ else }}` + warning + `{{ end }}`
	}
	r := Rule{
		Alert:  AlertName(d.Name),
		Expr:   fmt.Sprintf(`ozdoctor_alert_active{detector=%q} > 0`, d.Name),
		Labels: map[string]string{"detector": d.Name},
		Annotations: map[string]string{
			"summary": fmt.Sprintf(`{{ if eq $labels.defect %q }}%s on {{ $labels.instance }}: %s{{ else }}`+
				`{{ $labels.defect }} finding of ozdoctor detector %s on {{ $labels.instance }} (not %s){{ end }}`,
				d.Defect, d.Defect, d.Title, d.Name, d.Defect),
			"description": d.Summary + "\n\nResolves: " + d.Resolves,
			"remediation": remediation,
			"runbook_url": o.RunbookBase + d.DocFile(),
		},
		Panels: []Panel{{Title: d.Defect + " — " + d.Name + ": active findings",
			Expr:   fmt.Sprintf(`sum by (instance, severity) (ozdoctor_alert_active{detector=%q})`, d.Name),
			Legend: "{{instance}} {{severity}}"}},
	}
	series := func(sev, defect string) string {
		return fmt.Sprintf(`ozdoctor_alert_active{defect=%q,detector=%q,instance=%q,job=%q,severity=%q}`,
			defect, d.Name, sidecarInstance, sidecarJob, sev)
	}
	fire := func(sev, defect string) map[string]string {
		return map[string]string{"defect": defect, "detector": d.Name, "instance": sidecarInstance, "job": sidecarJob, "severity": sev}
	}
	r.Tests = []Case{
		{Name: "a warning finding fires with its severity and defect",
			Series: []Series{{series("warning", d.Defect), "0 0 1x10"}}, At: 5 * time.Minute,
			Fire: []map[string]string{fire("warning", d.Defect)}},
		{Name: "an escalation to critical fires as critical; the warning series is back at 0",
			Series: []Series{{series("warning", d.Defect), "1 1 1 0x10"}, {series("critical", d.Defect), "0 0 0 1x10"}},
			At:     5 * time.Minute, Fire: []map[string]string{fire("critical", d.Defect)}},
		{Name: "near miss: the finding resolved (gauge back at 0)",
			Series: []Series{{series("critical", d.Defect), "1 1 1 0x10"}}, At: 5 * time.Minute},
		{Name: "near miss: only pending, nothing active",
			Series: []Series{
				{series("critical", d.Defect), "0x10"},
				{fmt.Sprintf(`ozdoctor_alert_pending{detector=%q,instance=%q,job=%q}`, d.Name, sidecarInstance, sidecarJob), "1x10"},
			}, At: 5 * time.Minute},
		{Name: "near miss: another detector's finding",
			Series: []Series{{fmt.Sprintf(`ozdoctor_alert_active{defect="HDDS-00000",detector="other-detector",instance=%q,job=%q,severity="critical"}`,
				sidecarInstance, sidecarJob), "1x10"}}, At: 5 * time.Minute},
		{Name: "a finding the detector reports outside its defect keeps its own defect label",
			Series: []Series{{series("warning", "unclassified"), "1x10"}}, At: 5 * time.Minute,
			Fire: []map[string]string{fire("warning", "unclassified")}},
	}
	return r, nil
}

const healthInstance = sidecarInstance

func hl(extra ...string) map[string]string {
	m := map[string]string{"instance": healthInstance, "job": sidecarJob}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func hs(metric string, labels map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(labels) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return metric + "{" + strings.Join(parts, ",") + "}"
}

func healthRules() []Rule {
	src := "/var/log/ozone/ozone-hadoop-scm-scm1.log"
	am := "http://alertmanager:9093"
	target := "http://scm1.example.com:9876/prom"
	warn := map[string]string{"severity": "warning", "component": "ozdoctor"}
	return []Rule{
		{
			Alert: "OzdoctorSourceLagging",
			Expr:  `max by (instance, job, source) (ozdoctor_source_lag_seconds) > 300`,
			For:   10 * time.Minute, Labels: warn,
			Annotations: map[string]string{
				"summary":     "ozdoctor on {{ $labels.instance }} lags more than 5 minutes behind {{ $labels.source }}",
				"description": "The sidecar has not caught up with its source for 10 minutes: findings from it arrive late, and the event-time merge may hold the other sources back. Check the sidecar's CPU, the source's write rate and the merger queue (ozdoctor_merger_queued_signals).",
			},
			Panels: []Panel{{Title: "Source lag", Expr: `ozdoctor_source_lag_seconds`, Legend: "{{instance}} {{source}}", Unit: "s"}},
			Tests: []Case{
				{Name: "lag of 10 minutes for 20 minutes", At: 20 * time.Minute,
					Series: []Series{{hs("ozdoctor_source_lag_seconds", hl("source", src)), "600x30"}},
					Fire:   []map[string]string{hl("source", src)}},
				{Name: "near miss: a 3-minute lag spike", At: 20 * time.Minute,
					Series: []Series{{hs("ozdoctor_source_lag_seconds", hl("source", src)), "5x10 600x3 5x10"}}},
				{Name: "near miss: small steady lag", At: 20 * time.Minute,
					Series: []Series{{hs("ozdoctor_source_lag_seconds", hl("source", src)), "30x30"}}},
			},
		},
		{
			Alert: "OzdoctorParseErrorsClimbing",
			Expr: "sum by (instance, job, source) (rate(ozdoctor_parse_errors_total[15m]))\n" +
				"  /\nsum by (instance, job, source) (rate(ozdoctor_records_read_total[15m]))\n  > 0.01",
			For: 15 * time.Minute, Labels: warn,
			Annotations: map[string]string{
				"summary":     "ozdoctor on {{ $labels.instance }} cannot parse more than 1% of {{ $labels.source }}",
				"description": "Over 1% of the records read from the source failed to parse for 15 minutes: its log layout is probably not one ozdoctor knows, and detectors do not see those lines. Run `ozdoctor analyze` on a copy of the file: its coverage table lists the layout detected and the skipped lines.",
			},
			Panels: []Panel{{Title: "Parse errors per record", Legend: "{{instance}} {{source}}", Unit: "percentunit",
				Expr: "sum by (instance, source) (rate(ozdoctor_parse_errors_total[$__rate_interval])) / sum by (instance, source) (rate(ozdoctor_records_read_total[$__rate_interval]))"}},
			Tests: []Case{
				{Name: "5% of the records fail", At: 40 * time.Minute,
					Series: []Series{
						{hs("ozdoctor_records_read_total", hl("source", src)), "0+1000x45"},
						{hs("ozdoctor_parse_errors_total", hl("source", src)), "0+50x45"},
					},
					Fire: []map[string]string{hl("source", src)}},
				{Name: "near miss: 0.2% of the records fail", At: 40 * time.Minute,
					Series: []Series{
						{hs("ozdoctor_records_read_total", hl("source", src)), "0+1000x45"},
						{hs("ozdoctor_parse_errors_total", hl("source", src)), "0+2x45"},
					}},
				{Name: "near miss: an idle source (no records, no errors)", At: 40 * time.Minute,
					Series: []Series{
						{hs("ozdoctor_records_read_total", hl("source", src)), "500x45"},
						{hs("ozdoctor_parse_errors_total", hl("source", src)), "3x45"},
					}},
			},
		},
		{
			Alert: "OzdoctorAlertmanagerQueueGrowing",
			Expr: "min_over_time(ozdoctor_alertmanager_queue_length[10m]) > 0\n" +
				"and\ndelta(ozdoctor_alertmanager_queue_length[10m]) > 0",
			For: 5 * time.Minute, Labels: warn,
			Annotations: map[string]string{
				"summary":     "ozdoctor on {{ $labels.instance }}: the queue to Alertmanager {{ $labels.url }} keeps growing",
				"description": "Alerts wait longer and longer to be sent: Alertmanager is slow or unreachable. When the queue is full the sidecar drops notifications (ozdoctor_alertmanager_notifications_total{result=\"dropped\"}).",
			},
			Panels: []Panel{{Title: "Alertmanager queue", Expr: `ozdoctor_alertmanager_queue_length`, Legend: "{{instance}} {{url}}"}},
			Tests: []Case{
				{Name: "the queue grows by one a minute", At: 25 * time.Minute,
					Series: []Series{{hs("ozdoctor_alertmanager_queue_length", hl("url", am)), "0+1x30"}},
					Fire:   []map[string]string{hl("url", am)}},
				{Name: "near miss: the queue fills and drains", At: 25 * time.Minute,
					Series: []Series{{hs("ozdoctor_alertmanager_queue_length", hl("url", am)), "0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3 0 3"}}},
			},
		},
		{
			Alert: "OzdoctorAlertmanagerNotificationsFailing",
			Expr:  `sum by (instance, job, url) (increase(ozdoctor_alertmanager_notifications_total{result=~"failed|dropped"}[10m])) > 0`,
			For:   10 * time.Minute, Labels: map[string]string{"severity": "critical", "component": "ozdoctor"},
			Annotations: map[string]string{
				"summary":     "ozdoctor on {{ $labels.instance }} fails to deliver alerts to {{ $labels.url }}",
				"description": "Notifications to this Alertmanager have failed or been dropped for 10 minutes: Ozone defects the sidecar finds do not reach anyone. Check the URL, the network path and Alertmanager's own logs.",
			},
			Panels: []Panel{{Title: "Alertmanager notifications", Legend: "{{instance}} {{url}} {{result}}",
				Expr: `sum by (instance, url, result) (rate(ozdoctor_alertmanager_notifications_total[$__rate_interval]))`}},
			Tests: []Case{
				{Name: "failed notifications keep coming", At: 25 * time.Minute,
					Series: []Series{
						{hs("ozdoctor_alertmanager_notifications_total", hl("url", am, "result", "failed")), "0+1x30"},
						{hs("ozdoctor_alertmanager_notifications_total", hl("url", am, "result", "sent")), "0x30"},
					},
					Fire: []map[string]string{hl("url", am)}},
				{Name: "near miss: every notification sent", At: 25 * time.Minute,
					Series: []Series{
						{hs("ozdoctor_alertmanager_notifications_total", hl("url", am, "result", "failed")), "4x30"},
						{hs("ozdoctor_alertmanager_notifications_total", hl("url", am, "result", "sent")), "0+2x30"},
					}},
			},
		},
		{
			Alert: "OzdoctorPromScrapeFailing",
			Expr:  `ozdoctor_scrape_up == 0`,
			For:   5 * time.Minute, Labels: warn,
			Annotations: map[string]string{
				"summary":     "ozdoctor on {{ $labels.instance }} cannot scrape {{ $labels.target }}",
				"description": "The sidecar's scrapes of this Ozone /prom endpoint have failed for 5 minutes: detectors that use its metrics are blind. Check hdds.prometheus.endpoint.enabled, hdds.prometheus.endpoint.token and that the process is running.",
			},
			Panels: []Panel{{Title: "/prom scrapes up", Expr: `ozdoctor_scrape_up`, Legend: "{{instance}} {{target}}"}},
			Tests: []Case{
				{Name: "scrapes fail for 10 minutes", At: 15 * time.Minute,
					Series: []Series{{hs("ozdoctor_scrape_up", hl("target", target)), "1x5 0x15"}},
					Fire:   []map[string]string{{"instance": healthInstance, "job": sidecarJob, "target": target}}},
				{Name: "near miss: one failed scrape", At: 15 * time.Minute,
					Series: []Series{{hs("ozdoctor_scrape_up", hl("target", target)), "1x10 0 1x10"}}},
			},
		},
		{
			Alert: "OzdoctorCheckpointFailing",
			Expr:  `increase(ozdoctor_checkpoint_failures_total[10m]) > 0`,
			For:   5 * time.Minute, Labels: warn,
			Annotations: map[string]string{
				"summary":     "ozdoctor on {{ $labels.instance }} cannot write its checkpoint",
				"description": "The sidecar's state directory cannot be written (read-only, full or gone): it keeps reading and alerting, but a restart would go back to its last checkpoint and read again what came since. Check the state directory's volume (--state-dir).",
			},
			Panels: []Panel{{Title: "Seconds since the last checkpoint", Legend: "{{instance}}",
				Expr: `time() - ozdoctor_checkpoint_last_success_timestamp_seconds`}},
			Tests: []Case{
				{Name: "every checkpoint fails", At: 20 * time.Minute,
					Series: []Series{{hs("ozdoctor_checkpoint_failures_total", hl()), "0+2x25"}},
					Fire:   []map[string]string{{"instance": healthInstance, "job": sidecarJob}}},
				{Name: "near miss: one failure long ago", At: 40 * time.Minute,
					Series: []Series{{hs("ozdoctor_checkpoint_failures_total", hl()), "0x5 1x40"}}},
			},
		},
		{
			Alert: "OzdoctorStateEvictionsClimbing",
			Expr:  `sum by (instance, job, detector, state) (increase(ozdoctor_state_evicted_total[30m])) > 0`,
			For:   15 * time.Minute, Labels: warn,
			Annotations: map[string]string{
				"summary":     "ozdoctor on {{ $labels.instance }}: detector {{ $labels.detector }} evicts {{ $labels.state }} entries",
				"description": "The detector's bounded state is full and it keeps forgetting entities before their horizon: it may miss findings on this cluster. Raise the detector's limit option (`ozdoctor explain {{ $labels.detector }}` lists them) or check why so many entities are open.",
			},
			Panels: []Panel{{Title: "State evictions", Legend: "{{instance}} {{detector}} {{state}}",
				Expr: `sum by (instance, detector, state) (rate(ozdoctor_state_evicted_total[$__rate_interval]))`}},
			Tests: []Case{
				{Name: "evictions every minute", At: 40 * time.Minute,
					Series: []Series{{hs("ozdoctor_state_evicted_total", hl("detector", "empty-quasi-closed-delete", "state", "deletions")), "0+5x45"}},
					Fire:   []map[string]string{hl("detector", "empty-quasi-closed-delete", "state", "deletions")}},
				{Name: "near miss: evictions long ago", At: 80 * time.Minute,
					Series: []Series{{hs("ozdoctor_state_evicted_total", hl("detector", "empty-quasi-closed-delete", "state", "deletions")), "0+5x10 50x80"}}},
			},
		},
	}
}
