package es

import (
	"fmt"
	"time"
	"unicode"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// ContinuationLiterals select, where a shipper stored one document per line,
// the continuation lines that detectors read below a candidate record: the
// causes C1a-c of C1 "Can't close container" (signatures-dn-om.md §A.6,
// catalogue CloseContainerFailed). Folded documents carry them already. The
// standard tokenizer keeps a dotted class name one word, so the whole name
// is asked for.
var ContinuationLiterals = []catalogue.Literal{
	{Text: "org.apache.ratis.protocol.exceptions.ServerNotReadyException"},
	{Text: "org.apache.ratis.protocol.exceptions.GroupMismatchException"},
	{Text: "java.util.concurrent.RejectedExecutionException"},
}

// rangeFilter bounds the event time of the documents searched.
func (c *Config) rangeFilter() map[string]any {
	r := map[string]any{"format": "strict_date_optional_time"}
	if !c.Since.IsZero() {
		r["gte"] = c.Since.UTC().Format(time.RFC3339Nano)
	}
	if !c.Until.IsZero() {
		r["lt"] = c.Until.UTC().Format(time.RFC3339Nano)
	}
	return map[string]any{"range": map[string]any{c.Mapping.Time: r}}
}

// filters are the clauses every search shares: the time range and the cluster.
func (c *Config) filters() []any {
	fs := []any{c.rangeFilter()}
	if c.Cluster != "" && c.Mapping.Cluster != "" {
		fs = append(fs, map[string]any{"term": map[string]any{c.Mapping.Cluster: c.Cluster}})
	}
	return fs
}

// Query is the pushed-down prefilter: documents in range whose message holds
// one of the literals as a phrase. Elasticsearch's phrase match ignores case
// and punctuation, so it returns a superset of what the catalogue's exact
// prefilter accepts; the catalogue decides on what comes back.
func (c *Config) Query(literals []catalogue.Literal) map[string]any {
	should := make([]any, 0, len(literals)+len(ContinuationLiterals))
	seen := map[string]bool{}
	for _, l := range append(append([]catalogue.Literal(nil), literals...), ContinuationLiterals...) {
		if ph := Phrase(l); !seen[ph] {
			seen[ph] = true
			should = append(should, map[string]any{"match_phrase": map[string]any{c.Mapping.Message: ph}})
		}
	}
	return map[string]any{"bool": map[string]any{"filter": c.filters(), "should": should, "minimum_should_match": 1}}
}

// sort orders documents by event time, then file offset, then index order
// (the point in time's tiebreaker).
func (c *Config) sort() []any {
	s := []any{map[string]any{c.Mapping.Time: "asc"}}
	if c.Mapping.Offset != "" {
		s = append(s, map[string]any{c.Mapping.Offset: map[string]any{"order": "asc", "unmapped_type": "long"}})
	}
	return append(s, map[string]any{"_shard_doc": "asc"})
}

// filesBody lists the files per host with the time of their first and last
// document.
func (c *Config) filesBody() map[string]any {
	return map[string]any{
		"size":  0,
		"query": map[string]any{"bool": map[string]any{"filter": c.filters()}},
		"aggs": map[string]any{"hosts": map[string]any{
			"terms": map[string]any{"field": c.Mapping.Host, "size": c.MaxHosts},
			"aggs": map[string]any{"files": map[string]any{
				"terms": map[string]any{"field": c.Mapping.Path, "size": c.MaxFilesPerHost},
				"aggs": map[string]any{
					"first": map[string]any{"min": map[string]any{"field": c.Mapping.Time}},
					"last":  map[string]any{"max": map[string]any{"field": c.Mapping.Time}},
				},
			}},
		}},
	}
}

// histogramBody counts one file's documents per interval in [from, to).
func (c *Config) histogramBody(host, path string, from, to time.Time, interval time.Duration) map[string]any {
	return map[string]any{
		"size": 0,
		"query": map[string]any{"bool": map[string]any{"filter": append(c.filters(),
			map[string]any{"term": map[string]any{c.Mapping.Host: host}},
			map[string]any{"term": map[string]any{c.Mapping.Path: path}},
			map[string]any{"range": map[string]any{c.Mapping.Time: map[string]any{
				"gte": from.UTC().Format(time.RFC3339Nano), "lt": to.UTC().Format(time.RFC3339Nano)}}},
		)}},
		"aggs": map[string]any{"counts": map[string]any{
			"date_histogram": map[string]any{"field": c.Mapping.Time, "fixed_interval": durationString(interval), "min_doc_count": 1},
		}},
	}
}

func durationString(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}

// Phrase returns what a phrase query looks for so as to find every message
// that contains the literal: its whole words. Elasticsearch's standard
// tokenizer keeps "forceDeleteContainerCommand" one word, so the literal
// "DeleteContainerCommand due to ", whose template glues "force" before it,
// must not ask for the word "deletecontainercommand": a first or last word
// that a message may extend (glued, or cut by the literal itself) is
// dropped. With no whole word left the literal is searched as it is.
func Phrase(l catalogue.Literal) string {
	lit := l.Text
	spans := wordSpans(lit)
	// A word at an edge is extended by what a message glues on, directly
	// or through a trailing joiner ("datanode:" + "x" is one word).
	openStart := func(start int) bool { return start == 0 || start == 1 && isJoiner(rune(lit[0])) }
	openEnd := func(end int) bool { return end == len(lit) || end == len(lit)-1 && isJoiner(rune(lit[end])) }
	if len(spans) > 0 && l.GluedBefore && openStart(spans[0][0]) {
		spans = spans[1:]
	}
	if n := len(spans); n > 0 && l.GluedAfter && openEnd(spans[n-1][1]) {
		spans = spans[:n-1]
	}
	if len(spans) == 0 {
		return lit
	}
	return lit[spans[0][0]:spans[len(spans)-1][1]]
}

// wordSpans returns the [start, end) byte spans of the words the standard
// tokenizer finds in ASCII text: runs of letters, digits and "_", joined
// across ".", ":" or "'" between letters and "." or "," between digits.
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		if isWord(c) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i+1 < len(s) && joins(rune(s[i-1]), c, rune(s[i+1])) {
			continue
		}
		if start >= 0 {
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

func isWord(r rune) bool   { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
func isJoiner(r rune) bool { return r == '.' || r == ':' || r == '\'' || r == ',' }

func joins(prev, mid, next rune) bool {
	switch {
	case unicode.IsLetter(prev) && unicode.IsLetter(next):
		return mid == '.' || mid == ':' || mid == '\''
	case unicode.IsDigit(prev) && unicode.IsDigit(next):
		return mid == '.' || mid == ','
	}
	return false
}
