package olddatanode

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

const (
	// skewTolerance absorbs clock differences between hosts when a line of
	// one host is compared with a line of another.
	skewTolerance = 10 * time.Second
	// evidence kept from the start and from the end of the repetition.
	headEvidence = (detectors.MaxEvidence - contextEvidence) / 2
	tailEvidence = detectors.MaxEvidence - contextEvidence - headEvidence
	timeFormat   = "2006-01-02T15:04:05.000Z07:00" // first_seen and last_seen, to the millisecond
)

// occurrence is one datanode's run of fence lines, from its first line to
// the moment they stop.
type occurrence struct {
	pattern string
	wording string // newer: which check's lines (wordingMaster, wordingZDU)
	dn      catalogue.Datanode
	first   time.Time
	last    time.Time
	perSCM  map[string]*scmCount
	total   int

	dnVersion, scmVersion, dnApparent, scmApparent string
	dnOzone                                        string

	registered   *catalogue.Signal // latest registration before the first pair
	reregistered *catalogue.Signal // what followed the last line
	finalizeCmd  *catalogue.Signal
	fenced       *catalogue.Signal // T31 alone: registration refused
	refused      *catalogue.Signal // the datanode's own refusal line
	shutdown     *catalogue.Signal
	scmRestart   *catalogue.Signal // newer: an SCM started after the last line

	ev       detectors.EvidenceLog // the repetition's first and latest lines
	emitted  detectors.Confidence
	followed bool // a line telling what ended the occurrence came since it was last reported
	key      string
	dirty    bool // counted lines since the last grading
}

type scmCount struct {
	n           int
	first, last time.Time
}

func newOccurrence(pattern string, dn catalogue.Datanode, t time.Time) *occurrence {
	return &occurrence{pattern: pattern, dn: dn, first: t, last: t, perSCM: map[string]*scmCount{},
		ev: detectors.EvidenceLog{Head: headEvidence, Tail: tailEvidence}}
}

// add counts one heartbeat's lines logged by scm.
func (o *occurrence) add(scm string, t time.Time, sigs ...*catalogue.Signal) {
	if o.total == 0 {
		o.first = t
	}
	o.total++
	o.last = t
	c := o.perSCM[scm]
	if c == nil && len(o.perSCM) < maxTracked {
		c = &scmCount{first: t}
		o.perSCM[scm] = c
	}
	if c != nil {
		c.n++
		c.last = t
	}
	// The lines go on: what seemed to end them did not.
	o.reregistered, o.finalizeCmd, o.fenced, o.refused, o.shutdown, o.scmRestart = nil, nil, nil, nil, nil, nil
	o.followed = false
	for _, s := range sigs {
		o.ev.Add(detectors.EvidenceOf(s))
	}
}

// heartbeats returns the most heartbeats one SCM logged and how many SCMs
// logged at least min.
func (o *occurrence) heartbeats(min int) (beats, repeating int) {
	for _, c := range o.perSCM {
		beats = max(beats, c.n)
		if c.n >= min {
			repeating++
		}
	}
	return beats, repeating
}

func (o *occurrence) scmHosts() []string {
	hosts := make([]string, 0, len(o.perSCM))
	for h := range o.perSCM {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	return hosts
}

// emit reports an occurrence in its current state.
func (d *detector) emit(o *occurrence, state detectors.State, emit detectors.Emit) {
	conf := d.confidence(o)
	if conf == "" {
		return
	}
	o.emitted = conf
	dn := d.env.Identity.Complete(o.dn)
	if o.dnOzone == "" {
		o.dnOzone = d.version(dn.Host)
	}
	beats, repeating := o.heartbeats(d.minBeats)
	scms := o.scmHosts()

	facts := map[string]string{
		"pattern":                   o.pattern,
		"datanode":                  detectors.DatanodeName(dn),
		"datanode_host":             dn.Host,
		"datanode_software_version": o.dnVersion,
		"scm_software_version":      o.scmVersion,
		"first_seen":                o.first.Format(timeFormat),
		"last_seen":                 o.last.Format(timeFormat),
		"heartbeats":                fmt.Sprint(beats),
		"scms":                      fmt.Sprintf("%d of %d SCMs in the input logged it on ≥ %d heartbeats", repeating, d.scms.Len(), d.minBeats),
		"per_scm":                   perSCM(o, scms),
		"heartbeat_interval":        fmt.Sprintf("%s (%s)", d.hb, d.hbSource),
		"min_heartbeats":            fmt.Sprint(d.minBeats),
		"resolve_after":             fmt.Sprintf("%s (%d heartbeat intervals)", d.resolveAfter, d.resolveBeats),
	}
	if dn.UUID != "" {
		facts["datanode_uuid"] = dn.UUID
	}
	if o.dnApparent != "" {
		facts["datanode_apparent_version"] = o.dnApparent
	}
	if o.scmApparent != "" {
		facts["scm_apparent_version"] = o.scmApparent
	}
	if o.dnOzone != "" {
		facts["datanode_ozone_version"] = o.dnOzone
	}
	if v := d.scmOzoneVersion(scms); v != "" {
		facts["scm_ozone_version"] = v
	}
	if o.ev.Dropped() > 0 {
		facts["evidence_dropped"] = fmt.Sprint(o.ev.Dropped())
	}
	if o.pattern == patternOlder {
		facts["pairs"] = fmt.Sprint(o.total)
		facts["finalization_logged"] = d.finalizationFact()
		if d.requested != nil {
			facts["finalization_requested"] = detectors.Stamp(d.requested.Time) + " on " + d.requested.Host
		}
		if d.forced {
			facts["finalization_forced"] = "yes: SCM skipped its peer and datanode software version checks"
		}
		if r := d.registrationFact(o); r != "" {
			facts["registered"] = r
		}
	} else {
		// SCM's finalization is left out on purpose: these checks compare
		// software versions, which finalization does not change.
		facts["wording"] = o.wording
		facts["version_kind"] = versionKind(o)
		facts["heartbeats_logged"] = fmt.Sprint(o.total)
	}
	facts["confidence_basis"] = d.basis(o, beats, repeating)
	if state == detectors.Resolved {
		facts["resolution"] = resolution(o)
	}

	if o.key == "" { // fixed at the first report: a UUID learned later must not change it
		id := dn.UUID
		if id == "" {
			id = detectors.HostKey(dn.Host)
		}
		o.key = fmt.Sprintf("%s/%s/%s", keyPrefix(o.pattern), id, o.first.UTC().Format("20060102T150405Z"))
	}
	f := detectors.Finding{
		Key:        o.key,
		Severity:   detectors.Warning,
		Confidence: conf,
		Summary:    d.summary(o, dn, beats, len(scms), state, facts),
		Entities:   detectors.Entities{Hosts: append(scms, dn.Host), Datanodes: []catalogue.Datanode{dn}},
		Start:      o.first,
		End:        o.last,
		State:      state,
		Facts:      facts,
		Evidence:   d.evidence(o),
	}
	if o.pattern == patternNewer {
		// A misconfiguration SCM names itself, not a known defect.
		f.Defect = "unclassified"
		f.Title = titleNewer
	}
	// The unfenced pair is the SCMs' code: their versions decide (the
	// unclassified finding only gets them stated).
	doc().GateVersionFunc(&f, d.version, scms...)
	emit(f)
}

func keyPrefix(pattern string) string {
	if pattern == patternNewer {
		return "newer-datanode"
	}
	return "old-datanode"
}

// versionKind names what the versions of a newer-datanode finding are.
func versionKind(o *occurrence) string {
	if o.wording == wordingMaster {
		return "software layout version"
	}
	return "software version"
}

func perSCM(o *occurrence, scms []string) string {
	parts := make([]string, len(scms))
	for i, h := range scms {
		parts[i] = fmt.Sprintf("%s=%d", h, o.perSCM[h].n)
	}
	return strings.Join(parts, ", ")
}

func (d *detector) finalizationFact() string {
	if d.finalizedAt.IsZero() {
		return "no SCM finalization in the input"
	}
	s := d.finalized[0]
	return fmt.Sprintf("%s on %s: %q", detectors.Stamp(d.finalizedAt), s.Host, s.Text)
}

func (d *detector) scmOzoneVersion(scms []string) string {
	for _, h := range scms {
		if v := d.version(h); v != "" {
			return v
		}
	}
	return ""
}

// registrationFact says when the datanode registered and whether that was
// while SCM was finalizing (the way an old datanode gets in).
func (d *detector) registrationFact(o *occurrence) string {
	r := o.registered
	if r == nil {
		return ""
	}
	out := detectors.Stamp(r.Time) + " on " + r.Host
	switch {
	case d.requested != nil && !d.finalizedAt.IsZero() &&
		detectors.InWindow(r.Time, d.requested.Time, d.finalizedAt, skewTolerance):
		out += fmt.Sprintf(", during the finalization (requested %s, SCM finalized %s)",
			detectors.Stamp(d.requested.Time), detectors.Stamp(d.finalizedAt))
	case !d.finalizedAt.IsZero() && r.Time.Before(d.finalizedAt):
		out += ", before SCM finalized"
	}
	return out
}

func (d *detector) basis(o *occurrence, beats, repeating int) string {
	if o.pattern == patternNewer {
		return fmt.Sprintf("%s on %d heartbeats (≥ %d) on %d of %d SCMs in the input; SCM's finalization does not enter "+
			"(the check compares software versions)", o.wording, beats, d.minBeats, repeating, d.scms.Len())
	}
	what := "ERROR pair (T31+T30)"
	fin := "SCM finalization logged"
	if d.finalizedAt.IsZero() {
		fin = "no SCM finalization in the input"
	}
	if beats < d.minBeats {
		return fmt.Sprintf("%s on only %d heartbeats (< %d); %s", what, beats, d.minBeats, fin)
	}
	return fmt.Sprintf("%s on %d heartbeats (≥ %d) on %d of %d SCMs in the input; %s",
		what, beats, d.minBeats, repeating, d.scms.Len(), fin)
}

// resolution says what ended the lines, as far as the input shows.
func resolution(o *occurrence) string {
	at := func(s *catalogue.Signal) string { return detectors.Stamp(s.Time) }
	if o.pattern == patternNewer {
		switch {
		case o.scmRestart != nil:
			return fmt.Sprintf("SCM %s restarted at %s (STARTUP_MSG%s): SCM upgraded to the datanode's release, presumably",
				o.scmRestart.Host, at(o.scmRestart), versionSuffix(o.scmRestart.Version))
		case o.shutdown != nil:
			return "datanode shut down at " + at(o.shutdown)
		}
		return "the lines stopped; nothing in the input says why"
	}
	switch {
	case o.finalizeCmd != nil && o.reregistered != nil:
		return fmt.Sprintf("datanode upgraded: it re-registered at %s and the SCM leader sent it the finalize command at %s",
			at(o.reregistered), at(o.finalizeCmd))
	case o.finalizeCmd != nil:
		return "datanode upgraded: the SCM leader sent it the finalize command at " + at(o.finalizeCmd)
	case o.reregistered != nil:
		return "datanode re-registered at " + at(o.reregistered) + ", no finalize command for it in the input"
	case o.fenced != nil:
		return "datanode restarted on the old software and its registration was refused at " + at(o.fenced) + ": correct fencing"
	case o.refused != nil:
		return "the datanode logged that SCM refused its registration at " + at(o.refused) + ": correct fencing"
	case o.shutdown != nil:
		return "datanode shut down at " + at(o.shutdown)
	}
	return "the pair stopped; nothing in the input says why"
}

func (d *detector) summary(o *occurrence, dn catalogue.Datanode, beats, nSCM int, state detectors.State, facts map[string]string) string {
	name := detectors.DatanodeName(dn)
	span := fmt.Sprintf("from %s to %s", detectors.Stamp(o.first), detectors.Stamp(o.last))
	end := ", still at the end of the input."
	if state == detectors.Resolved {
		end = ", then stopped (" + facts["resolution"] + ")."
	}
	if o.pattern == patternNewer {
		return fmt.Sprintf("Datanode %s runs newer software than SCM: its %s %s is above SCM's %s. %d SCM(s) logged %s "+
			"for it on %d heartbeats %s%s The datanode was upgraded before SCM (wrong upgrade order); this is not HDDS-17425.",
			name, versionKind(o), o.dnVersion, o.scmVersion, nSCM, o.wording, beats, span, end)
	}
	dnv, scmv := o.dnVersion, o.scmVersion
	if v := facts["datanode_ozone_version"]; v != "" {
		dnv += ", Ozone " + v
	}
	if v := facts["scm_ozone_version"]; v != "" {
		scmv += ", Ozone " + v
	}
	fin := "No SCM finalization is in the input."
	if !d.finalizedAt.IsZero() {
		fin = "SCM finalization logged at " + detectors.Stamp(d.finalizedAt) + "."
	}
	return fmt.Sprintf("Datanode %s runs older software (%s) than the finalized SCM (%s) but was not fenced: "+
		"%d SCM(s) logged the 'older than SCM software version … and SCM is finalized' + 'Invalid datanode in the cluster' "+
		"ERROR pair for it on %d heartbeats %s%s %s",
		name, dnv, scmv, nSCM, beats, span, end, fin)
}

// evidence returns the finalization, registration and resolution lines and
// the first and latest lines of the repetition, in time order.
func (d *detector) evidence(o *occurrence) []detectors.Evidence {
	var ctx []*catalogue.Signal
	if o.pattern == patternNewer {
		ctx = append(ctx, o.scmRestart, o.shutdown)
	} else {
		if len(d.finalized) > 0 {
			ctx = append(ctx, d.finalized[0])
		}
		if d.requested != nil {
			ctx = append(ctx, d.requested)
		}
		ctx = append(ctx, o.registered, o.reregistered, o.finalizeCmd, o.fenced, o.refused, o.shutdown)
	}
	var out []detectors.Evidence
	for _, s := range ctx {
		if s != nil && len(out) < contextEvidence {
			out = append(out, detectors.EvidenceOf(s))
		}
	}
	out = append(out, o.ev.List()...)
	detectors.SortEvidence(out)
	return out
}

func versionSuffix(v string) string {
	if v == "" {
		return ""
	}
	return ", version " + v
}
