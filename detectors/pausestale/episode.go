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

// maxNodes bounds the datanodes one episode tracks; maxNamed bounds the
// datanodes a fact lists by name.
const (
	maxNodes = 4096
	maxPipes = 4 * maxNodes
	maxNamed = 20
)

// episode is one pause of one SCM and the node transitions that followed it.
type episode struct {
	scm      string
	key      string
	pauseEnd time.Time     // when the SCM ran again (the first pause line)
	pause    time.Duration // longest pause measured by a line
	pauseBy  string        // which line measured it
	measured bool          // a pause line, not only a log silence, measured it
	lines    map[catalogue.Kind]int

	nodes   *detectors.Bounded[string, *node] // by datanode UUID, in order of their first transition
	emitted bool                              // reported (maybe pending) before the episode closed

	pipes      *detectors.Bounded[string, bool] // pipelines the stale handler finalized
	closed     int                              // of those, moved to CLOSED
	closeFails int                              // close attempts that failed (T11, a follower SCM)
	removed    int                              // of those, removed (dead handler)
	cmdDropped int64
	lastChange time.Time // latest STALE/DEAD transition
	ev         detectors.EvidenceLog
}

// node is one datanode's part in an episode.
type node struct {
	dn      catalogue.Datanode
	stale   bool
	dead    bool
	last    time.Time // latest STALE/DEAD transition
	back    time.Time // first return after last (HEALTHY READONLY or HEALTHY)
	healthy time.Time // HEALTHY
	stopped bool      // the datanode itself shut down: a real failure
}

func newEpisode(scm string, s *catalogue.Signal) *episode {
	ep := &episode{scm: scm, pauseEnd: s.Time, lines: map[catalogue.Kind]int{},
		nodes: detectors.NewBounded[string, *node](maxNodes, detectors.EvictOldest),
		pipes: detectors.NewBounded[string, bool](maxPipes, detectors.EvictOldest)}
	ep.key = detectors.ShortHost(scm) + "/" + s.Time.UTC().Format("2006-01-02T15:04:05.000Z")
	return ep
}

// strong reports whether a log line of the SCM names the pause (not only a
// silence in its log).
func (ep *episode) strong() bool {
	for k, n := range ep.lines {
		if k != catalogue.LogGap && n > 0 {
			return true
		}
	}
	return false
}

// transitionWindow reports whether a STALE/DEAD transition at t follows the
// pause within the hold-off.
func (ep *episode) transitionWindow(c *config, t time.Time) bool {
	return detectors.InWindow(t, ep.pauseEnd, ep.pauseEnd.Add(c.holdoff()), c.tolerance())
}

// closeAt is when nothing more can belong to the episode.
func (ep *episode) closeAt(c *config) time.Time {
	end := ep.pauseEnd.Add(c.holdoff())
	if t := ep.lastChange.Add(c.returnWindow()); t.After(end) {
		end = t
	}
	return end.Add(c.tolerance() + c.thread.d)
}

// addPause records a line about the pause. A line that measures the pause
// (pause monitor, Ratis, health check) wins over a silence in a log, which
// also counts the quiet time before the pause began.
func (ep *episode) addPause(s *catalogue.Signal) {
	ep.lines[s.Kind]++
	ep.ev.Add(detectors.EvidenceOf(s))
	measures := s.Kind != catalogue.LogGap && s.Duration > 0
	switch {
	case measures && (!ep.measured || s.Duration > ep.pause):
		ep.pause, ep.pauseBy, ep.measured = s.Duration, pauseSource(s.Kind), true
	case !ep.measured && s.Duration > ep.pause:
		ep.pause, ep.pauseBy = s.Duration, pauseSource(s.Kind)
	}
}

func pauseSource(k catalogue.Kind) string {
	switch k {
	case catalogue.JVMPause:
		return "JVM pause monitor"
	case catalogue.RaftPauseStepDown, catalogue.RaftPauseClose:
		return "Ratis pause handler"
	case catalogue.HeartbeatCheckSlow:
		return "health check duration"
	case catalogue.LogGap:
		return "silence in the SCM log"
	}
	return string(k)
}

// observe handles one SCM node or pipeline signal inside the episode's
// window; it reports whether a datanode returned.
func (ep *episode) observe(c *config, s *catalogue.Signal, stopped func(catalogue.Datanode, time.Time) bool) (returned bool) {
	switch s.Kind {
	case catalogue.NodeStale, catalogue.NodeDead:
		if !ep.transitionWindow(c, s.Time) || s.Datanode.UUID == "" {
			return false
		}
		n, _ := ep.nodes.Get(s.Datanode.UUID)
		if n == nil {
			n = &node{dn: s.Datanode, stopped: stopped(s.Datanode, s.Time)}
			ep.nodes.Put(s.Datanode.UUID, n)
		}
		if s.Kind == catalogue.NodeStale {
			n.stale = true
		} else {
			n.dead = true
		}
		n.last, n.back, n.healthy = s.Time, time.Time{}, time.Time{}
		ep.lastChange = s.Time
		for _, p := range s.Pipelines {
			ep.pipes.Put(p, true)
		}
		ep.ev.Add(detectors.EvidenceOf(s))
	case catalogue.NodeHealthyReadonly, catalogue.NodeHealthy:
		n, _ := ep.nodes.Get(s.Datanode.UUID)
		if n == nil || s.Time.Sub(n.last) > c.returnWindow()+c.thread.d {
			return false
		}
		if n.back.IsZero() {
			if s.Time.Sub(n.last) > c.returnWindow() {
				return false
			}
			n.back, returned = s.Time, true
		}
		if s.Kind == catalogue.NodeHealthy && n.healthy.IsZero() {
			n.healthy = s.Time
		}
		ep.ev.Add(detectors.EvidenceOf(s))
	case catalogue.PipelineClosed, catalogue.PipelineRemoved, catalogue.PipelineFinalizeFailed:
		if !ep.pipes.Has(s.Pipeline) {
			return false
		}
		switch s.Kind {
		case catalogue.PipelineClosed:
			ep.closed++
		case catalogue.PipelineRemoved:
			ep.removed++
		default:
			ep.closeFails++
		}
		ep.ev.Add(detectors.EvidenceOf(s))
	case catalogue.DeadNodeQueueCleared, catalogue.DeadNodeCommandsCleaned:
		if n, _ := ep.nodes.Get(s.Datanode.UUID); n != nil && n.dead {
			ep.cmdDropped += s.Count
			ep.ev.Add(detectors.EvidenceOf(s))
		}
	}
	return returned
}

// split sorts the datanodes: back (the defect's victims), out (not back
// yet) and stopped (they shut down themselves).
func (ep *episode) split() (back, out, stopped []*node) {
	for _, n := range ep.nodes.All() {
		switch {
		case n.stopped:
			stopped = append(stopped, n)
		case !n.back.IsZero():
			back = append(back, n)
		default:
			out = append(out, n)
		}
	}
	return back, out, stopped
}

// qualifies reports whether the episode shows the defect: live datanodes
// that returned. A silence in the log alone needs a burst of them.
func (ep *episode) qualifies(c *config, knownDatanodes int) bool {
	back, out, _ := ep.split()
	if ep.strong() {
		return len(back) > 0
	}
	moved := len(back) + len(out)
	return len(back) >= c.minBurst && 2*len(back) >= moved &&
		(knownDatanodes < c.minBurst || 2*moved >= knownDatanodes)
}

// finding renders the episode as of now. Datanodes not back whose return
// window is still open at now are still STALE/DEAD: the finding fires.
func (ep *episode) finding(c *config, env *detectors.Env, now time.Time) detectors.Finding {
	f := ep.render(c, env, now)
	doc().GateVersion(&f, env.Identity, ep.scm)
	return f
}

func (ep *episode) render(c *config, env *detectors.Env, now time.Time) detectors.Finding {
	back, out, stopped := ep.split()
	var open, gone []*node
	for _, n := range out {
		if now.Before(n.last.Add(c.returnWindow())) {
			open = append(open, n)
		} else {
			gone = append(gone, n)
		}
	}
	subjects := append(append([]*node(nil), back...), open...)
	dead, stale := 0, 0
	var maxReturn time.Duration
	last := ep.pauseEnd
	for _, n := range subjects {
		if n.dead {
			dead++
		} else {
			stale++
		}
		if !n.back.IsZero() {
			maxReturn = max(maxReturn, n.back.Sub(n.last))
			last = maxTime(last, n.back, n.healthy)
		}
		last = maxTime(last, n.last)
	}

	f := detectors.Finding{Key: ep.key, Facts: map[string]string{}}
	c.facts(f.Facts)
	f.Severity, f.Facts["outcome"] = detectors.Warning, "stale"
	if dead > 0 {
		f.Severity, f.Facts["outcome"] = detectors.Critical, "dead"
	}
	f.Confidence = detectors.Medium
	if ep.strong() && len(back) > 0 {
		f.Confidence = detectors.High
	}
	f.State = detectors.Resolved
	if len(open) > 0 {
		f.State = detectors.Firing
	}
	f.Start = ep.pauseEnd.Add(-ep.pause)
	f.End = last

	pause := ep.pauseText(c)
	f.Facts["pause"] = pause
	if ep.pauseBy != "" {
		f.Facts["pause_measured_by"] = ep.pauseBy
	}
	f.Facts["pause_end"] = ep.pauseEnd.Format(time.RFC3339Nano)
	f.Facts["signals"] = ep.signalsText(len(back), len(open))
	f.Facts["affected_nodes"] = strconv.Itoa(len(subjects))
	f.Facts["dead_nodes"] = strconv.Itoa(dead)
	f.Facts["returned_nodes"] = strconv.Itoa(len(back))
	if len(back) > 0 {
		f.Facts["max_return"] = maxReturn.String()
	} else {
		f.Facts["max_return"] = "(no return seen)"
	}
	f.Facts["pipelines_finalized"] = strconv.Itoa(ep.pipes.Len() + int(ep.pipes.Evicted()))
	f.Facts["pipelines_closed"] = strconv.Itoa(ep.closed)
	if ep.closeFails > 0 {
		f.Facts["pipeline_close_failures"] = strconv.Itoa(ep.closeFails)
	}
	if ep.removed > 0 {
		f.Facts["pipelines_removed"] = strconv.Itoa(ep.removed)
	}
	if ep.cmdDropped > 0 {
		f.Facts["commands_dropped"] = strconv.FormatInt(ep.cmdDropped, 10)
	}
	if len(open) > 0 {
		f.Facts["still_out"] = nodeNames(env, open)
	}
	if len(gone) > 0 {
		f.Facts["not_returned"] = nodeNames(env, gone)
	}
	if len(stopped) > 0 {
		f.Facts["stopped_themselves"] = nodeNames(env, stopped)
	}
	if n := ep.nodes.Evicted(); n > 0 {
		f.Facts["datanodes_not_tracked"] = strconv.FormatInt(n, 10)
	}
	if ep.ev.Dropped() > 0 {
		f.Facts["evidence_dropped"] = strconv.Itoa(ep.ev.Dropped())
	}

	f.Entities.Hosts = []string{ep.scm}
	for _, n := range subjects {
		f.Entities.Datanodes = append(f.Entities.Datanodes, env.Identity.Complete(n.dn))
	}
	detectors.SortDatanodes(f.Entities.Datanodes)
	f.Entities.Pipelines = ep.pipes.Keys()
	sort.Strings(f.Entities.Pipelines)
	f.Evidence = ep.ev.List()
	detectors.SortEvidence(f.Evidence)

	var b strings.Builder
	fmt.Fprintf(&b, "The SCM on %s was paused %s until %s; right after, it marked %d live datanode(s) STALE (%s)",
		ep.scm, pause, detectors.Stamp(ep.pauseEnd), len(subjects), shortList(f.Entities.Datanodes))
	if dead > 0 {
		fmt.Fprintf(&b, ", %d of them DEAD with their replicas dropped,", dead)
	}
	// The STALE handler closes the datanodes' pipelines on the leader SCM
	// only; a follower logs the attempt and no "moved to CLOSED" line.
	switch pipes := ep.pipes.Len() + int(ep.pipes.Evicted()); {
	case pipes == 0:
		b.WriteString(".")
	case ep.closed >= pipes:
		fmt.Fprintf(&b, " and closed %d pipeline(s).", pipes)
	case ep.closed > 0:
		fmt.Fprintf(&b, " and closed %d of the %d pipeline(s) they were in.", ep.closed, pipes)
	case ep.closeFails > 0:
		fmt.Fprintf(&b, "; none of the %d pipeline(s) they were in was closed: %d close attempt(s) failed, as on a follower SCM.", pipes, ep.closeFails)
	default:
		fmt.Fprintf(&b, "; none of the %d pipeline(s) they were in was logged as closed.", pipes)
	}
	switch {
	case len(open) > 0 && len(back) > 0:
		fmt.Fprintf(&b, " %d were back within %s; %d were still out at %s.", len(back), maxReturn, len(open), detectors.Stamp(now))
	case len(open) > 0:
		fmt.Fprintf(&b, " None had returned at %s, the end of the input.", detectors.Stamp(now))
	default:
		fmt.Fprintf(&b, " All were back within %s.", maxReturn)
	}
	f.Summary = b.String()
	return f
}

func (ep *episode) pauseText(c *config) string {
	switch {
	case ep.pause > 0:
		return ep.pause.Round(time.Millisecond).String()
	case ep.lines[catalogue.HeartbeatCheckSkipped] > 0:
		return "at least " + min(c.stale.d, c.dead.d).String()
	}
	return "unmeasured"
}

func (ep *episode) signalsText(back, open int) string {
	var parts []string
	for _, k := range []struct {
		kind catalogue.Kind
		name string
	}{
		{catalogue.JVMPause, "JVM pause"},
		{catalogue.RaftPauseStepDown, "Ratis step-down after pause"},
		{catalogue.RaftPauseClose, "Ratis close after pause"},
		{catalogue.HeartbeatCheckSkipped, "health check skipped"},
		{catalogue.HeartbeatCheckSlow, "slow health check"},
		{catalogue.LogGap, "silence in the SCM log"},
	} {
		if ep.lines[k.kind] > 0 {
			parts = append(parts, k.name)
		}
	}
	stale, dead := 0, 0
	for _, n := range ep.nodes.All() {
		if n.stale {
			stale++
		}
		if n.dead {
			dead++
		}
	}
	if stale > 0 {
		parts = append(parts, fmt.Sprintf("%d STALE", stale))
	}
	if dead > 0 {
		parts = append(parts, fmt.Sprintf("%d DEAD", dead))
	}
	parts = append(parts, fmt.Sprintf("%d returned", back))
	if open > 0 {
		parts = append(parts, fmt.Sprintf("%d not yet returned", open))
	}
	return strings.Join(parts, ", ")
}

func nodeNames(env *detectors.Env, ns []*node) string {
	names := make([]string, len(ns))
	for i, n := range ns {
		names[i] = detectors.DatanodeName(env.Identity.Complete(n.dn))
	}
	sort.Strings(names)
	if len(names) > maxNamed {
		names = append(names[:maxNamed], fmt.Sprintf("and %d more", len(ns)-maxNamed))
	}
	return strings.Join(names, ", ")
}

// shortList names up to five datanodes by host.
func shortList(dns []catalogue.Datanode) string {
	var names []string
	for i, d := range dns {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(dns)-5))
			break
		}
		if d.Host != "" {
			names = append(names, d.Host)
		} else {
			names = append(names, d.UUID)
		}
	}
	return strings.Join(names, ", ")
}

func maxTime(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}
