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

// Detector recognises one defect. It sees signals of the kinds its Doc lists,
// in event-time order, and time through Advance; it never reads the wall clock.
type Detector interface {
	// Observe handles one signal. Untimed signals (zero Time) come first.
	Observe(s *catalogue.Signal, emit Emit)
	// Advance tells the detector that no signal before now will follow.
	Advance(now time.Time, emit Emit)
	// Flush ends the input at end: report what is still open as firing.
	Flush(end time.Time, emit Emit)
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
	// Needs are the components whose logs the detector cannot run without.
	Needs []parsers.Component
}

// Registration is a detector package's one exported value.
type Registration struct {
	Doc Doc
	New func(env *Env) (Detector, error)
}

// Env is what detectors know about the cluster, given at construction.
type Env struct {
	Settings *site.Config // cluster settings (ozone-site.xml, STARTUP_MSG conf) with Ozone's defaults
	Identity *Identity    // datanode UUID <-> host, OM node ID <-> host, versions
	Options  map[string]string
}

// Option returns a detector option or def.
func (e *Env) Option(name, def string) string {
	if v, ok := e.Options[name]; ok {
		return v
	}
	return def
}

// Remediate fills the doc's remediation templates with the finding.
func (d Doc) Remediate(f *Finding) ([]string, error) {
	steps := make([]string, 0, len(d.Remediation))
	for i, t := range d.Remediation {
		tpl, err := template.New(fmt.Sprint(d.Name, i)).Funcs(templateFuncs).Parse(t)
		if err != nil {
			return nil, fmt.Errorf("%s remediation step %d: %w", d.Name, i+1, err)
		}
		var b bytes.Buffer
		if err := tpl.Execute(&b, f); err != nil {
			return nil, fmt.Errorf("%s remediation step %d: %w", d.Name, i+1, err)
		}
		steps = append(steps, b.String())
	}
	return steps, nil
}
