package pausestale

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// scmClosedByRatis is the reason SCMStateMachine.close() passes to the
// SCM's shutdown (SCMStateMachine.java:573, T07).
const scmClosedByRatis = "scm statemachine is closed by ratis"

// maxReregistered bounds the re-registration lines kept as evidence.
const maxReregistered = 5

// exitWait is how soon after the Ratis close-threshold ERROR (T06) the SCM's
// termination line (T07) or its SHUTDOWN_MSG must follow for the SCM to be
// reported terminated: SCMStateMachine.close() terminates the SCM on the same
// thread right after Ratis closes the server (T07 follows T06 within about a
// second), and the SHUTDOWN_MSG hook runs as the JVM exits. The margin covers
// layouts that print whole seconds.
const exitWait = 5 * time.Second

// termination is the other outcome of a long pause: Ratis closed the SCM's
// server and the SCM terminated itself. A termination started by the close
// ERROR alone is held until the SCM's own lines confirm it (T07 or
// SHUTDOWN_MSG within exitWait); it is dropped when they do not.
type termination struct {
	scm         string
	key         string
	pauseEnd    time.Time
	pause       time.Duration
	pauseBy     string
	sawClose    bool // T06
	closeAt     time.Time
	sawExit     bool // T07
	exitAt      time.Time
	sawShutdown bool // the SCM's SHUTDOWN_MSG
	shutdownAt  time.Time
	restart     time.Time // STARTUP_MSG after the exit
	rereg       map[string]catalogue.Datanode
	reregSeen   int
	ev          detectors.EvidenceLog
}

func newTermination(scm string, s *catalogue.Signal) *termination {
	return &termination{scm: scm, pauseEnd: s.Time, rereg: map[string]catalogue.Datanode{},
		key: "terminated/" + detectors.ShortHost(scm) + "/" + s.Time.UTC().Format("2006-01-02T15:04:05.000Z")}
}

func (t *termination) addPause(s *catalogue.Signal) {
	t.ev.Add(detectors.EvidenceOf(s))
	if s.Duration > t.pause {
		t.pause, t.pauseBy = s.Duration, pauseSource(s.Kind)
	}
	if s.Kind == catalogue.RaftPauseClose && !t.sawClose {
		t.sawClose, t.closeAt = true, s.Time
	}
}

func (t *termination) addExit(s *catalogue.Signal) {
	t.ev.Add(detectors.EvidenceOf(s))
	t.sawExit, t.exitAt = true, s.Time
}

func (t *termination) addShutdown(s *catalogue.Signal) {
	t.ev.Add(detectors.EvidenceOf(s))
	if !t.sawShutdown {
		t.sawShutdown, t.shutdownAt = true, s.Time
	}
}

// confirmed reports whether the SCM's own lines show that it ended: its
// termination line or its SHUTDOWN_MSG.
func (t *termination) confirmed() bool { return t.sawExit || t.sawShutdown }

// expired reports whether a termination the SCM has not confirmed can no
// longer be: exitWait has passed since the close ERROR.
func (t *termination) expired(now time.Time) bool {
	return !t.confirmed() && now.After(t.pauseEnd.Add(exitWait))
}

// addReregistration records a datanode registering with the restarted SCM.
func (t *termination) addReregistration(s *catalogue.Signal) {
	if s.Datanode.UUID == "" || len(t.rereg) >= maxNodes {
		return
	}
	if _, ok := t.rereg[s.Datanode.UUID]; ok {
		return
	}
	t.rereg[s.Datanode.UUID] = s.Datanode
	if t.reregSeen < maxReregistered {
		t.ev.Add(detectors.EvidenceOf(s))
	}
	t.reregSeen++
}

// finding renders the termination. inputEnd is the end of the input when
// the finding is reported at Flush (zero otherwise); it matters only for a
// close ERROR the SCM has not confirmed yet.
func (t *termination) finding(c *config, env *detectors.Env, inputEnd time.Time) detectors.Finding {
	f := detectors.Finding{Key: t.key, Severity: detectors.Critical, Facts: map[string]string{}}
	c.facts(f.Facts)
	f.Facts["outcome"] = "scm-terminated"
	if !t.confirmed() {
		f.Facts["outcome"] = "ratis-closed"
		f.Facts["termination"] = "not in the input"
	}
	f.Facts["close_threshold"] = c.close.String()
	f.Facts["pause"] = t.pause.Round(time.Millisecond).String()
	f.Facts["pause_measured_by"] = t.pauseBy
	f.Facts["pause_end"] = t.pauseEnd.Format(time.RFC3339Nano)
	f.Facts["max_return"] = "(not applicable)"
	f.Facts["dead_nodes"] = "0"
	var seen []string
	if t.sawClose {
		seen = append(seen, "Ratis close after pause")
	}
	if t.sawExit {
		seen = append(seen, "SCM terminated")
	}
	if t.sawShutdown {
		seen = append(seen, "SCM SHUTDOWN_MSG")
	}
	if !t.restart.IsZero() {
		seen = append(seen, "SCM restarted")
	}
	f.Facts["signals"] = strings.Join(seen, ", ")
	f.Confidence = detectors.Medium
	if t.sawClose && t.sawExit {
		f.Confidence = detectors.High
	}
	if v := env.Identity.Version(t.scm); v != "" {
		f.Facts["ozone_version"] = v
	}
	if t.ev.Dropped() > 0 {
		f.Facts["evidence_dropped"] = strconv.Itoa(t.ev.Dropped())
	}
	f.Start, f.End = t.pauseEnd.Add(-t.pause), maxTime(t.pauseEnd, t.exitAt, t.shutdownAt)
	f.State = detectors.Firing
	if !t.restart.IsZero() {
		f.State, f.End = detectors.Resolved, t.restart
		f.Facts["restarted_at"] = t.restart.Format(time.RFC3339Nano)
		f.Facts["reregistered_datanodes"] = strconv.Itoa(len(t.rereg))
	}
	f.Entities.Hosts = []string{t.scm}
	for _, d := range t.rereg {
		f.Entities.Datanodes = append(f.Entities.Datanodes, env.Identity.Complete(d))
	}
	sort.Slice(f.Entities.Datanodes, func(i, j int) bool { return f.Entities.Datanodes[i].UUID < f.Entities.Datanodes[j].UUID })
	f.Evidence = t.ev.List()
	detectors.SortEvidence(f.Evidence)

	const stamp = "2006-01-02 15:04:05"
	var b strings.Builder
	fmt.Fprintf(&b, "The SCM on %s was paused %s, longer than the Ratis close threshold %s, ",
		t.scm, t.pause.Round(time.Millisecond), c.close.d)
	switch {
	case t.sawExit:
		fmt.Fprintf(&b, "and terminated itself at %s (%q)", t.exitAt.Format(stamp), scmClosedByRatis)
	case t.sawShutdown:
		fmt.Fprintf(&b, "and Ratis shut its server down; the SCM logged SHUTDOWN_MSG at %s", t.shutdownAt.Format(stamp))
	default:
		fmt.Fprintf(&b, "and Ratis shut its server down at %s; the input ends %s later, before the SCM's termination line "+
			"(%q) or SHUTDOWN_MSG: termination not in the input.", t.closeAt.Format(stamp), inputEnd.Sub(t.closeAt).Round(time.Millisecond), scmClosedByRatis)
		f.Summary = b.String()
		return f
	}
	if t.restart.IsZero() {
		b.WriteString("; no restart was seen before the input ended.")
	} else {
		fmt.Fprintf(&b, "; it started again at %s and %d datanode(s) re-registered.", t.restart.Format(stamp), len(t.rereg))
	}
	f.Summary = b.String()
	return f
}
