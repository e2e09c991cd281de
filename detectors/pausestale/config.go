package pausestale

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Settings the detector judges against (signatures-scm.md §1.2).
const (
	keyStale  = "ozone.scm.stale.node.interval"
	keyDead   = "ozone.scm.dead.node.interval"
	keyHB     = "hdds.heartbeat.interval"
	keyRPC    = "ozone.scm.heartbeat.rpc-timeout"
	keyThread = "ozone.scm.heartbeat.thread.interval"
	// keyClose is Ratis' raft.server.close.threshold under the SCM's Ratis
	// prefix (RatisUtil.java:78-80); Ratis' default is 60s.
	keyClose = "ozone.scm.ha.raft.server.close.threshold"
)

// threshold is a duration and where it came from.
type threshold struct {
	d   time.Duration
	src string
}

func (t threshold) String() string { return fmt.Sprintf("%s (%s)", t.d, t.src) }

// config holds the intervals in effect and the windows derived from them.
type config struct {
	stale, dead, hb, rpc, thread, close threshold
	minBurst                            int
}

func newConfig(env *detectors.Env) (config, error) {
	get := func(key string) threshold {
		d, src := env.Settings.Duration(key, time.Millisecond)
		return threshold{d, shortSource(src)}
	}
	c := config{stale: get(keyStale), dead: get(keyDead), hb: get(keyHB), rpc: get(keyRPC), thread: get(keyThread), close: get(keyClose)}
	if c.close.d <= 0 {
		c.close = threshold{60 * time.Second, "Ratis default"}
	}
	for _, t := range []threshold{c.stale, c.dead, c.hb, c.thread} {
		if t.d <= 0 {
			return c, fmt.Errorf("interval %s: not a positive duration", t)
		}
	}
	n, err := strconv.Atoi(env.Option("min_burst_nodes", "2"))
	if err != nil || n < 1 {
		return c, fmt.Errorf("option min_burst_nodes: want a positive integer, got %q", env.Option("min_burst_nodes", "2"))
	}
	c.minBurst = n
	return c, nil
}

// reset applies an interval the SCM itself reset (ServerUtils sanity rule).
func (c *config) reset(s *catalogue.Signal) {
	if s.Duration <= 0 {
		return
	}
	t := threshold{s.Duration, "reset by the SCM on " + s.Host}
	switch s.Attrs["key"] {
	case keyStale:
		c.stale = t
	case keyDead:
		c.dead = t
	}
}

// holdoff is how long datanodes need after a pause to heartbeat again: one
// heartbeat interval plus the heartbeat RPC timeout (35s by default).
func (c *config) holdoff() time.Duration { return c.hb.d + c.rpc.d }

// returnWindow is how soon after its STALE/DEAD transition a live datanode
// is back: the hold-off plus two health checks (to HEALTHY READONLY, then
// HEALTHY).
func (c *config) returnWindow() time.Duration { return c.holdoff() + 2*c.thread.d }

// tolerance absorbs the order of lines logged at the same moment by
// different threads (and layouts without milliseconds).
func (c *config) tolerance() time.Duration { return c.thread.d + 2*time.Second }

// minPause is the shortest pause that can make a live datanode STALE: its
// last heartbeat may be up to the hold-off old when the pause starts.
func (c *config) minPause() time.Duration {
	return max(c.stale.d-c.holdoff(), c.stale.d/2)
}

// facts records the thresholds used and their sources.
func (c *config) facts(f map[string]string) {
	f["stale_interval"] = c.stale.String()
	f["dead_interval"] = c.dead.String()
	f["heartbeat_interval"] = c.hb.String()
	f["heartbeat_rpc_timeout"] = c.rpc.String()
	f["health_check_interval"] = c.thread.String()
	f["hold_off"] = c.holdoff().String() + " (heartbeat interval + RPC timeout)"
}

// shortSource shortens a file path inside a setting's source label, e.g.
// "ozone-site.xml (/tmp/b/scm1/ozone-site.xml)" to
// "ozone-site.xml (scm1/ozone-site.xml)": the host directory and the file
// name are what a reader needs.
func shortSource(src string) string {
	open, end := strings.IndexByte(src, '('), strings.LastIndexByte(src, ')')
	if open < 0 || end < open {
		return src
	}
	inner := src[open+1 : end]
	if !strings.Contains(inner, "/") || strings.ContainsAny(inner, " ") {
		return src
	}
	p := strings.TrimRight(inner, "/")
	dir, file := path.Split(p)
	if host := path.Base(strings.TrimRight(dir, "/")); host != "." && host != "/" && host != "" {
		file = host + "/" + file
	}
	return src[:open+1] + file + src[end:]
}
