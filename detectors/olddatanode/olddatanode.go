package olddatanode

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// Registration is the detector's entry in the registry.
var Registration = detectors.Registration{Doc: doc(), New: newDetector}

const (
	// pairWindow bounds the gap between T31/T32/T32b and the T30 that
	// follows it on the same SCM (same call, same thread; a layout without
	// milliseconds can put them one second apart).
	pairWindow = 2 * time.Second
	// maxTracked caps every per-datanode and per-SCM map.
	maxTracked = 512
	// contextEvidence is the evidence reserved for finalization,
	// registration and resolution lines.
	contextEvidence = 6
)

// detector follows the version-fence lines of every datanode.
type detector struct {
	env           *detectors.Env
	hb            time.Duration
	hbSource      string
	minBeats      int
	resolveBeats  int
	resolveAfter  time.Duration
	settle        time.Duration                // wait after a heartbeat's lines before grading
	scms          map[string]bool              // SCM hosts seen in the input
	pending       map[pendingKey]pending       // T31/T32/T32b waiting for their T30
	open          map[string]*occurrence       // by datanode short host
	closed        []*occurrence                // resolved, kept to attach what followed
	finalized     []*catalogue.Signal          // SCM finalization lines (first few)
	finalizedAt   time.Time                    // first SCM finalization
	requested     *catalogue.Signal            // first finalization request
	forced        bool                         // a finalization skipped SCM's version checks
	registrations map[string]*catalogue.Signal // latest per datanode
	versions      map[string]*catalogue.Signal // latest datanode STARTUP_MSG per datanode
	hostNames     map[string]string            // stream host -> host its banners name
	nextCheck     time.Time
}

type pendingKey struct{ scm, dn string }

type pending struct {
	sig   *catalogue.Signal
	fence fence
}

// fence says which check logged the first half of a pair.
type fence int

const (
	fenceOlder    fence = iota // T31: older software on a finalized SCM (HDDS-17425)
	fenceNewer                 // T32: newer software than SCM (wrong upgrade order)
	fenceApparent              // T32b: apparent version above SCM's (neither finding)
)

func newDetector(env *detectors.Env) (detectors.Detector, error) {
	settings := env.Settings
	if settings == nil {
		settings = site.New()
	}
	if env.Identity == nil {
		env.Identity = detectors.NewIdentity()
	}
	d := &detector{env: env, scms: map[string]bool{}, pending: map[pendingKey]pending{},
		open: map[string]*occurrence{}, registrations: map[string]*catalogue.Signal{},
		versions: map[string]*catalogue.Signal{}, hostNames: map[string]string{}}
	d.hb, d.hbSource = settings.Duration("hdds.heartbeat.interval", time.Millisecond)
	if d.hb <= 0 {
		d.hb, d.hbSource = 30*time.Second, "default"
	}
	d.hbSource = shortSource(d.hbSource)
	var err error
	if d.minBeats, err = intOption(env, "min_heartbeats", 3, 2); err != nil {
		return nil, err
	}
	if d.resolveBeats, err = intOption(env, "resolve_heartbeats", 3, 2); err != nil {
		return nil, err
	}
	d.resolveAfter = time.Duration(d.resolveBeats) * d.hb
	d.settle = min(skewTolerance, d.hb/2)
	return d, nil
}

func intOption(env *detectors.Env, name string, def, least int) (int, error) {
	v := env.Option(name, strconv.Itoa(def))
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		return 0, fmt.Errorf("option %s=%q: want an integer ≥ %d", name, v, least)
	}
	return n, nil
}

// Observe handles one signal.
func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	switch s.Kind {
	case catalogue.StartupMsg:
		switch catalogue.ServiceComponent(s.Attrs["service"]) {
		case parsers.ComponentSCM:
			d.addSCM(s.Host)
			d.scmStarted(s)
		case parsers.ComponentDatanode:
			host := d.bannerHost(s)
			if s.Version != "" {
				d.remember(d.versions, dnKey(host), s)
			}
		}
	case catalogue.ShutdownMsg:
		if catalogue.ServiceComponent(s.Attrs["service"]) == parsers.ComponentDatanode {
			host := d.bannerHost(s)
			for _, pattern := range []string{patternOlder, patternNewer} {
				if o := d.after(pattern, host, s.Time); o != nil && o.shutdown == nil {
					o.shutdown = s
				}
			}
		}
	case catalogue.OldDatanodeOnFinalizedSCM:
		d.addSCM(s.Host)
		d.hold(pendingKey{s.Host, dnKey(s.Datanode.Host)}, pending{sig: s, fence: fenceOlder})
	case catalogue.NewerDatanodeThanSCM:
		d.addSCM(s.Host)
		d.hold(pendingKey{s.Host, dnKey(s.Datanode.Host)}, pending{sig: s, fence: fenceNewer})
	case catalogue.DatanodeApparentAboveSCM:
		d.addSCM(s.Host)
		d.hold(pendingKey{s.Host, dnKey(s.Datanode.Host)}, pending{sig: s, fence: fenceApparent})
	case catalogue.InvalidDatanode:
		d.addSCM(s.Host)
		k := pendingKey{s.Host, dnKey(s.Datanode.Host)}
		p, ok := d.pending[k]
		if !ok || s.Time.Sub(p.sig.Time) > pairWindow || (p.sig.Thread != "" && s.Thread != "" && p.sig.Thread != s.Thread) {
			return // T30 without its first half: nothing to say which fence fired
		}
		delete(d.pending, k)
		switch p.fence {
		case fenceOlder:
			d.pair(p.sig, s)
		case fenceNewer:
			d.newer(p.sig, s)
		}
	case catalogue.InvalidDataNodeLayout:
		d.addSCM(s.Host)
		d.newer(s, nil)
	case catalogue.DatanodeRegistered:
		d.addSCM(s.Host)
		// Every SCM logs the registration: keep the first line of it.
		k := dnKey(s.Datanode.Host)
		if prev := d.registrations[k]; prev == nil || s.Time.Sub(prev.Time) > skewTolerance {
			d.remember(d.registrations, k, s)
		}
		if o := d.after(patternOlder, s.Datanode.Host, s.Time); o != nil && o.reregistered == nil {
			o.reregistered = s
		}
	case catalogue.FinalizeCommandSent:
		d.addSCM(s.Host)
		if o := d.after(patternOlder, s.Datanode.Host, s.Time); o != nil && o.finalizeCmd == nil {
			o.finalizeCmd = s
		}
	case catalogue.DatanodeRegistrationRefused:
		host := s.Host
		if h := d.hostNames[s.Host]; h != "" {
			host = h
		}
		if o := d.after(patternOlder, host, s.Time); o != nil && o.refused == nil {
			o.refused = s
		}
	case catalogue.UpgradeFinalizeRequested:
		if d.scmScope(s) {
			if d.requested == nil {
				d.requested = s
			}
			if s.Reason == "forced" {
				d.forced = true
			}
		}
	case catalogue.UpgradeFinalized:
		if d.scmScope(s) {
			if d.finalizedAt.IsZero() {
				d.finalizedAt = s.Time
			}
			if len(d.finalized) < 2 {
				d.finalized = append(d.finalized, s)
			}
		}
	}
}

// bannerHost returns the host a STARTUP_MSG/SHUTDOWN_MSG banner names and
// remembers it for the stream's host name (a docker-compose service such as
// "datanode_3" logs as that name).
func (d *detector) bannerHost(s *catalogue.Signal) string {
	h := s.Attrs["hostname"]
	if h == "" {
		return s.Host
	}
	if s.Host != "" && s.Host != h && (d.hostNames[s.Host] != "" || len(d.hostNames) < maxTracked) {
		d.hostNames[s.Host] = h
	}
	return h
}

// scmScope reports whether a finalization line is about SCM.
func (d *detector) scmScope(s *catalogue.Signal) bool {
	switch {
	case s.Attrs["scope"] == "SCM":
		return true
	case s.Component == parsers.ComponentSCM:
		d.addSCM(s.Host)
		return true
	case s.Component == parsers.ComponentUnknown:
		return d.scms[s.Host]
	}
	return false
}

func (d *detector) addSCM(host string) {
	if host != "" && !d.scms[host] && len(d.scms) < maxTracked {
		d.scms[host] = true
	}
}

// hold keeps the first half of a pair until its T30 arrives.
func (d *detector) hold(k pendingKey, p pending) {
	if _, ok := d.pending[k]; !ok && len(d.pending) >= maxTracked {
		d.expirePending(p.sig.Time, true)
	}
	d.pending[k] = p
}

// expirePending drops halves older than the pair window (all of them when
// all is set). A T31 without T30 is a registration refused after
// finalization: correct fencing, remembered for the resolution.
func (d *detector) expirePending(now time.Time, all bool) {
	for k, p := range d.pending {
		if all || now.Sub(p.sig.Time) > pairWindow {
			if p.fence == fenceOlder {
				if o := d.after(patternOlder, p.sig.Datanode.Host, p.sig.Time); o != nil && o.fenced == nil {
					o.fenced = p.sig
				}
			}
			delete(d.pending, k)
		}
	}
}

// remember stores a signal by datanode, bounded.
func (d *detector) remember(m map[string]*catalogue.Signal, k string, s *catalogue.Signal) {
	if _, ok := m[k]; !ok && len(m) >= maxTracked {
		var oldest string
		for key, v := range m {
			if oldest == "" || v.Time.Before(m[oldest].Time) {
				oldest = key
			}
		}
		delete(m, oldest)
	}
	m[k] = s
}

// pair handles one T31+T30 pair.
func (d *detector) pair(t31, t30 *catalogue.Signal) {
	o := d.occurrence(patternOlder, t31.Datanode, t31.Time)
	if o.total == 0 {
		o.registered = d.registrations[dnKey(t31.Datanode.Host)]
	}
	o.add(t31.Host, t31.Time, t31, t30)
	o.dnVersion, o.scmVersion = t31.Version, t31.Version2
	o.dnApparent, o.scmApparent = t30.Attrs["dnapparent"], t30.Attrs["scmapparent"]
	o.dirty = true
}

// newer handles one heartbeat of a datanode newer than SCM: master/2.x's
// "Invalid data node in the cluster" line (t30 nil) or the ZDU T32+T30
// pair. Both checks compare software (layout) versions, which SCM's
// finalization does not change, so every such heartbeat counts, whenever
// SCM finalized.
func (d *detector) newer(s, t30 *catalogue.Signal) {
	o := d.occurrence(patternNewer, s.Datanode, s.Time)
	o.wording = wordingMaster
	if t30 != nil {
		o.wording = wordingZDU
		o.dnApparent, o.scmApparent = t30.Attrs["dnapparent"], t30.Attrs["scmapparent"]
		o.add(s.Host, s.Time, s, t30)
	} else {
		o.add(s.Host, s.Time, s)
	}
	o.dnVersion, o.scmVersion = s.Version, s.Version2
	o.dirty = true
}

// occurrence returns the open occurrence of pattern for datanode dn,
// opening one at t if there is none.
func (d *detector) occurrence(pattern string, dn catalogue.Datanode, t time.Time) *occurrence {
	k := openKey(pattern, dn.Host)
	if o := d.open[k]; o != nil {
		return o
	}
	if len(d.open) >= maxTracked {
		d.dropOldestOpen()
	}
	dn = d.env.Identity.Complete(dn)
	o := newOccurrence(pattern, dn, t)
	o.dnOzone = d.version(dn.Host)
	d.open[k] = o
	return o
}

// openKey names an open occurrence: the datanode's short host, prefixed
// for the newer-datanode finding.
func openKey(pattern, host string) string {
	if pattern == patternNewer {
		return "newer/" + dnKey(host)
	}
	return dnKey(host)
}

// scmStarted notes an SCM (re)start after the newer-datanode lines: the
// way they end when SCM is upgraded to the datanode's release.
func (d *detector) scmStarted(s *catalogue.Signal) {
	note := func(o *occurrence) {
		if o.pattern == patternNewer && o.scmRestart == nil && !s.Time.Before(o.last) {
			o.scmRestart = s
		}
	}
	for _, o := range d.open {
		note(o)
	}
	for _, o := range d.closed {
		note(o)
	}
}

func (d *detector) dropOldestOpen() {
	var oldest string
	for k, o := range d.open {
		if oldest == "" || o.last.Before(d.open[oldest].last) {
			oldest = k
		}
	}
	delete(d.open, oldest)
}

// after returns the latest occurrence of pattern about the datanode on host
// whose last line is before t (what follows it may explain why it stopped).
func (d *detector) after(pattern, host string, t time.Time) *occurrence {
	if o := d.open[openKey(pattern, host)]; o != nil && !t.Before(o.last) {
		return o
	}
	k := dnKey(host)
	for i := len(d.closed) - 1; i >= 0; i-- {
		if o := d.closed[i]; o.pattern == pattern && dnKey(o.dn.Host) == k && !t.Before(o.last) {
			return o
		}
	}
	return nil
}

// Advance resolves occurrences whose lines stopped.
func (d *detector) Advance(now time.Time, emit detectors.Emit) {
	if now.Before(d.nextCheck) {
		return
	}
	d.nextCheck = now.Add(time.Second)
	d.expirePending(now, false)
	for k, o := range d.open {
		if now.Sub(o.last) <= d.resolveAfter {
			// Report (or escalate) once the SCMs' lines of one heartbeat are
			// all in, so that a heartbeat seen by one SCM first does not
			// raise a passing lower grade.
			if o.dirty && now.Sub(o.last) >= d.settle {
				o.dirty = false
				if conf := d.confidence(o); conf != "" && conf != o.emitted {
					d.emit(o, detectors.Firing, emit)
				}
			}
			continue
		}
		delete(d.open, k)
		if d.confidence(o) == "" {
			continue
		}
		d.emit(o, detectors.Resolved, emit)
		d.closed = append(d.closed, o)
		if len(d.closed) > maxTracked {
			d.closed = d.closed[1:]
		}
	}
}

// Flush reports what is open (firing, or resolved when it stopped long
// enough before the end) and re-reports resolved findings with what
// followed them.
func (d *detector) Flush(end time.Time, emit detectors.Emit) {
	d.expirePending(end.Add(pairWindow+time.Nanosecond), false)
	for _, o := range d.closed {
		d.emit(o, detectors.Resolved, emit)
	}
	keys := slices.Sorted(maps.Keys(d.open))
	for _, k := range keys {
		o := d.open[k]
		if d.confidence(o) == "" {
			continue
		}
		state := detectors.Firing
		if end.Sub(o.last) > d.resolveAfter {
			state = detectors.Resolved
		}
		d.emit(o, state, emit)
	}
}

// confidence grades what was seen of an occurrence; "" means not enough.
func (d *detector) confidence(o *occurrence) detectors.Confidence {
	beats, repeating := o.heartbeats(d.minBeats)
	several := min(2, len(d.scms))
	switch {
	case beats < 2:
		return ""
	case o.pattern == patternNewer && beats < d.minBeats:
		return "" // the separate finding needs the full repetition
	case o.pattern == patternNewer:
		// SCM's own check says the datanode runs newer software; only its
		// persistence was in doubt, and min_heartbeats settles that.
		return detectors.High
	case beats < d.minBeats:
		return detectors.Low
	case repeating >= several && !d.finalizedAt.IsZero():
		return detectors.High
	}
	return detectors.Medium
}

// version returns the Ozone version a host printed in STARTUP_MSG.
func (d *detector) version(host string) string {
	if v := d.env.Identity.Version(host); v != "" {
		return v
	}
	if v := d.env.Identity.Version(detectors.ShortHost(host)); v != "" {
		return v
	}
	if s := d.versions[dnKey(host)]; s != nil {
		return s.Version
	}
	return ""
}

// dnKey names a datanode by its short host, lower case.
func dnKey(host string) string { return strings.ToLower(detectors.ShortHost(host)) }

// shortSource trims a settings source such as "ozone-site.xml
// (/tmp/x/bundle/scm1/ozone-site.xml)" to its last two path elements, so
// that a finding does not depend on where the input was unpacked.
func shortSource(src string) string {
	open, end := strings.IndexByte(src, '('), strings.LastIndexByte(src, ')')
	if open < 0 || end < open {
		return src
	}
	p := strings.Split(strings.ReplaceAll(src[open+1:end], "\\", "/"), "/")
	if len(p) > 2 {
		p = p[len(p)-2:]
	}
	return src[:open+1] + strings.Join(p, "/") + src[end:]
}
