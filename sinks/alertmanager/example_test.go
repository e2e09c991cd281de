package alertmanager_test

import (
	"context"
	"log"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/sinks/alertmanager"
)

// How a daemon wires the sink: Observe subscribed to the engine, Tick on a
// ticker with the wall clock, Stats read by the metrics.
func Example() {
	var docs []detectors.Doc
	for _, r := range registry.All() {
		docs = append(docs, r.Doc)
	}
	env := &detectors.Env{} // the daemon's Env (settings, identities, options)
	engine, err := detectors.NewEngineWith(registry.All(), env, detectors.EngineOptions{})
	if err != nil {
		log.Fatal(err)
	}
	sink, err := alertmanager.New(alertmanager.Config{
		URLs:        []string{"http://127.0.0.1:9093"},
		Cluster:     "prod-ozone",
		RunbookBase: "https://example.org/ozdoctor/runbooks/",
		Docs:        docs,
		StateDir:    "/var/lib/ozdoctor",
	})
	if err != nil {
		log.Fatal(err)
	}
	// The engine hands on its findings finalized (remediation filled,
	// datanodes completed), as the sink sends them.
	engine.Subscribe(sink.Observe) // or analysis.Options{Subscribe: ...}

	// Call Observe (and so the engine) from one goroutine; Tick may run in
	// its own.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case now := <-tick.C:
			sink.Tick(context.Background(), now)
		case <-ctx.Done():
			return
		}
	}
}
