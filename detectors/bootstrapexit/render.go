package bootstrapexit

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// finding renders an attempt.
func (d *detector) finding(a *attempt, sev detectors.Severity, end time.Time) detectors.Finding {
	node := d.nodeOf(a)
	nodeName := node
	if nodeName == "" {
		nodeName = "<node-id>"
	}
	listed, listedAt, _ := d.ringState(a)
	label, _, indicative := d.failure(a)
	var r *ringNode
	if node != "" {
		r, _ = d.rings.Get(node)
	}
	from := a.runStart.Add(-d.tol)
	if a.key == "" {
		// Fixed at the first emission: a node ID learned later does not
		// make the finding a new one. The OM and its host name the
		// incident, the number tells one failed bootstrap of theirs from
		// another.
		d.reported++
		a.key = nodeName + "@" + a.host + "#" + strconv.Itoa(d.reported)
	}

	f := detectors.Finding{
		Key:      a.key,
		Severity: sev,
		Start:    a.failed.Time,
		End:      end,
		State:    detectors.Firing,
		Facts:    map[string]string{},
	}
	facts := f.Facts
	facts["clock_tolerance"] = d.tol.String() + " (" + d.tolSrc + ")"
	facts["om_node"] = nodeName
	facts["om_host"] = a.hostName
	facts["om_address"] = d.address(a, r)
	facts["exit_time"] = detectors.Stamp(a.failed.Time)
	facts["failure"] = label
	facts["heartbeat_metric"] = "ratis_server_" + metricName(nodeName) + "_lastHeartbeatElapsedTime"
	facts["om_service_id"] = d.serviceID(a)
	version := d.env.Identity.Version(a.hostName)
	if a.startup != nil {
		facts["bootstrap_args"] = "[" + a.startup.Attrs["args"] + "]"
		if a.startup.Version != "" {
			version = a.startup.Version
		}
	}
	if a.shutdown != nil {
		facts["exit"] = "SHUTDOWN_MSG at " + detectors.Stamp(a.shutdown.Time) + " with no RECEIVED SIGNAL or Terminating line before it"
	} else {
		facts["exit"] = "no SHUTDOWN_MSG in the bundle; the OM exits after \"Failed to Bootstrap OM.\""
	}
	if e := d.bootstrapError(a); e != nil {
		facts["error_code"] = e.Attrs["code"]
		facts["error_message"] = e.Reason
	}

	hosts := []string{a.hostName}
	nodes := []string{}
	if node != "" {
		nodes = append(nodes, node)
	}
	var groups []string
	addGroup := func(g string) {
		if g != "" && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	addHost := func(h string) {
		for _, x := range hosts {
			if hostKey(x) == hostKey(h) {
				return
			}
		}
		hosts = append(hosts, h)
	}

	var ev []catalogue.Signal
	if a.startup != nil {
		ev = append(ev, *a.startup)
	}
	if a.transitional != nil {
		ev = append(ev, *a.transitional)
		addGroup(a.transitional.Group)
	}
	if r != nil {
		subs := d.own(a, r.submits)
		ev = append(ev, subs...)
		if len(subs) > 0 {
			leader := subs[0].Attrs["leader"]
			facts["leader"] = leader + " (" + subs[0].Host + ")"
			addHost(subs[0].Host)
			if leader != "" && !slices.Contains(nodes, leader) {
				nodes = append(nodes, leader)
			}
			addGroup(subs[0].Group)
		}
		fails := d.own(a, r.failures)
		ev = append(ev, fails...)
		for _, x := range fails {
			addGroup(x.Group)
		}
	}
	ev = append(ev, a.received...)
	for _, s := range a.stepDowns {
		ev = append(ev, s)
		if facts["leader_step_down"] == "" {
			facts["leader_step_down"] = s.Peer + " at " + detectors.Stamp(s.Time) + " for " + s.Reason
		}
	}
	ev = append(ev, a.failed)
	if e := d.bootstrapError(a); e != nil { // the error the facts name, not an earlier run's
		ev = append(ev, *e)
	}
	if a.shutdown != nil {
		ev = append(ev, *a.shutdown)
	}
	if r != nil {
		ev = append(ev, d.own(a, r.added)...)
	}
	var listedBy []string
	for _, s := range a.firstListing {
		ev = append(ev, s)
		if hostKey(s.Host) != a.host {
			addHost(s.Host)
			listedBy = append(listedBy, s.Host)
		}
		addGroup(s.Group)
	}
	if a.lastListing != nil && (len(a.firstListing) == 0 || a.lastListing.Origin != a.firstListing[len(a.firstListing)-1].Origin) {
		ev = append(ev, *a.lastListing)
	}
	if a.remoteHas != nil {
		ev = append(ev, *a.remoteHas)
	}
	ev = append(ev, a.reruns...)
	if a.unlisting != nil {
		ev = append(ev, *a.unlisting)
	}
	if r != nil {
		ev = append(ev, since(r.removed, from)...)
	}
	if a.resolution != nil && !containsOrigin(ev, a.resolution) {
		ev = append(ev, *a.resolution)
	}
	if len(a.firstListing) > 0 {
		c := a.firstListing[0]
		desc := "applied at " + detectors.Stamp(c.Time) + " on " + c.Host
		if c.Kind == catalogue.OMConfChanged {
			desc += fmt.Sprintf(" (term %d, index %d)", c.Term, c.Index)
		} else {
			desc += fmt.Sprintf(" (index %d)", c.Index)
		}
		facts["committed_configuration"] = desc + ": " + strings.Join(c.Peers, ", ")
	}
	switch {
	case listed:
		facts["ring"] = "lists " + nodeName
	case d.ringShown(a):
		facts["ring"] = "does not list " + nodeName
	default:
		facts["ring"] = "unknown"
	}
	if len(listedBy) > 0 {
		facts["listed_by"] = strings.Join(listedBy, ", ")
	}
	if len(a.reruns) > 0 {
		facts["bootstrap_reruns"] = strconv.Itoa(countKind(a.reruns, catalogue.StartupMsg))
	}

	// Confidence.
	switch {
	case sev == detectors.Critical && a.shutdown != nil && (len(listedBy) > 0 || (r != nil && len(d.own(a, r.added)) > 0)):
		f.Confidence = detectors.High
	case sev == detectors.Critical:
		f.Confidence = detectors.Medium
	case indicative || a.transitional != nil:
		f.Confidence = detectors.Medium
	default:
		f.Confidence = detectors.Low
	}

	// Summary.
	what := "OM " + nodeName + " on " + a.hostName
	if node == "" {
		what = "The OM on " + a.hostName
	}
	exit := fmt.Sprintf("%s exited at %s after `ozone om --bootstrap` failed (%s)", what, detectors.Stamp(a.failed.Time), label)
	if sev == detectors.Warning {
		f.Summary = exit + "; the bundle does not show the other OMs after the exit, so it cannot tell whether the ring committed it as a voter. " +
			"Check the other OMs' notifyConfigurationChanged peer lists."
	} else {
		by := "the ring"
		if len(listedBy) > 0 {
			by = strings.Join(listedBy, ", ")
		}
		how := fmt.Sprintf("%s applied a configuration listing it at %s", by, detectors.Stamp(listedAt))
		if len(listedBy) == 0 && r != nil && len(d.own(a, r.added)) > 0 {
			x := d.own(a, r.added)[0]
			how = fmt.Sprintf("the leader on %s logged \"add OM %s in Ratis group\" at %s", x.Host, nodeName, detectors.Stamp(x.Time))
		} else if len(listedBy) == 0 && a.remoteHas != nil {
			how = fmt.Sprintf("a re-run of the bootstrap found it already in %s's peers at %s", a.remoteHas.Attrs["remote"], detectors.Stamp(a.remoteHas.Time))
		}
		f.Summary = exit + ", but the ring committed it as a voter: " + how + ". The ring has a voter that is down."
	}
	if a.resolution != nil {
		f.State = detectors.Resolved
		f.End = a.resolution.Time
		f.Summary += fmt.Sprintf(" Resolved at %s: %s.", detectors.Stamp(a.resolution.Time), a.resolvedBy)
		facts["resolved_by"] = a.resolvedBy
	}

	f.Entities = detectors.Entities{Hosts: hosts, OMNodes: nodes, RaftGroups: groups}
	f.Evidence, facts["evidence_dropped"] = evidence(ev, a.failed.Time)
	if facts["evidence_dropped"] == "0" {
		delete(facts, "evidence_dropped")
	}
	// The exit on a failed reply is the bootstrapping OM's code: the
	// version its own STARTUP_MSG printed decides.
	doc().GateVersionFunc(&f, func(string) string { return version }, a.hostName)
	return f
}

// evidence orders lines by time (untimed .out lines at the failure), file
// and line, without duplicates, and keeps the first and the latest ones.
func evidence(sigs []catalogue.Signal, untimedAt time.Time) ([]detectors.Evidence, string) {
	at := func(s catalogue.Signal) time.Time {
		if s.Time.IsZero() {
			return untimedAt
		}
		return s.Time
	}
	sort.SliceStable(sigs, func(i, j int) bool {
		ti, tj := at(sigs[i]), at(sigs[j])
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		if sigs[i].Origin.File != sigs[j].Origin.File {
			return sigs[i].Origin.File < sigs[j].Origin.File
		}
		return sigs[i].Origin.Line < sigs[j].Origin.Line
	})
	var kept detectors.EvidenceLog
	seen := map[parsers.Origin]bool{}
	for i := range sigs {
		if seen[sigs[i].Origin] {
			continue
		}
		seen[sigs[i].Origin] = true
		kept.Add(detectors.EvidenceOf(&sigs[i]))
	}
	return kept.List(), strconv.Itoa(kept.Dropped())
}

// address returns the new OM's host name as the ring knows it: from the
// leader's add request, else its STARTUP_MSG, else the bundle's host name.
func (d *detector) address(a *attempt, r *ringNode) string {
	if r != nil {
		for _, x := range d.own(a, r.submits) {
			if h := x.Attrs["omhost"]; h != "" {
				return h
			}
		}
	}
	if a.startup != nil && a.startup.Attrs["hostname"] != "" {
		return a.startup.Attrs["hostname"]
	}
	return a.hostName
}

// serviceID returns the OM service ID from the bootstrap run's STARTUP_MSG
// conf or the cluster settings.
func (d *detector) serviceID(a *attempt) string {
	if a.startup != nil && a.startup.Attrs["conf"] != "" {
		if v := site.ParseStartupConf(a.startup.Attrs["conf"])["ozone.om.service.ids"]; v != "" {
			return v
		}
	}
	if d.env.Settings != nil {
		if v, _, ok := d.env.Settings.Get("ozone.om.service.ids"); ok && v != "" {
			return v
		}
	}
	return "<om-service-id>"
}

// metricName sanitises a peer ID as the Ratis Dropwizard export does
// ("omNode-bootstrap-1" -> "omNode_bootstrap_1").
func metricName(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

func containsOrigin(xs []catalogue.Signal, s *catalogue.Signal) bool {
	for _, x := range xs {
		if x.Origin == s.Origin && x.Kind == s.Kind {
			return true
		}
	}
	return false
}

func countKind(xs []catalogue.Signal, k catalogue.Kind) int {
	n := 0
	for _, x := range xs {
		if x.Kind == k {
			n++
		}
	}
	return n
}
