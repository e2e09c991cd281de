// Package cases runs detectors and signatures over data-driven test
// cases, the one format every detector and signature is tested with. A
// case is a txtar file: case.json (a generated cluster bundle: size, seed,
// defect scripts, layout, noise, rotation, skew, site settings; "{}" for
// none), literal files (files/<host>/<log file>, as real bundles hold
// them), and what must be found: expected.json (whole findings, "[]" for a
// quiet case) or want (one line per finding, see WantLine, plus optional
// "at <time> <detector> <key> <state>" lines, like promtool's eval_time).
// Each case runs three ways that must agree: as a batch, live (streams in
// interleaved chunks behind a simulated clock) and live with checkpoint
// restarts at random steps.
package cases

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// Case is the case.json of a test case.
type Case struct {
	Cluster struct {
		SCMs      int `json:"scms"`
		OMs       int `json:"oms"`
		Datanodes int `json:"datanodes"`
		// Version is the Ozone version the cluster's STARTUP_MSG banners
		// print (the scenario's default when empty); scripts may set
		// their own.
		Version string `json:"version"`
	} `json:"cluster"`
	Seed     int64     `json:"seed"`
	Start    time.Time `json:"start"`
	Duration Duration  `json:"duration"`
	Scripts  []struct {
		Name string   `json:"name"`
		At   Duration `json:"at"`
	} `json:"scripts"`
	Render struct {
		Layout string              `json:"layout"`
		Noise  int                 `json:"noise"`
		Skew   map[string]Duration `json:"skew"`
		Rotate bool                `json:"rotate"`
		Gzip   bool                `json:"gzip"`
		CRLF   bool                `json:"crlf"`
		Zone   string              `json:"zone"`
	} `json:"render"`
	Site    map[string]string `json:"site"`
	Options map[string]string `json:"options"`
	TZ      string            `json:"tz"` // zone the analysis assumes (default UTC)
}

// Duration is a time.Duration written as "40m" in JSON.
type Duration time.Duration

// UnmarshalJSON reads "40m".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Outcome is what one case gave.
type Outcome struct {
	Path     string
	Failures []string // empty: the case passed
	Findings int      // reported by the batch run
	Updated  bool     // the expectations were rewritten
}

// Passed reports whether the case passed.
func (o *Outcome) Passed() bool { return len(o.Failures) == 0 }

// Options tune Check.
type Options struct {
	// Update rewrites the case's expectations from what was found
	// (expected.json, or the finding lines of want).
	Update bool
	// Built, if set, is called with every detector the batch run built,
	// after the run (to check its state).
	Built func(detectors.Detector)
	// FS, if set, holds the cases (the built-in signatures' embedded ones);
	// nil reads them from disk. Cases in an FS cannot be updated.
	FS fs.FS
}

// read reads a case from opt.FS, or from disk.
func (opt Options) read(path string) ([]byte, error) {
	if opt.FS != nil {
		return fs.ReadFile(opt.FS, path)
	}
	return os.ReadFile(path)
}

// Check runs the case in the txtar file path against regs: batch, live
// and restarted, and compares with its expectations.
func Check(regs []detectors.Registration, path string, opt Options) (*Outcome, error) {
	if opt.Update && opt.FS != nil {
		return nil, fmt.Errorf("%s: embedded cases cannot be updated (give the signature's folder)", path)
	}
	data, err := opt.read(path)
	if err != nil {
		return nil, err
	}
	ar := parseArchive(data)
	tmp, err := os.MkdirTemp("", "ozdoctor-case-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bundleDir := filepath.Join(tmp, "bundle")
	c, err := Build(ar, bundleDir)
	if err != nil {
		return nil, err
	}
	// Case options are checked as the command line checks --option.
	opts, err := detectors.ValidateOptions(regs, c.Options)
	if err != nil {
		return nil, err
	}
	var built []detectors.Detector
	wrapped := make([]detectors.Registration, len(regs))
	for i, r := range regs {
		inner := r.New
		r.New = func(env *detectors.Env) (detectors.Detector, error) {
			d, err := inner(env)
			if err == nil {
				built = append(built, d)
			}
			return d, err
		}
		wrapped[i] = r
	}
	aopt := analysis.Options{Inputs: []string{bundleDir}, Detectors: wrapped, DetectorOptions: opts}
	if c.TZ != "" {
		if aopt.Zone, err = time.LoadLocation(c.TZ); err != nil {
			return nil, err
		}
	}
	var batch []detectors.Transition
	aopt.Subscribe = func(tr detectors.Transition) { batch = append(batch, tr) }
	res, err := analysis.Run(context.Background(), aopt)
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	out := &Outcome{Path: path}
	for _, d := range built {
		if opt.Built != nil {
			opt.Built(d)
		}
		out.Failures = append(out.Failures, stateProblems(d)...)
	}
	findings := Reported(res.Findings.Slice())
	out.Findings = len(findings)
	for _, f := range findings {
		if e := f.Facts[detectors.FactTemplateError]; e != "" {
			out.Failures = append(out.Failures, fmt.Sprintf("%s %s: a template did not render: %s", f.Detector, f.Key, e))
		}
	}
	got := Golden(findings, bundleDir)
	lines := transitionLines(batch, bundleDir)
	out.Failures = append(out.Failures, checkLive(aopt, c.Seed, bundleDir, got, lines)...)
	want, hasWant := ar.file("want")
	golden, hasGolden := ar.file("expected.json")
	switch {
	case opt.Update && hasWant:
		ar.set("want", []byte(strings.Join(append(WantLines(findings), atLines(want)...), "\n")+"\n"))
		out.Updated = true
	case opt.Update:
		ar.set("expected.json", got)
		out.Updated = true
	case hasWant:
		out.Failures = append(out.Failures, checkWant(string(want), findings, batch)...)
	case hasGolden:
		if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(golden)) {
			out.Failures = append(out.Failures, "findings differ from expected.json (rewrite it with -update after checking):\n"+Diff(string(golden), string(got)))
		}
	default:
		out.Failures = append(out.Failures, "no want or expected.json (create it with -update)")
	}
	if out.Updated {
		if err := os.WriteFile(path, ar.format(), 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stateProblems checks that a detector's state after a run can be saved
// and that it reports its bounded parts within their limits.
func stateProblems(d detectors.Detector) []string {
	var out []string
	if err := CheckState(d); err != nil {
		out = append(out, fmt.Sprintf("%T state: %v", d, err))
	}
	for _, st := range d.StateStats() {
		if st.Name == "" || st.Entries > st.Limit {
			out = append(out, fmt.Sprintf("%T state %+v", d, st))
		}
	}
	return out
}

// checkLive replays the case's bundle through the live path (streams
// delivered in interleaved chunks a few seconds behind a simulated clock,
// idle streams released by it), then again with checkpoint restarts at
// random steps, and requires the batch run's findings and transitions.
func checkLive(opt analysis.Options, seed int64, root string, findings []byte, transitions []string) []string {
	var fails []string
	opt.Subscribe = nil
	rec, err := analysis.Record(context.Background(), opt)
	if err != nil {
		return []string{fmt.Sprintf("record: %v", err)}
	}
	var live []detectors.Transition
	opt.Subscribe = func(tr detectors.Transition) { live = append(live, tr) }
	plan := analysis.ReplayPlan{Seed: seed, Step: time.Second, MaxDelay: 2 * time.Second, MaxEvery: 2}
	res, stats, err := rec.Replay(opt, plan)
	if err != nil {
		return []string{fmt.Sprintf("replay: %v", err)}
	}
	if stats.Steps == 0 { // nothing any detector reads: nothing to replay
		if len(transitions) > 0 {
			fails = append(fails, "the live replay had no step, yet the batch run made transitions")
		}
		return fails
	}
	if stats.LongestIdle <= analysis.DefaultIdle {
		fails = append(fails, fmt.Sprintf("no stream was idle long enough to be released by the clock (longest %s)", stats.LongestIdle))
	}
	if got := Golden(res.Findings.Slice(), root); !bytes.Equal(got, findings) {
		fails = append(fails, "live replay findings differ from the batch run:\n"+Diff(string(findings), string(got)))
	}
	if d := Diff(strings.Join(transitions, "\n"), strings.Join(transitionLines(live, root), "\n")); d != "" {
		fails = append(fails, fmt.Sprintf("live replay transitions differ from the batch run (%d vs %d):\n%s", len(live), len(transitions), d))
	}
	rng := rand.New(rand.NewSource(seed))
	for range 8 {
		plan.Restarts = append(plan.Restarts, 1+rng.Intn(stats.Steps))
	}
	live = nil
	res, cut, err := rec.Replay(opt, plan)
	if err != nil {
		return append(fails, fmt.Sprintf("replay with restarts: %v", err))
	}
	if cut.Restarts == 0 {
		fails = append(fails, "no restart happened")
	}
	if got := Golden(res.Findings.Slice(), root); !bytes.Equal(got, findings) {
		fails = append(fails, fmt.Sprintf("findings after %d restarts differ from the batch run:\n%s", cut.Restarts, Diff(string(findings), string(got))))
	}
	if d := Diff(strings.Join(transitions, "\n"), strings.Join(transitionLines(live, root), "\n")); d != "" {
		fails = append(fails, fmt.Sprintf("transitions after %d restarts at %v differ from the batch run (%d vs %d):\n%s", cut.Restarts, plan.Restarts, len(live), len(transitions), d))
	}
	return fails
}

func transitionLines(trs []detectors.Transition, root string) []string {
	out := make([]string, len(trs))
	for i, tr := range trs {
		f := Golden([]detectors.Finding{tr.Finding}, root)
		out[i] = fmt.Sprintf("%s %s %s>%s escalated=%v %s", tr.At.UTC().Format(time.RFC3339Nano), tr.Fingerprint, tr.From, tr.To, tr.Escalated, bytes.TrimSpace(f))
	}
	return out
}

// Build renders a case's bundle into dir and returns the case.
func Build(ar *archive, dir string) (*Case, error) {
	c := &Case{}
	if raw, ok := ar.file("case.json"); ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(c); err != nil {
			return nil, fmt.Errorf("case.json: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if len(c.Scripts) > 0 || c.Render.Noise > 0 {
		if err := render(c, dir); err != nil {
			return nil, err
		}
	} else if len(c.Site) > 0 {
		if err := writeSite(filepath.Join(dir, "ozone-site.xml"), c.Site); err != nil {
			return nil, err
		}
	}
	for _, f := range ar.Files {
		name, ok := strings.CutPrefix(f.Name, "files/")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			return nil, fmt.Errorf("file %s leaves the bundle", f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// writeSite writes settings as an ozone-site.xml.
func writeSite(path string, site map[string]string) error {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
	for _, k := range slices.Sorted(maps.Keys(site)) {
		fmt.Fprintf(&b, "  <property><name>%s</name><value>%s</value></property>\n", html.EscapeString(k), html.EscapeString(site[k]))
	}
	b.WriteString("</configuration>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// render generates the case's cluster bundle into dir.
func render(c *Case, dir string) error {
	if c.Start.IsZero() {
		c.Start = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	}
	if c.Duration == 0 {
		c.Duration = Duration(2 * time.Hour)
	}
	cl := scenario.NewCluster(rand.New(rand.NewSource(c.Seed)), c.Cluster.SCMs, c.Cluster.OMs, c.Cluster.Datanodes)
	if c.Cluster.Version != "" {
		cl.Version = c.Cluster.Version
	}
	s := scenario.New(c.Seed, c.Start, time.Duration(c.Duration), cl)
	s.Site = c.Site
	all := scripts.All()
	for _, sc := range c.Scripts {
		fn, ok := all[sc.Name]
		if !ok {
			return fmt.Errorf("unknown script %q", sc.Name)
		}
		fn(s, c.Start.Add(time.Duration(sc.At)))
	}
	rd := scenario.Render{Layout: c.Render.Layout, Noise: c.Render.Noise, Rotate: c.Render.Rotate,
		Gzip: c.Render.Gzip, CRLF: c.Render.CRLF, Skew: map[string]time.Duration{}}
	for h, d := range c.Render.Skew {
		rd.Skew[h] = time.Duration(d)
	}
	if c.Render.Zone != "" {
		z, err := time.LoadLocation(c.Render.Zone)
		if err != nil {
			return err
		}
		rd.Zone = z
	}
	if err := s.Render(dir, rd); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

// BuildFile renders the bundle of the case in the txtar file path into dir.
func BuildFile(path, dir string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Build(parseArchive(data), dir)
}

// Reported drops the withdrawn pending findings, which never reach a
// report (the engine's rule).
func Reported(fs []detectors.Finding) []detectors.Finding {
	var out []detectors.Finding
	for _, f := range fs {
		if !detectors.Withdrawn(f) {
			out = append(out, f)
		}
	}
	return out
}

// Golden renders findings as indented JSON with file paths relative to root.
// Withdrawn pending findings are left out: they never reach a report.
func Golden(fs []detectors.Finding, root string) []byte {
	fs = Reported(fs)
	out := make([]detectors.Finding, 0, len(fs))
	for _, f := range fs {
		f.Evidence = slices.Clone(f.Evidence)
		for j := range f.Evidence {
			f.Evidence[j].File = relative(f.Evidence[j].File, root)
		}
		out = append(out, f)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(err) // findings are plain data
	}
	return append(b, '\n')
}

func relative(p, root string) string {
	if r, ok := strings.CutPrefix(p, root); ok {
		return strings.TrimPrefix(filepath.ToSlash(r), "/")
	}
	return p
}

// Kinds counts a directory's cases with findings (positive) and without (quiet).
func Kinds(dir string) (positive, quiet int, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return 0, 0, err
	}
	for _, p := range paths {
		pos, err := Positive(p)
		if err != nil {
			return 0, 0, err
		}
		if pos {
			positive++
		} else {
			quiet++
		}
	}
	return positive, quiet, nil
}

// Positive reports whether the case in path expects a finding.
func Positive(path string) (bool, error) { return Options{}.Positive(path) }

// Positive reports whether the case in path (in opt.FS, or on disk)
// expects a finding.
func (opt Options) Positive(path string) (bool, error) {
	data, err := opt.read(path)
	if err != nil {
		return false, err
	}
	ar := parseArchive(data)
	if want, ok := ar.file("want"); ok {
		for _, l := range strings.Split(string(want), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "at ") {
				return true, nil
			}
		}
		return false, nil
	}
	golden, ok := ar.file("expected.json")
	if !ok {
		return false, fmt.Errorf("%s has no want or expected.json", path)
	}
	var fs []json.RawMessage
	if err := json.Unmarshal(golden, &fs); err != nil {
		return false, fmt.Errorf("%s: expected.json: %w", path, err)
	}
	return len(fs) > 0, nil
}

// Diff shows the lines that differ, with their numbers.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := max(len(w), len(g))
	shown := 0
	for i := 0; i < n && shown < 40; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
