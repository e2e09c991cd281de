package signatures_test

import (
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// The HDDS-17425 signature (old-datanode-after-finalize) fed signals
// directly: its T31/T30 pairs compare the datanodes' hosts by hostkey,
// which keeps an IP whole.

// pair17425 is a T31 (SCMNodeManager.java:2068) naming the datanode
// uuid at t31host, and the T30 (SCMNodeManager.java:771) SCM logs after
// it naming t30host, on scm1's heartbeat thread.
func pair17425(when time.Time, uuid, t31host, t30host string) []catalogue.Signal {
	base := catalogue.Signal{Time: when, Host: "scm1.example.com", Component: parsers.ComponentSCM,
		Level: parsers.LevelError, Thread: "IPC Server handler 3 on 9861"}
	t31, t30 := base, base
	t31.Kind, t31.Datanode = catalogue.OldDatanodeOnFinalizedSCM, catalogue.Datanode{UUID: uuid, Host: t31host}
	t31.Version, t31.Version2 = "2.1.0", "2.2.0"
	t30.Kind, t30.Time, t30.Datanode = catalogue.InvalidDatanode, when.Add(time.Millisecond), catalogue.Datanode{Host: t30host}
	return []catalogue.Signal{t31, t30}
}

func Test17425PairsCompareWholeIPs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		t30IP string
		want  int
	}{
		{"the same datanode by IP", "10.0.0.5", 1},
		{"near miss: another datanode of the same /8", "10.0.0.6", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sigs []catalogue.Signal
			for i := range 3 { // three heartbeats, 30 s apart
				sigs = append(sigs, pair17425(at(time.Duration(i)*30*time.Second), uuid1, "10.0.0.5", tc.t30IP)...)
			}
			if got := runBuiltin(t, "old-datanode-after-finalize", nil, sigs...); len(got) != tc.want {
				t.Fatalf("%d findings %v, want %d", len(got), got, tc.want)
			}
		})
	}
}
