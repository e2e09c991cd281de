package pausestale

import (
	"fmt"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
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
// They are derived from the settings again whenever these change (the
// engine learns ozone-site.xml and STARTUP_MSG conf as the run flows); the
// intervals the SCM itself reset stay as it reset them.
type config struct {
	stale, dead, hb, rpc, thread, close threshold
	minBurst                            int
	gen                                 int       // settings generation the intervals come from
	resetStale, resetDead               threshold // intervals the SCM reset (zero: none)
}

func newConfig(env *detectors.Env) (config, error) {
	var c config
	if err := c.derive(env.Settings); err != nil {
		return c, err
	}
	n, _, err := doc().Int(env, "min_burst_nodes")
	if err != nil {
		return c, err
	}
	c.minBurst = n
	return c, nil
}

// derive reads the intervals from the settings. Invalid intervals are an
// error and leave c as it was.
func (c *config) derive(s *site.Config) error {
	get := func(key string) threshold {
		d, src := s.Duration(key, time.Millisecond)
		return threshold{d, detectors.ShortSource(src)}
	}
	n := *c
	n.stale, n.dead, n.hb, n.rpc, n.thread, n.close = get(keyStale), get(keyDead), get(keyHB), get(keyRPC), get(keyThread), get(keyClose)
	if n.close.d <= 0 {
		n.close = threshold{60 * time.Second, "Ratis default"}
	}
	for _, t := range []threshold{n.stale, n.dead, n.hb, n.thread} {
		if t.d <= 0 {
			return fmt.Errorf("interval %s: not a positive duration", t)
		}
	}
	if n.resetStale.d > 0 {
		n.stale = n.resetStale
	}
	if n.resetDead.d > 0 {
		n.dead = n.resetDead
	}
	n.gen = s.Generation()
	*c = n
	return nil
}

// refresh re-derives the intervals when the settings changed since; a
// change to invalid values keeps the previous ones.
func (c *config) refresh(s *site.Config) {
	if g := s.Generation(); g != c.gen {
		if c.derive(s) != nil {
			c.gen = g
		}
	}
}

// reset applies an interval the SCM itself reset (ServerUtils sanity rule).
func (c *config) reset(s *catalogue.Signal) {
	if s.Duration <= 0 {
		return
	}
	t := threshold{s.Duration, "reset by the SCM on " + s.Host}
	switch s.Attrs["key"] {
	case keyStale:
		c.stale, c.resetStale = t, t
	case keyDead:
		c.dead, c.resetDead = t, t
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
