// Package registry lists every detector ozdoctor runs: the Go detectors,
// each its own package under detectors/ plus one line here, and the
// built-in signatures (signatures/, one folder each), to which an
// operator's own signatures are added (Load).
package registry

import (
	"fmt"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/bootstrapexit"
	"github.com/ozdoctor/ozdoctor/detectors/divisionclosing"
	"github.com/ozdoctor/ozdoctor/detectors/signature"
	"github.com/ozdoctor/ozdoctor/signatures"
)

// Go returns the registrations of the detectors written in Go.
func Go() []detectors.Registration {
	return []detectors.Registration{
		divisionclosing.Registration,
		bootstrapexit.Registration,
	}
}

// Builtin returns the built-in signatures, compiled. They are tested
// with the repository (signatures/signatures_test.go), so an error here
// is a defect of the build.
func Builtin() ([]*signature.Signature, error) {
	sigs, err := signature.LoadFS(signatures.FS(), ".", true)
	if err != nil {
		return nil, fmt.Errorf("built-in signatures: %w", err)
	}
	return sigs, nil
}

// All returns every built-in detector's registration: the Go detectors,
// then the built-in signatures. It panics if a built-in signature does
// not compile, which the repository's tests rule out.
func All() []detectors.Registration {
	builtin, err := Builtin()
	if err != nil {
		panic(err)
	}
	regs, _ := signature.Merge(Go(), builtin, nil)
	return regs
}

// Load returns every detector of a run: the built-in ones and the
// signatures under paths (files or directories), an operator's signature
// replacing the built-in detector or signature of the same id. The Set
// says what was replaced. Errors name file:line:column.
func Load(paths []string) ([]detectors.Registration, *signature.Set, error) {
	builtin, err := Builtin()
	if err != nil {
		return nil, nil, err
	}
	user, err := signature.LoadPaths(paths)
	if err != nil {
		return nil, nil, err
	}
	regs, set := signature.Merge(Go(), builtin, user)
	return regs, set, nil
}
