package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/daemon"
	"github.com/ozdoctor/ozdoctor/sinks/alertmanager"
)

// defaultLogs are Ozone's log files in its default log directory.
func defaultLogs() []string {
	return []string{"/var/log/ozone/ozone-*.log", "/var/log/ozone/*.out",
		"/var/log/ozone/*-audit*.log", "/var/log/ozone/dn-container*.log"}
}

func newWatchCmd(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch [flags]",
		Short: "Run as a sidecar: follow an Ozone service's logs and alert as defects happen",
		Long: `Follow the log files of the Ozone services on this host through rotation, run the
detectors on them as they are written, and raise alerts as soon as a defect's
signature completes: to Alertmanager (--alertmanager.url), as JSON lines on stdout,
and on /metrics for Prometheus. /alerts lists the current alerts as JSON, /healthz
and /readyz tell whether the daemon runs and has read its files once.

The state (positions in the files, the detectors' state, the alerts, the queue to
Alertmanager) is written to --state-dir every --checkpoint-interval and on SIGTERM:
a restarted daemon continues where it stopped. The first start reads back
--look-back bytes of every file.

With --es.url it reads one cluster's logs from Elasticsearch instead of files: every
--es.poll it reads the window from where it stopped to --es.settle before now (the
shippers' delivery delay), so it raises an alert --es.settle after the signature
completes. Its position in event time is part of the checkpoint.`,
		Example: `  ozdoctor watch --logs '/var/log/ozone/*.log' --alertmanager.url http://alertmanager:9093 --cluster prod1
  ozdoctor watch --config /etc/ozdoctor/watch.yaml --check-config
  ozdoctor watch --es.url https://es1:9200 --es.index 'filebeat-*' --es.cluster prod1 --cluster prod1 \
    --alertmanager.url http://alertmanager:9093`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWatch(cmd, v) },
	}
	f := cmd.Flags()
	f.StringSlice("logs", defaultLogs(), "glob of log files to follow (repeatable)")
	f.String("listen", "127.0.0.1:9794", "address of the HTTP endpoints (/metrics, /alerts, /healthz, /readyz); empty: none")
	f.String("state-dir", "/var/lib/ozdoctor", "directory of the checkpoint and the Alertmanager queue")
	f.StringSlice("alertmanager.url", nil, "Alertmanager base URL (repeatable)")
	f.String("cluster", "", "cluster label of the alerts")
	f.String("runbook-base", "", "runbook URL prefix; the detector's name is appended")
	f.Duration("poll", time.Second, "how often the files are read")
	f.Duration("checkpoint-interval", 30*time.Second, "how often the state is written")
	f.Int64("look-back", 1<<20, "bytes of each file the first start reads back")
	f.String("tz", "UTC", "time zone of log timestamps (IANA name)")
	f.StringSlice("option", nil, "detector option DETECTOR.OPTION=VALUE (repeatable; see ozdoctor explain)")
	f.Bool("json", true, "write every alert transition as a JSON line on stdout")
	f.Bool("check-config", false, "check the configuration and exit")
	f.StringSlice("prom.url", nil, "scrape this /prom endpoint of a local Ozone service, [COMPONENT=]URL with COMPONENT scm, om or datanode\n"+
		"(default: told by Ozone's default ports 9876, 9874, 9882) (repeatable)")
	f.Duration("prom.interval", 30*time.Second, "how often the /prom endpoints are scraped")
	f.Duration("prom.timeout", 10*time.Second, "timeout of one scrape")
	f.String("prom.token-file", "", "file holding the bearer token the endpoints require (Ozone's hdds.prometheus.endpoint.token)")
	addESFlags(f)
	addESFindingsFlags(f)
	f.Duration("es.poll", 10*time.Second, "with --es.url: how often the next window of documents is read")
	f.Duration("es.settle", time.Minute, "with --es.url: how far behind the wall clock a window ends (above the shippers' delivery delay)")
	f.Duration("es.look-back", time.Hour, "with --es.url: how far back the first start reads")
	return cmd
}

func runWatch(cmd *cobra.Command, v *viper.Viper) error {
	zone, err := time.LoadLocation(v.GetString("tz"))
	if err != nil {
		return usageErrorf("--tz: %w", err)
	}
	opt := analysis.Options{Zone: zone, Detectors: registry.All()}
	kv, err := keyValues(v.GetStringSlice("option"))
	if err != nil {
		return usageErrorf("--option: %w", err)
	}
	if opt.DetectorOptions, err = detectors.ValidateOptions(opt.Detectors, kv); err != nil {
		return usageErrorf("--option: %w", err)
	}
	esCfg, fromES, err := esConfig(v, time.Time{}, time.Time{})
	if err != nil {
		return usageErrorf("%w", err)
	}
	clusters, _ := esClusters(v) // checked by esConfig
	if len(clusters) > 0 && oneCluster(clusters) == "" {
		return usageErrorf("--es.cluster: watch reads one cluster; run one watch per cluster")
	}
	logs := v.GetStringSlice("logs")
	switch {
	case fromES && v.IsSet("logs"):
		return usageErrorf("--logs and --es.url: follow files or read Elasticsearch, not both")
	case fromES:
		logs = nil
	case len(logs) == 0:
		return usageErrorf("--logs: no file to follow")
	}
	for _, key := range []string{"poll", "checkpoint-interval", "es.poll", "es.settle", "es.look-back", "prom.interval", "prom.timeout"} {
		if v.GetDuration(key) <= 0 {
			return usageErrorf("--%s: must be positive, got %s", key, v.GetString(key))
		}
	}
	listen := v.GetString("listen")
	if listen != "" {
		if _, _, err := net.SplitHostPort(listen); err != nil {
			return usageErrorf("--listen: %w", err)
		}
	}
	cfg := daemon.Config{Logs: logs, StateDir: v.GetString("state-dir"), Poll: v.GetDuration("poll"),
		CheckpointEvery: v.GetDuration("checkpoint-interval"), LookBack: v.GetInt64("look-back"), Pipeline: opt,
		Alertmanager: alertmanager.Config{URLs: v.GetStringSlice("alertmanager.url"), Cluster: v.GetString("cluster"),
			RunbookBase: v.GetString("runbook-base")},
		Version: version, Log: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))}
	findingsCluster := oneCluster(clusters)
	if findingsCluster == "" {
		findingsCluster = v.GetString("cluster")
	}
	if cfg.ESFindings, err = esFindingsConfig(v, findingsCluster); err != nil {
		return usageErrorf("%w", err)
	}
	if fromES {
		cfg.ES = &daemon.ESConfig{Source: esCfg, Poll: v.GetDuration("es.poll"), Settle: v.GetDuration("es.settle"),
			LookBack: v.GetDuration("es.look-back")}
	}
	if cfg.Scrape, err = scrapeConfig(v); err != nil {
		return usageErrorf("%w", err)
	}
	if v.GetBool("json") {
		cfg.Findings = cmd.OutOrStdout()
	}
	if v.GetBool("check-config") {
		what := fmt.Sprintf("%d log pattern(s)", len(logs))
		if fromES {
			what = "Elasticsearch index " + esCfg.Index
		}
		if cfg.ESFindings != nil {
			what += ", findings to Elasticsearch " + strings.Join(cfg.ESFindings.URLs, ",")
		}
		if n := len(cfg.Scrape.Targets); n > 0 {
			what += fmt.Sprintf(", %d /prom endpoint(s)", n)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "configuration ok: %s, state in %s, %d Alertmanager(s)\n",
			what, cfg.StateDir, len(cfg.Alertmanager.URLs))
		return nil
	}
	d, err := daemon.New(cfg)
	if err != nil {
		return &exitError{code: exitInternal, err: err}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if listen != "" {
		srv := &http.Server{Addr: listen, Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				cfg.Log.Error("http", "err", err)
				stop()
			}
		}()
		defer srv.Close()
	}
	if fromES {
		cfg.Log.Info("watching Elasticsearch", "urls", esCfg.URLs, "index", esCfg.Index, "cluster", esCfg.Cluster, "listen", listen, "state", cfg.StateDir)
	} else {
		cfg.Log.Info("watching", "logs", logs, "listen", listen, "state", cfg.StateDir)
	}
	if err := d.Run(ctx); err != nil {
		return &exitError{code: exitInternal, err: err}
	}
	return nil
}

// scrapeConfig reads the prom.* keys.
func scrapeConfig(v *viper.Viper) (daemon.ScrapeConfig, error) {
	c := daemon.ScrapeConfig{Interval: v.GetDuration("prom.interval"), Timeout: v.GetDuration("prom.timeout")}
	for _, t := range v.GetStringSlice("prom.url") {
		target, err := daemon.ParseScrapeTarget(t)
		if err != nil {
			return c, fmt.Errorf("--prom.url: %w", err)
		}
		c.Targets = append(c.Targets, target)
	}
	if file := v.GetString("prom.token-file"); file != "" {
		token, err := os.ReadFile(file)
		if err != nil {
			return c, fmt.Errorf("--prom.token-file: %w", err)
		}
		c.Token = strings.TrimSpace(string(token))
	}
	return c, nil
}
