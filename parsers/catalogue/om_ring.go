package catalogue

import (
	"regexp"
	"strings"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// OM HA ring signals: bootstrapping a new OM into the Ratis ring, the
// leader's SetConfiguration for it and the configurations the OMs apply
// (shared/ozone signatures-dn-om.md PART B).
const (
	// OMBootstrapFailed: "Failed to Bootstrap OM." logged by the
	// bootstrapping OM itself (N16). No fields beyond the common ones.
	OMBootstrapFailed Kind = "om_bootstrap_failed"
	// OMBootstrapError: the bootstrapping OM's stderr line "Failed to
	// Bootstrap OM. Error Code: {code}, Error Message: {msg}" (N18, only in
	// the .out file or the console; untimed there). Attrs["code"] = error
	// code, Reason = error message, OMNode = the node the message names
	// ("Failed to add OM {node} in Ratis ring."), when it names one.
	OMBootstrapError Kind = "om_bootstrap_error"
	// OMBootstrapped: "Successfully bootstrapped OM {node} and joined the
	// Ratis group {group}". OMNode, Group, Peers (the group's peers),
	// Attrs["omhost"] = the logging host.
	OMBootstrapped Kind = "om_bootstrapped"
	// OMRatisStarting: "Starting OzoneManagerRatisServer {node} at port
	// {port}" (N10). OMNode, Attrs["omhost"] = the logging host, Attrs["port"].
	OMRatisStarting Kind = "om_ratis_starting"
	// OMStopping: "{node}[{address}:{port}]: Stopping Ozone Manager" (N17).
	// OMNode, Attrs["omaddr"] = the printed address, Attrs["omhost"] = the
	// logging host (or the printed address when it is a host name and the
	// logging host is unknown).
	OMStopping Kind = "om_stopping"
	// OMRemoteHasBootstrapNode: "Remote OM {remote} already contains
	// bootstrapping OM({node}) as part of its Raft group peers." (N4): a
	// re-run of --bootstrap finds the ring already lists the node. OMNode,
	// Attrs["remote"], Attrs["omhost"] = the logging host.
	OMRemoteHasBootstrapNode Kind = "om_remote_has_bootstrap_node"
	// OMPeerChangeSubmitted: the leader's "{leader}: Submitting
	// SetConfiguration request to Ratis server to add new OM peer
	// {node}|{address} to the Ratis group {group}:[peers]" (L1) or "... to
	// remove OM peer {node} from Ratis group {group}" (F.3). OMNode, Group,
	// Peers (the group's current peers), Attrs["op"] = "add" or "remove",
	// Attrs["leader"], and for add Attrs["omaddr"] and Attrs["omhost"].
	OMPeerChangeSubmitted Kind = "om_peer_change_submitted"
	// OMPeerChangeFailed: "Failed to {op} OM {node} in Ratis group {group}.
	// Ratis SetConfiguration reply: {reply}" (L13, 2.1.0+; 1.2.0-2.0.0 "Failed
	// to add OM {node} to Ratis group" and "Failed to remove OM {node} from
	// Ratis group").
	// OMNode, Group, Attrs["op"], Reason = the reply's exception class
	// (e.g. "NotLeaderException"), when it names one.
	OMPeerChangeFailed Kind = "om_peer_change_failed"
	// OMPeerChanged: "{op} OM {node} in Ratis group {group}." (L15, 2.1.0+;
	// 1.2.0-2.0.0 "Added OM {node} to Ratis group {group}." and "Removed OM
	// {node} from Ratis group {group}."): the leader's SetConfiguration for the
	// node succeeded. OMNode, Group, Attrs["op"].
	OMPeerChanged Kind = "om_peer_changed"
	// OMSetConfReceived: Ratis "{member}: receive setConfiguration {request}"
	// on an OM (L2). Peer, Group (the receiving member), Peers = the
	// request's servers.
	OMSetConfReceived Kind = "om_setconf_received"
	// OMConfChanged: "notifyConfigurationChanged from Ratis: term={t},
	// index={i}, New Peer list: {id}({address}), ..., New Listener list"
	// (A2), printed when a configuration entry is applied (committed), at
	// every election too. Term, Index, Peers, Attrs["peerlist"] (the raw
	// peer list, for ParsePeerAddresses), Attrs["listeners"] when any.
	OMConfChanged Kind = "om_conf_changed"
	// OMRaftConfSet: Ratis "{member}: set configuration {conf}" logged by an
	// OM (A1, L5, N15) when a configuration entry is appended (not yet
	// committed). Peer, Group (the logging member), Index, Peers (cur),
	// OldPeers (old, for a transitional configuration), Attrs["peerlist"]
	// (raw cur peers), Attrs["transitional"] = "true" when old is not null.
	OMRaftConfSet Kind = "om_raft_conf_set"
	// OMRoleChanged: Ratis "{member}: changes role from {old} to {new} at
	// term {t} for {reason}" logged by an OM (L8). Peer, Group, State = the
	// old role (trimmed), Attrs["to"] = the new role, Term, Reason (without
	// "StepDownReason:", e.g. "LOST_MAJORITY_HEARTBEATS").
	OMRoleChanged Kind = "om_role_changed"
)

// Fragments shared by the OM ring patterns.
const (
	omMemberRe = `(?P<member>[^\s@:]+@group-[0-9A-Fa-f]{12})`
	omGroupRe  = `(?P<group>group-[0-9A-Fa-f]{12})`
	// A Ratis peer configuration: "peers:[a|h:p, ...]|listeners:[...]"
	// (Ratis 3.x) or "[a|rpc:h:p|admin:...|priority:0, ...]" (Ratis 2.x).
	omPeerConfRe = `(?:peers:)?\[[^\]]*\](?:\|listeners:\[[^\]]*\])?`
)

var omExceptionRe = regexp.MustCompile(`(?:^|[\s:.])(\w+Exception)\b`)
var omRingNodeRe = regexp.MustCompile(`Failed to (?:add|remove) OM (\S+) (?:in|to|from) Ratis ring`)

func omRingEntries() []Entry {
	// RaftServerImpl: ratis-1.0.0 (ozone-1.0.0) logged through its own class.
	ratisLoggers := []string{"RaftServer$Division", "RaftServerImpl"}
	return []Entry{
		{
			// N16 OzoneManager.java:2154 "Failed to Bootstrap OM." (ERROR, no exception).
			// Same text since ozone-1.3.0 (:1712 @1.3.0); absent before.
			Kind:     OMBootstrapFailed,
			Source:   "hadoop-ozone/ozone-manager/.../om/OzoneManager.java:2154 (N16)",
			Loggers:  []string{"OzoneManager"},
			Literals: []string{"Failed to Bootstrap OM."},
			Pattern:  regexp.MustCompile(`\A\s*Failed to Bootstrap OM\.[ \t]*(?:\r?\n|\z)`),
		},
		{
			// N18 OMInterServiceProtocolClientSideImpl.java:109-110, printed
			// to stderr by GenericCli.java:114 (first line of the message;
			// the whole stack with --verbose). Same text since ozone-1.2.0
			// (:113 @1.2.0), the first release with OM bootstrap.
			Kind:     OMBootstrapError,
			Source:   "hadoop-ozone/ozone-manager/.../om/protocolPB/OMInterServiceProtocolClientSideImpl.java:109 (N18)",
			Literals: []string{"Failed to Bootstrap OM. Error Code: "},
			Pattern: regexp.MustCompile(`Failed to Bootstrap OM\. Error Code: (?P<code>[A-Z_]+), ` +
				`Error Message: (?P<reason>[^\r\n]*)`),
			Post: func(s *Signal, m Groups) bool {
				if sub := omRingNodeRe.FindStringSubmatch(m.Get("reason")); sub != nil {
					s.OMNode = strings.TrimSuffix(sub[1], ".")
				}
				return true
			},
		},
		{
			// OzoneManager.java:2151 "Successfully bootstrapped OM {} and joined
			// the Ratis group {}" (F.4); the group prints as RaftGroup
			// "group-X:[peers]" (RaftGroup.java:107-108). Same text since
			// ozone-1.2.0 (:1429 @1.2.0); the peers print as RaftPeer (see L1).
			Kind:     OMBootstrapped,
			Source:   "hadoop-ozone/ozone-manager/.../om/OzoneManager.java:2151 (F.4)",
			Loggers:  []string{"OzoneManager"},
			Literals: []string{"Successfully bootstrapped OM "},
			Pattern: regexp.MustCompile(`Successfully bootstrapped OM (?P<om>\S+) and joined the Ratis group ` +
				omGroupRe + `(?::(?P<peers>\[[^\]]*\]))?`),
			Post: selfHost,
		},
		{
			// N10 OzoneManagerRatisServer.java:710 "Starting {} {} at port {}".
			// Same text in every release (:365 @1.0.0).
			Kind:     OMRatisStarting,
			Source:   "hadoop-ozone/ozone-manager/.../om/ratis/OzoneManagerRatisServer.java:710 (N10)",
			Loggers:  []string{"OzoneManagerRatisServer"},
			Literals: []string{"Starting OzoneManagerRatisServer "},
			Pattern:  regexp.MustCompile(`^Starting OzoneManagerRatisServer (?P<om>[^\s@]+) at port (?P<port>\d+)`),
			Post:     selfHost,
		},
		{
			// N17 OzoneManager.java:2445 "{}: Stopping Ozone Manager" with
			// OMNodeDetails.getOMPrintInfo() = "{nodeId}[{hostAddress}:{rpcPort}]".
			//   A ozone-1.3.0..master (:2033 @1.3.0)
			//   B ozone-1.2.x "Stopping Ozone Manager" without the node (:1644
			//     @1.2.0): OMNode stays empty
			// ozone-1.0.0/1.1.0 log no such line.
			Kind:     OMStopping,
			Source:   "hadoop-ozone/ozone-manager/.../om/OzoneManager.java:2445 (N17); @1.2.0 :1644",
			Loggers:  []string{"OzoneManager"},
			Literals: []string{"Stopping Ozone Manager"},
			Pattern: regexp.MustCompile(`^(?:(?P<om>[^\s\[\]]+)\[(?P<omaddr>[^\]]*?)(?::\d+)?\]: )?` +
				`Stopping Ozone Manager[ \t]*(?:\r?\n|\z)`),
			Post: func(s *Signal, m Groups) bool {
				if s.Host == "" && m.Get("omaddr") != "" && !isIPAddress(m.Get("omaddr")) {
					s.Attrs = setAttr(s.Attrs, "omhost", m.Get("omaddr"))
					return true
				}
				return selfHost(s, m)
			},
		},
		{
			// N4 OzoneManager.java:2113 (WARN) on a re-run of --bootstrap.
			// Same text since ozone-1.4.0 (:1851 @1.4.0).
			Kind:     OMRemoteHasBootstrapNode,
			Source:   "hadoop-ozone/ozone-manager/.../om/OzoneManager.java:2113 (N4)",
			Loggers:  []string{"OzoneManager"},
			Literals: []string{"already contains bootstrapping OM("},
			Pattern: regexp.MustCompile(`^Remote OM (?P<remote>\S+) already contains bootstrapping OM\((?P<om>[^)\s]+)\) ` +
				`as part of its Raft group peers`),
			Post: selfHost,
		},
		{
			// L1 OzoneManagerRatisServer.java:338 (add). The new peer prints as
			// RaftPeer "{id}|{address}" (Ratis 3.x) or "{id}|rpc:{address}|..."
			// (2.x); the group as "group-X:[peers]". Same text since ozone-1.2.0
			// (:305 @1.2.0). RaftPeer: "{id}|rpc:{addr}|priority:{n}" in
			// ratis-2.2.0 (ozone-1.2.x), plus "|startupRole:{role}" in
			// ratis-2.4.0 (ozone-1.3.0), "{id}|{addr}" from ratis-3.0.0 (ozone-1.4.0+).
			Kind:     OMPeerChangeSubmitted,
			Source:   "hadoop-ozone/ozone-manager/.../om/ratis/OzoneManagerRatisServer.java:338 (L1)",
			Loggers:  []string{"OzoneManagerRatisServer"},
			Literals: []string{"Submitting SetConfiguration request to Ratis server to add new OM peer "},
			Pattern: regexp.MustCompile(`^(?P<leader>\S+): Submitting SetConfiguration request to Ratis server to add ` +
				`new OM peer (?P<om>[^\s|]+)\|(?:rpc:)?(?P<omaddr>[^\s|]*)\S* to the Ratis group ` + omGroupRe +
				`(?::(?P<peers>\[[^\]]*\]))?`),
			Post: func(s *Signal, m Groups) bool {
				s.Attrs = setAttr(s.Attrs, "op", "add")
				if h := AddressHost(m.Get("omaddr")); h != "" {
					s.Attrs["omhost"] = h
				}
				return true
			},
		},
		{
			// OzoneManagerRatisServer.java:362 (remove, F.3 decommission); same
			// text since ozone-1.3.0 (:342 @1.3.0).
			Kind:     OMPeerChangeSubmitted,
			Source:   "hadoop-ozone/ozone-manager/.../om/ratis/OzoneManagerRatisServer.java:362 (F.3)",
			Loggers:  []string{"OzoneManagerRatisServer"},
			Literals: []string{"Submitting SetConfiguration request to Ratis server to remove OM peer "},
			Pattern: regexp.MustCompile(`^(?P<leader>\S+): Submitting SetConfiguration request to Ratis server to remove ` +
				`OM peer (?P<om>\S+) from Ratis group ` + omGroupRe + `(?::(?P<peers>\[[^\]]*\]))?`),
			Post: func(s *Signal, m Groups) bool {
				s.Attrs = setAttr(s.Attrs, "op", "remove")
				return true
			},
		},
		{
			// L13 OzoneManagerRatisServer.java:428 "Failed to {} OM {} in Ratis
			// group {}. Ratis SetConfiguration reply: {}"; ozone-2.0.0
			// "Failed to add OM {} to Ratis group {}. ..." (:368 @2.0.0).
			//   A ozone-2.1.0..master "Failed to {add|remove} OM {} in Ratis group {}." (:421 @2.1.0)
			//   B ozone-1.2.0..2.0.0 "Failed to add OM {} to Ratis group {}." (:322 @1.2.0)
			//     and, from 1.3.0, "Failed to remove OM {} from Ratis group {}." (:359 @1.3.0)
			Kind:     OMPeerChangeFailed,
			Source:   "hadoop-ozone/ozone-manager/.../om/ratis/OzoneManagerRatisServer.java:428 (L13)",
			Loggers:  []string{"OzoneManagerRatisServer"},
			Literals: []string{"Ratis SetConfiguration reply: "},
			Pattern: regexp.MustCompile(`^Failed to (?P<op>add|remove) OM (?P<om>\S+) (?:in|to|from) Ratis group ` +
				omGroupRe + `\. Ratis SetConfiguration reply: (?P<_reply>[^\r\n]*)`),
			Post: func(s *Signal, m Groups) bool {
				if sub := omExceptionRe.FindStringSubmatch(m.Get("_reply")); sub != nil {
					s.Reason = sub[1]
				}
				return true
			},
		},
		{
			// L15 OzoneManagerRatisServer.java:426 "{} OM {} in Ratis group {}."
			// (operation "add"/"remove").
			//   A ozone-2.1.0..master "{add|remove} OM {} in Ratis group {}." (:419 @2.1.0)
			//   B ozone-1.2.0..2.0.0 "Added OM {} to Ratis group {}." (:320 @1.2.0,
			//     :366 @2.0.0) and, from 1.3.0, "Removed OM {} from Ratis group {}."
			//     (:356 @1.3.0, :399 @2.0.0)
			Kind:     OMPeerChanged,
			Source:   "hadoop-ozone/ozone-manager/.../om/ratis/OzoneManagerRatisServer.java:426 (L15); ≤2.0 :366, :399",
			Loggers:  []string{"OzoneManagerRatisServer"},
			Literals: []string{" in Ratis group ", "Added OM ", "Removed OM "},
			Pattern: regexp.MustCompile(`^(?:(?P<op>add|remove) OM (?P<om>\S+) in|Added OM (?P<om>\S+) to` +
				`|(?P<_removed>Removed) OM (?P<om>\S+) from) Ratis group ` + omGroupRe + `\.\s*$`),
			Post: func(s *Signal, m Groups) bool {
				switch {
				case m.Get("_removed") != "":
					s.Attrs = setAttr(s.Attrs, "op", "remove")
				case m.Get("op") == "":
					s.Attrs = setAttr(s.Attrs, "op", "add")
				}
				return true
			},
		},
		{
			// L2 ratis RaftServerImpl.java:1323 "{}: receive setConfiguration {}"
			// (SetConfigurationRequest.java:187-188 prints "servers:[...]").
			//   A ratis-2.4.0+ (ozone-1.3.0..master) "<request>, <mode>, servers:[..], listeners:[..]"
			//   B ratis-1.0.0..2.2.0 (ozone-1.0.0..1.2.x) "<request>, peers:[..]"
			//     (SetConfigurationRequest.java:41 @ratis-2.0.0)
			Kind:     OMSetConfReceived,
			Source:   "ratis-server/.../server/impl/RaftServerImpl.java:1323 (L2); @ratis-1.0.0 :747",
			Loggers:  ratisLoggers,
			Literals: []string{": receive setConfiguration "},
			Pattern:  regexp.MustCompile(`^` + omMemberRe + `: receive setConfiguration .*?(?:servers|peers):(?P<peers>\[[^\]]*\])`),
			Post:     notDatanodeOrSCM,
		},
		{
			// A2 OzoneManagerStateMachine.java:293-306 (StringBuilder, last two
			// characters trimmed: "..., New Listener list" without listeners).
			//   A ozone-2.1.0..master with "New Listener list" (:252 @2.1.0)
			//   B ozone-2.0.0 ends after the peers: "New Peer list: a(h:p), b(h:p)" (:219 @2.0.0)
			// Absent before ozone-2.0.0.
			Kind:     OMConfChanged,
			Source:   "hadoop-ozone/ozone-manager/.../om/ratis/OzoneManagerStateMachine.java:306 (A2); @2.0.0 :219",
			Loggers:  []string{"OzoneManagerStateMachine"},
			Literals: []string{"notifyConfigurationChanged from Ratis: "},
			Pattern: regexp.MustCompile(`^notifyConfigurationChanged from Ratis: term=(?P<term>\d+), index=(?P<index>-?\d+), ` +
				`New Peer list: (?P<peers>[^\r\n]*?)(?:,? New Listener list(?:: (?P<listeners>[^\r\n]*))?)?[ \t]*(?:\r?\n|\z)`),
			Post: func(s *Signal, m Groups) bool {
				s.Attrs = setAttr(s.Attrs, "peerlist", m.Get("peers"))
				return true
			},
		},
		{
			// A1/L5/N15 ratis ServerState.java:392 "{}: set configuration {}";
			// RaftConfigurationImpl prints "conf: {index: i, cur=C, old=O}"
			// from ratis-3.1.0 and "i: C, old=O" up to ratis-3.0.1.
			//   A ratis-3.1.0+ (ozone-1.4.1..master) "conf: {index: i, cur=peers:[..]|listeners:[..], old=..}"
			//   B ratis-2.4.0..3.0.1 (ozone-1.3.0, 1.4.0) "i: peers:[..]|listeners:[..], old=.."
			//   C ratis-2.0.0..2.2.0 (ozone-1.1.0..1.2.x) "i: [id|rpc:addr|..], old=.."
			//   D ratis-1.0.0 (ozone-1.0.0) "{}: set configuration {} at {}" =
			//     "i: [id:addr, ...], old=.. at i" (ServerState.java:356 @ratis-1.0.0)
			Kind:     OMRaftConfSet,
			Source:   "ratis-server/.../server/impl/ServerState.java:392 (A1, L5, N15)",
			Loggers:  ratisLoggers,
			Literals: []string{": set configuration "},
			Pattern: regexp.MustCompile(`^` + omMemberRe + `: set configuration ` +
				`(?:conf: \{index: (?P<index>-?\d+), cur=(?P<peers>` + omPeerConfRe + `), old=(?P<oldpeers>null|` + omPeerConfRe + `)\}` +
				`|(?P<index>-?\d+): (?P<peers>` + omPeerConfRe + `), old=(?P<oldpeers>null|` + omPeerConfRe + `))`),
			Post: func(s *Signal, m Groups) bool {
				if !notDatanodeOrSCM(s, m) {
					return false
				}
				s.Attrs = setAttr(s.Attrs, "peerlist", m.Get("peers"))
				if m.Get("oldpeers") != "null" {
					s.Attrs["transitional"] = "true"
				}
				return true
			},
		},
		{
			// L8 ratis RaftServerImpl.java:393 "{}: changes role from {} to {} at
			// term {} for {}"; the old role is RoleInfo "%9s" (padded), the
			// reason "StepDownReason:" + name (LeaderState.java:33-40). Same
			// text in every bundled Ratis (RaftServerImpl.java:185 @ratis-1.0.0).
			Kind:     OMRoleChanged,
			Source:   "ratis-server/.../server/impl/RaftServerImpl.java:393 (L8)",
			Loggers:  ratisLoggers,
			Literals: []string{": changes role from "},
			Pattern: regexp.MustCompile(`^` + omMemberRe + `: changes role from\s+(?P<state>[A-Z]+) to (?P<to>[A-Z]+) ` +
				`at term (?P<term>\d+) for (?:StepDownReason:)?(?P<reason>\S+)`),
			Post: notDatanodeOrSCM,
		},
	}
}

// selfHost records the logging host as the host of the OM node the line
// names: the OM logs it about itself.
func selfHost(s *Signal, _ Groups) bool {
	if s.OMNode != "" && s.Host != "" {
		s.Attrs = setAttr(s.Attrs, "omhost", s.Host)
	}
	return true
}

// notDatanodeOrSCM drops Ratis lines logged by datanodes and SCMs: the OM
// ring entries are about OM Ratis groups only.
func notDatanodeOrSCM(s *Signal, _ Groups) bool {
	return s.Component != parsers.ComponentDatanode && s.Component != parsers.ComponentSCM
}

func setAttr(attrs map[string]string, k, v string) map[string]string {
	if attrs == nil {
		attrs = map[string]string{}
	}
	attrs[k] = v
	return attrs
}

// PeerAddress is one peer of a configuration: its Raft peer ID and its
// address as printed ("om1.example.com:9872").
type PeerAddress struct {
	ID   string
	Addr string
}

// Host returns the host part of the peer's address.
func (p PeerAddress) Host() string { return AddressHost(p.Addr) }

// ParsePeerAddresses reads a peer list with addresses in any rendering
// Ozone and Ratis use: "peers:[a|h:p, b|h:p]|listeners:[]", "[a|rpc:h:p|
// admin:...|priority:1, ...]", "a(h:p), b(h:p)", "group-X:[a|h:p]", and
// ratis-1.0.0's "[a:h:p, b:h:p]" (RaftPeer.toString = id + ":" + address).
// Peers without an address keep an empty Addr.
func ParsePeerAddresses(v string) []PeerAddress {
	if i := strings.Index(v, "|listeners:"); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "group-") {
		if i := strings.IndexByte(v, ':'); i >= 0 {
			v = v[i+1:]
		}
	}
	v = strings.TrimPrefix(v, "peers:")
	var out []PeerAddress
	for _, p := range splitList(v) {
		p = strings.TrimSpace(p)
		var id, addr string
		switch i := strings.IndexAny(p, "|("); {
		case i < 0:
			id, addr, _ = strings.Cut(p, ":")
		case p[i] == '(':
			id, addr = p[:i], strings.TrimSuffix(p[i+1:], ")")
		default:
			id, addr = p[:i], p[i+1:]
			addr = strings.TrimPrefix(addr, "rpc:")
			if j := strings.IndexByte(addr, '|'); j >= 0 {
				addr = addr[:j]
			}
		}
		if id = strings.TrimSpace(id); id != "" && id != "null" {
			out = append(out, PeerAddress{ID: id, Addr: strings.TrimSpace(addr)})
		}
	}
	return out
}

// AddressHost returns the host of an address as Ratis or Java print it:
// "host:port", "host/ip:port", "/ip:port", "[v6]:port"; "" when there is none.
func AddressHost(addr string) string {
	addr = strings.TrimSpace(strings.TrimPrefix(addr, "rpc:"))
	if strings.HasPrefix(addr, "[") {
		if i := strings.IndexByte(addr, ']'); i > 0 {
			return addr[1:i]
		}
	}
	if i := strings.IndexByte(addr, '/'); i >= 0 {
		if i == 0 {
			addr = addr[1:]
		} else {
			addr = addr[:i]
		}
	}
	if i := strings.LastIndexByte(addr, ':'); i >= 0 && strings.Count(addr, ":") == 1 {
		addr = addr[:i]
	}
	return addr
}

func isIPAddress(h string) bool {
	if strings.Contains(h, ":") { // IPv6
		return strings.Trim(strings.ToLower(h), "0123456789abcdef:") == ""
	}
	return strings.Count(h, ".") == 3 && strings.Trim(h, "0123456789.") == ""
}
