// Package scripts renders HDDS-16839's occurrences and near misses for the
// cases of the bootstrapexit detector.
package scripts

import (
	"fmt"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/parsers"
)

// HDDS-16839: an OM started with `ozone om --bootstrap` treats a failed reply
// from the leader as final and exits, while the ring commits the
// configuration that lists it (shared/ozone signatures-dn-om.md PART B).
// The bootstrapping OM is the cluster's last OM; the ring is the others,
// the first of them its leader. Near misses (F.4): a successful bootstrap,
// a staging failure (NOPROGRESS), a lost-leadership reply after which the
// next leader does not hold the new peer, the config pre-check exit, an
// ordinary OM restart with its step-down and elections, and a failure that
// left the ring unchanged (LEADER_NOT_READY) followed by a --bootstrap
// re-run that succeeds. The same failure followed by a re-run that hits the
// defect is a positive variant about the re-run.
func Scripts() map[string]scenario.Script {
	return map[string]scenario.Script{
		// Positive variants.
		"hdds16839/lost-leadership":                 h16839LostLeadership,
		"hdds16839/in-progress":                     h16839InProgress,
		"hdds16839/lost-leadership-restarted":       h16839LostLeadershipRestarted,
		"hdds16839/in-progress-decommissioned":      h16839InProgressDecommissioned,
		"hdds16839/new-om-only":                     h16839NewOMOnly,
		"hdds16839/lost-leadership-rerun-fails":     h16839RerunFails,
		"hdds16839/not-ready-rerun-lost-leadership": h16839NotReadyRerunLostLeadership,
		// Near misses.
		"hdds16839/success":                 h16839Success,
		"hdds16839/staging-timeout":         h16839StagingTimeout,
		"hdds16839/not-committed":           h16839NotCommitted,
		"hdds16839/config-check":            h16839ConfigCheck,
		"hdds16839/om-restart":              h16839OMRestart,
		"hdds16839/not-ready-rerun-success": h16839NotReadyRerunSuccess,
	}
}

// Loggers of the lines these scripts write (signatures-dn-om.md B.1-B.3, E.2; Trap 1).
const (
	h16839OM           = "org.apache.hadoop.ozone.om.OzoneManager"
	h16839RatisServer  = "org.apache.hadoop.ozone.om.ratis.OzoneManagerRatisServer"
	h16839StateMachine = "org.apache.hadoop.ozone.om.ratis.OzoneManagerStateMachine"
	h16839Snapshot     = "org.apache.hadoop.ozone.om.ratis_snapshot.OmRatisSnapshotProvider"
	h16839Checkpoint   = "org.apache.hadoop.ozone.om.OMDBCheckpointServletInodeBasedXfer"
	h16839Division     = "org.apache.ratis.server.RaftServer$Division"
	h16839RaftServer   = "org.apache.ratis.server.RaftServer"
	h16839RoleInfo     = "org.apache.ratis.server.impl.RoleInfo"
	h16839Pending      = "org.apache.ratis.server.impl.PendingRequests"
	h16839Election     = "org.apache.ratis.server.impl.LeaderElection"
	h16839Follower     = "org.apache.ratis.server.impl.FollowerState"
	h16839Appender     = "org.apache.ratis.grpc.server.GrpcLogAppender"

	h16839RPCPort   = 9862
	h16839RatisPort = 9872
	h16839Unavail   = "org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException: UNAVAILABLE: io exception"
)

// h16839Run holds the hosts, IDs and Raft state of one script run.
type h16839Run struct {
	s      *scenario.Scenario
	ring   []scenario.Node // existing OMs, leader first
	boot   scenario.Node   // the bootstrapping OM
	group  string
	term   int64
	index  int64
	cid    int64
	client string // ClientId of the leader's SetConfiguration requests
}

// newH16839Run picks the ring and the bootstrapping OM; ok is false when the
// cluster has fewer than two OMs.
func newH16839Run(s *scenario.Scenario) (*h16839Run, bool) {
	oms := s.Cluster.OMs
	if len(oms) < 2 {
		return nil, false
	}
	r := &h16839Run{s: s, ring: oms[:len(oms)-1], boot: oms[len(oms)-1], group: s.Cluster.OMGroup,
		term: int64(3 + s.Rand.Intn(5)), index: int64(1000 + s.Rand.Intn(8000)), cid: int64(10 + s.Rand.Intn(80))}
	// ClientId.toString: "client-" + 12 upper-case hex digits (ClientId.java:62-63).
	r.client = "client-" + strings.ToUpper(strings.ReplaceAll(scenario.UUID(s.Rand), "-", "")[20:])
	return r, true
}

func (r *h16839Run) leader() scenario.Node { return r.ring[0] }

func (r *h16839Run) all() []scenario.Node {
	return append(append([]scenario.Node(nil), r.ring...), r.boot)
}

func (r *h16839Run) member(n scenario.Node) string { return scenario.MemberID(n, r.group) }

func (r *h16839Run) jitter(max time.Duration) time.Duration {
	return time.Duration(r.s.Rand.Int63n(int64(max)))
}

func (r *h16839Run) add(at time.Time, n scenario.Node, level parsers.Level, logger, thread, source, msg string) {
	r.s.Add(scenario.Line{At: at, Host: n.Host, Level: level, Logger: logger, Thread: thread, Source: source, Msg: msg})
}

func (r *h16839Run) info(at time.Time, n scenario.Node, logger, thread, source, msg string) {
	r.add(at, n, parsers.LevelInfo, logger, thread, source, msg)
}

// Threads (signatures-dn-om.md §0: Ratis division executors; Hadoop IPC handlers).
func (r *h16839Run) ipc() string {
	return fmt.Sprintf("IPC Server handler %d on default port %d", r.s.Rand.Intn(100), h16839RPCPort)
}
func h16839ServerThread(n scenario.Node) string {
	return fmt.Sprintf("%s-server-thread%d", n.ID, 1+len(n.ID)%3)
}
func (r *h16839Run) updater(n scenario.Node) string { return r.member(n) + "-StateMachineUpdater" }

// peersPipe renders RaftPeers "{id}|{host}:{port}" (RaftPeer.java:238-240).
func h16839PeersPipe(nodes []scenario.Node) string {
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = fmt.Sprintf("%s|%s:%d", n.ID, n.Host, h16839RatisPort)
	}
	return strings.Join(parts, ", ")
}

// conf renders RaftConfigurationImpl (RaftConfigurationImpl.java:301-302,
// PeerConfiguration.java:105-106); old nil prints "old=null".
func h16839Conf(index int64, cur, old []scenario.Node) string {
	o := "null"
	if old != nil {
		o = "peers:[" + h16839PeersPipe(old) + "]|listeners:[]"
	}
	return fmt.Sprintf("conf: {index: %d, cur=peers:[%s]|listeners:[], old=%s}", index, h16839PeersPipe(cur), o)
}

// raftGroup renders RaftGroup "group-X:[peers]" (RaftGroup.java:107-108).
func (r *h16839Run) raftGroup(nodes []scenario.Node) string {
	return r.group + ":[" + h16839PeersPipe(nodes) + "]"
}

// bootStart: the new OM starts with --bootstrap (N1-N11). It returns when
// the OM's RPC server listens.
func (r *h16839Run) bootStart(at time.Time) time.Time {
	b := r.boot
	r.s.Startup(b, at, "--bootstrap") // N1, N2
	// N3 OzoneManager.java:1601-1611, stdout (.out file)
	r.s.Add(scenario.Line{At: at.Add(2 * time.Second), Host: b.Host, File: parsers.KindOut,
		Msg: "OM already initialized.Reusing existing cluster id for sd=/data/metadata/om;cid=CID-" + r.s.Cluster.ClusterUUID() + ";layoutVersion=9"})
	t := at.Add(3*time.Second + r.jitter(time.Second))
	// N7 OzoneManagerRatisServer.java:169
	r.info(t, b, h16839RatisServer, "main", "OzoneManagerRatisServer.java:169",
		"OM started in Bootstrap mode. Instantiating OM Ratis server with groupID: "+r.s.Cluster.OMService)
	// N9 RaftServerImpl.java:412 (the bootstrapping OM's group has no peers;
	// the empty configuration's rendering with index -1 is inferred)
	r.info(t.Add(300*time.Millisecond), b, h16839Division, "main", "RaftServerImpl.java:412",
		r.member(b)+": start with initializing state, conf=conf: {index: -1, cur=peers:[]|listeners:[], old=null}")
	// N8 OzoneManager.java:2401
	r.info(t.Add(400*time.Millisecond), b, h16839OM, "main", "OzoneManager.java:2401",
		fmt.Sprintf("OzoneManager Ratis server initialized at port %d", h16839RatisPort))
	// N10 OzoneManagerRatisServer.java:710
	r.info(t.Add(time.Second), b, h16839RatisServer, "main", "OzoneManagerRatisServer.java:710",
		fmt.Sprintf("Starting OzoneManagerRatisServer %s at port %d", b.ID, h16839RatisPort))
	// N11 OzoneManager.java:1878 ("%s is listening at %s")
	r.info(t.Add(2*time.Second), b, h16839OM, "main", "OzoneManager.java:1878",
		fmt.Sprintf("OzoneManager RPC server is listening at %s/%s:%d", b.Host, b.IP, h16839RPCPort))
	return t.Add(2 * time.Second)
}

// submit: the leader's SetConfiguration for the new OM (L1, L2, L3 when
// started is true; L3 is missing when a reconfiguration is in progress).
func (r *h16839Run) submit(at time.Time, thread string, started bool) {
	l := r.leader()
	r.cid++
	// L1 OzoneManagerRatisServer.java:338
	r.info(at, l, h16839RatisServer, thread, "OzoneManagerRatisServer.java:338",
		fmt.Sprintf("%s: Submitting SetConfiguration request to Ratis server to add new OM peer %s|%s:%d to the Ratis group %s",
			l.ID, r.boot.ID, r.boot.Host, h16839RatisPort, r.raftGroup(r.ring)))
	req := fmt.Sprintf("SetConfigurationRequest:%s->%s, cid=%d, seq=null, RW, null, SET_UNCONDITIONALLY, servers:[%s], listeners:[]",
		r.client, r.member(l), r.cid, h16839PeersPipe(r.all()))
	// L2 RaftServerImpl.java:1323
	r.info(at.Add(2*time.Millisecond), l, h16839Division, thread, "RaftServerImpl.java:1323",
		r.member(l)+": receive setConfiguration "+req)
	if started {
		// L3 LeaderStateImpl.java:483
		r.info(at.Add(3*time.Millisecond), l, h16839Division, thread, "LeaderStateImpl.java:483",
			r.member(l)+"-LeaderStateImpl: startSetConfiguration "+req)
	}
}

// catchUp: the leader starts replicating to the new OM, which installs a
// checkpoint (N12-N14, L6). It returns when the install finished.
func (r *h16839Run) catchUp(at time.Time) time.Time {
	b, l := r.boot, r.leader()
	// N12 ServerState.java:278
	r.info(at, b, h16839Division, h16839ServerThread(b), "ServerState.java:278",
		fmt.Sprintf("%s: change Leader from null to %s at term %d for APPEND_ENTRIES, leader elected after %dms",
			r.member(b), l.ID, r.term, 4000+r.s.Rand.Intn(3000)))
	// N13 OzoneManagerStateMachine.java:233
	r.info(at.Add(time.Millisecond), b, h16839StateMachine, h16839ServerThread(b), "OzoneManagerStateMachine.java:233",
		fmt.Sprintf("%s: leader changed to %s", r.member(b), l.ID))
	snap := r.index - int64(3+r.s.Rand.Intn(20))
	t := at.Add(time.Second)
	// N14 OzoneManagerStateMachine.java:626
	r.info(t, b, h16839StateMachine, h16839ServerThread(b), "OzoneManagerStateMachine.java:626",
		fmt.Sprintf("Received install snapshot notification from OM leader: %s with term index: %s", l.ID, scenario.TermIndex(r.term, snap)))
	// OmRatisSnapshotProvider.java:369 (checkpoint name and URL illustrative)
	r.info(t.Add(200*time.Millisecond), b, h16839Snapshot, "SnapshotInstaller", "OmRatisSnapshotProvider.java:369",
		fmt.Sprintf("Downloading latest checkpoint from Leader OM %s. Checkpoint: om.db.candidate URL: http://%s:9874/dbCheckpoint?includeSnapshotData=true&flushBeforeCheckpoint=true",
			l.ID, l.Host))
	// L6 OMDBCheckpointServletInodeBasedXfer.java:184, :200 (leader serves the checkpoint)
	r.info(t.Add(900*time.Millisecond), l, h16839Checkpoint, "qtp1843368112-"+fmt.Sprint(140+r.s.Rand.Intn(60)),
		"OMDBCheckpointServletInodeBasedXfer.java:184", fmt.Sprintf("Time taken to collect the DB data : %d milliseconds", 300+r.s.Rand.Intn(900)))
	r.info(t.Add(6*time.Second), l, h16839Checkpoint, "qtp1843368112-"+fmt.Sprint(140+r.s.Rand.Intn(60)),
		"OMDBCheckpointServletInodeBasedXfer.java:200",
		fmt.Sprintf("Time taken to write the checkpoint to response output stream: %d milliseconds", 4000+r.s.Rand.Intn(3000)))
	// OmRatisSnapshotProvider.java:440
	r.info(t.Add(6500*time.Millisecond), b, h16839Snapshot, "SnapshotInstaller", "OmRatisSnapshotProvider.java:440",
		fmt.Sprintf("Download completed for '%s'. Total size: %d KB", "om.db.candidate", 180000+r.s.Rand.Intn(90000)))
	// OzoneManager.java:4310, :4461 (TransactionInfo prints "term#index")
	r.info(t.Add(7*time.Second), b, h16839OM, "SnapshotInstaller", "OzoneManager.java:4310",
		fmt.Sprintf("Installing checkpoint with OMTransactionInfo %d#%d", r.term, snap))
	done := t.Add(9 * time.Second)
	r.info(done, b, h16839OM, "SnapshotInstaller", "OzoneManager.java:4461",
		fmt.Sprintf("Install Checkpoint is finished with Term: %d and Index: %d. Spend %d ms.", r.term, snap, 2000+r.s.Rand.Intn(600)))
	return done
}

// setConf logs "set configuration" on n (A1/L5/N15, ServerState.java:392).
func (r *h16839Run) setConf(at time.Time, n scenario.Node, cur, old []scenario.Node) {
	r.info(at, n, h16839Division, h16839ServerThread(n), "ServerState.java:392",
		r.member(n)+": set configuration "+h16839Conf(r.index, cur, old))
}

// transitional: the leader appends the (old,new) entry; followers and the
// new OM receive it (L5, A1, N15).
func (r *h16839Run) transitional(at time.Time, receivers []scenario.Node) {
	r.index++
	r.setConf(at, r.leader(), r.all(), r.ring)
	for _, n := range receivers {
		r.setConf(at.Add(20*time.Millisecond+r.jitter(100*time.Millisecond)), n, r.all(), r.ring)
	}
}

// stepDown: the leader loses its majority and steps down (L7-L12).
func (r *h16839Run) stepDown(at time.Time, conf string) {
	l := r.leader()
	lead := r.member(l) + "-LeaderStateImpl"
	// L7 LeaderStateImpl.java:1123-1126 (concatenated)
	r.add(at, l, parsers.LevelWarn, h16839Division, lead, "LeaderStateImpl.java:1123",
		fmt.Sprintf("%s: Lost leadership on term: %d. Election timeout: 5000ms. In charge for: %dms. Conf: %s",
			lead, r.term, 3000000+r.s.Rand.Intn(900000), conf))
	// L8 RaftServerImpl.java:393 (old role padded to 9, Trap 2)
	r.info(at.Add(2*time.Millisecond), l, h16839Division, lead, "RaftServerImpl.java:393",
		fmt.Sprintf("%s: changes role from    LEADER to FOLLOWER at term %d for StepDownReason:LOST_MAJORITY_HEARTBEATS", r.member(l), r.term))
	// L9 RoleInfo.java:103
	r.info(at.Add(3*time.Millisecond), l, h16839RoleInfo, lead, "RoleInfo.java:103", l.ID+": shutdown "+lead)
	// L10 PendingRequests.java:281
	r.info(at.Add(4*time.Millisecond), l, h16839Pending, lead, "PendingRequests.java:281",
		r.member(l)+"-PendingRequests: sendNotLeaderResponses")
	// L11 OzoneManagerStateMachine.java:201
	r.info(at.Add(5*time.Millisecond), l, h16839StateMachine, lead, "OzoneManagerStateMachine.java:201", "current leader OM steps down.")
	// L12 ServerState.java:278
	r.info(at.Add(6*time.Millisecond), l, h16839Division, lead, "ServerState.java:278",
		fmt.Sprintf("%s: change Leader from %s to null at term %d for StepDownReason:LOST_MAJORITY_HEARTBEATS", r.member(l), l.ID, r.term))
}

// addFailed: the leader's SetConfiguration reply failed with
// NotLeaderException (L13; reply RaftClientReply.java:200-204).
func (r *h16839Run) addFailed(at time.Time, thread string) {
	l := r.leader()
	var commits []string
	for i, n := range r.ring {
		commits = append(commits, fmt.Sprintf("%s:c%d", n.ID, r.index-1-int64(i%2)))
	}
	r.add(at, l, parsers.LevelError, h16839RatisServer, thread, "OzoneManagerRatisServer.java:428",
		fmt.Sprintf("Failed to add OM %s in Ratis group %s. Ratis SetConfiguration reply: RaftClientReply:%s->%s, cid=%d, FAILED "+
			"org.apache.ratis.protocol.exceptions.NotLeaderException: Server %s is not the leader, logIndex=0, commits[%s]",
			r.boot.ID, r.group, r.client, r.member(l), r.cid, r.member(l), strings.Join(commits, ", ")))
}

// added: the leader's SetConfiguration succeeded (L15).
func (r *h16839Run) added(at time.Time, thread string) {
	r.info(at, r.leader(), h16839RatisServer, thread, "OzoneManagerRatisServer.java:426",
		fmt.Sprintf("add OM %s in Ratis group %s.", r.boot.ID, r.group))
}

// exit: "Failed to Bootstrap OM." and the self-exit without a signal
// (N16, N17 and the stop lines, N18 on stderr with RATIS_BOOTSTRAP_ERROR
// unless errMsg is empty, N19).
func (r *h16839Run) exit(at time.Time, errMsg string) time.Time {
	return r.exitWith(at, "RATIS_BOOTSTRAP_ERROR", errMsg)
}

// exitWith is exit with the N18 error code.
func (r *h16839Run) exitWith(at time.Time, code, errMsg string) time.Time {
	b := r.boot
	// N16 OzoneManager.java:2154
	r.add(at, b, parsers.LevelError, h16839OM, "main", "OzoneManager.java:2154", "Failed to Bootstrap OM.")
	// N17 OzoneManager.java:2445 (getOMPrintInfo, OMNodeDetails.java:219-220)
	r.info(at.Add(5*time.Millisecond), b, h16839OM, "main", "OzoneManager.java:2445",
		fmt.Sprintf("%s[%s:%d]: Stopping Ozone Manager", b.ID, b.Host, h16839RPCPort))
	// OzoneManagerRatisServer.java:716 ("Stopping {} at port {}", the server has no toString)
	r.info(at.Add(40*time.Millisecond), b, h16839RatisServer, "main", "OzoneManagerRatisServer.java:716",
		fmt.Sprintf("Stopping org.apache.hadoop.ozone.om.ratis.OzoneManagerRatisServer@%x at port %d", 0x10000000+r.s.Rand.Intn(0x6fffffff), h16839RatisPort))
	// RaftServerProxy.java:425, RaftServerImpl.java:528
	r.info(at.Add(45*time.Millisecond), b, h16839RaftServer, "main", "RaftServerProxy.java:425", b.ID+": close")
	r.info(at.Add(50*time.Millisecond), b, h16839Division, "main", "RaftServerImpl.java:528", r.member(b)+": shutdown")
	if errMsg != "" {
		// N18 OMInterServiceProtocolClientSideImpl.java:109-110 via GenericCli.java:114 (stderr, .out file)
		r.s.Add(scenario.Line{At: at.Add(300 * time.Millisecond), Host: b.Host, File: parsers.KindOut,
			Msg: "Failed to Bootstrap OM. Error Code: " + code + ", Error Message: " + errMsg})
	}
	end := at.Add(400 * time.Millisecond)
	r.s.Shutdown(b, end) // N19, no RECEIVED SIGNAL before it
	return end
}

// election: newLeader wins term r.term+1 (E.2 #16-#24, A9-A11); conf is the
// configuration it votes with. It returns when the leader is ready.
func (r *h16839Run) election(at time.Time, newLeader scenario.Node, voters []scenario.Node, conf string) time.Time {
	r.term++
	nl := r.member(newLeader)
	// E.2 #24 FollowerState.java:161
	r.info(at, newLeader, h16839Follower, nl+"-FollowerState", "FollowerState.java:161",
		fmt.Sprintf("%s-FollowerState: change to CANDIDATE, lastRpcElapsedTime:%dms, electionTimeout:%dms", nl, 5000+r.s.Rand.Intn(300), 5000+r.s.Rand.Intn(200)))
	// E.2 #16 RaftServerImpl.java:393
	r.info(at.Add(time.Millisecond), newLeader, h16839Division, nl+"-FollowerState", "RaftServerImpl.java:393",
		fmt.Sprintf("%s: changes role from  FOLLOWER to CANDIDATE at term %d for changeToCandidate", nl, r.term-1))
	el := nl + "-LeaderElection" + fmt.Sprint(1+r.s.Rand.Intn(9))
	// A9 LeaderElection.java:448, :450
	r.info(at.Add(3*time.Millisecond), newLeader, h16839Election, el, "LeaderElection.java:448",
		fmt.Sprintf("%s ELECTION round 0: submit vote requests at term %d for %s", el, r.term, conf))
	r.info(at.Add(40*time.Millisecond), newLeader, h16839Election, el, "LeaderElection.java:450",
		fmt.Sprintf("%s ELECTION round 0: result PASSED", el))
	r.info(at.Add(42*time.Millisecond), newLeader, h16839Division, el, "RaftServerImpl.java:393",
		fmt.Sprintf("%s: changes role from CANDIDATE to LEADER at term %d for changeToLeader", nl, r.term))
	ready := at.Add(60 * time.Millisecond)
	// A10 LeaderStateImpl.java:309
	r.info(ready, newLeader, h16839Division, nl+"-LeaderStateImpl", "LeaderStateImpl.java:309",
		fmt.Sprintf("Leader %s-LeaderStateImpl is ready since appliedIndex == startIndex == %d", nl, r.index))
	for _, n := range voters {
		t := ready.Add(r.jitter(80 * time.Millisecond))
		if n.Host != newLeader.Host {
			// N12/E.2 #17 ServerState.java:278
			r.info(t, n, h16839Division, h16839ServerThread(n), "ServerState.java:278",
				fmt.Sprintf("%s: change Leader from null to %s at term %d for APPEND_ENTRIES, leader elected after %dms",
					r.member(n), newLeader.ID, r.term, 5000+r.s.Rand.Intn(400)))
		}
		// A11 OzoneManagerStateMachine.java:233
		r.info(t.Add(time.Millisecond), n, h16839StateMachine, h16839ServerThread(n), "OzoneManagerStateMachine.java:233",
			fmt.Sprintf("%s: leader changed to %s", r.member(n), newLeader.ID))
	}
	return ready
}

// applied: every OM of nodes applies a configuration listing peers (A2,
// OzoneManagerStateMachine.java:293-306), a few ms apart.
func (r *h16839Run) applied(at time.Time, nodes, peers []scenario.Node) {
	var list []string
	for _, p := range peers {
		list = append(list, fmt.Sprintf("%s(%s:%d)", p.ID, p.Host, h16839RatisPort))
	}
	for _, n := range nodes {
		r.info(at.Add(r.jitter(150*time.Millisecond)), n, h16839StateMachine, r.updater(n), "OzoneManagerStateMachine.java:306",
			fmt.Sprintf("notifyConfigurationChanged from Ratis: term=%d, index=%d, New Peer list: %s, New Listener list",
				r.term, r.index, strings.Join(list, ", ")))
	}
}

// peerAdded: the OMs add the new OM to their peer lists (A3, A4).
func (r *h16839Run) peerAdded(at time.Time, nodes []scenario.Node) {
	b := r.boot
	for _, n := range nodes {
		t := at.Add(r.jitter(100 * time.Millisecond))
		// A3 OzoneManagerRatisServer.java:481
		r.info(t, n, h16839RatisServer, r.updater(n), "OzoneManagerRatisServer.java:481", "Added OM "+b.ID+" to Ratis Peers list.")
		// A4 OzoneManager.java:2276 (OMNodeDetails.java:92-98)
		r.info(t.Add(time.Millisecond), n, h16839OM, r.updater(n), "OzoneManager.java:2276",
			fmt.Sprintf("Added OM %s: OMNodeDetails[omServiceId=%s, omNodeId=%s, rpcAddress=%s/%s:%d, rpcPort=%d, ratisPort=%d, "+
				"httpAddress=%s:9874, httpsAddress=%s:9875, isListener=false] to the Peer list.",
				b.ID, r.s.Cluster.OMService, b.ID, b.Host, b.IP, h16839RPCPort, h16839RPCPort, h16839RatisPort, b.Host, b.Host))
	}
}

// commitNew: the configuration with the new OM commits on the ring: the
// transitional entry applied, the final one appended and applied (A1, A2,
// A3, A4). The ring's current leader is leader.
func (r *h16839Run) commitNew(at time.Time, leader scenario.Node) time.Time {
	r.applied(at, r.ring, r.all())
	r.peerAdded(at.Add(200*time.Millisecond), r.ring)
	r.index++
	t := at.Add(300 * time.Millisecond)
	r.setConf(t, leader, r.all(), nil)
	for _, n := range r.ring {
		if n.Host != leader.Host {
			r.setConf(t.Add(20*time.Millisecond+r.jitter(80*time.Millisecond)), n, r.all(), nil)
		}
	}
	r.applied(t.Add(400*time.Millisecond), r.ring, r.all())
	return t.Add(500 * time.Millisecond)
}

// appendFailures: the leader keeps failing to reach the exited voter, once
// a minute batched (A8, GrpcLogAppender.java:553), over [from, to).
func (r *h16839Run) appendFailures(leader scenario.Node, from, to time.Time) {
	if to.After(r.s.End) {
		to = r.s.End
	}
	h := r.member(leader) + "->" + r.boot.ID + "-AppendLogResponseHandler"
	for t, first := from, true; t.Before(to); t = t.Add(time.Minute + r.jitter(2*time.Second)) {
		rep := ""
		if !first {
			rep = fmt.Sprintf(" (Repeated %d times in the last %d.%03ds)", 55+r.s.Rand.Intn(10), 59+r.s.Rand.Intn(2), r.s.Rand.Intn(1000))
		}
		first = false
		r.add(t, leader, parsers.LevelWarn, h16839Appender, "grpc-default-executor-"+fmt.Sprint(r.s.Rand.Intn(8)), "GrpcLogAppender.java:553",
			h+": Failed appendEntries"+rep+": "+h16839Unavail)
	}
}

// lostLeadership plays the lost-leadership reply: staging, the transitional
// entry reaches the followers, the leader steps down and replies
// NotLeaderException, the new OM exits, the next leader (the second ring
// OM) commits the configuration. It returns the exit time and the new leader.
func (r *h16839Run) lostLeadership(at time.Time, withOut bool) (time.Time, scenario.Node) {
	t := r.bootStart(at)
	ipc := r.ipc()
	r.submit(t.Add(time.Second), ipc, true)
	t = r.catchUp(t.Add(2 * time.Second))
	tr := t.Add(2 * time.Second)
	r.transitional(tr, append(append([]scenario.Node(nil), r.ring[1:]...), r.boot)) // N15 on the new OM
	sd := tr.Add(4 * time.Second)
	r.stepDown(sd, h16839Conf(r.index, r.all(), r.ring))
	r.addFailed(sd.Add(10*time.Millisecond), ipc)
	msg := ""
	if withOut {
		msg = "Failed to add OM " + r.boot.ID + " in Ratis ring."
	}
	exit := r.exit(sd.Add(150*time.Millisecond), msg)
	next := r.ring[1%len(r.ring)]
	ready := r.election(sd.Add(5*time.Second+r.jitter(time.Second)), next, r.ring, h16839Conf(r.index, r.all(), r.ring))
	// The new leader's own conf entry carries the transitional configuration.
	r.index++
	r.setConf(ready.Add(5*time.Millisecond), next, r.all(), r.ring)
	r.commitNew(ready.Add(200*time.Millisecond), next)
	return exit, next
}

func h16839LostLeadership(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	exit, leader := r.lostLeadership(at, true)
	r.appendFailures(leader, exit.Add(8*time.Second), s.End)
}

// h16839InProgress: the bootstrap request is retried while the first one is
// being applied; the retry gets "Reconfiguration is already in progress",
// the new OM exits, and the first request completes.
func h16839InProgress(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	r.inProgress(at)
	r.appendFailures(r.leader(), at.Add(2*time.Minute), s.End)
}

// inProgress returns when the configuration with the new OM has committed.
func (r *h16839Run) inProgress(at time.Time) time.Time {
	t := r.bootStart(at)
	first := r.ipc()
	r.submit(t.Add(time.Second), first, true)
	done := r.catchUp(t.Add(2 * time.Second))
	// The client's RPC timed out and retried: a second request (L1, L2; no L3).
	r.submit(done.Add(time.Second), r.ipc(), false)
	exit := r.exit(done.Add(1100*time.Millisecond),
		"Reconfiguration is already in progress: "+h16839Conf(r.index+1, r.all(), r.ring))
	r.transitional(exit.Add(2*time.Second), r.ring[1:])
	c := r.commitNew(exit.Add(2500*time.Millisecond), r.leader())
	r.added(c.Add(5*time.Millisecond), first)
	return c
}

// h16839LostLeadershipRestarted: as lost-leadership; 20 minutes later the
// operator starts the OM normally and it catches up by snapshot.
func h16839LostLeadershipRestarted(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	exit, leader := r.lostLeadership(at, true)
	back := exit.Add(20 * time.Minute)
	r.appendFailures(leader, exit.Add(8*time.Second), back)
	r.restart(back, leader)
}

// restart: the exited OM is started without --bootstrap (F.3 step 2).
func (r *h16839Run) restart(at time.Time, leader scenario.Node) {
	b := r.boot
	r.s.Startup(b, at, "")
	t := at.Add(4 * time.Second)
	// OzoneManagerRatisServer.java:176 (normal start; peers rendering inferred)
	r.info(t, b, h16839RatisServer, "main", "OzoneManagerRatisServer.java:176",
		fmt.Sprintf("Instantiating OM Ratis server with groupID: %s and peers: %s", r.s.Cluster.OMService,
			strings.Join(h16839Addrs(r.all()), ", ")))
	// RaftServerImpl.java:406
	r.info(t.Add(300*time.Millisecond), b, h16839Division, "main", "RaftServerImpl.java:406",
		r.member(b)+": start as a follower, conf="+h16839Conf(r.index, r.all(), nil))
	r.info(t.Add(time.Second), b, h16839RatisServer, "main", "OzoneManagerRatisServer.java:710",
		fmt.Sprintf("Starting OzoneManagerRatisServer %s at port %d", b.ID, h16839RatisPort))
	saved := r.ring
	r.ring = append([]scenario.Node{leader}, others16839(saved, leader)...)
	r.catchUp(t.Add(3 * time.Second))
	r.ring = saved
}

// h16839Addrs renders OM addresses "host:ratisPort".
func h16839Addrs(nodes []scenario.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = fmt.Sprintf("%s:%d", n.Host, h16839RatisPort)
	}
	return out
}

func others16839(nodes []scenario.Node, n scenario.Node) []scenario.Node {
	var out []scenario.Node
	for _, m := range nodes {
		if m.Host != n.Host {
			out = append(out, m)
		}
	}
	return out
}

// h16839InProgressDecommissioned: as in-progress; 30 minutes later the
// operator decommissions the node (F.3 step 3).
func h16839InProgressDecommissioned(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	c := r.inProgress(at)
	rm := c.Add(30 * time.Minute)
	r.appendFailures(r.leader(), at.Add(2*time.Minute), rm)
	r.decommission(rm)
}

// decommission removes the new OM from the ring (F.3 step 3 lines).
func (r *h16839Run) decommission(at time.Time) {
	l := r.leader()
	ipc := r.ipc()
	// OzoneManagerRatisServer.java:362
	r.info(at, l, h16839RatisServer, ipc, "OzoneManagerRatisServer.java:362",
		fmt.Sprintf("%s: Submitting SetConfiguration request to Ratis server to remove OM peer %s from Ratis group %s",
			l.ID, r.boot.ID, r.raftGroup(r.all())))
	r.cid++
	req := fmt.Sprintf("SetConfigurationRequest:%s->%s, cid=%d, seq=null, RW, null, SET_UNCONDITIONALLY, servers:[%s], listeners:[]",
		r.client, r.member(l), r.cid, h16839PeersPipe(r.ring))
	r.info(at.Add(2*time.Millisecond), l, h16839Division, ipc, "RaftServerImpl.java:1323", r.member(l)+": receive setConfiguration "+req)
	r.info(at.Add(3*time.Millisecond), l, h16839Division, ipc, "LeaderStateImpl.java:483", r.member(l)+"-LeaderStateImpl: startSetConfiguration "+req)
	r.index++
	for _, n := range r.ring {
		r.setConf(at.Add(50*time.Millisecond+r.jitter(50*time.Millisecond)), n, r.ring, r.all())
	}
	r.applied(at.Add(300*time.Millisecond), r.ring, r.ring)
	r.index++
	for _, n := range r.ring {
		r.setConf(at.Add(400*time.Millisecond+r.jitter(50*time.Millisecond)), n, r.ring, nil)
	}
	// L15 with operation "remove" (OzoneManagerRatisServer.java:426)
	r.info(at.Add(600*time.Millisecond), l, h16839RatisServer, ipc, "OzoneManagerRatisServer.java:426",
		fmt.Sprintf("remove OM %s in Ratis group %s.", r.boot.ID, r.group))
	r.applied(at.Add(700*time.Millisecond), r.ring, r.ring)
	for _, n := range r.ring[1:] {
		// OzoneManager.java:2294
		r.info(at.Add(800*time.Millisecond+r.jitter(50*time.Millisecond)), n, h16839OM, r.updater(n), "OzoneManager.java:2294",
			"Removed OM "+r.boot.ID+" from OM Peer Nodes.")
	}
}

// h16839NewOMOnly: only the new OM's side of a lost-leadership reply is
// logged (the other OMs' logs show nothing of the ring).
func h16839NewOMOnly(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	t := r.bootStart(at)
	done := r.catchUp(t.Add(2 * time.Second))
	r.index++
	r.setConf(done.Add(2*time.Second), r.boot, r.all(), r.ring) // N15
	r.exit(done.Add(6*time.Second), "Failed to add OM "+r.boot.ID+" in Ratis ring.")
}

// h16839RerunFails: after the lost-leadership exit the operator re-runs
// --bootstrap; the pre-check sees the ring already holds the node (N4) and
// the bootstrap fails again (F.3 step 2 "do not re-run").
func h16839RerunFails(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	exit, leader := r.lostLeadership(at, true)
	again := exit.Add(15 * time.Minute)
	r.appendFailures(leader, exit.Add(8*time.Second), s.End)
	b := r.boot
	r.s.Startup(b, again, "--bootstrap")
	// N4 OzoneManager.java:2113
	r.add(again.Add(3*time.Second), b, parsers.LevelWarn, h16839OM, "main", "OzoneManager.java:2113",
		fmt.Sprintf("Remote OM %s already contains bootstrapping OM(%s) as part of its Raft group peers.", leader.ID, b.ID))
	r.exit(again.Add(6*time.Second), "")
}

// Near misses.

// h16839Success: the bootstrap succeeds and the OM keeps running (F.4).
func h16839Success(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	r.bootstrapOK(at)
}

// bootstrapOK: a --bootstrap run from at that joins the ring (N1-N15, L1-L3,
// L5, A1-A4, L15, "Successfully bootstrapped OM").
func (r *h16839Run) bootstrapOK(at time.Time) {
	t := r.bootStart(at)
	ipc := r.ipc()
	r.submit(t.Add(time.Second), ipc, true)
	done := r.catchUp(t.Add(2 * time.Second))
	r.transitional(done.Add(2*time.Second), append(append([]scenario.Node(nil), r.ring[1:]...), r.boot))
	c := r.commitNew(done.Add(2500*time.Millisecond), r.leader())
	r.setConf(c.Add(-400*time.Millisecond), r.boot, r.all(), nil)
	r.applied(c, []scenario.Node{r.boot}, r.all())
	r.added(c.Add(5*time.Millisecond), ipc)
	// OzoneManager.java:2151
	r.info(c.Add(40*time.Millisecond), r.boot, h16839OM, "main", "OzoneManager.java:2151",
		fmt.Sprintf("Successfully bootstrapped OM %s and joined the Ratis group %s", r.boot.ID, r.raftGroup(r.all())))
}

// h16839StagingTimeout: the new OM does not catch up in time; staging fails
// with NOPROGRESS, the ring is unchanged (B.2 L13 note, F.4). A later GC
// pause on the leader makes an ordinary election whose configuration does
// not list the node.
func h16839StagingTimeout(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	t := r.bootStart(at)
	r.submit(t.Add(time.Second), r.ipc(), true)
	b := r.boot
	r.info(t.Add(2*time.Second), b, h16839Division, h16839ServerThread(b), "ServerState.java:278",
		fmt.Sprintf("%s: change Leader from null to %s at term %d for APPEND_ENTRIES, leader elected after %dms",
			r.member(b), r.leader().ID, r.term, 4000+r.s.Rand.Intn(3000))) // N12
	exit := r.exit(t.Add(62*time.Second), fmt.Sprintf("%s-ConfigurationStagingState: Fail to set configuration peers:[%s]|listeners:[] due to NOPROGRESS",
		r.member(r.leader()), h16839PeersPipe(r.all())))
	r.gcElection(exit.Add(17 * time.Minute))
}

// gcElection: the leader loses its majority on a pause and the second ring
// OM is elected; every OM applies the unchanged configuration (F.4).
func (r *h16839Run) gcElection(at time.Time) {
	r.stepDown(at, h16839Conf(r.index, r.ring, nil))
	next := r.ring[1%len(r.ring)]
	ready := r.election(at.Add(5*time.Second), next, r.ring, h16839Conf(r.index, r.ring, nil))
	r.index++
	for _, n := range r.ring {
		r.setConf(ready.Add(5*time.Millisecond+r.jitter(60*time.Millisecond)), n, r.ring, nil)
	}
	r.applied(ready.Add(200*time.Millisecond), r.ring, r.ring)
}

// h16839NotCommitted: the leader steps down before the transitional entry
// reached the followers; the next leader's configuration lacks the new OM
// (a lost-leadership reply that did not change the ring).
func h16839NotCommitted(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	t := r.bootStart(at)
	ipc := r.ipc()
	r.submit(t.Add(time.Second), ipc, true)
	t = r.catchUp(t.Add(2 * time.Second))
	tr := t.Add(2 * time.Second)
	r.transitional(tr, []scenario.Node{r.boot}) // only the new OM received it
	sd := tr.Add(4 * time.Second)
	r.stepDown(sd, h16839Conf(r.index, r.all(), r.ring))
	r.addFailed(sd.Add(10*time.Millisecond), ipc)
	r.exit(sd.Add(150*time.Millisecond), "Failed to add OM "+r.boot.ID+" in Ratis ring.")
	r.index-- // the next leader never had the transitional entry
	next := r.ring[1%len(r.ring)]
	ready := r.election(sd.Add(5*time.Second+r.jitter(time.Second)), next, r.ring[1:], h16839Conf(r.index, r.ring, nil))
	r.index++
	for _, n := range r.ring {
		r.setConf(ready.Add(5*time.Millisecond+r.jitter(500*time.Millisecond)), n, r.ring, nil) // the old leader truncates to it
	}
	r.applied(ready.Add(700*time.Millisecond), r.ring, r.ring)
}

// notReady: the ring's leader pauses just as the new OM starts; the second
// ring OM wins the election and the bootstrap request reaches it before it
// is ready (between changeToLeader and "Leader ... is ready"). Its
// checkLeaderStatus rejects the request, logged only at DEBUG (B.5); the new
// OM exits with LEADER_NOT_READY (N18). The ring is unchanged (F.4): the
// election's configuration does not list the new OM. From then on the
// second ring OM leads. It returns the exit time.
func (r *h16839Run) notReady(at time.Time) time.Time {
	t := r.bootStart(at)
	el := t.Add(time.Second)
	r.stepDown(el.Add(-5*time.Second), h16839Conf(r.index, r.ring, nil))
	next := r.ring[1%len(r.ring)]
	ready := r.election(el, next, r.ring, h16839Conf(r.index, r.ring, nil))
	// N18 message: OMLeaderNotReadyException of the leader's checkLeaderStatus
	// (OzoneManagerRatisUtils.createLeaderNotReadyException, "{peerId} is Leader
	// but not ready to process request yet."), passed on by
	// OMInterServiceProtocolClientSideImpl.bootstrap as LEADER_NOT_READY.
	exit := r.exitWith(el.Add(50*time.Millisecond), "LEADER_NOT_READY", next.ID+" is Leader but not ready to process request yet.")
	r.index++
	for _, n := range r.ring {
		r.setConf(ready.Add(5*time.Millisecond+r.jitter(60*time.Millisecond)), n, r.ring, nil)
	}
	r.applied(ready.Add(200*time.Millisecond), r.ring, r.ring)
	r.ring = append([]scenario.Node{next}, others16839(r.ring, next)...)
	return exit
}

// h16839NotReadyRerunSuccess: a LEADER_NOT_READY exit, then ten minutes
// later the operator runs --bootstrap again and it succeeds (F.4: neither
// the failure nor the success is the defect).
func h16839NotReadyRerunSuccess(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	exit := r.notReady(at)
	r.bootstrapOK(exit.Add(10 * time.Minute))
}

// h16839NotReadyRerunLostLeadership: a LEADER_NOT_READY exit, then ten
// minutes later a --bootstrap re-run that hits the defect (lost-leadership
// reply, the next leader commits the configuration).
func h16839NotReadyRerunLostLeadership(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	exit := r.notReady(at)
	again, leader := r.lostLeadership(exit.Add(10*time.Minute), true)
	r.appendFailures(leader, again.Add(8*time.Second), s.End)
}

// h16839ConfigCheck: the pre-check finds an existing OM without the new
// OM's configuration and exits with status 1 (N5); nothing reaches the ring.
func h16839ConfigCheck(s *scenario.Scenario, at time.Time) {
	r, ok := newH16839Run(s)
	if !ok {
		return
	}
	b, l := r.boot, r.leader()
	s.Startup(b, at, "--bootstrap")
	t := at.Add(3 * time.Second)
	// N5 OzoneManager.java:2089. The line carries the IOException of the
	// remote check; its text is not in signatures-dn-om.md, so no stack
	// trace is rendered.
	r.add(t, b, parsers.LevelError, h16839OM, "main", "OzoneManager.java:2089",
		fmt.Sprintf("Remote OM config check failed on OM %s", l.ID))
	// N5 exit: ratis ExitUtils.java:129-133 via ExitManager.exitSystem (OzoneManager.java:2093-2097);
	// {addresses} = OmUtils.getOMAddressListPrintString, "OM [" + getOMPrintInfo + "]"
	r.add(t.Add(20*time.Millisecond), b, parsers.LevelError, h16839OM, "main", "ExitUtils.java:129",
		fmt.Sprintf("Terminating with exit status 1: OM [%s[%s:%d]] do not have or have incorrect information of the bootstrapping OM. Update their ozone-site.xml before proceeding.",
			l.ID, l.Host, h16839RPCPort))
	s.Shutdown(b, t.Add(100*time.Millisecond))
}

// h16839OMRestart: an operator restarts the leader OM: SIGTERM, the ring
// elects another leader, the OM comes back; later a GC pause makes another
// step-down. Every election applies the unchanged configuration (F.4). No
// OM bootstraps; every cluster OM is a ring member.
func h16839OMRestart(s *scenario.Scenario, at time.Time) {
	oms := s.Cluster.OMs
	if len(oms) < 2 {
		return
	}
	r := &h16839Run{s: s, ring: oms, group: s.Cluster.OMGroup, term: int64(3 + s.Rand.Intn(5)), index: int64(1000 + s.Rand.Intn(8000))}
	l := r.leader()
	s.Signal(l, at, "TERM")
	s.Shutdown(l, at.Add(300*time.Millisecond))
	next := r.ring[1]
	ready := r.election(at.Add(6*time.Second), next, r.ring[1:], h16839Conf(r.index, r.ring, nil))
	r.index++
	for _, n := range r.ring[1:] {
		r.setConf(ready.Add(5*time.Millisecond+r.jitter(60*time.Millisecond)), n, r.ring, nil)
	}
	r.applied(ready.Add(200*time.Millisecond), r.ring[1:], r.ring)
	// The new leader cannot reach the stopped OM (A8).
	for t := ready.Add(2 * time.Second); t.Before(at.Add(3 * time.Minute)); t = t.Add(time.Minute) {
		r.add(t, next, parsers.LevelWarn, h16839Appender, "grpc-default-executor-2", "GrpcLogAppender.java:553",
			r.member(next)+"->"+l.ID+"-AppendLogResponseHandler: Failed appendEntries: "+h16839Unavail)
	}
	back := at.Add(3 * time.Minute)
	s.Startup(l, back, "")
	r.info(back.Add(4*time.Second), l, h16839Division, "main", "RaftServerImpl.java:406",
		r.member(l)+": start as a follower, conf="+h16839Conf(r.index, r.ring, nil))
	r.info(back.Add(5*time.Second), l, h16839RatisServer, "main", "OzoneManagerRatisServer.java:710",
		fmt.Sprintf("Starting OzoneManagerRatisServer %s at port %d", l.ID, h16839RatisPort))
	r.info(back.Add(7*time.Second), l, h16839Division, h16839ServerThread(l), "ServerState.java:278",
		fmt.Sprintf("%s: change Leader from null to %s at term %d for APPEND_ENTRIES, leader elected after %dms", r.member(l), next.ID, r.term, 7000+r.s.Rand.Intn(900)))
	r.applied(back.Add(8*time.Second), []scenario.Node{l}, r.ring)
	// Later a pause on the current leader: LOST_MAJORITY_HEARTBEATS and a new election.
	r.ring = append([]scenario.Node{next}, others16839(oms, next)...)
	r.gcElection(at.Add(40 * time.Minute))
}
