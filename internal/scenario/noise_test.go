package scenario

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// forbidden are texts the defect signatures key on (signatures-scm.md §1-3,
// signatures-dn-om.md PART A/B); background lines must never contain them.
var forbidden = []string{
	"moved to stale state", "A dead datanode is detected", "moved to HEALTHY READONLY state", "moved to HEALTHY state",
	"Skipping heartbeat checks", "Detected pause in JVM", "JVM pause detected", "Total time spend processing datanode HB",
	"Invalid datanode", "Invalid data node", "has software version", "Registered datanode",
	"heartbeat from an unregistered", "Clean SCMCommand record", "Clearing command queue",
	"Deleting empty QUASI_CLOSED", "forceDeleteContainerCommand", "DeleteContainerCommand due to", "Marked container DELETED",
	"Container force deleted", "Resurrecting container",
	"Write chunk has taken", "Failed to writeStateMachineData", "Can't close container", "(CLOSING)", "current state is CLOSING",
	"Failed to Bootstrap OM", "set configuration", "notifyConfigurationChanged", "setConfiguration", "SetConfiguration",
	"Stopping Ozone Manager", "Terminating with exit status", "Exiting with status", "RECEIVED SIGNAL",
	"STARTUP_MSG", "SHUTDOWN_MSG", "Finaliz", "finaliz",
	"Timeout 10s", "writeStateMachineData failed", "Failed appendEntries", "pipeline Action",
}

var moreRe = regexp.MustCompile(`\n\t\.\.\. \d+ more\n`)

func noisyScenario(t *testing.T, rate int) *Scenario {
	t.Helper()
	rng := rand.New(rand.NewSource(11))
	s := New(11, testStart, 3*time.Hour, NewCluster(rng, 3, 3, 6))
	s.StartCluster(testStart)
	s.Noise(rate)
	return s
}

func TestNoiseAvoidsSignatures(t *testing.T) {
	s := noisyScenario(t, 10)
	var nLog, nWarn, nStack, nAudit, nContainer, nHeartbeat int
	perHost := map[string]int{}
	for _, l := range s.Lines("") {
		if strings.HasPrefix(l.Msg, "STARTUP_MSG:") || strings.HasPrefix(l.Msg, "registered UNIX signal handlers") {
			continue // StartCluster's banners
		}
		for _, f := range forbidden {
			if strings.Contains(l.Msg, f) {
				t.Errorf("background line contains %q: %s", f, l.Msg)
			}
		}
		if l.At.Before(s.Start) || !l.At.Before(s.End) {
			t.Errorf("background line outside the window: %s", l.At)
		}
		switch l.File {
		case parsers.KindLog:
			nLog++
			perHost[l.Host]++
			if l.Logger == "" || l.Thread == "" || l.Source == "" || !strings.Contains(l.Source, ".java:") {
				t.Errorf("line without logger, thread or source: %+v", l)
			}
			if l.Level == parsers.LevelWarn {
				nWarn++
			}
			if strings.Contains(l.Msg, "\n\tat ") && strings.Contains(l.Msg, "\nCaused by: ") && moreRe.MatchString(l.Msg) {
				nStack++
			}
		case parsers.KindAudit:
			nAudit++
			if strings.Contains(l.Msg, "op=SEND_HEARTBEAT ") {
				nHeartbeat++
			}
		case parsers.KindContainer:
			nContainer++
		}
	}
	t.Logf("%d log lines (%d WARN, %d stack traces), %d audit (%d heartbeats), %d container", nLog, nWarn, nStack, nAudit, nHeartbeat, nContainer)
	if nWarn == 0 || nStack == 0 || nAudit == 0 || nContainer == 0 {
		t.Errorf("background lacks WARN lines, stack traces, audit or container lines")
	}
	for _, n := range s.Cluster.Nodes() {
		if perHost[n.Host] < 100 {
			t.Errorf("%s has only %d background lines", n.Host, perHost[n.Host])
		}
	}
	// Every datanode heartbeats every 30 s to each of the three SCMs.
	if want := 6 * 3 * int(3*time.Hour/(30*time.Second)); nHeartbeat < want*9/10 || nHeartbeat > want*11/10 {
		t.Errorf("%d SEND_HEARTBEAT lines, want about %d", nHeartbeat, want)
	}
}

// TestNoiseTemplates checks the rendered shapes of the background lines
// that carry the most structure.
func TestNoiseTemplates(t *testing.T) {
	s := noisyScenario(t, 10)
	shapes := map[string]*regexp.Regexp{
		// B14 PipelineManagerImpl.java:459 with Pipeline.toString
		"Pipeline Pipeline{": regexp.MustCompile(`^Pipeline Pipeline\{ Id: [0-9a-f-]{36}, Nodes: \[( \{[0-9a-f-]{36}\(dn\d\.example\.com/[\d.]+\), ReplicaIndex: 0\},){3}\], ReplicationConfig: RATIS/THREE, State:CLOSED, leaderId:[0-9a-f-]{36}, CreationTimestamp\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\[UTC\]\} removed\.$`),
		// R1 healthy form RaftServerProxy.java:117
		": remove ": regexp.MustCompile(`^[0-9a-f-]{36}: remove (   LEADER| FOLLOWER) \(RUNNING\): [0-9a-f-]{36}@group-[0-9A-F]{12}:t1, leader=[0-9a-f-]{36}, voted=[0-9a-f-]{36}, raftlog=[0-9a-f-]{36}@group-[0-9A-F]{12}-SegmentedRaftLog:OPENED:c\d+:last\(t:1, i:\d+\), conf=conf: \{index: \d+, cur=peers:\[([0-9a-f-]{36}\|[\d.]+:9858(, )?){3}\]\|listeners:\[\], old=null\}$`),
		// B25 SegmentedRaftLogWorker.java:445
		"Rolling segment": regexp.MustCompile(`^\S+@group-[0-9A-F]{12}-SegmentedRaftLogWorker: Rolling segment log_inprogress_\d+ to index:\d+$`),
		// B20 AbstractContainerReportHandler.java:289
		"CLOSE Container": regexp.MustCompile(`^CLOSE Container #\d+ \(CLOSING, sid=\d+\) r0 \(CLOSED, bcsid=\d+, origin=[0-9a-f-]{36}, non-empty\) from dn [0-9a-f-]{36}\(dn\d\.example\.com/[\d.]+\)$`),
		// E.1 #20 RaftServerImpl.java:393 (role %9s)
		"changes role": regexp.MustCompile(`^[0-9a-f-]{36}@group-[0-9A-F]{12}: changes role from ( FOLLOWER to CANDIDATE at term 1 for changeToCandidate|CANDIDATE to LEADER at term 1 for changeToLeader)$`),
	}
	seen := map[string]int{}
	for _, l := range s.Lines("") {
		for key, re := range shapes {
			if strings.Contains(l.Msg, key) {
				seen[key]++
				if !re.MatchString(l.Msg) {
					t.Errorf("%s line has the wrong shape:\n%s", key, l.Msg)
				}
			}
		}
		if strings.Contains(l.Msg, "changes role") {
			if n, _ := s.Cluster.Node(l.Host); n.Component != parsers.ComponentDatanode {
				t.Errorf("role change on %s: SCM and OM elections are defect evidence", l.Host)
			}
		}
	}
	for key := range shapes {
		if seen[key] == 0 {
			t.Errorf("no %q line in three hours of background", key)
		}
	}
}

func TestNoiseRespectsDownAndQuiet(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	s := New(3, testStart, 2*time.Hour, NewCluster(rng, 3, 4, 3))
	c := s.Cluster
	om4, dn2, scm2 := c.OMs[3], c.Datanodes[1], c.SCMs[1]
	for _, n := range c.Nodes() {
		if n.Host != om4.Host { // om4 joins later
			s.Startup(n, testStart, "")
		}
	}
	joined := testStart.Add(time.Hour)
	s.Startup(om4, joined, "--bootstrap")
	down, up := testStart.Add(30*time.Minute), testStart.Add(50*time.Minute)
	s.Signal(dn2, down.Add(-time.Second), "TERM")
	s.Shutdown(dn2, down)
	s.Startup(dn2, up, "")
	pause := testStart.Add(70 * time.Minute)
	s.Quiet(scm2.Short(), pause, pause.Add(6*time.Minute))
	s.Noise(10)

	silent := func(l Line) bool {
		switch l.Host {
		case om4.Host:
			return l.At.Before(joined)
		case dn2.Host:
			return !l.At.Before(down) && l.At.Before(up)
		case scm2.Host:
			return !l.At.Before(pause) && l.At.Before(pause.Add(6*time.Minute))
		}
		return false
	}
	counts := map[string]int{}
	for _, l := range s.Lines("") {
		if l.File == KindQuiet || strings.Contains(l.Msg, "_MSG:") || strings.Contains(l.Msg, "SIGNAL") || strings.Contains(l.Msg, "signal handlers") {
			continue
		}
		if silent(l) {
			t.Errorf("background line on %s at %s while it is silent: %.100s", l.Host, l.At.Format(time.TimeOnly), l.Msg)
		}
		if l.File == parsers.KindAudit && strings.Contains(l.Msg, `"datanodeUUID":"`+dn2.UUID+`"`) && !l.At.Before(down) && l.At.Before(up) {
			t.Errorf("heartbeat of stopped %s audited at %s", dn2.Host, l.At.Format(time.TimeOnly))
		}
		counts[l.Host]++
	}
	for _, n := range []Node{om4, dn2, scm2} {
		if counts[n.Host] < 100 {
			t.Errorf("%s: %d background lines outside its silent period", n.Host, counts[n.Host])
		}
	}
	if len(s.Lines("")) == 0 {
		t.Fatal("no lines")
	}
	// Quiet markers are not rendered.
	_, files := render(t, s, Render{})
	for name, content := range files {
		if strings.Contains(content, pause.Add(6*time.Minute).Format(time.RFC3339Nano)) {
			t.Errorf("%s contains the quiet marker", name)
		}
	}
}

func TestNoiseSmallClusters(t *testing.T) {
	for _, shape := range [][3]int{{1, 1, 1}, {1, 1, 2}, {1, 0, 0}, {0, 1, 4}} {
		rng := rand.New(rand.NewSource(5))
		s := New(5, testStart, time.Hour, NewCluster(rng, shape[0], shape[1], shape[2]))
		s.Noise(10)
		if err := s.Render(t.TempDir(), Render{Noise: 3, Rotate: true}); err != nil {
			t.Errorf("%v: %v", shape, err)
		}
		if len(s.Lines("")) == 0 {
			t.Errorf("%v: no background", shape)
		}
	}
}

func TestNoiseZeroRate(t *testing.T) {
	s := testScenario(t)
	before := len(s.Lines(""))
	s.Noise(0)
	if len(s.Lines("")) != before {
		t.Error("Noise(0) added lines")
	}
}
