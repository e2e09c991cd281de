package metrics_test

import (
	"net/http"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/sinks/alertmanager"
	"github.com/ozdoctor/ozdoctor/sinks/metrics"
)

// How a daemon wires the metrics: Observe subscribed to the engine, Update
// from its loop with fresh figures, Handler on /metrics.
func Example() {
	var docs []detectors.Doc
	for _, r := range registry.All() {
		docs = append(docs, r.Doc)
	}
	engine, _ := detectors.NewEngineWith(registry.All(), &detectors.Env{}, detectors.EngineOptions{})
	am, _ := alertmanager.New(alertmanager.Config{URLs: []string{"http://127.0.0.1:9093"}})

	m := metrics.New(metrics.Options{Version: "v0.1.0", Detectors: docs})
	// The Alertmanager sink exports its queues' metrics itself.
	m.Registry().MustRegister(alertmanager.Collector{Stats: am.Stats})
	m.SetAlerts(engine.Alerts()) // after restoring the engine from a checkpoint
	engine.Subscribe(m.Observe)
	engine.Subscribe(am.Observe)

	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	go http.ListenAndServe("127.0.0.1:9808", mux)

	// In the daemon's loop, on the engine's goroutine, every second or so:
	m.Update(metrics.Stats{
		Signals:      map[string]int64{"NodeStale": 3},
		Sources:      []metrics.Source{{Name: "/var/log/ozone/ozone-hadoop-scm.log", Records: 1000, Bytes: 1 << 20, Lag: 2 * time.Second}},
		MergerQueued: 12,
		Scrapes:      []metrics.Scrape{{Target: "http://127.0.0.1:9876/prom", Up: true, Duration: 30 * time.Millisecond}},
		Engine:       engine.Stats(),
	})
}
