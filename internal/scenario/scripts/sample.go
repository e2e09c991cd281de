package scripts

import (
	"math/rand"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
)

// Sample returns the scenario of the bundle shipped in examples/bundles: a
// three-SCM, four-OM, six-datanode cluster over three hours in which all five
// known defects occur, with background noise, rotation, gzip and clock skew.
func Sample() (*scenario.Scenario, scenario.Render) { return Cluster13(3*time.Hour, 4) }

// Cluster13 is the sample's cluster over dur with noise background events
// per host and minute; the five defects and three operational problems
// occur in the sample's first three
// hours, so a longer dur gives a cluster that is mostly healthy.
func Cluster13(dur time.Duration, noise int) (*scenario.Scenario, scenario.Render) {
	const seed = 2026
	start := time.Date(2026, 8, 23, 9, 0, 0, 0, time.UTC)
	cl := scenario.NewCluster(rand.New(rand.NewSource(seed)), 3, 4, 6)
	// The ZDU lines of HDDS-17425 exist only on the 2.3.0-SNAPSHOT line
	// (the HDDS-14496-zdu branch): the sample's cluster runs it, so that
	// every defect it shows can happen on the version its banners print.
	cl.Version = "2.3.0-SNAPSHOT"
	s := scenario.New(seed, start, dur, cl)
	// A Ratis close threshold raised above the pause of hdds17519/skip-stale
	// (signatures-scm.md §1.1), as the clusters that show HDDS-17519 have.
	s.Site = map[string]string{
		"ozone.scm.ha.raft.server.close.threshold": "15m",
		"ozone.om.service.ids":                     "omservice",
	}
	scripts := All()
	for _, sc := range sampleIncidents() {
		scripts[sc.name](s, start.Add(sc.at))
	}
	return s, scenario.Render{Layout: scenario.LayoutFile, Noise: noise, Rotate: true, Gzip: true,
		Skew: map[string]time.Duration{"scm2": 2 * time.Second, "dn4": -3 * time.Second, "om3": -4 * time.Second, "om4": 2 * time.Second}}
}

// incident is a defect's script and when it starts.
type incident struct {
	name string
	at   time.Duration
}

// sampleIncidents returns the sample's five defects and three operational
// problems, and when they start in its three hours.
func sampleIncidents() []incident {
	return []incident{
		{"hdds17519/skip-stale", 20 * time.Minute},
		{"hdds17425/registered-during-finalization", 45 * time.Minute},
		{"hdds17674/stuck-leader", 70 * time.Minute},
		{"hdds16839/lost-leadership", 100 * time.Minute},
		{"hdds16809/force-delete", 120 * time.Minute},
		{"problems/dn-gc-pause", 35 * time.Minute},
		{"problems/dn-out-of-space", 85 * time.Minute},
		{"problems/dn-volume-failed", 150 * time.Minute},
	}
}
