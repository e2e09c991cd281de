package olddatanode_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/detectors/olddatanode"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

func TestCases(t *testing.T) { detectortest.Run(t, olddatanode.Registration, "testdata") }

const (
	zdu = "ZDU (100)"
	old = "STORAGE_SPACE_DISTRIBUTION (10)"
)

var (
	t0   = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	scms = []string{"scm1.example.com", "scm2.example.com", "scm3.example.com"}
	dn3  = catalogue.Datanode{UUID: "7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c", Host: "dn3.example.com", IP: "10.0.2.3"}
)

// run feeds signals through an engine holding only this detector.
type run struct {
	t        *testing.T
	settings *site.Config
	eng      *detectors.Engine
	line     int
	emitted  []detectors.Finding
}

func newRun(t *testing.T, settings map[string]string, options map[string]string) *run {
	t.Helper()
	cfg := site.New()
	for k, v := range settings {
		cfg.Set(k, v, "ozone-site.xml")
	}
	r := &run{t: t, settings: cfg}
	reg := olddatanode.Registration
	inner := reg.New
	reg.New = func(env *detectors.Env) (detectors.Detector, error) {
		d, err := inner(env)
		if err != nil {
			return nil, err
		}
		return recorder{d, r}, nil
	}
	eng, err := detectors.NewEngine([]detectors.Registration{reg},
		&detectors.Env{Settings: cfg, Identity: detectors.NewIdentity(), Options: options})
	if err != nil {
		t.Fatal(err)
	}
	r.eng = eng
	return r
}

// recorder keeps every emission, to check early reports and escalations.
type recorder struct {
	detectors.Detector
	r *run
}

func (w recorder) Observe(s *catalogue.Signal, emit detectors.Emit) {
	w.Detector.Observe(s, w.wrap(emit))
}
func (w recorder) Advance(now time.Time, emit detectors.Emit) { w.Detector.Advance(now, w.wrap(emit)) }
func (w recorder) Flush(end time.Time, emit detectors.Emit)   { w.Detector.Flush(end, w.wrap(emit)) }
func (w recorder) wrap(emit detectors.Emit) detectors.Emit {
	return func(f detectors.Finding) { w.r.emitted = append(w.r.emitted, f); emit(f) }
}

func (r *run) add(s catalogue.Signal) {
	r.line++
	if s.Component == "" {
		s.Component = parsers.ComponentSCM
	}
	s.Origin = parsers.Origin{File: s.Host + ".log", Line: r.line}
	if s.Text == "" {
		s.Text = string(s.Kind)
	}
	r.eng.Observe(&s)
}

func (r *run) flush(end time.Time) []detectors.Finding { return r.eng.Flush(end) }

func t31(scm string, dn catalogue.Datanode, at time.Time, thread string) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.OldDatanodeOnFinalizedSCM, Time: at, Host: scm, Level: parsers.LevelError,
		Thread: thread, Datanode: dn, Version: old, Version2: zdu}
}

func t30(scm, dnHost string, at time.Time, thread, dnVersion, scmVersion string) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.InvalidDatanode, Time: at, Host: scm, Level: parsers.LevelError, Thread: thread,
		Datanode: catalogue.Datanode{Host: dnHost}, Version: dnVersion, Version2: scmVersion,
		Apparent: dnVersion, Apparent2: scmVersion}
}

// pairs adds n heartbeats of the HDDS-17425 pair from start on the given SCMs.
func (r *run) pairs(on []string, dn catalogue.Datanode, start time.Time, every time.Duration, n int) time.Time {
	at := start
	for i := 0; i < n; i++ {
		at = start.Add(time.Duration(i) * every)
		for j, scm := range on {
			ts := at.Add(time.Duration(j*70) * time.Millisecond)
			th := fmt.Sprintf("IPC Server handler %d on default port 9861", (i+j)%100)
			r.add(t31(scm, dn, ts, th))
			r.add(t30(scm, dn.Host, ts.Add(time.Millisecond), th, old, zdu))
		}
	}
	return at
}

func (r *run) finalized(at time.Time) {
	r.add(catalogue.Signal{Kind: catalogue.UpgradeFinalizeRequested, Time: at.Add(-8 * time.Second), Host: "om1.example.com",
		Component: parsers.ComponentOM, Attrs: map[string]string{"scope": "SCM"}})
	for i, scm := range scms {
		r.add(catalogue.Signal{Kind: catalogue.UpgradeFinalized, Time: at.Add(time.Duration(i) * 100 * time.Millisecond),
			Host: scm, Version: zdu, Text: "Version ZDU (100) has been finalized."})
	}
}

func only(t *testing.T, fs []detectors.Finding) detectors.Finding {
	t.Helper()
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %d: %v", len(fs), fs)
	}
	return fs[0]
}

func quiet(t *testing.T, fs []detectors.Finding) {
	t.Helper()
	if len(fs) != 0 {
		t.Fatalf("want no finding, got %v", fs)
	}
}

func TestRegisteredDuringFinalizationHigh(t *testing.T) {
	r := newRun(t, nil, nil)
	r.add(catalogue.Signal{Kind: catalogue.StartupMsg, Time: t0.Add(-time.Minute), Host: dn3.Host, Component: parsers.ComponentDatanode,
		Version: "2.1.1", Attrs: map[string]string{"service": "HddsDatanodeService", "hostname": dn3.Host}})
	r.add(catalogue.Signal{Kind: catalogue.StartupMsg, Time: t0.Add(-time.Hour), Host: scms[0],
		Version: "2.2.0", Attrs: map[string]string{"service": "StorageContainerManager", "hostname": scms[0]}})
	for _, scm := range scms {
		r.add(catalogue.Signal{Kind: catalogue.DatanodeRegistered, Time: t0.Add(-4 * time.Second), Host: scm, Datanode: dn3})
	}
	r.finalized(t0)
	last := r.pairs(scms, dn3, t0.Add(25*time.Second), 30*time.Second, 40)
	f := only(t, r.flush(last.Add(10*time.Second)))
	if f.Defect != "HDDS-17425" || f.Severity != detectors.Warning || f.Confidence != detectors.High || f.State != detectors.Firing {
		t.Errorf("finding %v state %s", f, f.State)
	}
	if !strings.HasPrefix(f.Key, "old-datanode/"+dn3.UUID+"/") || !f.Start.Equal(t0.Add(25*time.Second)) {
		t.Errorf("key %s start %s", f.Key, f.Start)
	}
	want := map[string]string{
		"heartbeats": "40", "pairs": "120", "datanode_software_version": old, "scm_software_version": zdu,
		"datanode_apparent_version": old, "scm_apparent_version": zdu, "datanode_ozone_version": "2.1.1",
		"scm_ozone_version": "2.2.0", "heartbeat_interval": "30s (default)", "datanode_host": dn3.Host,
	}
	for k, v := range want {
		if f.Facts[k] != v {
			t.Errorf("fact %s = %q, want %q", k, f.Facts[k], v)
		}
	}
	if !strings.Contains(f.Facts["registered"], "during the finalization") || !strings.Contains(f.Facts["finalization_logged"], "has been finalized") {
		t.Errorf("facts %v", f.Facts)
	}
	if !strings.Contains(f.Summary, "Ozone 2.1.1") || !strings.Contains(f.Summary, "still at the end of the input") {
		t.Errorf("summary %s", f.Summary)
	}
	if len(f.Evidence) > detectors.MaxEvidence || f.Facts["evidence_dropped"] == "" {
		t.Errorf("evidence %d, dropped %q", len(f.Evidence), f.Facts["evidence_dropped"])
	}
	if len(f.Entities.Datanodes) != 1 || f.Entities.Datanodes[0] != dn3 || len(f.Entities.Hosts) != 4 {
		t.Errorf("entities %+v", f.Entities)
	}
	if len(f.Remediation) != 4 || !strings.Contains(f.Remediation[2], "ozone admin datanode decommission dn3.example.com") ||
		!strings.Contains(f.Remediation[0], "Ozone 2.1.1") {
		t.Errorf("remediation %q", f.Remediation)
	}
	// Reported early (low at the second heartbeat), escalated once at the third.
	if len(r.emitted) < 2 || r.emitted[0].Confidence != detectors.Low || r.emitted[1].Confidence != detectors.High {
		t.Errorf("emissions: %v", r.emitted)
	}
}

func TestNoFinalizationInInputIsMedium(t *testing.T) {
	r := newRun(t, nil, nil)
	last := r.pairs(scms, dn3, t0, 30*time.Second, 10)
	f := only(t, r.flush(last.Add(time.Second)))
	if f.Confidence != detectors.Medium || f.Facts["finalization_logged"] != "no SCM finalization in the input" {
		t.Errorf("%v %v", f, f.Facts)
	}
}

func TestOneSCMOfSeveralIsMedium(t *testing.T) {
	r := newRun(t, nil, nil)
	r.add(catalogue.Signal{Kind: catalogue.UpgradeFinalizeRequested, Time: t0.Add(-time.Minute), Host: scms[0], Reason: "forced"})
	r.finalized(t0)
	last := r.pairs(scms[:1], dn3, t0.Add(20*time.Second), 30*time.Second, 10)
	f := only(t, r.flush(last.Add(time.Second)))
	if f.Confidence != detectors.Medium || f.Facts["finalization_forced"] == "" || f.Facts["scms"] != "1 of 3 SCMs in the input logged it on ≥ 3 heartbeats" {
		t.Errorf("%v %v", f, f.Facts)
	}
}

func TestSingleSCMClusterIsHigh(t *testing.T) {
	r := newRun(t, nil, nil)
	r.add(catalogue.Signal{Kind: catalogue.UpgradeFinalized, Time: t0, Host: scms[0]})
	last := r.pairs(scms[:1], dn3, t0.Add(20*time.Second), 30*time.Second, 5)
	if f := only(t, r.flush(last.Add(time.Second))); f.Confidence != detectors.High {
		t.Errorf("%v", f)
	}
}

func TestTwoHeartbeatsIsLowAndResolves(t *testing.T) {
	r := newRun(t, nil, nil)
	r.finalized(t0)
	last := r.pairs(scms, dn3, t0.Add(20*time.Second), 30*time.Second, 2)
	r.add(catalogue.Signal{Kind: catalogue.ShutdownMsg, Time: last.Add(5 * time.Second), Host: dn3.Host, Component: parsers.ComponentDatanode,
		Attrs: map[string]string{"service": "HddsDatanodeService", "hostname": dn3.Host}})
	f := only(t, r.flush(last.Add(time.Hour)))
	if f.Confidence != detectors.Low || f.State != detectors.Resolved || !strings.Contains(f.Facts["resolution"], "shut down") {
		t.Errorf("%v %s %v", f, f.State, f.Facts)
	}
}

func TestQuietCases(t *testing.T) {
	cases := map[string]func(r *run) time.Time{
		"single pair": func(r *run) time.Time {
			r.finalized(t0)
			return r.pairs(scms, dn3, t0.Add(20*time.Second), 30*time.Second, 1)
		},
		"T31 alone at registration, repeated": func(r *run) time.Time {
			r.finalized(t0)
			at := t0
			for i := 0; i < 10; i++ {
				at = t0.Add(time.Duration(i) * 2 * time.Minute)
				for _, scm := range scms {
					r.add(t31(scm, dn3, at, "IPC Server handler 3 on default port 9861"))
				}
			}
			return at
		},
		"T32 + T30 (newer datanode) on two heartbeats, then SCM upgraded": func(r *run) time.Time {
			at := r.newerPairs(scms, t0, 2)
			r.scmRestarts(at.Add(20 * time.Second))
			return at.Add(time.Hour)
		},
		"T32 alone, repeated (newer datanode refused at registration)": func(r *run) time.Time {
			at := t0
			for i := 0; i < 10; i++ {
				at = t0.Add(time.Duration(i) * 30 * time.Second)
				for _, scm := range scms {
					r.add(t32(scm, at, "h1"))
				}
			}
			return at
		},
		"T32b + T30 (apparent above SCM)": func(r *run) time.Time {
			r.finalized(t0)
			at := t0
			for i := 0; i < 10; i++ {
				at = t0.Add(time.Minute + time.Duration(i)*30*time.Second)
				for _, scm := range scms {
					r.add(catalogue.Signal{Kind: catalogue.DatanodeApparentAboveSCM, Time: at, Host: scm, Datanode: dn3, Version: zdu, Version2: old})
					r.add(t30(scm, dn3.Host, at, "", zdu, zdu))
				}
			}
			return at
		},
		"T30 alone": func(r *run) time.Time {
			at := t0
			for i := 0; i < 10; i++ {
				at = t0.Add(time.Duration(i) * 30 * time.Second)
				r.add(t30(scms[0], dn3.Host, at, "", old, zdu))
			}
			return at
		},
		"halves on different SCMs": func(r *run) time.Time {
			at := t0
			for i := 0; i < 10; i++ {
				at = t0.Add(time.Duration(i) * 30 * time.Second)
				r.add(t31(scms[0], dn3, at, ""))
				r.add(t30(scms[1], dn3.Host, at, "", old, zdu))
			}
			return at
		},
		"halves on different threads": func(r *run) time.Time {
			at := t0
			for i := 0; i < 10; i++ {
				at = t0.Add(time.Duration(i) * 30 * time.Second)
				r.add(t31(scms[0], dn3, at, "IPC Server handler 1 on default port 9861"))
				r.add(t30(scms[0], dn3.Host, at, "IPC Server handler 2 on default port 9861", old, zdu))
			}
			return at
		},
		"T30 long after T31": func(r *run) time.Time {
			at := t0
			for i := 0; i < 10; i++ {
				at = t0.Add(time.Duration(i) * 30 * time.Second)
				r.add(t31(scms[0], dn3, at, ""))
				r.add(t30(scms[0], dn3.Host, at.Add(5*time.Second), "", old, zdu))
			}
			return at
		},
		"master line on two heartbeats, then SCM upgraded": func(r *run) time.Time {
			r.finalized(t0)
			at := r.masterLines(scms, t0.Add(time.Minute), 2)
			r.scmRestarts(at.Add(20 * time.Second))
			return at.Add(time.Hour)
		},
		"master line on two heartbeats per SCM, SCMs a heartbeat apart": func(r *run) time.Time {
			at := r.masterLines(scms[:1], t0, 2)
			at = r.masterLines(scms[1:2], at.Add(30*time.Second), 2)
			return r.masterLines(scms[2:], at.Add(30*time.Second), 2)
		},
	}
	for name, feed := range cases {
		t.Run(name, func(t *testing.T) {
			r := newRun(t, nil, nil)
			end := feed(r)
			quiet(t, r.flush(end.Add(time.Second)))
		})
	}
}

func masterLine(scm string, at time.Time) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.InvalidDataNodeLayout, Time: at, Host: scm, Level: parsers.LevelError,
		Datanode: catalogue.Datanode{Host: "dn2.example.com"}, Version: "11", Version2: "10"}
}

// masterLines adds master's "Invalid data node" line for dn2 on n heartbeats
// from start on the given SCMs; it returns the last heartbeat.
func (r *run) masterLines(on []string, start time.Time, n int) time.Time {
	at := start
	for i := 0; i < n; i++ {
		at = start.Add(time.Duration(i) * 30 * time.Second)
		for j, scm := range on {
			r.add(masterLine(scm, at.Add(time.Duration(j*50)*time.Millisecond)))
		}
	}
	return at
}

func t32(scm string, at time.Time, thread string) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.NewerDatanodeThanSCM, Time: at, Host: scm, Level: parsers.LevelError, Thread: thread,
		Datanode: dn3, Version: zdu, Version2: old}
}

// newerPairs adds the ZDU T32 + T30 pair for dn3 on n heartbeats from start
// on the given SCMs; it returns the last heartbeat.
func (r *run) newerPairs(on []string, start time.Time, n int) time.Time {
	at := start
	for i := 0; i < n; i++ {
		at = start.Add(time.Duration(i) * 30 * time.Second)
		for j, scm := range on {
			ts := at.Add(time.Duration(j*60) * time.Millisecond)
			th := fmt.Sprintf("IPC Server handler %d on default port 9861", (i+j)%100)
			r.add(t32(scm, ts, th))
			r.add(t30(scm, dn3.Host, ts.Add(time.Millisecond), th, zdu, old))
		}
	}
	return at
}

// scmRestarts adds a STARTUP_MSG on every SCM from at.
func (r *run) scmRestarts(at time.Time) {
	for i, scm := range scms {
		r.add(catalogue.Signal{Kind: catalogue.StartupMsg, Time: at.Add(time.Duration(i) * time.Second), Host: scm, Version: "2.2.0",
			Attrs: map[string]string{"service": "StorageContainerManager", "hostname": scm}})
	}
}

func TestOMAndDatanodeFinalizationDoNotMakeSCMFinalized(t *testing.T) {
	r := newRun(t, nil, nil)
	r.add(catalogue.Signal{Kind: catalogue.UpgradeFinalized, Time: t0, Host: "om1.example.com", Component: parsers.ComponentOM})
	r.add(catalogue.Signal{Kind: catalogue.UpgradeFinalized, Time: t0, Host: "dn1.example.com", Component: parsers.ComponentDatanode})
	last := r.pairs(scms, dn3, t0.Add(time.Minute), 30*time.Second, 10)
	f := only(t, r.flush(last.Add(time.Second)))
	if f.Confidence != detectors.Medium || f.Facts["finalization_logged"] != "no SCM finalization in the input" {
		t.Errorf("%v %v", f, f.Facts)
	}
}

// A datanode newer than SCM is never HDDS-17425. Master's line and ZDU's
// T32 + T30 pair are reported alike, as the separate wrong-upgrade-order
// finding, from the first heartbeat on, whether and whenever SCM finalized:
// finalization does not change the software versions the checks compare.
func TestNewerDatanodeIsSeparateFindingWhateverFinalization(t *testing.T) {
	type feed func(r *run, start time.Time, n int) time.Time
	master := func(r *run, start time.Time, n int) time.Time { return r.masterLines(scms, start, n) }
	zduPairs := func(r *run, start time.Time, n int) time.Time { return r.newerPairs(scms, start, n) }
	finalizeAt := map[string]func(first time.Time) (time.Time, bool){
		"no finalization":             func(time.Time) (time.Time, bool) { return time.Time{}, false },
		"finalized before the lines":  func(first time.Time) (time.Time, bool) { return first.Add(-time.Hour), true },
		"finalized amid the lines":    func(first time.Time) (time.Time, bool) { return first.Add(10 * time.Minute), true },
		"finalized after three beats": func(first time.Time) (time.Time, bool) { return first.Add(70 * time.Second), true },
	}
	for wording, lines := range map[string]feed{"master": master, "zdu": zduPairs} {
		for when, fin := range finalizeAt {
			t.Run(wording+"/"+when, func(t *testing.T) {
				r := newRun(t, nil, nil)
				first := t0.Add(2 * time.Hour)
				finAt, pending := fin(first)
				var last time.Time
				for i := 0; i < 43; i++ { // in time order, the finalization where it falls
					at := first.Add(time.Duration(i) * 30 * time.Second)
					if pending && !finAt.After(at) {
						r.finalized(finAt)
						pending = false
					}
					last = lines(r, at, 1)
				}
				f := only(t, r.flush(last.Add(time.Second)))
				if f.Defect != "unclassified" || f.Title != "Datanode runs newer software than SCM: wrong upgrade order (not HDDS-17425)" ||
					f.Severity != detectors.Warning || f.Confidence != detectors.High || f.State != detectors.Firing ||
					f.Facts["pattern"] != "datanode-newer-than-scm" || !strings.HasPrefix(f.Key, "newer-datanode/") {
					t.Fatalf("%+v", f)
				}
				if !f.Start.Equal(first) || f.Facts["heartbeats"] != "43" {
					t.Errorf("start %s (want the first line %s), heartbeats %s", f.Start, first, f.Facts["heartbeats"])
				}
				if _, has := f.Facts["finalization_logged"]; has || strings.Contains(f.Summary, "finaliz") {
					t.Errorf("finalization enters the finding: %v / %s", f.Facts, f.Summary)
				}
				if !strings.Contains(f.Summary, "wrong upgrade order") || !strings.Contains(f.Summary, "not HDDS-17425") ||
					!strings.Contains(f.Remediation[1], "SCM must be upgraded before datanodes") {
					t.Errorf("summary %s remediation %q", f.Summary, f.Remediation)
				}
				for _, e := range r.emitted {
					if e.Defect != "unclassified" {
						t.Errorf("emitted %s finding %s", e.Defect, e.Key)
					}
				}
			})
		}
	}
}

func TestNewerDatanodeFacts(t *testing.T) {
	r := newRun(t, nil, nil)
	f := only(t, r.flush(r.masterLines(scms, t0, 5).Add(time.Second)))
	if f.Facts["version_kind"] != "software layout version" || f.Facts["datanode_software_version"] != "11" ||
		f.Facts["scm_software_version"] != "10" || !strings.Contains(f.Facts["wording"], "Invalid data node in the cluster") ||
		f.Entities.Datanodes[0].Host != "dn2.example.com" || !strings.Contains(f.Remediation[3], "dn2.example.com") {
		t.Errorf("master: %v %q", f.Facts, f.Remediation)
	}
	r = newRun(t, nil, nil)
	f = only(t, r.flush(r.newerPairs(scms, t0, 5).Add(time.Second)))
	if f.Facts["version_kind"] != "software version" || f.Facts["datanode_software_version"] != zdu ||
		f.Facts["scm_software_version"] != old || f.Facts["datanode_apparent_version"] != zdu ||
		!strings.Contains(f.Facts["wording"], "SCM must be upgraded before datanodes") || f.Entities.Datanodes[0] != dn3 ||
		!strings.HasPrefix(f.Key, "newer-datanode/"+dn3.UUID+"/") || f.Facts["heartbeats_logged"] != "15" {
		t.Errorf("zdu: %v %s", f.Facts, f.Key)
	}
}

func TestNewerDatanodeResolvesAfterSCMUpgrade(t *testing.T) {
	r := newRun(t, nil, nil)
	last := r.masterLines(scms, t0, 5)
	r.scmRestarts(last.Add(20 * time.Second))
	f := only(t, r.flush(last.Add(time.Hour)))
	if f.State != detectors.Resolved || !strings.HasPrefix(f.Facts["resolution"], "SCM scm1.example.com restarted at") ||
		!strings.Contains(f.Facts["resolution"], "version 2.2.0") {
		t.Errorf("%s %q", f.State, f.Facts["resolution"])
	}
	var startup bool
	for _, e := range f.Evidence {
		startup = startup || e.Time.Equal(last.Add(20*time.Second))
	}
	if !startup {
		t.Errorf("SCM restart not in the evidence: %v", f.Evidence)
	}
	// An SCM restart in the middle of the lines does not end them.
	r = newRun(t, nil, nil)
	last = r.masterLines(scms, t0, 5)
	r.scmRestarts(last.Add(10 * time.Second))
	last = r.masterLines(scms, last.Add(30*time.Second), 5)
	f = only(t, r.flush(last.Add(time.Hour)))
	if f.State != detectors.Resolved || f.Facts["resolution"] != "the lines stopped; nothing in the input says why" {
		t.Errorf("%s %q", f.State, f.Facts["resolution"])
	}
}

func TestUpgradedDatanodeResolves(t *testing.T) {
	r := newRun(t, nil, nil)
	r.finalized(t0)
	last := r.pairs(scms, dn3, t0.Add(20*time.Second), 30*time.Second, 20)
	for _, scm := range scms {
		r.add(catalogue.Signal{Kind: catalogue.DatanodeRegistered, Time: last.Add(50 * time.Second), Host: scm, Datanode: dn3})
	}
	r.add(catalogue.Signal{Kind: catalogue.FinalizeCommandSent, Time: last.Add(100 * time.Second), Host: scms[0], Datanode: dn3, Version: old, Version2: zdu})
	r.add(catalogue.Signal{Kind: catalogue.StartupMsg, Time: last.Add(time.Hour), Host: "om1.example.com", Component: parsers.ComponentOM,
		Attrs: map[string]string{"service": "OzoneManager"}})
	f := only(t, r.flush(last.Add(time.Hour)))
	if f.State != detectors.Resolved || !f.End.Equal(last.Add(140*time.Millisecond)) ||
		!strings.HasPrefix(f.Facts["resolution"], "datanode upgraded: it re-registered") {
		t.Errorf("%v %s end %s %q", f, f.State, f.End, f.Facts["resolution"])
	}
	var resolvedEarly bool
	for _, e := range r.emitted {
		resolvedEarly = resolvedEarly || e.State == detectors.Resolved
	}
	if !resolvedEarly {
		t.Error("resolution was not reported before the end of the input")
	}
}

func TestFencedRestartResolves(t *testing.T) {
	r := newRun(t, nil, nil)
	r.finalized(t0)
	last := r.pairs(scms, dn3, t0.Add(20*time.Second), 30*time.Second, 10)
	for _, scm := range scms {
		r.add(t31(scm, dn3, last.Add(40*time.Second), "IPC Server handler 9 on default port 9861"))
	}
	f := only(t, r.flush(last.Add(10*time.Minute)))
	if f.State != detectors.Resolved || !strings.Contains(f.Facts["resolution"], "correct fencing") {
		t.Errorf("%v %v", f, f.Facts)
	}
}

func TestHeartbeatIntervalFromSite(t *testing.T) {
	// Pairs every 10 s with a 40 s gap: with hdds.heartbeat.interval=10s the
	// gap (> 3 intervals) ends the first occurrence; with the 30 s default it
	// is one occurrence.
	feed := func(r *run) time.Time {
		r.finalized(t0)
		last := r.pairs(scms, dn3, t0.Add(20*time.Second), 10*time.Second, 5)
		return r.pairs(scms, dn3, last.Add(40*time.Second), 10*time.Second, 5)
	}
	r := newRun(t, map[string]string{"hdds.heartbeat.interval": "10s"}, nil)
	fs := r.flush(feed(r).Add(time.Second))
	if len(fs) != 2 || fs[0].State != detectors.Resolved || fs[1].State != detectors.Firing ||
		fs[0].Facts["heartbeat_interval"] != "10s (ozone-site.xml)" || fs[0].Key == fs[1].Key {
		t.Fatalf("with 10s: %v", fs)
	}
	r = newRun(t, nil, nil)
	f := only(t, r.flush(feed(r).Add(time.Second)))
	if f.Facts["heartbeats"] != "10" || f.Facts["heartbeat_interval"] != "30s (default)" {
		t.Errorf("default: %v", f.Facts)
	}
}

func TestMinHeartbeatsOption(t *testing.T) {
	r := newRun(t, nil, map[string]string{"min_heartbeats": "5"})
	r.finalized(t0)
	last := r.pairs(scms, dn3, t0.Add(20*time.Second), 30*time.Second, 4)
	if f := only(t, r.flush(last.Add(time.Second))); f.Confidence != detectors.Low {
		t.Errorf("%v", f)
	}
	for _, bad := range []string{"1", "x", "-3"} {
		_, err := olddatanode.Registration.New(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(),
			Options: map[string]string{"min_heartbeats": bad}})
		if err == nil {
			t.Errorf("min_heartbeats=%s accepted", bad)
		}
	}
}

func TestDocRemediationExecutes(t *testing.T) {
	d := olddatanode.Registration.Doc
	for _, p := range []string{"older-datanode-after-finalization", "datanode-newer-than-scm"} {
		steps, err := d.Remediate(&detectors.Finding{Facts: map[string]string{"pattern": p, "datanode_host": "dn9"}})
		if err != nil || len(steps) != 4 {
			t.Fatalf("%s: %v %v", p, steps, err)
		}
		for _, s := range steps {
			if strings.Contains(s, "<no value>") {
				t.Errorf("%s: unfilled step %q", p, s)
			}
		}
	}
}

// A heartbeat interval learned after the detector was built (ozone-site.xml
// arriving mid-stream) is used from then on.
func TestHeartbeatIntervalLearnedLater(t *testing.T) {
	r := newRun(t, nil, nil)
	r.settings.Set("hdds.heartbeat.interval", "10s", "ozone-site.xml")
	r.finalized(t0)
	last := r.pairs(scms, dn3, t0.Add(20*time.Second), 10*time.Second, 5)
	last = r.pairs(scms, dn3, last.Add(40*time.Second), 10*time.Second, 5)
	fs := r.flush(last.Add(time.Second))
	if len(fs) != 2 || fs[0].Facts["heartbeat_interval"] != "10s (ozone-site.xml)" || fs[0].Facts["resolve_after"] != "30s (3 heartbeat intervals)" {
		t.Fatalf("%v", fs)
	}
}

// What ends a resolved occurrence is reported when its line comes, not only
// at the end of the input; the state says what it holds.
func TestResolutionUpdatedInTime(t *testing.T) {
	r := newRun(t, nil, nil)
	r.finalized(t0)
	last := r.pairs(scms, dn3, t0.Add(20*time.Second), 30*time.Second, 10)
	r.eng.Advance(last.Add(5 * time.Minute))
	n := len(r.emitted)
	if n == 0 || r.emitted[n-1].State != detectors.Resolved || r.emitted[n-1].Facts["resolution"] != "the pair stopped; nothing in the input says why" {
		t.Fatalf("want a resolution without a reason, got %v", r.emitted)
	}
	r.add(catalogue.Signal{Kind: catalogue.FinalizeCommandSent, Time: last.Add(6 * time.Minute), Host: scms[0], Datanode: dn3, Version: old, Version2: zdu})
	r.eng.Advance(last.Add(7 * time.Minute))
	if len(r.emitted) != n+1 || !strings.HasPrefix(r.emitted[n].Facts["resolution"], "datanode upgraded") || r.emitted[n].Key != r.emitted[n-1].Key {
		t.Fatalf("want the resolution re-reported with its reason, got %v", r.emitted[n:])
	}
}
