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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/detectors"
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
	f.Duration("alertmanager.backoff-max", alertmanager.DefaultBackoffMax, "longest wait before retrying an Alertmanager that failed (the wait doubles from 1s per failure)")
	f.String("cluster", "", "cluster label of the alerts")
	f.String("runbook-base", "", "runbook URL prefix; the detector's name is appended")
	f.Duration("poll", time.Second, "how often the files are read")
	f.Duration("lateness", 2*time.Second, "how far a record may come behind the other files' newest and still take its place in event-time order;\n"+
		"an alert comes this long after its signature's last line")
	f.Duration("idle-flush", 2*time.Second, "how long a file may stay quiet before its last record is taken as complete\n"+
		"(log4j writes a record, stack trace included, in one write)")
	f.Duration("checkpoint-interval", 30*time.Second, "how often the state is written")
	f.Int64("look-back", 1<<20, "bytes of each file the first start reads back")
	f.String("tz", "UTC", "time zone of log timestamps (IANA name)")
	f.StringSlice("option", nil, "detector option DETECTOR.OPTION=VALUE (repeatable; see ozdoctor explain)")
	f.Bool("json", true, "write every alert transition as a JSON line on stdout")
	f.Bool("check-config", false, "check the configuration and exit")
	f.String("web.config.file", "", "TLS and basic authentication of the HTTP endpoints, in the format of Prometheus' exporters\n"+
		"(https://prometheus.io/docs/prometheus/latest/configuration/https/); certificates and users are re-read on every connection")
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

// watchSetup is a checked configuration of watch.
type watchSetup struct {
	cfg       daemon.Config
	listen    string
	webConfig string // --web.config.file
	what      string // what it reads, for people
}

// watchConfig reads and checks the configuration (usage errors name the key).
func watchConfig(cmd *cobra.Command, v *viper.Viper) (*watchSetup, error) {
	zone, err := time.LoadLocation(v.GetString("tz"))
	if err != nil {
		return nil, usageErrorf("--tz: %w", err)
	}
	regs, _, err := loadDetectors(v)
	if err != nil {
		return nil, err
	}
	opt := analysis.Options{Zone: zone, Detectors: regs, Lateness: v.GetDuration("lateness")}
	kv, err := keyValues(v.GetStringSlice("option"))
	if err != nil {
		return nil, usageErrorf("--option: %w", err)
	}
	if opt.DetectorOptions, err = detectors.ValidateOptions(opt.Detectors, kv); err != nil {
		return nil, usageErrorf("--option: %w", err)
	}
	esCfg, fromES, err := esConfig(v, time.Time{}, time.Time{})
	if err != nil {
		return nil, usageErrorf("%w", err)
	}
	clusters, _ := esClusters(v) // checked by esConfig
	if len(clusters) > 0 && oneCluster(clusters) == "" {
		return nil, usageErrorf("--es.cluster: watch reads one cluster; run one watch per cluster")
	}
	logs := v.GetStringSlice("logs")
	switch {
	case fromES && v.IsSet("logs"):
		return nil, usageErrorf("--logs and --es.url: follow files or read Elasticsearch, not both")
	case fromES:
		logs = nil
	case len(logs) == 0:
		return nil, usageErrorf("--logs: no file to follow")
	}
	for _, key := range []string{"poll", "lateness", "idle-flush", "checkpoint-interval", "es.poll", "es.settle", "es.look-back", "prom.interval", "prom.timeout", "alertmanager.backoff-max"} {
		if v.GetDuration(key) <= 0 {
			return nil, usageErrorf("--%s: must be positive, got %s", key, v.GetString(key))
		}
	}
	listen := v.GetString("listen")
	if listen != "" {
		if _, _, err := net.SplitHostPort(listen); err != nil {
			return nil, usageErrorf("--listen: %w", err)
		}
	}
	cfg := daemon.Config{Logs: logs, StateDir: v.GetString("state-dir"), Poll: v.GetDuration("poll"),
		CheckpointEvery: v.GetDuration("checkpoint-interval"), LookBack: v.GetInt64("look-back"), IdleFlush: v.GetDuration("idle-flush"), Pipeline: opt,
		Alertmanager: alertmanager.Config{URLs: v.GetStringSlice("alertmanager.url"), Cluster: v.GetString("cluster"),
			RunbookBase: v.GetString("runbook-base"), BackoffMax: v.GetDuration("alertmanager.backoff-max")},
		Version: version, Log: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))}
	findingsCluster := oneCluster(clusters)
	if findingsCluster == "" {
		findingsCluster = v.GetString("cluster")
	}
	if cfg.ESFindings, err = esFindingsConfig(v, findingsCluster); err != nil {
		return nil, usageErrorf("%w", err)
	}
	if fromES {
		cfg.ES = &daemon.ESConfig{Source: esCfg, Poll: v.GetDuration("es.poll"), Settle: v.GetDuration("es.settle"),
			LookBack: v.GetDuration("es.look-back")}
	}
	if cfg.Scrape, err = scrapeConfig(v); err != nil {
		return nil, usageErrorf("%w", err)
	}
	if v.GetBool("json") {
		cfg.Findings = cmd.OutOrStdout()
	}
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
	webConfig := v.GetString("web.config.file")
	if webConfig != "" {
		if err := web.Validate(webConfig); err != nil {
			return nil, usageErrorf("--web.config.file: %w", err)
		}
		what += ", endpoints secured by " + webConfig
	}
	return &watchSetup{cfg: cfg, listen: listen, webConfig: webConfig, what: what}, nil
}

func runWatch(cmd *cobra.Command, v *viper.Viper) error {
	setup, err := watchConfig(cmd, v)
	if err != nil {
		return err
	}
	if v.GetBool("check-config") {
		fmt.Fprintf(cmd.OutOrStdout(), "configuration ok: %s, state in %s, %d Alertmanager(s)\n",
			setup.what, setup.cfg.StateDir, len(setup.cfg.Alertmanager.URLs))
		return nil
	}
	log := setup.cfg.Log
	d, err := daemon.New(setup.cfg)
	if err != nil {
		return &exitError{code: exitInternal, err: err}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var live liveHandler
	live.set(d.Handler())
	if setup.listen != "" {
		srv := &http.Server{Handler: &live, ReadHeaderTimeout: 10 * time.Second}
		systemd := false
		flags := &web.FlagConfig{WebListenAddresses: &[]string{setup.listen}, WebSystemdSocket: &systemd, WebConfigFile: &setup.webConfig}
		go func() {
			if err := web.ListenAndServe(srv, flags, log); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("http", "err", err)
				stop()
			}
		}()
		defer srv.Close()
	}
	log.Info("watching", "what", setup.what, "listen", setup.listen, "state", setup.cfg.StateDir)
	for {
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- d.Run(runCtx) }()
		var next *watchSetup
		for next == nil {
			select {
			case err := <-done:
				cancel()
				if err != nil {
					return &exitError{code: exitInternal, err: err}
				}
				return nil
			case <-hup:
				next = reloadWatch(cmd, v, setup, log)
			}
		}
		// The running daemon writes its checkpoint and stops; the new one
		// starts from it.
		cancel()
		if err := <-done; err != nil {
			log.Error("checkpoint before the reload", "err", err)
		}
		nd, err := daemon.New(next.cfg)
		if err != nil {
			log.Error("reload failed, going on with the previous configuration", "err", err)
			if nd, err = daemon.New(setup.cfg); err != nil {
				return &exitError{code: exitInternal, err: err}
			}
			next = setup
		}
		d, setup = nd, next
		live.set(d.Handler())
		log.Info("reloaded", "what", setup.what, "state", setup.cfg.StateDir)
	}
}

// reloadWatch reads the configuration again on SIGHUP; it returns nil,
// saying why, when the new one is not valid or cannot be applied without a
// restart.
func reloadWatch(cmd *cobra.Command, v *viper.Viper, old *watchSetup, log *slog.Logger) *watchSetup {
	if path := v.GetString("config"); path != "" {
		if err := v.ReadInConfig(); err != nil {
			log.Error("reload refused, the running configuration stays", "err", err)
			return nil
		}
	}
	next, err := watchConfig(cmd, v)
	switch {
	case err != nil:
		log.Error("reload refused, the running configuration stays", "err", err)
		return nil
	case next.listen != old.listen || next.webConfig != old.webConfig:
		log.Error("reload refused: the listen address and --web.config.file change only with a restart")
		return nil
	}
	next.cfg.Log = old.cfg.Log
	return next
}

// liveHandler serves the running daemon's endpoints; a reload swaps it.
type liveHandler struct{ h atomic.Pointer[http.Handler] }

func (l *liveHandler) set(h http.Handler) { l.h.Store(&h) }

func (l *liveHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*l.h.Load()).ServeHTTP(w, r)
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
