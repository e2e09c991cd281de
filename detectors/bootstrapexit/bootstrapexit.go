package bootstrapexit

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Registration is the detector's registration.
var Registration = detectors.Registration{Doc: doc(), New: newDetector}

// Bounds on the detector's state.
const (
	maxHosts    = 64  // OM hosts followed
	maxNodes    = 256 // OM node IDs whose host or leader-side lines are kept
	maxAttempts = 32  // failed bootstraps followed at once
	maxRecent   = 64  // ring-wide lines kept for attempts recognised later
	maxPerList  = 8   // lines of one sort kept per host, node or attempt
	maxIPs      = 4 * maxHosts
)

// horizon is the detector's Doc.Horizon (doc.go says why).
const horizon = 24 * time.Hour

// omHost is what is known about one OM host.
type omHost struct {
	name   string // as the bundle names it
	ip     string // from STARTUP_MSG
	run    *run   // the current OM process
	hasOut bool
	// outError is the newest bootstrap error of the host's .out files
	// (only the newest is reported).
	outError catalogue.Signal
}

// run is one OM process on a host, from its STARTUP_MSG.
type run struct {
	startup      *catalogue.Signal
	bootstrap    bool
	stop         *catalogue.Signal // RECEIVED SIGNAL or Terminating: the process did not end by itself
	transitional *catalogue.Signal // "set configuration" with old != null listing the node (N15)
	attempt      int               // the failed bootstrap of this run: its ID in detector.attempts, 0 for none
	remoteHas    *catalogue.Signal // N4: the pre-check found the ring already lists the node
	// superseded is the host's earlier failed bootstrap that this run's
	// start closed silently: the ring had not listed the node by then. The
	// run's N4 reopens it (the ring held the node before this run).
	superseded int
}

// attempt is one bootstrapping OM that exited after "Failed to Bootstrap OM.".
type attempt struct {
	id           int
	key          string // the finding's key, fixed at the first emission
	host         string // host key
	hostName     string
	ip           string
	node         string // learned lazily when unknown at the failure
	startup      *catalogue.Signal
	failed       catalogue.Signal
	shutdown     *catalogue.Signal
	transitional *catalogue.Signal
	runStart     time.Time
	retry        time.Time // start of the host's next OM run after the failure; zero while none

	// The ring's side, from the other OMs.
	listed       *detectors.Bounded[string, bool] // latest status per host that listed the node
	firstListing []catalogue.Signal
	lastListing  *catalogue.Signal
	unlisting    *catalogue.Signal // a host that listed the node applied a configuration without it
	remoteHas    *catalogue.Signal // N4 on a re-run
	stepDowns    []catalogue.Signal
	received     []catalogue.Signal // leader "receive setConfiguration" listing the node
	covered      bool               // other OMs logged after the exit
	termWithout  int64              // highest term of an applied configuration of another OM that does not list the node

	reruns     []catalogue.Signal // later bootstrap runs of the host and their failures
	resolution *catalogue.Signal
	resolvedBy string
	emitted    bool // reported critical
	warned     bool // reported as a warning: the ring's side was not seen by the deadline
	closed     bool
}

// ringNode holds the leader-side lines naming one OM node.
type ringNode struct {
	submits  []catalogue.Signal // add requests (L1)
	failures []catalogue.Signal // failed replies (L13)
	added    []catalogue.Signal // successful adds (L15)
	removed  []catalogue.Signal // remove requests and successful removes
}

type detector struct {
	env    *detectors.Env `state:"-"`
	tol    time.Duration
	tolSrc string

	hosts    *detectors.Bounded[string, *omHost]   // by host key
	nodeHost *detectors.Bounded[string, string]    // node ID -> host key, from the OMs' own lines and peer lists
	ipHost   *detectors.Bounded[string, string]    // IP -> host key, from STARTUP_MSG
	rings    *detectors.Bounded[string, *ringNode] // by node ID
	recent   *detectors.Ring[catalogue.Signal]     // applied configurations, role changes, setConfiguration requests
	attempts *detectors.Bounded[int, *attempt]     // by ID, oldest first
	lastID   int
	reported int // attempts reported so far: the number in a finding's key
	sweep    detectors.Sweep
}

func newDetector(env *detectors.Env) (detectors.Detector, error) {
	d := &detector{env: env, tolSrc: "default",
		hosts:    detectors.NewBounded[string, *omHost](maxHosts, detectors.EvictOldest),
		nodeHost: detectors.NewBounded[string, string](maxNodes, detectors.EvictOldest),
		ipHost:   detectors.NewBounded[string, string](maxIPs, detectors.EvictLeastRecent),
		rings:    detectors.NewBounded[string, *ringNode](maxNodes, detectors.EvictOldest),
		recent:   detectors.NewRing[catalogue.Signal](maxRecent),
		attempts: detectors.NewBounded[int, *attempt](maxAttempts, detectors.EvictOldest)}
	tol, set, err := doc().Duration(env, "clock_tolerance")
	if err != nil {
		return nil, err
	}
	d.tol = tol
	if set {
		d.tolSrc = "option clock_tolerance"
	}
	return d, nil
}

// StateStats implements detectors.Detector.
func (d *detector) StateStats() []detectors.StateStat {
	return []detectors.StateStat{d.hosts.Stat("om hosts"), d.nodeHost.Stat("om node hosts"), d.ipHost.Stat("om addresses"),
		d.rings.Stat("leader-side lines by node"), d.recent.Stat("ring-wide lines"), d.attempts.Stat("failed bootstraps")}
}

// attempt returns the attempt with id, or nil (0, or evicted).
func (d *detector) attempt(id int) *attempt {
	a, _ := d.attempts.Get(id)
	return a
}

// decideAfter is how long after the exit the detector waits for the ring's
// side before it reports the exit as a warning: thirty clock tolerances
// (15m by default). The leader commits or fails the configuration within
// seconds and the other OMs log it on clocks apart by the tolerance; the
// rest leaves room for an operator's re-run of the bootstrap, which judges
// the exit differently (a failure the ring did not take stays quiet).
func (d *detector) decideAfter() time.Duration { return 30 * max(d.tol, time.Second) }

// hostKey names a host the same way whether it comes from a file name
// ("om4.example.com"), a message or a docker-compose service ("om4_1").
func hostKey(h string) string {
	h = detectors.HostKey(h)
	if i := strings.LastIndexByte(h, '_'); i > 0 {
		if _, err := strconv.Atoi(h[i+1:]); err == nil {
			h = h[:i]
		}
	}
	return h
}

func (d *detector) host(name string) *omHost {
	k := hostKey(name)
	if h, ok := d.hosts.Get(k); ok {
		return h
	}
	h := &omHost{name: name}
	d.hosts.Put(k, h)
	return h
}

func (d *detector) learnNode(node, host string) {
	if node == "" || host == "" {
		return
	}
	k := hostKey(host)
	if hk, ok := d.ipHost.Get(host); ok { // an address printed as an IP
		k = hk
	}
	d.nodeHost.Put(node, k)
}

func (d *detector) ring(node string) *ringNode {
	if r, ok := d.rings.Get(node); ok {
		return r
	}
	r := &ringNode{}
	d.rings.Put(node, r)
	return r
}

// nodeOf returns the OM node ID of an attempt's host, or "".
func (d *detector) nodeOf(a *attempt) string {
	if a.node != "" {
		return a.node
	}
	for node, host := range d.nodeHost.All() {
		if host == a.host {
			a.node = node
			return node
		}
	}
	if n := d.env.Identity.OMOnHost(a.hostName); n != "" {
		a.node = n
	}
	return a.node
}

// isOM reports whether a signal comes from an OM.
func (d *detector) isOM(s *catalogue.Signal) bool { return s.Component == parsers.ComponentOM }

func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	switch s.Kind {
	case catalogue.StartupMsg:
		if s.Attrs["service"] == "OzoneManager" {
			d.startup(s, emit)
		}
		return
	case catalogue.OMBootstrapError:
		if h := d.host(s.Host); !h.hasOut || !outNewer(&h.outError, s) {
			h.outError, h.hasOut = *s, true
		}
		return
	}
	if !d.isOM(s) {
		return
	}
	d.learn(s)
	for _, a := range d.attempts.All() {
		if !a.closed && hostKey(s.Host) != a.host && s.Time.After(a.failed.Time.Add(d.tol)) {
			a.covered = true
		}
	}
	h := d.host(s.Host)
	switch s.Kind {
	case catalogue.SignalReceived, catalogue.Terminating:
		if h.run == nil { // STARTUP_MSG not in the bundle
			h.run = &run{}
		}
		if h.run.stop == nil {
			h.run.stop = clone(s)
		}
	case catalogue.OMBootstrapFailed:
		d.failed(h, s, emit)
	case catalogue.ShutdownMsg:
		if svc := s.Attrs["service"]; svc != "" && svc != "OzoneManager" {
			return
		}
		if a := d.runAttempt(h.run); a != nil && a.shutdown == nil && h.run.stop == nil {
			a.shutdown = clone(s)
		}
		h.run = nil
	case catalogue.OMRatisStarting:
		if h.run == nil || h.run.attempt != 0 { // an OM start whose STARTUP_MSG is not in the bundle
			h.run = &run{}
			if a := d.open(hostKey(s.Host)); a != nil && s.Time.After(a.failed.Time) {
				d.rerun(h, a, s, emit)
			}
		}
	case catalogue.OMBootstrapped:
		if a := d.open(hostKey(s.Host)); a != nil && a.failed.Time.Before(s.Time) {
			if !a.emitted { // the bundle lacks the run's start: a successful bootstrap stays quiet (F.4)
				if a.warned {
					d.resolve(a, s, "the OM was bootstrapped again and joined the ring", emit)
				}
				a.closed = true
				return
			}
			d.resolve(a, s, "the OM was bootstrapped again and joined the ring", emit)
		}
	case catalogue.OMRemoteHasBootstrapNode:
		d.remoteHas(h, s, emit)
	case catalogue.OMRaftConfSet:
		if s.Attrs["transitional"] == "true" {
			if h.run != nil && h.run.transitional == nil && h.run.attempt == 0 {
				h.run.transitional = clone(s)
			}
			return
		}
		d.ringWide(s, emit)
	case catalogue.OMConfChanged, catalogue.OMRoleChanged, catalogue.OMSetConfReceived:
		d.ringWide(s, emit)
	case catalogue.OMPeerChangeSubmitted, catalogue.OMPeerChangeFailed, catalogue.OMPeerChanged:
		d.leaderSide(s, emit)
	}
}

// learn records the node ID <-> host pairs a signal shows.
func (d *detector) learn(s *catalogue.Signal) {
	switch s.Kind {
	case catalogue.OMRatisStarting, catalogue.OMStopping, catalogue.OMBootstrapped, catalogue.OMRemoteHasBootstrapNode:
		d.learnNode(s.OMNode, s.Host) // the OM logs these about itself
	case catalogue.OMRaftConfSet, catalogue.OMRoleChanged, catalogue.OMSetConfReceived:
		d.learnNode(s.Peer, s.Host) // the member ID of the logging OM
	case catalogue.OMPeerChangeSubmitted:
		d.learnNode(s.Attrs["leader"], s.Host)
		if h := s.Attrs["omhost"]; h != "" {
			d.learnNode(s.OMNode, h)
		}
	}
	if pl := s.Attrs["peerlist"]; pl != "" {
		for _, p := range catalogue.ParsePeerAddresses(pl) {
			if h := p.Host(); h != "" {
				if !d.nodeHost.Has(p.ID) {
					d.learnNode(p.ID, h)
				}
			}
		}
	}
}

func (d *detector) startup(s *catalogue.Signal, emit detectors.Emit) {
	h := d.host(s.Host)
	if ip := s.Attrs["ip"]; ip != "" {
		h.ip = ip
		d.ipHost.Put(ip, hostKey(s.Host))
	}
	bootstrap := strings.Contains(s.Attrs["args"], "--bootstrap")
	h.run = &run{startup: clone(s), bootstrap: bootstrap}
	a := d.open(hostKey(s.Host))
	if a == nil || !s.Time.After(a.failed.Time) {
		return
	}
	if !bootstrap {
		d.resolve(a, s, "the OM was started again without --bootstrap", emit)
		return
	}
	d.rerun(h, a, s, emit)
}

// rerun handles the start s of a later OM run on the host of the open
// attempt a, one that bootstraps again (or whose arguments the bundle does
// not show). Once the ring lists the node, a's finding stands and the run
// is more of its evidence: a re-run fails again (F.3). Before that, a is a
// failed bootstrap the ring has not taken, which stays quiet (F.4): a is
// closed, and what the ring does from now on belongs to the new run (its
// own configuration and the leader's "add OM" for it are not credited to
// a). The run's own failure starts an attempt of its own; only its
// pre-check finding the node already in the ring (N4) reopens a.
func (d *detector) rerun(h *omHost, a *attempt, s *catalogue.Signal, emit detectors.Emit) {
	if a.retry.IsZero() {
		a.retry = s.Time
	}
	d.evaluate(a, emit)
	if a.closed {
		return
	}
	if a.emitted {
		if s.Kind == catalogue.StartupMsg {
			a.reruns = appendBounded(a.reruns, *s)
		}
		return
	}
	if a.warned {
		d.resolve(a, s, "the bootstrap was run again before the ring listed the node", emit)
	}
	a.closed = true
	h.run.superseded = a.id
}

// remoteHas handles N4 on host h: the run's pre-check found the ring
// already lists the node, so an earlier failed bootstrap of the host left
// it there.
func (d *detector) remoteHas(h *omHost, s *catalogue.Signal, emit detectors.Emit) {
	if h.run == nil { // STARTUP_MSG not in the bundle: N4 is only logged by --bootstrap
		h.run = &run{bootstrap: true}
	}
	r := h.run
	if r.remoteHas == nil {
		r.remoteHas = clone(s)
	}
	a := d.open(hostKey(s.Host))
	if a == nil && r.superseded != 0 {
		// An attempt evicted (or forgotten past the horizon) since
		// cannot be reopened.
		a, r.superseded = d.attempt(r.superseded), 0
		if a != nil {
			d.reopen(a, r)
		}
	}
	if a != nil {
		a.remoteHas = clone(s)
		d.evaluate(a, emit)
	}
}

// reopen makes a closed attempt open again, with run r as a re-run of it.
func (d *detector) reopen(a *attempt, r *run) {
	a.closed = false
	if r.startup != nil {
		a.reruns = appendBounded(a.reruns, *r.startup)
	}
}

// runAttempt returns the failed bootstrap of run r, or nil.
func (d *detector) runAttempt(r *run) *attempt {
	if r == nil || r.attempt == 0 {
		return nil
	}
	return d.attempt(r.attempt)
}

// failed handles "Failed to Bootstrap OM." on host h.
func (d *detector) failed(h *omHost, s *catalogue.Signal, emit detectors.Emit) {
	if h.run == nil { // STARTUP_MSG not in the bundle: the line itself says it was a bootstrap
		h.run = &run{bootstrap: true}
	}
	r := h.run
	if r.stop != nil || r.attempt != 0 {
		return // stopped by a signal or an exit of its own: not this defect
	}
	if a := d.open(hostKey(s.Host)); a != nil {
		a.reruns = appendBounded(a.reruns, *s) // a re-run of --bootstrap failed too: still down
		r.attempt = a.id
		return
	}
	d.lastID++
	// The attempt keeps copies of the run's lines: no pointer is shared.
	a := &attempt{id: d.lastID, host: hostKey(s.Host), hostName: s.Host, ip: h.ip, startup: cloneOpt(r.startup), failed: *s,
		transitional: cloneOpt(r.transitional), remoteHas: cloneOpt(r.remoteHas),
		listed: detectors.NewBounded[string, bool](maxHosts, detectors.EvictOldest), runStart: s.Time}
	if r.startup != nil {
		a.runStart = r.startup.Time
	}
	r.attempt = a.id
	d.attempts.Put(a.id, a)
	for _, x := range d.recent.Items() {
		if !x.Time.Before(a.runStart.Add(-d.tol)) {
			d.update(a, &x)
		}
	}
	d.evaluate(a, emit)
}

// open returns the attempt of a host that is neither resolved nor closed.
func (d *detector) open(host string) *attempt {
	var open *attempt
	for _, a := range d.attempts.All() {
		if a.host == host && !a.closed {
			open = a // the latest one
		}
	}
	return open
}

// ringWide handles applied configurations, role changes and setConfiguration
// requests: kept for later attempts and applied to the open ones.
func (d *detector) ringWide(s *catalogue.Signal, emit detectors.Emit) {
	d.recent.Push(*s)
	for _, a := range d.attempts.All() {
		if !a.closed && !s.Time.Before(a.runStart.Add(-d.tol)) {
			d.update(a, s)
			d.evaluate(a, emit)
		}
	}
}

// update applies one ring-wide line to an attempt.
func (d *detector) update(a *attempt, s *catalogue.Signal) {
	self := hostKey(s.Host) == a.host
	switch s.Kind {
	case catalogue.OMConfChanged, catalogue.OMRaftConfSet:
		k := hostKey(s.Host)
		if d.lists(a, s) {
			if !a.listed.Has(k) && len(a.firstListing) < maxPerList {
				a.firstListing = append(a.firstListing, *s)
			}
			a.lastListing = clone(s)
			if !self {
				a.listed.Put(k, true) // the exited OM's own lines never unlist it
			} else {
				a.listed.Put(k, false)
			}
		} else if !self {
			if listed, seen := a.listed.Get(k); seen && listed {
				a.listed.Put(k, false)
				a.unlisting = clone(s)
			}
			if s.Kind == catalogue.OMConfChanged && s.Term > a.termWithout {
				a.termWithout = s.Term
			}
		}
	case catalogue.OMRoleChanged:
		if strings.TrimSpace(s.State) == "LEADER" && s.Attrs["to"] != "LEADER" &&
			!s.Time.After(a.failed.Time.Add(d.tol)) {
			a.stepDowns = appendBounded(a.stepDowns, *s)
		}
	case catalogue.OMSetConfReceived:
		if d.listsID(a, s.Peers) && (a.retry.IsZero() || s.Time.Before(a.retry)) {
			a.received = appendBounded(a.received, *s)
		}
	}
}

// lists reports whether a configuration line's peers include the attempt's
// OM, by node ID or by address.
func (d *detector) lists(a *attempt, s *catalogue.Signal) bool {
	node := d.nodeOf(a)
	for _, p := range catalogue.ParsePeerAddresses(s.Attrs["peerlist"]) {
		if node != "" && p.ID == node {
			return true
		}
		if h := p.Host(); h != "" && (hostKey(h) == a.host || (a.ip != "" && h == a.ip)) {
			return true
		}
	}
	return d.listsID(a, s.Peers)
}

func (d *detector) listsID(a *attempt, peers []string) bool {
	node := d.nodeOf(a)
	if node == "" {
		return false
	}
	for _, p := range peers {
		if p == node {
			return true
		}
	}
	return false
}

// leaderSide handles the leader's lines that name the node they are about.
func (d *detector) leaderSide(s *catalogue.Signal, emit detectors.Emit) {
	if s.OMNode == "" {
		return
	}
	r := d.ring(s.OMNode)
	switch {
	case s.Kind == catalogue.OMPeerChangeSubmitted && s.Attrs["op"] == "add":
		r.submits = appendBounded(r.submits, *s)
	case s.Kind == catalogue.OMPeerChangeFailed && s.Attrs["op"] == "add":
		r.failures = appendBounded(r.failures, *s)
	case s.Kind == catalogue.OMPeerChanged && s.Attrs["op"] == "add":
		r.added = appendBounded(r.added, *s)
	case s.Attrs["op"] == "remove":
		r.removed = appendBounded(r.removed, *s)
	}
	for _, a := range d.attempts.All() {
		if !a.closed && d.nodeOf(a) == s.OMNode {
			d.evaluate(a, emit)
		}
	}
}

// since returns the lines of xs at or after t.
func since(xs []catalogue.Signal, t time.Time) []catalogue.Signal {
	var out []catalogue.Signal
	for _, x := range xs {
		if !x.Time.Before(t) {
			out = append(out, x)
		}
	}
	return out
}

// own returns the lines of xs that can be about attempt a: from its run's
// start (less the clock tolerance) until the host's next OM run started.
func (d *detector) own(a *attempt, xs []catalogue.Signal) []catalogue.Signal {
	out := since(xs, a.runStart.Add(-d.tol))
	if a.retry.IsZero() {
		return out
	}
	n := 0
	for _, x := range out {
		if x.Time.Before(a.retry) {
			out[n] = x
			n++
		}
	}
	return out[:n]
}

// ringState says what the ring shows about an attempt's OM: whether an
// applied configuration (or the leader's "add OM") lists it, and whether it
// was removed again afterwards.
func (d *detector) ringState(a *attempt) (listed bool, listedAt time.Time, removal *catalogue.Signal) {
	if a.lastListing != nil {
		listed, listedAt = true, a.firstListing[0].Time
	}
	var r *ringNode
	if node := d.nodeOf(a); node != "" {
		r, _ = d.rings.Get(node)
	}
	if r != nil {
		if added := d.own(a, r.added); len(added) > 0 {
			if !listed || added[0].Time.Before(listedAt) {
				listedAt = added[0].Time
			}
			listed = true
		}
	}
	if a.remoteHas != nil && !listed {
		listed, listedAt = true, a.remoteHas.Time
	}
	if !listed {
		return false, time.Time{}, nil
	}
	if r != nil {
		for i := range r.removed {
			if x := &r.removed[i]; x.Kind == catalogue.OMPeerChanged && x.Time.After(listedAt) {
				return true, listedAt, x
			}
		}
	}
	if a.unlisting != nil {
		for _, v := range a.listed.All() {
			if v {
				return true, listedAt, nil
			}
		}
		return true, listedAt, a.unlisting
	}
	return true, listedAt, nil
}

// evaluate emits or resolves an attempt's finding once the ring shows it.
func (d *detector) evaluate(a *attempt, emit detectors.Emit) {
	if a.closed {
		return
	}
	listed, _, removal := d.ringState(a)
	if !listed {
		return
	}
	if removal != nil {
		d.resolve(a, removal, "the ring no longer lists the node (decommissioned)", emit)
		return
	}
	if !a.emitted {
		a.emitted = true
		emit(d.finding(a, detectors.Critical, a.failed.Time))
	}
}

// resolve closes an attempt: the OM is running again or no longer a voter.
func (d *detector) resolve(a *attempt, s *catalogue.Signal, why string, emit detectors.Emit) {
	if a.closed {
		return
	}
	a.resolution, a.resolvedBy = clone(s), why
	a.closed = true
	listed, listedAt, _ := d.ringState(a)
	switch {
	case a.emitted || (listed && listedAt.Before(s.Time.Add(d.tol))):
		a.emitted = true
		f := d.finding(a, detectors.Critical, s.Time)
		f.State = detectors.Resolved
		emit(f)
	case a.warned:
		f := d.finding(a, detectors.Warning, s.Time)
		f.State = detectors.Resolved
		emit(f)
	}
}

// Advance makes the decisions whose deadline passed: an exit whose ring
// side has not shown by decideAfter is reported as a warning, and a
// warning whose ring later shows without the node resolves. An open exit
// is judged again first: what the run learned since its lines came (the
// OM's node ID, from another component's lines) may show that the ring
// lists the node. Closed attempts, and leader-side and ring-wide lines,
// older than the horizon are forgotten.
func (d *detector) Advance(now time.Time, emit detectors.Emit) {
	for _, a := range d.attempts.All() {
		if a.closed || a.emitted {
			continue
		}
		d.evaluate(a, emit)
		switch {
		case a.closed || a.emitted:
		case !a.warned && now.After(a.failed.Time.Add(d.decideAfter())):
			d.warn(a, now, emit)
		case a.warned && d.ringShown(a):
			d.unwarn(a, now, emit)
		}
	}
	if !d.sweep.Due(now, time.Minute) {
		return
	}
	cut := now.Add(-horizon)
	d.attempts.DeleteFunc(func(_ int, a *attempt) bool {
		return a.closed && a.failed.Time.Before(cut) && (a.resolution == nil || a.resolution.Time.Before(cut))
	})
	d.recent.DropWhile(func(s catalogue.Signal) bool { return s.Time.Before(cut) })
	d.rings.DeleteFunc(func(_ string, r *ringNode) bool { return r.before(cut) })
}

// Quiet implements detectors.Detector: an open attempt is warned about at its
// deadline unless the ring's side is shown or the failure is benign (which
// only a signal changes), and a warning resolves as soon as it is shown.
// Judging an open attempt again finds something new only after a signal
// or a change of the identities, at which the engine advances anyway.
func (d *detector) Quiet(time.Time) time.Time {
	q := d.sweep.Quiet()
	for _, a := range d.attempts.All() {
		if a.closed || a.emitted {
			continue
		}
		if a.warned {
			if d.ringShown(a) {
				return time.Time{}
			}
			continue
		}
		if _, benign, _ := d.failure(a); !benign && !d.ringShown(a) {
			q = detectors.Earliest(q, a.failed.Time.Add(d.decideAfter()))
		}
	}
	return q
}

// warn reports an open attempt as a warning when the ring's side is not
// shown and the failure is not a benign one.
func (d *detector) warn(a *attempt, end time.Time, emit detectors.Emit) {
	if d.ringShown(a) {
		return // the other OMs logged after the exit and none listed the node
	}
	if _, benign, _ := d.failure(a); benign {
		return
	}
	a.warned = true
	emit(d.finding(a, detectors.Warning, end))
}

// unwarn resolves a warning once the other OMs logged after the exit and
// none listed the node.
func (d *detector) unwarn(a *attempt, now time.Time, emit detectors.Emit) {
	a.closed = true
	f := d.finding(a, detectors.Warning, now)
	f.State = detectors.Resolved
	f.Facts["resolved_by"] = "the other OMs logged after the exit and none listed the node"
	f.Summary += " Resolved: the other OMs logged after the exit and none listed the node."
	emit(f)
}

// before reports whether every line kept for the node is older than t.
func (r *ringNode) before(t time.Time) bool {
	for _, xs := range [][]catalogue.Signal{r.submits, r.failures, r.added, r.removed} {
		if len(xs) > 0 && !xs[len(xs)-1].Time.Before(t) {
			return false
		}
	}
	return true
}

// End reports the open attempts as they stand at the end of the input
// (Advance, called at the end first, judged them): a critical finding runs
// to the end, and an exit whose ring side the input does not show is
// reported as a warning, as Advance reports it at decideAfter: the input
// ends before that deadline and nothing in it explains the exit.
func (d *detector) End(end time.Time, emit detectors.Emit) {
	for _, a := range d.attempts.All() {
		switch {
		case a.closed:
		case a.emitted:
			emit(d.finding(a, detectors.Critical, end))
		default:
			d.warn(a, end, emit)
		}
	}
}

// ringShown reports whether the bundle shows the ring after the exit: other
// OMs logged later than the exit (beyond the clock tolerance), or applied a
// configuration of a term after the leader's step-down (whatever the clocks).
func (d *detector) ringShown(a *attempt) bool {
	if a.covered {
		return true
	}
	for _, s := range a.stepDowns {
		if a.termWithout > s.Term {
			return true
		}
	}
	return false
}

// failure describes why the bootstrap failed, from the .out file's error
// and the leader's reply: a label, whether it is a failure that leaves the
// ring unchanged, and whether it is one that usually changes it anyway.
func (d *detector) failure(a *attempt) (label string, benign, indicative bool) {
	if e := d.bootstrapError(a); e != nil {
		code, msg := e.Attrs["code"], e.Reason
		switch {
		case strings.Contains(msg, "Reconfiguration is already in progress"):
			return "Reconfiguration is already in progress", false, true
		case strings.Contains(msg, "NOPROGRESS") || strings.Contains(msg, "ConfigurationStagingState"):
			return "staging the new peer failed (NOPROGRESS)", true, false
		case code == "LEADER_UNDETERMINED" || code == "LEADER_NOT_READY" || code == "RATIS_NOT_ENABLED":
			return code, true, false
		case strings.Contains(msg, "Failed to add OM"):
			if r := d.leaderFailure(a); r != nil && r.Reason != "" {
				return "the leader's SetConfiguration reply failed with " + r.Reason, false, true
			}
			return "the leader's SetConfiguration reply failed", false, true
		}
		return code + ": " + msg, false, false
	}
	if r := d.leaderFailure(a); r != nil {
		if r.Reason != "" {
			return "the leader's SetConfiguration reply failed with " + r.Reason, false, true
		}
		return "the leader's SetConfiguration reply failed", false, true
	}
	return "reason not in the bundle (the .out file holds it)", false, false
}

func (d *detector) leaderFailure(a *attempt) *catalogue.Signal {
	r, _ := d.rings.Get(d.nodeOf(a))
	if r == nil {
		return nil
	}
	fs := d.own(a, r.failures)
	for i := range fs {
		if !fs[i].Time.After(a.failed.Time.Add(d.tol)) {
			return &fs[i]
		}
	}
	return nil
}

var outRotationRe = regexp.MustCompile(`\.out(?:[.-](\d+))?(?:\.gz)?$`)

// bootstrapError returns the .out file's bootstrap error for an attempt:
// the newest one of its host.
func (d *detector) bootstrapError(a *attempt) *catalogue.Signal {
	if h, ok := d.hosts.Get(a.host); ok && h.hasOut {
		return &h.outError
	}
	return nil
}

// outNewer reports whether .out line x was written after y: .out files
// rotate at every daemon start (.out.1 is older than .out), and within a
// file later lines are newer.
func outNewer(x, y *catalogue.Signal) bool {
	rx, ry := outRotation(x.Origin.File), outRotation(y.Origin.File)
	if rx != ry {
		return rx < ry
	}
	return x.Origin.Line > y.Origin.Line
}

func outRotation(file string) int {
	rot := 0
	if m := outRotationRe.FindStringSubmatch(file); m != nil && m[1] != "" {
		rot, _ = strconv.Atoi(m[1])
	}
	return rot
}

// clone copies a signal the detector keeps beyond the Observe call.
func clone(s *catalogue.Signal) *catalogue.Signal {
	c := *s
	return &c
}

// cloneOpt copies a kept signal, or returns nil.
func cloneOpt(s *catalogue.Signal) *catalogue.Signal {
	if s == nil {
		return nil
	}
	return clone(s)
}

func appendBounded(xs []catalogue.Signal, s catalogue.Signal) []catalogue.Signal {
	if len(xs) >= maxPerList {
		// keep the first line and the most recent ones
		copy(xs[1:], xs[2:])
		xs = xs[:len(xs)-1]
	}
	return append(xs, s)
}
