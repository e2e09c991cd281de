package registry

import (
	"regexp"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// jiraKey is a defect's key as a signature's defect: names it.
var jiraKey = regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]+$`)

// Defects returns the detectors of known defects (a JIRA key, not an
// operational problem): the Go detectors in their order, then the built-in
// signatures with a defect: in theirs. The help and the README list them.
func Defects() ([]detectors.Registration, error) {
	regs := Go()
	sigs, err := Builtin()
	if err != nil {
		return regs, err
	}
	for _, s := range sigs {
		if r := s.Registration(); jiraKey.MatchString(r.Doc.Defect) {
			regs = append(regs, r)
		}
	}
	return regs, nil
}
