package pausestale

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

func TestCases(t *testing.T) { detectortest.Run(t, Registration, "testdata") }

var t0 = time.Date(2026, 8, 23, 10, 20, 0, 0, time.UTC)

const scm1 = "scm1.example.com"

// dns returns n datanodes with distinct UUIDs and hosts.
func dns(n int) []catalogue.Datanode {
	out := make([]catalogue.Datanode, n)
	for i := range out {
		out[i] = catalogue.Datanode{UUID: fmt.Sprintf("%08x-6c1d-4d2f-9f5e-0a1b2c3d4e5f", i+1),
			Host: fmt.Sprintf("dn%d.example.com", i+1), IP: fmt.Sprintf("10.0.2.%d", i+1)}
	}
	return out
}

func pipeOf(i int) string { return fmt.Sprintf("%08x-4f50-6172-8394-a5b6c7d8e9f0", i+1) }

// input collects signals at offsets from t0.
type input struct{ sigs []catalogue.Signal }

func (in *input) add(s catalogue.Signal, at time.Duration) {
	s.Time = t0.Add(at)
	if s.Host == "" {
		s.Host, s.Component = scm1, parsers.ComponentSCM
	}
	s.Text = string(s.Kind)
	s.Origin = parsers.Origin{File: s.Host + ".log", Line: len(in.sigs) + 1}
	in.sigs = append(in.sigs, s)
}

func (in *input) pause(k catalogue.Kind, at, dur time.Duration) {
	in.add(catalogue.Signal{Kind: k, Duration: dur}, at)
}

// stale adds a STALE transition of each datanode (one pipeline each) at at,
// their pipeline closes, and their return after back (HEALTHY READONLY,
// then HEALTHY 3s later); back < 0 means they do not return.
func (in *input) stale(nodes []catalogue.Datanode, at, back time.Duration) {
	for i, d := range nodes {
		in.add(catalogue.Signal{Kind: catalogue.NodeStale, Datanode: d, Pipelines: []string{pipeOf(i)}}, at)
		in.add(catalogue.Signal{Kind: catalogue.PipelineClosed, Pipeline: pipeOf(i)}, at+10*time.Millisecond)
	}
	if back >= 0 {
		in.back(nodes, at+back)
	}
}

func (in *input) back(nodes []catalogue.Datanode, at time.Duration) {
	for i, d := range nodes {
		at := at + time.Duration(i%5)*time.Second
		in.add(catalogue.Signal{Kind: catalogue.NodeHealthyReadonly, Datanode: d}, at)
		in.add(catalogue.Signal{Kind: catalogue.NodeHealthy, Datanode: d}, at+3*time.Second)
	}
}

func run(t *testing.T, in *input, end time.Duration, settings map[string]string, options map[string]string) []detectors.Finding {
	t.Helper()
	cfg := site.New()
	for k, v := range settings {
		cfg.Set(k, v, "ozone-site.xml")
	}
	env := &detectors.Env{Settings: cfg, Identity: detectors.NewIdentity(), Options: options}
	sort.SliceStable(in.sigs, func(i, j int) bool { return in.sigs[i].Time.Before(in.sigs[j].Time) })
	for i := range in.sigs {
		env.Identity.Learn(&in.sigs[i])
	}
	eng, err := detectors.NewEngine([]detectors.Registration{Registration}, env)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.sigs {
		eng.Observe(&in.sigs[i])
	}
	return detectortest.Reported(eng.Flush(t0.Add(end)))
}

func one(t *testing.T, fs []detectors.Finding) detectors.Finding {
	t.Helper()
	if len(fs) != 1 {
		t.Fatalf("want 1 finding, got %d: %v", len(fs), fs)
	}
	return fs[0]
}

func hosts(f detectors.Finding) string {
	var hs []string
	for _, d := range f.Entities.Datanodes {
		hs = append(hs, d.Host)
	}
	return strings.Join(hs, ",")
}

func check(t *testing.T, f detectors.Finding, sev detectors.Severity, conf detectors.Confidence, state detectors.State, dnHosts string) {
	t.Helper()
	if f.Severity != sev || f.Confidence != conf || f.State != state {
		t.Errorf("got %s/%s/%s, want %s/%s/%s (facts %v)", f.Severity, f.Confidence, f.State, sev, conf, state, f.Facts)
	}
	if got := hosts(f); got != dnHosts {
		t.Errorf("datanodes %q, want %q", got, dnHosts)
	}
	// An SCM that terminated after the pause marked no datanode: its own
	// condition, reported apart from HDDS-17519.
	want := "HDDS-17519"
	if o := f.Facts["outcome"]; o == "scm-terminated" || o == "ratis-closed" {
		want = "unclassified"
		if f.Title != titleTerminated {
			t.Errorf("title %q", f.Title)
		}
	}
	if f.Defect != want || f.Detector != "scm-pause-stale-nodes" {
		t.Errorf("detector %s %s, want defect %s", f.Detector, f.Defect, want)
	}
	if len(f.Entities.Hosts) != 1 || f.Entities.Hosts[0] != scm1 {
		t.Errorf("hosts %v", f.Entities.Hosts)
	}
	for _, r := range f.Remediation {
		if strings.Contains(r, "<no value>") || strings.Contains(r, "error") {
			t.Errorf("remediation not filled: %s", r)
		}
	}
}

const all5 = "dn1.example.com,dn2.example.com,dn3.example.com,dn4.example.com,dn5.example.com"

// One skipped health check is too short: JVM pause and skip, STALE 3s later, return.
func TestSkipThenStale(t *testing.T) {
	in := &input{}
	in.pause(catalogue.JVMPause, 0, 6*time.Minute+1207*time.Millisecond)
	in.pause(catalogue.HeartbeatCheckSkipped, 3*time.Millisecond, 0)
	in.stale(dns(5), 3*time.Second, 18*time.Second)
	f := one(t, run(t, in, time.Hour, map[string]string{keyClose: "10m"}, nil))
	check(t, f, detectors.Warning, detectors.High, detectors.Resolved, all5)
	if len(f.Entities.Pipelines) != 5 || f.Facts["pipelines_closed"] != "5" || f.Facts["outcome"] != "stale" {
		t.Errorf("pipelines %v facts %v", f.Entities.Pipelines, f.Facts)
	}
	if !f.Start.Equal(t0.Add(-6*time.Minute-1207*time.Millisecond)) || !f.End.Equal(t0.Add(3*time.Second+18*time.Second+7*time.Second)) {
		t.Errorf("start %v end %v", f.Start, f.End)
	}
	if f.Facts["stale_interval"] != "5m0s (default)" || f.Facts["max_return"] != "22s" {
		t.Errorf("facts %v", f.Facts)
	}
	if want := "JVM pause, health check skipped, 5 STALE, 5 returned"; f.Facts["signals"] != want {
		t.Errorf("signals %q", f.Facts["signals"])
	}
	// pause, skip, 5 × (stale, closed, readonly, healthy)
	if len(f.Evidence) != 22 {
		t.Errorf("%d evidence lines", len(f.Evidence))
	}
}

// A pause just under the stale interval: no skip line, and the STALE lines
// are logged a moment before the pause monitor's WARN.
func TestPauseUnderStaleNoSkip(t *testing.T) {
	in := &input{}
	in.stale(dns(5), -400*time.Millisecond, 25*time.Second)
	in.pause(catalogue.JVMPause, 0, 4*time.Minute+50*time.Second)
	f := one(t, run(t, in, time.Hour, map[string]string{keyClose: "10m"}, nil))
	check(t, f, detectors.Warning, detectors.High, detectors.Resolved, all5)
	if f.Facts["pause"] != "4m50s" || f.Facts["pause_measured_by"] != "JVM pause monitor" {
		t.Errorf("pause %q", f.Facts["pause"])
	}
}

// The DEAD outcome, with the dead node handler's consequences.
func TestDead(t *testing.T) {
	in := &input{}
	nodes := dns(4)
	in.pause(catalogue.JVMPause, 0, 11*time.Minute)
	in.pause(catalogue.HeartbeatCheckSkipped, 2*time.Millisecond, 0)
	in.stale(nodes, 3*time.Second, -1)
	for i, d := range nodes[:3] {
		in.add(catalogue.Signal{Kind: catalogue.NodeDead, Datanode: d}, 6*time.Second)
		in.add(catalogue.Signal{Kind: catalogue.DeadNodeQueueCleared, Datanode: d, Count: 2}, 6*time.Second+time.Millisecond)
		in.add(catalogue.Signal{Kind: catalogue.DeadNodeCommandsCleaned, Datanode: catalogue.Datanode{UUID: d.UUID}}, 6*time.Second+2*time.Millisecond)
		in.add(catalogue.Signal{Kind: catalogue.PipelineRemoved, Pipeline: pipeOf(i)}, 6*time.Second+3*time.Millisecond)
	}
	in.back(nodes, 27*time.Second)
	f := one(t, run(t, in, time.Hour, map[string]string{keyClose: "20m"}, nil))
	check(t, f, detectors.Critical, detectors.High, detectors.Resolved, "dn1.example.com,dn2.example.com,dn3.example.com,dn4.example.com")
	if f.Facts["dead_nodes"] != "3" || f.Facts["commands_dropped"] != "6" || f.Facts["pipelines_removed"] != "3" || f.Facts["outcome"] != "dead" {
		t.Errorf("facts %v", f.Facts)
	}
	if !strings.Contains(f.Remediation[2], "replicationmanager stop") || !strings.Contains(f.Remediation[2], "3 datanode(s) went DEAD") {
		t.Errorf("remediation step 3: %s", f.Remediation[2])
	}
}

// The ZDU branch returns nodes straight to HEALTHY.
func TestZDUReturn(t *testing.T) {
	in := &input{}
	in.pause(catalogue.HeartbeatCheckSkipped, 0, 0)
	in.stale(dns(3), 3*time.Second, -1)
	for _, d := range dns(3) {
		in.add(catalogue.Signal{Kind: catalogue.NodeHealthy, Datanode: d}, 30*time.Second)
	}
	f := one(t, run(t, in, time.Hour, nil, nil))
	check(t, f, detectors.Warning, detectors.High, detectors.Resolved, "dn1.example.com,dn2.example.com,dn3.example.com")
	if f.Facts["pause"] != "at least 5m0s" {
		t.Errorf("pause %q", f.Facts["pause"])
	}
}

// A silence in the SCM's log followed by a burst of returning STALE nodes.
func TestLogGapBurst(t *testing.T) {
	in := &input{}
	in.pause(catalogue.LogGap, 0, 28*time.Second)
	in.stale(dns(5), 0, 6*time.Second)
	site := map[string]string{keyStale: "30s", keyDead: "60s", keyHB: "5s"}
	f := one(t, run(t, in, time.Hour, site, nil))
	check(t, f, detectors.Warning, detectors.Medium, detectors.Resolved, all5)
	if f.Facts["stale_interval"] != "30s (ozone-site.xml)" || f.Facts["hold_off"] != "10s (heartbeat interval + RPC timeout)" {
		t.Errorf("facts %v", f.Facts)
	}
}

// Near misses: each must stay quiet.
func TestQuiet(t *testing.T) {
	compose := map[string]string{keyStale: "30s", keyDead: "60s", keyHB: "5s"}
	cases := map[string]struct {
		in       func(in *input)
		settings map[string]string
	}{
		"datanode really died": {in: func(in *input) {
			d := dns(1)
			in.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Host: "dn1.example.com", Component: parsers.ComponentDatanode,
				Attrs: map[string]string{"service": "HddsDatanodeService"}}, -5*time.Minute)
			in.stale(d, 0, -1)
			in.add(catalogue.Signal{Kind: catalogue.NodeDead, Datanode: d[0]}, 5*time.Minute)
		}},
		"datanode log stops, no pause": {in: func(in *input) {
			in.stale(dns(1), 0, -1)
			in.add(catalogue.Signal{Kind: catalogue.NodeDead, Datanode: dns(1)[0]}, 5*time.Minute)
		}},
		"short GC pause then an unrelated STALE": {in: func(in *input) {
			in.pause(catalogue.JVMPause, 0, 1200*time.Millisecond)
			in.stale(dns(1), 2*time.Second, 40*time.Second)
		}},
		"short GC pauses": {in: func(in *input) {
			for i := 0; i < 5; i++ {
				in.pause(catalogue.JVMPause, time.Duration(i)*time.Minute, 800*time.Millisecond)
			}
		}},
		"upgrade finalization READONLY": {in: func(in *input) {
			in.back(dns(5), 0)
		}},
		"skip with no transitions": {in: func(in *input) {
			in.pause(catalogue.JVMPause, 0, 6*time.Minute)
			in.pause(catalogue.HeartbeatCheckSkipped, time.Millisecond, 0)
		}},
		"pause, transitions much later": {in: func(in *input) {
			in.pause(catalogue.JVMPause, 0, 6*time.Minute)
			in.stale(dns(3), 2*time.Minute, 10*time.Second)
		}},
		"pause, nodes do not return": {in: func(in *input) {
			in.pause(catalogue.JVMPause, 0, 6*time.Minute)
			in.stale(dns(3), 3*time.Second, -1)
		}},
		"pause, nodes return too late": {in: func(in *input) {
			in.pause(catalogue.JVMPause, 0, 6*time.Minute)
			in.stale(dns(3), 3*time.Second, 5*time.Minute)
		}},
		"log gap then one STALE": {settings: compose, in: func(in *input) {
			in.pause(catalogue.LogGap, 0, 28*time.Second)
			in.stale(dns(1), time.Second, 5*time.Second)
		}},
		"short log gap then a burst": {settings: compose, in: func(in *input) {
			in.pause(catalogue.LogGap, 0, 12*time.Second)
			in.stale(dns(5), time.Second, 5*time.Second)
		}},
		"datanode log gap": {settings: compose, in: func(in *input) {
			in.add(catalogue.Signal{Kind: catalogue.LogGap, Duration: 28 * time.Second, Host: "dn1.example.com", Component: parsers.ComponentDatanode}, 0)
			in.stale(dns(5), time.Second, 5*time.Second)
		}},
		"OM pause": {in: func(in *input) {
			in.add(catalogue.Signal{Kind: catalogue.JVMPause, Duration: 6 * time.Minute, Host: "om1.example.com", Component: parsers.ComponentOM}, 0)
			in.stale(dns(5), 3*time.Second, 10*time.Second)
		}},
		"unrelated Terminating": {in: func(in *input) {
			in.add(catalogue.Signal{Kind: catalogue.Terminating, Reason: "scm statemachine is closed by ratis, terminate SCM"}, 0)
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := &input{}
			tc.in(in)
			if fs := run(t, in, time.Hour, tc.settings, nil); len(fs) != 0 {
				t.Errorf("want quiet, got %v\n%s", fs, fs[0].Summary)
			}
		})
	}
}

// A pause in which one datanode really stopped: it is named apart.
func TestPauseWithRealFailure(t *testing.T) {
	in := &input{}
	nodes := dns(5)
	in.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Host: "dn5.example.com", Component: parsers.ComponentDatanode,
		Attrs: map[string]string{"service": "HddsDatanodeService"}}, -2*time.Minute)
	in.pause(catalogue.JVMPause, 0, 6*time.Minute)
	in.stale(nodes[:4], 3*time.Second, 15*time.Second)
	in.stale(nodes[4:], 3*time.Second, -1)
	f := one(t, run(t, in, time.Hour, map[string]string{keyClose: "10m"}, nil))
	check(t, f, detectors.Warning, detectors.High, detectors.Resolved, "dn1.example.com,dn2.example.com,dn3.example.com,dn4.example.com")
	if !strings.HasPrefix(f.Facts["stopped_themselves"], "dn5.example.com (") {
		t.Errorf("facts %v", f.Facts)
	}
}

// The input ends before the nodes could return: firing, medium.
func TestInputEndsBeforeReturn(t *testing.T) {
	in := &input{}
	in.pause(catalogue.JVMPause, 0, 6*time.Minute)
	in.stale(dns(2), 3*time.Second, -1)
	f := one(t, run(t, in, 10*time.Second, map[string]string{keyClose: "10m"}, nil))
	check(t, f, detectors.Warning, detectors.Medium, detectors.Firing, "dn1.example.com,dn2.example.com")
}

// The SCM terminates itself after a pause longer than the Ratis close threshold.
func TestTermination(t *testing.T) {
	in := &input{}
	in.pause(catalogue.JVMPause, 0, 75300*time.Millisecond)
	in.add(catalogue.Signal{Kind: catalogue.RaftPauseClose, Duration: 75300 * time.Millisecond}, 2*time.Millisecond)
	in.add(catalogue.Signal{Kind: catalogue.Terminating, Count: 0, Reason: "scm statemachine is closed by ratis, terminate SCM"}, 900*time.Millisecond)
	in.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Attrs: map[string]string{"service": "StorageContainerManager"}}, time.Second)
	in.add(catalogue.Signal{Kind: catalogue.StartupMsg, Attrs: map[string]string{"service": "StorageContainerManager"}, Version: "2.2.0"}, 2*time.Minute)
	for _, d := range dns(3) {
		in.add(catalogue.Signal{Kind: catalogue.HeartbeatFromUnregistered, Datanode: d}, 2*time.Minute+20*time.Second)
	}
	f := one(t, run(t, in, time.Hour, nil, nil))
	check(t, f, detectors.Critical, detectors.High, detectors.Resolved, "dn1.example.com,dn2.example.com,dn3.example.com")
	if f.Facts["outcome"] != "scm-terminated" || f.Facts["ozone_version"] != "2.2.0" || f.Facts["reregistered_datanodes"] != "3" {
		t.Errorf("facts %v", f.Facts)
	}
	if !f.End.Equal(t0.Add(2 * time.Minute)) {
		t.Errorf("end %v", f.End)
	}
	if len(f.Evidence) != 8 {
		t.Errorf("%d evidence lines", len(f.Evidence))
	}
}

// Without a restart the termination keeps firing.
func TestTerminationNoRestart(t *testing.T) {
	in := &input{}
	in.pause(catalogue.JVMPause, 0, 75*time.Second)
	in.add(catalogue.Signal{Kind: catalogue.Terminating, Reason: "scm statemachine is closed by ratis, terminate SCM"}, time.Second)
	f := one(t, run(t, in, time.Hour, nil, nil))
	check(t, f, detectors.Critical, detectors.Medium, detectors.Firing, "")
}

// The SCM's own reset of an interval replaces the configured value.
func TestIntervalReset(t *testing.T) {
	in := &input{}
	in.add(catalogue.Signal{Kind: catalogue.IntervalReset, Duration: 30 * time.Second, Attrs: map[string]string{"key": keyStale}}, -time.Hour)
	in.pause(catalogue.JVMPause, 0, 25*time.Second) // too short for 5m, long enough for 30s
	in.stale(dns(2), time.Second, 8*time.Second)
	f := one(t, run(t, in, time.Hour, map[string]string{keyStale: "10s", keyHB: "5s"}, nil))
	if f.Facts["stale_interval"] != "30s (reset by the SCM on scm1.example.com)" {
		t.Errorf("facts %v", f.Facts)
	}
}

// Evidence stays bounded on a large cluster and says what it dropped.
func TestEvidenceBounded(t *testing.T) {
	in := &input{}
	in.pause(catalogue.JVMPause, 0, 6*time.Minute)
	in.stale(dns(60), 3*time.Second, 0)
	f := one(t, run(t, in, time.Hour, map[string]string{keyClose: "10m"}, nil))
	if len(f.Evidence) != detectors.MaxEvidence || f.Facts["evidence_dropped"] != fmt.Sprint(1+60*4-detectors.MaxEvidence) {
		t.Errorf("%d evidence, facts %v", len(f.Evidence), f.Facts)
	}
	if f.Evidence[0].Text != string(catalogue.JVMPause) {
		t.Errorf("first evidence %+v", f.Evidence[0])
	}
	if len(f.Entities.Datanodes) != 60 {
		t.Errorf("%d datanodes", len(f.Entities.Datanodes))
	}
}

func TestBadOption(t *testing.T) {
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: map[string]string{"min_burst_nodes": "x"}}
	if _, err := Registration.New(env); err == nil {
		t.Error("want an error for min_burst_nodes=x")
	}
}

const closedByRatis = "scm statemachine is closed by ratis, terminate SCM"

// closeLines adds the pause monitor's WARN and Ratis' close ERROR (T03, T06)
// of a 75s pause, from host (scm1 when empty) with component comp.
func (in *input) closeLines(host string, comp parsers.Component, at time.Duration) {
	in.add(catalogue.Signal{Kind: catalogue.JVMPause, Duration: 75 * time.Second, Host: host, Component: comp}, at)
	in.add(catalogue.Signal{Kind: catalogue.RaftPauseClose, Duration: 75 * time.Second, Host: host, Component: comp}, at+time.Millisecond)
}

func scmStartup(host string, comp parsers.Component) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.StartupMsg, Host: host, Component: comp,
		Attrs: map[string]string{"service": "StorageContainerManager"}, Version: "2.2.0"}
}

// The close ERROR is reported only once the SCM's own lines confirm the
// termination; the input ending right after it is reported as such.
func TestTerminationConfirmed(t *testing.T) {
	cases := map[string]struct {
		in      func(in *input)
		end     time.Duration
		conf    detectors.Confidence
		outcome string
		summary string
		signals string
	}{
		"T06 then T07": {in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
			in.add(catalogue.Signal{Kind: catalogue.Terminating, Reason: closedByRatis}, 900*time.Millisecond)
		}, end: time.Hour, conf: detectors.High, outcome: "scm-terminated",
			summary: `and terminated itself at 2026-08-23 10:20:00 UTC ("scm statemachine is closed by ratis"); no restart was seen before the input ended.`,
			signals: "Ratis close after pause, SCM terminated"},
		"T06 then SHUTDOWN_MSG": {in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
			in.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Attrs: map[string]string{"service": "StorageContainerManager"}}, 1200*time.Millisecond)
		}, end: time.Hour, conf: detectors.Medium, outcome: "scm-terminated",
			summary: "and Ratis shut its server down; the SCM logged SHUTDOWN_MSG at 2026-08-23 10:20:01 UTC; no restart was seen before the input ended.",
			signals: "Ratis close after pause, SCM SHUTDOWN_MSG"},
		"T06 then the input ends": {in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
		}, end: 2 * time.Second, conf: detectors.Medium, outcome: "ratis-closed",
			summary: "and Ratis shut its server down at 2026-08-23 10:20:00 UTC; the input ends 1.999s later, before the SCM's termination line " +
				`("scm statemachine is closed by ratis") or SHUTDOWN_MSG: termination not in the input.`,
			signals: "Ratis close after pause"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := &input{}
			tc.in(in)
			f := one(t, run(t, in, tc.end, nil, nil))
			check(t, f, detectors.Critical, tc.conf, detectors.Firing, "")
			if f.Facts["outcome"] != tc.outcome || f.Facts["signals"] != tc.signals {
				t.Errorf("facts %v", f.Facts)
			}
			if !strings.Contains(f.Summary, tc.summary) || !strings.HasPrefix(f.Summary, "The SCM on scm1.example.com was paused 1m15s, ") {
				t.Errorf("summary %q", f.Summary)
			}
			if (tc.outcome == "ratis-closed") != (f.Facts["termination"] == "not in the input") {
				t.Errorf("termination fact %q", f.Facts["termination"])
			}
			if !strings.Contains(f.Remediation[0], "ozone admin scm roles") {
				t.Errorf("remediation step 1: %s", f.Remediation[0])
			}
		})
	}
}

// A close ERROR that the SCM does not confirm, or that is not an SCM's, is
// not a termination (the 75s pause is too short for the STALE outcome).
func TestTerminationNotConfirmed(t *testing.T) {
	om, dn := "om1.example.com", "dn1.example.com"
	cases := map[string]struct {
		in  func(in *input)
		end time.Duration
	}{
		"SCM keeps logging after T06": {end: time.Hour, in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
			in.add(catalogue.Signal{Kind: catalogue.JVMPause, Duration: 400 * time.Millisecond}, 30*time.Second)
			in.add(catalogue.Signal{Kind: catalogue.LogGap, Duration: 20 * time.Second}, 20*time.Minute)
			in.add(catalogue.Signal{Kind: catalogue.NodeHealthy, Datanode: dns(1)[0]}, 50*time.Minute)
		}},
		"a later SCM line just past the wait, the input ends soon after": {end: exitWait + 2*time.Second, in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
			in.add(catalogue.Signal{Kind: catalogue.LogGap, Duration: 4 * time.Second}, exitWait+time.Second)
		}},
		"T06 and nothing else": {end: time.Hour, in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
		}},
		"T07 too late after T06": {end: time.Hour, in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
			in.add(catalogue.Signal{Kind: catalogue.Terminating, Reason: closedByRatis}, exitWait+2*time.Second)
		}},
		"SHUTDOWN_MSG too late after T06": {end: time.Hour, in: func(in *input) {
			in.closeLines(scm1, parsers.ComponentSCM, 0)
			in.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Attrs: map[string]string{"service": "StorageContainerManager"}}, exitWait+2*time.Second)
			in.add(scmStartup(scm1, parsers.ComponentSCM), 2*time.Minute)
		}},
		"OM close, input ends right after": {end: 2 * time.Second, in: func(in *input) {
			in.closeLines(om, parsers.ComponentOM, 0)
		}},
		"datanode close, input ends right after": {end: 2 * time.Second, in: func(in *input) {
			in.closeLines(dn, parsers.ComponentDatanode, 0)
		}},
		"OM close then OM shutdown": {end: time.Hour, in: func(in *input) {
			in.closeLines(om, parsers.ComponentOM, 0)
			in.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Host: om, Component: parsers.ComponentOM,
				Attrs: map[string]string{"service": "OzoneManager"}}, time.Second)
		}},
		"unknown stream, no SCM STARTUP_MSG on its host": {end: 2 * time.Second, in: func(in *input) {
			in.closeLines(dn, parsers.ComponentUnknown, 0)
		}},
		"unknown stream, the SCM STARTUP_MSG is another host's": {end: 2 * time.Second, in: func(in *input) {
			in.add(scmStartup(scm1, parsers.ComponentSCM), -time.Hour)
			in.closeLines(dn, parsers.ComponentUnknown, 0)
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := &input{}
			tc.in(in)
			if fs := run(t, in, tc.end, nil, nil); len(fs) != 0 {
				t.Errorf("want quiet, got %v\n%s", fs, fs[0].Summary)
			}
		})
	}
}

// collect runs the detector by hand, with the settings and identities the
// run learns as it flows, and records every emission.
type collect struct {
	env *detectors.Env
	det detectors.Detector
	got []detectors.Finding
}

func newCollect(t *testing.T) *collect {
	t.Helper()
	c := &collect{env: &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}}
	var err error
	if c.det, err = Registration.New(c.env); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *collect) emit(f detectors.Finding) { c.got = append(c.got, f) }

func (c *collect) feed(in *input) {
	sort.SliceStable(in.sigs, func(i, j int) bool { return in.sigs[i].Time.Before(in.sigs[j].Time) })
	for i := range in.sigs {
		c.env.Identity.Learn(&in.sigs[i])
		c.det.Advance(in.sigs[i].Time, c.emit)
		c.det.Observe(&in.sigs[i], c.emit)
	}
}

// Settings set after the detector was built (ozone-site.xml learned
// mid-stream) replace the defaults; an interval the SCM reset stays.
func TestSettingsLearnedLater(t *testing.T) {
	c := newCollect(t)
	for k, v := range map[string]string{keyStale: "30s", keyDead: "60s", keyHB: "5s"} {
		c.env.Settings.Set(k, v, "ozone-site.xml")
	}
	in := &input{}
	in.pause(catalogue.LogGap, 0, 28*time.Second)
	in.stale(dns(5), 0, 6*time.Second)
	c.feed(in)
	c.det.Flush(t0.Add(time.Hour), c.emit)
	if len(c.got) == 0 {
		t.Fatal("no finding with the settings learned after construction")
	}
	f := c.got[len(c.got)-1]
	if f.Facts["stale_interval"] != "30s (ozone-site.xml)" || f.State != detectors.Resolved {
		t.Errorf("state %s facts %v", f.State, f.Facts)
	}

	c = newCollect(t)
	in = &input{}
	in.add(catalogue.Signal{Kind: catalogue.IntervalReset, Duration: 40 * time.Second, Attrs: map[string]string{"key": keyStale}}, -time.Hour)
	c.feed(in)
	c.env.Settings.Set(keyStale, "20s", "ozone-site.xml")
	c.env.Settings.Set(keyHB, "5s", "ozone-site.xml")
	c.det.Advance(t0, c.emit)
	cfg := c.det.(*detector).cfg
	if cfg.stale.d != 40*time.Second || cfg.hb.d != 5*time.Second {
		t.Errorf("stale %s heartbeat %s, want the SCM's reset 40s and the learned 5s", cfg.stale, cfg.hb)
	}
}

// A silence in the log counts against the cluster's size as known when the
// episode closes, not when its first datanode returned: identities learned
// later in the stream can withdraw it.
func TestIdentityLearnedLater(t *testing.T) {
	c := newCollect(t)
	for k, v := range map[string]string{keyStale: "30s", keyDead: "60s", keyHB: "5s"} {
		c.env.Settings.Set(k, v, "ozone-site.xml")
	}
	in := &input{}
	in.pause(catalogue.LogGap, 0, 28*time.Second)
	all := dns(12)
	in.stale(all[:5], 0, 6*time.Second)
	// Seven more datanodes become known before the episode closes.
	for _, d := range all[5:] {
		in.add(catalogue.Signal{Kind: catalogue.DatanodeRegistered, Datanode: d}, 15*time.Second)
	}
	c.feed(in)
	if len(c.got) == 0 || c.got[0].State != detectors.Pending {
		t.Fatalf("want a pending finding while the episode is open, got %v", c.got)
	}
	c.det.Flush(t0.Add(time.Hour), c.emit)
	if last := c.got[len(c.got)-1]; !detectors.Withdrawn(last) {
		t.Errorf("want the finding withdrawn, last emission %v %v", last, last.Facts)
	}
}

// A close ERROR is pending when seen; Advance withdraws it once exitWait
// has passed without the SCM's termination line.
func TestTerminationPendingThenWithdrawn(t *testing.T) {
	c := newCollect(t)
	in := &input{}
	in.closeLines(scm1, parsers.ComponentSCM, 0)
	c.feed(in)
	if len(c.got) != 1 || c.got[0].State != detectors.Pending || detectors.Withdrawn(c.got[0]) {
		t.Fatalf("want one pending finding, got %v", c.got)
	}
	c.det.Advance(t0.Add(exitWait), c.emit)
	if len(c.got) != 1 {
		t.Fatalf("decided before exitWait passed: %v", c.got)
	}
	c.det.Advance(t0.Add(exitWait+time.Second), c.emit)
	if len(c.got) != 2 || !detectors.Withdrawn(c.got[1]) || c.got[1].Key != c.got[0].Key {
		t.Fatalf("want the same key withdrawn, got %v", c.got)
	}
	c.det.Flush(t0.Add(time.Hour), c.emit)
	if len(c.got) != 2 {
		t.Errorf("Flush emitted again: %v", c.got[2:])
	}
}

// The state is bounded: SCM hosts beyond maxSCMs evict the least recently
// seen host instead of being ignored; SHUTDOWN_MSGs older than the horizon
// are forgotten.
func TestStateBounded(t *testing.T) {
	c := newCollect(t)
	in := &input{}
	for i := range maxSCMs + 6 {
		in.add(catalogue.Signal{Kind: catalogue.JVMPause, Duration: 2 * time.Second, Host: fmt.Sprintf("scm%d.example.com", i),
			Component: parsers.ComponentSCM}, time.Duration(i)*time.Second)
	}
	in.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Host: "dn1.example.com", Component: parsers.ComponentDatanode,
		Attrs: map[string]string{"service": "HddsDatanodeService"}}, time.Minute)
	c.feed(in)
	d := c.det.(*detector)
	stats := d.StateStats()
	var names []string
	for _, s := range stats {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "scm hosts,datanode shutdowns,node lines before a pause line,episode datanodes" {
		t.Errorf("stat names %s", got)
	}
	if s := stats[0]; s.Entries != maxSCMs || s.Evicted != 6 || s.Limit != maxSCMs {
		t.Errorf("scm hosts %+v", s)
	}
	// The newest host is known; the first ones were evicted.
	if !d.scms.Has(fmt.Sprintf("scm%d.example.com", maxSCMs+5)) || d.scms.Has("scm0.example.com") {
		t.Error("scms did not evict the oldest host")
	}
	if stats[1].Entries != 1 {
		t.Errorf("stops %+v", stats[1])
	}
	d.Advance(t0.Add(time.Minute+2*time.Hour), c.emit)
	if d.stops.Len() != 0 {
		t.Error("a SHUTDOWN_MSG older than the horizon is kept")
	}
}
