package olddatanode

import (
	"slices"
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
	// horizon is the detector's Doc.Horizon (doc.go says why).
	horizon = 24 * time.Hour
)

// detector follows the version-fence lines of every datanode.
type detector struct {
	env           *detectors.Env `state:"-"`
	settings      *site.Config   `state:"-"` // env.Settings, or Ozone's defaults when the Env has none
	hb            time.Duration
	hbSource      string
	gen           int // settings generation hb comes from
	minBeats      int
	resolveBeats  int
	resolveAfter  time.Duration
	settle        time.Duration                                // wait after a heartbeat's lines before grading
	scms          *detectors.Bounded[string, bool]             // SCM hosts seen in the input
	pending       *detectors.Bounded[pendingKey, pending]      // T31/T32/T32b waiting for their T30
	open          *detectors.Bounded[string, *occurrence]      // by datanode short host, least recently counted first
	closed        *detectors.Ring[*occurrence]                 // resolved, kept to attach what followed
	finalized     []*catalogue.Signal                          // SCM finalization lines (first few)
	finalizedAt   time.Time                                    // first SCM finalization
	requested     *catalogue.Signal                            // first finalization request
	forced        bool                                         // a finalization skipped SCM's version checks
	registrations *detectors.Bounded[string, catalogue.Signal] // latest per datanode
	versions      *detectors.Bounded[string, catalogue.Signal] // latest datanode STARTUP_MSG per datanode
	hostNames     *detectors.Bounded[string, string]           // stream host -> host its banners name
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
	if env.Identity == nil {
		env.Identity = detectors.NewIdentity()
	}
	d := &detector{env: env, settings: env.Settings,
		scms:          detectors.NewBounded[string, bool](maxTracked, detectors.EvictLeastRecent),
		pending:       detectors.NewBounded[pendingKey, pending](maxTracked, detectors.EvictOldest),
		open:          detectors.NewBounded[string, *occurrence](maxTracked, detectors.EvictLeastRecent),
		closed:        detectors.NewRing[*occurrence](maxTracked),
		registrations: detectors.NewBounded[string, catalogue.Signal](maxTracked, detectors.EvictLeastRecent),
		versions:      detectors.NewBounded[string, catalogue.Signal](maxTracked, detectors.EvictLeastRecent),
		hostNames:     detectors.NewBounded[string, string](maxTracked, detectors.EvictLeastRecent)}
	if d.settings == nil {
		d.settings = site.New()
	}
	var err error
	if d.minBeats, _, err = doc().Int(env, "min_heartbeats"); err != nil {
		return nil, err
	}
	if d.resolveBeats, _, err = doc().Int(env, "resolve_heartbeats"); err != nil {
		return nil, err
	}
	d.derive()
	return d, nil
}

// derive reads the heartbeat interval from the settings and the windows
// that follow from it; refresh calls it again when the settings change.
func (d *detector) derive() {
	d.gen = d.settings.Generation()
	d.hb, d.hbSource = d.settings.Duration("hdds.heartbeat.interval", time.Millisecond)
	if d.hb <= 0 {
		d.hb, d.hbSource = 30*time.Second, "default"
	}
	d.hbSource = detectors.ShortSource(d.hbSource)
	d.resolveAfter = time.Duration(d.resolveBeats) * d.hb
	d.settle = min(skewTolerance, d.hb/2)
}

func (d *detector) refresh() {
	if d.settings.Generation() != d.gen {
		d.derive()
	}
}

// StateStats implements detectors.StateReporter.
func (d *detector) StateStats() []detectors.StateStat {
	return []detectors.StateStat{d.scms.Stat("scm hosts"), d.pending.Stat("first halves of pairs"), d.open.Stat("open occurrences"),
		d.closed.Stat("resolved occurrences"), d.registrations.Stat("registrations"), d.versions.Stat("datanode startups"),
		d.hostNames.Stat("banner host names")}
}

// keep copies a signal the detector keeps beyond the Observe call: no
// pointer into the caller's data, and none shared between two places.
func keep(s *catalogue.Signal) *catalogue.Signal {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// Observe handles one signal.
func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	d.refresh()
	switch s.Kind {
	case catalogue.StartupMsg:
		switch catalogue.ServiceComponent(s.Attrs["service"]) {
		case parsers.ComponentSCM:
			d.addSCM(s.Host)
			d.scmStarted(s)
		case parsers.ComponentDatanode:
			host := d.bannerHost(s)
			if s.Version != "" {
				d.versions.Put(detectors.HostKey(host), *s)
			}
		}
	case catalogue.ShutdownMsg:
		if catalogue.ServiceComponent(s.Attrs["service"]) == parsers.ComponentDatanode {
			host := d.bannerHost(s)
			for _, pattern := range []string{patternOlder, patternNewer} {
				if o := d.after(pattern, host, s.Time); o != nil && o.shutdown == nil {
					o.shutdown, o.followed = keep(s), true
				}
			}
		}
	case catalogue.OldDatanodeOnFinalizedSCM:
		d.addSCM(s.Host)
		d.hold(pendingKey{s.Host, detectors.HostKey(s.Datanode.Host)}, pending{sig: keep(s), fence: fenceOlder})
	case catalogue.NewerDatanodeThanSCM:
		d.addSCM(s.Host)
		d.hold(pendingKey{s.Host, detectors.HostKey(s.Datanode.Host)}, pending{sig: keep(s), fence: fenceNewer})
	case catalogue.DatanodeApparentAboveSCM:
		d.addSCM(s.Host)
		d.hold(pendingKey{s.Host, detectors.HostKey(s.Datanode.Host)}, pending{sig: keep(s), fence: fenceApparent})
	case catalogue.InvalidDatanode:
		d.addSCM(s.Host)
		k := pendingKey{s.Host, detectors.HostKey(s.Datanode.Host)}
		p, ok := d.pending.Get(k)
		if !ok || s.Time.Sub(p.sig.Time) > pairWindow || (p.sig.Thread != "" && s.Thread != "" && p.sig.Thread != s.Thread) {
			return // T30 without its first half: nothing to say which fence fired
		}
		d.pending.Delete(k)
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
		k := detectors.HostKey(s.Datanode.Host)
		if prev, ok := d.registrations.Get(k); !ok || s.Time.Sub(prev.Time) > skewTolerance {
			d.registrations.Put(k, *s)
		}
		if o := d.after(patternOlder, s.Datanode.Host, s.Time); o != nil && o.reregistered == nil {
			o.reregistered, o.followed = keep(s), true
		}
	case catalogue.FinalizeCommandSent:
		d.addSCM(s.Host)
		if o := d.after(patternOlder, s.Datanode.Host, s.Time); o != nil && o.finalizeCmd == nil {
			o.finalizeCmd, o.followed = keep(s), true
		}
	case catalogue.DatanodeRegistrationRefused:
		host := s.Host
		if h, _ := d.hostNames.Get(s.Host); h != "" {
			host = h
		}
		if o := d.after(patternOlder, host, s.Time); o != nil && o.refused == nil {
			o.refused, o.followed = keep(s), true
		}
	case catalogue.UpgradeFinalizeRequested:
		if d.scmScope(s) {
			if d.requested == nil {
				d.requested = keep(s)
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
				d.finalized = append(d.finalized, keep(s))
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
	if s.Host != "" && s.Host != h {
		d.hostNames.Put(s.Host, h)
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
	}
	return false
}

func (d *detector) addSCM(host string) {
	if host != "" {
		d.scms.Put(host, true)
	}
}

// hold keeps the first half of a pair until its T30 arrives.
func (d *detector) hold(k pendingKey, p pending) {
	if !d.pending.Has(k) && d.pending.Len() >= d.pending.Limit() {
		d.expirePending(p.sig.Time, true) // judged rather than evicted unseen
	}
	d.pending.Put(k, p)
}

// expirePending drops halves older than the pair window (all of them when
// all is set). A T31 without T30 is a registration refused after
// finalization: correct fencing, remembered for the resolution.
func (d *detector) expirePending(now time.Time, all bool) {
	d.pending.DeleteFunc(func(_ pendingKey, p pending) bool {
		if !all && now.Sub(p.sig.Time) <= pairWindow {
			return false
		}
		if p.fence == fenceOlder {
			if o := d.after(patternOlder, p.sig.Datanode.Host, p.sig.Time); o != nil && o.fenced == nil {
				o.fenced, o.followed = keep(p.sig), true
			}
		}
		return true
	})
}

// pair handles one T31+T30 pair.
func (d *detector) pair(t31, t30 *catalogue.Signal) {
	o := d.occurrence(patternOlder, t31.Datanode, t31.Time)
	if o.total == 0 { // r is on the heap: looked up only when it is kept
		if r, ok := d.registrations.Get(detectors.HostKey(t31.Datanode.Host)); ok {
			o.registered = &r
		}
	}
	o.add(t31.Host, t31.Time, t31, t30)
	o.dnVersion, o.scmVersion = t31.Version, t31.Version2
	o.dnApparent, o.scmApparent = t30.Apparent, t30.Apparent2
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
		o.dnApparent, o.scmApparent = t30.Apparent, t30.Apparent2
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
	if o, _ := d.open.Get(k); o != nil {
		d.open.Touch(k)
		return o
	}
	dn = d.env.Identity.Complete(dn)
	o := newOccurrence(pattern, dn, t)
	o.dnOzone = d.version(dn.Host)
	d.open.Put(k, o) // beyond the limit, the occurrence counted least recently is forgotten
	return o
}

// openKey names an open occurrence: the datanode's short host, prefixed
// for the newer-datanode finding.
func openKey(pattern, host string) string {
	if pattern == patternNewer {
		return "newer/" + detectors.HostKey(host)
	}
	return detectors.HostKey(host)
}

// scmStarted notes an SCM (re)start after the newer-datanode lines: the
// way they end when SCM is upgraded to the datanode's release.
func (d *detector) scmStarted(s *catalogue.Signal) {
	note := func(o *occurrence) {
		if o.pattern == patternNewer && o.scmRestart == nil && !s.Time.Before(o.last) {
			o.scmRestart, o.followed = keep(s), true
		}
	}
	for _, o := range d.open.All() {
		note(o)
	}
	for _, o := range d.closed.Items() {
		note(o)
	}
}

// after returns the latest occurrence of pattern about the datanode on host
// whose last line is before t (what follows it may explain why it stopped).
func (d *detector) after(pattern, host string, t time.Time) *occurrence {
	if o, _ := d.open.Get(openKey(pattern, host)); o != nil && !t.Before(o.last) {
		return o
	}
	k := detectors.HostKey(host)
	for i := d.closed.Len() - 1; i >= 0; i-- {
		if o := d.closed.At(i); o.pattern == pattern && detectors.HostKey(o.dn.Host) == k && !t.Before(o.last) {
			return o
		}
	}
	return nil
}

// Advance resolves occurrences whose lines stopped, re-reports resolved
// ones when a line tells what ended them (the decision Flush would
// otherwise make alone), and forgets resolved occurrences older than the
// horizon. It does so once a second of event time, at the second, whenever
// signals come.
func (d *detector) Advance(now time.Time, emit detectors.Emit) {
	if !now.Truncate(time.Second).Equal(now) {
		return
	}
	d.refresh()
	d.expirePending(now, false)
	var resolved []string
	for k, o := range d.open.All() {
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
		resolved = append(resolved, k)
	}
	for _, k := range resolved {
		o, _ := d.open.Get(k)
		d.open.Delete(k)
		if d.confidence(o) == "" {
			continue
		}
		o.followed = false
		d.emit(o, detectors.Resolved, emit)
		d.closed.Push(o)
	}
	for i := range d.closed.Len() { // every second: no copy of the ring
		if o := d.closed.At(i); o.followed {
			o.followed = false
			d.emit(o, detectors.Resolved, emit)
		}
	}
	cut := now.Add(-horizon)
	d.closed.DropWhile(func(o *occurrence) bool { return o.last.Before(cut) })
}

// Quiet implements detectors.Sleeper: the earliest deadline of Advance's
// decisions.
func (d *detector) Quiet(now time.Time) time.Time {
	q := now.Add(detectors.NoDeadline)
	for _, p := range d.pending.All() {
		q = detectors.Earliest(q, p.sig.Time.Add(pairWindow))
	}
	for _, o := range d.open.All() {
		q = detectors.Earliest(q, o.last.Add(d.resolveAfter))
		if o.dirty {
			q = detectors.Earliest(q, o.last.Add(d.settle-time.Nanosecond))
		}
	}
	for i := range d.closed.Len() {
		if d.closed.At(i).followed {
			return time.Time{}
		}
	}
	if d.closed.Len() > 0 {
		q = detectors.Earliest(q, d.closed.At(0).last.Add(horizon))
	}
	return q
}

// Flush reports what is open (firing, or resolved when it stopped long
// enough before the end) and re-reports resolved findings with what
// followed them.
func (d *detector) Flush(end time.Time, emit detectors.Emit) {
	d.refresh()
	d.expirePending(end.Add(pairWindow+time.Nanosecond), false)
	for _, o := range d.closed.Items() {
		o.followed = false
		d.emit(o, detectors.Resolved, emit)
	}
	keys := slices.Sorted(slices.Values(d.open.Keys()))
	for _, k := range keys {
		o, _ := d.open.Get(k)
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
	several := min(2, d.scms.Len())
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
	if s, ok := d.versions.Get(detectors.HostKey(host)); ok {
		return s.Version
	}
	return ""
}
