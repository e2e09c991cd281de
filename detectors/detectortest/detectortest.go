// Package detectortest runs detectors over data-driven cases: each
// testdata/*.txtar file describes a generated cluster bundle (case.json:
// cluster size, seed, defect scripts, layout, noise, rotation, skew, site
// settings), optional literal files (files/<path>), and the expected
// findings (expected.json, "[]" for a quiet case). `go test -update`
// rewrites expected.json from what the detectors report.
package detectortest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
)

var update = flag.Bool("update", false, "rewrite expected.json of every case from the detectors' findings")

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

// Run runs every case in dir against one detector.
func Run(t *testing.T, reg detectors.Registration, dir string) {
	RunAll(t, []detectors.Registration{reg}, dir)
}

// RunAll runs every case in dir against the given detectors.
func RunAll(t *testing.T, regs []detectors.Registration, dir string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test cases in %s", dir)
	}
	for _, p := range paths {
		p := p
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			runCase(t, regs, p)
		})
	}
}

func runCase(t *testing.T, regs []detectors.Registration, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseArchive(data)
	bundleDir := filepath.Join(t.TempDir(), "bundle")
	c, err := Build(ar, bundleDir)
	if err != nil {
		t.Fatal(err)
	}
	// Case options are checked as the command line checks --option.
	opts, err := detectors.ValidateOptions(regs, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the detectors built, to check their state after the run.
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
	opt := analysis.Options{Inputs: []string{bundleDir}, Detectors: wrapped, DetectorOptions: opts}
	if c.TZ != "" {
		if opt.Zone, err = time.LoadLocation(c.TZ); err != nil {
			t.Fatal(err)
		}
	}
	var batch []string
	opt.Subscribe = func(tr detectors.Transition) { batch = append(batch, transitionLine(tr, bundleDir)) }
	res, err := analysis.Run(context.Background(), opt)
	if err != nil {
		t.Fatalf("analysis: %v", err)
	}
	for _, d := range built {
		checkBuilt(t, d)
	}
	got := Golden(res.Findings.Slice(), bundleDir)
	checkLive(t, opt, c.Seed, bundleDir, got, batch)
	if *update {
		ar.set("expected.json", got)
		if err := os.WriteFile(path, ar.format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, ok := ar.file("expected.json")
	if !ok {
		t.Fatalf("%s has no expected.json (run with -update to create it)", path)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("findings differ from expected.json (run with -update after checking):\n%s", diff(string(want), string(got)))
	}
}

// checkLive replays the case's bundle through the live path (streams
// delivered in interleaved chunks a few seconds behind a simulated clock,
// idle streams released by it) and requires the batch run's findings and
// transitions.
func checkLive(t *testing.T, opt analysis.Options, seed int64, root string, findings []byte, transitions []string) {
	t.Helper()
	opt.Subscribe = nil
	rec, err := analysis.Record(context.Background(), opt)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	var live []string
	opt.Subscribe = func(tr detectors.Transition) { live = append(live, transitionLine(tr, root)) }
	res, stats, err := rec.Replay(opt, analysis.ReplayPlan{Seed: seed, Step: time.Second, MaxDelay: 2 * time.Second, MaxEvery: 2})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if stats.LongestIdle <= analysis.DefaultIdle {
		t.Errorf("no stream was idle long enough to be released by the clock (longest %s)", stats.LongestIdle)
	}
	if got := Golden(res.Findings.Slice(), root); !bytes.Equal(got, findings) {
		t.Errorf("live replay findings differ from the batch run:\n%s", diff(string(findings), string(got)))
	}
	if d := diff(strings.Join(transitions, "\n"), strings.Join(live, "\n")); d != "" {
		t.Errorf("live replay transitions differ from the batch run (%d vs %d):\n%s", len(live), len(transitions), d)
	}
	// The same replay, checkpointed and restored into a new pipeline at
	// random steps, must give the same findings and transitions, none of
	// them twice.
	rng := rand.New(rand.NewSource(seed))
	plan := analysis.ReplayPlan{Seed: seed, Step: time.Second, MaxDelay: 2 * time.Second, MaxEvery: 2}
	for i := 0; i < 8; i++ {
		plan.Restarts = append(plan.Restarts, 1+rng.Intn(stats.Steps))
	}
	live = nil
	res, cut, err := rec.Replay(opt, plan)
	if err != nil {
		t.Fatalf("replay with restarts: %v", err)
	}
	if cut.Restarts == 0 {
		t.Error("no restart happened")
	}
	if got := Golden(res.Findings.Slice(), root); !bytes.Equal(got, findings) {
		t.Errorf("findings after %d restarts differ from the batch run:\n%s", cut.Restarts, diff(string(findings), string(got)))
	}
	if d := diff(strings.Join(transitions, "\n"), strings.Join(live, "\n")); d != "" {
		t.Errorf("transitions after %d restarts at %v differ from the batch run (%d vs %d):\n%s", cut.Restarts, plan.Restarts, len(live), len(transitions), d)
	}
}

// transitionLine renders a transition for comparison.
func transitionLine(tr detectors.Transition, root string) string {
	f := Golden([]detectors.Finding{tr.Finding}, root)
	return fmt.Sprintf("%s %s %s>%s escalated=%v %s", tr.At.UTC().Format(time.RFC3339Nano), tr.Fingerprint, tr.From, tr.To, tr.Escalated, bytes.TrimSpace(f))
}

// Build renders a case's bundle into dir and returns the case.
func Build(ar *archive, dir string) (*Case, error) {
	raw, ok := ar.file("case.json")
	if !ok {
		return nil, fmt.Errorf("no case.json")
	}
	var c Case
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("case.json: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if len(c.Scripts) > 0 || c.Render.Noise > 0 {
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
		scripts := scenario.Scripts()
		for _, sc := range c.Scripts {
			fn, ok := scripts[sc.Name]
			if !ok {
				return nil, fmt.Errorf("unknown script %q", sc.Name)
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
				return nil, err
			}
			rd.Zone = z
		}
		if err := s.Render(dir, rd); err != nil {
			return nil, fmt.Errorf("render: %w", err)
		}
	}
	for _, f := range ar.Files {
		name, ok := strings.CutPrefix(f.Name, "files/")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return nil, err
		}
	}
	return &c, nil
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
		f.Evidence = append([]detectors.Evidence(nil), f.Evidence...)
		for j := range f.Evidence {
			f.Evidence[j].File = relative(f.Evidence[j].File, root)
		}
		out = append(out, f)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(err)
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
		data, err := os.ReadFile(p)
		if err != nil {
			return 0, 0, err
		}
		want, ok := parseArchive(data).file("expected.json")
		if !ok {
			return 0, 0, fmt.Errorf("%s has no expected.json", p)
		}
		var fs []json.RawMessage
		if err := json.Unmarshal(want, &fs); err != nil {
			return 0, 0, fmt.Errorf("%s: expected.json: %w", p, err)
		}
		if len(fs) == 0 {
			quiet++
		} else {
			positive++
		}
	}
	return positive, quiet, nil
}

// diff shows the lines that differ, with a little context.
func diff(want, got string) string {
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

// checkBuilt checks that a detector's state after a run can be saved and
// that it reports its bounded parts within their limits.
func checkBuilt(t *testing.T, d detectors.Detector) {
	t.Helper()
	if err := CheckState(d); err != nil {
		t.Errorf("%T state: %v", d, err)
	}
	sr, ok := d.(detectors.StateReporter)
	if !ok {
		t.Errorf("%T does not report its state (detectors.StateReporter)", d)
		return
	}
	for _, st := range sr.StateStats() {
		if st.Name == "" || st.Entries > st.Limit {
			t.Errorf("%T state %+v", d, st)
		}
	}
}

// BuildFile renders the bundle of the case in the txtar file path into dir.
func BuildFile(path, dir string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Build(parseArchive(data), dir)
}
