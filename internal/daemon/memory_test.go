package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// A daemon that has seen 10,000 incidents over ten weeks of event time
// remembers no more than it did after the first thousand: its alerts are
// forgotten past the retention, and no report collects their findings, so
// neither its heap nor its checkpoint grows with the incidents it saw.
//
// Each incident is a 15 s GC pause of a datanode of its own (long-jvm-pause,
// one alert per service process), pushed on a stream of that datanode
// which then ends, as a rotated-away log does; incidents come ten minutes
// apart, so each fires, resolves after an hour and is forgotten an hour on.
func TestDaemonMemoryStaysFlatOverManyIncidents(t *testing.T) {
	dir := t.TempDir()
	d, err := New(Config{Logs: []string{filepath.Join(dir, "*.log")}, StateDir: dir,
		Pipeline: analysis.Options{Detectors: registry.All()}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	const gap = 10 * time.Minute
	fired, resolved := 0, 0
	d.pipe.Engine().Subscribe(func(tr detectors.Transition) {
		switch {
		case tr.To == detectors.Firing && tr.From != detectors.Firing:
			fired++
		case tr.To == detectors.Resolved && tr.From != detectors.Resolved:
			resolved++
		}
	})
	// One incident's stream, a source of the daemon's pipeline as its files are.
	incident := func(i int) analysis.Source {
		return analysis.SourceFunc(func(_ context.Context, in *analysis.Input, _ time.Time) (bool, error) {
			at := start.Add(time.Duration(i) * gap)
			host := fmt.Sprintf("dn%05d.example.com", i)
			streams := in.Signals()
			id := streams.Open(host, parsers.ComponentDatanode, at)
			// JvmPauseMonitor's line (Ratis JvmPauseMonitor, layouts.md's
			// background lines) as the catalogue decodes it.
			streams.Push(id, catalogue.Signal{Kind: catalogue.JVMPause, Time: at, Host: host, Component: parsers.ComponentDatanode,
				Level: parsers.LevelWarn, Duration: 15 * time.Second,
				Text: "JvmPauseMonitor-" + host + ": Detected pause in JVM or host machine approximately 15.000s with 14.900s GC time."}, at)
			streams.Progress(id, at.Add(time.Second), at)
			streams.Close(id)
			in.Release(at.Add(time.Second))
			return true, nil
		})
	}
	feed := func(from, to int) {
		for i := from; i < to; i++ {
			d.pipe.Step(context.Background(), incident(i), start.Add(time.Duration(i)*gap))
		}
		d.pipe.Release(start.Add(time.Duration(to) * gap))
	}
	measure := func() (heap uint64, checkpoint int) {
		data, err := d.pipe.Checkpoint(nil)
		if err != nil {
			t.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc, len(data)
	}
	feed(0, 1000)
	heap0, cp0 := measure()
	feed(1000, 10000)
	heap1, cp1 := measure()
	t.Logf("after 1,000 incidents: heap %d KiB, checkpoint %d bytes; after 10,000: %d KiB, %d bytes; %d fired, %d resolved",
		heap0>>10, cp0, heap1>>10, cp1, fired, resolved)
	if fired < 9900 || resolved < 9900 {
		t.Fatalf("%d alerts fired and %d resolved, want about 10,000 of each: the incidents did not happen", fired, resolved)
	}
	if alerts := len(d.pipe.Engine().Alerts()); alerts > 50 {
		t.Errorf("the engine remembers %d alerts, want those of the last two hours (about 13)", alerts)
	}
	if cp1 > cp0+cp0/4 {
		t.Errorf("checkpoint grew from %d to %d bytes over 9,000 more incidents", cp0, cp1)
	}
	if heap1 > heap0+8<<20 {
		t.Errorf("heap grew from %d to %d KiB over 9,000 more incidents", heap0>>10, heap1>>10)
	}
}
