package scenario

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"sort"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// Noise adds the background lines of a healthy cluster to every host over
// [Start, End), drawn from s.Rand: about perHostPerMinute background events
// per host and minute, each one to a few lines, plus the periodic lines
// (replication monitor runs, one SEND_HEARTBEAT audit line per datanode
// heartbeat on every SCM). Call it after the defect scripts: a host is left
// alone while it is stopped or quiet (see Quiet). Render's Noise option
// renders the same kind of background without changing the scenario.
//
// The templates are the ordinary lines of signatures-scm.md §6 and
// signatures-dn-om.md PART E that no defect signature keys on: no node
// health transitions, no pause or JVM lines, no upgrade or version checks,
// no deletes of empty or non-empty containers, no write timeouts or failed
// container closes, no OM bootstrap, Raft configuration or election lines
// on SCMs and OMs. Container IDs are 100001 and up, so scripts should use
// lower ones.
func (s *Scenario) Noise(perHostPerMinute int) {
	if perHostPerMinute <= 0 {
		return
	}
	s.lines = append(s.lines, s.noise(s.Rand, perHostPerMinute)...)
}

// Loggers of the background lines (the class of each template's source file,
// signatures-scm.md §6, signatures-dn-om.md PART E).
const (
	logSCMStateMachine     = "org.apache.hadoop.hdds.scm.ha.SCMStateMachine"
	logStateMachineUpdater = "org.apache.ratis.server.impl.StateMachineUpdater"
	logRaftLogWorker       = "org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker"
	logRaftServer          = "org.apache.ratis.server.RaftServer"
	logRaftDivision        = "org.apache.ratis.server.RaftServer$Division"
	logReplicationManager  = "org.apache.hadoop.hdds.scm.container.replication.ReplicationManager"
	logBlockDeleting       = "org.apache.hadoop.hdds.scm.block.SCMBlockDeletingService"
	logBlockProtocol       = "org.apache.hadoop.hdds.scm.server.SCMBlockProtocolServer"
	logPipelineCreator     = "org.apache.hadoop.hdds.scm.pipeline.BackgroundPipelineCreator"
	logRatisPipeline       = "org.apache.hadoop.hdds.scm.pipeline.RatisPipelineProvider"
	logPipelineManager     = "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl"
	logCloseContainer      = "org.apache.hadoop.hdds.scm.container.CloseContainerEventHandler"
	logICR                 = "org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler"
	logContainerManager    = "org.apache.hadoop.hdds.scm.container.ContainerManagerImpl"
	logXceiverRatis        = "org.apache.hadoop.ozone.container.common.transport.server.ratis.XceiverServerRatis"
	logCreatePipeline      = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CreatePipelineCommandHandler"
	logClosePipeline       = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.ClosePipelineCommandHandler"
	logDeleteBlocks        = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.DeleteBlocksCommandHandler"
	logKeyValueContainer   = "org.apache.hadoop.ozone.container.keyvalue.KeyValueContainer"
	logContainerScanner    = "org.apache.hadoop.ozone.container.ozoneimpl.AbstractBackgroundContainerScanner"
	logVolumeChecker       = "org.apache.hadoop.ozone.container.common.volume.StorageVolumeChecker"
	logKeyDeleting         = "org.apache.hadoop.ozone.om.service.KeyDeletingService"
	logDirDeleting         = "org.apache.hadoop.ozone.om.service.DirectoryDeletingService"
	logOpenKeyCleanup      = "org.apache.hadoop.ozone.om.service.OpenKeyCleanupService"
)

// Paths of the generated cluster, shaped like Ozone's docker-compose
// defaults (inferred: the docs do not pin them).
const (
	dnVolume     = "/data/hdds/hdds" // HddsVolume storage dir (StorageVolume.toString)
	dnRatisDir   = "/data/metadata/ratis"
	omRatisDir   = "/data/metadata/ratis"
	scmRatisDir  = "/data/metadata/scm-ha"
	dnRatisPort  = 9858
	firstNoiseID = 100001 // first container ID of background containers; scripts use lower ones
)

// span is a time range [from, to); a zero from or to is open.
type span struct{ from, to time.Time }

func (p span) holds(t time.Time) bool {
	return (p.from.IsZero() || !t.Before(p.from)) && (p.to.IsZero() || t.Before(p.to))
}

// silentSpans finds, per host, where background lines must not appear:
// before a first STARTUP_MSG, between a SHUTDOWN_MSG and the next
// STARTUP_MSG, and in Quiet periods.
func silentSpans(lines []Line, hosts map[string]Node) map[string][]span {
	out := map[string][]span{}
	type state struct {
		seen bool // a banner was seen
		down bool
		from time.Time
	}
	st := map[string]*state{}
	for _, l := range lines {
		if n, ok := hosts[l.Host]; ok {
			l.Host = n.Host
		}
		if l.File == KindQuiet {
			to, err := time.Parse(time.RFC3339Nano, l.Msg)
			if err == nil {
				out[l.Host] = append(out[l.Host], span{from: l.At, to: to})
			}
			continue
		}
		if l.File != parsers.KindLog {
			continue
		}
		h := st[l.Host]
		if h == nil {
			h = &state{}
			st[l.Host] = h
		}
		switch {
		case strings.HasPrefix(l.Msg, "STARTUP_MSG:"):
			if !h.seen || h.down {
				out[l.Host] = append(out[l.Host], span{from: h.from, to: l.At})
			}
			h.seen, h.down = true, false
		case strings.HasPrefix(l.Msg, "SHUTDOWN_MSG:"):
			if !h.down {
				h.from = l.At
			}
			h.seen, h.down = true, true
		}
	}
	for host, h := range st {
		if h.down {
			out[host] = append(out[host], span{from: h.from})
		}
	}
	return out
}

// bgPipeline is a background Ratis pipeline of datanodes.
type bgPipeline struct {
	uuid      string
	nodes     []Node
	ready     time.Time // events may use it from here on
	created   time.Time
	open      []*bgContainer
	confIndex int64
}

func (p *bgPipeline) group() string { return GroupID(p.uuid) }

func (p *bgPipeline) factor() string {
	if len(p.nodes) == 3 {
		return "THREE"
	}
	return "ONE"
}

func (p *bgPipeline) has(n Node) bool {
	for _, m := range p.nodes {
		if m.Host == n.Host {
			return true
		}
	}
	return false
}

// bgContainer is an open background container.
type bgContainer struct {
	id uint64
	p  *bgPipeline
}

// noiseGen draws background lines for one scenario.
type noiseGen struct {
	s         *Scenario
	c         Cluster
	rng       *rand.Rand
	out       []Line
	silent    map[string][]span
	scmGroup  string
	clusterID string           // cluster UUID, the SCM Ratis storage dir
	term      int64            // SCM Raft term printed in audit lines and snapshots
	last      map[string]int64 // last Raft log index of each group, by its storage dir
	segStart  map[string]int64 // first index of each member's open segment, by member ID
	pipelines []*bgPipeline
	nextID    uint64
	commandID int64
	counter   map[string]int64 // per-host iteration counters
}

func (s *Scenario) noise(rng *rand.Rand, rate int) []Line {
	if rate <= 0 || !s.Start.Before(s.End) {
		return nil
	}
	g := &noiseGen{
		s: s, c: s.Cluster, rng: rng,
		silent:    silentSpans(sortLines(s.lines), hostIndex(s.Cluster.Nodes())),
		scmGroup:  s.Cluster.SCMGroup(),
		clusterID: s.Cluster.ClusterUUID(),
		term:      int64(1 + rng.Intn(8)),
		last:      map[string]int64{},
		segStart:  map[string]int64{},
		nextID:    firstNoiseID,
		commandID: int64(1000 + rng.Intn(9000)),
		counter:   map[string]int64{},
	}
	minutes := int(s.End.Sub(s.Start) / time.Minute)
	g.out = make([]Line, 0, (3*rate*len(g.c.Nodes())+2*len(g.c.Datanodes)*len(g.c.SCMs))*(minutes+1))
	g.initPipelines()
	g.periodic()
	g.events(rate)
	return g.out
}

// quiet reports whether host must not log at t.
func (g *noiseGen) quiet(n Node, t time.Time) bool {
	if t.Before(g.s.Start) || !t.Before(g.s.End) {
		return true
	}
	for _, p := range g.silent[n.Host] {
		if p.holds(t) {
			return true
		}
	}
	return false
}

// log adds an application-log line unless the host is silent then.
func (g *noiseGen) log(at time.Time, n Node, level parsers.Level, logger, thread, source, msg string) {
	if g.quiet(n, at) {
		return
	}
	g.out = append(g.out, Line{At: at, Host: n.Host, Level: level, Logger: logger, Thread: thread, Msg: msg,
		Source: source, File: parsers.KindLog})
}

func (g *noiseGen) info(at time.Time, n Node, logger, thread, source, msg string) {
	g.log(at, n, parsers.LevelInfo, logger, thread, source, msg)
}

// audit adds an audit line "user=.. | ip=.. | op=OP {params} | ret=SUCCESS"
// (AuditMessage.formMessage, signatures-scm.md §4.2).
func (g *noiseGen) audit(at time.Time, n Node, logger, user, ip, op, params string) {
	if g.quiet(n, at) {
		return
	}
	g.out = append(g.out, Line{At: at, Host: n.Host, Level: parsers.LevelInfo, Logger: logger, File: parsers.KindAudit,
		Msg: "user=" + user + " | ip=" + ip + " | op=" + op + " " + params + " | ret=SUCCESS"})
}

// containerLog adds a dn-container line (ContainerLogger.java:56-87,
// 204-216; signatures-dn-om.md E.1).
func (g *noiseGen) containerLog(at time.Time, n Node, id uint64, bcsid int64, state, checksum string) {
	if g.quiet(n, at) {
		return
	}
	g.out = append(g.out, Line{At: at, Host: n.Host, Level: parsers.LevelInfo, Logger: "ContainerLog", File: parsers.KindContainer,
		Msg: fmt.Sprintf("ID=%d | Index=0 | BCSID=%d | State=%s | Volume=%s | DataChecksum=%s", id, bcsid, state, dnVolume, checksum)})
}

// ms returns a random duration in [lo, hi) milliseconds.
func (g *noiseGen) ms(lo, hi int) time.Duration {
	return time.Duration(lo+g.rng.Intn(max(hi-lo, 1))) * time.Millisecond
}

func (g *noiseGen) between(lo, hi int) int { return lo + g.rng.Intn(max(hi-lo, 1)) }

// groupIndex advances the last log index of the Raft group stored in dir
// by [lo, hi) entries and returns it.
func (g *noiseGen) groupIndex(dir string, lo, hi int) int64 {
	last, ok := g.last[dir]
	if !ok {
		last = int64(g.between(1, 50000))
	}
	last += int64(g.between(lo, hi))
	g.last[dir] = last
	return last
}

// TermIndex prints a Raft term and log index as Ratis does: (t:term, i:index).
func TermIndex(term, index int64) string { return fmt.Sprintf("(t:%d, i:%d)", term, index) }

// omGroupUUID is a UUID for the OM Raft group directory whose last 12 hex
// digits are the group ID's.
func omGroupUUID(c Cluster) string {
	hex := strings.ToLower(strings.TrimPrefix(c.OMGroup, "group-"))
	h := fnv.New64a()
	h.Write([]byte(c.OMService + "|" + c.OMGroup))
	a := fmt.Sprintf("%016x%016x", h.Sum64(), h.Sum64()^0x5bd1e995)
	return a[0:8] + "-" + a[8:12] + "-" + a[12:16] + "-" + a[16:20] + "-" + hex
}

// initPipelines makes the background pipelines: RATIS/THREE over
// consecutive datanodes, or RATIS/ONE per datanode in clusters of fewer
// than three.
func (g *noiseGen) initPipelines() {
	dns := g.c.Datanodes
	if len(dns) == 0 {
		return
	}
	if len(dns) < 3 {
		for _, d := range dns {
			g.pipelines = append(g.pipelines, g.newPipeline([]Node{d}, g.s.Start.Add(-time.Hour)))
		}
		return
	}
	for k := 0; k < len(dns); k += 3 {
		g.pipelines = append(g.pipelines, g.newPipeline([]Node{dns[k], dns[(k+1)%len(dns)], dns[(k+2)%len(dns)]}, g.s.Start.Add(-time.Hour)))
	}
}

func (g *noiseGen) newPipeline(nodes []Node, created time.Time) *bgPipeline {
	return &bgPipeline{uuid: UUID(g.rng), nodes: nodes, ready: created, created: created, confIndex: int64(g.between(0, 3))}
}

// periodic adds the lines with a fixed cadence: B01 on the leader SCM and
// the SEND_HEARTBEAT audit line of each datanode heartbeat on every SCM.
func (g *noiseGen) periodic() {
	if len(g.c.SCMs) == 0 {
		return
	}
	leader := g.c.SCMs[0]
	interval := g.setting("hdds.scm.replication.thread.interval", 300*time.Second)
	for t := g.s.Start.Add(g.ms(0, int(interval/time.Millisecond))); t.Before(g.s.End); t = t.Add(interval + g.ms(0, 50)) {
		// B01 ReplicationManager.java:385 (signatures-scm.md §6)
		g.info(t, leader, logReplicationManager, g.c.ThreadPrefix(leader)+"ReplicationMonitor", "ReplicationManager.java:385",
			fmt.Sprintf("Replication Monitor Thread took %d milliseconds for processing %d containers.", g.between(1, 40), g.between(40, 400)))
	}
	hb := g.setting("hdds.heartbeat.interval", 30*time.Second)
	for _, d := range g.c.Datanodes {
		for t := g.s.Start.Add(g.ms(0, int(hb/time.Millisecond))); t.Before(g.s.End); t = t.Add(hb + g.ms(0, 20)) {
			if g.quiet(d, t) {
				continue
			}
			for _, scm := range g.c.SCMs {
				// SCMDatanodeProtocolServer.java:330 SEND_HEARTBEAT audit (signatures-scm.md §1.6, §4.2)
				g.audit(t.Add(g.ms(1, 40)), scm, "SCMAudit", "dn", d.IP, "SEND_HEARTBEAT",
					fmt.Sprintf(`{"datanodeUUID":"%s","command":"[]","term":"%d"}`, d.UUID, g.term))
			}
		}
	}
}

// setting reads a duration from the scenario's site settings, else def.
func (g *noiseGen) setting(key string, def time.Duration) time.Duration {
	if v, ok := g.s.Site[key]; ok {
		if d, err := site.ParseDuration(v, time.Millisecond); err == nil && d > 0 {
			return d
		}
	}
	return def
}

// event is one kind of background event with its weight.
type event struct {
	weight float64
	run    func(t time.Time, n Node)
}

// events draws event times per host (exponential gaps, rate per minute),
// then runs them in time order, so events that span hosts see one
// cluster state.
func (g *noiseGen) events(rate int) {
	type arrival struct {
		at   time.Time
		node Node
	}
	mean := float64(time.Minute) / float64(rate)
	var all []arrival
	for _, n := range g.c.Nodes() {
		for t := g.s.Start; ; {
			t = t.Add(time.Duration(g.rng.ExpFloat64() * mean))
			if !t.Before(g.s.End) {
				break
			}
			all = append(all, arrival{t, n})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	for _, a := range all {
		if g.quiet(a.node, a.at) {
			continue
		}
		choices := g.choices(a.at, a.node)
		total := 0.0
		for _, e := range choices {
			total += e.weight
		}
		if total == 0 {
			continue
		}
		x := g.rng.Float64() * total
		for _, e := range choices {
			if x < e.weight {
				e.run(a.at, a.node)
				break
			}
			x -= e.weight
		}
	}
}

// choices lists the events node n may start at t.
func (g *noiseGen) choices(t time.Time, n Node) []event {
	switch n.Component {
	case parsers.ComponentSCM:
		ev := []event{{1, g.scmSnapshot}, {1, g.scmSegmentRoll}}
		if len(g.c.SCMs) > 0 && n.Host == g.c.SCMs[0].Host {
			ev = append(ev, event{3, g.scmBlockDeletion}, event{0.3, g.scmAllocationWarning})
			if len(g.readyPipelines(t, nil)) > 0 {
				ev = append(ev, event{0.1, g.pipelineChurn})
			}
		}
		return ev
	case parsers.ComponentOM:
		ev := []event{{1, g.omSnapshot}, {1, g.omSegmentRoll}}
		if len(g.c.OMs) > 0 && n.Host == g.c.OMs[0].Host {
			ev = append(ev, event{3, g.omKeyDeletion}, event{2, g.omDirDeletion}, event{2, g.omOpenKeyCleanup})
		}
		return ev
	case parsers.ComponentDatanode:
		ev := []event{{1, g.dnVolumeCheck}, {1, g.dnScanner}}
		if ps := g.readyPipelines(t, &n); len(ps) > 0 {
			ev = append(ev, event{1, g.dnSegmentRoll}, event{1, g.dnSnapshot}, event{2, g.containerOpen})
			for _, p := range ps {
				if len(p.open) > 0 {
					ev = append(ev, event{2, g.containerClose})
					break
				}
			}
		}
		return ev
	}
	return nil
}

// readyPipelines lists the pipelines usable at t, those of n when n is set.
func (g *noiseGen) readyPipelines(t time.Time, n *Node) []*bgPipeline {
	var out []*bgPipeline
	for _, p := range g.pipelines {
		if !t.Before(p.ready) && (n == nil || p.has(*n)) {
			out = append(out, p)
		}
	}
	return out
}

func (g *noiseGen) pick(ps []*bgPipeline) *bgPipeline { return ps[g.rng.Intn(len(ps))] }

// ---- Raft log segments and snapshots (all components) ----

// segmentRoll logs a Ratis log segment roll of member on n
// (SegmentedRaftLogWorker.java:445, :604, :647 — B25/B26,
// signatures-dn-om.md E.1 #1-#3, E.2 #3-#5). The roll is requested on a
// server thread; the worker renames and starts the files.
func (g *noiseGen) segmentRoll(t time.Time, n Node, member, dir, caller string) {
	start, ok := g.segStart[member]
	if !ok {
		start = max(g.last[dir]-int64(g.between(0, 3000)), 1)
	}
	end := g.groupIndex(dir, 200, 6000)
	worker := member + "-SegmentedRaftLogWorker"
	cur := dir + "/current/"
	// B25 / E.1 #1: SegmentedRaftLogWorker.java:445; LogSegment.toString is "log_inprogress_<start>"
	g.info(t, n, logRaftLogWorker, caller, "SegmentedRaftLogWorker.java:445",
		fmt.Sprintf("%s: Rolling segment log_inprogress_%d to index:%d", worker, start, end))
	// E.1 #2: SegmentedRaftLogWorker.java:604
	t = t.Add(g.ms(1, 30))
	g.info(t, n, logRaftLogWorker, worker, "SegmentedRaftLogWorker.java:604",
		fmt.Sprintf("%s: Rolled log segment from %slog_inprogress_%d to %slog_%d-%d", worker, cur, start, cur, start, end))
	// B26 / E.1 #3: SegmentedRaftLogWorker.java:647
	g.info(t.Add(g.ms(1, 10)), n, logRaftLogWorker, worker, "SegmentedRaftLogWorker.java:647",
		fmt.Sprintf("%s: created new log segment %slog_inprogress_%d", worker, cur, end+1))
	g.segStart[member] = end + 1
}

// snapshotIndex advances a group's log to the index of its next snapshot.
func (g *noiseGen) snapshotIndex(dir string) int64 { return g.groupIndex(dir, 10, 1200) }

// tookSnapshot logs Ratis' snapshot line of member (StateMachineUpdater.java:307,
// signatures-dn-om.md E.1 #7, E.2 #2).
func (g *noiseGen) tookSnapshot(t time.Time, n Node, member string, index int64) {
	name := member + "-StateMachineUpdater"
	// E.1 #7 / E.2 #2: StateMachineUpdater.java:307
	g.info(t, n, logStateMachineUpdater, name, "StateMachineUpdater.java:307",
		fmt.Sprintf("%s: Took a snapshot at index %d", name, index))
}

func (g *noiseGen) scmMember(n Node) (member, dir string) {
	return MemberID(n, g.scmGroup), scmRatisDir + "/" + g.clusterID
}

func (g *noiseGen) scmSnapshot(t time.Time, n Node) {
	member, dir := g.scmMember(n)
	index := g.snapshotIndex(dir)
	// B24 SCMStateMachine.java:366
	g.info(t, n, logSCMStateMachine, member+"-StateMachineUpdater", "SCMStateMachine.java:366",
		fmt.Sprintf("Current Snapshot Index %s, takeSnapshot took %d ms", TermIndex(g.term, index), g.between(2, 60)))
	g.tookSnapshot(t.Add(g.ms(1, 5)), n, member, index)
}

func (g *noiseGen) scmSegmentRoll(t time.Time, n Node) {
	member, dir := g.scmMember(n)
	g.segmentRoll(t, n, member, dir, raftCaller(n.UUID, len(g.c.SCMs) > 0 && n.Host == g.c.SCMs[0].Host))
}

// raftCaller is the Ratis thread that appends to a division's log: a
// client-request thread on the leader, a server thread on a follower
// (RaftServerImpl.java:301-308, signatures-dn-om.md §0).
func raftCaller(peer string, leader bool) string {
	if leader {
		return peer + "-client-thread1"
	}
	return peer + "-server-thread1"
}

func (g *noiseGen) omMember(n Node) (member, dir string) {
	return MemberID(n, g.c.OMGroup), omRatisDir + "/" + omGroupUUID(g.c)
}

func (g *noiseGen) omSnapshot(t time.Time, n Node) {
	member, dir := g.omMember(n)
	g.tookSnapshot(t, n, member, g.snapshotIndex(dir))
}

func (g *noiseGen) omSegmentRoll(t time.Time, n Node) {
	member, dir := g.omMember(n)
	g.segmentRoll(t, n, member, dir, raftCaller(n.ID, len(g.c.OMs) > 0 && n.Host == g.c.OMs[0].Host))
}

func (g *noiseGen) dnSnapshot(t time.Time, n Node) {
	p := g.pick(g.readyPipelines(t, &n))
	member := MemberID(n, p.group())
	g.tookSnapshot(t, n, member, g.snapshotIndex(dnRatisDir+"/"+p.uuid))
}

func (g *noiseGen) dnSegmentRoll(t time.Time, n Node) {
	p := g.pick(g.readyPipelines(t, &n))
	g.segmentRoll(t, n, MemberID(n, p.group()), dnRatisDir+"/"+p.uuid, raftCaller(n.UUID, p.nodes[0].Host == n.Host))
}

// ---- SCM ----

// scmBlockDeletion: a block-deletion run on the leader SCM and the
// datanodes executing its commands.
func (g *noiseGen) scmBlockDeletion(t time.Time, n Node) {
	if len(g.c.Datanodes) == 0 {
		return
	}
	k := g.between(1, len(g.c.Datanodes)+1)
	blocks := g.between(k, 40*k)
	// B05 SCMBlockDeletingService.java:221
	g.info(t, n, logBlockDeleting, g.c.ThreadPrefix(n)+"SCMBlockDeletingService#0", "SCMBlockDeletingService.java:221",
		fmt.Sprintf("Totally added %d blocks to be deleted for %d datanodes / %d totalnodes, limit per iteration : %dblocks, task elapsed time: %dms",
			blocks, k, len(g.c.Datanodes), 500000, g.between(1, 30)))
	for _, i := range g.rng.Perm(len(g.c.Datanodes))[:k] {
		d := g.c.Datanodes[i]
		at := t.Add(g.ms(500, 30000))
		txns := g.between(1, 10)
		g.commandID++
		thread := g.c.ThreadPrefix(d) + "DeleteBlocksCommandHandlerThread-0"
		// E.1 #30 DeleteBlocksCommandHandler.java:381
		g.info(at, d, logDeleteBlocks, thread, "DeleteBlocksCommandHandler.java:381",
			fmt.Sprintf("Summary of deleting container blocks, numOfTransactions=%d, numOfContainers=%d, numOfBlocks=%d, commandId=%d.",
				txns, g.between(1, txns+1), g.between(txns, 4*txns+1), g.commandID))
		// E.1 #31 DeleteBlocksCommandHandler.java:442 (no space after the comma)
		g.info(at.Add(g.ms(5, 200)), d, logDeleteBlocks, thread, "DeleteBlocksCommandHandler.java:442",
			fmt.Sprintf("Sending deletion ACK to SCM, successTransactionCount = %d,failedTransactionCount = 0, time elapsed = %d",
				txns, g.between(3, 180)))
	}
}

// scmAllocationWarning: B38 with its exception, a transient allocation
// failure while the SCM leader's Ratis server is not ready. The exception
// chain uses the LeaderNotReadyException text of signatures-dn-om.md A.6;
// the stack frames are inferred.
func (g *noiseGen) scmAllocationWarning(t time.Time, n Node) {
	ps := g.readyPipelines(t, nil)
	if len(ps) == 0 {
		return
	}
	p := g.pick(ps)
	member, _ := g.scmMember(n)
	notReady := "org.apache.ratis.protocol.exceptions.LeaderNotReadyException: " + member + " is in LEADER state but not ready yet."
	frames := []string{
		"org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl.submitRequest(SCMRatisServerImpl.java:229)",
		"org.apache.hadoop.hdds.scm.ha.SCMHAInvocationHandler.invokeRatisServer(SCMHAInvocationHandler.java:110)",
		"org.apache.hadoop.hdds.scm.ha.SCMHAInvocationHandler.invokeRatis(SCMHAInvocationHandler.java:96)",
		"org.apache.hadoop.hdds.scm.ha.SCMHAInvocationHandler.invoke(SCMHAInvocationHandler.java:76)",
		"jdk.proxy2/jdk.proxy2.$Proxy22.addContainer(Unknown Source)",
		"org.apache.hadoop.hdds.scm.container.ContainerManagerImpl.allocateContainer(ContainerManagerImpl.java:271)",
		"org.apache.hadoop.hdds.scm.container.ContainerManagerImpl.allocateContainer(ContainerManagerImpl.java:226)",
		"org.apache.hadoop.hdds.scm.pipeline.WritableRatisContainerProvider.getContainer(WritableRatisContainerProvider.java:120)",
		"org.apache.hadoop.hdds.scm.pipeline.WritableContainerFactory.getContainer(WritableContainerFactory.java:72)",
		"org.apache.hadoop.hdds.scm.block.BlockManagerImpl.allocateBlock(BlockManagerImpl.java:167)",
		"org.apache.hadoop.hdds.scm.server.SCMBlockProtocolServer.allocateBlock(SCMBlockProtocolServer.java:212)",
		"org.apache.hadoop.hdds.scm.protocol.ScmBlockLocationProtocolServerSideTranslatorPB.allocateScmBlock(ScmBlockLocationProtocolServerSideTranslatorPB.java:203)",
		"org.apache.hadoop.hdds.scm.protocol.ScmBlockLocationProtocolServerSideTranslatorPB.processMessage(ScmBlockLocationProtocolServerSideTranslatorPB.java:147)",
		"org.apache.hadoop.hdds.server.OzoneProtocolMessageDispatcher.processRequest(OzoneProtocolMessageDispatcher.java:89)",
		"org.apache.hadoop.hdds.scm.protocol.ScmBlockLocationProtocolServerSideTranslatorPB.send(ScmBlockLocationProtocolServerSideTranslatorPB.java:118)",
		"org.apache.hadoop.ipc.ProtobufRpcEngine$Server$ProtoBufRpcInvoker.call(ProtobufRpcEngine.java:484)",
		"org.apache.hadoop.ipc.RPC$Server.call(RPC.java:1106)",
		"org.apache.hadoop.ipc.Server$RpcCall.run(Server.java:1021)",
		"org.apache.hadoop.ipc.Server$Handler.run(Server.java:3060)",
	}
	trace := []string{
		"Container allocation failed on pipeline=Pipeline-" + p.uuid,
		"java.io.IOException: java.util.concurrent.ExecutionException: " + notReady,
	}
	for _, f := range frames {
		trace = append(trace, "\tat "+f)
	}
	trace = append(trace,
		"Caused by: java.util.concurrent.ExecutionException: "+notReady,
		"\tat java.base/java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:396)",
		"\tat java.base/java.util.concurrent.CompletableFuture.get(CompletableFuture.java:2073)",
		"\tat org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl.submitRequest(SCMRatisServerImpl.java:225)",
		fmt.Sprintf("\t... %d more", len(frames)-1), // shares every enclosing frame after submitRequest
		"Caused by: "+notReady,
		"\tat org.apache.ratis.server.impl.RaftServerImpl.checkLeaderState(RaftServerImpl.java:780)",
		"\tat org.apache.ratis.server.impl.RaftServerImpl.submitClientRequestAsync(RaftServerImpl.java:923)",
		"\tat org.apache.ratis.server.impl.RaftServerProxy.lambda$submitClientRequestAsync$9(RaftServerProxy.java:439)",
		"\tat java.base/java.util.concurrent.CompletableFuture.uniComposeStage(CompletableFuture.java:1187)",
		"\tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)",
		"\tat java.base/java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:635)",
		"\tat java.base/java.lang.Thread.run(Thread.java:840)",
	)
	// B38 ContainerManagerImpl.java:381 (WARN, + exception)
	g.log(t, n, parsers.LevelWarn, logContainerManager, fmt.Sprintf("IPC Server handler %d on default port 9863", g.between(0, 100)),
		"ContainerManagerImpl.java:381", strings.Join(trace, "\n"))
}

// pipelineRender renders Pipeline.toString (Pipeline.java:539-555,
// signatures-scm.md §0.1).
func (g *noiseGen) pipelineRender(p *bgPipeline, state, leader string) string {
	var b strings.Builder
	b.WriteString("Pipeline{ Id: " + p.uuid + ", Nodes: [")
	for _, n := range p.nodes {
		b.WriteString(" {" + n.Details() + ", ReplicaIndex: 0},")
	}
	b.WriteString("], ReplicationConfig: RATIS/" + p.factor() + ", State:" + state + ", leaderId:" + leader +
		", CreationTimestamp" + p.created.UTC().Format("2006-01-02T15:04:05.000000Z") + "[UTC]}")
	return b.String()
}

// pipelineChurn: the leader SCM closes a pipeline (its open containers
// first), scrubs and removes it, the datanodes remove the Raft group, and
// the background creator makes a replacement with a new Raft election on
// the datanodes (B08-B15, B18, S3-S9, R1 healthy form, R8, R9, E.1
// #12/#14/#20/#21).
func (g *noiseGen) pipelineChurn(t time.Time, scm Node) {
	ps := g.readyPipelines(t, nil)
	p := g.pick(ps)
	for _, c := range p.open {
		g.closeContainer(t, c)
	}
	p.open = nil
	for i, q := range g.pipelines {
		if q == p {
			g.pipelines = append(g.pipelines[:i], g.pipelines[i+1:]...)
			break
		}
	}
	closedAt := t.Add(g.ms(20000, 40000))
	prefix := g.c.ThreadPrefix(scm)
	// B11 PipelineManagerImpl.java:505
	g.info(closedAt, scm, logPipelineManager, fmt.Sprintf("IPC Server handler %d on default port 9860", g.between(0, 100)),
		"PipelineManagerImpl.java:505", "Pipeline Pipeline-"+p.uuid+" moved to CLOSED state")

	// Scrubbed on a later run of the 5 min scrubber, after the 66 s destroy timeout.
	scrub := closedAt.Add(g.ms(70000, 300000))
	scrubber := prefix + "PipelineScrubberThread"
	// B13 PipelineManagerImpl.java:654
	g.info(scrub, scm, logPipelineManager, scrubber, "PipelineManagerImpl.java:654",
		"Scrubbing pipeline: id: Pipeline-"+p.uuid+" since it stays at CLOSED stage.")
	// B14 PipelineManagerImpl.java:459
	g.info(scrub.Add(g.ms(2, 20)), scm, logPipelineManager, scrubber, "PipelineManagerImpl.java:459",
		"Pipeline "+g.pipelineRender(p, "CLOSED", p.nodes[0].UUID)+" removed.")
	for _, d := range p.nodes {
		// B15 RatisPipelineProvider.java:281 (the datanode UUID only)
		g.info(scrub.Add(g.ms(20, 40)), scm, logRatisPipeline, scrubber, "RatisPipelineProvider.java:281",
			"Send pipeline:Pipeline-"+p.uuid+" close command to datanode "+d.UUID)
	}
	for i, d := range p.nodes {
		g.removeGroup(scrub.Add(g.ms(1000, 30000)), d, p, i == 0)
	}

	// The background creator's next run makes a replacement.
	q := g.newPipeline(p.nodes, scrub.Add(g.ms(10000, 120000)))
	creator := prefix + "RatisPipelineUtilsThread"
	for _, d := range q.nodes {
		// B09 RatisPipelineProvider.java:197
		g.info(q.created, scm, logRatisPipeline, creator, "RatisPipelineProvider.java:197",
			"Sending CreatePipelineCommand for pipeline:Pipeline-"+q.uuid+" to datanode:"+d.Details())
	}
	// B08 BackgroundPipelineCreator.java:227
	g.info(q.created.Add(g.ms(1, 10)), scm, logPipelineCreator, creator, "BackgroundPipelineCreator.java:227",
		"Created new pipeline "+g.pipelineRender(q, "ALLOCATED", ""))
	last := q.created
	for _, d := range q.nodes {
		at := q.created.Add(g.ms(500, 30000))
		last = maxTime(last, at)
		// E.1 #14 CreatePipelineCommandHandler.java:141
		g.info(at, d, logCreatePipeline, "Command processor thread", "CreatePipelineCommandHandler.java:141",
			"Created Pipeline RATIS "+q.factor()+" Pipeline-"+q.uuid+".")
	}
	g.election(last.Add(g.ms(1000, 5000)), q)
	q.ready = last.Add(10 * time.Second)
	g.pipelines = append(g.pipelines, q)
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// removeGroup: a datanode's healthy close of a pipeline's Raft group: R1 with
// (RUNNING), T4, R9, R8 on the close-pipeline handler thread.
func (g *noiseGen) removeGroup(t time.Time, d Node, p *bgPipeline, leader bool) {
	member := MemberID(d, p.group())
	last := g.groupIndex(dnRatisDir+"/"+p.uuid, 0, 1)
	role := "FOLLOWER"
	if leader {
		role = "LEADER"
	}
	peers := make([]string, len(p.nodes))
	for i, n := range p.nodes {
		peers[i] = fmt.Sprintf("%s|%s:%d", n.UUID, n.IP, dnRatisPort) // RaftPeer.toString "<id>|<address>"
	}
	// RaftServerImpl.toString "<role %9s> (<LifeCycle state>): <ServerState>", ServerState.toString,
	// RaftLogBase.toString and RaftConfigurationImpl.toString (signatures-dn-om.md §0, A.5 R1).
	state := fmt.Sprintf("%9s (RUNNING): %s:t1, leader=%s, voted=%s, raftlog=%s-SegmentedRaftLog:OPENED:c%d:last%s, conf=conf: {index: %d, cur=peers:[%s]|listeners:[], old=null}",
		role, member, p.nodes[0].UUID, p.nodes[0].UUID, member, last, TermIndex(1, last), p.confIndex, strings.Join(peers, ", "))
	thread := g.c.ThreadPrefix(d) + "ClosePipelineCommandHandlerThread-0"
	// R1 (healthy form) RaftServerProxy.java:117
	g.info(t, d, logRaftServer, thread, "RaftServerProxy.java:117", d.UUID+": remove "+state)
	// T4 RaftServerImpl.java:528 (healthy close on the close-pipeline thread)
	g.info(t.Add(g.ms(1, 5)), d, logRaftDivision, thread, "RaftServerImpl.java:528", member+": shutdown")
	// R9 RaftServerImpl.java:498 (storage directory printed as its path, inferred)
	t = t.Add(g.ms(20, 400))
	g.info(t, d, logRaftDivision, thread, "RaftServerImpl.java:498",
		member+": Succeed to remove RaftStorageDirectory "+dnRatisDir+"/"+p.uuid)
	// R8 ClosePipelineCommandHandler.java:166
	g.info(t.Add(g.ms(1, 10)), d, logClosePipeline, thread, "ClosePipelineCommandHandler.java:166",
		"Close Pipeline Pipeline-"+p.uuid+" command on datanode "+d.Details()+".")
	delete(g.segStart, member)
}

// election: the first member of a new pipeline becomes its leader at term 1
// (E.1 #20, #21, #12; role names %9s-padded, signatures-dn-om.md §0 trap 2).
func (g *noiseGen) election(t time.Time, p *bgPipeline) {
	leader := p.nodes[0]
	lm := MemberID(leader, p.group())
	// E.1 #20 RaftServerImpl.java:393
	g.info(t, leader, logRaftDivision, lm+"-FollowerState", "RaftServerImpl.java:393",
		lm+": changes role from  FOLLOWER to CANDIDATE at term 1 for changeToCandidate")
	t = t.Add(g.ms(50, 400))
	// E.1 #20 RaftServerImpl.java:393
	g.info(t, leader, logRaftDivision, lm+"-LeaderElection1", "RaftServerImpl.java:393",
		lm+": changes role from CANDIDATE to LEADER at term 1 for changeToLeader")
	// E.1 #12 XceiverServerRatis.java:945
	g.info(t.Add(g.ms(1, 5)), leader, logXceiverRatis, lm+"-LeaderElection1", "XceiverServerRatis.java:945",
		"Leader change notification received for group: "+p.group()+" with new leaderId: "+leader.UUID)
	for _, f := range p.nodes[1:] {
		at := t.Add(g.ms(5, 300))
		fm := MemberID(f, p.group())
		// E.1 #21 ServerState.java:278 ("{}{}" = op + ", leader elected after {}ms")
		g.info(at, f, logRaftDivision, f.UUID+"-server-thread1", "ServerState.java:278",
			fmt.Sprintf("%s: change Leader from null to %s at term 1 for APPEND_ENTRIES, leader elected after %dms", fm, leader.UUID, g.between(1500, 9000)))
		// E.1 #12 XceiverServerRatis.java:945
		g.info(at.Add(g.ms(1, 5)), f, logXceiverRatis, f.UUID+"-server-thread1", "XceiverServerRatis.java:945",
			"Leader change notification received for group: "+p.group()+" with new leaderId: "+leader.UUID)
	}
}

// ---- containers ----

// containerOpen: a new container on a pipeline of n (dn-container OPEN line
// and CREATE_CONTAINER audit on every member).
func (g *noiseGen) containerOpen(t time.Time, n Node) {
	p := g.pick(g.readyPipelines(t, &n))
	if len(p.open) >= 3 {
		g.closeContainer(t, p.open[0])
		p.open = p.open[1:]
		return
	}
	c := &bgContainer{id: g.nextID, p: p}
	g.nextID++
	p.open = append(p.open, c)
	for _, d := range p.nodes {
		at := t.Add(g.ms(1, 400))
		// dn-container OPEN line, ContainerLogger.java:56-87 (signatures-dn-om.md E.1)
		g.containerLog(at, d, c.id, 0, "OPEN", "0")
		// DNAudit CREATE_CONTAINER: DNAction, params of ContainerCommandRequestPBHelper.getAuditParams
		// (TreeMap, JSON at HEAD, signatures-scm.md §4.2); gRPC requests carry no user/ip.
		g.audit(at.Add(g.ms(0, 3)), d, "DNAudit", "null", "null", "CREATE_CONTAINER",
			fmt.Sprintf(`{"containerID":"%d","containerType":"KeyValueContainer"}`, c.id))
	}
}

// containerClose: the oldest open container of a pipeline of n closes.
func (g *noiseGen) containerClose(t time.Time, n Node) {
	for _, p := range g.readyPipelines(t, &n) {
		if len(p.open) > 0 {
			g.closeContainer(t, p.open[0])
			p.open = p.open[1:]
			return
		}
	}
}

// closeContainer: the leader SCM fires the close event (B18; followers skip
// it, T14), every replica goes CLOSING then CLOSED (dn-container lines,
// E.1 #29, CLOSE_CONTAINER audit), and every SCM processes the first
// replica's report (B20, sometimes after a transient B22).
func (g *noiseGen) closeContainer(t time.Time, c *bgContainer) {
	if len(g.c.SCMs) == 0 {
		return
	}
	leader := g.c.SCMs[0]
	// B18 CloseContainerEventHandler.java:87
	g.info(t, leader, logCloseContainer, g.c.ThreadPrefix(leader)+"EventQueue-CloseContainerForCloseContainerEventHandler",
		"CloseContainerEventHandler.java:87", fmt.Sprintf("Close container Event triggered for container : #%d, current state: CLOSING", c.id))
	for _, f := range g.c.SCMs[1:] {
		// T14 follower form, CloseContainerEventHandler.java:81
		g.info(t.Add(g.ms(1, 200)), f, logCloseContainer, g.c.ThreadPrefix(f)+"EventQueue-CloseContainerForCloseContainerEventHandler",
			"CloseContainerEventHandler.java:81", fmt.Sprintf("Skip close container #%d since current SCM is not leader.", c.id))
	}
	bcsid := int64(g.between(20, 5000))
	checksum := fmt.Sprintf("%08x", g.rng.Uint32())
	var first Node
	var firstAt time.Time
	for i, d := range c.p.nodes {
		at := t.Add(g.ms(500, 30000))
		if i == 0 || at.Before(firstAt) {
			first, firstAt = d, at
		}
		// dn-container CLOSING line, ContainerLogger.java:65-67 (signatures-dn-om.md A.5)
		g.containerLog(at, d, c.id, bcsid, "CLOSING", "0")
		at = at.Add(g.ms(50, 600))
		// E.1 #29 KeyValueContainer.java:442; ContainerData.toString (signatures-scm.md §0.1)
		g.info(at, d, logKeyValueContainer, g.c.ThreadPrefix(d)+"ContainerOp-"+c.p.uuid+"-0", "KeyValueContainer.java:442",
			fmt.Sprintf("Closed container: KeyValueContainerData #%d (CLOSED, non-empty, ri=0, origin=[dn_%s, pipeline_%s])", c.id, d.UUID, c.p.uuid))
		// dn-container CLOSED line, ContainerLogger.java:56-87 (signatures-dn-om.md E.1)
		g.containerLog(at.Add(g.ms(0, 3)), d, c.id, bcsid, "CLOSED", checksum)
		// DNAudit CLOSE_CONTAINER (DNAction; getAuditParams CloseContainer: containerID)
		g.audit(at.Add(g.ms(0, 3)), d, "DNAudit", "null", "null", "CLOSE_CONTAINER", fmt.Sprintf(`{"containerID":"%d"}`, c.id))
	}
	report := firstAt.Add(g.ms(700, 2000))
	for i, scm := range g.c.SCMs {
		thread := fmt.Sprintf("%sFixedThreadPoolWithAffinityExecutor-%d-0", g.c.ThreadPrefix(scm), g.between(0, 10))
		if i == 0 && len(c.p.nodes) > 1 && g.rng.Intn(4) == 0 {
			lag := c.p.nodes[1]
			// B22 AbstractContainerReportHandler.java:394 (WARN; the template ends with a space)
			g.log(report.Add(-g.ms(100, 600)), scm, parsers.LevelWarn, logICR, thread, "AbstractContainerReportHandler.java:394",
				fmt.Sprintf("Replica BCSID mismatched for Container #%d (CLOSING, sid=%d) r0 (CLOSING, bcsid=%d, origin=%s, non-empty) from dn %s ",
					c.id, bcsid, bcsid-int64(g.between(1, 20)), lag.UUID, lag.Details()))
		}
		// B20 AbstractContainerReportHandler.java:289 with detailsForLogging (signatures-scm.md §0.1)
		g.info(report.Add(g.ms(0, 80)), scm, logICR, thread, "AbstractContainerReportHandler.java:289",
			fmt.Sprintf("CLOSE Container #%d (CLOSING, sid=%d) r0 (CLOSED, bcsid=%d, origin=%s, non-empty) from dn %s",
				c.id, bcsid, bcsid, first.UUID, first.Details()))
	}
}

// ---- datanode housekeeping ----

func (g *noiseGen) dnVolumeCheck(t time.Time, n Node) {
	// E.1 #33 StorageVolumeChecker.java:233 (StorageVolume.toString is its storage dir)
	g.info(t, n, logVolumeChecker, "Periodic HDDS volume checker", "StorageVolumeChecker.java:233",
		"Scheduled health check for volume "+dnVolume)
}

func (g *noiseGen) dnScanner(t time.Time, n Node) {
	g.counter[n.Host+"/scanner"]++
	// E.1 #32 AbstractBackgroundContainerScanner.java:89
	g.info(t, n, logContainerScanner, "ContainerMetadataScanner", "AbstractBackgroundContainerScanner.java:89",
		fmt.Sprintf("Completed an iteration in %d minutes. Number of iterations (since the data-node restart) : %d, Number of containers scanned in this iteration : %d, Number of unhealthy containers found in this iteration : 0",
			g.between(0, 3), g.counter[n.Host+"/scanner"], g.between(5, 300)))
}

// ---- OM leader services ----

// omKeyDeletion: a KeyDeletingService run on the leader OM and the SCM
// leader's side of it (E.2 #7-#10, B06, B07).
func (g *noiseGen) omKeyDeletion(t time.Time, om Node) {
	thread := "KeyDeletingService#0"
	keys := g.between(1, 12)
	if g.rng.Intn(5) == 0 {
		// E.2 #10 KeyDeletingService.java:167
		g.info(t, om, logKeyDeleting, thread, "KeyDeletingService.java:167",
			fmt.Sprintf("Skipping SCM call as all %d keys are empty", keys))
		return
	}
	shown := min(keys, 3)
	names := make([]string, shown)
	for i := range names {
		// deleted-key group IDs "/<volume>/<bucket>/<key>/<objectID>" (shape inferred)
		names[i] = fmt.Sprintf("/vol1/bucket1/key-%d/%d", g.between(1, 100000), 1152921504606846976+int64(g.between(1, 1<<30)))
	}
	blocks := g.between(keys, 3*keys+1)
	// E.2 #7 KeyDeletingService.java:159
	g.info(t, om, logKeyDeleting, thread, "KeyDeletingService.java:159",
		fmt.Sprintf("Send %d key(s) to SCM, first %d keys: [%s]", keys, shown, strings.Join(names, ", ")))
	took := g.between(5, 80)
	if len(g.c.SCMs) > 0 {
		scm := g.c.SCMs[0]
		at := t.Add(g.ms(2, took))
		ipc := fmt.Sprintf("IPC Server handler %d on default port 9863", g.between(0, 100))
		// B06 SCMBlockProtocolServer.java:271
		g.info(at, scm, logBlockProtocol, ipc, "SCMBlockProtocolServer.java:271",
			fmt.Sprintf("SCM is informed by OM to delete %d keys. Total blocks to deleted %d.", keys, blocks))
		// B07 SCMBlockProtocolServer.java:284 (string concatenation)
		g.info(at.Add(g.ms(1, 5)), scm, logBlockProtocol, ipc, "SCMBlockProtocolServer.java:284",
			fmt.Sprintf("Total number of blocks ACK by SCM in this cycle: %d", blocks))
	}
	t = t.Add(time.Duration(took) * time.Millisecond)
	// E.2 #8 KeyDeletingService.java:189
	g.info(t, om, logKeyDeleting, thread, "KeyDeletingService.java:189",
		fmt.Sprintf("%d BlockGroup deletion are acked by SCM in %d ms", keys, took))
	// E.2 #9 KeyDeletingService.java:197
	g.info(t.Add(g.ms(1, 30)), om, logKeyDeleting, thread, "KeyDeletingService.java:197",
		fmt.Sprintf("Blocks for %d (out of %d) keys are deleted from DB in %d ms. Limit per task is %d.", keys, keys, g.between(1, 25), 50000))
}

func (g *noiseGen) omDirDeletion(t time.Time, om Node) {
	g.counter[om.Host+"/dirdeleting"] += int64(g.between(1, 20))
	// E.2 #11 DirectoryDeletingService.java:374 (two spaces before totalRunCount)
	g.info(t, om, logDirDeleting, "DirectoryDeletingService#0", "DirectoryDeletingService.java:374",
		fmt.Sprintf("Number of dirs deleted: %d, Number of sub-dir deleted: %d, Number of sub-files moved: %d to DeletedTable, Number of sub-dirs moved %d to DeletedDirectoryTable, iteration elapsed: %dms,  totalRunCount: %d",
			g.between(1, 4), g.between(0, 6), g.between(0, 40), g.between(0, 6), g.between(2, 90), g.counter[om.Host+"/dirdeleting"]))
}

func (g *noiseGen) omOpenKeyCleanup(t time.Time, om Node) {
	// E.2 #12 OpenKeyCleanupService.java:242
	g.info(t, om, logOpenKeyCleanup, "OpenKeyCleanupService#0", "OpenKeyCleanupService.java:242",
		fmt.Sprintf("Number of expired open keys submitted for deletion: %d, for commit: %d, cleanupLimit: %d, elapsed time: %dms",
			g.between(0, 30), g.between(0, 3), 1000, g.between(1, 40)))
}
