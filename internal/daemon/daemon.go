// Package daemon runs ozdoctor next to an Ozone service: its sources (the
// service's log files followed through rotation, or windows of an
// Elasticsearch index, and /prom pages) feed the streaming pipeline on the
// wall clock (internal/analysis). It hands every alert transition to the
// sinks (Alertmanager, /metrics, JSON lines), serves the alerts over HTTP,
// and checkpoints its state in a directory so that a restart continues
// where it stopped.
package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/report"
	"github.com/ozdoctor/ozdoctor/sinks"
	"github.com/ozdoctor/ozdoctor/sinks/alertmanager"
	"github.com/ozdoctor/ozdoctor/sinks/elasticsearch"
	"github.com/ozdoctor/ozdoctor/sinks/metrics"
	"github.com/ozdoctor/ozdoctor/store/atomicfile"
)

// Config configures a daemon. Zero durations take their defaults.
type Config struct {
	Logs []string // globs of the log files to follow
	// ES, instead of Logs, reads one cluster's logs from Elasticsearch.
	ES *ESConfig
	// Scrape, if it has targets, scrapes the services' /prom.
	Scrape   ScrapeConfig
	StateDir string // checkpoint and Alertmanager queue; "" keeps nothing across restarts
	// Poll is how often the files are read; default 1s.
	Poll time.Duration
	// CheckpointEvery is how often the state is written; default 30s.
	CheckpointEvery time.Duration
	// LookBack is how many bytes of each file the first start reads back;
	// default 1 MiB.
	LookBack int64
	// IdleFlush is how long a file may stay quiet before its open
	// multi-line record is taken as complete; default 5s.
	IdleFlush time.Duration
	// Pipeline holds the detectors, their options, the zone of the logs and
	// the streaming settings; its Subscribe is the daemon's.
	Pipeline analysis.Options
	// Alertmanager, if its URLs are set, receives the alerts.
	Alertmanager alertmanager.Config
	// ESFindings, if set, receives the findings and their transitions
	// (daily ozdoctor-findings indices) through a queue in StateDir.
	ESFindings *elasticsearch.Config
	Version    string
	// Findings, if set, receives every transition as one JSON line.
	Findings io.Writer
	// Now is the wall clock; default time.Now.
	Now func() time.Time
	Log *slog.Logger
	// Reload, if set, tells how the last reload went (for /metrics).
	Reload func() metrics.Reload
	// Reloader, if set, serves POST /-/reload: it reloads and returns why
	// it could not.
	Reloader func() error
}

// Daemon is a running sidecar.
type Daemon struct {
	cfg         Config
	mu          sync.Mutex // the pipeline, its sources and the checkpoint
	pipe        *analysis.Pipeline
	src         liveSource // the followed files, or Elasticsearch
	scraper     *scraper   // nil without scrape targets
	am          *alertmanager.Sink
	esq         *elasticsearch.Queue
	metrics     *metrics.Metrics
	outputs     []sinks.Output // metrics, then Alertmanager, Elasticsearch and JSON lines as configured
	saved       time.Time      // wall time of the last checkpoint attempt
	checkpoints metrics.Checkpoint
	ready       atomic.Bool
}

const checkpointFile = "checkpoint.json"

// New builds a daemon, restoring its checkpoint from cfg.StateDir when one
// is there.
func New(cfg Config) (*Daemon, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.CheckpointEvery <= 0 {
		cfg.CheckpointEvery = 30 * time.Second
	}
	if cfg.LookBack == 0 {
		cfg.LookBack = 1 << 20
	}
	if cfg.IdleFlush <= 0 {
		cfg.IdleFlush = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	switch {
	case len(cfg.Logs) == 0 && cfg.ES == nil:
		return nil, errors.New("no log files to follow (logs) and no Elasticsearch source (es.url)")
	case len(cfg.Logs) > 0 && cfg.ES != nil:
		return nil, errors.New("follow log files (logs) or read Elasticsearch (es.url), not both")
	}
	d := &Daemon{cfg: cfg}
	if len(cfg.Scrape.Targets) > 0 {
		var err error
		if d.scraper, err = newScraper(cfg.Scrape); err != nil {
			return nil, err
		}
	}
	var docs []detectors.Doc
	for _, r := range cfg.Pipeline.Detectors {
		docs = append(docs, r.Doc)
	}
	if len(cfg.Alertmanager.URLs) > 0 {
		amc := cfg.Alertmanager
		amc.Docs, amc.StateDir = docs, cfg.StateDir
		var err error
		if d.am, err = alertmanager.New(amc); err != nil {
			return nil, err
		}
	}
	if cfg.ESFindings != nil {
		sink, err := elasticsearch.New(*cfg.ESFindings)
		if err != nil {
			return nil, err
		}
		if d.esq, err = sink.NewQueue(elasticsearch.QueueConfig{StateDir: cfg.StateDir}); err != nil {
			return nil, err
		}
	}
	d.metrics = metrics.New(metrics.Options{Version: cfg.Version, Detectors: docs})
	if d.am != nil {
		d.metrics.Registry().MustRegister(alertmanager.Collector{Stats: d.am.Stats})
	}
	if d.esq != nil {
		d.metrics.Registry().MustRegister(elasticsearch.Collector{Stats: d.esq.Stats})
	}
	d.outputs = []sinks.Output{d.metrics}
	if d.am != nil {
		d.outputs = append(d.outputs, d.am)
	}
	if d.esq != nil {
		d.outputs = append(d.outputs, d.esq)
	}
	if cfg.Findings != nil {
		d.outputs = append(d.outputs, sinks.TransitionLines{W: cfg.Findings})
	}

	opt := cfg.Pipeline
	opt.Subscribe = d.observe
	opt.NoReport = true // its sinks take transitions; /, /alerts and checkpoints read the engine
	var positions []parsers.Position
	data, err := os.ReadFile(filepath.Join(cfg.StateDir, checkpointFile))
	switch {
	case cfg.StateDir != "" && err == nil:
		var fresh []string
		if d.pipe, positions, fresh, err = analysis.RestorePipeline(opt, data); err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w (move it away to start afresh)", filepath.Join(cfg.StateDir, checkpointFile), err)
		}
		if len(fresh) > 0 {
			cfg.Log.Warn("state not restored (its format changed): these detectors start empty", "detectors", fresh)
		}
		d.pipe.CloseStreams() // the followers open theirs anew
		d.metrics.SetAlerts(d.pipe.Engine().Alerts())
		cfg.Log.Info("resumed from checkpoint", "files", len(positions), "alerts", len(d.pipe.Engine().Alerts()))
	case cfg.StateDir != "" && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("checkpoint: %w", err)
	default:
		if d.pipe, err = analysis.NewPipeline(opt); err != nil {
			return nil, err
		}
	}
	if cfg.ES != nil {
		d.src, err = newESFollow(*cfg.ES, positions)
	} else {
		d.src, err = newFiles(cfg, positions)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// observe hands one transition to every output, in order; the engine calls it.
func (d *Daemon) observe(t detectors.Transition) {
	for _, o := range d.outputs {
		o.Observe(t)
	}
}

// Run follows the files until ctx ends, then writes a last checkpoint.
func (d *Daemon) Run(ctx context.Context) error {
	tick := time.NewTicker(d.cfg.Poll)
	defer tick.Stop()
	if d.scraper != nil {
		scraping, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { d.scrapeLoop(scraping); close(done) }()
		defer func() { stop(); <-done }()
	}
	for {
		if err := d.Step(ctx); err != nil {
			d.cfg.Log.Error("step", "err", err)
		}
		for _, o := range d.outputs {
			o.Tick(ctx, d.cfg.Now())
		}
		select {
		case <-ctx.Done():
			err := d.Checkpoint()
			d.src.close()
			return err
		case <-tick.C:
		}
	}
}

// Step reads what the source gained, recognises it, releases what is due
// and checkpoints when it is time.
func (d *Daemon) Step(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.cfg.Now()
	_, err := d.pipe.Step(ctx, d.src, now)
	errs := []error{err}
	if now.Sub(d.saved) >= d.cfg.CheckpointEvery {
		errs = append(errs, d.checkpoint(now))
	}
	d.metrics.Update(d.stats(now))
	d.ready.Store(true)
	return errors.Join(errs...)
}

func (d *Daemon) stats(now time.Time) metrics.Stats {
	eng := d.pipe.Engine()
	st := metrics.Stats{Engine: eng.Stats(), MergerQueued: d.pipe.Queued()}
	for _, ds := range eng.State() {
		st.States = append(st.States, metrics.DetectorState{Detector: ds.Detector, Stats: ds.Stats})
	}
	st.Sources = d.src.stats()
	if d.scraper != nil {
		for _, t := range d.scraper.targets {
			st.Sources = append(st.Sources, t.source)
			st.Scrapes = append(st.Scrapes, t.stats)
		}
	}
	if d.cfg.StateDir != "" {
		c := d.checkpoints
		st.Checkpoint = &c
	}
	if d.cfg.Reload != nil {
		r := d.cfg.Reload()
		st.Reload = &r
	}
	return st
}

// Checkpoint writes the state now.
func (d *Daemon) Checkpoint() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.checkpoint(d.cfg.Now())
}

// checkpoint writes the state now, counting how it went.
func (d *Daemon) checkpoint(now time.Time) error {
	d.saved = now
	if d.cfg.StateDir == "" {
		return nil
	}
	if err := d.writeCheckpoint(); err != nil {
		d.checkpoints.Failures++
		return fmt.Errorf("checkpoint (a restart would go back to the last one written): %w", err)
	}
	d.checkpoints.LastSuccess = now
	return nil
}

// writeCheckpoint writes the pipeline's state with the source's positions.
func (d *Daemon) writeCheckpoint() error {
	data, err := d.pipe.Checkpoint(d.src.positions())
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(d.cfg.StateDir, checkpointFile), data)
}

// Alerts returns the alerts the engine remembers, finalized.
func (d *Daemon) Alerts() []detectors.Finding {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pipe.Engine().Alerts()
}

// Report is the report of the current state: the alerts that fired or
// resolved (not the pending ones) and what the daemon has read.
func (d *Daemon) Report() *report.Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	findings := []detectors.Finding{}
	for _, f := range d.pipe.Engine().Alerts() {
		if f.State != detectors.Pending {
			findings = append(findings, f)
		}
	}
	r := &report.Result{Findings: detectors.FindingsOf(findings), Coverage: d.pipe.Coverage()}
	r.Coverage.Inputs = d.src.inputs()
	return r
}

// Handler serves / (the HTML report of the current state, read-only),
// /metrics, /alerts (JSON: the alerts the engine remembers, pending,
// firing and recently resolved, in the report's finding shape), /healthz
// and /readyz (ready once the first poll is done), and with Config.Reloader
// POST /-/reload.
func (d *Daemon) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		var b bytes.Buffer
		sink, _ := sinks.New("html", &b)
		if err := sink.Write(d.Report()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b.Bytes())
	})
	mux.Handle("/metrics", d.metrics.Handler())
	mux.HandleFunc("/alerts", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Alerts []detectors.Finding `json:"alerts"`
		}{d.Alerts()})
	})
	if d.cfg.Reloader != nil {
		mux.HandleFunc("/-/reload", func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost && r.Method != http.MethodPut {
				http.Error(w, "POST or PUT to reload", http.StatusMethodNotAllowed)
				return
			}
			if err := d.cfg.Reloader(); err != nil {
				http.Error(w, "reload refused, the running configuration stays:\n"+err.Error(), http.StatusInternalServerError)
				return
			}
			io.WriteString(w, "reloaded\n")
		})
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.ready.Load() {
			http.Error(w, "not ready: first poll not done", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	return mux
}
