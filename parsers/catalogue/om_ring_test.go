package catalogue

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

const (
	omStarterLogger = "org.apache.hadoop.ozone.om.OzoneManagerStarter"
	omLogger        = "org.apache.hadoop.ozone.om.OzoneManager"
	omRatisLogger   = "org.apache.hadoop.ozone.om.ratis.OzoneManagerRatisServer"
	omSMLogger      = "org.apache.hadoop.ozone.om.ratis.OzoneManagerStateMachine"
	divisionLogger  = "org.apache.ratis.server.RaftServer$Division"
)

// omRingCase is one rendered line and the signal it must produce.
type omRingCase struct {
	name      string
	logger    string
	component parsers.Component
	msg       string
	want      Kind // "" = no OM ring signal
	check     func(t *testing.T, s Signal)
}

func omRingCases() []omRingCase {
	return []omRingCase{
		{
			// N16 OzoneManager.java:2154
			name: "N16", logger: omLogger, msg: "Failed to Bootstrap OM.", want: OMBootstrapFailed,
		},
		{
			// N18 (stderr, .out file, no logger): lost-leadership reply.
			name: "N18 not leader", msg: "Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: " +
				"Failed to add OM omNode-4 in Ratis ring.",
			want: OMBootstrapError,
			check: func(t *testing.T, s Signal) {
				if s.Attrs["code"] != "RATIS_BOOTSTRAP_ERROR" || s.OMNode != "omNode-4" ||
					s.Reason != "Failed to add OM omNode-4 in Ratis ring." {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// N18, ozone-2.0.0 wording "to Ratis ring".
			name: "N18 2.0", msg: "Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: " +
				"Failed to add OM omNode-4 to Ratis ring.",
			want: OMBootstrapError,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" {
					t.Errorf("node: %+v", s)
				}
			},
		},
		{
			// N18: Reconfiguration is already in progress (RaftServerImpl.java:1343-1346).
			name: "N18 in progress", msg: "Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: " +
				"Reconfiguration is already in progress: conf: {index: 1042, cur=peers:[omNode-1|om1.example.com:9872, " +
				"omNode-2|om2.example.com:9872, omNode-3|om3.example.com:9872, omNode-4|om4.example.com:9872]|listeners:[], " +
				"old=peers:[omNode-1|om1.example.com:9872, omNode-2|om2.example.com:9872, omNode-3|om3.example.com:9872]|listeners:[]}",
			want: OMBootstrapError,
			check: func(t *testing.T, s Signal) {
				if !strings.HasPrefix(s.Reason, "Reconfiguration is already in progress: conf: {index: 1042") || s.OMNode != "" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// N18 with --verbose: the exception's message line.
			name: "N18 verbose", msg: "java.io.IOException: Failed to Bootstrap OM. Error Code: LEADER_NOT_READY, Error Message: " +
				"omNode-1 is not ready\n\tat org.apache.hadoop.ozone.om.protocolPB.OMInterServiceProtocolClientSideImpl.bootstrap(OMInterServiceProtocolClientSideImpl.java:109)",
			want: OMBootstrapError,
			check: func(t *testing.T, s Signal) {
				if s.Attrs["code"] != "LEADER_NOT_READY" || s.Reason != "omNode-1 is not ready" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// N18 staging failure (LeaderStateImpl.java:1268,1274).
			name: "N18 NOPROGRESS", msg: "Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: " +
				"omNode-1@group-C5BA1605619E-ConfigurationStagingState: Fail to set configuration " +
				"peers:[omNode-1|om1.example.com:9872, omNode-4|om4.example.com:9872]|listeners:[] due to NOPROGRESS",
			want: OMBootstrapError,
			check: func(t *testing.T, s Signal) {
				if !strings.HasSuffix(s.Reason, "due to NOPROGRESS") {
					t.Errorf("reason: %q", s.Reason)
				}
			},
		},
		{
			// Near miss: N16 with an error code is N18, not N16 (only one signal).
			name: "N16 is not N18", logger: omLogger,
			msg:  "Failed to Bootstrap OM. Error Code: LEADER_UNDETERMINED, Error Message: no leader",
			want: OMBootstrapError,
		},
		{
			// OzoneManager.java:2151 success; RaftGroup "group-X:[peers]".
			name: "bootstrapped", logger: omLogger,
			msg: "Successfully bootstrapped OM omNode-4 and joined the Ratis group group-C5BA1605619E:" +
				"[omNode-1|om1.example.com:9872, omNode-2|om2.example.com:9872, omNode-3|om3.example.com:9872, omNode-4|om4.example.com:9872]",
			want: OMBootstrapped,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Group != "group-C5BA1605619E" || len(s.Peers) != 4 || s.Attrs["omhost"] != "om4" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// N10 OzoneManagerRatisServer.java:710
			name: "N10", logger: omRatisLogger, msg: "Starting OzoneManagerRatisServer omNode-4 at port 9872",
			want: OMRatisStarting,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["omhost"] != "om4" || s.Attrs["port"] != "9872" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// N17 OzoneManager.java:2445
			name: "N17", logger: omLogger, msg: "omNode-4[om4.example.com:9862]: Stopping Ozone Manager",
			want: OMStopping,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["omaddr"] != "om4.example.com" || s.Attrs["omhost"] != "om4" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// N4 OzoneManager.java:2113
			name: "N4", logger: omLogger,
			msg:  "Remote OM omNode-1 already contains bootstrapping OM(omNode-4) as part of its Raft group peers.",
			want: OMRemoteHasBootstrapNode,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["remote"] != "omNode-1" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// L1 OzoneManagerRatisServer.java:338
			name: "L1", logger: omRatisLogger,
			msg: "omNode-1: Submitting SetConfiguration request to Ratis server to add new OM peer omNode-4|om4.example.com:9872 " +
				"to the Ratis group group-C5BA1605619E:[omNode-1|om1.example.com:9872, omNode-2|om2.example.com:9872, omNode-3|om3.example.com:9872]",
			want: OMPeerChangeSubmitted,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Group != "group-C5BA1605619E" || s.Attrs["op"] != "add" ||
					s.Attrs["leader"] != "omNode-1" || s.Attrs["omhost"] != "om4.example.com" ||
					!reflect.DeepEqual(s.Peers, []string{"omNode-1", "omNode-2", "omNode-3"}) {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// L1 with a Ratis 2.x RaftPeer rendering.
			name: "L1 ratis 2", logger: omRatisLogger,
			msg: "omNode-1: Submitting SetConfiguration request to Ratis server to add new OM peer " +
				"omNode-4|rpc:om4.example.com:9872|admin:|client:|dataStream:|priority:0 to the Ratis group group-C5BA1605619E",
			want: OMPeerChangeSubmitted,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["omhost"] != "om4.example.com" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// OzoneManagerRatisServer.java:362 (decommission, F.3)
			name: "remove submitted", logger: omRatisLogger,
			msg: "omNode-1: Submitting SetConfiguration request to Ratis server to remove OM peer omNode-4 from Ratis group " +
				"group-C5BA1605619E:[omNode-1|om1.example.com:9872, omNode-4|om4.example.com:9872]",
			want: OMPeerChangeSubmitted,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["op"] != "remove" || s.Group != "group-C5BA1605619E" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// L13 OzoneManagerRatisServer.java:428; reply RaftClientReply.java:200-204.
			name: "L13", logger: omRatisLogger,
			msg: "Failed to add OM omNode-4 in Ratis group group-C5BA1605619E. Ratis SetConfiguration reply: " +
				"RaftClientReply:client-6A1F0C2B9D3E->omNode-1@group-C5BA1605619E, cid=17, FAILED " +
				"org.apache.ratis.protocol.exceptions.NotLeaderException: Server omNode-1@group-C5BA1605619E is not the leader, " +
				"logIndex=0, commits[omNode-1:c1040, omNode-2:c1040, omNode-3:c1038]",
			want: OMPeerChangeFailed,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["op"] != "add" || s.Reason != "NotLeaderException" || s.Group != "group-C5BA1605619E" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// L13 ozone-2.0.0 "to Ratis group".
			name: "L13 2.0", logger: omRatisLogger,
			msg: "Failed to add OM omNode-4 to Ratis group group-C5BA1605619E. Ratis SetConfiguration reply: " +
				"RaftClientReply:client-6A1F0C2B9D3E->omNode-1@group-C5BA1605619E, cid=17, FAILED " +
				"org.apache.ratis.protocol.exceptions.NotLeaderException: Server omNode-1@group-C5BA1605619E is not the leader",
			want: OMPeerChangeFailed,
		},
		{
			// L15 OzoneManagerRatisServer.java:426
			name: "L15", logger: omRatisLogger, msg: "add OM omNode-4 in Ratis group group-C5BA1605619E.",
			want: OMPeerChanged,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["op"] != "add" || s.Group != "group-C5BA1605619E" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// L15 ozone-2.0.0
			name: "L15 2.0", logger: omRatisLogger, msg: "Added OM omNode-4 to Ratis group group-C5BA1605619E.",
			want: OMPeerChanged,
			check: func(t *testing.T, s Signal) {
				if s.OMNode != "omNode-4" || s.Attrs["op"] != "add" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// remove (decommission) success, L15 with operation "remove".
			name: "L15 remove", logger: omRatisLogger, msg: "remove OM omNode-4 in Ratis group group-C5BA1605619E.",
			want: OMPeerChanged,
			check: func(t *testing.T, s Signal) {
				if s.Attrs["op"] != "remove" {
					t.Errorf("op: %+v", s)
				}
			},
		},
		{
			// Near miss: A3 OzoneManagerRatisServer.java:481 shares "Added OM ".
			name: "A3 is not L15", logger: omRatisLogger, msg: "Added OM omNode-4 to Ratis Peers list.",
		},
		{
			// Near miss: A4 OzoneManager.java:2276.
			name: "A4 is not L15", logger: omLogger,
			msg: "Added OM omNode-4: OMNodeDetails[omServiceId=omservice, omNodeId=omNode-4, rpcAddress=om4.example.com/10.0.1.4:9862, " +
				"rpcPort=9862, ratisPort=9872] to the Peer list.",
		},
		{
			// L2 RaftServerImpl.java:1323
			name: "L2", logger: divisionLogger, component: parsers.ComponentOM,
			msg: "omNode-1@group-C5BA1605619E: receive setConfiguration SetConfigurationRequest:client-6A1F0C2B9D3E->omNode-1@group-C5BA1605619E, " +
				"cid=17, seq=null, RW, null, SET_UNCONDITIONALLY, servers:[omNode-1|om1.example.com:9872, omNode-2|om2.example.com:9872, " +
				"omNode-3|om3.example.com:9872, omNode-4|om4.example.com:9872], listeners:[]",
			want: OMSetConfReceived,
			check: func(t *testing.T, s Signal) {
				if s.Peer != "omNode-1" || s.Group != "group-C5BA1605619E" || len(s.Peers) != 4 || s.Peers[3] != "omNode-4" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// A2 OzoneManagerStateMachine.java:306
			name: "A2", logger: omSMLogger,
			msg: "notifyConfigurationChanged from Ratis: term=7, index=1043, New Peer list: omNode-1(om1.example.com:9872), " +
				"omNode-2(om2.example.com:9872), omNode-3(om3.example.com:9872), omNode-4(om4.example.com:9872), New Listener list",
			want: OMConfChanged,
			check: func(t *testing.T, s Signal) {
				if s.Term != 7 || s.Index != 1043 || !reflect.DeepEqual(s.Peers, []string{"omNode-1", "omNode-2", "omNode-3", "omNode-4"}) {
					t.Errorf("fields: %+v", s)
				}
				addrs := ParsePeerAddresses(s.Attrs["peerlist"])
				if len(addrs) != 4 || addrs[3] != (PeerAddress{ID: "omNode-4", Addr: "om4.example.com:9872"}) || addrs[3].Host() != "om4.example.com" {
					t.Errorf("addresses: %+v", addrs)
				}
			},
		},
		{
			// A2 with a listener.
			name: "A2 listeners", logger: omSMLogger,
			msg: "notifyConfigurationChanged from Ratis: term=7, index=1043, New Peer list: omNode-1(om1.example.com:9872), " +
				"New Listener list: omNode-5(om5.example.com:9872)",
			want: OMConfChanged,
			check: func(t *testing.T, s Signal) {
				if !reflect.DeepEqual(s.Peers, []string{"omNode-1"}) || s.Attrs["listeners"] != "omNode-5(om5.example.com:9872)" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// A1 ServerState.java:392, final configuration (Ratis 3.1+).
			name: "A1 final", logger: divisionLogger, component: parsers.ComponentOM,
			msg: "omNode-2@group-C5BA1605619E: set configuration conf: {index: 1044, cur=peers:[omNode-1|om1.example.com:9872, " +
				"omNode-2|om2.example.com:9872, omNode-3|om3.example.com:9872, omNode-4|om4.example.com:9872]|listeners:[], old=null}",
			want: OMRaftConfSet,
			check: func(t *testing.T, s Signal) {
				if s.Peer != "omNode-2" || s.Group != "group-C5BA1605619E" || s.Index != 1044 || len(s.Peers) != 4 ||
					len(s.OldPeers) != 0 || s.Attrs["transitional"] != "" {
					t.Errorf("fields: %+v", s)
				}
				if a := ParsePeerAddresses(s.Attrs["peerlist"]); len(a) != 4 || a[0].Host() != "om1.example.com" {
					t.Errorf("addresses: %+v", a)
				}
			},
		},
		{
			// N15/L5 transitional configuration (Ratis 3.1+).
			name: "A1 transitional", logger: divisionLogger,
			msg: "omNode-4@group-C5BA1605619E: set configuration conf: {index: 1042, cur=peers:[omNode-1|om1.example.com:9872, " +
				"omNode-2|om2.example.com:9872, omNode-3|om3.example.com:9872, omNode-4|om4.example.com:9872]|listeners:[], " +
				"old=peers:[omNode-1|om1.example.com:9872, omNode-2|om2.example.com:9872, omNode-3|om3.example.com:9872]|listeners:[]}",
			want: OMRaftConfSet,
			check: func(t *testing.T, s Signal) {
				if s.Peer != "omNode-4" || len(s.Peers) != 4 || len(s.OldPeers) != 3 || s.Attrs["transitional"] != "true" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// A1 with the Ratis ≤3.0.1 RaftConfiguration and Ratis 2.x RaftPeer renderings.
			name: "A1 old ratis", logger: "server.RaftServer$Division",
			msg: "omNode-1@group-C5BA1605619E: set configuration 0: [omNode-1|rpc:om1.example.com:9872|admin:|client:|dataStream:|priority:0, " +
				"omNode-2|rpc:om2.example.com:9872|admin:|client:|dataStream:|priority:0], old=null",
			want: OMRaftConfSet,
			check: func(t *testing.T, s Signal) {
				if s.Index != 0 || !reflect.DeepEqual(s.Peers, []string{"omNode-1", "omNode-2"}) || s.Attrs["transitional"] != "" {
					t.Errorf("fields: %+v", s)
				}
				if a := ParsePeerAddresses(s.Attrs["peerlist"]); len(a) != 2 || a[1].Host() != "om2.example.com" {
					t.Errorf("addresses: %+v", a)
				}
			},
		},
		{
			// Near miss: the same Ratis line on a datanode is not an OM ring signal.
			name: "A1 on a datanode", logger: divisionLogger, component: parsers.ComponentDatanode,
			msg: "6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9@group-4C3FA0E1B2D9: set configuration conf: {index: 0, " +
				"cur=peers:[6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9|10.0.2.1:9858]|listeners:[], old=null}",
		},
		{
			// Near miss: N9 "start with initializing state, conf=" is not A1.
			name: "N9 is not A1", logger: divisionLogger,
			msg: "omNode-4@group-C5BA1605619E: start with initializing state, conf=conf: {index: -1, cur=peers:[]|listeners:[], old=null}",
		},
		{
			// L8 RaftServerImpl.java:393 with the padded old role (Trap 2).
			name: "L8", logger: divisionLogger, component: parsers.ComponentOM,
			msg:  "omNode-1@group-C5BA1605619E: changes role from    LEADER to FOLLOWER at term 6 for StepDownReason:LOST_MAJORITY_HEARTBEATS",
			want: OMRoleChanged,
			check: func(t *testing.T, s Signal) {
				if s.Peer != "omNode-1" || s.State != "LEADER" || s.Attrs["to"] != "FOLLOWER" || s.Term != 6 ||
					s.Reason != "LOST_MAJORITY_HEARTBEATS" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// L8 on an election (not a step-down).
			name: "L8 candidate", logger: divisionLogger,
			msg:  "omNode-2@group-C5BA1605619E: changes role from CANDIDATE to LEADER at term 7 for changeToLeader",
			want: OMRoleChanged,
			check: func(t *testing.T, s Signal) {
				if s.State != "CANDIDATE" || s.Attrs["to"] != "LEADER" || s.Reason != "changeToLeader" {
					t.Errorf("fields: %+v", s)
				}
			},
		},
		{
			// Near miss: the same text from another logger.
			name: "wrong logger", logger: "org.apache.hadoop.ozone.om.SomethingElse", msg: "Failed to Bootstrap OM.",
		},
	}
}

func TestOMRingEntries(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	ringKinds := map[Kind]bool{}
	for _, e := range omRingEntries() {
		ringKinds[e.Kind] = true
	}
	for _, tc := range omRingCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := &parsers.Record{Time: time.Unix(100, 0), Logger: tc.logger, Message: tc.msg, Host: "om4", Component: tc.component}
			first, _, _ := strings.Cut(tc.msg, "\n")
			if tc.want != "" && !c.Candidate(nil, []byte(first)) {
				t.Fatalf("first line is not a candidate: %q", first)
			}
			var got []Signal
			for _, s := range c.Match(r) {
				if ringKinds[s.Kind] {
					got = append(got, s)
				}
			}
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("near miss matched: %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Kind != tc.want {
				t.Fatalf("got %+v, want one %s", got, tc.want)
			}
			if got[0].Text != first || got[0].Host != "om4" {
				t.Errorf("common fields: %+v", got[0])
			}
			if tc.check != nil {
				tc.check(t, got[0])
			}
		})
	}
}

// TestOMRingProcessKinds checks that the bootstrapping OM's banners are the
// process entries' (not duplicated here) and carry what the OM ring
// detector reads.
func TestOMRingProcessKinds(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	// C.3 SHUTDOWN_MSG (N19).
	r := &parsers.Record{Time: time.Unix(1, 0), Logger: omStarterLogger, Message: "SHUTDOWN_MSG: \n" +
		"/************************************************************\n" +
		"SHUTDOWN_MSG: Shutting down OzoneManager at om4.example.com/10.0.1.4\n" +
		"************************************************************/"}
	sigs := c.Match(r)
	if len(sigs) != 1 || sigs[0].Kind != ShutdownMsg || sigs[0].Attrs["hostname"] != "om4.example.com" {
		t.Errorf("shutdown: %+v", sigs)
	}
}

func TestParsePeerAddresses(t *testing.T) {
	for in, want := range map[string][]PeerAddress{
		"peers:[omNode-1|om1:9872, omNode-4|om4:9872]|listeners:[omNode-5|om5:9872]": {{"omNode-1", "om1:9872"}, {"omNode-4", "om4:9872"}},
		"[omNode-1|rpc:om1:9872|admin:|client:|dataStream:|priority:1]":              {{"omNode-1", "om1:9872"}},
		"omNode-1(om1:9872), omNode-2(10.0.1.2:9872)":                                {{"omNode-1", "om1:9872"}, {"omNode-2", "10.0.1.2:9872"}},
		"group-C5BA1605619E:[omNode-1|om1.example.com/10.0.1.1:9872]":                {{"omNode-1", "om1.example.com/10.0.1.1:9872"}},
		"[omNode-1, omNode-2]": {{"omNode-1", ""}, {"omNode-2", ""}},
		"":                     nil,
	} {
		if got := ParsePeerAddresses(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v, want %+v", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"om1.example.com:9872": "om1.example.com", "om1.example.com/10.0.1.1:9872": "om1.example.com",
		"/10.0.1.1:9872": "10.0.1.1", "[fe80::1]:9872": "fe80::1", "rpc:om1:9872": "om1", "om1": "om1", "": "",
	} {
		if got := AddressHost(in); got != want {
			t.Errorf("AddressHost(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"10.0.1.4": true, "fe80::1": true, "om4.example.com": false, "om4": false, "": false} {
		if got := isIPAddress(in); got != want {
			t.Errorf("isIPAddress(%q) = %v", in, got)
		}
	}
}
