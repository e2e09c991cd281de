package catalogue

import (
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// FuzzMatch: no message makes the catalogue panic, and a record that is not
// a candidate never produces a signal (the prefilter loses nothing).
func FuzzMatch(f *testing.F) {
	c, err := New()
	if err != nil {
		f.Fatal(err)
	}
	f.Add("StaleNodeHandler", "Datanode 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(dn1.example.com/10.0.0.11) moved to stale state. Finalizing its pipelines [Pipeline-8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0]")
	f.Add("OzoneManagerStarter", "STARTUP_MSG: \n/****\nSTARTUP_MSG: Starting OzoneManager\nSTARTUP_MSG:        args = [--bootstrap]")
	f.Add("", "ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted")
	f.Add("RaftServer", ": remove    LEADER (CLOSING): ")
	f.Fuzz(func(t *testing.T, logger, msg string) {
		r := &parsers.Record{Logger: logger, Message: msg}
		sigs := c.Match(r)
		first := msg
		for i := 0; i < len(first); i++ {
			if first[i] == '\n' {
				first = first[:i]
				break
			}
		}
		if len(sigs) > 0 && !c.Candidate([]byte(logger), []byte(first)) {
			t.Errorf("%q produced %d signals but is not a candidate", msg, len(sigs))
		}
	})
}
