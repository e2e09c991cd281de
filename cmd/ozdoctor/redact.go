package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/internal/redact"
	"github.com/ozdoctor/ozdoctor/report"
	"github.com/ozdoctor/ozdoctor/sinks"
)

func newRedactCmd(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "redact [--map FILE] [--keyword WORD]... [--keep-domain] --output OUT PATH... | redact --reverse --map FILE REPORT",
		Short: "Write a copy of a bundle with host names, addresses, principals, users, volumes, buckets, keys and secrets replaced",
		Long: `Redact reads the bundles analyze reads (directories, .tar, .tar.gz/.tgz, .tar.xz, .tar.zst,
.zip, .gz, nested) and writes a copy of the same shape to --output, with the same
pseudonym for the same original everywhere: host and domain names in every form Ozone
prints them, IPv4 and IPv6 addresses (still valid addresses of the same family),
Kerberos principals and realms, user and group names, volume, bucket and key names,
S3 access key ids, tokens, the values of password, secret, key and token settings and
keytab and keystore paths, and the --keyword words. File and entry names are redacted
like contents. Datanode UUIDs, cluster, SCM and OM ids, container, pipeline and Raft group
ids, BCSIDs, terms, indexes, times, sizes, versions, thread, logger and metric names stay,
so analyze finds on the copy what it finds on the original.

--map FILE keeps original -> pseudonym (JSON, mode 0600, created if missing) and is
reused on the next run, so that two bundles of one cluster redact alike. It holds the
originals: never share it. A summary (counts only, never an original) goes to stderr
and to REDACTION.txt inside the output.

With --reverse, REPORT (text, JSON, Markdown or HTML, e.g. what upstream found in the
redacted bundle) is written back with the original names, to stdout or --output.

` + exitCodesHelp,
		Example: `  ozdoctor redact --map cluster.map.json --keyword acme --output shared.tar.gz bundle.tar.gz
  ozdoctor redact --reverse --map cluster.map.json upstream-report.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRedact(cmd, v, args)
		},
	}
	f := cmd.Flags()
	f.StringP("output", "o", "", "where the redacted copy goes (must not exist); with --reverse, the report (default stdout)")
	f.String("map", "", "map file of original -> pseudonym, read and written back (created if missing, mode 0600)")
	f.StringArray("keyword", nil, "a word of your own to replace wherever it occurs, case-insensitively (repeatable)")
	f.Bool("keep-domain", false, "keep domain names: replace only the first label of host names")
	f.Bool("reverse", false, "write REPORT back with the original names of --map")
	return cmd
}

func runRedact(cmd *cobra.Command, v *viper.Viper, args []string) error {
	mapPath := v.GetString("map")
	output := v.GetString("output")
	if v.GetBool("reverse") {
		if mapPath == "" {
			return usageErrorf("--reverse needs --map")
		}
		if len(args) != 1 {
			return usageErrorf("--reverse takes one REPORT")
		}
		m, err := loadRedactMap(mapPath, false)
		if err != nil {
			return err
		}
		text, err := os.ReadFile(args[0])
		if err != nil {
			return usageErrorf("read report: %w", err)
		}
		out := m.Reverse(nil, text)
		if err := writeOutput(output, cmd.OutOrStdout(), func(w io.Writer) error { _, err := w.Write(out); return err }); err != nil {
			return &exitError{code: exitInternal, err: err}
		}
		return nil
	}
	switch {
	case output == "":
		return usageErrorf("redact needs --output")
	case len(args) == 0:
		return usageErrorf("nothing to redact: give PATHs")
	}
	if _, err := os.Lstat(output); err == nil {
		return usageErrorf("--output %s exists: name a new one", output)
	}
	m, err := loadRedactMap(mapPath, true)
	if err != nil {
		return err
	}
	// the flag's own values: viper would split a keyword at its commas
	keywords, _ := cmd.Flags().GetStringArray("keyword")
	if !cmd.Flags().Changed("keyword") {
		keywords = v.GetStringSlice("keyword") // from the environment or the config file
	}
	r := redact.New(m, redact.Options{Keywords: keywords, KeepDomain: v.GetBool("keep-domain")})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum, err := redact.RedactBundle(ctx, r, args, output, redact.BundleOptions{})
	switch {
	case errors.Is(err, redact.ErrNoInput):
		fmt.Fprint(cmd.ErrOrStderr(), sum.Text(r))
		return &exitError{code: exitUsage, err: err}
	case err != nil:
		return &exitError{code: exitInternal, err: err}
	}
	if mapPath != "" {
		if err := m.Save(mapPath); err != nil {
			return &exitError{code: exitInternal, err: fmt.Errorf("the copy is complete, but %w", err)}
		}
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprint(stderr, sum.Text(r))
	if b := sum.Beside(); b != "" {
		fmt.Fprintf(stderr, "\nwritten: %s (summary: %s)\n", output, b)
	} else {
		fmt.Fprintf(stderr, "\nwritten: %s (summary inside: %s)\n", output, redact.SummaryName)
	}
	return nil
}

// loadRedactMap reads the map file, and checks that it can be written
// back: a map that cannot be read or written is a usage error, found
// before any input is read.
func loadRedactMap(path string, write bool) (*redact.Map, error) {
	if path == "" {
		return redact.NewMap(), nil
	}
	m, err := redact.LoadMap(path)
	if err != nil {
		return nil, usageErrorf("--map: %w", err)
	}
	if write {
		if err := redact.CheckWritable(path); err != nil {
			return nil, usageErrorf("--map: %w", err)
		}
	}
	return m, nil
}

// redactedRun is analyze --redact: the inputs redacted into a temporary
// directory, analysed there, and the report's paths given back the
// redacted names of the inputs.
type redactedRun struct {
	tmp     string
	inputs  []string
	prefix  [][2]string // temporary path → redacted input path
	m       *redact.Map
	mapPath string
}

// startRedacted checks the map and writes the redacted copies of the inputs.
func startRedacted(ctx context.Context, v *viper.Viper, args []string) (*redactedRun, error) {
	mapPath := v.GetString("map")
	m, err := loadRedactMap(mapPath, true)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(v.GetString("spill-dir"), "ozdoctor-redact-*")
	if err != nil {
		return nil, &exitError{code: exitInternal, err: err}
	}
	rr := &redactedRun{tmp: tmp, m: m, mapPath: mapPath}
	r := redact.New(m, redact.Options{})
	for i, in := range args {
		clean := filepath.Clean(in)
		name := r.Name(filepath.Base(clean))
		out := filepath.Join(tmp, fmt.Sprint(i), name)
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			rr.cleanup()
			return nil, &exitError{code: exitInternal, err: err}
		}
		if _, err := redact.RedactBundle(ctx, r, []string{in}, out, redact.BundleOptions{}); err != nil {
			rr.cleanup()
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("redact %s: %w", in, err)}
		}
		rr.inputs = append(rr.inputs, out)
		shown := filepath.Join(r.Name(filepath.Dir(clean)), name)
		rr.prefix = append(rr.prefix, [2]string{out, shown})
	}
	if mapPath != "" {
		if err := m.Save(mapPath); err != nil {
			rr.cleanup()
			return nil, &exitError{code: exitInternal, err: err}
		}
	}
	return rr, nil
}

func (rr *redactedRun) cleanup() { os.RemoveAll(rr.tmp) }

// write writes the reports with the redacted copies' paths shown as the
// redacted names of the inputs.
func (rr *redactedRun) write(format, output string, stdout io.Writer, reports []*report.Result) error {
	var buf bytes.Buffer
	if err := sinks.WriteReports(format, &buf, reports); err != nil {
		return err
	}
	out := buf.Bytes()
	for _, p := range rr.prefix {
		out = bytes.ReplaceAll(out, []byte(p[0]), []byte(p[1]))
	}
	return writeOutput(output, stdout, func(w io.Writer) error { _, err := w.Write(out); return err })
}
