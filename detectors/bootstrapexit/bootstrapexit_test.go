package bootstrapexit_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/bootstrapexit"
	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

func TestCases(t *testing.T) { detectortest.Run(t, bootstrapexit.Registration, "testdata") }

// Loggers as log4j %c prints them (signatures-dn-om.md B.1-B.3, Trap 1).
const (
	starterLogger  = "org.apache.hadoop.ozone.om.OzoneManagerStarter"
	omLogger       = "org.apache.hadoop.ozone.om.OzoneManager"
	ratisLogger    = "org.apache.hadoop.ozone.om.ratis.OzoneManagerRatisServer"
	smLogger       = "org.apache.hadoop.ozone.om.ratis.OzoneManagerStateMachine"
	divisionLogger = "org.apache.ratis.server.RaftServer$Division"
	group          = "group-C5BA1605619E"
)

var t0 = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)

// fixture builds signals the way the analysis does: records matched by the
// catalogue.
type fixture struct {
	t    *testing.T
	cat  *catalogue.Catalogue
	sigs []*catalogue.Signal
	line int
}

func newFixture(t *testing.T) *fixture {
	c, err := catalogue.New()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, cat: c}
}

// log adds one record that host logged at t0+at.
func (f *fixture) log(at time.Duration, host, logger, msg string) {
	f.t.Helper()
	f.add(&parsers.Record{Time: t0.Add(at), Logger: logger, Message: msg, Host: host, Component: parsers.ComponentOM,
		Origin: parsers.Origin{File: host + "/ozone-hadoop-om-" + host + ".log"}})
}

// stdout adds one untimed line of host's .out file.
func (f *fixture) stdout(host, msg string) {
	f.t.Helper()
	f.add(&parsers.Record{Message: msg, Host: host, Component: parsers.ComponentOM,
		Origin: parsers.Origin{File: host + "/ozone-hadoop-om-" + host + ".out"}})
}

func (f *fixture) add(r *parsers.Record) {
	f.t.Helper()
	f.line++
	r.Origin.Line = f.line
	msg := r.Message
	got := f.cat.Match(r)
	if len(got) == 0 {
		f.t.Fatalf("no signal for %q", msg)
	}
	for i := range got {
		s := got[i]
		f.sigs = append(f.sigs, &s)
	}
}

// run feeds the signals to the detector as the analysis does (identities
// learned first, untimed signals first, then by time) and flushes.
func (f *fixture) run(opts map[string]string) []detectors.Finding {
	f.t.Helper()
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: opts}
	for _, s := range f.sigs {
		env.Identity.Learn(s)
	}
	e, err := detectors.NewEngine([]detectors.Registration{bootstrapexit.Registration}, env)
	if err != nil {
		f.t.Fatal(err)
	}
	sigs := append([]*catalogue.Signal(nil), f.sigs...)
	sort.SliceStable(sigs, func(i, j int) bool {
		if sigs[i].Time.IsZero() != sigs[j].Time.IsZero() {
			return sigs[i].Time.IsZero()
		}
		return sigs[i].Time.Before(sigs[j].Time)
	})
	end := t0
	for _, s := range sigs {
		e.Observe(s)
		if s.Time.After(end) {
			end = s.Time
		}
	}
	return e.Finish(end.Add(time.Minute))
}

// Rendered templates (signatures-dn-om.md), with om4 bootstrapping into
// the ring om1 (leader), om2, om3.

func peersPipe(ids ...int) string { // RaftPeer "{id}|{address}" list
	var p []string
	for _, i := range ids {
		p = append(p, "omNode-"+itoa(i)+"|om"+itoa(i)+".example.com:9872")
	}
	return strings.Join(p, ", ")
}

func itoa(i int) string { return string(rune('0' + i)) }

// C.3 STARTUP_MSG banner (N1).
func startup(args string) string {
	return "STARTUP_MSG: \n/************************************************************\n" +
		"STARTUP_MSG: Starting OzoneManager\n" +
		"STARTUP_MSG:        host = om4.example.com/10.0.1.4\n" +
		"STARTUP_MSG:     version = 2.2.0\n" +
		"STARTUP_MSG:       build = https://github.com/apache/ozone/78d5650c313f2fa0731bdf08b76d4604090dabca\n" +
		"STARTUP_MSG:        java = 17.0.15\n" +
		"STARTUP_MSG:        args = [" + args + "]\n" +
		"STARTUP_MSG:   classpath = /opt/ozone/share/ozone/lib/ozone-manager-2.2.0.jar\n" +
		"STARTUP_MSG:        conf = {ozone.om.service.ids=omservice}\n" +
		"************************************************************/"
}

// C.3 SHUTDOWN_MSG banner (N19).
const shutdown = "SHUTDOWN_MSG: \n/************************************************************\n" +
	"SHUTDOWN_MSG: Shutting down OzoneManager at om4.example.com/10.0.1.4\n" +
	"************************************************************/"

// A2 OzoneManagerStateMachine.java:306.
func applied(term, index int, ids ...int) string {
	var p []string
	for _, i := range ids {
		p = append(p, "omNode-"+itoa(i)+"(om"+itoa(i)+".example.com:9872)")
	}
	return "notifyConfigurationChanged from Ratis: term=" + itoa(term) + ", index=10" + itoa(index) + "0, New Peer list: " +
		strings.Join(p, ", ") + ", New Listener list"
}

// bootstrapStart: N1, N10 on om4 and L1, L2 on the leader om1.
func (f *fixture) bootstrapStart() { f.bootstrapStartAt(0, true) }

// bootstrapStartAt: a --bootstrap run of om4 from t0+at: N1 (when banner),
// N10 on om4 and L1, L2 on the leader om1.
func (f *fixture) bootstrapStartAt(at time.Duration, banner bool) {
	if banner {
		f.log(at, "om4", starterLogger, startup("--bootstrap")) // N1
	}
	f.log(at+20*time.Second, "om4", ratisLogger, "Starting OzoneManagerRatisServer omNode-4 at port 9872") // N10
	f.log(at+30*time.Second, "om1", ratisLogger, "omNode-1: Submitting SetConfiguration request to Ratis server to add new OM peer "+
		"omNode-4|om4.example.com:9872 to the Ratis group "+group+":["+peersPipe(1, 2, 3)+"]") // L1
	f.log(at+30*time.Second, "om1", divisionLogger, "omNode-1@"+group+": receive setConfiguration SetConfigurationRequest:"+
		"client-6A1F0C2B9D3E->omNode-1@"+group+", cid=17, seq=null, RW, null, SET_UNCONDITIONALLY, servers:["+
		peersPipe(1, 2, 3, 4)+"], listeners:[]") // L2
}

// exit: N16, N17 and SHUTDOWN_MSG on om4 at t0+at.
func (f *fixture) exit(at time.Duration) {
	f.log(at, "om4", omLogger, "Failed to Bootstrap OM.")                                // N16
	f.log(at, "om4", omLogger, "omNode-4[om4.example.com:9862]: Stopping Ozone Manager") // N17
	f.log(at+time.Second, "om4", starterLogger, shutdown)                                // N19
}

// lostLeadership: the leader steps down and replies NotLeaderException (L8, L13).
func (f *fixture) lostLeadership(at time.Duration) {
	f.log(at-time.Second, "om4", divisionLogger, "omNode-4@"+group+": set configuration conf: {index: 1042, cur=peers:["+
		peersPipe(1, 2, 3, 4)+"]|listeners:[], old=peers:["+peersPipe(1, 2, 3)+"]|listeners:[]}") // N15
	f.log(at, "om1", divisionLogger, "omNode-1@"+group+": changes role from    LEADER to FOLLOWER at term 6 "+
		"for StepDownReason:LOST_MAJORITY_HEARTBEATS") // L8
	f.log(at, "om1", ratisLogger, "Failed to add OM omNode-4 in Ratis group "+group+". Ratis SetConfiguration reply: "+
		"RaftClientReply:client-6A1F0C2B9D3E->omNode-1@"+group+", cid=17, FAILED org.apache.ratis.protocol.exceptions."+
		"NotLeaderException: Server omNode-1@"+group+" is not the leader, logIndex=0, commits[omNode-1:c1041, omNode-2:c1041, omNode-3:c1040]") // L13
}

// out adds the .out file's N18 line.
func (f *fixture) out(msg string) {
	f.stdout("om4", "Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: "+msg) // N18
}

// commit: A2 on om1..om3 listing ids, at t0+at on each (om3's clock 4s behind).
func (f *fixture) commit(at time.Duration, term, index int, ids ...int) {
	f.log(at, "om2", smLogger, applied(term, index, ids...))
	f.log(at+time.Second, "om1", smLogger, applied(term, index, ids...))
	f.log(at-4*time.Second, "om3", smLogger, applied(term, index, ids...))
}

func one(t *testing.T, fs []detectors.Finding) detectors.Finding {
	t.Helper()
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %d: %v", len(fs), fs)
	}
	return fs[0]
}

func TestLostLeadershipReplyIsCritical(t *testing.T) {
	f := newFixture(t)
	f.bootstrapStart()
	f.lostLeadership(60 * time.Second)
	f.exit(61 * time.Second)
	f.out("Failed to add OM omNode-4 in Ratis ring.")
	f.log(63*time.Second, "om2", divisionLogger, "omNode-2@"+group+": changes role from CANDIDATE to LEADER at term 7 for changeToLeader")
	f.commit(64*time.Second, 7, 4, 1, 2, 3, 4)
	got := one(t, f.run(nil))
	if got.Severity != detectors.Critical || got.Confidence != detectors.High || got.State != detectors.Firing {
		t.Errorf("severity/confidence/state: %v %v %v", got.Severity, got.Confidence, got.State)
	}
	if got.Key != "omNode-4@om4#1" || !got.Start.Equal(t0.Add(61*time.Second)) {
		t.Errorf("key/start: %q %v", got.Key, got.Start)
	}
	want := map[string]string{
		"om_node": "omNode-4", "om_host": "om4", "ozone_version": "2.2.0", "error_code": "RATIS_BOOTSTRAP_ERROR",
		"error_message": "Failed to add OM omNode-4 in Ratis ring.", "om_service_id": "omservice",
		"failure":          "the leader's SetConfiguration reply failed with NotLeaderException",
		"leader":           "omNode-1 (om1)",
		"leader_step_down": "omNode-1 at 2026-08-23 10:01:00 UTC for LOST_MAJORITY_HEARTBEATS",
		"ring":             "lists omNode-4", "bootstrap_args": "[--bootstrap]", "listed_by": "om3, om2, om1",
		"heartbeat_metric": "ratis_server_omNode_4_lastHeartbeatElapsedTime",
	}
	for k, v := range want {
		if got.Facts[k] != v {
			t.Errorf("fact %s = %q, want %q", k, got.Facts[k], v)
		}
	}
	if !strings.Contains(got.Summary, "omNode-4 on om4 exited at 2026-08-23 10:01:01") || !strings.Contains(got.Summary, "voter that is down") {
		t.Errorf("summary: %s", got.Summary)
	}
	if strings.Join(got.Entities.OMNodes, ",") != "omNode-4,omNode-1" || got.Entities.Hosts[0] != "om4" ||
		len(got.Entities.RaftGroups) != 1 || got.Entities.RaftGroups[0] != group {
		t.Errorf("entities: %+v", got.Entities)
	}
	texts := evidenceText(got)
	for _, w := range []string{"STARTUP_MSG", "Submitting SetConfiguration", "receive setConfiguration", "LOST_MAJORITY_HEARTBEATS",
		"NotLeaderException", "Failed to Bootstrap OM.", "Error Code: RATIS_BOOTSTRAP_ERROR", "SHUTDOWN_MSG", "New Peer list"} {
		if !strings.Contains(texts, w) {
			t.Errorf("evidence lacks %q:\n%s", w, texts)
		}
	}
	for _, r := range got.Remediation {
		if strings.Contains(r, "<no value>") || strings.Contains(r, "remediation step") {
			t.Errorf("remediation not filled: %s", r)
		}
	}
	if !strings.Contains(strings.Join(got.Remediation, "\n"), "ozone admin om decommission --service-id=omservice --nodeid=omNode-4 --node-host-address=om4.example.com") {
		t.Errorf("remediation: %q", got.Remediation)
	}
}

func TestReconfigurationInProgressIsCritical(t *testing.T) {
	f := newFixture(t)
	f.bootstrapStart()
	// The client retried: a second L2 while the first request is staging.
	f.log(50*time.Second, "om1", divisionLogger, "omNode-1@"+group+": receive setConfiguration SetConfigurationRequest:"+
		"client-6A1F0C2B9D3E->omNode-1@"+group+", cid=18, seq=null, RW, null, SET_UNCONDITIONALLY, servers:["+
		peersPipe(1, 2, 3, 4)+"], listeners:[]") // L2
	f.exit(51 * time.Second)
	f.out("Reconfiguration is already in progress: conf: {index: 1042, cur=peers:[" + peersPipe(1, 2, 3, 4) +
		"]|listeners:[], old=peers:[" + peersPipe(1, 2, 3) + "]|listeners:[]}")
	f.log(70*time.Second, "om1", ratisLogger, "add OM omNode-4 in Ratis group "+group+".") // L15
	f.commit(71*time.Second, 6, 5, 1, 2, 3, 4)
	got := one(t, f.run(nil))
	if got.Severity != detectors.Critical || got.Confidence != detectors.High || got.State != detectors.Firing {
		t.Errorf("severity/confidence/state: %v %v %v", got.Severity, got.Confidence, got.State)
	}
	if got.Facts["failure"] != "Reconfiguration is already in progress" {
		t.Errorf("failure: %q", got.Facts["failure"])
	}
	if n := strings.Count(evidenceText(got), "receive setConfiguration"); n != 2 {
		t.Errorf("want both setConfiguration requests in the evidence, got %d", n)
	}
	if !strings.Contains(evidenceText(got), "add OM omNode-4 in Ratis group") {
		t.Errorf("evidence lacks L15")
	}
}

func TestLeaderAddAloneIsCritical(t *testing.T) {
	// Only the leader's "add OM" after the exit (no applied configuration in the bundle).
	f := newFixture(t)
	f.bootstrapStart()
	f.exit(51 * time.Second)
	f.out("Reconfiguration is already in progress: conf: {index: 1042, cur=peers:[" + peersPipe(1, 2, 3, 4) + "]|listeners:[], old=null}")
	f.log(70*time.Second, "om1", ratisLogger, "add OM omNode-4 in Ratis group "+group+".") // L15
	got := one(t, f.run(nil))
	if got.Severity != detectors.Critical || got.Confidence != detectors.High {
		t.Errorf("got %v %v", got.Severity, got.Confidence)
	}
	if !strings.Contains(got.Summary, `the leader on om1 logged "add OM omNode-4 in Ratis group"`) {
		t.Errorf("summary: %s", got.Summary)
	}
}

func TestRestartResolves(t *testing.T) {
	f := newFixture(t)
	f.bootstrapStart()
	f.lostLeadership(60 * time.Second)
	f.exit(61 * time.Second)
	f.commit(64*time.Second, 7, 4, 1, 2, 3, 4)
	f.log(30*time.Minute, "om4", starterLogger, startup("")) // restarted normally
	f.commit(31*time.Minute, 8, 6, 1, 2, 3, 4)
	got := one(t, f.run(nil))
	if got.State != detectors.Resolved || !got.End.Equal(t0.Add(30*time.Minute)) || got.Severity != detectors.Critical {
		t.Errorf("state/end: %v %v %v", got.State, got.End, got.Severity)
	}
	if !strings.Contains(got.Summary, "started again without --bootstrap") {
		t.Errorf("summary: %s", got.Summary)
	}
}

func TestDecommissionResolves(t *testing.T) {
	f := newFixture(t)
	f.bootstrapStart()
	f.exit(51 * time.Second)
	f.out("Reconfiguration is already in progress: conf: {index: 1042, cur=peers:[" + peersPipe(1, 2, 3, 4) + "]|listeners:[], old=null}")
	f.commit(71*time.Second, 6, 5, 1, 2, 3, 4)
	f.log(20*time.Minute, "om1", ratisLogger, "omNode-1: Submitting SetConfiguration request to Ratis server to remove OM peer "+
		"omNode-4 from Ratis group "+group+":["+peersPipe(1, 2, 3, 4)+"]")
	f.log(20*time.Minute+5*time.Second, "om1", ratisLogger, "remove OM omNode-4 in Ratis group "+group+".")
	f.commit(20*time.Minute+6*time.Second, 6, 7, 1, 2, 3)
	got := one(t, f.run(nil))
	if got.State != detectors.Resolved || !strings.Contains(got.Summary, "decommissioned") {
		t.Errorf("state/summary: %v %s", got.State, got.Summary)
	}
	if !got.End.Equal(t0.Add(20*time.Minute + 5*time.Second)) {
		t.Errorf("end: %v", got.End)
	}
}

func TestUnlistedOnEveryOMResolves(t *testing.T) {
	// No leader lines: the OMs that listed the node apply a configuration without it.
	f := newFixture(t)
	f.bootstrapStart()
	f.exit(51 * time.Second)
	f.commit(71*time.Second, 6, 5, 1, 2, 3, 4)
	f.log(20*time.Minute, "om1", smLogger, applied(6, 7, 1, 2, 3))
	if got := one(t, f.run(nil)); got.State != detectors.Firing {
		t.Errorf("one OM of three dropped the node: still firing, got %v", got.State)
	}
	f.log(20*time.Minute, "om2", smLogger, applied(6, 7, 1, 2, 3))
	f.log(20*time.Minute, "om3", smLogger, applied(6, 7, 1, 2, 3))
	if got := one(t, f.run(nil)); got.State != detectors.Resolved {
		t.Errorf("want resolved, got %v", got.State)
	}
}

func TestNewOMSideOnlyIsWarning(t *testing.T) {
	f := newFixture(t)
	f.log(0, "om4", starterLogger, startup("--bootstrap"))
	f.log(20*time.Second, "om4", ratisLogger, "Starting OzoneManagerRatisServer omNode-4 at port 9872")
	f.exit(61 * time.Second)
	got := one(t, f.run(nil))
	if got.Severity != detectors.Warning || got.Confidence != detectors.Low || got.Facts["ring"] != "unknown" {
		t.Errorf("got %v %v %q", got.Severity, got.Confidence, got.Facts["ring"])
	}
	if !strings.Contains(got.Summary, "cannot tell") || !strings.Contains(got.Remediation[0], "The bundle does not show the ring") {
		t.Errorf("summary/remediation: %s / %s", got.Summary, got.Remediation[0])
	}
	// With the .out file's error, the failure is one that usually changes the ring.
	f.out("Failed to add OM omNode-4 in Ratis ring.")
	got = one(t, f.run(nil))
	if got.Severity != detectors.Warning || got.Confidence != detectors.Medium {
		t.Errorf("with N18: %v %v", got.Severity, got.Confidence)
	}
}

func TestRemoteAlreadyListsOnRerun(t *testing.T) {
	// Only the new OM's side, but a re-run of --bootstrap finds the ring lists it (N4) and fails again.
	f := newFixture(t)
	f.log(0, "om4", starterLogger, startup("--bootstrap"))
	f.log(20*time.Second, "om4", ratisLogger, "Starting OzoneManagerRatisServer omNode-4 at port 9872")
	f.exit(61 * time.Second)
	f.log(10*time.Minute, "om4", starterLogger, startup("--bootstrap"))
	f.log(10*time.Minute+5*time.Second, "om4", omLogger, "Remote OM omNode-1 already contains bootstrapping OM(omNode-4) as part of its Raft group peers.")
	f.exit(10*time.Minute + 9*time.Second)
	got := one(t, f.run(nil))
	if got.Severity != detectors.Critical || got.Confidence != detectors.Medium || got.State != detectors.Firing {
		t.Errorf("got %v %v %v", got.Severity, got.Confidence, got.State)
	}
	if got.Key != "omNode-4@om4#1" || !got.Start.Equal(t0.Add(61*time.Second)) {
		t.Errorf("key/start: %q %v (the first failure left the node in the ring)", got.Key, got.Start)
	}
	if got.Facts["bootstrap_reruns"] != "1" || !strings.Contains(got.Summary, "already in omNode-1's peers") {
		t.Errorf("facts/summary: %v / %s", got.Facts, got.Summary)
	}
}

func TestRemoteAlreadyListsInTheOnlyRun(t *testing.T) {
	// The bundle holds one --bootstrap run only; its pre-check finds the ring already lists the
	// node (an earlier failure outside the bundle) and it fails: a voter that is down.
	f := newFixture(t)
	f.log(0, "om4", starterLogger, startup("--bootstrap"))
	f.log(5*time.Second, "om4", omLogger, "Remote OM omNode-1 already contains bootstrapping OM(omNode-4) as part of its Raft group peers.") // N4
	f.exit(9 * time.Second)
	got := one(t, f.run(nil))
	if got.Severity != detectors.Critical || got.Key != "omNode-4@om4#1" || !got.Start.Equal(t0.Add(9*time.Second)) || got.Facts["ring"] != "lists omNode-4" {
		t.Errorf("got %v %q %v %q", got.Severity, got.Key, got.Start, got.Facts["ring"])
	}
}

func TestRebootstrapSuccessResolves(t *testing.T) {
	f := newFixture(t)
	f.bootstrapStart()
	f.lostLeadership(60 * time.Second)
	f.exit(61 * time.Second)
	f.commit(64*time.Second, 7, 4, 1, 2, 3, 4)
	f.log(10*time.Minute, "om4", starterLogger, startup("--bootstrap"))
	f.log(10*time.Minute+30*time.Second, "om4", omLogger, "Successfully bootstrapped OM omNode-4 and joined the Ratis group "+
		group+":["+peersPipe(1, 2, 3, 4)+"]")
	got := one(t, f.run(nil))
	if got.State != detectors.Resolved || !got.End.Equal(t0.Add(10*time.Minute+30*time.Second)) {
		t.Errorf("got %v %v", got.State, got.End)
	}
}

// notReady: om4's --bootstrap run from t0 fails at t0+40s with
// LEADER_NOT_READY (the leader's checkLeaderStatus logs nothing at INFO);
// with ring, the OMs then apply an election's configuration without it.
func (f *fixture) notReady(ring bool) {
	f.log(0, "om4", starterLogger, startup("--bootstrap"))                                              // N1
	f.log(20*time.Second, "om4", ratisLogger, "Starting OzoneManagerRatisServer omNode-4 at port 9872") // N10
	f.exit(40 * time.Second)
	// N18; message of OMLeaderNotReadyException (OzoneManagerRatisUtils.createLeaderNotReadyException)
	f.stdout("om4", "Failed to Bootstrap OM. Error Code: LEADER_NOT_READY, Error Message: omNode-2 is Leader but not ready to process request yet.")
	if ring {
		f.commit(45*time.Second, 7, 3, 1, 2, 3)
	}
}

// retrySucceeds: om4 bootstraps again from t0+at and joins the ring (N15,
// A2 listing it, L15, "Successfully bootstrapped OM").
func (f *fixture) retrySucceeds(at time.Duration, banner bool) {
	f.bootstrapStartAt(at, banner)
	f.log(at+50*time.Second, "om4", divisionLogger, "omNode-4@"+group+": set configuration conf: {index: 1052, cur=peers:["+
		peersPipe(1, 2, 3, 4)+"]|listeners:[], old=peers:["+peersPipe(1, 2, 3)+"]|listeners:[]}") // N15
	f.commit(at+52*time.Second, 7, 5, 1, 2, 3, 4)
	f.log(at+53*time.Second, "om1", ratisLogger, "add OM omNode-4 in Ratis group "+group+".") // L15
	f.log(at+54*time.Second, "om4", omLogger, "Successfully bootstrapped OM omNode-4 and joined the Ratis group "+
		group+":["+peersPipe(1, 2, 3, 4)+"]")
}

func TestBenignFailureThenSuccessfulRetryIsQuiet(t *testing.T) {
	// The retry's own configuration and the leader's "add OM" for it are not the first failure's.
	for _, c := range []struct {
		name         string
		ring, banner bool
	}{
		{"ring shown after the failure", true, true},
		{"ring not shown after the failure", false, true},
		{"retry without STARTUP_MSG", true, false},
	} {
		f := newFixture(t)
		f.notReady(c.ring)
		f.retrySucceeds(10*time.Minute, c.banner)
		if fs := f.run(nil); len(fs) != 0 {
			t.Errorf("%s: want quiet, got %v", c.name, fs)
		}
	}
}

func TestBenignFailureThenFailedRetryIsJudgedOnItsOwn(t *testing.T) {
	// The retry loses the leader's reply and the ring commits omNode-4: the retry's exit is the finding.
	f := newFixture(t)
	f.notReady(true)
	f.bootstrapStartAt(10*time.Minute, true)
	f.lostLeadership(11 * time.Minute)
	f.exit(11*time.Minute + time.Second)
	f.out("Failed to add OM omNode-4 in Ratis ring.")
	f.commit(11*time.Minute+4*time.Second, 8, 4, 1, 2, 3, 4)
	got := one(t, f.run(nil))
	if got.Severity != detectors.Critical || got.Confidence != detectors.High || got.State != detectors.Firing {
		t.Errorf("severity/confidence/state: %v %v %v", got.Severity, got.Confidence, got.State)
	}
	if got.Key != "omNode-4@om4#1" || !got.Start.Equal(t0.Add(11*time.Minute+time.Second)) {
		t.Errorf("key/start: %q %v", got.Key, got.Start)
	}
	if got.Facts["failure"] != "the leader's SetConfiguration reply failed with NotLeaderException" ||
		got.Facts["error_message"] != "Failed to add OM omNode-4 in Ratis ring." || got.Facts["bootstrap_reruns"] != "" {
		t.Errorf("facts: %v", got.Facts)
	}
	for _, e := range got.Evidence {
		if (!e.Time.IsZero() && e.Time.Before(t0.Add(10*time.Minute))) || strings.Contains(e.Text, "LEADER_NOT_READY") {
			t.Errorf("evidence from the first run: %s %s", e.Time, e.Text)
		}
	}

	// The retry fails without changing the ring as well: quiet.
	f = newFixture(t)
	f.notReady(true)
	f.bootstrapStartAt(10*time.Minute, true)
	f.exit(11*time.Minute + 30*time.Second)
	f.out("omNode-1@" + group + "-ConfigurationStagingState: Fail to set configuration peers:[" + peersPipe(1, 2, 3, 4) +
		"]|listeners:[] due to NOPROGRESS")
	f.commit(20*time.Minute, 8, 4, 1, 2, 3)
	if fs := f.run(nil); len(fs) != 0 {
		t.Errorf("benign retry: want quiet, got %v", fs)
	}

	// The retry's failure with the ring not shown is a warning about the retry.
	f = newFixture(t)
	f.notReady(false)
	f.log(10*time.Minute, "om4", starterLogger, startup("--bootstrap"))
	f.exit(11 * time.Minute)
	f.out("Failed to add OM omNode-4 in Ratis ring.")
	got = one(t, f.run(nil))
	if got.Severity != detectors.Warning || got.Key != "omNode-4@om4#1" || !got.Start.Equal(t0.Add(11*time.Minute)) {
		t.Errorf("ring not shown: %v %q %v", got.Severity, got.Key, got.Start)
	}
}

func TestRetryListedBeforeItStartedKeepsTheFirstFailure(t *testing.T) {
	// The ring listed omNode-4 before the retry: the first failure is the finding, the retry's
	// lines (its start, its own "add OM" attempt) do not start another one.
	f := newFixture(t)
	f.bootstrapStart()
	f.lostLeadership(60 * time.Second)
	f.exit(61 * time.Second)
	f.commit(64*time.Second, 7, 4, 1, 2, 3, 4)
	f.bootstrapStartAt(10*time.Minute, true)
	f.exit(10*time.Minute + 40*time.Second)
	got := one(t, f.run(nil))
	if got.Key != "omNode-4@om4#1" || !got.Start.Equal(t0.Add(61*time.Second)) || got.Severity != detectors.Critical || got.Facts["bootstrap_reruns"] != "1" {
		t.Errorf("key/start/severity/reruns: %q %v %v %q", got.Key, got.Start, got.Severity, got.Facts["bootstrap_reruns"])
	}
	if n := strings.Count(evidenceText(got), "Submitting SetConfiguration"); n != 1 {
		t.Errorf("want the first run's add request only, got %d", n)
	}
}

func TestNodeLearnedFromPeerAddresses(t *testing.T) {
	// No N10/N17 on the new OM: the node is matched by its address in the peer list.
	f := newFixture(t)
	f.log(0, "om4", starterLogger, startup("--bootstrap"))
	f.log(61*time.Second, "om4", omLogger, "Failed to Bootstrap OM.")
	f.log(62*time.Second, "om4", starterLogger, shutdown)
	f.commit(64*time.Second, 7, 4, 1, 2, 3, 4)
	got := one(t, f.run(nil))
	if got.Severity != detectors.Critical || got.Facts["om_node"] != "omNode-4" {
		t.Errorf("got %v %q", got.Severity, got.Facts["om_node"])
	}
}

// Near misses: every one must stay quiet.

func TestSuccessfulBootstrapIsQuiet(t *testing.T) {
	f := newFixture(t)
	f.bootstrapStart()
	f.log(70*time.Second, "om1", ratisLogger, "add OM omNode-4 in Ratis group "+group+".")
	f.log(71*time.Second, "om4", omLogger, "Successfully bootstrapped OM omNode-4 and joined the Ratis group "+group+":["+peersPipe(1, 2, 3, 4)+"]")
	f.commit(71*time.Second, 6, 5, 1, 2, 3, 4)
	if fs := f.run(nil); len(fs) != 0 {
		t.Errorf("want quiet, got %v", fs)
	}
}

func TestStagingTimeoutIsQuiet(t *testing.T) {
	for _, withRing := range []bool{true, false} {
		f := newFixture(t)
		f.bootstrapStart()
		f.exit(90 * time.Second)
		f.out("omNode-1@" + group + "-ConfigurationStagingState: Fail to set configuration peers:[" + peersPipe(1, 2, 3, 4) +
			"]|listeners:[] due to NOPROGRESS")
		if withRing { // a later election: the applied configuration does not list omNode-4
			f.commit(20*time.Minute, 7, 4, 1, 2, 3)
		}
		if fs := f.run(nil); len(fs) != 0 {
			t.Errorf("ring side %v: want quiet, got %v", withRing, fs)
		}
	}
}

func TestBenignCodesAreQuiet(t *testing.T) {
	for _, code := range []string{"LEADER_UNDETERMINED", "LEADER_NOT_READY", "RATIS_NOT_ENABLED"} {
		f := newFixture(t)
		f.log(0, "om4", starterLogger, startup("--bootstrap"))
		f.exit(61 * time.Second)
		f.stdout("om4", "Failed to Bootstrap OM. Error Code: "+code+", Error Message: omNode-1 is not the leader") // N18
		if fs := f.run(nil); len(fs) != 0 {
			t.Errorf("%s: want quiet, got %v", code, fs)
		}
	}
}

func TestLostLeadershipNotCommittedIsQuiet(t *testing.T) {
	// The leader stepped down before the transitional entry reached a majority: the next leader's configuration lacks omNode-4.
	f := newFixture(t)
	f.bootstrapStart()
	f.lostLeadership(60 * time.Second)
	f.exit(61 * time.Second)
	f.out("Failed to add OM omNode-4 in Ratis ring.")
	f.commit(64*time.Second, 7, 4, 1, 2, 3)
	if fs := f.run(nil); len(fs) != 0 {
		t.Errorf("want quiet, got %v", fs)
	}
}

func TestOperatorStopIsQuiet(t *testing.T) {
	f := newFixture(t)
	f.bootstrapStart()
	f.log(50*time.Second, "om4", starterLogger, "RECEIVED SIGNAL 15: SIGTERM") // C.4
	f.exit(51 * time.Second)
	f.commit(71*time.Second, 6, 5, 1, 2, 3, 4)
	if fs := f.run(nil); len(fs) != 0 {
		t.Errorf("want quiet, got %v", fs)
	}
}

func TestElectionsListingOldPeersAreQuiet(t *testing.T) {
	// An ordinary restart of an existing OM: step-down and applied configurations at every election, no bootstrap.
	f := newFixture(t)
	f.log(0, "om1", divisionLogger, "omNode-1@"+group+": changes role from    LEADER to FOLLOWER at term 6 for StepDownReason:LOST_MAJORITY_HEARTBEATS")
	f.commit(5*time.Second, 7, 4, 1, 2, 3)
	f.commit(time.Hour, 8, 5, 1, 2, 3)
	if fs := f.run(nil); len(fs) != 0 {
		t.Errorf("want quiet, got %v", fs)
	}
}

func TestConfigurationBeforeTheRunDoesNotCount(t *testing.T) {
	// A configuration listing omNode-4 long before this bootstrap run (it was a member once) is not evidence.
	f := newFixture(t)
	f.commit(-time.Hour+10*time.Minute, 5, 1, 1, 2, 3, 4)
	f.commit(-time.Hour+20*time.Minute, 5, 2, 1, 2, 3)
	f.bootstrapStart()
	f.exit(90 * time.Second)
	f.out("omNode-1@" + group + "-ConfigurationStagingState: Fail to set configuration peers:[" + peersPipe(1, 2, 3, 4) + "]|listeners:[] due to NOPROGRESS")
	f.commit(20*time.Minute, 7, 4, 1, 2, 3)
	if fs := f.run(nil); len(fs) != 0 {
		t.Errorf("want quiet, got %v", fs)
	}
}

func TestBadOption(t *testing.T) {
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Options: map[string]string{"clock_tolerance": "soon"}}
	if _, err := bootstrapexit.Registration.New(env); err == nil {
		t.Error("want an error for a bad clock_tolerance")
	}
}

func TestDocKindsAreCatalogued(t *testing.T) {
	known := map[catalogue.Kind]bool{}
	for _, e := range catalogue.Default() {
		known[e.Kind] = true
	}
	for _, k := range bootstrapexit.Registration.Doc.Kinds {
		if !known[k] {
			t.Errorf("kind %s has no catalogue entry", k)
		}
	}
}

func evidenceText(f detectors.Finding) string {
	var b strings.Builder
	for _, e := range f.Evidence {
		b.WriteString(e.Text + "\n")
	}
	return b.String()
}

// stream feeds the signals to a detector built by hand, as a daemon does
// (identities learned as they come, no End), then advances the clock to
// until; it returns every emission.
func (f *fixture) stream(env *detectors.Env, until time.Time) (detectors.Detector, []detectors.Finding) {
	f.t.Helper()
	det, err := bootstrapexit.Registration.New(env)
	if err != nil {
		f.t.Fatal(err)
	}
	var got []detectors.Finding
	emit := func(x detectors.Finding) { got = append(got, x) }
	sigs := append([]*catalogue.Signal(nil), f.sigs...)
	sort.SliceStable(sigs, func(i, j int) bool {
		if sigs[i].Time.IsZero() != sigs[j].Time.IsZero() {
			return sigs[i].Time.IsZero()
		}
		return sigs[i].Time.Before(sigs[j].Time)
	})
	for _, s := range sigs {
		env.Identity.Learn(s)
		if !s.Time.IsZero() {
			det.Advance(s.Time, emit)
		}
		det.Observe(s, emit)
	}
	det.Advance(until, emit)
	return det, got
}

// The warning End raises at the end of the input is raised by Advance
// once the deadline passed, so a run that never ends raises it too.
func TestWarningAtDeadline(t *testing.T) {
	f := newFixture(t)
	f.log(0, "om4", starterLogger, startup("--bootstrap"))
	f.log(20*time.Second, "om4", ratisLogger, "Starting OzoneManagerRatisServer omNode-4 at port 9872")
	f.exit(61 * time.Second)
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	_, got := f.stream(env, t0.Add(61*time.Second+14*time.Minute))
	if len(got) != 0 {
		t.Fatalf("decided before the deadline: %v", got)
	}
	env = &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	// The service ID is learned after the detector was built.
	det, _ := f.stream(env, t0)
	env.Settings.Set("ozone.om.service.ids", "omservice", "ozone-site.xml")
	var got2 []detectors.Finding
	det.Advance(t0.Add(61*time.Second+15*time.Minute+time.Millisecond), func(x detectors.Finding) { got2 = append(got2, x) })
	if len(got2) != 1 || got2[0].Severity != detectors.Warning || got2[0].State != detectors.Firing {
		t.Fatalf("want one firing warning at the deadline, got %v", got2)
	}
	if got2[0].Facts["om_service_id"] != "omservice" {
		t.Errorf("service id %q", got2[0].Facts["om_service_id"])
	}
	// A later Advance does not raise it again.
	det.Advance(t0.Add(time.Hour), func(x detectors.Finding) { got2 = append(got2, x) })
	if len(got2) != 1 {
		t.Errorf("raised again: %v", got2[1:])
	}
	stats := det.StateStats()
	if len(stats) != 6 || stats[5].Name != "failed bootstraps" || stats[5].Entries != 1 {
		t.Errorf("stats %+v", stats)
	}
}

// A warning raised at the deadline resolves when the bootstrap is run again
// before the ring listed the node.
func TestWarningResolvedByRerun(t *testing.T) {
	f := newFixture(t)
	f.notReady(false)
	f.out("Failed to add OM omNode-4 in Ratis ring.")
	f.retrySucceeds(40*time.Minute, true)
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	_, got := f.stream(env, t0.Add(2*time.Hour))
	if len(got) != 2 || got[0].Severity != detectors.Warning || got[0].State != detectors.Firing ||
		got[1].Key != got[0].Key || got[1].State != detectors.Resolved {
		t.Fatalf("want a warning then its resolution, got %v", got)
	}
}

func TestOptionNamespaces(t *testing.T) {
	for _, k := range []string{"clock_tolerance", "bootstrapexit.clock_tolerance", "om-bootstrap-exit-voter.clock_tolerance"} {
		f := newFixture(t)
		f.log(0, "om4", starterLogger, startup("--bootstrap"))
		f.exit(61 * time.Second)
		got := one(t, f.run(map[string]string{k: "45s"}))
		if got.Facts["clock_tolerance"] != "45s (option clock_tolerance)" {
			t.Errorf("%s: %q", k, got.Facts["clock_tolerance"])
		}
	}
}

// The ring's side is judged again when the run learns, from another
// component's lines, which node ID the exited OM had: Advance reports it,
// not only the end of the input.
func TestNodeLearnedLaterIsJudgedInAdvance(t *testing.T) {
	f := newFixture(t)
	f.log(0, "om4", starterLogger, startup("--bootstrap"))
	f.log(61*time.Second, "om4", omLogger, "Failed to Bootstrap OM.")
	f.log(62*time.Second, "om4", starterLogger, shutdown)
	f.log(70*time.Second, "om1", ratisLogger, "add OM omNode-4 in Ratis group "+group+".") // L15
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	det, got := f.stream(env, t0.Add(70*time.Second))
	if len(got) != 0 {
		t.Fatalf("judged before the node was known: %v", got)
	}
	env.Identity.AddOM("omNode-4", "om4.example.com")
	det.Advance(t0.Add(71*time.Second), func(x detectors.Finding) { got = append(got, x) })
	if len(got) != 1 || got[0].Severity != detectors.Critical || got[0].State != detectors.Firing || got[0].Facts["om_node"] != "omNode-4" {
		t.Fatalf("want one critical finding once the node is known, got %v", got)
	}
}
