package detectors

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// transitions of three alerts: a resolves, b resolves then fires again, c
// stays firing; b starts first.
func collectorTransitions() []Transition {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	f := func(key string, start time.Duration, st State, text string) Transition {
		return Transition{To: st, Finding: Finding{Detector: "d", Key: key, Severity: Warning, State: st,
			Start: t0.Add(start), End: t0.Add(start + time.Minute), Summary: "alert " + key + " <b>",
			Entities: Entities{Datanodes: []catalogue.Datanode{{UUID: "u-" + key}}}, Facts: map[string]string{"n": text},
			Evidence: []Evidence{{File: "f.log", Line: 7, Host: "dn1", Time: t0.Add(start), Text: strings.Repeat(text, 100)}}}}
	}
	return []Transition{
		f("a", 2*time.Minute, Firing, "a1"), f("b", time.Minute, Firing, "b1"), f("c", 3*time.Minute, Firing, "c1"),
		f("a", 2*time.Minute, Resolved, "a2"), f("b", time.Minute, Resolved, "b2"), f("b", time.Minute, Firing, "b3"),
		f("a", 2*time.Minute, Resolved, "a3"),
	}
}

func collect(c *Collector) string {
	for _, t := range collectorTransitions() {
		c.Add(t)
	}
	l := c.Findings(func(f Finding) Finding { f.Remediation = []string{"fix " + f.Key}; return f }, nil)
	b, err := json.Marshal(l)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// A collector told to spill keeps the findings of resolved alerts in its
// file, brings one back when its alert fires again, and reports the same
// findings, finalized, in the same order, as one holding all in memory.
func TestCollectorSpillsResolvedFindings(t *testing.T) {
	want := collect(&Collector{})
	var c Collector
	c.Spill(t.TempDir())
	got := collect(&c)
	if got != want {
		t.Fatalf("spilling collector reports\n%s\nwant\n%s", got, want)
	}
	if i := c.index["d\x00a"]; c.spilled[i].Size == 0 || len(c.findings[i].Evidence) != 0 {
		t.Errorf("the resolved alert's finding is in memory: %+v", c.findings[i])
	}
	if i := c.index["d\x00b"]; c.spilled[i].Size != 0 || !strings.Contains(c.findings[i].Evidence[0].Text, "b3") {
		t.Errorf("the alert that fired again is not in memory: %+v", c.findings[i])
	}
	last := -1
	for _, key := range []string{"b", "a", "c"} { // by start
		at := strings.Index(got, `"key":"`+key+`"`)
		if at < last || !strings.Contains(got, `"fix `+key+`"`) {
			t.Errorf("finding %s not finalized or out of order: %s", key, got)
		}
		last = at
	}
}

// Worst reads the severity of spilled findings from their stubs, and
// leaves out what the report leaves out: pending alerts.
func TestFindingListWorst(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	var c Collector
	c.Spill(t.TempDir())
	for _, tr := range []Transition{
		{To: Firing, Finding: Finding{Detector: "d", Key: "a", Severity: Critical, State: Firing, Start: t0}},
		{To: Resolved, Finding: Finding{Detector: "d", Key: "a", Severity: Critical, State: Resolved, Start: t0}},
		{To: Firing, Finding: Finding{Detector: "d", Key: "b", Severity: Info, State: Firing, Start: t0}},
		{To: Pending, Finding: Finding{Detector: "e", Key: "c", Severity: Critical, State: Pending, Start: t0}},
	} {
		c.Add(tr)
	}
	if i := c.index["d\x00a"]; c.spilled[i].Size == 0 {
		t.Fatal("the resolved finding was not spilled")
	}
	if got := c.Findings(nil, nil).Worst(); got != Critical {
		t.Errorf("Worst = %v, want critical (the spilled finding's)", got)
	}
	if got := c.Findings(nil, func(d string) bool { return d == "e" }).Worst(); got != 0 {
		t.Errorf("Worst of only a pending finding = %v, want none", got)
	}
	if got := FindingsOf([]Finding{{Severity: Info}, {Severity: Warning}}).Worst(); got != Warning {
		t.Errorf("Worst of a slice = %v, want warning", got)
	}
}

// A spilling collector keeps whole in memory only the findings of alerts
// not resolved that were updated last (heldFindings of them), and reports
// the latest version of each, the same as one holding all in memory; a
// withdrawn alert is neither kept nor reported.
func TestCollectorSpillsFindingsNotUpdatedLately(t *testing.T) {
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	n := 3*heldFindings + 17
	var ts []Transition
	add := func(i, version int, st State) {
		key := fmt.Sprintf("k%04d", i)
		ts = append(ts, Transition{To: st, Finding: Finding{Detector: "d", Key: key, State: st, Start: t0.Add(time.Duration(i) * time.Second),
			Evidence: []Evidence{{Host: "dn1", Text: fmt.Sprintf("%s version %d", key, version)}}}})
	}
	for i := range n {
		add(i, 1, Pending)
		add(i, 2, Firing)
	}
	for i := 0; i < n; i += 3 { // every third updated again, the first of them long spilled
		add(i, 3, Firing)
	}
	add(1, 3, Inactive)
	run := func(c *Collector) string {
		for _, tr := range ts {
			c.Add(tr)
		}
		b, err := json.Marshal(c.Findings(nil, nil))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := run(&Collector{})
	var c Collector
	c.Spill(t.TempDir())
	if got := run(&c); got != want || c.SpillError() != nil {
		t.Fatalf("spilling collector (error %v) reports\n%.2000s\nwant\n%.2000s", c.SpillError(), got, want)
	}
	if !strings.Contains(want, "k0000 version 3") || strings.Contains(want, `"k0001"`) || strings.Count(want, `"key"`) != n-1 {
		t.Fatalf("the findings are not the latest of each alert less the withdrawn one: %.2000s", want)
	}
	inMemory := 0
	for i, f := range c.findings {
		if len(f.Evidence) > 0 {
			inMemory++
			if c.spilled[i].Size != 0 {
				t.Errorf("finding %s both in memory and spilled", f.Key)
			}
		}
	}
	last := c.index["d\x00"+fmt.Sprintf("k%04d", n-1-(n-1)%3)]
	if inMemory > heldFindings || len(c.findings[last].Evidence) == 0 {
		t.Errorf("%d findings whole in memory (at most %d), the one updated last among them: %v",
			inMemory, heldFindings, len(c.findings[last].Evidence) > 0)
	}
}

// A spill file that cannot be made or written leaves the findings in
// memory and says why; one that cannot be read back stops the list, and
// Err says why.
func TestCollectorSpillFailures(t *testing.T) {
	want := collect(&Collector{})
	var c Collector
	c.Spill(t.TempDir() + "/missing")
	if got := collect(&c); got != want || c.SpillError() == nil {
		t.Fatalf("with no spill file: error %v, findings\n%s\nwant\n%s", c.SpillError(), got, want)
	}

	var closed Collector
	closed.Spill(t.TempDir())
	closed.store.Close()
	if got := collect(&closed); got != want || closed.SpillError() == nil {
		t.Fatalf("with a closed spill file: error %v, findings\n%s\nwant\n%s", closed.SpillError(), got, want)
	}

	var lost Collector
	lost.Spill(t.TempDir())
	collect(&lost)
	lost.store.Close()
	l := lost.Findings(nil, nil)
	if n := len(l.Slice()); n != 1 || l.Err() == nil || !strings.Contains(l.Err().Error(), "temporary file") {
		t.Fatalf("read %d findings from a closed spill file (the first is in memory), error %v", n, l.Err())
	}
	if _, err := json.Marshal(l); err == nil {
		t.Fatal("a list that cannot be read back marshals without an error")
	}
}
