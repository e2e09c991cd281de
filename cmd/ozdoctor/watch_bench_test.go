package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/amtest"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// BenchmarkWatch10kLinesPerSecond runs the watch binary next to logs a
// 20-host cluster writes at about 10,000 lines a second for three minutes
// (OZDOCTOR_BENCH_WATCH overrides the duration), with HDDS-16809 (warning
// at the unsafe deletion, critical at the forced delete) in it, alerting a
// real Alertmanager. It reports the daemon's CPU (percent of one core), its
// peak RSS, the lines written per second, and the latency from each
// signature's completing line to its alert in Alertmanager's API. One
// iteration: the figures are the run's, not per operation.
func BenchmarkWatch10kLinesPerSecond(b *testing.B) {
	dur := 3 * time.Minute
	if v := os.Getenv("OZDOCTOR_BENCH_WATCH"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		dur = d
	}
	hook := &amtest.Webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := amtest.New(b, hs.URL)
	bin := buildOzdoctor(b)

	const hosts, rate = 20, 10000 // lines a second
	start := time.Now().UTC().Truncate(time.Second).Add(20 * time.Second)
	s := scenario.New(11, start, dur, scenario.NewCluster(rand.New(rand.NewSource(11)), 3, 3, hosts-6))
	scripts.All()["hdds16809/force-delete-deleting"](s, start.Add(30*time.Second))
	src, logs, state := b.TempDir(), b.TempDir(), b.TempDir()
	if err := s.Render(src, scenario.Render{Noise: rate * 60 / hosts}); err != nil {
		b.Fatal(err)
	}
	completing := signatureLines(b, src, "Deleting empty QUASI_CLOSED container", "Sending forceDeleteContainerCommand")
	rp, err := scenario.NewReplay(src, logs)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "watch", "--logs", filepath.Join(logs, "*", "*.log"), "--state-dir", state, "--listen", "",
		"--json=false", "--alertmanager.url", am.URL(), "--cluster", "bench")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Process.Kill()
	time.Sleep(time.Until(start))
	b.ResetTimer()
	ctx, stop := context.WithCancel(context.Background())
	written := make(chan int)
	go func() {
		lines := 0
		for ctx.Err() == nil {
			n, err := rp.Until(time.Now())
			if err != nil {
				b.Error(err)
			}
			lines += n
			time.Sleep(50 * time.Millisecond)
		}
		written <- lines
	}()
	cpu0, t0 := cpuSeconds(b, cmd.Process.Pid), time.Now()
	seen := map[string]time.Time{} // severity -> first seen active
	for time.Since(start) < dur {
		for _, a := range am.Alerts(b) {
			if sev := a.Labels["severity"]; a.Labels["defect"] == "HDDS-16809" && seen[sev].IsZero() {
				seen[sev] = time.Now()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	lines := <-written
	cpu, elapsed := cpuSeconds(b, cmd.Process.Pid)-cpu0, time.Since(t0)
	b.StopTimer()
	b.ReportMetric(100*cpu/elapsed.Seconds(), "%cpu")
	b.ReportMetric(float64(peakRSS(b, cmd.Process.Pid))/(1<<20), "MiB-peak-RSS")
	b.ReportMetric(float64(lines)/elapsed.Seconds(), "lines/s")
	for i, sev := range []string{"warning", "critical"} {
		if seen[sev].IsZero() {
			b.Errorf("no %s alert for HDDS-16809 in Alertmanager", sev)
			continue
		}
		b.ReportMetric(seen[sev].Sub(completing[i]).Seconds(), "s-latency-"+sev)
	}
}

// signatureLines returns the time of the first line holding each of texts
// in the rendered logs under dir.
func signatureLines(b *testing.B, dir string, texts ...string) []time.Time {
	out := make([]time.Time, len(texts))
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".log") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			for i, text := range texts {
				if m := stampRe.FindString(sc.Text()); m != "" && out[i].IsZero() && strings.Contains(sc.Text(), text) {
					out[i], _ = time.Parse("2006-01-02 15:04:05,000", m)
				}
			}
		}
		return sc.Err()
	})
	for i, t := range out {
		if t.IsZero() {
			b.Fatalf("no line holds %q", texts[i])
		}
	}
	return out
}

var stampRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}`)

// cpuSeconds is the user and system CPU time process pid used so far.
func cpuSeconds(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// pid (comm) state ...: utime and stime are the 12th and 13th fields
	// after the comm's closing parenthesis.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.ParseFloat(fields[11], 64)
	st, _ := strconv.ParseFloat(fields[12], 64)
	return (ut + st) / 100 // clock ticks: USER_HZ is 100 on Linux
}

// peakRSS is process pid's peak resident set (VmHWM), in bytes.
func peakRSS(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmHWM")
	return 0
}
