package analysis

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// BenchmarkLongRun streams OZDOCTOR_BENCH_DAYS (default 30) generated days
// of a healthy cluster of 3 SCMs, 4 OMs and 100 datanodes, with one
// incident a day (the scenario scripts in turn), through one live pipeline
// that never ends, and reports the heap after each day: the engine's
// retained state must stay bounded. Each day is rendered, recognised and
// replayed live (10 s steps), then dropped before the heap is measured.
func BenchmarkLongRun(b *testing.B) {
	days := 30
	if v := os.Getenv("OZDOCTOR_BENCH_DAYS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("OZDOCTOR_BENCH_DAYS: %v", err)
		}
		days = n
	}
	noise := 2
	all := scripts.All()
	// The five defects in turn, as in the sample bundle.
	names := []string{"hdds17519/skip-stale", "hdds17425/registered-during-finalization", "hdds17674/stuck-leader",
		"hdds16839/lost-leadership", "hdds16809/force-delete"}
	start := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	cl := scenario.NewCluster(rand.New(rand.NewSource(7)), 3, 4, 100)
	for b.Loop() {
		opt := Options{Detectors: registry.All(), Lateness: 30 * time.Second, Idle: time.Minute}
		var transitions, firing int
		opt.Subscribe = func(t detectors.Transition) {
			if !t.Update() {
				transitions++
			}
			if t.To == detectors.Firing && t.From != detectors.Firing {
				firing++
			}
		}
		p, err := NewPipeline(opt)
		if err != nil {
			b.Fatal(err)
		}
		var peak, first uint64
		for d := 0; d < days; d++ {
			dayStart := start.Add(time.Duration(d) * 24 * time.Hour)
			s := scenario.New(int64(d), dayStart, 24*time.Hour, cl)
			all[names[d%len(names)]](s, dayStart.Add(6*time.Hour))
			dir := b.TempDir()
			if err := s.Render(dir, scenario.Render{Noise: noise, Rotate: true}); err != nil {
				b.Fatal(err)
			}
			rec, err := Record(context.Background(), Options{Inputs: []string{dir}, Detectors: opt.Detectors})
			if err != nil {
				b.Fatal(err)
			}
			if p, _, err = rec.replayInto(p, opt, ReplayPlan{Seed: int64(d), Step: 10 * time.Second, MaxDelay: 5 * time.Second, MaxEvery: 1}); err != nil {
				b.Fatal(err)
			}
			rec = nil
			os.RemoveAll(dir)
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if d == 0 {
				first = ms.HeapAlloc
			}
			peak = max(peak, ms.HeapAlloc)
			// Every day on stderr: a benchmark's log is cut after ten lines.
			fmt.Fprintf(os.Stderr, "day %2d (%s): heap %6.1f MiB, alerts remembered %d, transitions %d, firing %d, queued %d",
				d+1, names[d%len(names)], float64(ms.HeapAlloc)/(1<<20), len(p.engine.Alerts()), transitions, firing, p.merger.Queued())
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(peak-min(first, peak))/(1<<20), "growth-after-day1-MiB")
	}
}
