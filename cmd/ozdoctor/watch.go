package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/daemon"
	"github.com/ozdoctor/ozdoctor/sinks/alertmanager"
	"github.com/ozdoctor/ozdoctor/sinks/metrics"
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
	// signatures are the running signatures' hashes by id; signatureDirs
	// the directories --signatures names, watched for changes.
	signatures    map[string]string
	signatureDirs []string
}

// watchConfig reads and checks the configuration (usage errors name the key).
func watchConfig(cmd *cobra.Command, v *viper.Viper) (*watchSetup, error) {
	zone, err := time.LoadLocation(v.GetString("tz"))
	if err != nil {
		return nil, usageErrorf("--tz: %w", err)
	}
	regs, set, err := loadDetectors(v)
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
	ws := &watchSetup{cfg: cfg, listen: listen, webConfig: webConfig, what: what, signatures: map[string]string{}}
	for _, sig := range set.Signatures {
		ws.signatures[sig.ID] = sig.Hash
	}
	for _, p := range v.GetStringSlice("signatures") {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			ws.signatureDirs = append(ws.signatureDirs, p)
		} else {
			ws.signatureDirs = append(ws.signatureDirs, filepath.Dir(p))
		}
	}
	return ws, nil
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
	rl := newReloads(time.Now())
	setup.cfg.Reload, setup.cfg.Reloader = rl.status, rl.request
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
		changes := watchSignatures(setup.signatureDirs, log)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- d.Run(runCtx) }()
		var next *watchSetup
		var asked chan error // a POST /-/reload waiting for the outcome
		for next == nil {
			var why error
			select {
			case err := <-done:
				cancel()
				changes.close()
				if err != nil {
					return &exitError{code: exitInternal, err: err}
				}
				return nil
			case <-hup:
				next, why = reloadWatch(cmd, v, setup)
			case <-changes.C:
				next, why = reloadWatch(cmd, v, setup)
			case asked = <-rl.requests:
				next, why = reloadWatch(cmd, v, setup)
			}
			if next == nil {
				rl.done(false, time.Now())
				log.Error("reload refused, the running configuration stays", "err", why)
				if asked != nil {
					asked <- why
					asked = nil
				}
			}
		}
		changes.close()
		next.cfg.Reload, next.cfg.Reloader = rl.status, rl.request
		// The running daemon writes its checkpoint and stops; the new one
		// starts from it.
		cancel()
		if err := <-done; err != nil {
			log.Error("checkpoint before the reload", "err", err)
		}
		nd, failed := daemon.New(next.cfg)
		if failed != nil {
			log.Error("reload failed, going on with the previous configuration", "err", failed)
			if nd, err = daemon.New(setup.cfg); err != nil {
				return &exitError{code: exitInternal, err: err}
			}
			next = setup
		} else {
			logSignatureChanges(log, setup.signatures, next.signatures)
		}
		rl.done(failed == nil, time.Now())
		d, setup = nd, next
		live.set(d.Handler())
		log.Info("reloaded", "what", setup.what, "state", setup.cfg.StateDir)
		if asked != nil {
			asked <- failed
		}
	}
}

// reloadWatch reads the configuration and the signatures again; it
// returns nil and why when the new ones are not valid or cannot be applied
// without a restart.
func reloadWatch(cmd *cobra.Command, v *viper.Viper, old *watchSetup) (*watchSetup, error) {
	if path := v.GetString("config"); path != "" {
		if err := v.ReadInConfig(); err != nil {
			return nil, err
		}
	}
	next, err := watchConfig(cmd, v)
	switch {
	case err != nil:
		return nil, err
	case next.listen != old.listen || next.webConfig != old.webConfig:
		return nil, errors.New("the listen address and --web.config.file change only with a restart")
	}
	next.cfg.Log = old.cfg.Log
	return next, nil
}

// logSignatureChanges says which signatures a reload added, removed or
// changed: a changed one (its signals, params, windows or match) starts
// with no open incident; the alerts it raised carry over.
func logSignatureChanges(log *slog.Logger, old, next map[string]string) {
	for _, id := range detectors.SortedKeys(next) {
		switch h, ok := old[id]; {
		case !ok:
			log.Info("signature added", "id", id)
		case h != next[id]:
			log.Info("signature changed: its open incidents start empty, its alerts carry over", "id", id)
		}
	}
	for _, id := range detectors.SortedKeys(old) {
		if _, ok := next[id]; !ok {
			log.Info("signature removed", "id", id)
		}
	}
}

// reloads is how a running watch is asked to reload (POST /-/reload) and
// how its last reload went (for /metrics).
type reloads struct {
	requests chan chan error
	mu       sync.Mutex
	last     metrics.Reload
}

func newReloads(start time.Time) *reloads {
	return &reloads{requests: make(chan chan error), last: metrics.Reload{Success: true, LastSuccess: start}}
}

// request asks for a reload and waits for its outcome.
func (r *reloads) request() error {
	answer := make(chan error, 1)
	r.requests <- answer
	return <-answer
}

func (r *reloads) done(ok bool, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last.Success = ok
	if ok {
		r.last.LastSuccess = at
	}
}

func (r *reloads) status() metrics.Reload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// signatureChanges reports (on C) a change in the signature directories,
// once it has been quiet for a moment (an editor writes a file in steps).
type signatureChanges struct {
	C    chan struct{}
	stop chan struct{}
}

func (c *signatureChanges) close() {
	if c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
}

// watchSignatures watches dirs and their subdirectories; without dirs, or
// when the system refuses a watch (logged), C never fires.
func watchSignatures(dirs []string, log *slog.Logger) *signatureChanges {
	c := &signatureChanges{C: make(chan struct{}, 1)}
	if len(dirs) == 0 {
		return c
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Error("signature directories are not watched for changes (SIGHUP and POST /-/reload still reload)", "err", err)
		return c
	}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
			if err == nil && de.IsDir() {
				if err := w.Add(p); err != nil {
					log.Error("signature directory not watched", "dir", p, "err", err)
				}
			}
			return nil
		})
	}
	c.stop = make(chan struct{})
	go func(stop chan struct{}) {
		defer w.Close()
		const settle = 300 * time.Millisecond
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		for {
			select {
			case <-stop:
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 {
					timer.Reset(settle)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				log.Error("watching signature directories", "err", err)
			case <-timer.C:
				select {
				case c.C <- struct{}{}:
				default:
				}
			}
		}
	}(c.stop)
	return c
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
