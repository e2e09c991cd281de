package scenario

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

func TestStartupBanner(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	s := New(1, testStart, time.Hour, NewCluster(rng, 1, 4, 3))
	s.Site = map[string]string{"ozone.om.service.ids": "omservice", "hdds.heartbeat.interval": "10s"}
	om := s.Cluster.OMs[3]
	s.Startup(om, testStart, "--bootstrap")
	got := s.Lines(om.Host)
	if len(got) != 2 {
		t.Fatalf("%d lines, want banner and signal registration", len(got))
	}
	b := got[0]
	if b.Logger != "org.apache.hadoop.ozone.om.OzoneManagerStarter" || b.Thread != "main" || b.Level != parsers.LevelInfo {
		t.Errorf("banner logger/thread/level = %s/%s/%s", b.Logger, b.Thread, b.Level)
	}
	// signatures-dn-om.md C.3, line by line.
	want := []string{
		"STARTUP_MSG: ",
		"/************************************************************",
		"STARTUP_MSG: Starting OzoneManager",
		"STARTUP_MSG:        host = om4.example.com/10.0.1.4",
		"STARTUP_MSG:     version = 2.2.0",
		"STARTUP_MSG:       build = " + startupBuildRepo + "/" + buildRevision("2.2.0"),
		"STARTUP_MSG:        java = 17.0.15",
		"STARTUP_MSG:        args = [--bootstrap]",
		"STARTUP_MSG:   classpath = " + startupClasspath("2.2.0"),
		"STARTUP_MSG:        conf = {hdds.heartbeat.interval=10s, ozone.om.service.ids=omservice}",
		"************************************************************/",
	}
	if g := strings.Split(b.Msg, "\n"); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("banner:\n%s\nwant:\n%s", b.Msg, strings.Join(want, "\n"))
	}
	if len(buildRevision("2.2.0")) != 40 {
		t.Errorf("revision %q is not 40 hex digits", buildRevision("2.2.0"))
	}
	if got[1].Msg != "registered UNIX signal handlers for [TERM, HUP, INT]" || !got[1].At.After(b.At) {
		t.Errorf("second line = %+v", got[1])
	}

	// No site: no conf item; plain start: "[]".
	s2 := New(1, testStart, time.Hour, s.Cluster)
	dn := s2.Cluster.Datanodes[0]
	s2.Startup(dn, testStart, "")
	msg := s2.Lines(dn.Host)[0].Msg
	if strings.Contains(msg, "conf = ") || !strings.Contains(msg, "\nSTARTUP_MSG:        args = []\n") ||
		!strings.Contains(msg, "\nSTARTUP_MSG: Starting HddsDatanodeService\n") {
		t.Errorf("datanode banner:\n%s", msg)
	}
	if l := s2.Lines(dn.Host)[0].Logger; l != "org.apache.hadoop.ozone.HddsDatanodeService" {
		t.Errorf("datanode banner logger %s", l)
	}
}

func TestShutdownAndSignal(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	s := New(1, testStart, time.Hour, NewCluster(rng, 1, 1, 1))
	scm := s.Cluster.SCMs[0]
	s.Signal(scm, testStart, "SIGTERM")
	s.Signal(scm, testStart.Add(time.Second), "hup")
	s.Shutdown(scm, testStart.Add(2*time.Second))
	got := s.Lines(scm.Host)
	if len(got) != 3 {
		t.Fatalf("%d lines", len(got))
	}
	if got[0].Msg != "RECEIVED SIGNAL 15: SIGTERM" || got[0].Level != parsers.LevelError || got[0].Thread != "SIGTERM handler" ||
		got[0].Logger != "org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter" {
		t.Errorf("signal line %+v", got[0])
	}
	if got[1].Msg != "RECEIVED SIGNAL 1: SIGHUP" {
		t.Errorf("hup line %q", got[1].Msg)
	}
	want := "SHUTDOWN_MSG: \n/************************************************************\n" +
		"SHUTDOWN_MSG: Shutting down StorageContainerManager at scm1.example.com/10.0.0.1\n" +
		"************************************************************/"
	if got[2].Msg != want || got[2].Thread != "shutdown-hook-0" {
		t.Errorf("shutdown banner:\n%s\nwant\n%s", got[2].Msg, want)
	}
}

func TestStartCluster(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	s := New(1, testStart, time.Hour, NewCluster(rng, 3, 3, 5))
	s.StartCluster(testStart)
	var starters []string
	for _, l := range s.Lines("") {
		if strings.HasPrefix(l.Msg, "STARTUP_MSG:") {
			starters = append(starters, l.Host)
		}
	}
	if len(starters) != 11 || starters[0] != "scm1.example.com" || starters[10] != "dn5.example.com" {
		t.Errorf("startup order %v", starters)
	}
}

func TestClusterHelpers(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	c := NewCluster(rng, 3, 3, 3)
	if got := c.ThreadPrefix(c.SCMs[1]); got != "scm2-" {
		t.Errorf("SCM HA prefix %q", got)
	}
	single := NewCluster(rand.New(rand.NewSource(1)), 1, 1, 1)
	if got := single.ThreadPrefix(single.SCMs[0]); got != "" {
		t.Errorf("single SCM prefix %q", got)
	}
	if got := c.ThreadPrefix(c.Datanodes[0]); got != c.Datanodes[0].UUID+"-" {
		t.Errorf("datanode prefix %q", got)
	}
	if g := c.SCMGroup(); len(g) != len("group-")+12 || g != GroupID(c.ClusterUUID()) || g != NewCluster(rand.New(rand.NewSource(1)), 3, 3, 3).SCMGroup() {
		t.Errorf("SCM group %q not stable", g)
	}
	if got := MemberID(c.OMs[0], c.OMGroup); got != "omNode-1@"+c.OMGroup {
		t.Errorf("OM member %q", got)
	}
	if got := MemberID(c.Datanodes[0], "group-4C3FA0E1B2D9"); got != c.Datanodes[0].UUID+"@group-4C3FA0E1B2D9" {
		t.Errorf("DN member %q", got)
	}
}
