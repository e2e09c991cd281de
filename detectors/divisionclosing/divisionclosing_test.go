package divisionclosing

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

const (
	dnUUID   = "6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9"
	dnHost   = "dn3" // as the bundle names the host
	dnFQDN   = "dn3.example.com"
	pipeUUID = "8a1c2d3e-4f50-6172-8394-4c3fa0e1b2d9"
	group    = "group-4C3FA0E1B2D9"
	scmHost  = "scm1"
)

var t0 = time.Date(2026, 8, 23, 10, 40, 0, 0, time.UTC)

// feed runs the detector through the engine over signals (in order) and
// returns the findings at end.
func feed(t *testing.T, opts map[string]string, end time.Time, sigs ...catalogue.Signal) []detectors.Finding {
	t.Helper()
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: opts}
	for i := range sigs {
		env.Identity.Learn(&sigs[i])
	}
	eng, err := detectors.NewEngine([]detectors.Registration{Registration}, env)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sigs {
		eng.Observe(&sigs[i])
	}
	return detectortest.Reported(eng.Finish(end))
}

// final returns the last emission of every key that is not withdrawn, as
// the engine keeps them for a report.
func final(emitted []detectors.Finding) []detectors.Finding {
	last := map[string]int{}
	var keys []string
	for i, f := range emitted {
		if _, ok := last[f.Key]; !ok {
			keys = append(keys, f.Key)
		}
		last[f.Key] = i
	}
	var out []detectors.Finding
	for _, k := range keys {
		if f := emitted[last[k]]; !detectors.Withdrawn(f) {
			out = append(out, f)
		}
	}
	return out
}

func dn(kind catalogue.Kind, at time.Time, thread string) catalogue.Signal {
	return catalogue.Signal{Kind: kind, Time: at, Host: dnHost, Component: parsers.ComponentDatanode, Thread: thread,
		Origin: parsers.Origin{File: "dn3/ozone-hadoop-datanode-dn3.example.com.log", Line: int(at.Sub(t0) / time.Millisecond)},
		Text:   string(kind) + " at " + at.Format(time.RFC3339Nano)}
}

func writeTimeout(at time.Time, thread string) catalogue.Signal {
	s := dn(catalogue.WriteChunkTimeout, at, thread)
	s.Group, s.Index = group, 1042
	return s
}

func closeServer(at time.Time, thread string) catalogue.Signal {
	s := dn(catalogue.StateMachineCloseServer, at, thread)
	s.Peer = dnUUID
	return s
}

func shutdown(at time.Time, thread string) catalogue.Signal {
	s := dn(catalogue.DivisionShutdown, at, thread)
	s.Peer, s.Group = dnUUID, group
	return s
}

func removal(at time.Time, state string) catalogue.Signal {
	s := dn(catalogue.RaftGroupRemove, at, dnUUID+"-ClosePipelineCommandHandlerThread-0")
	s.Peer, s.Group, s.State, s.Attrs = dnUUID, group, state, map[string]string{"role": "LEADER"}
	return s
}

func storageRemoved(at time.Time) catalogue.Signal {
	s := dn(catalogue.RaftStorageRemoved, at, dnUUID+"-ClosePipelineCommandHandlerThread-0")
	s.Peer, s.Group = dnUUID, group
	return s
}

func pipelineClosed(at time.Time) catalogue.Signal {
	s := dn(catalogue.ClosePipelineDone, at, dnUUID+"-ClosePipelineCommandHandlerThread-0")
	s.Pipeline, s.Datanode = pipeUUID, catalogue.Datanode{UUID: dnUUID}
	return s
}

func failed(at time.Time, container uint64, reason, state string) catalogue.Signal {
	s := dn(catalogue.CloseContainerFailed, at, dnUUID+"-CloseContainerThread-0")
	s.Container, s.Reason, s.State = container, reason, state
	if reason == "ServerNotReadyException" || reason == "GroupMismatchException" {
		s.Peer, s.Group = dnUUID, group
	}
	return s
}

func quasiClosed(at time.Time, container uint64, g string) catalogue.Signal {
	s := dn(catalogue.ContainerQuasiClosed, at, "")
	s.Container, s.Group = container, g
	return s
}

func resend(at time.Time, container uint64, state string) catalogue.Signal {
	return catalogue.Signal{Kind: catalogue.SCMCloseContainerCommand, Time: at, Host: scmHost, Component: parsers.ComponentSCM,
		Thread: "ReplicationMonitor", Container: container, Pipeline: pipeUUID, State: state,
		Datanode: catalogue.Datanode{UUID: dnUUID, Host: dnFQDN, IP: "10.0.2.3"},
		Origin:   parsers.Origin{File: "scm1/ozone-hadoop-scm-scm1.example.com.log", Line: 7},
		Text:     fmt.Sprintf("Sending command [closeContainerCommand: ... containerID: %d ...", container)}
}

func startup(at time.Time, version string) catalogue.Signal {
	s := dn(catalogue.StartupMsg, at, "main")
	s.Version, s.Attrs = version, map[string]string{"service": "HddsDatanodeService"}
	return s
}

// stuckLeader is the whole defect: the trigger on the client thread, close
// failures while CLOSING, the removal in CLOSING, then SCM re-sending close
// commands every 5 minutes that fail with GroupMismatch, for dur.
func stuckLeader(dur time.Duration) []catalogue.Signal {
	thread := dnUUID + "-client-thread3"
	sigs := []catalogue.Signal{
		startup(t0.Add(-time.Hour), "2.3.0-SNAPSHOT"),
		writeTimeout(t0, thread),
		closeServer(t0.Add(time.Millisecond), thread),
		shutdown(t0.Add(2*time.Millisecond), thread),
	}
	closeAt := t0.Add(5 * time.Minute)
	for i, c := range []uint64{12, 14, 17} {
		sigs = append(sigs, failed(closeAt.Add(time.Duration(i)*time.Millisecond), c, "ServerNotReadyException", "CLOSING"))
	}
	sigs = append(sigs, removal(closeAt.Add(time.Second), "CLOSING"))
	for at := closeAt.Add(5 * time.Minute); at.Before(t0.Add(dur)); at = at.Add(5 * time.Minute) {
		for i, c := range []uint64{12, 14, 17} {
			// SCM logs the command a few seconds before the datanode fails it.
			sigs = append(sigs, failed(at.Add(time.Duration(i)*time.Millisecond), c, "GroupMismatchException", ""),
				resend(at.Add(time.Duration(i)*time.Millisecond-3*time.Second), c, "QUASI_CLOSED"))
		}
	}
	sortSignals(sigs)
	return sigs
}

func sortSignals(sigs []catalogue.Signal) {
	for i := 1; i < len(sigs); i++ {
		for j := i; j > 0 && sigs[j].Time.Before(sigs[j-1].Time); j-- {
			sigs[j], sigs[j-1] = sigs[j-1], sigs[j]
		}
	}
}

func only(t *testing.T, fs []detectors.Finding) detectors.Finding {
	t.Helper()
	if len(fs) != 1 {
		t.Fatalf("got %d findings, want 1: %v", len(fs), fs)
	}
	return fs[0]
}

func TestStuckLeaderIsCriticalWithEverything(t *testing.T) {
	f := only(t, feed(t, nil, t0.Add(90*time.Minute), stuckLeader(90*time.Minute)...))
	if f.Severity != detectors.Critical || f.Confidence != detectors.High || f.State != detectors.Firing {
		t.Errorf("severity/confidence/state: %v %v %v", f.Severity, f.Confidence, f.State)
	}
	if !f.Start.Equal(t0) || !f.End.Equal(t0.Add(90*time.Minute)) {
		t.Errorf("start/end: %v %v", f.Start, f.End)
	}
	want := detectors.Entities{Hosts: []string{dnHost, scmHost},
		Datanodes:  []catalogue.Datanode{{UUID: dnUUID, Host: dnFQDN}},
		Containers: []uint64{12, 14, 17}, Pipelines: []string{pipeUUID}, RaftGroups: []string{group}}
	if fmt.Sprint(f.Entities) != fmt.Sprint(want) {
		t.Errorf("entities:\n got %+v\nwant %+v", f.Entities, want)
	}
	for k, v := range map[string]string{
		"failed_close_attempts": "51", "failed_close_not_running": "3", "failed_close_group_not_found": "48",
		"scm_close_commands": "48", "scm_container_state": "QUASI_CLOSED", "group_removal": "LEADER (CLOSING)",
		"ozone_version": "2.3.0-SNAPSHOT", "stuck_after": "5m0s (default)", "stuck_for": "1h30m0s",
		"trigger": "write-chunk timeout, then close server on Ratis thread " + dnUUID + "-client-thread3",
	} {
		if f.Facts[k] != v {
			t.Errorf("fact %s = %q, want %q", k, f.Facts[k], v)
		}
	}
	if len(f.Evidence) > detectors.MaxEvidence || f.Facts["evidence_dropped"] == "" {
		t.Errorf("evidence %d, dropped %q", len(f.Evidence), f.Facts["evidence_dropped"])
	}
	if f.Evidence[0].Text != writeTimeout(t0, "").Text {
		t.Errorf("first evidence should be the trigger: %+v", f.Evidence[:2])
	}
	for i := 1; i < len(f.Evidence); i++ {
		if f.Evidence[i].Time.Before(f.Evidence[i-1].Time) {
			t.Errorf("evidence not in time order at %d", i)
		}
	}
	if !strings.Contains(f.Summary, "stuck in CLOSING since 2026-08-23 10:40:00 UTC") || !strings.Contains(f.Summary, "51 close attempts") {
		t.Errorf("summary: %s", f.Summary)
	}
	steps := strings.Join(f.Remediation, "\n")
	for _, w := range []string{"ozone admin container info 12", "ozone admin container info 17", "on " + dnFQDN,
		"ozone admin pipeline close " + pipeUUID, "ozone admin datanode decommission " + dnFQDN, group} {
		if !strings.Contains(steps, w) {
			t.Errorf("remediation lacks %q:\n%s", w, steps)
		}
	}
}

func TestWarningBeforeStuckAfterThenCritical(t *testing.T) {
	// The trigger and the removal in CLOSING are certain at once: warning
	// while younger than stuck-after.
	thread := dnUUID + "-client-thread3"
	sigs := []catalogue.Signal{writeTimeout(t0, thread), closeServer(t0.Add(time.Millisecond), thread),
		removal(t0.Add(time.Minute), "CLOSING")}
	f := only(t, feed(t, nil, t0.Add(3*time.Minute), sigs...))
	if f.Severity != detectors.Warning || f.Confidence != detectors.High || f.Facts["stuck_for"] != "3m0s" {
		t.Errorf("at 3m with stuck-after 5m: %v %v %v", f.Severity, f.Confidence, f.Facts["stuck_for"])
	}
	// With stuck-after 2h, 40 minutes are still a warning.
	f = only(t, feed(t, map[string]string{"stuck-after": "2h"}, t0.Add(40*time.Minute), stuckLeader(40*time.Minute)...))
	if f.Severity != detectors.Warning || f.Facts["stuck_after"] != "2h0m0s (option stuck-after)" {
		t.Errorf("stuck-after 2h: %v %q", f.Severity, f.Facts["stuck_after"])
	}
}

func TestEarlyEmissionEscalatesUnderSameKey(t *testing.T) {
	var got []detectors.Finding
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	d, err := newDetector(env)
	if err != nil {
		t.Fatal(err)
	}
	emit := func(f detectors.Finding) { got = append(got, f) }
	ticked := false
	for _, s := range stuckLeader(30 * time.Minute) {
		// The clock passes the grace before the next signal arrives.
		if tick := t0.Add(90 * time.Second); !ticked && s.Time.After(tick) {
			d.Advance(tick, emit)
			ticked = true
		}
		d.Advance(s.Time, emit)
		d.Observe(&s, emit)
	}
	d.Advance(t0.Add(30*time.Minute), emit)
	d.End(t0.Add(30*time.Minute), emit)
	if len(got) < 3 {
		t.Fatalf("want an early warning, an escalation and a final report, got %d", len(got))
	}
	if got[0].Severity != detectors.Warning || !got[0].Start.Equal(t0) {
		t.Errorf("first emission: %v at %v", got[0].Severity, got[0].Start)
	}
	for _, f := range got {
		if f.Key != got[0].Key {
			t.Errorf("key changed: %q vs %q", f.Key, got[0].Key)
		}
	}
	if last := got[len(got)-1]; last.Severity != detectors.Critical {
		t.Errorf("last emission: %v", last.Severity)
	}
}

func TestResolvesAfterRestart(t *testing.T) {
	sigs := stuckLeader(25 * time.Minute)
	up := t0.Add(27 * time.Minute)
	sigs = append(sigs,
		startup(up, "2.3.0-SNAPSHOT"),
		failed(up.Add(9*time.Second), 12, "ServerNotReadyException", "STARTING"),
		removal(up.Add(40*time.Second), "RUNNING"),
		storageRemoved(up.Add(41*time.Second)),
		pipelineClosed(up.Add(42*time.Second)))
	f := only(t, feed(t, nil, t0.Add(2*time.Hour), sigs...))
	if f.State != detectors.Resolved || !f.End.Equal(up.Add(41*time.Second)) || f.Severity != detectors.Critical {
		t.Errorf("state %v end %v severity %v", f.State, f.End, f.Severity)
	}
	if f.Facts["datanode_restarted"] != up.Format(time.RFC3339) || !strings.Contains(f.Facts["resolved_by"], "storage was removed") {
		t.Errorf("facts: %v", f.Facts)
	}
	if f.Facts["failed_close_attempts"] != "12" {
		t.Errorf("the STARTING failure after the restart counted: %s", f.Facts["failed_close_attempts"])
	}
}

func TestResolvesOnQuasiClose(t *testing.T) {
	for name, done := range map[string]catalogue.Signal{
		"container log names the group": quasiClosed(t0.Add(20*time.Minute), 14, group),
		"close handler quasi-closes":    quasiClosed(t0.Add(20*time.Minute), 17, ""),
		"close pipeline completes":      pipelineClosed(t0.Add(20 * time.Minute)),
	} {
		sigs := append(stuckLeader(19*time.Minute), done)
		f := only(t, feed(t, nil, t0.Add(time.Hour), sigs...))
		if f.State != detectors.Resolved || !f.End.Equal(t0.Add(20*time.Minute)) {
			t.Errorf("%s: state %v end %v", name, f.State, f.End)
		}
	}
	// A quasi-close of another group's container resolves nothing.
	sigs := append(stuckLeader(19*time.Minute), quasiClosed(t0.Add(20*time.Minute), 99, "group-000000000001"))
	if f := only(t, feed(t, nil, t0.Add(time.Hour), sigs...)); f.State != detectors.Firing {
		t.Errorf("other group's quasi-close resolved the finding")
	}
}

func TestFollowerWithoutThreadColumn(t *testing.T) {
	// Layouts without %t: the timeout right before the close server names
	// the Ratis path.
	sigs := []catalogue.Signal{
		writeTimeout(t0, ""), closeServer(t0.Add(time.Millisecond), ""), shutdown(t0.Add(2*time.Millisecond), ""),
		failed(t0.Add(5*time.Minute), 12, "ServerNotReadyException", "CLOSING"),
		failed(t0.Add(10*time.Minute), 12, "ServerNotReadyException", "CLOSING"),
	}
	f := only(t, feed(t, nil, t0.Add(15*time.Minute), sigs...))
	if f.Confidence != detectors.High || f.Facts["trigger"] != "write-chunk timeout, then close server on Ratis thread (thread not logged)" ||
		f.Facts["group_removal"] != "not in the logs" {
		t.Errorf("%v %v", f.Confidence, f.Facts)
	}
	// Without the timeout before it, a thread-less close server is not the Ratis path.
	if fs := feed(t, nil, t0.Add(15*time.Minute), closeServer(t0, ""), shutdown(t0.Add(time.Millisecond), "")); len(fs) != 0 {
		t.Errorf("thread-less close server alone: %v", fs)
	}
	// A close server on a Ratis thread without the timeout line: named by the shutdown that follows.
	thread := dnUUID + "-server-thread1"
	f = only(t, feed(t, nil, t0.Add(15*time.Minute), closeServer(t0, thread), shutdown(t0.Add(time.Millisecond), thread)))
	if f.Confidence != detectors.Medium || f.Entities.RaftGroups[0] != group || f.Facts["trigger"] != "close server on Ratis thread "+thread {
		t.Errorf("%v %v", f.Confidence, f.Facts)
	}
	if first := f.Remediation[0]; !strings.HasPrefix(first, "Confirm on SCM: `ozone admin container list --state CLOSING`: the replica on dn3 (") {
		t.Errorf("remediation without containers: %s", first)
	}
}

func TestCloseFailuresOnly(t *testing.T) {
	var sigs []catalogue.Signal
	for i := 0; i < 6; i++ {
		at := t0.Add(time.Duration(i) * 5 * time.Minute)
		sigs = append(sigs, resend(at, 12, "CLOSING"), failed(at.Add(time.Second), 12, "ServerNotReadyException", "CLOSING"))
	}
	f := only(t, feed(t, nil, t0.Add(30*time.Minute), sigs...))
	if f.Confidence != detectors.High || f.Facts["trigger"] != "not in the logs" || f.Facts["failed_close_attempts"] != "6" ||
		!f.Start.Equal(t0.Add(time.Second)) || f.Facts["scm_close_commands"] != "6" ||
		f.Facts["repeated_container"] != "#12: 6 failures in 6 resend cycles over 25m0s" ||
		f.Facts["resend_interval"] != "5m0s (default, hdds.scm.replication.thread.interval)" {
		t.Errorf("%v %v %v", f.Confidence, f.Start, f.Facts)
	}
	if !strings.Contains(f.Summary, "container #12 failed in 6 resend cycles over 25m0s") {
		t.Errorf("summary: %s", f.Summary)
	}
	// Three resend cycles are enough.
	f = only(t, feed(t, nil, t0.Add(30*time.Minute), sigs[:6]...))
	if f.Confidence != detectors.High || f.Facts["repeated_container"] != "#12: 3 failures in 3 resend cycles over 10m0s" {
		t.Errorf("three cycles: %v %v", f.Confidence, f.Facts)
	}
	// Two cycles are not, however long the input runs on.
	if fs := feed(t, nil, t0.Add(2*time.Hour), sigs[:4]...); len(fs) != 0 {
		t.Errorf("two cycles: %v", fs)
	}
	// Two failures more than ten minutes apart: the division is stuck, less
	// certainly.
	f = only(t, feed(t, nil, t0.Add(30*time.Minute), sigs[1], failed(t0.Add(11*time.Minute), 12, "GroupMismatchException", "")))
	if f.Confidence != detectors.Medium || f.Facts["repeated_container"] != "#12: 2 failures in 2 resend cycles over 10m59s" {
		t.Errorf("over ten minutes: %v %v", f.Confidence, f.Facts)
	}
	// A RejectedExecutionException names no group: it is added once other
	// failures tied the container to the group.
	rej := failed(t0.Add(31*time.Minute), 12, "RejectedExecutionException", "")
	f = only(t, feed(t, nil, t0.Add(35*time.Minute), append(sigs, rej)...))
	if f.Facts["failed_close_rejected"] != "1" || f.Facts["failed_close_attempts"] != "7" {
		t.Errorf("rejected: %v", f.Facts)
	}
}

func TestRepetitionIsPerContainerAndCycle(t *testing.T) {
	cases := map[string][]catalogue.Signal{
		// The review's probe without the restart: two containers in one second.
		"two containers in the same second": {
			failed(t0, 12, "ServerNotReadyException", "CLOSING"), failed(t0.Add(300*time.Millisecond), 14, "ServerNotReadyException", "CLOSING"),
		},
		"many failures of one container in one cycle": {
			failed(t0, 12, "ServerNotReadyException", "CLOSING"), failed(t0.Add(2*time.Second), 12, "ServerNotReadyException", "CLOSING"),
			failed(t0.Add(40*time.Second), 12, "GroupMismatchException", ""), failed(t0.Add(90*time.Second), 12, "GroupMismatchException", ""),
			failed(t0.Add(3*time.Minute), 12, "GroupMismatchException", ""),
		},
		"three containers, one cycle each": {
			failed(t0, 12, "ServerNotReadyException", "CLOSING"), failed(t0.Add(5*time.Minute), 14, "GroupMismatchException", ""),
			failed(t0.Add(10*time.Minute), 17, "GroupMismatchException", ""), failed(t0.Add(15*time.Minute), 19, "GroupMismatchException", ""),
		},
		// Each failure alone; the container's group is known from SCM.
		"RejectedExecutionException alone, every cycle": {
			resend(t0, 12, "CLOSING"), failed(t0.Add(time.Second), 12, "RejectedExecutionException", ""),
			resend(t0.Add(5*time.Minute), 12, "CLOSING"), failed(t0.Add(5*time.Minute+time.Second), 12, "RejectedExecutionException", ""),
			resend(t0.Add(10*time.Minute), 12, "CLOSING"), failed(t0.Add(10*time.Minute+time.Second), 12, "RejectedExecutionException", ""),
			resend(t0.Add(15*time.Minute), 12, "CLOSING"), failed(t0.Add(15*time.Minute+time.Second), 12, "RejectedExecutionException", ""),
		},
		"one CLOSING failure and rejections in later cycles": {
			failed(t0, 12, "ServerNotReadyException", "CLOSING"),
			failed(t0.Add(5*time.Minute), 12, "RejectedExecutionException", ""),
			failed(t0.Add(11*time.Minute), 12, "RejectedExecutionException", ""),
		},
		// The failures stopped for three cycles: a new episode starts over.
		"two failures with a gap of three cycles": {
			failed(t0, 12, "ServerNotReadyException", "CLOSING"), failed(t0.Add(16*time.Minute), 12, "GroupMismatchException", ""),
		},
	}
	for name, sigs := range cases {
		sortSignals(sigs)
		if fs := feed(t, nil, t0.Add(2*time.Hour), sigs...); len(fs) != 0 {
			t.Errorf("%s: %v", name, fs)
		}
	}
}

func TestRaceLeavesNoDivision(t *testing.T) {
	// GroupMismatch failures racing a normal removal, before and after its
	// completion, leave nothing open for a group that is gone.
	d, err := newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	var got []detectors.Finding
	emit := func(f detectors.Finding) { got = append(got, f) }
	defer func() {
		// A division suspected before the removal completed is pending,
		// then withdrawn: nothing reaches a report.
		if fs := final(got); len(fs) != 0 {
			t.Errorf("findings: %v", fs)
		}
	}()
	for _, s := range []catalogue.Signal{
		removal(t0, "RUNNING"),
		failed(t0.Add(12*time.Millisecond), 12, "GroupMismatchException", ""),
		failed(t0.Add(18*time.Millisecond), 14, "GroupMismatchException", ""),
		storageRemoved(t0.Add(50 * time.Millisecond)),
		failed(t0.Add(400*time.Millisecond), 12, "GroupMismatchException", ""),
		failed(t0.Add(50*time.Second), 17, "GroupMismatchException", ""),
	} {
		d.Observe(&s, emit)
	}
	if n := d.(*detector).divisions.Len(); n != 0 {
		t.Errorf("%d divisions open after the race", n)
	}
}

func TestStaleDropDoesNotDependOnTicks(t *testing.T) {
	// The gap is decided from the failures' own times, with or without a
	// clock tick between them.
	sigs := []catalogue.Signal{failed(t0, 12, "ServerNotReadyException", "CLOSING"),
		failed(t0.Add(16*time.Minute), 12, "GroupMismatchException", "")}
	for _, tick := range []bool{false, true} {
		d, err := newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()})
		if err != nil {
			t.Fatal(err)
		}
		var got []detectors.Finding
		emit := func(f detectors.Finding) { got = append(got, f) }
		d.Observe(&sigs[0], emit)
		if tick {
			d.Advance(t0.Add(15*time.Minute+30*time.Second), emit)
		}
		d.Observe(&sigs[1], emit)
		d.Advance(t0.Add(2*time.Hour), emit)
		d.End(t0.Add(2*time.Hour), emit)
		if fs := final(got); len(fs) != 0 {
			t.Errorf("tick %v: %v", tick, fs)
		}
	}
}

func TestResendIntervalFromSettings(t *testing.T) {
	for _, later := range []bool{false, true} {
		testResendInterval(t, later)
	}
}

// testResendInterval sets the resend interval before the detector is
// built, or after (ozone-site.xml learned mid-stream).
func testResendInterval(t *testing.T, later bool) {
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	if !later {
		env.Settings.Set("hdds.scm.replication.thread.interval", "60s", "ozone-site.xml")
	}
	eng, err := detectors.NewEngine([]detectors.Registration{Registration}, env)
	if err != nil {
		t.Fatal(err)
	}
	if later {
		env.Settings.Set("hdds.scm.replication.thread.interval", "60s", "ozone-site.xml")
	}
	// Three one-minute cycles confirm the division after two minutes; a
	// failure 50 seconds later is still the same cycle.
	for _, s := range []catalogue.Signal{
		failed(t0, 12, "ServerNotReadyException", "CLOSING"),
		failed(t0.Add(50*time.Second), 12, "ServerNotReadyException", "CLOSING"),
		failed(t0.Add(61*time.Second), 12, "ServerNotReadyException", "CLOSING"),
		failed(t0.Add(122*time.Second), 12, "GroupMismatchException", ""),
	} {
		eng.Observe(&s)
	}
	f := only(t, detectortest.Reported(eng.Finish(t0.Add(3*time.Minute))))
	if f.Facts["resend_interval"] != "1m0s (ozone-site.xml, hdds.scm.replication.thread.interval)" ||
		f.Facts["repeated_container"] != "#12: 4 failures in 3 resend cycles over 2m2s" {
		t.Errorf("facts: %v", f.Facts)
	}
}

func TestRestartEndsFailuresOnlyDivisions(t *testing.T) {
	up := t0.Add(40 * time.Second)
	// The review's probe: two failures while the datanode shuts down, then
	// a restart and nothing else.
	probe := []catalogue.Signal{
		failed(t0, 12, "ServerNotReadyException", "CLOSING"), failed(t0, 14, "ServerNotReadyException", "CLOSING"),
		startup(up, "2.3.0-SNAPSHOT"),
	}
	if fs := feed(t, nil, t0.Add(2*time.Hour), probe...); len(fs) != 0 {
		t.Errorf("probe: %v", fs)
	}
	// The failures before the restart do not add up with those after it:
	// shutdown failures, a restart twelve minutes later, one command failing
	// while STARTING, then a GroupMismatch racing the normal removal.
	up = t0.Add(12 * time.Minute)
	shutdownThenRace := []catalogue.Signal{
		failed(t0, 12, "ServerNotReadyException", "CLOSING"), failed(t0.Add(100*time.Millisecond), 12, "ServerNotReadyException", "CLOSING"),
		failed(t0.Add(150*time.Millisecond), 14, "ServerNotReadyException", "CLOSING"),
		failed(t0.Add(200*time.Millisecond), 14, "RejectedExecutionException", ""),
		startup(up, "2.3.0-SNAPSHOT"),
		failed(up.Add(16*time.Second), 12, "ServerNotReadyException", "STARTING"),
		removal(up.Add(40*time.Second), "RUNNING"),
		failed(up.Add(40*time.Second+12*time.Millisecond), 12, "GroupMismatchException", ""),
		storageRemoved(up.Add(40*time.Second + 50*time.Millisecond)),
	}
	if fs := feed(t, nil, t0.Add(2*time.Hour), shutdownThenRace...); len(fs) != 0 {
		t.Errorf("shutdown failures, restart, race: %v", fs)
	}
	// A division reported on failures alone resolves at the restart.
	var sigs []catalogue.Signal
	for i := 0; i < 4; i++ {
		sigs = append(sigs, failed(t0.Add(time.Duration(i)*5*time.Minute), 12, "ServerNotReadyException", "CLOSING"))
	}
	up = t0.Add(17 * time.Minute)
	sigs = append(sigs, startup(up, "2.3.0-SNAPSHOT"))
	f := only(t, feed(t, nil, t0.Add(2*time.Hour), sigs...))
	if f.State != detectors.Resolved || !f.End.Equal(up) || f.Facts["datanode_restarted"] != up.Format(time.RFC3339) ||
		!strings.Contains(f.Facts["resolved_by"], "the datanode restarted at 2026-08-23 10:57:00 UTC") {
		t.Errorf("state %v end %v facts %v", f.State, f.End, f.Facts)
	}
	if !strings.Contains(f.Summary, "resolved when the datanode restarted") {
		t.Errorf("summary: %s", f.Summary)
	}
	// Another datanode's restart changes nothing.
	other := startup(up, "2.3.0-SNAPSHOT")
	other.Host = "dn1"
	sigs[len(sigs)-1] = other
	if f := only(t, feed(t, nil, t0.Add(2*time.Hour), sigs...)); f.State != detectors.Firing {
		t.Errorf("another datanode's restart: %v", f.State)
	}
}

func TestStrongDivisionStaysFiringAfterRestartAlone(t *testing.T) {
	// The restart is the fix, but only the group's removal afterwards shows
	// it worked.
	up := t0.Add(27 * time.Minute)
	sigs := append(stuckLeader(25*time.Minute), startup(up, "2.3.0-SNAPSHOT"),
		failed(up.Add(9*time.Second), 12, "ServerNotReadyException", "STARTING"))
	f := only(t, feed(t, nil, t0.Add(2*time.Hour), sigs...))
	if f.State != detectors.Firing || f.Facts["datanode_restarted"] != up.Format(time.RFC3339) || f.Facts["repeat_rule"] != "" {
		t.Errorf("state %v facts %v", f.State, f.Facts)
	}
}

func TestNearMissesStayQuiet(t *testing.T) {
	ratis := dnUUID + "-client-thread3"
	chunk := dnUUID + "-ChunkWriter-2-0"
	cases := map[string][]catalogue.Signal{
		"normal removal": {
			removal(t0, "RUNNING"), shutdown(t0.Add(time.Millisecond), dnUUID+"-ClosePipelineCommandHandlerThread-0"),
			storageRemoved(t0.Add(20 * time.Millisecond)), pipelineClosed(t0.Add(25 * time.Millisecond)),
		},
		"one STARTING failure after a restart": {
			startup(t0, "2.3.0-SNAPSHOT"), failed(t0.Add(20*time.Second), 12, "ServerNotReadyException", "STARTING"),
		},
		"STARTING failures in four cycles": {
			startup(t0.Add(-time.Minute), "2.3.0-SNAPSHOT"),
			failed(t0, 12, "ServerNotReadyException", "STARTING"), failed(t0.Add(5*time.Minute), 12, "ServerNotReadyException", "STARTING"),
			failed(t0.Add(10*time.Minute), 12, "ServerNotReadyException", "STARTING"), failed(t0.Add(15*time.Minute), 12, "ServerNotReadyException", "STARTING"),
		},
		"other causes": {
			failed(t0, 12, "", ""), failed(t0.Add(5*time.Minute), 12, "", ""), failed(t0.Add(10*time.Minute), 12, "", ""),
			failed(t0.Add(15*time.Minute), 12, "", ""),
		},
		"GroupMismatch race during a normal removal": {
			removal(t0, "RUNNING"), failed(t0.Add(10*time.Millisecond), 12, "GroupMismatchException", ""),
			storageRemoved(t0.Add(20 * time.Millisecond)), pipelineClosed(t0.Add(25 * time.Millisecond)),
		},
		"GroupMismatch just after the removal completed": {
			removal(t0, "RUNNING"), storageRemoved(t0.Add(20 * time.Millisecond)),
			failed(t0.Add(2*time.Second), 12, "GroupMismatchException", ""),
			failed(t0.Add(3*time.Second), 14, "GroupMismatchException", ""),
		},
		"a single CLOSING failure": {
			failed(t0, 12, "ServerNotReadyException", "CLOSING"),
		},
		"write-chunk timeout alone (2.2.0)": {
			startup(t0.Add(-time.Hour), "2.2.0"), writeTimeout(t0, ratis),
			removal(t0.Add(5*time.Minute), "RUNNING"), storageRemoved(t0.Add(5*time.Minute + time.Second)),
		},
		"close server on a ChunkWriter thread that completes": {
			closeServer(t0, chunk), shutdown(t0.Add(time.Millisecond), chunk),
			removal(t0.Add(4*time.Minute), "CLOSED"), storageRemoved(t0.Add(4*time.Minute + time.Second)),
			pipelineClosed(t0.Add(4*time.Minute + 2*time.Second)),
		},
		"close on the Ratis thread that completes within the grace": {
			writeTimeout(t0, ratis), closeServer(t0.Add(time.Millisecond), ratis), shutdown(t0.Add(2*time.Millisecond), ratis),
			storageRemoved(t0.Add(20 * time.Second)),
		},
		"removal in CLOSING that completes within the grace": {
			removal(t0, "CLOSING"), storageRemoved(t0.Add(3 * time.Second)),
		},
		"SCM resends alone": {
			resend(t0, 12, "CLOSING"), resend(t0.Add(5*time.Minute), 12, "CLOSING"), resend(t0.Add(10*time.Minute), 12, "CLOSING"),
		},
	}
	for name, sigs := range cases {
		sortSignals(sigs)
		if fs := feed(t, nil, t0.Add(2*time.Hour), sigs...); len(fs) != 0 {
			t.Errorf("%s: %v", name, fs)
		}
	}
}

func TestOtherHostsAndGroupsAreSeparate(t *testing.T) {
	sigs := stuckLeader(30 * time.Minute)
	// A peer removes the same group normally; another host's R9 does not resolve dn3.
	peer := removal(t0.Add(5*time.Minute+time.Second), "RUNNING")
	peer.Host, peer.Peer = "dn1", "11111111-2222-3333-4444-555555555555"
	done := storageRemoved(t0.Add(5*time.Minute + 2*time.Second))
	done.Host = "dn1"
	sigs = append(sigs, peer, done)
	sortSignals(sigs)
	f := only(t, feed(t, nil, t0.Add(30*time.Minute), sigs...))
	if f.State != detectors.Firing || f.Entities.Hosts[0] != dnHost {
		t.Errorf("%v %v", f.State, f.Entities.Hosts)
	}
}

func TestBoundedState(t *testing.T) {
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	det, err := newDetector(env)
	if err != nil {
		t.Fatal(err)
	}
	d := det.(*detector)
	emit := func(detectors.Finding) {}
	for i := 0; i < 3*maxDivisions; i++ {
		s := failed(t0.Add(time.Duration(i)*time.Second), uint64(i), "ServerNotReadyException", "CLOSING")
		s.Group = fmt.Sprintf("group-%012X", i)
		d.Observe(&s, emit)
	}
	if d.divisions.Len() > maxDivisions || d.groupOf.Len() > maxGroupMappings {
		t.Errorf("divisions %d, mappings %d", d.divisions.Len(), d.groupOf.Len())
	}
	st := d.StateStats()
	if st[0].Name != "divisions" || st[0].Entries != d.divisions.Len() || st[0].Limit != maxDivisions || st[0].Evicted == 0 {
		t.Errorf("stats %+v", st[0])
	}
}

func TestBadOption(t *testing.T) {
	for _, v := range []string{"soon", "0", "-5m"} {
		if _, err := newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(),
			Options: map[string]string{"stuck-after": v}}); err == nil {
			t.Errorf("stuck-after=%q accepted", v)
		}
	}
}

func TestGroupID(t *testing.T) {
	if g := groupID(pipeUUID); g != group {
		t.Errorf("groupID(%s) = %s", pipeUUID, g)
	}
}

func TestComposeServiceNameJoinsThroughUUID(t *testing.T) {
	// The main log comes from a docker-compose capture ("datanode_3"), the
	// dn-container log and SCM name the host.
	sigs := stuckLeader(20 * time.Minute)
	for i := range sigs {
		if sigs[i].Host == dnHost {
			sigs[i].Host = "datanode_3"
		}
	}
	done := quasiClosed(t0.Add(21*time.Minute), 12, group)
	done.Host = dnFQDN
	f := only(t, feed(t, nil, t0.Add(time.Hour), append(sigs, done)...))
	if f.State != detectors.Resolved || f.Facts["scm_close_commands"] != "6" || f.Entities.Datanodes[0].Host != dnFQDN {
		t.Errorf("state %v, facts %v, datanodes %v", f.State, f.Facts, f.Entities.Datanodes)
	}
}

// A division is pending from the first suspicion until it is confirmed;
// the pending finding has the key the firing one will have.
func TestPendingUntilConfirmed(t *testing.T) {
	d, err := newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()})
	if err != nil {
		t.Fatal(err)
	}
	var got []detectors.Finding
	emit := func(f detectors.Finding) { got = append(got, f) }
	for _, s := range []catalogue.Signal{writeTimeout(t0, dnUUID+"-client-thread3"), closeServer(t0.Add(time.Millisecond), dnUUID+"-client-thread3")} {
		d.Observe(&s, emit)
	}
	if len(got) != 1 || got[0].State != detectors.Pending || detectors.Withdrawn(got[0]) {
		t.Fatalf("want one pending finding, got %v", got)
	}
	d.Advance(t0.Add(2*time.Minute), emit)
	if n := len(got); n != 2 || got[1].State != detectors.Firing || got[1].Key != got[0].Key {
		t.Fatalf("want the same key firing after the grace, got %v", got)
	}
}

// The same lines from a datanode whose STARTUP_MSG says 2.2.0 — a release
// without HDDS-15443's close on the Ratis thread — are a look-alike: low
// confidence, at most a warning, and a note naming the versions. A
// vendor build of the master line (2.3.0.x) is affected like master.
func TestLookAlikeOnUnaffectedRelease(t *testing.T) {
	for _, c := range []struct {
		version  string
		lookLike bool
	}{{"2.3.0-SNAPSHOT", false}, {"2.3.0.7.3.2.0-1", false}, {"2.2.0", true}, {"2.1.1", true}} {
		sigs := stuckLeader(90 * time.Minute)
		sigs[0] = startup(t0.Add(-time.Hour), c.version)
		f := only(t, feed(t, nil, t0.Add(90*time.Minute), sigs...))
		if f.Facts["ozone_version"] != c.version {
			t.Errorf("%s: ozone_version %q", c.version, f.Facts["ozone_version"])
		}
		note := f.Facts["version_note"]
		if !c.lookLike {
			if f.Severity != detectors.Critical || f.Confidence != detectors.High || note != "" {
				t.Errorf("%s: %v %v %q", c.version, f.Severity, f.Confidence, note)
			}
			continue
		}
		if f.Severity != detectors.Warning || f.Confidence != detectors.Low || f.Defect != "HDDS-17674" ||
			!strings.HasPrefix(note, "HDDS-17674 affects Ozone >=2.3.0 only; "+dnHost+" runs "+c.version+": the same lines have another cause") ||
			!strings.HasPrefix(f.Summary, "Look-alike of HDDS-17674 ("+c.version+" cannot have it): ") {
			t.Errorf("%s: %v %v %s %q\n%s", c.version, f.Severity, f.Confidence, f.Defect, note, f.Summary)
		}
	}
}

// TestUpdatesAreSpaced: a stuck division failing every two seconds updates
// its finding at most once a minute, and the end reports every failure.
func TestUpdatesAreSpaced(t *testing.T) {
	sigs := stuckLeader(10 * time.Minute)
	last := t0.Add(11 * time.Minute)
	for i := 0; i < 90; i++ {
		last = t0.Add(11*time.Minute + time.Duration(i)*2*time.Second)
		sigs = append(sigs, failed(last, 12, "GroupMismatchException", ""))
	}
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	eng, err := detectors.NewEngine([]detectors.Registration{Registration}, env)
	if err != nil {
		t.Fatal(err)
	}
	var updates []time.Time
	flushed := false // the end's report is not an update
	eng.Subscribe(func(tr detectors.Transition) {
		if tr.Update() && tr.At.After(t0.Add(11*time.Minute)) && !flushed {
			updates = append(updates, tr.At)
		}
	})
	for i := range sigs {
		env.Identity.Learn(&sigs[i])
		eng.Observe(&sigs[i])
	}
	flushed = true
	f := only(t, detectortest.Reported(eng.Finish(last)))
	if len(updates) < 2 || len(updates) > 4 {
		t.Errorf("%d updates in three minutes of failures every 2s, want one a minute: %v", len(updates), updates)
	}
	for i := 1; i < len(updates); i++ {
		if updates[i].Sub(updates[i-1]) < time.Minute {
			t.Errorf("updates %v and %v less than a minute apart", updates[i-1], updates[i])
		}
	}
	if f.Facts["failed_close_attempts"] != "93" {
		t.Errorf("the end reports %s failed attempts, want all 93", f.Facts["failed_close_attempts"])
	}
}

// A batch run (Env.Batch) leaves out the updates of a stuck division's
// finding: the input's end reports it as the run that makes them does, and
// a division forgotten for newer ones is reported as it stood.
func TestBatchLeavesOutUpdates(t *testing.T) {
	sigs := stuckLeader(time.Hour)
	// As many other divisions as the detector keeps: the stuck one, opened
	// first, is forgotten.
	for i := range maxDivisions {
		s := failed(t0.Add(time.Hour+time.Duration(i)*time.Millisecond), uint64(1000+i), "ServerNotReadyException", "CLOSING")
		s.Group = fmt.Sprintf("group-%012X", i)
		sigs = append(sigs, s)
	}
	for _, end := range []time.Time{t0.Add(50 * time.Minute), t0.Add(2 * time.Hour)} {
		stuckFailures := 0
		for _, s := range sigs {
			if s.Kind == catalogue.CloseContainerFailed && s.Group == group && !s.Time.After(end) {
				stuckFailures++
			}
		}
		var updates [2]int
		var last [2]map[string]detectors.Finding
		for i, batch := range []bool{false, true} {
			env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Batch: batch}
			eng, err := detectors.NewEngine([]detectors.Registration{Registration}, env)
			if err != nil {
				t.Fatal(err)
			}
			last[i] = map[string]detectors.Finding{}
			eng.Subscribe(func(tr detectors.Transition) {
				if tr.Update() {
					updates[i]++
				}
				last[i][tr.Finding.Key] = tr.Finding
			})
			for j := range sigs {
				if !sigs[j].Time.After(end) {
					eng.Observe(&sigs[j])
				}
			}
			eng.Finish(end)
		}
		stuck := dnHost + "/" + group + "#1"
		b, ok := last[1][stuck]
		if !ok || b.Facts["failed_close_attempts"] != strconv.Itoa(stuckFailures) || b.State != detectors.Firing {
			t.Fatalf("end %s: batch run's last report of the stuck division: %v %v", end, b.State, b.Facts)
		}
		// The batch run's one update: at the end, or when forgotten.
		if updates[0] < 10 || updates[1] != 1 {
			t.Errorf("end %s: %d updates, %d in a batch run", end, updates[0], updates[1])
		}
		if a := last[0][stuck]; end.Before(t0.Add(time.Hour)) && !reflect.DeepEqual(a, b) {
			t.Errorf("end %s: at the end\n%+v\nin a batch run\n%+v", end, a, b)
		}
	}
}
