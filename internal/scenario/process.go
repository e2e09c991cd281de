package scenario

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// ServiceClass is the class a component's STARTUP_MSG/SHUTDOWN_MSG banner
// names (signatures-dn-om.md C.3).
func ServiceClass(c parsers.Component) string {
	switch c {
	case parsers.ComponentSCM:
		return "StorageContainerManager"
	case parsers.ComponentOM:
		return "OzoneManager"
	case parsers.ComponentDatanode:
		return "HddsDatanodeService"
	}
	return ""
}

// StarterLogger is the logger a component's banners, signal handler
// registration and RECEIVED SIGNAL lines are logged with (signatures-dn-om.md
// C.3, C.4; signatures-scm.md §4.1).
func StarterLogger(c parsers.Component) string {
	switch c {
	case parsers.ComponentSCM:
		return "org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter"
	case parsers.ComponentOM:
		return "org.apache.hadoop.ozone.om.OzoneManagerStarter"
	case parsers.ComponentDatanode:
		return "org.apache.hadoop.ozone.HddsDatanodeService"
	}
	return ""
}

// ThreadPrefix is what Ozone puts before an SCM's thread names: "<scm node
// ID>-" when the SCMs run with HA node IDs, else nothing
// (HddsUtils.threadNamePrefix, signatures-scm.md §0.2). For a datanode it is
// "<uuid>-", the prefix of its Ratis and command-handler pools
// (signatures-dn-om.md §0). OMs have none.
func (c Cluster) ThreadPrefix(n Node) string {
	switch n.Component {
	case parsers.ComponentSCM:
		if len(c.SCMs) > 1 && n.ID != "" {
			return n.ID + "-"
		}
	case parsers.ComponentDatanode:
		if n.UUID != "" {
			return n.UUID + "-"
		}
	}
	return ""
}

// ClusterUUID is the cluster ID's UUID, derived from the SCMs' IDs so that
// it is stable for a cluster. The cluster ID prints as "CID-<uuid>".
func (c Cluster) ClusterUUID() string {
	h := fnv.New128a()
	for _, n := range c.SCMs {
		fmt.Fprintf(h, "%s|%s;", n.Host, n.UUID)
	}
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x40 // version 4 layout, as java.util.UUID.randomUUID prints
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// SCMGroup is the SCMs' Raft group: SCM HA uses the cluster ID's UUID as the
// group ID, printed "group-" + its last 12 hex digits (RaftGroupId.java:63).
func (c Cluster) SCMGroup() string { return GroupID(c.ClusterUUID()) }

// MemberID renders a Raft group member as Ratis prints RaftGroupMemberId:
// "<peerId>@<groupId>" (RaftGroupMemberId.java:39). The peer ID is the
// datanode UUID, the SCM's scmId (its UUID) or the OM node ID.
func MemberID(n Node, group string) string {
	peer := n.UUID
	if n.Component == parsers.ComponentOM {
		peer = n.ID
	}
	return peer + "@" + group
}

// Build facts printed in STARTUP_MSG. They are illustrative values of the
// shape HddsServerUtil prints (signatures-dn-om.md C.3).
const (
	startupJava      = "17.0.15"
	startupBuildRepo = "https://github.com/apache/ozone.git"
	bannerRule       = "************************************************************" // 60 '*' (HddsServerUtil.java:817-825)
)

// startupClasspath is a short, real-shaped classpath for STARTUP_MSG.
func startupClasspath(version string) string {
	jars := []string{
		"/opt/hadoop/etc/hadoop",
		"/opt/hadoop/share/ozone/lib/hdds-common-" + version + ".jar",
		"/opt/hadoop/share/ozone/lib/hdds-server-framework-" + version + ".jar",
		"/opt/hadoop/share/ozone/lib/hdds-container-service-" + version + ".jar",
		"/opt/hadoop/share/ozone/lib/hdds-server-scm-" + version + ".jar",
		"/opt/hadoop/share/ozone/lib/ozone-manager-" + version + ".jar",
		"/opt/hadoop/share/ozone/lib/ratis-server-3.2.1.jar",
		"/opt/hadoop/share/ozone/lib/ratis-grpc-3.2.1.jar",
		"/opt/hadoop/share/ozone/lib/hadoop-common-3.4.3.jar",
		"/opt/hadoop/share/ozone/lib/reload4j-1.2.26.jar",
	}
	return strings.Join(jars, ":")
}

// buildRevision is a stable 40-hex revision for a version string.
func buildRevision(version string) string {
	h := fnv.New128a()
	h.Write([]byte("ozone-" + version))
	a := fmt.Sprintf("%x", h.Sum(nil))
	h.Write([]byte("rev"))
	return (a + fmt.Sprintf("%x", h.Sum(nil)))[:40]
}

// bannerItems wraps items in STARTUP_MSG/SHUTDOWN_MSG form: a first line
// "<prefix> " (one trailing space), the "/****" rule, each item behind the
// prefix, the closing rule (HddsServerUtil.toStartupShutdownString,
// HddsServerUtil.java:817-825).
func bannerItems(prefix string, items ...string) string {
	var b strings.Builder
	b.WriteString(prefix + " \n/" + bannerRule)
	for _, it := range items {
		b.WriteString("\n" + prefix + " " + it)
	}
	b.WriteString("\n" + bannerRule + "/")
	return b.String()
}

// confItem renders the STARTUP_MSG "conf = {...}" body from site settings,
// keys sorted, as a Java map prints: "{k1=v1, k2=v2}".
func confItem(site map[string]string) string {
	keys := slices.Sorted(maps.Keys(site))
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + site[k]
	}
	return "{" + strings.Join(pairs, ", ") + "}"
}

// Startup logs the STARTUP_MSG banner of node n at at, followed 1 ms later
// by the signal-handler registration line. args is what the command line
// passed ("--bootstrap", "--bootstrap, --force", or "" for none); it prints
// as Arrays.toString ("[--bootstrap]"). The banner carries
// "conf = {...}" from s.Site when it is set.
func (s *Scenario) Startup(n Node, at time.Time, args string) {
	args = strings.TrimSpace(args)
	if !strings.HasPrefix(args, "[") {
		args = "[" + args + "]"
	}
	version := s.Cluster.Version
	items := []string{
		"Starting " + ServiceClass(n.Component),
		"       host = " + n.Host + "/" + n.IP,
		"    version = " + version,
		"      build = " + startupBuildRepo + "/" + buildRevision(version),
		"       java = " + startupJava,
		"       args = " + args,
		"  classpath = " + startupClasspath(version),
	}
	if s.Site != nil {
		items = append(items, "       conf = "+confItem(s.Site))
	}
	// B37 / N1: STARTUP_MSG banner, HddsServerUtil.java:794 (C.3; item
	// strings HddsServerUtil.java:837-845).
	s.Add(Line{At: at, Host: n.Host, Level: parsers.LevelInfo, Logger: StarterLogger(n.Component), Thread: "main",
		Source: "HddsServerUtil.java:794", Msg: bannerItems("STARTUP_MSG:", items...)})
	// N2: hadoop SignalLogger registration (signatures-dn-om.md B.1; line not pinned).
	s.Add(Line{At: at.Add(time.Millisecond), Host: n.Host, Level: parsers.LevelInfo, Logger: StarterLogger(n.Component),
		Thread: "main", Source: "SignalLogger.java:0", Msg: "registered UNIX signal handlers for [TERM, HUP, INT]"})
}

// Shutdown logs the SHUTDOWN_MSG banner of node n at at, on the JVM
// shutdown-hook thread (signatures-dn-om.md C.3, N19).
func (s *Scenario) Shutdown(n Node, at time.Time) {
	// N19 / C.3: SHUTDOWN_MSG banner, HddsServerUtil.java:805-808.
	s.Add(Line{At: at, Host: n.Host, Level: parsers.LevelInfo, Logger: StarterLogger(n.Component),
		Thread: "shutdown-hook-0", Source: "HddsServerUtil.java:805",
		Msg: bannerItems("SHUTDOWN_MSG:", "Shutting down "+ServiceClass(n.Component)+" at "+n.Host+"/"+n.IP)})
}

// signalNumbers are the signals Hadoop's SignalLogger handles.
var signalNumbers = map[string]int{"TERM": 15, "HUP": 1, "INT": 2}

// Signal logs "RECEIVED SIGNAL <n>: SIG<name>" (ERROR, the starter's
// logger, the JVM's signal thread) for sig "TERM", "SIGTERM", "HUP" or
// "INT" (signatures-dn-om.md C.4). An operator's "ozone --daemon stop" is
// Signal(TERM) followed by Shutdown.
func (s *Scenario) Signal(n Node, at time.Time, sig string) {
	name := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(sig)), "SIG")
	num, ok := signalNumbers[name]
	if !ok {
		num = 15
		name = "TERM"
	}
	// C.4: hadoop SignalLogger "RECEIVED SIGNAL {n}: SIG{name}" (ERROR).
	s.Add(Line{At: at, Host: n.Host, Level: parsers.LevelError, Logger: StarterLogger(n.Component),
		Thread: "SIG" + name + " handler", Source: "SignalLogger.java:0",
		Msg: fmt.Sprintf("RECEIVED SIGNAL %d: SIG%s", num, name)})
}

// StartCluster logs a startup banner for every node, SCMs first, then OMs,
// then datanodes, 1.5 s apart from at on (no arguments).
func (s *Scenario) StartCluster(at time.Time) {
	for i, n := range s.Cluster.Nodes() {
		s.Startup(n, at.Add(time.Duration(i)*1500*time.Millisecond), "")
	}
}

// KindQuiet marks a Line that is not rendered: it says host is silent from
// At until the time in Msg (RFC 3339), e.g. a paused JVM. Background lines
// (Render's Noise, Scenario.Noise) leave quiet hosts alone, and a quiet
// datanode sends no heartbeats. Add quiet periods with Scenario.Quiet.
const KindQuiet parsers.Kind = "quiet"

// Quiet marks host (FQDN or short name) silent over [from, to): background
// lines skip it there. Lines added explicitly are still rendered. Stopped
// processes need no Quiet: a host is silent between its SHUTDOWN_MSG and its
// next STARTUP_MSG, and before a first STARTUP_MSG not preceded by a
// SHUTDOWN_MSG.
func (s *Scenario) Quiet(host string, from, to time.Time) {
	if n, ok := s.Cluster.Node(host); ok {
		host = n.Host
	}
	s.Add(Line{At: from, Host: host, File: KindQuiet, Msg: to.Format(time.RFC3339Nano)})
}
