package divisionclosing

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func (d *detector) pendingFinding(v *division, now time.Time) detectors.Finding {
	f := d.finding(v, now, detectors.Pending, "")
	f.Severity = detectors.Warning
	f.Summary += " Not confirmed yet: a division is stuck when the close on its own Ratis thread or the removal in CLOSING " +
		"outlasts the grace, or when one container keeps failing over resend cycles."
	return f
}

func (d *detector) finding(v *division, end time.Time, state detectors.State, resolvedBy string) detectors.Finding {
	id := d.env.Identity
	uuid := v.peer
	if uuid == "" && id != nil {
		uuid = id.DatanodeOnHost(v.host)
	}
	dn := catalogue.Datanode{UUID: uuid, Host: v.host}
	if id != nil {
		if h := id.DatanodeHost(uuid); h != "" {
			dn.Host = h
		}
		dn = id.Complete(dn)
	}
	pipeline, _ := d.pipelines.Get(v.group)
	view := d.scmView(v, dn)

	containers := map[uint64]bool{}
	for c := range v.containers.All() {
		containers[c] = true
	}
	hosts := []string{v.host}
	if view != nil {
		for c := range view.containers.All() {
			if c != 0 {
				containers[c] = true
			}
		}
		for _, h := range view.hosts {
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	ids := detectors.SortedKeys(containers)

	if v.key == "" {
		// The datanode and the group name the incident, the number tells
		// one stuck division of theirs from another.
		d.reported++
		v.key = v.hostKey + "/" + v.group + "#" + strconv.Itoa(d.reported)
	}
	f := detectors.Finding{
		Key:      v.key,
		Severity: v.severity,
		Entities: detectors.Entities{Hosts: hosts, Datanodes: []catalogue.Datanode{dn},
			Containers: ids, RaftGroups: []string{v.group}},
		Start: v.start,
		End:   end,
		State: state,
		Facts: map[string]string{},
	}
	if pipeline != "" {
		f.Entities.Pipelines = []string{pipeline}
	}

	stuckFor := end.Sub(v.start).Round(time.Second)
	facts := f.Facts
	facts["stuck_after"] = fmt.Sprintf("%s (%s)", d.stuckAfter, d.stuckAfterSrc)
	facts["grace"] = grace.String() + " (built in: a normal close finishes in seconds)"
	facts["stuck_for"] = stuckFor.String()
	if d.writeWaitSrc != "" && d.writeWaitSrc != "unset" {
		facts["write_wait_interval"] = fmt.Sprintf("%s (%s)", d.writeWait, d.writeWaitSrc)
	}
	var seen []string
	switch {
	case v.ratisClose && v.writeTimeout:
		facts["trigger"] = "write-chunk timeout, then close server on Ratis thread " + orUnknown(v.closeThread)
		seen = append(seen, "write-chunk timeout", "close server on the Ratis thread")
	case v.ratisClose:
		facts["trigger"] = "close server on Ratis thread " + orUnknown(v.closeThread)
		seen = append(seen, "close server on the Ratis thread")
	case v.closeMetric:
		facts["trigger"] = "not in the logs; the datanode's /prom shows closeServer() ran for the group (" + csmFails + ")"
		seen = append(seen, "closeServer() in the datanode's metrics")
	default:
		facts["trigger"] = "not in the logs"
	}
	if v.closeMetric {
		facts["close_server_metric"] = csmFails + " rose above " + strconv.FormatFloat(v.closesBase, 'f', -1, 64) + " (the division's closeServer() calls)"
	}
	if v.removal != "" {
		facts["group_removal"] = strings.TrimSpace(v.removalRole + " (" + v.removal + ")")
		seen = append(seen, "group removal in "+v.removal)
	} else {
		facts["group_removal"] = "not in the logs"
	}
	facts["failed_close_attempts"] = strconv.Itoa(v.failures)
	if !v.strong() {
		// The finding rests on the failures alone: say why they count.
		facts["resend_interval"] = fmt.Sprintf("%s (%s, hdds.scm.replication.thread.interval)", d.resend, d.resendSrc)
		facts["repeat_rule"] = fmt.Sprintf("the same container failing for more than %s or in at least %d resend cycles",
			repeatFor, repeatCycles)
		if c, r := v.longestContainer(); r != nil {
			facts["repeated_container"] = fmt.Sprintf("#%d: %d failures in %d resend cycles over %s",
				c, r.n, r.cycles, r.last.Sub(r.first).Round(time.Second))
		}
	}
	if v.failures > 0 {
		facts["failed_close_not_running"] = strconv.Itoa(v.notRunning)
		facts["failed_close_group_not_found"] = strconv.Itoa(v.notFound)
		if v.rejected > 0 {
			facts["failed_close_rejected"] = strconv.Itoa(v.rejected)
		}
		seen = append(seen, fmt.Sprintf("%d failed close attempts", v.failures))
	}
	if view != nil {
		facts["scm_close_commands"] = strconv.Itoa(view.commands)
		facts["scm_container_state"] = view.state
		seen = append(seen, fmt.Sprintf("%d close commands re-sent by SCM", view.commands))
	}
	if !v.restartedAt.IsZero() {
		facts["datanode_restarted"] = v.restartedAt.UTC().Format(time.RFC3339)
	}
	if resolvedBy != "" {
		facts["resolved_by"] = resolvedBy
	}
	facts["seen"] = strings.Join(seen, ", ")
	f.Confidence = v.confidence()

	f.Evidence = v.ev.List()
	if view != nil {
		f.Evidence = append(f.Evidence, view.first)
		if view.commands > 1 {
			f.Evidence = append(f.Evidence, view.last)
		}
		detectors.SortEvidence(f.Evidence)
	}
	if v.ev.Dropped() > 0 {
		facts["evidence_dropped"] = strconv.Itoa(v.ev.Dropped())
	}
	f.Summary = summary(v, dn, pipeline, ids, view, end, stuckFor, state, resolvedBy)
	// The close on the Ratis thread is the datanode's code.
	doc().GateVersion(&f, id, v.host)
	return f
}

func summary(v *division, dn catalogue.Datanode, pipeline string, ids []uint64, view *scmView,
	end time.Time, stuckFor time.Duration, state detectors.State, resolvedBy string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Raft division %s", v.group)
	if pipeline != "" {
		fmt.Fprintf(&b, " (pipeline %s)", pipeline)
	}
	fmt.Fprintf(&b, " on datanode %s ", detectors.DatanodeName(dn))
	if state == detectors.Resolved {
		fmt.Fprintf(&b, "was stuck in CLOSING from %s to %s (%s)", detectors.Stamp(v.start), detectors.Stamp(end), stuckFor)
	} else {
		fmt.Fprintf(&b, "has been stuck in CLOSING since %s (%s at %s)", detectors.Stamp(v.start), stuckFor, detectors.Stamp(end))
	}
	var parts []string
	if v.ratisClose {
		p := "it was closed on its own Ratis thread"
		if v.writeTimeout {
			p = "a write-chunk timeout closed it on its own Ratis thread"
		}
		if v.closeThread != "" {
			p += " " + v.closeThread
		}
		parts = append(parts, p)
	}
	if v.removal == "CLOSING" {
		parts = append(parts, "the group removal found it CLOSING")
	}
	if v.failures > 0 {
		var cs []string
		for _, c := range ids {
			if r, _ := v.containers.Get(c); r != nil && r.n > 0 {
				cs = append(cs, "#"+strconv.FormatUint(c, 10))
			}
		}
		parts = append(parts, fmt.Sprintf("%d close attempts for container %s failed", v.failures, strings.Join(cs, ", ")))
	}
	if c, r := v.longestContainer(); !v.strong() && r != nil {
		parts = append(parts, fmt.Sprintf("container #%d failed in %d resend cycles over %s",
			c, r.cycles, r.last.Sub(r.first).Round(time.Second)))
	}
	if view != nil {
		parts = append(parts, fmt.Sprintf("SCM sent %d close commands (container state %s)", view.commands, view.state))
	}
	if len(parts) > 0 {
		b.WriteString(": " + strings.Join(parts, "; "))
	}
	if state == detectors.Resolved {
		b.WriteString("; resolved when " + resolvedBy)
	}
	b.WriteString(".")
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "(thread not logged)"
	}
	return s
}
