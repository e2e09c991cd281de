package rules

import (
	"regexp"
	"sort"
)

// SidecarMetrics are the metric names the sidecar's /metrics exports (the
// contract of `ozdoctor watch`); the sidecar rules and the dashboard use
// no others.
var SidecarMetrics = []string{
	"ozdoctor_alert_active", "ozdoctor_alert_pending", "ozdoctor_alert_transitions_total",
	"ozdoctor_signals_total", "ozdoctor_records_read_total", "ozdoctor_bytes_read_total",
	"ozdoctor_parse_errors_total", "ozdoctor_state_entries", "ozdoctor_state_evicted_total",
	"ozdoctor_source_lag_seconds", "ozdoctor_merger_queued_signals", "ozdoctor_alertmanager_queue_length",
	"ozdoctor_alertmanager_notifications_total", "ozdoctor_scrape_up", "ozdoctor_scrape_duration_seconds",
	"ozdoctor_scrape_failures_total", "ozdoctor_checkpoint_failures_total", "ozdoctor_checkpoint_last_success_timestamp_seconds",
	"ozdoctor_build_info",
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promFuncCall  = regexp.MustCompile(`^\s*\(`)
	promNumberEnd = regexp.MustCompile(`[0-9.]$`)
	promKeywords  = map[string]bool{
		"and": true, "or": true, "unless": true, "bool": true, "offset": true, "by": true, "without": true,
		"on": true, "ignoring": true, "group_left": true, "group_right": true, "inf": true, "nan": true, "Inf": true, "NaN": true,
	}
)

// MetricNames returns the metric names a PromQL expression selects: its
// identifiers that are not functions, aggregations, keywords, label names
// in groupings or parts of numbers (a lexical reading, enough for the
// expressions ozdoctor writes).
func MetricNames(expr string) []string {
	s := promStrings.ReplaceAllString(expr, `""`)
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRanges.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	seen := map[string]bool{}
	for _, loc := range promIdent.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		if promKeywords[name] || promFuncCall.MatchString(s[loc[1]:]) {
			continue
		}
		if loc[0] > 0 && promNumberEnd.MatchString(s[:loc[0]]) { // 1e3, 5m
			continue
		}
		seen[name] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
