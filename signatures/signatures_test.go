package signatures_test

import (
	"path"
	"path/filepath"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/cases"
	"github.com/ozdoctor/ozdoctor/detectors/signature"
	"github.com/ozdoctor/ozdoctor/signatures"
)

// TestBuiltinSignatures compiles every built-in signature and runs its
// cases, batch, live and restarted; a stable signature needs a positive
// and a quiet case.
func TestBuiltinSignatures(t *testing.T) {
	sigs, err := signature.LoadFS(signatures.FS(), ".", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(sigs) == 0 {
		t.Fatal("no built-in signatures")
	}
	for _, s := range sigs {
		t.Run(s.ID, func(t *testing.T) {
			paths, err := s.CasePaths(filepath.FromSlash(path.Dir(s.Path)))
			if err != nil {
				t.Fatal(err)
			}
			// Every built-in signature is held to the rule of stable ones.
			s.Status = "stable"
			if err := s.CheckStable(paths, cases.Positive); err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				t.Run(filepath.Base(p), func(t *testing.T) {
					out, err := cases.Check([]detectors.Registration{s.Registration()}, p, cases.Options{Update: *update})
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range out.Failures {
						t.Error(f)
					}
				})
			}
		})
	}
}

// BenchmarkCompileBuiltins is what every command pays at start for the
// built-in signatures.
func BenchmarkCompileBuiltins(b *testing.B) {
	for b.Loop() {
		if _, err := signature.LoadFS(signatures.FS(), ".", true); err != nil {
			b.Fatal(err)
		}
	}
}
