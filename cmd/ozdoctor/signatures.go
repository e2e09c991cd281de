package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/cases"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/detectors/signature"
	"github.com/ozdoctor/ozdoctor/signatures"
)

// loadDetectors returns the run's detectors: the built-in ones and the
// signatures of --signatures (a signature file's error is a usage error
// that names file:line:column).
func loadDetectors(v *viper.Viper) ([]detectors.Registration, *signature.Set, error) {
	regs, set, err := registry.Load(v.GetStringSlice("signatures"))
	if err != nil {
		return nil, nil, usageErrorf("--signatures:\n%w", err)
	}
	return regs, set, nil
}

// suite is the signatures a test or check command works on, with where
// their cases are read: the built-in ones (embedded) without paths.
type suite struct {
	sigs []*signature.Signature
	opt  cases.Options // its FS is the built-ins' when they are the suite
}

func loadSuite(paths []string) (*suite, error) {
	if len(paths) == 0 {
		sigs, err := registry.Builtin()
		if err != nil {
			return nil, usageErrorf("%w", err)
		}
		return &suite{sigs: sigs, opt: cases.Options{FS: signatures.FS()}}, nil
	}
	sigs, err := signature.LoadPaths(paths)
	if err != nil {
		return nil, usageErrorf("%w", err)
	}
	if len(sigs) == 0 {
		return nil, usageErrorf("no signature files (*.yaml, *.yml) under %s", strings.Join(paths, " "))
	}
	return &suite{sigs: sigs}, nil
}

// casePaths returns a signature's test cases, refusing a stable signature
// without both kinds.
func (u *suite) casePaths(s *signature.Signature) ([]string, error) {
	var paths []string
	var err error
	if u.opt.FS != nil {
		paths, err = s.CasePathsFS(u.opt.FS)
	} else {
		paths, err = s.CasePaths(filepath.Dir(s.Path))
	}
	if err != nil {
		return nil, err
	}
	return paths, s.CheckStable(paths, u.opt.Positive)
}

func newTestCmd(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "test [--update] [PATH...]",
		Short: "Run the test cases of signatures (files or directories; without PATH the built-in ones)",
		Long: `Run the test cases beside each signature under PATH (files or directories): its tests
globs, or testdata/*.txtar next to its file. Without PATH, the built-in signatures' cases, which
the binary carries (--update needs their folder, signatures/<id>, as PATH). Each case is a txtar file of literal log files
(files/<host>/<log file>, as a bundle holds them), optional ozone-site.xml and settings, and
what must be found ("want": one line per finding, and optional "at <time> <detector> <key>
<state>" lines). Each case runs as a batch, live and restarted from checkpoints; the three must
agree. One line per case, then "N passed, N failed". --update rewrites the expectations from
what was found. A signature with status stable needs a positive and a quiet case.

` + exitCodesHelp,
		Example: `  ozdoctor test
  ozdoctor test --update /etc/ozdoctor/signatures/my-problem.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			update, _ := cmd.Flags().GetBool("update")
			return runTest(cmd.OutOrStdout(), args, update)
		},
	}
	cmd.Flags().Bool("update", false, "rewrite each case's expectations from what was found")
	return cmd
}

func runTest(out io.Writer, paths []string, update bool) error {
	u, err := loadSuite(paths)
	if err != nil {
		return err
	}
	if update && u.opt.FS != nil {
		return usageErrorf("--update rewrites cases on disk: give the signatures' folder (signatures/ in the repository)")
	}
	opt := u.opt
	opt.Update = update
	passed, failed := 0, 0
	var problems []error
	for _, s := range u.sigs {
		paths, err := u.casePaths(s)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if len(paths) == 0 {
			globs := s.Tests
			if len(globs) == 0 {
				globs = []string{signature.DefaultTests}
			}
			fmt.Fprintf(out, "NONE  %s: no test cases (%s)\n", s.ID, strings.Join(globs, ", "))
		}
		for _, p := range paths {
			res, err := cases.Check([]detectors.Registration{s.Registration()}, p, opt)
			switch {
			case err != nil:
				failed++
				fmt.Fprintf(out, "FAIL  %s %s\n      %v\n", s.ID, p, err)
			case res.Passed():
				passed++
				note := ""
				if res.Updated {
					note = " (updated)"
				}
				fmt.Fprintf(out, "ok    %s %s: %d finding(s)%s\n", s.ID, p, res.Findings, note)
			default:
				failed++
				fmt.Fprintf(out, "FAIL  %s %s\n", s.ID, p)
				for _, f := range res.Failures {
					fmt.Fprintf(out, "      %s\n", strings.ReplaceAll(strings.TrimRight(f, "\n"), "\n", "\n      "))
				}
			}
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
	if len(problems) > 0 {
		return usageErrorf("%w", errors.Join(problems...))
	}
	if failed > 0 {
		return &exitError{code: exitFindings}
	}
	return nil
}

func newCheckCmd() *cobra.Command {
	check := &cobra.Command{
		Use:   "check",
		Short: "Check files without running anything",
	}
	check.AddCommand(&cobra.Command{
		Use:   "signatures [PATH...]",
		Short: "Check signature files (syntax, keys, signal kinds and fields, expression types, test cases of stable ones); without PATH the built-in ones",
		Long: `Check signature files as analyze and watch load them, without reading any log: YAML syntax,
unknown keys, the format version, signal kinds and fields, expression types, steps referring to
steps not yet bound, horizons and bounds, the signature's own message entries (literals of at
least 8 bytes, patterns that compile and declare their groups), and that a stable signature has a
positive and a quiet test case. Every problem is printed as file:line:column: message.

` + exitCodesHelp,
		Aliases: []string{"signature"},
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := loadSuite(args)
			if err != nil {
				return err
			}
			var problems []error
			for _, s := range u.sigs {
				paths, err := u.casePaths(s)
				if err != nil {
					problems = append(problems, err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "ok    %s (%s): %d test case(s)\n", s.ID, s.Path, len(paths))
			}
			if len(problems) > 0 {
				return usageErrorf("%w", errors.Join(problems...))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "SUCCESS: %d signature(s) found\n", len(u.sigs))
			return nil
		},
	})
	return check
}
