// Package metrics exports what the ozdoctor daemon does as Prometheus
// metrics for its /metrics endpoint, on a registry of its own (never the
// default one): the alerts active and pending, computed exactly from the
// engine's transitions by fingerprint; the transitions themselves; and the
// daemon's runtime figures (signals, records, bytes and parse errors by
// source, detector state sizes, source lag, merger queue, /prom scrapes,
// checkpoints, reloads), which it reads at scrape time from the last Stats
// the daemon gave with Update.
//
// Wiring: subscribe Observe to the engine (after a restart from a
// checkpoint, give the engine's remembered alerts to SetAlerts first); call
// Update with fresh Stats from the daemon's loop (every second or so); add
// the collectors of the other sinks (alertmanager.Collector,
// elasticsearch.Collector) to Registry; serve Handler on /metrics.
package metrics

import (
	"context"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// Options configure Metrics.
type Options struct {
	// Version is the build_info version label ("" gives "unknown").
	Version string
	// Detectors are the docs of the detectors that run: their series of
	// pending alerts and transitions start at 0, so that rates and
	// absences mean something from the first scrape.
	Detectors []detectors.Doc
	// NoRuntime leaves out the Go runtime and process collectors
	// (go_*, process_*), which are registered by default.
	NoRuntime bool
}

// Stats are the daemon's runtime figures as of one moment. Counters are
// cumulative since the daemon started.
type Stats struct {
	Signals      map[string]int64 // signals recognised, by catalogue kind
	Sources      []Source
	States       []DetectorState
	MergerQueued int // signals held by the merger, waiting for their turn
	Scrapes      []Scrape
	Engine       detectors.EngineStats
	// Checkpoint is how the state's checkpoints went (nil without a state
	// directory).
	Checkpoint *Checkpoint
	// Reload is how the last reload of the signatures went (nil when the
	// daemon cannot be reloaded).
	Reload *Reload
}

// Reload is the outcome of the last reload of the configuration and
// signatures, the way Prometheus reports its own.
type Reload struct {
	Success     bool
	LastSuccess time.Time // the start counts as one
}

// Checkpoint counts the daemon's checkpoints.
type Checkpoint struct {
	LastSuccess time.Time // zero before the first
	Failures    int64
}

// Source is one input: a followed log file (or glob), an Elasticsearch
// query, a /prom endpoint.
type Source struct {
	Name                        string
	Records, Bytes, ParseErrors int64
	// Lag is how far the source's newest event time is behind the wall
	// clock.
	Lag time.Duration
}

// DetectorState is the retained state of one detector
// (detectors.Detector.StateStats).
type DetectorState struct {
	Detector string
	Stats    []detectors.StateStat
}

// Scrape is the last scrape of one /prom target.
type Scrape struct {
	Target   string
	Up       bool
	Duration time.Duration
	Failures int64
}

// Metrics is the daemon's metrics. Observe, SetAlerts and Update may be
// called from other goroutines than the one serving Handler.
type Metrics struct {
	opt Options
	reg *prometheus.Registry

	mu          sync.Mutex
	alerts      map[string]alertKey // pending and firing, by fingerprint
	seen        map[activeKey]bool  // active series shown so far (kept at 0 once resolved)
	detectors   map[string]bool     // pending series shown so far
	transitions map[transitionKey]int64
	escalations map[string]int64
	stats       Stats
}

type alertKey struct {
	activeKey
	state detectors.State
}

type activeKey struct{ detector, defect, severity string }

type transitionKey struct{ detector, to string }

// transition targets counted, in order.
var targets = []detectors.State{detectors.Pending, detectors.Firing, detectors.Resolved, detectors.Inactive}

// New returns the daemon's metrics on a registry of their own.
func New(opt Options) *Metrics {
	if opt.Version == "" {
		opt.Version = "unknown"
	}
	m := &Metrics{opt: opt, reg: prometheus.NewRegistry(), alerts: map[string]alertKey{}, seen: map[activeKey]bool{},
		detectors: map[string]bool{}, transitions: map[transitionKey]int64{}, escalations: map[string]int64{}}
	for _, d := range opt.Detectors {
		m.detectors[d.Name] = true
		for _, to := range targets {
			m.transitions[transitionKey{d.Name, string(to)}] += 0
		}
		m.escalations[d.Name] += 0
	}
	m.reg.MustRegister(collector{m})
	if !opt.NoRuntime {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registry returns the private registry, to gather or to add to.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in Prometheus' exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Observe takes one transition of the engine.
func (m *Metrics) Observe(t detectors.Transition) {
	f := t.Finding
	m.mu.Lock()
	defer m.mu.Unlock()
	m.detectors[f.Detector] = true
	if t.From != t.To {
		m.transitions[transitionKey{f.Detector, string(t.To)}]++
	}
	if t.Escalated {
		m.escalations[f.Detector]++
	}
	m.escalations[f.Detector] += 0
	switch t.To {
	case detectors.Pending, detectors.Firing:
		k := alertKey{activeKey{f.Detector, f.Defect, f.Severity.String()}, t.To}
		m.alerts[t.Fingerprint] = k
		if t.To == detectors.Firing {
			m.seen[k.activeKey] = true
		}
	default: // resolved, or withdrawn
		delete(m.alerts, t.Fingerprint)
	}
}

// Tick implements sinks.Output: the metrics are read when scraped.
func (m *Metrics) Tick(context.Context, time.Time) {}

// SetAlerts replaces the alerts known with the engine's (Engine.Alerts),
// as after a restart from a checkpoint, whose alerts bring no transition.
// Calling it now and then from the engine's goroutine also reconciles the
// gauges with alerts the engine forgot beyond its MaxAlerts, which no
// transition reports.
func (m *Metrics) SetAlerts(fs []detectors.Finding) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.alerts = map[string]alertKey{}
	for _, f := range fs {
		if f.State != detectors.Pending && f.State != detectors.Firing {
			continue
		}
		k := alertKey{activeKey{f.Detector, f.Defect, f.Severity.String()}, f.State}
		m.alerts[detectors.Fingerprint(f.Detector, f.Key)] = k
		m.detectors[f.Detector] = true
		if f.State == detectors.Firing {
			m.seen[k.activeKey] = true
		}
	}
}

// Update replaces the runtime figures shown from the next scrape on.
func (m *Metrics) Update(s Stats) {
	s.Signals = maps.Clone(s.Signals)
	s.Sources = slices.Clone(s.Sources)
	s.States = slices.Clone(s.States)
	s.Scrapes = slices.Clone(s.Scrapes)
	m.mu.Lock()
	m.stats = s
	m.mu.Unlock()
}

var (
	descActive = prometheus.NewDesc("ozdoctor_alert_active",
		"Alerts firing now, by detector, defect and severity.", []string{"detector", "defect", "severity"}, nil)
	descPending = prometheus.NewDesc("ozdoctor_alert_pending",
		"Alerts pending now (part of a defect's signature seen, its confirmation not yet due), by detector.", []string{"detector"}, nil)
	descTransitions = prometheus.NewDesc("ozdoctor_alert_transitions_total",
		"Alert state changes, by detector and state entered (pending, firing, resolved, inactive for a withdrawn pending alert).",
		[]string{"detector", "to"}, nil)
	descEscalations = prometheus.NewDesc("ozdoctor_alert_escalations_total",
		"Alerts whose severity rose while they stayed in their state, by detector.", []string{"detector"}, nil)
	descSignals = prometheus.NewDesc("ozdoctor_signals_total",
		"Signals recognised in the input by the message catalogue, by kind.", []string{"kind"}, nil)
	descRecords = prometheus.NewDesc("ozdoctor_records_read_total",
		"Records (log records or metric samples) read, by source.", []string{"source"}, nil)
	descBytes = prometheus.NewDesc("ozdoctor_bytes_read_total",
		"Bytes read, by source.", []string{"source"}, nil)
	descParseErrors = prometheus.NewDesc("ozdoctor_parse_errors_total",
		"Lines or samples that could not be parsed, by source.", []string{"source"}, nil)
	descLag = prometheus.NewDesc("ozdoctor_source_lag_seconds",
		"How far a source's newest event time is behind the wall clock.", []string{"source"}, nil)
	descStateEntries = prometheus.NewDesc("ozdoctor_state_entries",
		"Entries a detector retains in one bounded part of its state.", []string{"detector", "state"}, nil)
	descStateLimit = prometheus.NewDesc("ozdoctor_state_limit",
		"Bound on the entries of one part of a detector's state.", []string{"detector", "state"}, nil)
	descStateEvicted = prometheus.NewDesc("ozdoctor_state_evicted_total",
		"Entries evicted from one part of a detector's state to stay within its bound.", []string{"detector", "state"}, nil)
	descMerger = prometheus.NewDesc("ozdoctor_merger_queued_signals",
		"Signals held by the merger until every source's watermark passes them.", nil, nil)
	descLate = prometheus.NewDesc("ozdoctor_engine_late_signals_total",
		"Signals that reached the engine after its clock had passed their time.", nil, nil)
	descExpired = prometheus.NewDesc("ozdoctor_engine_alerts_expired_total",
		"Resolved alerts the engine forgot after their retention.", nil, nil)
	descEvicted = prometheus.NewDesc("ozdoctor_engine_alerts_evicted_total",
		"Alerts the engine forgot to stay within its bound on alerts.", nil, nil)
	descScrapeUp = prometheus.NewDesc("ozdoctor_scrape_up",
		"Whether the last scrape of a /prom target succeeded (1) or not (0).", []string{"target"}, nil)
	descScrapeDuration = prometheus.NewDesc("ozdoctor_scrape_duration_seconds",
		"Duration of the last scrape of a /prom target.", []string{"target"}, nil)
	descScrapeFailures = prometheus.NewDesc("ozdoctor_scrape_failures_total",
		"Scrapes of a /prom target that failed (refused, timed out, an answer other than 200, no readable sample).", []string{"target"}, nil)
	descCheckpointLast = prometheus.NewDesc("ozdoctor_checkpoint_last_success_timestamp_seconds",
		"When the state was last written to the state directory (0 before the first time).", nil, nil)
	descCheckpointFailures = prometheus.NewDesc("ozdoctor_checkpoint_failures_total",
		"Checkpoints that could not be written (state directory read-only, full or gone): a restart would lose what came since the last one.", nil, nil)
	descReloadSuccess = prometheus.NewDesc("ozdoctor_signatures_reload_success",
		"Whether the last reload of the configuration and signatures (SIGHUP, POST /-/reload, a change in a signatures directory) succeeded (1) or was refused and the previous set runs on (0).", nil, nil)
	descReloadLast = prometheus.NewDesc("ozdoctor_signatures_last_reload_success_timestamp_seconds",
		"When the configuration and signatures were last loaded successfully (the start counts).", nil, nil)
	descBuild = prometheus.NewDesc("ozdoctor_build_info",
		"A metric with a constant 1 labelled by the version of ozdoctor and the Go version that built it.",
		[]string{"version", "goversion"}, nil)
)

// collector reads the figures at scrape time.
type collector struct{ m *Metrics }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descActive, descPending, descTransitions, descEscalations, descSignals,
		descRecords, descBytes, descParseErrors, descLag, descStateEntries, descStateLimit, descStateEvicted,
		descMerger, descLate, descExpired, descEvicted, descScrapeUp, descScrapeDuration, descScrapeFailures,
		descCheckpointLast, descCheckpointFailures, descReloadSuccess, descReloadLast, descBuild} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	gauge := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv...)
	}
	counter := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, lv...)
	}
	m.mu.Lock()
	active := map[activeKey]int{}
	pending := map[string]int{}
	for k := range m.seen {
		active[k] += 0
	}
	for d := range m.detectors {
		pending[d] += 0
	}
	for _, a := range m.alerts {
		if a.state == detectors.Firing {
			active[a.activeKey]++
		} else {
			pending[a.detector]++
		}
	}
	transitions := maps.Clone(m.transitions)
	escalations := maps.Clone(m.escalations)
	s := m.stats
	m.mu.Unlock()

	for k, n := range active {
		gauge(descActive, float64(n), k.detector, k.defect, k.severity)
	}
	for d, n := range pending {
		gauge(descPending, float64(n), d)
	}
	for k, n := range transitions {
		counter(descTransitions, float64(n), k.detector, k.to)
	}
	for d, n := range escalations {
		counter(descEscalations, float64(n), d)
	}
	for k, n := range s.Signals {
		counter(descSignals, float64(n), k)
	}
	for _, src := range dedupe(s.Sources, func(x Source) string { return x.Name }) {
		counter(descRecords, float64(src.Records), src.Name)
		counter(descBytes, float64(src.Bytes), src.Name)
		counter(descParseErrors, float64(src.ParseErrors), src.Name)
		gauge(descLag, src.Lag.Seconds(), src.Name)
	}
	for _, ds := range dedupe(s.States, func(x DetectorState) string { return x.Detector }) {
		for _, st := range dedupe(ds.Stats, func(x detectors.StateStat) string { return x.Name }) {
			gauge(descStateEntries, float64(st.Entries), ds.Detector, st.Name)
			gauge(descStateLimit, float64(st.Limit), ds.Detector, st.Name)
			counter(descStateEvicted, float64(st.Evicted), ds.Detector, st.Name)
		}
	}
	gauge(descMerger, float64(s.MergerQueued))
	counter(descLate, float64(s.Engine.Late))
	counter(descExpired, float64(s.Engine.Expired))
	counter(descEvicted, float64(s.Engine.Evicted))
	for _, sc := range dedupe(s.Scrapes, func(x Scrape) string { return x.Target }) {
		up := 0.0
		if sc.Up {
			up = 1
		}
		gauge(descScrapeUp, up, sc.Target)
		gauge(descScrapeDuration, sc.Duration.Seconds(), sc.Target)
		counter(descScrapeFailures, float64(sc.Failures), sc.Target)
	}
	if c := s.Checkpoint; c != nil {
		last := 0.0
		if !c.LastSuccess.IsZero() {
			last = float64(c.LastSuccess.UnixMilli()) / 1000
		}
		gauge(descCheckpointLast, last)
		counter(descCheckpointFailures, float64(c.Failures))
	}
	if r := s.Reload; r != nil {
		ok := 0.0
		if r.Success {
			ok = 1
		}
		gauge(descReloadSuccess, ok)
		gauge(descReloadLast, float64(r.LastSuccess.UnixMilli())/1000)
	}
	gauge(descBuild, 1, m.opt.Version, runtime.Version())
}

// dedupe keeps the first of each name: a registry refuses a scrape with
// two series of the same labels.
func dedupe[T any](xs []T, name func(T) string) []T {
	seen := make(map[string]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if n := name(x); !seen[n] {
			seen[n] = true
			out = append(out, x)
		}
	}
	return out
}
