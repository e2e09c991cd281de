package registry

import (
	"regexp"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// jiraKey is a JIRA key such as HDDS-17425 (a signature's defect; a
// problem names a condition instead).
var jiraKey = regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]+$`)

// Defects returns the registrations of the built-in detectors that name a
// known defect (a JIRA key): the Go detectors in their order, then the
// built-in signatures with a defect, by id. The README's table of defects
// and the root command's help list them.
func Defects() ([]detectors.Registration, error) {
	var out []detectors.Registration
	for _, r := range Go() {
		if jiraKey.MatchString(r.Doc.Defect) {
			out = append(out, r)
		}
	}
	sigs, err := Builtin()
	if err != nil {
		return nil, err
	}
	for _, s := range sigs { // LoadFS returns them by folder, which is the id
		if r := s.Registration(); jiraKey.MatchString(r.Doc.Defect) {
			out = append(out, r)
		}
	}
	return out, nil
}
