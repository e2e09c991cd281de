// Package scenario renders the logs of generated Ozone clusters, from the
// templates in shared/ozone, deterministically from a seed: background noise,
// defect sequences, every supported layout, rotation, gzip, CRLF and clock
// skew. Tests, benchmarks and the shipped sample bundle are built with it.
//
// A Scenario collects Lines at true event times; Render writes them per host
// in a layout, adding each host's clock skew. Defect scripts (hdds*.go) add
// the lines of one defect occurrence or of a near miss.
package scenario

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Node is one host of a generated cluster.
type Node struct {
	Host      string // FQDN, e.g. "dn1.example.com"
	IP        string
	Component parsers.Component
	UUID      string // datanode UUID (datanodes), scmId (SCMs)
	ID        string // OM node ID ("omNode-1"), SCM node ID ("scm1")
}

// Short returns the host's first label ("dn1").
func (n Node) Short() string { return strings.SplitN(n.Host, ".", 2)[0] }

// Details renders the node as Ozone prints DatanodeDetails: "<uuid>(<host>/<ip>)".
func (n Node) Details() string { return n.UUID + "(" + n.Host + "/" + n.IP + ")" }

// Cluster is the set of hosts of a scenario.
type Cluster struct {
	Version   string // Ozone version printed in STARTUP_MSG
	SCMs      []Node
	OMs       []Node
	Datanodes []Node
	OMService string // OM service ID
	OMGroup   string // OM Raft group ID, "group-XXXXXXXXXXXX"
}

// Nodes returns every node, SCMs first.
func (c Cluster) Nodes() []Node {
	var all []Node
	all = append(all, c.SCMs...)
	all = append(all, c.OMs...)
	return append(all, c.Datanodes...)
}

// Node returns the node with the given host (FQDN or short name).
func (c Cluster) Node(host string) (Node, bool) {
	for _, n := range c.Nodes() {
		if n.Host == host || n.Short() == host {
			return n, true
		}
	}
	return Node{}, false
}

// NewCluster makes a cluster with the given numbers of SCMs, OMs and datanodes.
func NewCluster(rng *rand.Rand, scms, oms, dns int) Cluster {
	c := Cluster{Version: "2.2.0", OMService: "omservice", OMGroup: GroupID(UUID(rng))}
	for i := 1; i <= scms; i++ {
		c.SCMs = append(c.SCMs, Node{Host: fmt.Sprintf("scm%d.example.com", i), IP: fmt.Sprintf("10.0.0.%d", i),
			Component: parsers.ComponentSCM, UUID: UUID(rng), ID: fmt.Sprintf("scm%d", i)})
	}
	for i := 1; i <= oms; i++ {
		c.OMs = append(c.OMs, Node{Host: fmt.Sprintf("om%d.example.com", i), IP: fmt.Sprintf("10.0.1.%d", i),
			Component: parsers.ComponentOM, ID: fmt.Sprintf("omNode-%d", i)})
	}
	for i := 1; i <= dns; i++ {
		c.Datanodes = append(c.Datanodes, Node{Host: fmt.Sprintf("dn%d.example.com", i), IP: fmt.Sprintf("10.0.2.%d", i),
			Component: parsers.ComponentDatanode, UUID: UUID(rng)})
	}
	return c
}

// UUID returns a random lower-case UUID from rng.
func UUID(rng *rand.Rand) string {
	b := make([]byte, 16)
	rng.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// GroupID renders a Raft group ID from a UUID: "group-" and the last 12 hex
// digits, upper case (ratis RaftGroupId.java:63).
func GroupID(uuid string) string {
	hex := strings.ReplaceAll(uuid, "-", "")
	return "group-" + strings.ToUpper(hex[len(hex)-12:])
}

// Line is one record to render.
type Line struct {
	At     time.Time // true event time; rendering adds the host's skew
	Host   string    // the node's Host
	Level  parsers.Level
	Logger string // full logger name; layouts abbreviate it
	Thread string
	Msg    string       // may span lines (stack traces, banners)
	Source string       // "File.java:line" of the LOG call, for layouts that print it (L4-L6)
	File   parsers.Kind // KindLog (default), KindOut (raw stdout/stderr), KindContainer, KindAudit
}

// Scenario is a cluster and the lines its hosts log.
type Scenario struct {
	Cluster Cluster
	Start   time.Time
	End     time.Time
	Rand    *rand.Rand
	Site    map[string]string // ozone-site.xml properties written into the bundle (nil: no file)
	lines   []Line
}

// New starts a scenario over [start, start+dur) for cluster, seeded.
func New(seed int64, start time.Time, dur time.Duration, c Cluster) *Scenario {
	return &Scenario{Cluster: c, Start: start, End: start.Add(dur), Rand: rand.New(rand.NewSource(seed))}
}

// Add records a line.
func (s *Scenario) Add(l Line) {
	if l.File == "" {
		l.File = parsers.KindLog
	}
	s.lines = append(s.lines, l)
}

// Lines returns the lines of host (all hosts when host is ""), in event-time
// order (stable for equal times).
func (s *Scenario) Lines(host string) []Line {
	var out []Line
	for _, l := range s.lines {
		if host == "" || l.Host == host {
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}
