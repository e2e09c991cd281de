// Package sinks writes what an analysis found: the report formats of the
// command line (text, JSON, Markdown, a self-contained HTML timeline). Every
// output implements Sink.
package sinks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/report"
)

// Sink is one output of findings.
type Sink interface {
	Write(r *report.Result) error
}

// New returns the report sink for format ("text", "json", "markdown" or "html").
func New(format string, w io.Writer) (Sink, error) {
	switch format {
	case "text", "":
		return textSink{w}, nil
	case "json":
		return jsonSink{w}, nil
	case "markdown", "md":
		return markdownSink{w}, nil
	case "html":
		return htmlSink{w}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want text, json, markdown or html)", format)
}

type jsonSink struct{ w io.Writer }

// Write emits one JSON document: {"findings": [...], "coverage": {...}}.
func (s jsonSink) Write(r *report.Result) error {
	return writeJSON(s.w, func(j *jsonWriter) { j.report(r, "") })
}

// writeJSON writes the document body writes, indented as json.Encoder with
// SetIndent("", "  ") would, but a finding at a time: a report of thousands
// of findings is never held whole as text.
func writeJSON(w io.Writer, body func(*jsonWriter)) error {
	j := &jsonWriter{w: bufio.NewWriterSize(w, 64<<10)}
	body(j)
	j.str("\n")
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

// jsonWriter writes indented JSON piece by piece; its first error stops it.
type jsonWriter struct {
	w   *bufio.Writer
	enc valueEncoder
	err error
}

func (j *jsonWriter) str(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// write writes b unless an error came first.
func (j *jsonWriter) write(b []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
}

// value writes v indented for a place whose lines start with prefix.
func (j *jsonWriter) value(v any, prefix string) {
	if j.err == nil {
		var b []byte
		if b, j.err = j.enc.encode(v, prefix); j.err == nil {
			j.write(b)
		}
	}
}

// valueEncoder encodes values as jsonWriter writes them.
type valueEncoder struct {
	buf     bytes.Buffer // a value indented
	compact bytes.Buffer // the value as encoded
}

// encode returns v indented for a place whose lines start with prefix,
// good until the next call.
func (e *valueEncoder) encode(v any, prefix string) ([]byte, error) {
	e.compact.Reset()
	enc := json.NewEncoder(&e.compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	compact := e.compact.Bytes()
	e.buf.Reset()
	e.buf.Write(appendIndented(e.buf.AvailableBuffer(), compact[:len(compact)-1], prefix)) // without Encode's newline
	return e.buf.Bytes(), nil
}

// appendIndented appends src, JSON as encoding/json writes it without
// indentation, to dst indented as json.Indent(dst, src, prefix, "  ")
// would, at a fraction of its cost: it has only strings to skip, not a
// grammar to check.
func appendIndented(dst, src []byte, prefix string) []byte {
	depth := 0
	opened := false // after { or [: an indent is due unless it closes at once
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, "  "...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if opened && c != '}' && c != ']' {
			opened = false
			depth++
			newline()
		}
		switch c {
		case '"':
			end := i + 1
			for end < len(src) && src[end] != '"' {
				if src[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end, len(src)-1)
			dst = append(dst, src[i:end+1]...)
			i = end
		case '{', '[':
			opened = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if opened {
				opened = false
			} else {
				depth--
				newline()
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// array writes a slice of n elements (null if it is nil), each by elem at
// the prefix of its lines.
func (j *jsonWriter) array(prefix string, isNil bool, n int, elem func(i int, prefix string)) {
	if isNil {
		j.str("null")
		return
	}
	if n == 0 {
		j.str("[]")
		return
	}
	in := prefix + "  "
	j.str("[\n")
	for i := range n {
		if i > 0 {
			j.str(",\n")
		}
		j.str(in)
		elem(i, in)
	}
	j.str("\n" + prefix + "]")
}

// sequence writes the n values at returns as an array, in order. Workers,
// one per core up to maxEncoders, read them (back from a spill file,
// finalized) and encode them valuesPerRun at a time, a few runs ahead of
// the writing; the first error stops them all.
func sequence[T any](j *jsonWriter, prefix string, n int, at func(i int) (T, error)) {
	if n == 0 {
		j.str("[]")
		return
	}
	type worker struct {
		runs, free chan run // encoded runs; written ones back, to be reused
	}
	runs := (n + valuesPerRun - 1) / valuesPerRun
	indent := prefix + "  "
	workers := make([]worker, min(runtime.GOMAXPROCS(0), maxEncoders, runs))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wk := worker{make(chan run, 2), make(chan run, 1)}
		workers[w] = wk
		wg.Go(func() {
			var enc valueEncoder
			for r := w; r < runs; r += len(workers) { // the runs the writer takes from wk
				var out run
				select {
				case out = <-wk.free:
				default:
				}
				out = encodeRun(out.text[:0], r*valuesPerRun, min(n, (r+1)*valuesPerRun), at, &enc, indent)
				select {
				case wk.runs <- out:
				case <-stop:
					return
				}
				if out.err != nil {
					return
				}
			}
		})
	}
	j.str("[\n")
	for r := 0; r < runs && j.err == nil; r++ {
		wk := workers[r%len(workers)]
		out := <-wk.runs
		j.write(out.text)
		if j.err == nil {
			j.err = out.err
		}
		select {
		case wk.free <- out:
		default: // the worker has one
		}
	}
	j.str("\n" + prefix + "]")
	close(stop)
	wg.Wait()
}

// run is values of a sequence as written, and why they stop short.
type run struct {
	text []byte
	err  error
}

// encodeRun appends to text the values from to end of at, each on a line
// of its own at indent, and stops at the first error.
func encodeRun[T any](text []byte, from, end int, at func(i int) (T, error), enc *valueEncoder, indent string) run {
	for i := from; i < end; i++ {
		if i > 0 {
			text = append(text, ",\n"...)
		}
		text = append(text, indent...)
		v, err := at(i)
		var b []byte
		if err == nil {
			b, err = enc.encode(&v, indent)
		}
		if err != nil {
			return run{text, err}
		}
		text = append(text, b...)
	}
	return run{text, nil}
}

// valuesPerRun is how many values of a sequence a worker encodes before it
// hands them on: handed on one at a time, the values of a report of ten
// thousand files took longer to write on two workers than on one.
// maxEncoders bounds the runs held at once (a few a worker) on a
// machine of many cores.
const (
	valuesPerRun = 16
	maxEncoders  = 4
)

// report writes r as its fields' JSON tags say (TestStreamedJSON holds the
// two together).
func (j *jsonWriter) report(r *report.Result, prefix string) {
	in := prefix + "  "
	j.str("{\n")
	if r.Cluster != "" {
		j.str(in + `"cluster": `)
		j.value(r.Cluster, in)
		j.str(",\n")
	}
	j.str(in + `"findings": `)
	sequence(j, in, r.Findings.Len(), r.Findings.At)
	j.str(",\n" + in + `"coverage": `)
	j.coverage(&r.Coverage, in)
	j.str("\n" + prefix + "}")
}

// coverage writes c with its file list a file at a time: the list of a
// bundle of thousands of files is the bulk of the document. The rest is
// encoded whole with an empty list, and the list written where
// encoding/json puts it: the only line "files": [] at c's first level
// (strings never hold a raw newline).
func (j *jsonWriter) coverage(c *report.Coverage, prefix string) {
	rest := *c
	rest.Files = report.Files{}
	if j.err != nil {
		return
	}
	b, err := j.enc.encode(&rest, prefix)
	if j.err = err; err != nil {
		return
	}
	text := string(b)
	in := prefix + "  "
	before, after, ok := strings.Cut(text, "\n"+in+`"files": []`)
	if !ok {
		j.err = fmt.Errorf("coverage: no file list in %.80q", text)
		return
	}
	j.str(before + "\n" + in + `"files": `)
	sequence(j, in, c.Files.Len(), c.Files.JSONAt)
	j.str(after)
}

// counts returns "1 critical, 2 warning" for findings.
func counts(fs []detectors.Finding) string {
	n := map[detectors.Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	var parts []string
	for _, s := range []detectors.Severity{detectors.Critical, detectors.Warning, detectors.Info} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	return strings.Join(parts, ", ")
}

// sorted reads r's findings whole, most severe first, then by start: the
// text, Markdown and HTML reports are read by people, in that order.
func sorted(r *report.Result) ([]detectors.Finding, error) {
	out := r.Findings.Slice()
	if err := r.Findings.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity != out[j].Severity {
			return out[i].Severity > out[j].Severity
		}
		return out[i].Start.Before(out[j].Start)
	})
	return out, nil
}

func entityLines(e detectors.Entities) []string {
	var out []string
	add := func(name string, items []string) {
		if len(items) > 0 {
			out = append(out, name+": "+strings.Join(items, ", "))
		}
	}
	var dns []string
	for _, d := range e.Datanodes {
		dns = append(dns, detectors.DatanodeName(d))
	}
	var cs []string
	for _, c := range e.Containers {
		cs = append(cs, fmt.Sprintf("#%d", c))
	}
	add("datanodes", dns)
	add("containers", cs)
	add("pipelines", e.Pipelines)
	add("raft groups", e.RaftGroups)
	add("OM nodes", e.OMNodes)
	add("hosts", e.Hosts)
	return out
}

func stateText(f detectors.Finding) string {
	if f.State == detectors.Resolved {
		return "resolved at " + stamp(f.End)
	}
	return "ongoing at the end of the input"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return detectors.Stamp(t.UTC())
}

func factLines(facts map[string]string) []string {
	keys := slices.Sorted(maps.Keys(facts))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + ": " + facts[k]
	}
	return out
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// WriteReports writes one report as New's sink does, or several clusters'
// reports as one output: JSON {"clusters": [report, ...]}, text and Markdown
// one report after the other. An HTML page holds one report.
func WriteReports(format string, w io.Writer, reports []*report.Result) error {
	sink, err := New(format, w)
	if err != nil {
		return err
	}
	switch {
	case len(reports) == 1:
		return sink.Write(reports[0])
	case format == "json":
		return writeJSON(w, func(j *jsonWriter) {
			j.str("{\n  \"clusters\": ")
			j.array("  ", reports == nil, len(reports), func(i int, prefix string) { j.report(reports[i], prefix) })
			j.str("\n}")
		})
	case format == "html":
		return fmt.Errorf("an HTML page holds one report, not %d", len(reports))
	}
	for i, r := range reports {
		if i > 0 {
			if _, err := fmt.Fprint(w, "\n\n"); err != nil {
				return err
			}
		}
		if err := sink.Write(r); err != nil {
			return err
		}
	}
	return nil
}
