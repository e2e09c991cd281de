package signature

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
)

// DefaultTests is where a signature's cases are when its file names none:
// beside it, in testdata/.
const DefaultTests = "testdata/*.txtar"

// CasePaths returns the signature's test cases: its tests globs (or
// DefaultTests), relative to dir, the folder of its file.
func (s *Signature) CasePaths(dir string) ([]string, error) {
	return s.casePaths(func(g string) ([]string, error) { return filepath.Glob(filepath.Join(dir, filepath.FromSlash(g))) })
}

// CasePathsFS returns the cases of a signature loaded from fsys (LoadFS),
// as paths in fsys.
func (s *Signature) CasePathsFS(fsys fs.FS) ([]string, error) {
	return s.casePaths(func(g string) ([]string, error) { return fs.Glob(fsys, path.Join(path.Dir(s.Path), g)) })
}

func (s *Signature) casePaths(glob func(string) ([]string, error)) ([]string, error) {
	globs := s.Tests
	if len(globs) == 0 {
		globs = []string{DefaultTests}
	}
	var out []string
	for _, g := range globs {
		m, err := glob(g)
		if err != nil {
			return nil, fmt.Errorf("%s: tests %q: %w", s.Path, g, err)
		}
		out = append(out, m...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// CheckStable refuses a stable signature without at least one positive
// and one quiet case among paths; positive tells which a case is.
func (s *Signature) CheckStable(paths []string, positive func(path string) (bool, error)) error {
	if s.Status != "stable" {
		return nil
	}
	pos, quiet := 0, 0
	for _, p := range paths {
		ok, err := positive(p)
		if err != nil {
			return err
		}
		if ok {
			pos++
		} else {
			quiet++
		}
	}
	if pos == 0 || quiet == 0 {
		return &Error{File: s.Path, Pos: Pos{1, 1}, Msg: fmt.Sprintf("status stable needs at least one positive and one quiet test case; found %d positive and %d quiet", pos, quiet)}
	}
	return nil
}
