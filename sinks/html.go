package sinks

import (
	"bufio"
	"embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/report"
)

// The page, its style and its script are embedded and inlined into every
// report: a report opens offline and loads nothing.
//
//go:embed html/report.tmpl html/report.css html/report.js
var htmlAssets embed.FS

var htmlTemplate = template.Must(parseHTMLTemplate())

func parseHTMLTemplate() (*template.Template, error) {
	t := template.New("ozdoctor").Funcs(template.FuncMap{"stamp": stamp, "inc": func(i int) int { return i + 1 }})
	for _, a := range []struct{ name, file string }{{"report", "html/report.tmpl"}, {"css", "html/report.css"}, {"js", "html/report.js"}} {
		b, err := htmlAssets.ReadFile(a.file)
		if err != nil {
			return nil, err
		}
		if _, err := t.New(a.name).Parse(string(b)); err != nil {
			return nil, fmt.Errorf("%s: %w", a.file, err)
		}
	}
	return t.Lookup("report"), nil
}

type htmlSink struct{ w io.Writer }

// Write renders the report as one self-contained HTML page: summary, one
// section per finding with its incident timeline, an overview timeline of the
// whole input, and the coverage tables. The same report gives the same bytes.
func (s htmlSink) Write(r *report.Result) error {
	w := bufio.NewWriter(s.w)
	fs, err := sorted(r)
	if err != nil {
		return err
	}
	page := newHTMLPage(r, fs)
	if err := r.Coverage.Files.Err(); err != nil {
		return err
	}
	if err := htmlTemplate.Execute(w, page); err != nil {
		return err
	}
	return w.Flush()
}

// Timeline geometry, in SVG user units. Positions along the time axis are
// kept in plot units (0..plotUnits) in data- attributes so that the script
// can zoom without knowing about time.
const (
	tlLabelW  = 230.0 // lane labels
	tlPlotW   = 1000.0
	tlRightW  = 20.0
	plotUnits = 1000.0
	laneH     = 30.0
	spanRowH  = 18.0
	groupH    = 20.0
	axisH     = 26.0
	bandRowH  = 18.0
	// maxLaneMarks caps the marks drawn in one lane; denser lanes are merged
	// into clusters that say how many lines they stand for.
	maxLaneMarks = 500
)

type htmlPage struct {
	Cluster     string
	Findings    []htmlFinding
	Counts      []sevCount
	Total       int
	Cov         report.Coverage
	Files       []report.FileCoverage // Cov's, read back
	HostZones   [][2]string
	Bytes       string
	Partly      []partlyRead
	NotRun      []report.DetectorCoverage
	Offsets     []offsetText
	Overview    *timeline
	SinceUntil  string
	HasUnparsed bool
}

type sevCount struct {
	Name, Icon string
	N          int
}

type partlyRead struct{ Path, What string }

type offsetText struct {
	Host, Reference, Offset string
	Pairs                   int
	Applied                 bool
}

type htmlFinding struct {
	N                  int
	ID                 string
	F                  detectors.Finding
	Sev, Icon          string
	State              string
	Entities           []string
	Facts              [][2]string
	Evidence           []htmlEvidence
	Steps              []htmlStep
	Timeline           *timeline
	Summary            []stepPart
	StartText, EndText string
}

type htmlEvidence struct {
	N                        int
	Time, Host, Comp, Origin string
	Text                     string
}

type htmlStep struct {
	Parts    []stepPart // prose with `code` spans
	Commands []string   // the commands among the code spans, to copy
}

type stepPart struct {
	Text string
	Code bool
}

var severityIcons = map[detectors.Severity]string{detectors.Critical: "✖", detectors.Warning: "⚠", detectors.Info: "ℹ"}

// newHTMLPage lays out r, whose findings are fs in the order shown.
func newHTMLPage(r *report.Result, fs []detectors.Finding) htmlPage {
	c := r.Coverage
	p := htmlPage{Cluster: r.Cluster, Cov: c, Total: len(fs), Bytes: humanBytes(c.Totals.Bytes)}
	n := map[detectors.Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	for _, s := range []detectors.Severity{detectors.Critical, detectors.Warning, detectors.Info} {
		p.Counts = append(p.Counts, sevCount{s.String(), severityIcons[s], n[s]})
	}
	for _, h := range slices.Sorted(maps.Keys(c.HostZones)) {
		p.HostZones = append(p.HostZones, [2]string{h, c.HostZones[h]})
	}
	if c.Since != nil || c.Until != nil {
		var since, until string
		if c.Since != nil {
			since = stamp(*c.Since)
		}
		if c.Until != nil {
			until = stamp(*c.Until)
		}
		p.SinceUntil = fmt.Sprintf("records restricted to %s … %s", orDash(since), orDash(until))
	}
	p.Files = slices.Collect(c.Files.All())
	for _, f := range p.Files {
		if problems := readProblems(f); problems != "" {
			p.Partly = append(p.Partly, partlyRead{f.Path, problems})
		}
	}
	for _, d := range c.Detectors {
		if !d.Ran {
			p.NotRun = append(p.NotRun, d)
		}
	}
	for _, o := range c.Offsets {
		p.Offsets = append(p.Offsets, offsetText{o.Host, o.Reference, signedDuration(o.Offset), o.Pairs, o.Applied})
	}
	for i, f := range fs {
		p.Findings = append(p.Findings, newHTMLFinding(i+1, f, c))
	}
	p.Overview = overviewTimeline(fs, c, p.Files)
	return p
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newHTMLFinding(n int, f detectors.Finding, c report.Coverage) htmlFinding {
	h := htmlFinding{N: n, ID: fmt.Sprintf("finding-%d", n), F: f, Sev: f.Severity.String(), Icon: severityIcons[f.Severity],
		State: string(f.State) + ": " + stateText(f), Entities: entityLines(f.Entities), StartText: stamp(f.Start), EndText: stamp(f.End)}
	switch f.State {
	case detectors.Resolved:
		h.State = stateText(f)
	case detectors.Pending:
		h.State = "pending: part of the signature seen, its confirmation not yet due"
	}
	for _, k := range slices.Sorted(maps.Keys(f.Facts)) {
		h.Facts = append(h.Facts, [2]string{k, f.Facts[k]})
	}
	for i, e := range f.Evidence {
		h.Evidence = append(h.Evidence, htmlEvidence{N: i + 1, Time: evidenceStamp(e.Time), Host: e.Host, Comp: e.Component,
			Origin: fmt.Sprintf("%s:%d", e.File, e.Line), Text: e.Text})
	}
	for _, s := range f.Remediation {
		h.Steps = append(h.Steps, newHTMLStep(s))
	}
	h.Summary = newHTMLStep(f.Summary).Parts
	h.Timeline = findingTimeline(h.ID, f, c)
	return h
}

func evidenceStamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000Z")
}

// commandWords start the code spans of a remediation step that are commands
// to run rather than log wordings or metric names.
var commandWords = []string{"ozone ", "jstack ", "jcmd ", "kubectl ", "systemctl ", "find ", "hdfs ", "curl ", "ls ", "grep "}

// negations mark a sentence that names a command in order to warn against
// it; such a command gets no copy button.
var negations = []string{"do not ", "don't ", "never "}

// newHTMLStep splits a remediation step into prose and `code` spans and
// picks out the commands to offer for copying.
func newHTMLStep(s string) htmlStep {
	var st htmlStep
	for i, part := range strings.Split(s, "`") {
		if part != "" {
			st.Parts = append(st.Parts, stepPart{part, i%2 == 1})
		}
	}
	for i, p := range st.Parts {
		if !p.Code || !isCommand(p.Text) || slices.Contains(st.Commands, p.Text) {
			continue
		}
		sentence := strings.ToLower(sentenceAround(st.Parts, i))
		if slices.ContainsFunc(negations, func(n string) bool { return strings.Contains(sentence, n) }) {
			continue
		}
		if aside, ok := openParenthesis(st.Parts, i); ok && aside != "" && !slices.ContainsFunc(asides, func(a string) bool { return strings.HasPrefix(aside, a) }) {
			continue // named in passing: "(SIGSTOP, a debugger, `jstack -F`)"
		}
		st.Commands = append(st.Commands, p.Text)
	}
	return st
}

// asides open the parentheses whose commands are alternatives to run; a
// parenthesis that opens with the command itself counts too.
var asides = []string{"or ", "check with ", "for example ", "e.g. "}

// openParenthesis returns the prose that follows an unclosed "(" before
// parts[i], if there is one.
func openParenthesis(parts []stepPart, i int) (string, bool) {
	for j := i - 1; j >= 0; j-- {
		if parts[j].Code {
			continue
		}
		p := parts[j].Text
		o, c := strings.LastIndexByte(p, '('), strings.LastIndexByte(p, ')')
		if c > o {
			return "", false
		}
		if o >= 0 {
			return strings.TrimLeft(p[o+1:], " "), true
		}
	}
	return "", false
}

func isCommand(code string) bool {
	return slices.ContainsFunc(commandWords, func(w string) bool { return strings.HasPrefix(code, w) })
}

// sentenceAround returns the prose of the sentence that holds parts[i]: back
// to the previous ". " and on to the next one, outside code spans.
func sentenceAround(parts []stepPart, i int) string {
	var b strings.Builder
	for j := i - 1; j >= 0; j-- {
		if parts[j].Code {
			continue
		}
		if k := strings.LastIndex(parts[j].Text, ". "); k >= 0 {
			b.WriteString(parts[j].Text[k+2:] + " ")
			break
		}
		b.WriteString(parts[j].Text + " ")
	}
	for j := i + 1; j < len(parts); j++ {
		if parts[j].Code {
			continue
		}
		if k := strings.Index(parts[j].Text, ". "); k >= 0 {
			b.WriteString(" " + parts[j].Text[:k])
			break
		}
		b.WriteString(" " + parts[j].Text)
	}
	return b.String()
}

func signedDuration(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return "−" + (-d).String()
}

// timeline is one SVG picture: lanes of hosts grouped by component, a time
// axis, shaded spans and marks.
type timeline struct {
	ID, Title  string
	W, H       string
	T0, T1     int64 // the plotted range, Unix milliseconds
	Left, Plot string
	Lanes      []lane
	Ticks      []tick
	Rows       []bandRow // finding labels above the lanes (overview)
	Bands      []span    // shaded across all lanes
	Spans      []span    // shaded in one lane
	Marks      []mark
	Notes      []string
	Numbered   bool // marks are numbered as in the evidence table
	AxisY      string
	LanesTop   string
	LanesBot   string
}

type lane struct {
	Y, H, TextY string
	Label, Sub  string
	Group       bool // a component heading
	Odd         bool
}

type tick struct{ X, U, Label string }

type span struct {
	A, B       string // plot units
	X, W, Y, H string
	Class      string
	Label      string
	Title      string
	Href       string
}

type bandRow struct {
	Y, TextY string
	Bar      span
	Label    string
	Href     string
	Icon     string
}

type mark struct {
	U, X, Y string
	Shape   string
	Class   string
	Label   string
	Title   string
	LabelX  string
	Hidden  bool
}

// scale maps times onto plot units.
type scale struct{ t0, t1 time.Time }

func (s scale) u(t time.Time) float64 {
	d := s.t1.Sub(s.t0)
	if d <= 0 {
		return 0
	}
	return float64(t.Sub(s.t0)) / float64(d) * plotUnits
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func xOf(u float64) float64 { return tlLabelW + u*tlPlotW/plotUnits }

// padRange widens [lo, hi] a little so that marks at the edges stay visible.
func padRange(lo, hi time.Time) (time.Time, time.Time) {
	d := hi.Sub(lo)
	pad := d / 25
	if pad < time.Second {
		pad = time.Second
	}
	if d == 0 {
		pad = 30 * time.Second
	}
	return lo.Add(-pad), hi.Add(pad)
}

var tickSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour}

// ticks places about eight labelled ticks in UTC (the script does the same
// when zoomed).
func ticks(s scale) []tick {
	d := s.t1.Sub(s.t0)
	step := tickSteps[len(tickSteps)-1]
	for _, st := range tickSteps {
		if d/st <= 8 {
			step = st
			break
		}
	}
	layout := "15:04"
	if step < time.Minute {
		layout = "15:04:05"
	}
	var out []tick
	for t := s.t0.UTC().Truncate(step); !t.After(s.t1); t = t.Add(step) {
		if t.Before(s.t0) {
			continue
		}
		u := s.u(t)
		label := t.UTC().Format(layout)
		if t.UTC().Hour() == 0 && t.UTC().Minute() == 0 && t.UTC().Second() == 0 {
			label = t.UTC().Format("Jan 2") // a new day
		}
		out = append(out, tick{X: num(xOf(u)), U: num(u), Label: label})
	}
	return out
}

// componentOrder puts the control plane first.
func componentRank(c string) int {
	switch c {
	case "scm":
		return 0
	case "om":
		return 1
	case "datanode":
		return 2
	case "recon":
		return 3
	case "s3g":
		return 4
	}
	return 5
}

type laneKey struct{ comp, host string }

// layoutLanes orders lanes by component then host and places them below
// top, with a heading row per component. A lane is one row of marks plus
// extra[k] rows of spans. It returns the lanes, the y of each lane's row of
// marks, and the bottom.
func layoutLanes(keys []laneKey, top float64, offsets map[string]report.ClockOffset, extra map[laneKey]int) ([]lane, map[laneKey]float64, float64) {
	slices.SortFunc(keys, func(a, b laneKey) int {
		if ra, rb := componentRank(a.comp), componentRank(b.comp); ra != rb {
			return ra - rb
		}
		if a.comp != b.comp {
			return strings.Compare(a.comp, b.comp)
		}
		return strings.Compare(a.host, b.host)
	})
	var out []lane
	mid := map[laneKey]float64{}
	y := top
	prev := "\x00"
	for i, k := range keys {
		if k.comp != prev {
			name := k.comp
			if name == "" {
				name = "other"
			}
			out = append(out, lane{Y: num(y), TextY: num(y + groupH - 6), Label: name, Group: true})
			y += groupH
			prev = k.comp
		}
		h := laneH + spanRowH*float64(extra[k])
		l := lane{Y: num(y), H: num(h), TextY: num(y + laneH/2 + 4), Label: k.host, Odd: i%2 == 1}
		if k.host == "" {
			l.Label = "(host unknown)"
		}
		if o, ok := offsets[k.host]; ok && o.Applied {
			l.Sub = "clock " + signedDuration(o.Offset)
		}
		out = append(out, l)
		mid[k] = y + laneH/2
		y += h
	}
	return out, mid, y
}

// spanRows packs a lane's spans into rows so that none overlaps another,
// returning each span's row.
func spanRows(ss []rawSpan) ([]int, int) {
	slices.SortStableFunc(ss, func(a, b rawSpan) int { return a.from.Compare(b.from) })
	var ends []time.Time
	rows := make([]int, len(ss))
	for i, sp := range ss {
		r := slices.IndexFunc(ends, func(e time.Time) bool { return e.Before(sp.from) })
		if r < 0 {
			r = len(ends)
			ends = append(ends, time.Time{})
		}
		ends[r] = sp.to
		rows[i] = r
	}
	return rows, len(ends)
}

// Mark shapes, centred on (0,0). Each kind has its own shape and a word in
// its label and tooltip, so that nothing depends on colour.
const (
	shapeEvent   = "M-4.5,0a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0Z"
	shapeStart   = "M0,-7L6.5,5L-6.5,5Z"
	shapeStop    = "M-5,-5h10v10h-10Z"
	shapePause   = "M0,-7L7,0L0,7L-7,0Z"
	shapeSilence = "M-6,-5h4v10h-4ZM2,-5h4v10h-4Z"
	shapeCluster = "M-7,0a7,7 0 1,0 14,0a7,7 0 1,0 -14,0Z"
	shapeLeader  = "M-4,7V-7H6L3,-3.5L6,0H-2V7Z"
)

type markKind int

const (
	kindEvent markKind = iota
	kindStart
	kindStop
	kindPause
	kindSilence
	kindLeader
)

var kindShape = map[markKind]string{kindEvent: shapeEvent, kindStart: shapeStart, kindStop: shapeStop, kindPause: shapePause, kindSilence: shapeSilence, kindLeader: shapeLeader}
var kindClass = map[markKind]string{kindEvent: "m-event", kindStart: "m-start", kindStop: "m-stop", kindPause: "m-pause", kindSilence: "m-silence", kindLeader: "m-leader"}
var kindWord = map[markKind]string{kindEvent: "", kindStart: "start", kindStop: "stop", kindPause: "pause", kindSilence: "silence", kindLeader: "role"}

var (
	silenceRE = regexp.MustCompile(`no record for [^(]*\((\S+) to (\S+)\)`)
	pauseRE   = regexp.MustCompile(`(?i)\bpause\D{0,60}?(\d+(?:\.\d+)?)\s*(ms|s)\b`)
	// Ratis logs every leader change as a role change of the peers.
	roleRE = regexp.MustCompile(`changes role from\s+\w+\s+to\s+(\w+)`)
)

func evidenceKind(text string) markKind {
	switch {
	case strings.Contains(text, "STARTUP_MSG"):
		return kindStart
	case strings.Contains(text, "SHUTDOWN_MSG"):
		return kindStop
	case silenceRE.MatchString(text):
		return kindSilence
	case pauseRE.MatchString(text):
		return kindPause
	case roleRE.MatchString(text):
		return kindLeader
	}
	return kindEvent
}

// markWord is the word a mark's label starts with: its kind, or for a role
// change the role taken.
func markWord(kind markKind, text string) string {
	if kind == kindLeader {
		if m := roleRE.FindStringSubmatch(text); m != nil {
			return "→" + m[1]
		}
	}
	return kindWord[kind]
}

// clipRunes shortens s to at most n runes for a tooltip.
func clipRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + " …"
		}
		i++
	}
	return s
}

// spanOf reads a JVM pause or a log silence out of an evidence line: the
// pause monitor states its length and logs when the pause ends, the silence
// line states its interval.
func spanOf(e detectors.Evidence) (kind markKind, from, to time.Time, ok bool) {
	if m := silenceRE.FindStringSubmatch(e.Text); m != nil {
		a, err1 := time.Parse(time.RFC3339Nano, m[1])
		b, err2 := time.Parse(time.RFC3339Nano, m[2])
		if err1 == nil && err2 == nil && b.After(a) {
			return kindSilence, a, b, true
		}
	}
	if m := pauseRE.FindStringSubmatch(e.Text); m != nil && !e.Time.IsZero() {
		v, err := strconv.ParseFloat(m[1], 64)
		if err == nil && v > 0 {
			unit := time.Second
			if m[2] == "ms" {
				unit = time.Millisecond
			}
			d := time.Duration(v * float64(unit))
			return kindPause, e.Time.Add(-d), e.Time, true
		}
	}
	return 0, time.Time{}, time.Time{}, false
}

type rawMark struct {
	t     time.Time
	kind  markKind
	label string
	title string
}

type rawSpan struct {
	from, to time.Time
	kind     markKind
}

func offsetMap(c report.Coverage) map[string]report.ClockOffset {
	m := map[string]report.ClockOffset{}
	for _, o := range c.Offsets {
		m[o.Host] = o
	}
	return m
}

func offsetNotes(hosts map[string]bool, c report.Coverage) []string {
	var notes []string
	for _, o := range c.Offsets {
		if hosts != nil && !hosts[o.Host] {
			continue
		}
		if o.Applied {
			notes = append(notes, fmt.Sprintf("Clock offset applied: %s's times shifted by %s to match %s (estimated from %d paired events).",
				o.Host, signedDuration(-o.Offset), o.Reference, o.Pairs))
		} else {
			notes = append(notes, fmt.Sprintf("Clock offset estimated but not applied (under a second): %s is %s against %s (%d paired events).",
				o.Host, signedDuration(o.Offset), o.Reference, o.Pairs))
		}
	}
	return notes
}

func findingTimeline(id string, f detectors.Finding, c report.Coverage) *timeline {
	var lo, hi time.Time
	widen := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	lanesOf := map[laneKey]bool{}
	marks := map[laneKey][]rawMark{}
	spans := map[laneKey][]rawSpan{}
	undated := 0
	for i, e := range f.Evidence {
		k := laneKey{e.Component, e.Host}
		if e.Time.IsZero() {
			undated++
			continue
		}
		lanesOf[k] = true
		kind := evidenceKind(e.Text)
		title := fmt.Sprintf("#%d %s %s %s:%d\n%s", i+1, evidenceStamp(e.Time), e.Host, e.File, e.Line, clipRunes(e.Text, 160))
		label := strconv.Itoa(i + 1)
		if w := markWord(kind, e.Text); w != "" {
			label = w + " #" + label
		}
		marks[k] = append(marks[k], rawMark{t: e.Time, kind: kind, label: label, title: title})
		widen(e.Time)
		if sk, a, b, ok := spanOf(e); ok {
			// The same pause or silence told by two lines (the pause
			// monitor and Ratis; the log and the audit log) is drawn once.
			dup := slices.ContainsFunc(spans[k], func(o rawSpan) bool {
				return o.kind == sk && absDur(o.from.Sub(a)) <= 5*time.Second && absDur(o.to.Sub(b)) <= 5*time.Second
			})
			if !dup {
				spans[k] = append(spans[k], rawSpan{a, b, sk})
				widen(a)
				widen(b)
			}
		}
	}
	// A pause the detector measured (facts "pause" and "pause_end") and no
	// evidence line drew: shade it across the whole picture.
	var factPause *rawSpan
	if d, err := time.ParseDuration(f.Facts["pause"]); err == nil && d > 0 {
		if end, err := time.Parse(time.RFC3339Nano, f.Facts["pause_end"]); err == nil {
			covered := false
			for _, ss := range spans {
				for _, s := range ss {
					if s.kind == kindPause && absDur(s.to.Sub(end)) < 2*time.Second {
						covered = true
					}
				}
			}
			if !covered {
				factPause = &rawSpan{end.Add(-d), end, kindPause}
				widen(factPause.from)
				widen(end)
			}
		}
	}
	// The picture spans the evidence, and the finding's window unless the
	// window would squeeze the evidence into a corner (an incident seen in
	// seconds that stays firing for hours): then the window runs off the
	// edge and the caption says where it ends.
	var windowNotes []string
	if lo.IsZero() {
		lo, hi = f.Start, f.End
	} else {
		reach := max(2*hi.Sub(lo), 5*time.Minute)
		if !f.Start.IsZero() && f.Start.Before(lo) {
			if lo.Sub(f.Start) <= reach {
				lo = f.Start
			} else {
				windowNotes = append(windowNotes, fmt.Sprintf("The finding's window starts at %s, before the part drawn.", stamp(f.Start)))
			}
		}
		if f.End.After(hi) {
			if f.End.Sub(hi) <= reach {
				hi = f.End
			} else {
				windowNotes = append(windowNotes, fmt.Sprintf("The finding's window goes on to %s, after the part drawn (%s).", stamp(f.End), strings.ToLower(stateText(f)[:1])+stateText(f)[1:]))
			}
		}
	}
	if lo.IsZero() {
		return nil
	}
	if hi.Before(lo) {
		hi = lo
	}
	t0, t1 := padRange(lo, hi)
	s := scale{t0, t1}
	tl := &timeline{ID: "tl-" + id, Numbered: true, Title: fmt.Sprintf("Timeline of finding %s: %s", strings.TrimPrefix(id, "finding-"), f.Title)}
	hosts := map[string]bool{}
	for k := range lanesOf {
		hosts[k.host] = true
	}
	keys := slices.Collect(maps.Keys(lanesOf))
	rows, extra := map[laneKey][]int{}, map[laneKey]int{}
	for k, ss := range spans {
		rows[k], extra[k] = spanRows(ss)
	}
	top := axisH + 18
	lanes, mid, bottom := layoutLanes(keys, top, offsetMap(c), extra)
	tl.finish(s, lanes, top, bottom)
	// the finding's window
	endLabel := "resolved"
	switch f.State {
	case detectors.Firing:
		endLabel = "ongoing at the end of the input"
	case detectors.Pending:
		endLabel = "pending"
	}
	windowLabel := "finding window"
	if f.End.After(t1) {
		windowLabel = "finding window →"
	}
	tl.Bands = append(tl.Bands, tl.bandSpan(s, f.Start, f.End, top-16, bottom-(top-16), "band-window",
		windowLabel, fmt.Sprintf("finding window %s to %s (%s)", stamp(f.Start), stamp(f.End), endLabel), ""))
	if factPause != nil {
		tl.Bands = append(tl.Bands, tl.bandSpan(s, factPause.from, factPause.to, top, bottom-top, "band-pause",
			"pause "+shortDur(factPause.to.Sub(factPause.from)), fmt.Sprintf("JVM pause of %s measured by the detector, ended %s", f.Facts["pause"], stamp(factPause.to)), ""))
	}
	for _, k := range sortedKeys(spans) {
		for i, sp := range spans[k] {
			word := "pause"
			if sp.kind == kindSilence {
				word = "silence"
			}
			tl.Spans = append(tl.Spans, tl.laneSpan(s, sp, mid[k]+laneH/2+spanRowH*float64(rows[k][i]), k.host, word))
		}
	}
	for _, k := range sortedKeys(marks) {
		ms, merged := downsample(s, marks[k], mid[k])
		tl.Marks = append(tl.Marks, ms...)
		if merged > 0 {
			tl.Notes = append(tl.Notes, fmt.Sprintf("%s: %d marks merged into clusters (at most %d per lane).", k.host, merged, maxLaneMarks))
		}
	}
	tl.Notes = append(tl.Notes, windowNotes...)
	if undated > 0 {
		tl.Notes = append(tl.Notes, fmt.Sprintf("%d evidence line(s) without a time are listed below but not drawn.", undated))
	}
	tl.Notes = append(tl.Notes, offsetNotes(hosts, c)...)
	placeLabels(tl.Marks)
	return tl
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func shortDur(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func sortedKeys[V any](m map[laneKey]V) []laneKey {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b laneKey) int {
		if a.comp != b.comp {
			return strings.Compare(a.comp, b.comp)
		}
		return strings.Compare(a.host, b.host)
	})
	return keys
}

// finish sets the picture's size and axis once the lanes are laid out.
func (tl *timeline) finish(s scale, lanes []lane, top, bottom float64) {
	tl.Lanes = lanes
	tl.T0, tl.T1 = s.t0.UnixMilli(), s.t1.UnixMilli()
	tl.Left, tl.Plot = num(tlLabelW), num(tlPlotW)
	tl.W = num(tlLabelW + tlPlotW + tlRightW)
	tl.H = num(bottom + 8)
	tl.AxisY = num(axisH - 8)
	tl.LanesTop, tl.LanesBot = num(top), num(bottom)
	tl.Ticks = ticks(s)
}

func clampU(u float64) float64 { return min(max(u, -1), plotUnits+1) }

func (tl *timeline) bandSpan(s scale, from, to time.Time, y, h float64, class, label, title, href string) span {
	a, b := clampU(s.u(from)), clampU(s.u(to))
	if b-a < 0.6 {
		b = a + 0.6
	}
	return span{A: num(a), B: num(b), X: num(xOf(a)), W: num(xOf(b) - xOf(a)), Y: num(y), H: num(h), Class: class, Label: label, Title: title, Href: href}
}

func (tl *timeline) laneSpan(s scale, sp rawSpan, y float64, host, word string) span {
	d := sp.to.Sub(sp.from)
	return tl.bandSpan(s, sp.from, sp.to, y, spanRowH-4, "span-"+word, word+" "+shortDur(d),
		fmt.Sprintf("%s on %s: %s, %s to %s", word, host, shortDur(d), stamp(sp.from), stamp(sp.to)), "")
}

// downsample turns a lane's marks into drawn marks: one per mark while the
// lane holds at most maxLaneMarks, else one per pixel bucket, a cluster
// standing for every mark in it. It returns how many marks were merged.
func downsample(s scale, ms []rawMark, y float64) ([]mark, int) {
	slices.SortStableFunc(ms, func(a, b rawMark) int { return a.t.Compare(b.t) })
	draw := func(m rawMark) mark {
		u := s.u(m.t)
		return mark{U: num(u), X: num(xOf(u)), Y: num(y), Shape: kindShape[m.kind], Class: kindClass[m.kind], Label: m.label, Title: m.title}
	}
	if len(ms) <= maxLaneMarks {
		out := make([]mark, len(ms))
		for i, m := range ms {
			out[i] = draw(m)
		}
		return out, 0
	}
	bucket := plotUnits / maxLaneMarks
	var out []mark
	merged := 0
	for i := 0; i < len(ms); {
		b := int(s.u(ms[i].t) / bucket)
		j := i + 1
		for j < len(ms) && int(s.u(ms[j].t)/bucket) == b {
			j++
		}
		if j-i == 1 {
			out = append(out, draw(ms[i]))
		} else {
			mk := draw(ms[i])
			mk.Shape, mk.Class = shapeCluster, "m-cluster"
			mk.Label = fmt.Sprintf("×%d", j-i)
			mk.Title = fmt.Sprintf("%d lines merged, %s to %s; first:\n%s", j-i, evidenceStamp(ms[i].t), evidenceStamp(ms[j-1].t), ms[i].title)
			out = append(out, mk)
			merged += j - i
		}
		i = j
	}
	return out, merged
}

// placeLabels hides the labels that would overlap the previous label in the
// same lane; the mark keeps its tooltip, and the script re-runs this when
// zoomed.
func placeLabels(ms []mark) {
	lastEnd := map[string]float64{}
	for i := range ms {
		x, _ := strconv.ParseFloat(ms[i].X, 64)
		ms[i].LabelX = num(x)
		w := 6.2*float64(len([]rune(ms[i].Label))) + 8
		if end, ok := lastEnd[ms[i].Y]; ok && x-w/2 < end {
			ms[i].Hidden = true
			continue
		}
		lastEnd[ms[i].Y] = x + w/2
	}
}

// overviewTimeline draws every host over the whole input: its files' spans
// (files: c's, read back) as activity, the findings' evidence as marks and
// the findings as bands.
func overviewTimeline(fs []detectors.Finding, c report.Coverage, files []report.FileCoverage) *timeline {
	lo, hi := c.Start, c.End
	for _, f := range fs {
		for _, t := range []time.Time{f.Start, f.End} {
			if t.IsZero() {
				continue
			}
			if lo.IsZero() || t.Before(lo) {
				lo = t
			}
			if t.After(hi) {
				hi = t
			}
		}
	}
	if lo.IsZero() {
		return nil
	}
	t0, t1 := padRange(lo, hi)
	s := scale{t0, t1}
	tl := &timeline{ID: "tl-overview", Title: "Overview: activity per host over the whole input, findings overlaid"}
	keyOf := map[string]laneKey{}
	for _, h := range c.Hosts {
		comp := ""
		if len(h.Components) > 0 {
			comp = h.Components[0]
		}
		keyOf[h.Host] = laneKey{comp, h.Host}
	}
	for _, f := range fs {
		for _, e := range f.Evidence {
			if _, ok := keyOf[e.Host]; !ok && e.Host != "" {
				keyOf[e.Host] = laneKey{e.Component, e.Host}
			}
		}
	}
	rowsTop := axisH + 6
	top := rowsTop + bandRowH*float64(len(fs)) + 8
	lanes, mid, bottom := layoutLanes(slices.Collect(maps.Values(keyOf)), top, offsetMap(c), nil)
	tl.finish(s, lanes, top, bottom)
	for i, f := range fs {
		y := rowsTop + bandRowH*float64(i)
		href := fmt.Sprintf("#finding-%d", i+1)
		label := fmt.Sprintf("%s [%d] %s %s", severityIcons[f.Severity], i+1, f.Defect, f.Severity)
		bar := tl.bandSpan(s, f.Start, f.End, y+3, bandRowH-6, "bar-"+f.Severity.String(), label,
			fmt.Sprintf("[%d] %s %s: %s, %s to %s", i+1, f.Defect, f.Severity, f.Title, stamp(f.Start), stamp(f.End)), href)
		tl.Rows = append(tl.Rows, bandRow{Y: num(y), TextY: num(y + bandRowH - 5), Bar: bar, Label: label, Href: href, Icon: severityIcons[f.Severity]})
		tl.Bands = append(tl.Bands, tl.bandSpan(s, f.Start, f.End, top, bottom-top, "band-"+f.Severity.String(), "", "", ""))
	}
	// activity: the union of each host's file spans
	byHost := map[string][][2]time.Time{}
	for _, fc := range files {
		if fc.First.IsZero() || fc.Last.IsZero() {
			continue
		}
		byHost[fc.Host] = append(byHost[fc.Host], [2]time.Time{fc.First, fc.Last})
	}
	for _, h := range slices.Sorted(maps.Keys(byHost)) {
		k, ok := keyOf[h]
		if !ok {
			continue
		}
		for _, iv := range unionSpans(byHost[h], t1.Sub(t0)/500) {
			sp := tl.bandSpan(s, iv[0], iv[1], mid[k]-4, 8, "activity", "",
				fmt.Sprintf("%s: records from %s to %s", h, stamp(iv[0]), stamp(iv[1])), "")
			tl.Spans = append(tl.Spans, sp)
		}
	}
	marks := map[laneKey][]rawMark{}
	spans := map[laneKey][]rawSpan{}
	for i, f := range fs {
		for j, e := range f.Evidence {
			if e.Time.IsZero() {
				continue
			}
			k, ok := keyOf[e.Host]
			if !ok {
				continue
			}
			if sk, a, b, ok := spanOf(e); ok && !slices.ContainsFunc(spans[k], func(o rawSpan) bool {
				return o.kind == sk && absDur(o.from.Sub(a)) <= 5*time.Second && absDur(o.to.Sub(b)) <= 5*time.Second
			}) {
				spans[k] = append(spans[k], rawSpan{a, b, sk})
			}
			kind := evidenceKind(e.Text)
			label := markWord(kind, e.Text)
			marks[k] = append(marks[k], rawMark{t: e.Time, kind: kind, label: label,
				title: fmt.Sprintf("[%d] %s evidence #%d %s %s:%d\n%s", i+1, f.Defect, j+1, evidenceStamp(e.Time), e.File, e.Line, clipRunes(e.Text, 100))})
		}
	}
	for _, k := range sortedKeys(spans) {
		for _, sp := range spans[k] {
			word := "pause"
			if sp.kind == kindSilence {
				word = "silence"
			}
			lsp := tl.laneSpan(s, sp, mid[k]-6, k.host, word)
			lsp.H, lsp.Label = "12", ""
			tl.Spans = append(tl.Spans, lsp)
		}
	}
	for _, k := range sortedKeys(marks) {
		ms, merged := downsample(s, marks[k], mid[k])
		tl.Marks = append(tl.Marks, ms...)
		if merged > 0 {
			tl.Notes = append(tl.Notes, fmt.Sprintf("%s: %d evidence marks merged into clusters (at most %d per lane).", k.host, merged, maxLaneMarks))
		}
	}
	tl.Notes = append(tl.Notes, offsetNotes(nil, c)...)
	placeLabels(tl.Marks)
	return tl
}

// unionSpans merges intervals that overlap or lie closer than gap.
func unionSpans(iv [][2]time.Time, gap time.Duration) [][2]time.Time {
	slices.SortFunc(iv, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var out [][2]time.Time
	for _, v := range iv {
		if n := len(out); n > 0 && !v[0].After(out[n-1][1].Add(gap)) {
			if v[1].After(out[n-1][1]) {
				out[n-1][1] = v[1]
			}
			continue
		}
		out = append(out, v)
	}
	return out
}
