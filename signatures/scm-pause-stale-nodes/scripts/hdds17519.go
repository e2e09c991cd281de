// Package scripts renders HDDS-17519's occurrences and near misses for the
// cases of the scm-pause-stale-nodes signature and of
// scm-terminated-after-pause, which shares them.
package scripts

import (
	"fmt"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// HDDS-17519: a long pause of the SCM process makes it mark live datanodes
// STALE or DEAD right after it resumes, although they heartbeat again within
// one heartbeat interval; a pause longer than the Ratis close threshold makes
// the SCM terminate itself (shared/ozone signatures-scm.md §1). Scripts read
// the intervals from s.Site (Ozone's defaults otherwise); the cases choose
// intervals under which each outcome is real (e.g. a raised
// ozone.scm.ha.raft.server.close.threshold for pauses of several minutes).

// Loggers of the SCM lines below (signatures-scm.md §1.3).
const (
	h17519NodeStateManager = "org.apache.hadoop.hdds.scm.node.NodeStateManager"
	h17519PauseMonitor     = "org.apache.ratis.util.JvmPauseMonitor"
	h17519RaftServer       = "org.apache.ratis.server.RaftServer"
	h17519StaleHandler     = "org.apache.hadoop.hdds.scm.node.StaleNodeHandler"
	h17519DeadHandler      = "org.apache.hadoop.hdds.scm.node.DeadNodeHandler"
	h17519ReadOnlyHandler  = "org.apache.hadoop.hdds.scm.node.HealthyReadOnlyNodeHandler"
	h17519HealthyHandler   = "org.apache.hadoop.hdds.scm.node.ReadOnlyHealthyToHealthyNodeHandler"
	h17519PipelineManager  = "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl"
	h17519RatisPipeline    = "org.apache.hadoop.hdds.scm.pipeline.RatisPipelineProvider"
	h17519PipelineCreator  = "org.apache.hadoop.hdds.scm.pipeline.BackgroundPipelineCreator"
	h17519CloseContainer   = "org.apache.hadoop.hdds.scm.container.CloseContainerEventHandler"
	h17519DeleteCmdStatus  = "org.apache.hadoop.hdds.scm.block.SCMDeletedBlockTransactionStatusManager$SCMDeleteBlocksCommandStatusManager"
	h17519ReplicationMgr   = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"
	h17519SCM              = "org.apache.hadoop.hdds.scm.server.StorageContainerManager"
	h17519HBDispatcher     = "org.apache.hadoop.hdds.scm.server.SCMDatanodeHeartbeatDispatcher"
	h17519NodeManager      = "org.apache.hadoop.hdds.scm.node.SCMNodeManager"
	h17519Finalizer        = "org.apache.hadoop.ozone.upgrade.UpgradeFinalizer"

	h17519MonitorThread = "JvmPauseMonitor0" // §0.2
	h17519StepDown      = 10 * time.Second   // Ratis leader step-down wait time (§1.2)
	h17519RatisClose    = 60 * time.Second   // Ratis close threshold default (§1.2), for OMs and datanodes
	h17519FirstID       = 1001               // container IDs of the scripts' pipelines (noise uses 7001 and up)
)

func Scripts() map[string]scenario.Script {
	return map[string]scenario.Script{
		// Positive: a pause of at least the stale interval; one health check is
		// skipped, the next one 3s later marks every datanode STALE; they return.
		"hdds17519/skip-stale": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			p := r.stale + (min(r.dead, r.close)-r.stale)/2 + r.ms(0, 1000)
			r.pauseAndStale(at, p, true, true)
		},
		// Positive: as skip-stale on a follower SCM (the last one): StaleNodeHandler's
		// pipeline closes are Ratis writes, which fail on a follower, so every
		// pipeline logs T11 instead of being closed.
		"hdds17519/skip-stale-follower": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.scm, r.follower = s.Cluster.SCMs[len(s.Cluster.SCMs)-1], true
			r.prefix = s.Cluster.ThreadPrefix(r.scm)
			p := r.stale + (min(r.dead, r.close)-r.stale)/2 + r.ms(0, 1000)
			r.pauseAndStale(at, p, true, true)
		},
		// Positive: a pause just under the stale interval, so no check is
		// skipped; the overdue check at resume marks the datanodes whose last
		// heartbeat was old enough STALE.
		"hdds17519/stale-no-skip": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.pauseAndStale(at, r.stale-r.thread-(r.hb-r.thread)/2+r.ms(0, 10), false, true)
		},
		// Positive (medium): as stale-no-skip, but the SCM logs no pause line
		// (org.apache.ratis logged at ERROR only): only the silence of its log
		// and the burst of STALE transitions show the pause.
		"hdds17519/silent-pause": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.pauseAndStale(at, r.stale-r.thread-(r.hb-r.thread)/2+r.ms(0, 10), false, false)
		},
		// Positive, critical: a pause beyond the dead interval; STALE, then DEAD
		// with DeadNodeHandler's consequences, then the datanodes return.
		"hdds17519/dead": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.pauseAndDead(at, r.dead+r.hb+r.ms(0, 1000))
		},
		// Positive: a pause beyond the Ratis close threshold; the SCM
		// terminates itself, is restarted and the datanodes re-register.
		"hdds17519/terminate": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.terminate(at, r.close+r.ms(5000, 20000))
		},
		// Near miss: a datanode really stops (SHUTDOWN_MSG); it alone goes
		// STALE then DEAD and does not return; the SCM did not pause.
		"hdds17519/dn-died": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			dn := s.Cluster.Datanodes[len(s.Cluster.Datanodes)-1]
			s.Shutdown(dn, at)
			r.realFailure(at, dn)
		},
		// Near miss: a datanode's log just stops (crash, power loss); STALE
		// then DEAD for it alone, no return, no SCM pause.
		"hdds17519/dn-log-stops": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			dn := s.Cluster.Datanodes[0]
			s.Quiet(dn.Host, at, s.End)
			r.realFailure(at, dn)
		},
		// Near miss: a pause beyond the Ratis close threshold whose close
		// ERROR (T06) no termination follows: SCMStateMachine.close() does
		// not terminate an SCM whose state machine is not initialized yet or
		// that is already stopping (SCMStateMachine.java:572-573, read from
		// its close()), so the ERROR alone does not show the SCM ended. The
		// SCM's log goes on; the pause is too short for STALE.
		"hdds17519/close-no-exit": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.boot()
			r.pauseLines(at, r.close+r.ms(5000, 20000), false, false)
		},
		// Near miss: OMs and datanodes run the same Ratis server and its pause
		// monitor, so a long pause of an OM, then of a datanode, logs the same
		// close ERROR (T03, T06; peer id = OM node id or datanode UUID,
		// signatures-dn-om.md). What they log next is not rendered here.
		"hdds17519/close-not-scm": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.boot()
			if len(s.Cluster.OMs) > 0 {
				om := s.Cluster.OMs[0]
				r.pauseLinesOn(om, om.ID, h17519RatisClose, at, h17519RatisClose+r.ms(5000, 20000), false)
			}
			dn := s.Cluster.Datanodes[len(s.Cluster.Datanodes)/2]
			r.pauseLinesOn(dn, dn.UUID, h17519RatisClose, at.Add(10*time.Minute), h17519RatisClose+r.ms(5000, 20000), true)
		},
		// Near miss: short GC pauses of the SCM, no transition follows.
		"hdds17519/short-gc": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.boot()
			t := at
			for i := 0; i < 4; i++ {
				p := r.ms(400, 2500)
				r.pauseLines(t, p, true, false)
				t = t.Add(p + r.ms(60000, 600000))
			}
		},
		// Near miss: a pause long enough to skip a check, but every datanode's
		// heartbeat is processed before the next one: no transition.
		"hdds17519/skip-no-transitions": func(s *scenario.Scenario, at time.Time) {
			r := newH17519Run(s)
			r.boot()
			p := r.stale + (min(r.dead, r.close)-r.stale)/2 + r.ms(0, 1000)
			r.pauseLines(at, p, false, true)
		},
		// Near miss: 2.x upgrade finalization forces every datanode to HEALTHY
		// READONLY after MLV_EQUALS_SLV; no STALE, no pause.
		"hdds17519/finalization-readonly": func(s *scenario.Scenario, at time.Time) {
			newH17519Run(s).finalization(at)
		},
	}
}

// h17519Pipeline is one of the pipelines the scripts close.
type h17519Pipeline struct {
	uuid       string
	nodes      []scenario.Node
	containers []uint64
	created    time.Time
	closing    bool // its containers were moved to CLOSING
	closed     bool
	removed    bool
}

// h17519Run renders one occurrence on the first SCM.
type h17519Run struct {
	s                                   *scenario.Scenario
	scm                                 scenario.Node
	prefix                              string
	stale, dead, hb, rpc, thread, close time.Duration
	pipelines                           []*h17519Pipeline
	follower                            bool // the SCM is not the leader: its pipeline closes fail
}

func newH17519Run(s *scenario.Scenario) *h17519Run {
	r := &h17519Run{s: s, scm: s.Cluster.SCMs[0]}
	r.prefix = s.Cluster.ThreadPrefix(r.scm)
	r.stale = r.setting("ozone.scm.stale.node.interval", 5*time.Minute)
	r.dead = r.setting("ozone.scm.dead.node.interval", 10*time.Minute)
	r.hb = r.setting("hdds.heartbeat.interval", 30*time.Second)
	r.rpc = r.setting("ozone.scm.heartbeat.rpc-timeout", 5*time.Second)
	r.thread = r.setting("ozone.scm.heartbeat.thread.interval", 3*time.Second)
	r.close = r.setting("ozone.scm.ha.raft.server.close.threshold", 60*time.Second)
	// One RATIS/ONE pipeline per datanode and RATIS/THREE pipelines over
	// consecutive triples, each with one or two open containers.
	dns := s.Cluster.Datanodes
	id := uint64(h17519FirstID)
	add := func(nodes []scenario.Node) {
		p := &h17519Pipeline{uuid: scenario.UUID(s.Rand), nodes: nodes, created: s.Start.Add(-time.Duration(1+s.Rand.Intn(48)) * time.Hour)}
		for i := 0; i <= s.Rand.Intn(2); i++ {
			p.containers = append(p.containers, id)
			id++
		}
		r.pipelines = append(r.pipelines, p)
	}
	for _, dn := range dns {
		add([]scenario.Node{dn})
	}
	for i := 0; len(dns) >= 3 && i < len(dns); i += 3 {
		add([]scenario.Node{dns[i], dns[(i+1)%len(dns)], dns[(i+2)%len(dns)]})
	}
	return r
}

func (r *h17519Run) setting(key string, def time.Duration) time.Duration {
	if v, ok := r.s.Site[key]; ok {
		if d, err := site.ParseDuration(v, time.Millisecond); err == nil && d > 0 {
			return d
		}
	}
	return def
}

// ms returns a random duration in [lo, hi) milliseconds whose last digit is
// not zero, so that Ratis prints it with three decimals.
func (r *h17519Run) ms(lo, hi int) time.Duration {
	v := lo + r.s.Rand.Intn(hi-lo)
	v = v - v%10 + 1 + r.s.Rand.Intn(9)
	return time.Duration(v) * time.Millisecond
}

// ratisDuration renders TimeDuration.toString(SECONDS, 3): "52.114s", or
// "52s" for whole seconds (signatures-scm.md §1.3 T03).
func h17519RatisDuration(d time.Duration) string {
	ms := d.Milliseconds()
	if ms%1000 == 0 {
		return fmt.Sprintf("%ds", ms/1000)
	}
	return strings.TrimRight(fmt.Sprintf("%d.%03d", ms/1000, ms%1000), "0") + "s"
}

func (r *h17519Run) add(at time.Time, level parsers.Level, logger, thread, source, msg string) {
	r.addOn(r.scm, at, level, logger, thread, source, msg)
}

func (r *h17519Run) addOn(n scenario.Node, at time.Time, level parsers.Level, logger, thread, source, msg string) {
	r.s.Add(scenario.Line{At: at, Host: n.Host, Level: level, Logger: logger, Thread: thread, Source: source, Msg: msg})
}

func (r *h17519Run) info(at time.Time, logger, thread, source, msg string) {
	r.add(at, parsers.LevelInfo, logger, thread, source, msg)
}

func (r *h17519Run) ipcThread() string {
	return fmt.Sprintf("IPC Server handler %d on default port 9861", r.s.Rand.Intn(100))
}

// boot logs the cluster's startup banners at the scenario start unless the
// SCM already logged one.
func (r *h17519Run) boot() {
	for _, l := range r.s.Lines(r.scm.Host) {
		if strings.HasPrefix(l.Msg, "STARTUP_MSG:") {
			return
		}
	}
	r.s.StartCluster(r.s.Start)
}

// pauseLines stops the SCM over [at, at+p) and logs, when it resumes, what
// notices the pause: the Ratis pause monitor (T03, with GC time when gc),
// Ratis' step-down or close handling (T04/T06) and, when skip, the skipped
// health check (T01). It returns the resume time.
func (r *h17519Run) pauseLines(at time.Time, p time.Duration, gc, skip bool) time.Time {
	e := r.pauseLinesOn(r.scm, r.scm.UUID, r.close, at, p, gc)
	if skip {
		// T01 NodeStateManager.java:730
		r.info(e.Add(r.ms(1, 15)), h17519NodeStateManager, r.prefix+"SCMHeartbeatProcessor-0", "NodeStateManager.java:730",
			"Detected long delay in scheduling HB processing thread. Skipping heartbeat checks for one iteration.")
	}
	return e
}

// pauseLinesOn stops n over [at, at+p) and logs what its Ratis pause monitor
// and Ratis server log when it resumes (T03, then T04 or T06 against the
// close threshold closeAt), with peer as the Ratis peer id. It returns the
// resume time.
func (r *h17519Run) pauseLinesOn(n scenario.Node, peer string, closeAt time.Duration, at time.Time, p time.Duration, gc bool) time.Time {
	e := at.Add(p)
	r.s.Quiet(n.Host, at, e)
	mon := e.Add(r.ms(20, 300))
	msg := "JvmPauseMonitor-" + peer + ": Detected pause in JVM or host machine approximately " + h17519RatisDuration(p)
	if gc {
		g := p - r.ms(5, min(200, int(p/time.Millisecond)))
		msg += " with " + h17519RatisDuration(g) + " GC time.\n" +
			fmt.Sprintf("GC pool 'G1 Young Generation' had collection(s): count=1 time=%dms", g.Milliseconds())
	} else {
		msg += " without any GCs."
	}
	// T03 JvmPauseMonitor.java:168 (text :70-91), WARN
	r.addOn(n, mon, parsers.LevelWarn, h17519PauseMonitor, h17519MonitorThread, "JvmPauseMonitor.java:168", msg)
	switch {
	case p > closeAt:
		// T06 RaftServerProxy.java:246, ERROR
		r.addOn(n, mon.Add(time.Millisecond), parsers.LevelError, h17519RaftServer, h17519MonitorThread, "RaftServerProxy.java:246",
			fmt.Sprintf("%s: JVM pause detected %s longer than the close-threshold %s, shutting down ...",
				peer, h17519RatisDuration(p), h17519RatisDuration(closeAt)))
	case p > h17519StepDown:
		// T04 RaftServerProxy.java:250, WARN
		r.addOn(n, mon.Add(time.Millisecond), parsers.LevelWarn, h17519RaftServer, h17519MonitorThread, "RaftServerProxy.java:250",
			fmt.Sprintf("%s: JVM pause detected %s longer than the step-down-threshold %s",
				peer, h17519RatisDuration(p), h17519RatisDuration(h17519StepDown)))
	}
	return e
}

// pipelinesOf returns dn's pipelines that SCM still knows.
func (r *h17519Run) pipelinesOf(dn scenario.Node) []*h17519Pipeline {
	var out []*h17519Pipeline
	for _, p := range r.pipelines {
		if p.removed {
			continue
		}
		for _, n := range p.nodes {
			if n.Host == dn.Host {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// markStale logs StaleNodeHandler's work for dn at t (T10, T12, T14, T13;
// T10, T11 on a follower).
func (r *h17519Run) markStale(t time.Time, dn scenario.Node) {
	ps := r.pipelinesOf(dn)
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = "Pipeline-" + p.uuid
	}
	th := r.prefix + "EventQueue-StaleNodeForStaleNodeHandler"
	// T10 StaleNodeHandler.java:51
	r.info(t, h17519StaleHandler, th, "StaleNodeHandler.java:51",
		"Datanode "+dn.Details()+" moved to stale state. Finalizing its pipelines ["+strings.Join(ids, ", ")+"]")
	t = t.Add(3 * time.Millisecond)
	for _, p := range ps {
		if r.follower {
			// T11 StaleNodeHandler.java:57
			r.info(t, h17519StaleHandler, th, "StaleNodeHandler.java:57", "Could not finalize pipeline=Pipeline-"+p.uuid+" for dn="+dn.Details())
			t = t.Add(2 * time.Millisecond)
			continue
		}
		for _, c := range p.containers {
			// T12 PipelineManagerImpl.java:483 (logged even for closed containers)
			r.info(t, h17519PipelineManager, th, "PipelineManagerImpl.java:483", fmt.Sprintf("Container #%d closed for pipeline=Pipeline-%s", c, p.uuid))
			if !p.closing {
				// T14 CloseContainerEventHandler.java:87
				r.info(t.Add(2*time.Millisecond), h17519CloseContainer, r.prefix+"EventQueue-CloseContainerForCloseContainerEventHandler",
					"CloseContainerEventHandler.java:87", fmt.Sprintf("Close container Event triggered for container : #%d, current state: CLOSING", c))
			}
			t = t.Add(time.Millisecond)
		}
		p.closing = true
		if !p.closed {
			// T13 PipelineManagerImpl.java:505
			r.info(t.Add(4*time.Millisecond), h17519PipelineManager, th, "PipelineManagerImpl.java:505", "Pipeline Pipeline-"+p.uuid+" moved to CLOSED state")
			p.closed = true
		}
		t = t.Add(6 * time.Millisecond)
	}
}

// markDead logs DeadNodeHandler's work for dn at t (T15, T16, pipeline
// removal B14/B15, T17).
func (r *h17519Run) markDead(t time.Time, dn scenario.Node) {
	th := r.prefix + "EventQueue-DeadNodeForDeadNodeHandler"
	// T15 DeadNodeHandler.java:99
	r.info(t, h17519DeadHandler, th, "DeadNodeHandler.java:99", "A dead datanode is detected. "+dn.Details())
	t = t.Add(2 * time.Millisecond)
	for _, p := range r.pipelinesOf(dn) {
		// B14 PipelineManagerImpl.java:459 (Pipeline.toString, §0.1)
		r.info(t, h17519PipelineManager, th, "PipelineManagerImpl.java:459", "Pipeline "+r.render(p, "CLOSED")+" removed.")
		for _, n := range p.nodes {
			// B15 RatisPipelineProvider.java:281 (datanode UUID only)
			r.info(t.Add(time.Millisecond), h17519RatisPipeline, th, "RatisPipelineProvider.java:281",
				"Send pipeline:Pipeline-"+p.uuid+" close command to datanode "+n.UUID)
		}
		p.removed = true
		t = t.Add(4 * time.Millisecond)
	}
	// T16 DeadNodeHandler.java:121
	r.info(t, h17519DeadHandler, th, "DeadNodeHandler.java:121", fmt.Sprintf("Clearing command queue of size %d for DN %s", r.s.Rand.Intn(4), dn.Details()))
	// T17 SCMDeletedBlockTransactionStatusManager.java:231
	r.info(t.Add(2*time.Millisecond), h17519DeleteCmdStatus, th, "SCMDeletedBlockTransactionStatusManager.java:231",
		"Clean SCMCommand record for Datanode: "+dn.UUID)
}

// render prints Pipeline.toString (Pipeline.java:539-555, §0.1).
func (r *h17519Run) render(p *h17519Pipeline, state string) string {
	var b strings.Builder
	b.WriteString("Pipeline{ Id: " + p.uuid + ", Nodes: [")
	for _, n := range p.nodes {
		b.WriteString(" {" + n.Details() + ", ReplicaIndex: 0},")
	}
	factor := "ONE"
	if len(p.nodes) == 3 {
		factor = "THREE"
	}
	b.WriteString("], ReplicationConfig: RATIS/" + factor + ", State:" + state + ", leaderId:" + p.nodes[0].UUID +
		", CreationTimestamp" + p.created.UTC().Format("2006-01-02T15:04:05.000000Z") + "[UTC]}")
	return b.String()
}

// markBack logs dn's return at t: HEALTHY READONLY (T18, T19 per closed
// pipeline) and one health check later HEALTHY (T20, T21).
func (r *h17519Run) markBack(t time.Time, dn scenario.Node) {
	th := r.prefix + "EventQueue-HealthyReadonlyNodeForHealthyReadOnlyNodeHandler"
	// T18 HealthyReadOnlyNodeHandler.java:54
	r.info(t, h17519ReadOnlyHandler, th, "HealthyReadOnlyNodeHandler.java:54", "Datanode "+dn.Details()+" moved to HEALTHY READONLY state.")
	for _, p := range r.pipelinesOf(dn) {
		// T19 HealthyReadOnlyNodeHandler.java:86
		r.info(t.Add(time.Millisecond), h17519ReadOnlyHandler, th, "HealthyReadOnlyNodeHandler.java:86",
			"Sending close command for pipeline Pipeline-"+p.uuid+" in state CLOSED which uses HEALTHY_READONLY datanode "+dn.Details()+
				". This will send close commands for its containers.")
	}
	h := t.Add(r.thread + r.ms(1, 20))
	th = r.prefix + "EventQueue-HealthyReadonlyToHealthyNodeForReadOnlyHealthyToHealthyNodeHandler"
	// T20 ReadOnlyHealthyToHealthyNodeHandler.java:46
	r.info(h, h17519HealthyHandler, th, "ReadOnlyHealthyToHealthyNodeHandler.java:46", "Datanode "+dn.Details()+" moved to HEALTHY state.")
	// T21 BackgroundPipelineCreator.java:319
	r.info(h.Add(time.Millisecond), h17519PipelineCreator, th, "BackgroundPipelineCreator.java:319",
		"trigger a one-shot run on "+r.prefix+"RatisPipelineUtilsThread.")
}

// tickAfter returns the first health check at or after t, checks running
// every thread interval from first.
func (r *h17519Run) tickAfter(first, t time.Time) time.Time {
	if !t.After(first) {
		return first
	}
	n := (t.Sub(first) + r.thread - 1) / r.thread
	return first.Add(time.Duration(n) * r.thread)
}

// pauseAndStale: a pause of p from at; with skip the overdue check at
// resume is skipped and every datanode goes STALE at the next one, else the
// overdue check marks those whose last heartbeat is at least the stale
// interval old. Each datanode heartbeats again within one interval and
// returns at the next check. named logs the pause lines.
func (r *h17519Run) pauseAndStale(at time.Time, p time.Duration, skip, named bool) {
	r.boot()
	var e time.Time
	if named {
		e = r.pauseLines(at, p, false, skip)
	} else {
		e = at.Add(p)
		r.s.Quiet(r.scm.Host, at, e)
	}
	first := e.Add(r.ms(5, 30)) // the overdue check runs at resume
	staleAt := first
	if skip {
		staleAt = first.Add(r.thread)
	}
	dns := r.s.Cluster.Datanodes
	for i, dn := range dns {
		// Without a skip, only the datanodes whose last heartbeat came at
		// least stale-p before the pause are STALE: two thirds of them here.
		if !skip && i >= (2*len(dns)+2)/3 {
			continue
		}
		r.markStale(staleAt.Add(time.Duration(i)*7*time.Millisecond), dn)
		hb := e.Add(r.thread + time.Duration(r.s.Rand.Int63n(int64(r.hb))))
		r.markBack(r.tickAfter(staleAt.Add(r.thread), hb).Add(r.ms(1, 20)), dn)
	}
}

// pauseAndDead: a pause of p beyond the dead interval. The check at resume
// is skipped, the next marks every datanode STALE, the one after marks DEAD
// those whose heartbeat has not been processed yet; all return with their
// next heartbeat.
func (r *h17519Run) pauseAndDead(at time.Time, p time.Duration) {
	r.boot()
	e := r.pauseLines(at, p, false, true)
	staleAt := e.Add(r.ms(5, 30)).Add(r.thread)
	deadAt := staleAt.Add(r.thread)
	for i, dn := range r.s.Cluster.Datanodes {
		r.markStale(staleAt.Add(time.Duration(i)*7*time.Millisecond), dn)
	}
	for i, dn := range r.s.Cluster.Datanodes {
		// The first datanode's heartbeat is processed before the DEAD check.
		hb := deadAt.Add(r.ms(100, int(max(r.hb-2*r.thread, time.Second)/time.Millisecond)))
		if i == 0 {
			hb = staleAt.Add(r.ms(100, int(r.thread/time.Millisecond)-100))
		}
		if hb.After(deadAt) {
			r.markDead(deadAt.Add(time.Duration(i)*9*time.Millisecond), dn)
		}
		r.markBack(r.tickAfter(deadAt, hb).Add(r.ms(1, 20)), dn)
	}
	// B01 ReplicationManager.java:385: woken by the dead-node events.
	r.info(deadAt.Add(r.ms(200, 900)), h17519ReplicationMgr, r.prefix+"ReplicationMonitor", "ReplicationManager.java:385",
		fmt.Sprintf("Replication Monitor Thread took %d milliseconds for processing %d containers.", 5+r.s.Rand.Intn(60), 40+r.s.Rand.Intn(300)))
}

// terminate: a pause of p beyond the Ratis close threshold; Ratis closes the
// server, the SCM terminates (T06, T07, SHUTDOWN_MSG), an operator or
// supervisor restarts it two minutes later and the datanodes re-register.
func (r *h17519Run) terminate(at time.Time, p time.Duration) {
	r.boot()
	e := r.pauseLines(at, p, false, false)
	exit := e.Add(r.ms(400, 1500))
	// T07 StorageContainerManager.java:1817, text from ExitUtils.java:129-131 and SCMStateMachine.java:573
	r.info(exit, h17519SCM, h17519MonitorThread, "ExitUtils.java:129",
		"Terminating with exit status 0: scm statemachine is closed by ratis, terminate SCM")
	r.s.Shutdown(r.scm, exit.Add(r.ms(20, 200)))
	restart := exit.Add(2*time.Minute + r.ms(0, 30000))
	r.s.Startup(r.scm, restart, "")
	ready := restart.Add(r.ms(8000, 15000))
	for _, dn := range r.s.Cluster.Datanodes {
		t := ready.Add(time.Duration(r.s.Rand.Int63n(int64(r.hb))))
		// B28 SCMDatanodeHeartbeatDispatcher.java:91
		r.info(t, h17519HBDispatcher, r.ipcThread(), "SCMDatanodeHeartbeatDispatcher.java:91",
			"SCM received heartbeat from an unregistered datanode "+dn.Details()+". Asking datanode to re-register.")
		// B27 SCMNodeManager.java:447, DatanodeDetails.toDebugString() (§0.1)
		r.info(t.Add(r.ms(300, 2500)), h17519NodeManager, r.ipcThread(), "SCMNodeManager.java:447",
			"Registered datanode: "+dn.UUID+"{ip: "+dn.IP+", host: "+dn.Host+
				", ports: {REPLICATION=9886, RATIS=9858, RATIS_ADMIN=9857, RATIS_SERVER=9856, RATIS_DATASTREAM=9855, STANDALONE=9859}"+
				", networkLocation: /default-rack, certSerialId: null, persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}")
	}
}

// realFailure: dn stops at at (its last heartbeat shortly before); the SCM
// marks it STALE after the stale interval and DEAD after the dead interval.
func (r *h17519Run) realFailure(at time.Time, dn scenario.Node) {
	r.boot()
	last := at.Add(-time.Duration(r.s.Rand.Int63n(int64(r.hb))))
	staleAt := last.Add(r.stale + r.ms(5, int(r.thread/time.Millisecond)))
	r.markStale(staleAt, dn)
	deadAt := last.Add(r.dead + r.ms(5, int(r.thread/time.Millisecond)))
	r.markDead(deadAt, dn)
	// B01 ReplicationManager.java:385
	r.info(deadAt.Add(r.ms(200, 900)), h17519ReplicationMgr, r.prefix+"ReplicationMonitor", "ReplicationManager.java:385",
		fmt.Sprintf("Replication Monitor Thread took %d milliseconds for processing %d containers.", 5+r.s.Rand.Intn(60), 40+r.s.Rand.Intn(300)))
}

// finalization logs a 2.x SCM upgrade finalization (§2.3): at MLV_EQUALS_SLV
// every HEALTHY datanode is forced to HEALTHY READONLY (T18), and each
// returns to HEALTHY (T20) once it finalized with its next heartbeat.
func (r *h17519Run) finalization(at time.Time) {
	r.boot()
	th := scenario.MemberID(r.scm, r.s.Cluster.SCMGroup()) + "-StateMachineUpdater"
	fin := func(d time.Duration, msg, src string) {
		r.info(at.Add(d), h17519Finalizer, th, src, msg)
	}
	// BasicUpgradeFinalizer.java:316 (§2.3)
	fin(0, "Finalization started.", "BasicUpgradeFinalizer.java:316")
	// SCMUpgradeFinalizer.java:57 (§2.3)
	fin(5*time.Millisecond, "SCM Finalization has crossed checkpoint FINALIZATION_STARTED", "SCMUpgradeFinalizer.java:57")
	// SCMUpgradeFinalizer.java:131-134, logged :159 (§2.3), two lines
	fin(9*time.Millisecond, "  Existing pipelines and containers will be closed during Upgrade.\n  New pipelines creation will remain frozen until Upgrade is finalized.",
		"SCMUpgradeFinalizer.java:159")
	// SCMUpgradeFinalizer.java:57 (§2.3)
	fin(60*time.Millisecond, "SCM Finalization has crossed checkpoint MLV_EQUALS_SLV", "SCMUpgradeFinalizer.java:57")
	forced := at.Add(80 * time.Millisecond)
	th18 := r.prefix + "EventQueue-HealthyReadonlyNodeForHealthyReadOnlyNodeHandler"
	th20 := r.prefix + "EventQueue-HealthyReadonlyToHealthyNodeForReadOnlyHealthyToHealthyNodeHandler"
	var done time.Time
	for i, dn := range r.s.Cluster.Datanodes {
		// T18 HealthyReadOnlyNodeHandler.java:54 (NodeStateManager.forceNodesToHealthyReadOnly, §2.3)
		r.info(forced.Add(time.Duration(i)*3*time.Millisecond), h17519ReadOnlyHandler, th18, "HealthyReadOnlyNodeHandler.java:54",
			"Datanode "+dn.Details()+" moved to HEALTHY READONLY state.")
		back := r.tickAfter(forced, forced.Add(r.hb+time.Duration(r.s.Rand.Int63n(int64(r.hb))))).Add(r.ms(1, 20))
		// T20 ReadOnlyHealthyToHealthyNodeHandler.java:46
		r.info(back, h17519HealthyHandler, th20, "ReadOnlyHealthyToHealthyNodeHandler.java:46", "Datanode "+dn.Details()+" moved to HEALTHY state.")
		if back.After(done) {
			done = back
		}
	}
	// SCMUpgradeFinalizer.java:57 and BasicUpgradeFinalizer.java:311 (§2.3)
	r.info(done.Add(r.ms(100, 900)), h17519Finalizer, th, "SCMUpgradeFinalizer.java:57", "SCM Finalization has crossed checkpoint FINALIZATION_COMPLETE")
	r.info(done.Add(time.Second), h17519Finalizer, th, "BasicUpgradeFinalizer.java:311", "Finalization is done.")
}
