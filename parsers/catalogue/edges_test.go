package catalogue

import (
	"regexp"
	"testing"
)

// A literal's edges are glued where its pattern lets a message put a word
// character right against them (or cannot tell), and free where the pattern
// puts a separator or the message start there.
func TestLiteralEdges(t *testing.T) {
	cases := []struct {
		pattern, lit  string
		before, after bool
	}{
		// T43: "Sending {}DeleteContainerCommand due to {} for {}".
		{`Sending (?P<force>force)?DeleteContainerCommand due to (?P<reason>[A-Z_]+) for `, "DeleteContainerCommand due to ", true, true},
		{`Resurrecting container #(?P<container>\d+) from`, "Resurrecting container ", false, false},
		{`^(?:(?P<om>[^\s\[\]]+)\[(?P<omaddr>[^\]]*?)\]: )?Stopping Ozone Manager[ \t]*$`, "Stopping Ozone Manager", false, true},
		{`\A\s*Failed to Bootstrap OM\.[ \t]*(?:\r?\n|\z)`, "Failed to Bootstrap OM.", false, true},
		{`(?:Terminating with exit status|Exiting with status) (?P<count>-?\d+)`, "Exiting with status ", false, true}, // the trailing space is not written out: unknown,
		{`ID=(?P<c>\d+) \|.*?Ratis group removed`, "Ratis group removed", true, true},
		{`Registered datanode: (?P<dn>\S+)`, "Registered datanode: ", false, true},
		{`(?P<x>\w+) moved to HEALTHY state\.$`, " moved to HEALTHY state.", true, false},
		{`Could not finalize pipeline=(?P<p>\S+)`, "Could not finalize pipeline=", false, true},
		{`no literal here`, "Absent words", true, true},
	}
	for _, c := range cases {
		cat, err := New(Entry{Kind: "K", Literals: []string{c.lit}, Pattern: regexp.MustCompile(c.pattern)})
		if err != nil {
			t.Fatal(err)
		}
		got := cat.LiteralEdges()
		if len(got) != 1 || got[0].GluedBefore != c.before || got[0].GluedAfter != c.after {
			t.Errorf("%q in %q: %+v, want before %v after %v", c.lit, c.pattern, got, c.before, c.after)
		}
	}
}
