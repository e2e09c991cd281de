// Command ozdoctor reads Apache Ozone logs and metrics, recognises the
// signatures of known defects and reports them with evidence and remediation.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
)

// Exit codes, documented in --help and the README.
const (
	exitOK       = 0 // no finding at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitUsage    = 2 // bad flags or arguments, or no readable input
	exitInternal = 3 // ozdoctor itself failed
)

const exitCodesHelp = `Exit codes:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on
  2  usage error, or no input could be read
  3  internal error`

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.code != exitFindings {
			fmt.Fprintln(stderr, "ozdoctor:", ee.err)
		}
		return ee.code
	}
	// cobra's own errors are about flags and arguments.
	fmt.Fprintln(stderr, "ozdoctor:", err)
	return exitUsage
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	v := viper.New()
	root := &cobra.Command{
		Use:           "ozdoctor",
		Short:         "Recognise known Apache Ozone defects in logs and metrics",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return loadConfig(v, cmd)
		},
	}
	// The help names the built-in defects, which takes compiling the
	// signatures: only a help that is shown pays for it.
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		if cmd == root {
			root.Long = rootLong()
		}
		help(cmd, args)
	})
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRedactCmd(v))
	root.PersistentFlags().String("config", "", "config file (YAML, TOML or JSON)")
	root.PersistentFlags().StringSlice("signatures", nil, "directory or file of signatures of your own, added to the built-in ones\n"+
		"(repeatable; one with the id of a built-in detector replaces it; docs/signatures.md)")
	root.AddCommand(newAnalyzeCmd(v), newDetectorsCmd(v), newExplainCmd(v), newCatalogueCmd(v), newVersionCmd())
	root.AddCommand(newRulesCmd(v), newWatchCmd(v), newTestCmd(v), newCheckCmd())
	return root
}

// rootLong is the root command's help.
func rootLong() string {
	return wrap("ozdoctor reads the logs of Ozone's SCMs, OMs and datanodes (and their /prom metrics), "+
		"recognises the signatures of known defects ("+knownDefects()+") and reports each with evidence "+
		"and remediation steps.", helpWidth) + `

Configuration: flags, then OZDOCTOR_* environment variables (OZDOCTOR_FORMAT,
OZDOCTOR_TZ, OZDOCTOR_FAIL_ON, ...), then the --config file (YAML, TOML or JSON,
keys named like the flags).

` + exitCodesHelp
}

// helpWidth is the widest line of the root command's help.
const helpWidth = 86

// knownDefects lists the defects of the built-in detectors and signatures
// in registry.Defects' order, e.g. "HDDS-17519, HDDS-16809, ...", for the
// root command's help.
func knownDefects() string {
	var ids []string
	regs, _ := registry.Defects() // the built-in signatures are tested with the repository
	for _, r := range regs {
		ids = append(ids, r.Doc.Defect)
	}
	return strings.Join(ids, ", ")
}

// wrap fills text into lines of at most width bytes, breaking at spaces
// (a word longer than width stays whole on its own line).
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// loadConfig binds the command's flags to viper with the OZDOCTOR_ env
// prefix and reads the config file, if any.
func loadConfig(v *viper.Viper, cmd *cobra.Command) error {
	if err := v.BindPFlags(cmd.Flags()); err != nil {
		return err
	}
	v.SetEnvPrefix("OZDOCTOR")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	if path := v.GetString("config"); path != "" {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return usageErrorf("read config %s: %w", path, err)
		}
	}
	return nil
}
