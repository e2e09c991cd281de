package signature

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// KnownKinds returns the signal kinds a signature may name without
// declaring them: the built-in catalogue's and the ones the pipeline
// makes itself (log gaps, settings, /prom samples).
func KnownKinds() map[catalogue.Kind]bool {
	known := map[catalogue.Kind]bool{catalogue.LogGap: true, catalogue.SiteSettings: true, catalogue.MetricSample: true}
	for _, e := range catalogue.Default() {
		known[e.Kind] = true
	}
	return known
}

// Set is the signatures of one run: the built-in ones and the operator's.
type Set struct {
	Signatures []*Signature
	// Replaced names the built-in signatures (or detectors) an operator's
	// signature of the same id replaced, with the file that did.
	Replaced []string
}

// Registrations returns the set's signatures as detector registrations.
func (s *Set) Registrations() []detectors.Registration {
	out := make([]detectors.Registration, len(s.Signatures))
	for i, sig := range s.Signatures {
		out[i] = sig.Registration()
	}
	return out
}

// IsSignatureFile reports whether name is a signature file by its name.
func IsSignatureFile(name string) bool {
	ext := path.Ext(name)
	return ext == ".yaml" || ext == ".yml"
}

// LoadFS compiles every signature file under root in fsys, in path order.
// Every file's problems are returned together (Errors).
func LoadFS(fsys fs.FS, root string, builtin bool) ([]*Signature, error) {
	paths, err := signatureFiles(fsys, root)
	if err != nil {
		return nil, err
	}
	return compileAll(paths, func(p string) ([]byte, error) { return fs.ReadFile(fsys, p) }, builtin)
}

// signatureFiles lists the signature files under root in fsys, in path
// order, leaving out testdata and hidden folders.
func signatureFiles(fsys fs.FS, root string) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, root, func(p string, de fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case de.IsDir() && p != root && (de.Name() == "testdata" || strings.HasPrefix(de.Name(), ".")):
			return fs.SkipDir
		case !de.IsDir() && IsSignatureFile(p):
			paths = append(paths, p)
		}
		return nil
	})
	return paths, err
}

// LoadPaths compiles the signature files given, and every signature file
// under the directories given (testdata folders left out).
func LoadPaths(paths []string) ([]*Signature, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("signatures: %w", err)
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := signatureFiles(os.DirFS(p), ".")
		for _, f := range found {
			files = append(files, filepath.Join(p, filepath.FromSlash(f)))
		}
		if err != nil {
			return nil, fmt.Errorf("signatures: %w", err)
		}
	}
	return compileAll(files, os.ReadFile, false)
}

func compileAll(paths []string, read func(string) ([]byte, error), builtin bool) ([]*Signature, error) {
	type unit struct {
		file  *File
		known map[catalogue.Kind]bool // the catalogue's kinds and the earlier files' signals
		sig   *Signature
		err   error
	}
	units := make([]unit, len(paths))
	known := KnownKinds()
	for i, p := range paths {
		u := &units[i]
		data, err := read(p)
		if err == nil {
			u.file, err = Parse(p, data)
		}
		if u.err = err; err != nil {
			continue
		}
		u.known = known
		if len(u.file.Signals) > 0 { // a later file may use an earlier one's signal
			known = maps.Clone(known)
			for _, d := range u.file.Signals {
				known[catalogue.Kind(d.Kind)] = true
			}
		}
	}
	// Compiling is most of a load: the files compile on every core.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(units)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(units); i = int(next.Add(1)) - 1 {
				if u := &units[i]; u.err == nil {
					u.sig, u.err = Compile(paths[i], u.file, u.known)
				}
			}
		})
	}
	wg.Wait()
	var sigs []*Signature
	var errs Errors
	ids := map[string]string{}
	for i, p := range paths {
		s, err := units[i].sig, units[i].err
		if err == nil {
			if prev, dup := ids[s.ID]; dup {
				errs = append(errs, &Error{File: p, Pos: units[i].file.pos["id"], Msg: fmt.Sprintf("duplicate id %q (also in %s)", s.ID, prev)})
				continue
			}
			ids[s.ID] = p
			s.Builtin = builtin
			s.doc.File = p
			if builtin {
				s.doc.File = "signatures/" + p
			}
			sigs = append(sigs, s)
			continue
		}
		var es Errors
		var e *Error
		switch {
		case errors.As(err, &es):
			errs = append(errs, es...)
		case errors.As(err, &e):
			errs = append(errs, e)
		default:
			errs = append(errs, &Error{File: p, Msg: err.Error()})
		}
	}
	if len(errs) > 0 {
		return sigs, errs
	}
	return sigs, nil
}

// Merge puts the operator's signatures over the built-in ones: one with
// the id of a built-in signature or Go detector replaces it (Set.Replaced
// says so). The registrations returned are goRegs' not replaced, then
// the signatures.
func Merge(goRegs []detectors.Registration, builtin, user []*Signature) ([]detectors.Registration, *Set) {
	set := &Set{}
	byID := map[string]*Signature{}
	for _, s := range user {
		byID[s.ID] = s
	}
	var regs []detectors.Registration
	for _, r := range goRegs {
		if s, ok := byID[r.Doc.Name]; ok {
			set.Replaced = append(set.Replaced, fmt.Sprintf("%s (built-in detector) replaced by %s", r.Doc.Name, s.Path))
			continue
		}
		regs = append(regs, r)
	}
	for _, s := range builtin {
		if u, ok := byID[s.ID]; ok {
			set.Replaced = append(set.Replaced, fmt.Sprintf("%s (built-in signature) replaced by %s", s.ID, u.Path))
			continue
		}
		set.Signatures = append(set.Signatures, s)
	}
	set.Signatures = append(set.Signatures, user...)
	slices.Sort(set.Replaced)
	return append(regs, set.Registrations()...), set
}
