// Package detectors holds the engine that feeds signals to detectors in
// event-time order, the Detector and Finding types, and the per-cluster
// knowledge (settings, identities) detectors share. Each defect's detector
// lives in its own sub-package; detectors/registry lists them.
package detectors

import (
	"bytes"
	"fmt"
	"text/template"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// Emit reports a finding. Emitting again with the same Key replaces it
// (e.g. a warning escalated to critical, or firing turned resolved). The
// engine fills Detector, and Defect and Title when the finding leaves them
// empty (a detector may report a related condition that is not its defect).
type Emit func(Finding)

// FactWithdrawn is the fact that withdraws a pending finding: a detector
// that emitted a finding in State Pending and then learns that its
// confirmation will not come emits the same Key again with
// Facts[FactWithdrawn] set to the reason. A withdrawn finding never reaches
// a report.
const FactWithdrawn = "withdrawn"

// FactTemplateError is the fact that says a finding's text could not be
// rendered from its signature's templates (a defect of the signature: its
// test cases fail on it).
const FactTemplateError = "template_error"

// Withdraw returns f marked withdrawn for reason (see FactWithdrawn).
func Withdraw(f Finding, reason string) Finding {
	facts := make(map[string]string, len(f.Facts)+1)
	for k, v := range f.Facts {
		facts[k] = v
	}
	facts[FactWithdrawn] = reason
	f.Facts, f.State = facts, Pending
	return f
}

// Withdrawn reports whether f withdraws a pending finding.
func Withdrawn(f Finding) bool { return f.Facts[FactWithdrawn] != "" }

// Detector recognises one defect. It sees signals of the kinds its Doc lists,
// in event-time order, and time through Advance; it never reads the wall clock.
type Detector interface {
	// Observe handles one signal. Untimed signals (zero Time) come first.
	// s is valid during the call only: a detector keeps a copy of what it
	// needs (its strings may be kept).
	Observe(s *catalogue.Signal, emit Emit)
	// Advance tells the detector that no signal before now will follow.
	// Every decision whose deadline has passed is made here, so that a
	// run that never ends (a daemon) makes it too; Advance also forgets
	// state older than the Doc's Horizon.
	Advance(now time.Time, emit Emit)
	// Quiet tells when Advance next has something to do. The engine
	// calls a detector's Advance only once its Quiet has passed, or after
	// it observed a signal, or when the cluster's settings or identities
	// changed; between signals it skips the ticks at which every detector
	// is quiet, so that days of event time are not walked one idle second
	// at a time.
	//
	// Quiet returns a time through which Advance, with no signal in
	// between, would neither emit nor change state that a later call reads
	// (sweeps on a schedule count). now is the time of the last Advance; a
	// time before it means the next tick: a detector that cannot tell
	// returns one (the zero time), and is advanced at every tick.
	Quiet(now time.Time) time.Time
	// End ends the input at end: no signal follows. The engine calls it
	// once, after advancing the detector to end (unless Quiet says Advance
	// would do nothing then), so every decision whose deadline end reached
	// was made in Advance. End reports what is still open as it stands at
	// end, firing as a rule ("ongoing at the end of the input"), and
	// judges only what the end of the input itself settles (the second
	// half of a pair can no longer come).
	End(end time.Time, emit Emit)
	// StateStats reports the bounded parts of the detector's retained
	// state, in a deterministic order (none for a stateless detector).
	StateStats() []StateStat
}

// NoDeadline is a duration past any deadline: now.Add(NoDeadline) stands
// for "none".
const NoDeadline = 100 * 365 * 24 * time.Hour

// Earliest returns the earlier of a and b.
func Earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// Doc is a detector's documentation. It lives in the detector's doc.go and is
// the only copy: explain, reports and rule annotations read it from there.
type Doc struct {
	Name        string // detector name, e.g. "scm-pause-stale-nodes"
	Defect      string // e.g. "HDDS-17519"
	Title       string
	Summary     string // one line
	Explanation string
	// Remediation steps as text/template strings executed on the Finding.
	Remediation    []string
	FalsePositives []string
	Resolves       string // when a finding of this detector resolves
	Kinds          []catalogue.Kind
	// Metrics are the /prom metric names the detector reads as
	// corroborating evidence (catalogue.MetricSample signals, which Kinds
	// must then list); only these samples become signals.
	Metrics []string
	// Needs are the components whose logs the detector cannot run without.
	Needs []parsers.Component
	// Package is the detector's Go package name, accepted wherever the
	// detector's name is (explain, option keys).
	Package string
	// File is the file that holds this documentation, relative to the
	// repository ("" for a Go detector: detectors/<Package>/doc.go).
	File string
	// Horizon is how long the detector keeps state about an entity (a
	// host, a datanode, a container…) that brings no new signal; Advance
	// forgets what is older. Its doc.go says why the value suffices.
	Horizon time.Duration
	// Options are the settings the detector declares (see Option).
	Options []Option
	// Affected is the range of Ozone versions whose code has the defect,
	// as read from Ozone's history: "*" (every release), or constraints
	// that must all hold, e.g. ">=2.2.0" or ">=1.2.0 <2.1.0", with "||"
	// between release lines (compared by numeric prefix, see ParseVersion
	// and VersionInRange). "" declares nothing: no finding is
	// gated by version. A finding on a host whose version is outside it is
	// a look-alike (see GateVersion).
	Affected string
	// FixedIn lists the first release of each release line that carries
	// the fix; empty while no release does.
	FixedIn []string
	// VersionsRead says where Affected and FixedIn were read (JIRA, commits,
	// tags) and, while no release has the fix, "not fixed in any release
	// as of <newest tag and its date>".
	VersionsRead string
}

// DocFile returns the file that holds the documentation, relative to the
// repository.
func (d Doc) DocFile() string {
	if d.File != "" {
		return d.File
	}
	pkg := d.Package
	if pkg == "" {
		pkg = d.Name
	}
	return "detectors/" + pkg + "/doc.go"
}

// StateStat is the size of one bounded part of a detector's state.
type StateStat struct {
	Name           string
	Entries, Limit int
	Evicted        int64
}

// Registration is a detector package's one exported value.
type Registration struct {
	Doc Doc
	New func(env *Env) (Detector, error)
	// Entries are message entries the detector adds to the catalogue (a
	// signature's own signals); the pipeline's catalogue holds them all.
	Entries []catalogue.Entry
}

// Env is what detectors know about the cluster, given at construction.
type Env struct {
	Settings *site.Config // cluster settings (ozone-site.xml, STARTUP_MSG conf) with Ozone's defaults
	Identity *Identity    // datanode UUID <-> host, OM node ID <-> host, versions
	Options  map[string]string
	// Batch says the findings are read once the input ends (a bundle run),
	// not as they change: a detector may leave out the updates of a firing
	// finding that change neither its state nor its severity, as long as it
	// reports the finding as it stands when it resolves, when it is
	// forgotten and when the input ends.
	Batch bool
}

// Option returns a detector option or def. Detectors read their declared
// options through Doc.Int and Doc.Duration, which accept the namespaced keys.
func (e *Env) Option(name, def string) string {
	if v, ok := e.Options[name]; ok {
		return v
	}
	return def
}

// Remediate fills the doc's remediation templates with the finding.
func (d Doc) Remediate(f *Finding) ([]string, error) { return d.remediation().fill(f) }

// remediation is a doc's remediation templates parsed once, for a report
// that fills them for each of thousands of findings.
type remediation struct {
	name  string               // the detector's
	steps []*template.Template // the steps before the first that did not parse
	err   error                // why that one did not
}

func (d *Doc) remediation() *remediation {
	r := &remediation{name: d.Name}
	for i, t := range d.Remediation {
		tpl, err := template.New(fmt.Sprint(d.Name, i)).Funcs(templateFuncs).Parse(t)
		if err != nil {
			r.err = fmt.Errorf("%s remediation step %d: %w", d.Name, i+1, err)
			break
		}
		r.steps = append(r.steps, tpl)
	}
	return r
}

// fill executes the steps on f, in order.
func (r *remediation) fill(f *Finding) ([]string, error) {
	steps := make([]string, 0, len(r.steps))
	for i, tpl := range r.steps {
		var b bytes.Buffer
		if err := tpl.Execute(&b, f); err != nil {
			return nil, fmt.Errorf("%s remediation step %d: %w", r.name, i+1, err)
		}
		steps = append(steps, b.String())
	}
	if r.err != nil {
		return nil, r.err
	}
	return steps, nil
}
