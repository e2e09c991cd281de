package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"golang.org/x/term"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/report"
	"github.com/ozdoctor/ozdoctor/sinks"
)

func newAnalyzeCmd(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "analyze [flags] PATH... | analyze --es.url URL --es.index PATTERN",
		Short: "Analyse log bundles (directories, .tar, .tar.gz/.tgz, .zip, .gz or single files) or logs stored in Elasticsearch",
		Long: `Analyse log bundles collected from an Ozone cluster. PATH may be a directory tree,
a .tar, .tar.gz/.tgz or .zip archive (read as a stream, never extracted), a .gz file
or a single log file; several at once. Layouts, hosts and components are detected
per file. The report lists findings first, then what was read (coverage).

With --es.url instead of PATHs it reads the logs a shipper (Filebeat, Elastic Agent,
Logstash, Fluent Bit) stored in Elasticsearch between --since and --until, asking only
for the documents that can be signals.

With --format json, stdout holds one JSON document:
  {"findings": [{"detector", "defect", "severity", "confidence", "title", "summary",
    "entities", "start", "end", "state", "evidence": [{"file", "line", "host",
    "component", "time", "text"}], "remediation": [...]}], "coverage": {...}}

` + exitCodesHelp,
		Example: `  ozdoctor analyze examples/bundles/sample.tar.gz
  ozdoctor analyze --format json --fail-on critical /var/log/ozone
  ozdoctor analyze --format html --output report.html bundle.tar.gz
  ozdoctor analyze --tz Europe/Berlin --host-tz dn7=UTC --since "2026-08-23 10:00:00" bundle.zip
  ozdoctor analyze --es.url https://es1:9200 --es.index 'filebeat-*' --es.cluster prod1 \
    --since 2026-08-23T00:00:00Z --until 2026-08-24T00:00:00Z`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAnalyze(cmd, v, args)
		},
	}
	f := cmd.Flags()
	f.StringP("format", "f", "text", "report format: text, json, markdown or html (a self-contained page with incident timelines)")
	f.StringP("output", "o", "", "write the report to this file instead of stdout (written in full or not at all)")
	f.String("fail-on", "warning", "exit 1 when a finding has at least this severity: info, warning, critical or never")
	f.String("tz", "UTC", "time zone of log timestamps (IANA name), which carry none")
	f.StringSlice("host-tz", nil, "per-host time zone, HOST=ZONE (repeatable)")
	f.String("since", "", "ignore records before this time (RFC 3339 or \"2006-01-02 15:04:05\" in --tz)")
	f.String("until", "", "ignore records after this time")
	f.StringSlice("option", nil, "detector option DETECTOR.OPTION=VALUE, e.g. raft-division-stuck-closing.stuck-after=10m;\n"+
		"the package name may stand for the detector (divisionclosing.stuck-after), and OPTION alone\n"+
		"when one detector declares it (repeatable; ozdoctor explain lists each detector's options)")
	f.Bool("progress", true, "show progress on stderr when it is a terminal")
	f.Int("workers", 0, "files on disk read at once (0: one per core); the report is the same for any number")
	f.String("spill-budget", "8MiB", "memory for the signals a bundle run holds until no file left to read can precede them;\nbeyond it they "+
		"wait in a temporary file in --spill-dir, and so does the list of files read past an eighth of it\n(bytes, or with KiB, MiB or GiB; 0 keeps them all in memory)")
	f.String("memory-limit", "96MiB", "soft limit of the Go heap: the garbage collector works harder near it (0: none;\n"+
		"GOMEMLIMIT in the environment takes precedence)")
	f.String("spill-dir", "", "directory of that temporary file (default: $TMPDIR or /tmp); it is unlinked at once")
	f.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	f.String("memprofile", "", "write a heap profile at the end of the run to this file (go tool pprof)")
	f.Bool("redact", false, "analyse a redacted copy of the bundle (ozdoctor redact), for a report safe to share")
	f.String("map", "", "with --redact: the map file of ozdoctor redact, read and written back")
	addESFlags(f)
	addESFindingsFlags(f)
	return cmd
}

func runAnalyze(cmd *cobra.Command, v *viper.Viper, args []string) error {
	format := v.GetString("format")
	if _, err := sinks.New(format, io.Discard); err != nil {
		return usageErrorf("%w", err)
	}
	output := v.GetString("output")
	if output != "" {
		if fi, err := os.Stat(output); err == nil && fi.IsDir() {
			return usageErrorf("--output %s is a directory", output)
		}
	}
	failOn, err := parseFailOn(v.GetString("fail-on"))
	if err != nil {
		return usageErrorf("--fail-on: %w", err)
	}
	zone, err := time.LoadLocation(v.GetString("tz"))
	if err != nil {
		return usageErrorf("--tz: %w", err)
	}
	regs, set, err := loadDetectors(v)
	if err != nil {
		return err
	}
	opt := analysis.Options{Inputs: args, Zone: zone, Detectors: regs}
	if opt.HostZones, err = hostZones(v.GetStringSlice("host-tz")); err != nil {
		return usageErrorf("--host-tz: %w", err)
	}
	if opt.Since, err = parseTime(v.GetString("since"), zone); err != nil {
		return usageErrorf("--since: %w", err)
	}
	if opt.Until, err = parseTime(v.GetString("until"), zone); err != nil {
		return usageErrorf("--until: %w", err)
	}
	kv, err := keyValues(v.GetStringSlice("option"))
	if err != nil {
		return usageErrorf("--option: %w", err)
	}
	// Checked against what the detectors declare before any input is opened.
	if opt.DetectorOptions, err = detectors.ValidateOptions(opt.Detectors, kv); err != nil {
		return usageErrorf("--option: %w", err)
	}
	if opt.SpillBudget, err = parseSize(v.GetString("spill-budget")); err != nil {
		return usageErrorf("--spill-budget: %w", err)
	}
	opt.SpillDir = v.GetString("spill-dir")
	limit, err := parseSize(v.GetString("memory-limit"))
	if err != nil {
		return usageErrorf("--memory-limit: %w", err)
	}
	if limit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
	if opt.Workers = v.GetInt("workers"); opt.Workers < 0 {
		return usageErrorf("--workers %d: want 0 (one per core) or more", opt.Workers)
	}
	esCfg, fromES, err := esConfig(v, opt.Since, opt.Until)
	switch {
	case err != nil:
		return usageErrorf("%w", err)
	case fromES && len(args) > 0:
		return usageErrorf("give PATHs or --es.url, not both")
	case !fromES && len(args) == 0:
		return usageErrorf("nothing to analyse: give PATHs or --es.url")
	}
	clusters, _ := esClusters(v) // checked by esConfig
	several := len(clusters) > 1 || (len(clusters) == 1 && clusters[0] == allClusters)
	switch {
	case several && !fromES:
		return usageErrorf("--es.cluster: a bundle is one cluster; name it once")
	case several && format == "html" && !strings.Contains(output, clusterPlaceholder):
		return usageErrorf("--format html: a page holds one cluster's report; put %s in --output for a page per cluster", clusterPlaceholder)
	}
	var redacted *redactedRun
	if v.GetBool("redact") {
		if fromES {
			return usageErrorf("--redact reads bundles, not Elasticsearch")
		}
		if redacted, err = startRedacted(context.Background(), v, args); err != nil {
			return err
		}
		defer redacted.cleanup()
		opt.Inputs = redacted.inputs
	}
	findingsES, err := esFindingsConfig(v, "")
	if err != nil {
		return usageErrorf("%w", err)
	}
	stopProfiles, err := startProfiles(v.GetString("cpuprofile"), v.GetString("memprofile"))
	if err != nil {
		return usageErrorf("%w", err)
	}
	defer func() {
		if err := stopProfiles(); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "ozdoctor: writing the profiles: %v\n", err)
		}
	}()
	stderr := cmd.ErrOrStderr()
	if v.GetBool("progress") && isTerminal(stderr) {
		p := newProgress(stderr)
		opt.Progress = p.update
		defer p.done()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var reports []*report.Result
	write := func() error {
		if redacted != nil {
			return redacted.write(format, output, cmd.OutOrStdout(), reports)
		}
		return writeReports(format, output, cmd.OutOrStdout(), reports)
	}
	if fromES {
		reports, err = analyzeES(ctx, opt, esCfg, clusters)
		args = esCfg.URLs
	} else {
		var res *report.Result
		if res, err = analysis.Run(ctx, opt); res != nil {
			res.Cluster = oneCluster(clusters)
			reports = append(reports, res)
		}
	}
	for _, r := range reports {
		r.Coverage.Replaced = set.Replaced
	}
	var unreachable *esUnreachable
	switch {
	case errors.Is(err, analysis.ErrNoInput):
		if len(reports) > 0 {
			if werr := write(); werr != nil {
				return &exitError{code: exitInternal, err: werr}
			}
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("no input could be read from %s", strings.Join(args, ", "))}
	case errors.As(err, &unreachable):
		return &exitError{code: exitUsage, err: err}
	case err != nil:
		return &exitError{code: exitInternal, err: err}
	}
	if err := write(); err != nil {
		return &exitError{code: exitInternal, err: err}
	}
	failed := false
	for _, res := range reports {
		if findingsES != nil {
			cfg := *findingsES
			cfg.Cluster = res.Cluster
			if err := writeFindingsES(ctx, cfg, res.Findings.Slice()); err != nil {
				return &exitError{code: exitInternal, err: fmt.Errorf("the report is complete, but the findings were not indexed: %w", err)}
			}
		}
		failed = failed || (failOn != 0 && res.Findings.Worst() >= failOn)
	}
	if failed {
		return &exitError{code: exitFindings}
	}
	return nil
}

// clusterPlaceholder in --output stands for a report's cluster: one file
// per cluster.
const clusterPlaceholder = "{cluster}"

// writeReports writes the reports into one output (sinks.WriteReports), or
// one file per cluster when output holds clusterPlaceholder.
func writeReports(format, output string, stdout io.Writer, reports []*report.Result) error {
	if !strings.Contains(output, clusterPlaceholder) {
		return writeOutput(output, stdout, func(w io.Writer) error { return sinks.WriteReports(format, w, reports) })
	}
	for _, r := range reports {
		path := strings.ReplaceAll(output, clusterPlaceholder, r.Cluster)
		if err := writeOutput(path, stdout, func(w io.Writer) error { return sinks.WriteReports(format, w, []*report.Result{r}) }); err != nil {
			return err
		}
	}
	return nil
}

// writeOutput calls write with stdout, or with --output with a temporary
// file beside the target that is renamed over it once complete, so that a
// failed run never leaves half a report.
func writeOutput(output string, stdout io.Writer, write func(io.Writer) error) error {
	if output == "" {
		return write(stdout)
	}
	dir, base := filepath.Split(output)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("write report %s: %w", output, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write report %s: %w", output, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", output, err)
	}
	if err := os.Rename(tmp.Name(), output); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	committed = true
	return nil
}

// parseFailOn reads --fail-on; "never" is 0.
func parseFailOn(v string) (detectors.Severity, error) {
	if strings.EqualFold(v, "never") {
		return 0, nil
	}
	return detectors.ParseSeverity(v)
}

func hostZones(pairs []string) (map[string]*time.Location, error) {
	kv, err := keyValues(pairs)
	if err != nil {
		return nil, err
	}
	out := map[string]*time.Location{}
	for h, z := range kv {
		loc, err := time.LoadLocation(z)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h, err)
		}
		out[detectors.ShortHost(h)] = loc
	}
	return out, nil
}

func keyValues(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		k, val, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not KEY=VALUE", p)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return out, nil
}

// parseTime reads RFC 3339 or a log-style local time in zone.
func parseTime(v string, zone *time.Location) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, zone); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read time %q (want RFC 3339 or \"2006-01-02 15:04:05\")", v)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress draws one status line on a terminal.
type progress struct {
	w    io.Writer
	last time.Time
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) update(pr analysis.Progress) {
	// Wall-clock throttling of a terminal display, not analysis time.
	if now := time.Now(); now.Sub(p.last) > 200*time.Millisecond {
		p.last = now
		path := pr.Path
		if len(path) > 60 {
			path = "…" + path[len(path)-59:]
		}
		fmt.Fprintf(p.w, "\r\033[Kreading: %d files, %.1f MiB  %s", pr.Files, float64(pr.Bytes)/(1<<20), path)
	}
}

func (p *progress) done() { fmt.Fprint(p.w, "\r\033[K") }

// parseSize reads a byte count: a number, or one with KiB, MiB or GiB.
func parseSize(s string) (int64, error) {
	num, unit := strings.TrimSpace(s), int64(1)
	for suffix, u := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(num, suffix); ok {
			num, unit = strings.TrimSpace(n), u
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("%q is not a size (bytes, or with KiB, MiB or GiB)", s)
	}
	return n * unit, nil
}
