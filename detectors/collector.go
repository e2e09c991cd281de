package detectors

// Collector keeps what a report shows from a run's transitions: the latest
// version of every alert that fired or resolved, whether or not the engine
// still remembers it. Pending alerts at the end and withdrawn ones are left
// out. Its size is the number of distinct alerts of the run.
type Collector struct {
	index    map[string]int // detector + "\x00" + key -> findings index
	findings []Finding      // in order of first transition
	gone     []bool         // withdrawn
}

// Add records one transition; it is a subscriber of the engine.
func (c *Collector) Add(t Transition) {
	if c.index == nil {
		c.index = map[string]int{}
	}
	k := t.Finding.Detector + "\x00" + t.Finding.Key
	i, ok := c.index[k]
	if !ok {
		i = len(c.findings)
		c.index[k] = i
		c.findings = append(c.findings, Finding{})
		c.gone = append(c.gone, false)
	}
	c.findings[i] = t.Finding
	c.gone[i] = t.To == Inactive
}

// Findings returns the findings to report, finalized by e and sorted by
// start and detector; keep, if not nil, selects the detectors reported.
func (c *Collector) Findings(e *Engine, keep func(detector string) bool) []Finding {
	out := []Finding{}
	for i, f := range c.findings {
		if c.gone[i] || f.State == Pending || keep != nil && !keep(f.Detector) {
			continue
		}
		out = append(out, e.Finalize(f))
	}
	SortFindings(out)
	return out
}
