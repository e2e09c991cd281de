package alertmanager

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// MaxLabelLen bounds an entity label's value (and the incident label): a
// finding about many containers lists the first ones and counts the rest.
const MaxLabelLen = 200

// acronyms are detector-name words written in capitals in an alertname.
var acronyms = map[string]string{"scm": "SCM", "om": "OM", "dn": "DN", "ec": "EC", "hdds": "HDDS", "jvm": "JVM"}

// AlertName returns the alertname of a detector's alerts: "Ozone" followed
// by the detector's name in CamelCase, with Ozone's acronyms in capitals
// ("scm-pause-stale-nodes" gives "OzoneSCMPauseStaleNodes"). Every character
// that is not a letter or a digit separates words, so the result is a valid
// Prometheus metric-style name, as alerting rules name their alerts.
func AlertName(detector string) string {
	var b strings.Builder
	b.WriteString("Ozone")
	words := strings.FieldsFunc(strings.ToLower(detector), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for _, w := range words {
		if a, ok := acronyms[w]; ok {
			b.WriteString(a)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// labelsOf returns the identifying labels of a finalized finding.
func (s *Sink) labelsOf(f detectors.Finding) map[string]string {
	l := map[string]string{
		"alertname": AlertName(f.Detector),
		"detector":  f.Detector,
		"defect":    f.Defect,
		"severity":  f.Severity.String(),
		"cluster":   s.cfg.Cluster,
		"incident":  bound([]string{f.Key}),
	}
	e := f.Entities
	l["host"] = bound(e.Hosts)
	dns := make([]string, 0, len(e.Datanodes))
	for _, d := range e.Datanodes {
		switch {
		case d.UUID != "":
			dns = append(dns, d.UUID)
		case d.Host != "":
			dns = append(dns, d.Host)
		case d.IP != "":
			dns = append(dns, d.IP)
		}
	}
	l["datanode"] = bound(dns)
	cs := make([]string, len(e.Containers))
	for i, c := range e.Containers {
		cs[i] = strconv.FormatUint(c, 10)
	}
	l["container"] = bound(cs)
	l["pipeline"] = bound(e.Pipelines)
	l["raft_group"] = bound(e.RaftGroups)
	l["om_node"] = bound(e.OMNodes)
	for k, v := range l {
		if v == "" {
			delete(l, k) // an empty label is an absent one
		}
	}
	return l
}

// bound returns the distinct values sorted and comma-joined, cut at a comma
// to stay within MaxLabelLen with a count of the values left out.
func bound(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	vs = slices.Clone(vs)
	if len(vs) > 1 {
		// Containers sort as numbers, the rest as text.
		slices.SortFunc(vs, func(a, b string) int {
			if len(a) != len(b) && isDigits(a) && isDigits(b) {
				return len(a) - len(b)
			}
			return strings.Compare(a, b)
		})
		vs = slices.Compact(vs)
	}
	out := ""
	for i, v := range vs {
		next := v
		if i > 0 {
			next = out + "," + v
		}
		rest := len(vs) - i - 1
		suffix := ""
		if rest > 0 {
			suffix = fmt.Sprintf(",+%d more", rest)
		}
		if len(next)+len(suffix) > MaxLabelLen {
			if i == 0 {
				return cut(v, MaxLabelLen-len(suffix)) + suffix
			}
			return out + fmt.Sprintf(",+%d more", len(vs)-i)
		}
		out = next
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// cut shortens s to at most n bytes without splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	if n < 0 {
		return ""
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n-- // not inside a UTF-8 sequence
	}
	return s[:n] + "…"
}

// annotationsOf returns the annotations of a finalized finding.
func (s *Sink) annotationsOf(f detectors.Finding) map[string]string {
	a := map[string]string{}
	if f.Title != "" {
		a["title"] = f.Title
	}
	a["summary"] = f.Summary
	if a["summary"] == "" {
		a["summary"] = f.Title
	}
	desc := f.Summary
	if doc, ok := s.docs[f.Detector]; ok {
		if p := firstParagraph(doc.Explanation); p != "" {
			if desc != "" {
				desc += "\n\n"
			}
			desc += p
		}
	}
	if desc != "" {
		a["description"] = desc
	}
	if len(f.Remediation) > 0 {
		steps := make([]string, len(f.Remediation))
		for i, r := range f.Remediation {
			steps[i] = fmt.Sprintf("%d. %s", i+1, r)
		}
		a["remediation"] = strings.Join(steps, "\n")
	}
	if s.cfg.RunbookBase != "" {
		a["runbook_url"] = s.cfg.RunbookBase + f.Detector
	}
	for k, v := range a {
		if v == "" {
			delete(a, k)
		}
	}
	return a
}

func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
