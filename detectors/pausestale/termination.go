package pausestale

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// scmClosedByRatis is the reason SCMStateMachine.close() passes to the
// SCM's shutdown (SCMStateMachine.java:573, T07).
const scmClosedByRatis = "scm statemachine is closed by ratis"

// titleTerminated is the title of the termination outcome, which is not
// HDDS-17519: no datanode is marked STALE or DEAD by a health checker.
const titleTerminated = "SCM terminated after a pause longer than the Ratis close threshold (not HDDS-17519)"

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
	restart     time.Time                                      // STARTUP_MSG after the exit
	rereg       *detectors.Bounded[string, catalogue.Datanode] // by UUID
	reregSeen   int
	ev          detectors.EvidenceLog
}

func newTermination(scm string, s *catalogue.Signal) *termination {
	return &termination{scm: scm, pauseEnd: s.Time, rereg: detectors.NewBounded[string, catalogue.Datanode](maxNodes, detectors.EvictOldest),
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
	if s.Datanode.UUID == "" || t.rereg.Has(s.Datanode.UUID) {
		return
	}
	t.rereg.Put(s.Datanode.UUID, s.Datanode)
	if t.reregSeen < maxReregistered {
		t.ev.Add(detectors.EvidenceOf(s))
	}
	t.reregSeen++
}

// reregSeenNodes counts the datanodes that re-registered, including those
// the bound on the state left out.
func (t *termination) reregSeenNodes() int { return t.rereg.Len() + int(t.rereg.Evicted()) }

// finding renders the termination. inputEnd is the end of the input when
// the finding is reported at Flush (zero otherwise); it matters only for a
// close ERROR the SCM has not confirmed yet, which is pending before the
// input's end.
func (t *termination) finding(c *config, env *detectors.Env, inputEnd time.Time) detectors.Finding {
	f := t.render(c, env, inputEnd)
	doc().GateVersion(&f, env.Identity, t.scm)
	return f
}

func (t *termination) render(c *config, env *detectors.Env, inputEnd time.Time) detectors.Finding {
	// The pause is HDDS-17519's trigger, but an SCM that terminated marks no
	// datanode STALE: its own condition, not that defect.
	f := detectors.Finding{Key: t.key, Defect: "unclassified", Title: titleTerminated, Severity: detectors.Critical, Facts: map[string]string{}}
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
	if t.ev.Dropped() > 0 {
		f.Facts["evidence_dropped"] = strconv.Itoa(t.ev.Dropped())
	}
	f.Start, f.End = t.pauseEnd.Add(-t.pause), maxTime(t.pauseEnd, t.exitAt, t.shutdownAt)
	f.State = detectors.Firing
	if !t.restart.IsZero() {
		f.State, f.End = detectors.Resolved, t.restart
		f.Facts["restarted_at"] = t.restart.Format(time.RFC3339Nano)
		f.Facts["reregistered_datanodes"] = strconv.Itoa(t.reregSeenNodes())
	}
	f.Entities.Hosts = []string{t.scm}
	for _, d := range t.rereg.All() {
		f.Entities.Datanodes = append(f.Entities.Datanodes, env.Identity.Complete(d))
	}
	detectors.SortDatanodes(f.Entities.Datanodes)
	f.Evidence = t.ev.List()
	detectors.SortEvidence(f.Evidence)

	var b strings.Builder
	fmt.Fprintf(&b, "The SCM on %s was paused %s, longer than the Ratis close threshold %s, ",
		t.scm, t.pause.Round(time.Millisecond), c.close.d)
	switch {
	case t.sawExit:
		fmt.Fprintf(&b, "and terminated itself at %s (%q)", detectors.Stamp(t.exitAt), scmClosedByRatis)
	case t.sawShutdown:
		fmt.Fprintf(&b, "and Ratis shut its server down; the SCM logged SHUTDOWN_MSG at %s", detectors.Stamp(t.shutdownAt))
	case inputEnd.IsZero():
		fmt.Fprintf(&b, "and Ratis shut its server down at %s; the SCM's termination line (%q) or SHUTDOWN_MSG "+
			"should follow within %s.", detectors.Stamp(t.closeAt), scmClosedByRatis, exitWait)
		f.Summary, f.State = b.String(), detectors.Pending
		return f
	default:
		fmt.Fprintf(&b, "and Ratis shut its server down at %s; the input ends %s later, before the SCM's termination line "+
			"(%q) or SHUTDOWN_MSG: termination not in the input.", detectors.Stamp(t.closeAt), inputEnd.Sub(t.closeAt).Round(time.Millisecond), scmClosedByRatis)
		f.Summary = b.String()
		return f
	}
	if t.restart.IsZero() {
		b.WriteString("; no restart was seen before the input ended.")
	} else {
		fmt.Fprintf(&b, "; it started again at %s and %d datanode(s) re-registered.", detectors.Stamp(t.restart), t.reregSeenNodes())
	}
	f.Summary = b.String()
	return f
}
