package quasiclosedelete

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// forceDeletes counts a datanode's forced container deletes
// (StorageContainerMetrics ContainerForceDelete, signatures-scm.md 5.2:
// +1 in KeyValueHandler on every forced delete; label hostname).
const forceDeletes = "storage_container_metrics_container_force_delete"

// Registration is the detector's entry in the registry.
var Registration = detectors.Registration{Doc: doc(), New: newDetector}

// horizon is the detector's Doc.Horizon (doc.go says why).
const horizon = 24 * time.Hour

type detector struct {
	env       *detectors.Env `state:"-"`
	tolerance time.Duration
	tolSource string
	max       int
	open      *detectors.Bounded[uint64, *occurrence]        // by container: the latest unsafe deletion, oldest first
	early     *detectors.Ring[catalogue.Signal]              // force-delete/resurrection lines with no deletion yet, time-ordered
	seq       *detectors.Bounded[uint64, int]                // occurrences seen per container (for keys)
	dead      *detectors.Bounded[string, catalogue.Datanode] // datanodes SCM holds DEAD now, by UUID (or host)
	forced    *detectors.Counters                            // host -> forceDeletes samples
	sweep     detectors.Sweep
	// identities is the identity generation the reported findings were
	// rendered with.
	identities int
}

func newDetector(env *detectors.Env) (detectors.Detector, error) {
	d := &detector{env: env}
	tol, set, err := doc().Duration(env, "skew_tolerance")
	if err != nil {
		return nil, err
	}
	d.tolerance, d.tolSource = tol, "default"
	if set {
		d.tolSource = "option skew_tolerance"
	}
	if d.max, _, err = doc().Int(env, "max_containers"); err != nil {
		return nil, err
	}
	d.open = detectors.NewBounded[uint64, *occurrence](d.max, detectors.EvictOldest)
	d.early = detectors.NewRing[catalogue.Signal](d.max)
	d.seq = detectors.NewBounded[uint64, int](d.max, detectors.EvictOldest)
	d.dead = detectors.NewBounded[string, catalogue.Datanode](d.max, detectors.EvictOldest)
	d.forced = detectors.NewCounters(d.max)
	return d, nil
}

// StateStats implements detectors.StateReporter.
func (d *detector) StateStats() []detectors.StateStat {
	return []detectors.StateStat{d.open.Stat("unsafe deletions"), d.early.Stat("lines before a deletion"),
		d.seq.Stat("deletions counted per container"), d.dead.Stat("dead datanodes"), d.forced.Latest.Stat("force-delete counters")}
}

// occurrence is one unsafe deletion (T40 with max replica BCSID < container
// BCSID) and what followed for that container.
type occurrence struct {
	key         string
	container   uint64
	start       time.Time
	last        time.Time // latest line about the container
	scm         string    // host that logged the deletion
	bcsid       int64     // container BCSID
	maxReplica  int64     // max known replica BCSID
	known       int64     // known replicas
	origins     []string
	deadThen    []catalogue.Datanode // datanodes SCM held DEAD at the deletion (holders of unknown replicas)
	repeats     int
	victims     []*victim
	followers   map[string]int // follower SCM host -> "Skip sending" lines
	pipelines   []string
	resurrected *catalogue.Signal
	ev          detectors.EvidenceLog // the deletion(s) and the resurrection
	named       string                // the naming text last reported (see naming)
}

// victim is a datanode whose non-empty replica was force-deleted.
type victim struct {
	dn           catalogue.Datanode
	origin       string // the replica's origin datanode UUID (T43, T46), the same on SCM and datanode
	replicaState string
	replicaBCSID int64
	reason       string
	sentBy       string    // SCM host that sent the forced delete
	sentAt       time.Time // first forced delete sent
	sent         int       // forced deletes sent by the leader
	skipped      int       // followers' "Skip sending" lines
	markedAt     time.Time // T46 on the datanode
	markedFrom   string
	loggedAt     time.Time // T47 in the dn-container log
	loggedBCSID  int64
	stale        bool    // a line showed the replica's BCSID is not above the max replica BCSID
	otherReason  string  // SCM force-deleted the replica for a reason that is not the defect's (CONTAINER_NOT_FOUND)
	counted      bool    // forceDeletes was read for the datanode when the victim appeared
	forceBase    float64 // forceDeletes then
	forceMetric  bool    // a forceDeletes sample above forceBase came after the deletion
	ev           detectors.EvidenceLog
}

func (v *victim) scmSeen() bool { return v.sent > 0 || v.skipped > 0 }
func (v *victim) dnSeen() bool  { return !v.markedAt.IsZero() || !v.loggedAt.IsZero() }

// lost reports whether the victim's non-empty replica was force-deleted:
// seen on SCM or on the datanode, and not a stale replica. The datanode's
// lines alone do not count when SCM force-deleted the replica for another
// reason: they are that delete's.
func (v *victim) lost() bool {
	return !v.stale && (v.scmSeen() || v.dnSeen() && v.otherReason == "")
}

// bcsidKnown reports whether a line with the replica's BCSID (SCM's T43 or
// follower line, or the dn-container log's T47) showed it above the max
// replica BCSID. The datanode's T46 prints no BCSID: alone, it cannot tell
// the replica with the data from a stale one.
func (v *victim) bcsidKnown() bool { return v.scmSeen() || !v.loggedAt.IsZero() }

// Observe handles one signal.
func (d *detector) Observe(s *catalogue.Signal, emit detectors.Emit) {
	switch s.Kind {
	case catalogue.MetricSample:
		d.forceSample(s, emit)
		return
	case catalogue.EmptyQuasiClosedDelete:
		d.deletion(s, emit)
		return
	case catalogue.NodeDead:
		d.nodeDead(s.Datanode)
		return
	case catalogue.NodeHealthyReadonly, catalogue.NodeHealthy:
		d.dead.Delete(datanodeKey(s.Datanode))
		return
	case catalogue.ReplicaDeleteSent:
		// Forced deletes due to CONTAINER_NOT_FOUND pass on: they explain
		// the datanode's lines of the same replica.
		if !s.Force || !s.NonEmpty || s.Index != 0 {
			return
		}
	case catalogue.ReplicaDeleteSkipped:
		// The follower's line prints neither force nor reason: the forced
		// path is a non-empty RATIS replica of a DELETING/DELETED container
		// (or of an unknown one, with hdds.scm.unknown-container.action=DELETE).
		if cs := s.Attrs["container_state"]; !s.NonEmpty || s.Index != 0 || (cs != "DELETED" && cs != "DELETING" && cs != "NOT_FOUND") {
			return
		}
	case catalogue.DNContainerMarkedDeleted:
		if !s.NonEmpty || s.Index != 0 {
			return
		}
	case catalogue.DNContainerForceDeleted:
		if s.Index != 0 {
			return
		}
	case catalogue.ContainerResurrected:
	default:
		return
	}
	if o, _ := d.open.Get(s.Container); o != nil && o.resurrected == nil {
		d.apply(o, s)
		d.emit(o, emit)
		return
	}
	d.remember(s)
}

// deletion handles T40.
func (d *detector) deletion(s *catalogue.Signal, emit detectors.Emit) {
	if s.MaxBCSID >= s.BCSID {
		return // every replica SCM knows is at the container's BCSID: really empty
	}
	if o, _ := d.open.Get(s.Container); o != nil && o.resurrected == nil {
		o.repeats++
		o.last = maxTime(o.last, s.Time)
		o.ev.Add(detectors.EvidenceOf(s))
		d.emit(o, emit)
		return
	}
	o := &occurrence{container: s.Container, start: s.Time, last: s.Time, scm: s.Host, bcsid: s.BCSID,
		maxReplica: s.MaxBCSID, known: s.Count, origins: uuids(s.Attrs["origins"]), followers: map[string]int{}}
	o.key = d.key(s.Container)
	for _, dn := range d.dead.All() {
		if !slices.Contains(o.origins, dn.UUID) {
			o.deadThen = append(o.deadThen, dn)
		}
	}
	d.open.Put(o.container, o)
	o.ev.Add(detectors.EvidenceOf(s))
	// Lines of other hosts whose clocks run behind may come before the deletion.
	var replay []catalogue.Signal
	d.early.DeleteFunc(func(e catalogue.Signal) bool {
		if e.Container == s.Container && !e.Time.Before(s.Time.Add(-d.tolerance)) {
			replay = append(replay, e)
			return true
		}
		return false
	})
	for i := range replay {
		if o.resurrected == nil {
			d.apply(o, &replay[i])
		}
	}
	d.emit(o, emit)
}

// emit reports o's finding and remembers the datanode names it used.
func (d *detector) emit(o *occurrence, emit detectors.Emit) {
	f := d.finding(o)
	o.named = naming(f)
	emit(f)
}

// naming is the text of a finding that names datanodes.
func naming(f detectors.Finding) string {
	return f.Summary + "\x00" + f.Facts["known_replica_datanodes"] + "\x00" + f.Facts["dead_datanodes_at_deletion"]
}

// rename re-reports the findings that name their datanodes differently now
// that the run knows more identities (a UUID learned to be on a host).
func (d *detector) rename(emit detectors.Emit) {
	if g := d.env.Identity.Generation(); g != d.identities {
		d.identities = g
		for _, o := range d.open.Values() {
			if f := d.finding(o); naming(f) != o.named {
				o.named = naming(f)
				emit(f)
			}
		}
	}
}

// apply adds a later line about the container to o.
func (d *detector) apply(o *occurrence, s *catalogue.Signal) {
	o.last = maxTime(o.last, s.Time)
	switch s.Kind {
	case catalogue.ContainerResurrected:
		c := *s
		o.resurrected = &c
		o.ev.Add(detectors.EvidenceOf(s))
		return
	case catalogue.ReplicaDeleteSent, catalogue.ReplicaDeleteSkipped:
		v := o.victim(d.env.Identity.Complete(s.Datanode), s.Attrs["origin"])
		d.count(o, v)
		if notFound(s) {
			v.otherReason = "CONTAINER_NOT_FOUND"
			return
		}
		v.ev.Add(detectors.EvidenceOf(s))
		if s.BCSID <= o.maxReplica {
			v.stale = true // its blocks were deleted on the replicas SCM knew
			return
		}
		v.replicaState, v.replicaBCSID = s.State, s.BCSID
		if s.Kind == catalogue.ReplicaDeleteSent {
			if v.sent == 0 {
				v.sentBy, v.sentAt, v.reason = s.Host, s.Time, s.Reason
			}
			v.sent++
		} else {
			v.skipped++
			o.followers[s.Host]++
		}
	case catalogue.DNContainerMarkedDeleted:
		v := o.victim(d.env.Identity.Complete(catalogue.Datanode{Host: s.Host}), s.Attrs["origin"])
		d.count(o, v)
		v.ev.Add(detectors.EvidenceOf(s))
		if v.markedAt.IsZero() {
			v.markedAt, v.markedFrom = s.Time, s.Attrs["from"]
		}
		if s.Pipeline != "" && !slices.Contains(o.pipelines, s.Pipeline) {
			o.pipelines = append(o.pipelines, s.Pipeline)
		}
	case catalogue.DNContainerForceDeleted:
		v := o.victim(d.env.Identity.Complete(catalogue.Datanode{Host: s.Host}), "")
		d.count(o, v)
		v.ev.Add(detectors.EvidenceOf(s))
		if s.BCSID <= o.maxReplica {
			v.stale = true
			return
		}
		if v.loggedAt.IsZero() {
			v.loggedAt, v.loggedBCSID = s.Time, s.BCSID
		}
	}
}

// forceSample handles a forceDeletes sample: above the count when a victim
// appeared, it shows that the datanode carried out a forced delete.
func (d *detector) forceSample(s *catalogue.Signal, emit detectors.Emit) {
	if s.Metric != forceDeletes {
		return
	}
	key := detectors.HostKey(s.Host)
	cs := d.forced.Observe(key, s)
	for _, o := range d.open.Values() {
		shown := false
		for _, v := range o.victims {
			if v.counted && detectors.HostKey(v.dn.Host) == key {
				shown = v.forceShown(cs, o.start) || shown
			}
		}
		if shown && o.resurrected == nil {
			d.emit(o, emit)
		}
	}
}

// count reads forceDeletes for a victim when it appears: the baseline, and
// an untimed snapshot that may show the forced delete.
func (d *detector) count(o *occurrence, v *victim) {
	if v.counted || v.dn.Host == "" {
		return
	}
	key := detectors.HostKey(v.dn.Host)
	v.counted, v.forceBase = true, d.forced.Baseline(key)
	if cs, ok := d.forced.Untimed(key); ok {
		v.forceShown(cs, o.start)
	}
}

// forceShown marks v's forced delete as counted by the sample cs, if cs
// shows it; it reports whether it did.
func (v *victim) forceShown(cs detectors.CounterSample, start time.Time) bool {
	if v.forceMetric || !cs.Shows(start, v.forceBase) {
		return false
	}
	v.forceMetric = true
	v.ev.Add(cs.Ev)
	return true
}

// victim returns the entry of datanode dn, matched by UUID or host, or by the
// replica's origin UUID when one side names the datanode differently (e.g.
// a docker-compose service name in its log, the FQDN in SCM's).
func (o *occurrence) victim(dn catalogue.Datanode, origin string) *victim {
	origin = strings.ToLower(origin)
	for _, v := range o.victims {
		byOrigin := origin != "" && (v.origin == origin || v.dn.UUID == origin) || dn.UUID != "" && v.origin == dn.UUID
		if !sameDatanode(v.dn, dn) && !byOrigin {
			continue
		}
		if v.dn.UUID == "" {
			v.dn.UUID = dn.UUID
		}
		if v.dn.Host == "" || dn.Host != "" && strings.Contains(dn.Host, ".") && !strings.Contains(v.dn.Host, ".") {
			v.dn.Host = dn.Host // prefer the FQDN SCM prints
		}
		if v.dn.IP == "" {
			v.dn.IP = dn.IP
		}
		if v.origin == "" {
			v.origin = origin
		}
		return v
	}
	v := &victim{dn: dn, origin: origin}
	o.victims = append(o.victims, v)
	return v
}

// notFound reports whether a report handler's line is about a container SCM
// does not know (a forced delete due to CONTAINER_NOT_FOUND, only with
// hdds.scm.unknown-container.action=DELETE), not a DELETED/DELETING one.
func notFound(s *catalogue.Signal) bool {
	return s.Reason == "CONTAINER_NOT_FOUND" || s.Attrs["container_state"] == "NOT_FOUND"
}

func sameDatanode(a, b catalogue.Datanode) bool {
	if a.UUID != "" && b.UUID != "" {
		return a.UUID == b.UUID
	}
	return a.Host != "" && b.Host != "" && detectors.HostKey(a.Host) == detectors.HostKey(b.Host)
}

// nodeDead records a datanode SCM moved to DEAD (T15), keeping at most
// max_containers of them.
func (d *detector) nodeDead(dn catalogue.Datanode) {
	k := datanodeKey(dn)
	if k == "" {
		return
	}
	d.dead.Put(k, dn)
}

func datanodeKey(dn catalogue.Datanode) string {
	if dn.UUID != "" {
		return dn.UUID
	}
	return detectors.HostKey(dn.Host)
}

// remember keeps a line that came before any deletion of its container, for
// skew_tolerance.
func (d *detector) remember(s *catalogue.Signal) {
	d.early.Push(*s)
}

// Advance forgets early lines older than the skew tolerance, and deletions
// with no new line for the horizon (their finding stays as last emitted),
// and re-reports findings that can name more datanodes than when they were
// reported. No decision waits for a deadline: every finding is emitted when
// it changes.
func (d *detector) Advance(now time.Time, emit detectors.Emit) {
	d.rename(emit)
	cut := now.Add(-d.tolerance)
	d.early.DropWhile(func(s catalogue.Signal) bool { return s.Time.Before(cut) })
	if d.sweep.Due(now, time.Minute) {
		cut := now.Add(-horizon)
		d.open.DeleteFunc(func(_ uint64, o *occurrence) bool { return o.last.Before(cut) })
	}
}

// Quiet implements detectors.Sleeper: Advance renames findings only when
// the identities change, which the engine watches.
func (d *detector) Quiet(time.Time) time.Time {
	q := d.sweep.Quiet()
	if d.early.Len() > 0 {
		q = detectors.Earliest(q, d.early.At(0).Time.Add(d.tolerance))
	}
	return q
}

// Flush ends the input: every finding was emitted when it changed and stays
// as it is (firing unless resurrected), named with what the run learned.
func (d *detector) Flush(_ time.Time, emit detectors.Emit) {
	d.rename(emit)
	d.early.Clear()
}

// key names an occurrence: "container-<id>", with "-<n>" for the n-th unsafe
// deletion of the same container.
func (d *detector) key(container uint64) string {
	n, _ := d.seq.Get(container)
	n++
	d.seq.Put(container, n)
	if n > 1 {
		return fmt.Sprintf("container-%d-%d", container, n)
	}
	return fmt.Sprintf("container-%d", container)
}

// finding renders o.
func (d *detector) finding(o *occurrence) detectors.Finding {
	f := detectors.Finding{
		Key:        o.key,
		Severity:   detectors.Warning,
		Confidence: detectors.Medium,
		Start:      o.start,
		End:        o.start,
		State:      detectors.Firing,
		Facts:      map[string]string{},
	}
	var forced, confirmed, unknownBCSID []*victim
	lines, dropped := o.ev.List(), o.ev.Dropped()
	for _, v := range o.victims {
		// A datanode's UUID or host may have been learned since the line.
		v.dn = d.env.Identity.Complete(v.dn)
		if !v.lost() {
			continue
		}
		forced = append(forced, v)
		if v.dnSeen() {
			confirmed = append(confirmed, v)
		}
		if !v.bcsidKnown() {
			unknownBCSID = append(unknownBCSID, v)
		}
		lines = append(lines, v.ev.List()...)
		dropped += v.ev.Dropped()
	}
	// Critical as soon as a non-empty replica was force-deleted; high
	// confidence only when a line showed its BCSID above the max replica
	// BCSID (else it may have been a stale replica).
	if len(forced) > 0 {
		f.Severity, f.Confidence = detectors.Critical, detectors.High
		if len(unknownBCSID) == len(forced) {
			f.Confidence = detectors.Medium
		}
	}

	// Entities: the container, the hosts, the datanodes that lost a replica
	// first, then the ones whose empty replicas SCM knew.
	f.Entities.Containers = []uint64{o.container}
	hosts := []string{o.scm}
	var known []catalogue.Datanode
	for _, v := range forced {
		f.Entities.Datanodes = append(f.Entities.Datanodes, v.dn)
		hosts = append(hosts, v.sentBy)
		if v.dnSeen() {
			hosts = append(hosts, v.dn.Host)
		}
	}
	for h := range o.followers {
		hosts = append(hosts, h)
	}
	var deadThen []catalogue.Datanode
	for _, dn := range o.deadThen {
		dn = d.env.Identity.Complete(dn)
		deadThen = append(deadThen, dn)
		f.Entities.Datanodes = append(f.Entities.Datanodes, dn)
	}
	for _, u := range o.origins {
		dn := d.env.Identity.Complete(catalogue.Datanode{UUID: u})
		known = append(known, dn)
		f.Entities.Datanodes = append(f.Entities.Datanodes, dn)
	}
	if o.resurrected != nil {
		hosts = append(hosts, o.resurrected.Host)
		if dn := d.env.Identity.Complete(o.resurrected.Datanode); !dn.IsZero() {
			f.Entities.Datanodes = append(f.Entities.Datanodes, dn)
		}
	}
	f.Entities.Hosts = detectors.SortedUnique(hosts)
	f.Entities.Datanodes = uniqueDatanodes(f.Entities.Datanodes)
	f.Entities.Pipelines = append([]string(nil), o.pipelines...)

	// Facts.
	f.Facts["scm"] = o.scm
	f.Facts["container_bcsid"] = strconv.FormatInt(o.bcsid, 10)
	f.Facts["max_replica_bcsid"] = strconv.FormatInt(o.maxReplica, 10)
	f.Facts["known_replicas"] = strconv.FormatInt(o.known, 10)
	f.Facts["known_replica_datanodes"] = datanodeList(known)
	if len(deadThen) > 0 {
		f.Facts["dead_datanodes_at_deletion"] = datanodeList(deadThen)
	}
	f.Facts["skew_tolerance"] = d.tolerance.String() + " (" + d.tolSource + ")"
	if o.repeats > 0 {
		f.Facts["repeated_deletions"] = strconv.Itoa(o.repeats)
	}
	signature := "T40 unsafe deletion (max replica BCSID < container BCSID)"
	if len(forced) > 0 {
		var names, details []string
		scm, dn := false, false
		for _, v := range forced {
			names = append(names, detectors.DatanodeName(v.dn))
			details = append(details, v.describe())
			scm = scm || v.scmSeen()
			dn = dn || v.dnSeen()
		}
		f.Facts["forced_delete_datanodes"] = strings.Join(names, ", ")
		f.Facts["forced_deletes"] = strings.Join(details, "; ")
		switch {
		case scm && dn:
			signature += " + SCM forced delete of a non-empty replica + datanode confirmation"
		case scm:
			signature += " + SCM forced delete of a non-empty replica"
		default:
			signature += " + datanode forced delete of a non-empty replica"
		}
		if len(unknownBCSID) == len(forced) {
			signature += " (replica BCSID unknown)"
		}
	}
	if len(unknownBCSID) > 0 {
		var names []string
		for _, v := range unknownBCSID {
			names = append(names, detectors.DatanodeName(v.dn))
		}
		f.Facts["replica_bcsid_unknown"] = strings.Join(names, ", ") + ": only the datanode's \"Marked container " +
			"DELETED ... non-empty\" line (T46, which prints no BCSID) was found, neither SCM's forced-delete line nor " +
			"the dn-container log; the replica may have been a stale one with a BCSID not above " +
			strconv.FormatInt(o.maxReplica, 10)
	}
	if len(confirmed) > 0 {
		var c, skew []string
		for _, v := range confirmed {
			c = append(c, v.confirmation())
			if behind, ok := v.clockBehind(); ok {
				skew = append(skew, fmt.Sprintf("%s logged the forced delete %s before %s sent it: its clock is at least %s behind",
					v.dn.Host, behind, v.sentBy, behind))
			}
		}
		f.Facts["dn_confirmation"] = strings.Join(c, "; ")
		if len(skew) > 0 {
			f.Facts["clock_offset"] = strings.Join(skew, "; ")
		}
	}
	if len(o.followers) > 0 {
		var fl []string
		for _, h := range detectors.SortedKeys(o.followers) {
			fl = append(fl, fmt.Sprintf("%s (%d)", h, o.followers[h]))
		}
		f.Facts["follower_skips"] = strings.Join(fl, ", ")
	}
	f.Facts["signature"] = signature
	if v := d.versions(f.Entities.Hosts); v != "" {
		f.Facts["ozone_version"] = v
	}
	detectors.SortEvidence(lines)
	if n := len(lines); n > 0 && lines[n-1].Time.After(f.End) {
		f.End = lines[n-1].Time
	}
	var kept detectors.EvidenceLog
	for _, e := range lines {
		kept.Add(e)
	}
	f.Evidence = kept.List()
	if dropped += kept.Dropped(); dropped > 0 {
		f.Facts["evidence_dropped"] = strconv.Itoa(dropped)
	}

	f.Summary = fmt.Sprintf("SCM %s deleted QUASI_CLOSED container #%d as empty at %s although the highest BCSID among "+
		"its %d known replicas (%d) is below the container's BCSID (%d)", o.scm, o.container, detectors.Stamp(o.start),
		o.known, o.maxReplica, o.bcsid)
	switch {
	case len(forced) > 0:
		var parts []string
		for _, v := range forced {
			parts = append(parts, v.sentence(o.maxReplica))
		}
		lost := ": that replica's data is lost."
		if len(unknownBCSID) == len(forced) {
			lost = ": unless it was a stale replica, its data is lost."
		}
		f.Summary += "; " + strings.Join(parts, "; ") + lost
	case o.resurrected != nil:
		f.Summary += "."
	default:
		f.Summary += ": a replica with data up to BCSID " + strconv.FormatInt(o.bcsid, 10) +
			" on a datanode that was away will be force-deleted when it reports."
	}
	if r := o.resurrected; r != nil {
		f.State = detectors.Resolved
		f.End = r.Time
		dn := detectors.DatanodeName(d.env.Identity.Complete(r.Datanode))
		f.Facts["resurrected"] = fmt.Sprintf("%s -> %s at %s from %s (%s replica, BCSID %d, %d keys)",
			r.Attrs["container_state"], r.State, detectors.Stamp(r.Time), dn, r.Attrs["replica_state"], r.BCSID, r.Count)
		f.Summary += fmt.Sprintf(" SCM resurrected the container to %s at %s from the replica on %s (BCSID %d).",
			r.State, detectors.Stamp(r.Time), dn, r.BCSID)
	}
	// The deletion and the forced delete are SCM's decisions: its version
	// says whether the defect can be (the fact above names every host's).
	doc().GateVersion(&f, d.env.Identity, o.scm)
	return f
}

// describe is a victim's entry in Facts["forced_deletes"].
func (v *victim) describe() string {
	s := detectors.DatanodeName(v.dn) + ": "
	switch {
	case v.replicaState != "":
		s += fmt.Sprintf("%s replica, BCSID %d", v.replicaState, v.replicaBCSID)
	case !v.loggedAt.IsZero():
		s += fmt.Sprintf("replica, BCSID %d", v.loggedBCSID)
	default:
		s += "replica, BCSID unknown"
	}
	if v.sent > 0 {
		s += fmt.Sprintf(", forced delete due to %s sent by %s at %s", v.reason, v.sentBy, detectors.Stamp(v.sentAt))
		if v.sent > 1 {
			s += fmt.Sprintf(" (%d times)", v.sent)
		}
	}
	if v.skipped > 0 {
		s += fmt.Sprintf(", %d follower \"Skip sending\" line(s)", v.skipped)
	}
	if v.forceMetric {
		s += fmt.Sprintf(", the datanode's /prom counted the forced delete (%s rose above %s)", forceDeletes, strconv.FormatFloat(v.forceBase, 'f', -1, 64))
	}
	return s
}

// confirmation is a victim's entry in Facts["dn_confirmation"].
func (v *victim) confirmation() string {
	var parts []string
	if !v.markedAt.IsZero() {
		parts = append(parts, fmt.Sprintf("KeyValueContainer marked the non-empty replica DELETED from %s at %s", v.markedFrom, detectors.Stamp(v.markedAt)))
	}
	if !v.loggedAt.IsZero() {
		parts = append(parts, fmt.Sprintf("dn-container log \"Container force deleted\" (BCSID %d) at %s", v.loggedBCSID, detectors.Stamp(v.loggedAt)))
	}
	return detectors.DatanodeName(v.dn) + ": " + strings.Join(parts, ", ")
}

// sentence tells what happened to a victim's replica, for the summary;
// maxReplica is the deletion's max replica BCSID.
func (v *victim) sentence(maxReplica int64) string {
	name := detectors.DatanodeName(v.dn)
	var s string
	switch {
	case v.sent > 0:
		s = fmt.Sprintf("SCM %s force-deleted the non-empty %s replica (BCSID %d) on %s at %s", v.sentBy,
			v.replicaState, v.replicaBCSID, name, detectors.Stamp(v.sentAt))
	case v.skipped > 0:
		s = fmt.Sprintf("SCM force-deleted the non-empty %s replica (BCSID %d) on %s (seen on follower SCMs)",
			v.replicaState, v.replicaBCSID, name)
	case v.bcsidKnown():
		s = "the datanode " + name + " force-deleted its non-empty replica"
	default:
		s = fmt.Sprintf("the datanode %s force-deleted its non-empty replica (BCSID unknown: no line that prints it "+
			"was found, so it may have been a stale replica at or below BCSID %d)", name, maxReplica)
	}
	dnAt := v.dnAt()
	switch {
	case dnAt.IsZero():
	case v.scmSeen():
		s += fmt.Sprintf(", and the datanode deleted it at %s", detectors.Stamp(dnAt))
		if _, behind := v.clockBehind(); behind {
			s += " (by its clock, which is behind SCM's)"
		}
	default:
		s += " at " + detectors.Stamp(dnAt)
	}
	return s
}

// dnAt is when the datanode logged the forced delete (T46, else T47).
func (v *victim) dnAt() time.Time {
	if !v.markedAt.IsZero() {
		return v.markedAt
	}
	return v.loggedAt
}

// clockBehind reports how far the datanode logged the delete before SCM
// logged sending it: the datanode's clock is at least that far behind.
func (v *victim) clockBehind() (time.Duration, bool) {
	dnAt := v.dnAt()
	if v.sent == 0 || dnAt.IsZero() || !dnAt.Before(v.sentAt) {
		return 0, false
	}
	return v.sentAt.Sub(dnAt), true
}

// versions names the Ozone version(s) the hosts reported in STARTUP_MSG.
func (d *detector) versions(hosts []string) string {
	byVersion := map[string][]string{}
	for _, h := range hosts {
		if v := d.env.Identity.Version(h); v != "" {
			byVersion[v] = append(byVersion[v], h)
		}
	}
	switch len(byVersion) {
	case 0:
		return ""
	case 1:
		for v := range byVersion {
			return v
		}
	}
	var parts []string
	for _, v := range detectors.SortedKeys(byVersion) {
		parts = append(parts, v+" ("+strings.Join(byVersion[v], ", ")+")")
	}
	return strings.Join(parts, ", ")
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// uuids reads the origin UUIDs of T40 ("a, b" or "a,b").
func uuids(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func datanodeList(dns []catalogue.Datanode) string {
	names := make([]string, len(dns))
	for i, d := range dns {
		names[i] = detectors.DatanodeName(d)
	}
	return strings.Join(names, ", ")
}

func uniqueDatanodes(dns []catalogue.Datanode) []catalogue.Datanode {
	var out []catalogue.Datanode
	for _, d := range dns {
		dup := false
		for _, o := range out {
			if sameDatanode(o, d) {
				dup = true
				break
			}
		}
		if !dup && !d.IsZero() {
			out = append(out, d)
		}
	}
	return out
}
