package detectors

import (
	"maps"
	"slices"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// Learn records what a signal tells about the cluster: identities (datanode
// UUIDs, OM node IDs, hosts, versions) and settings (an ozone-site.xml, the
// SCM's STARTUP_MSG conf). The engine calls it for every signal before any
// detector sees it, so every mode learns the same things in the same order.
func (e *Env) Learn(s *catalogue.Signal) {
	e.Identity.Learn(s)
	switch {
	case s.Kind == catalogue.SiteSettings:
		for _, k := range slices.Sorted(maps.Keys(s.Attrs)) {
			e.Settings.Set(k, s.Attrs[k], s.Text)
		}
	case s.Kind == catalogue.StartupMsg && s.Attrs["conf"] != "" && s.Component == parsers.ComponentSCM:
		conf := site.ParseStartupConf(s.Attrs["conf"])
		for _, k := range slices.Sorted(maps.Keys(conf)) {
			e.Settings.Set(k, conf[k], "STARTUP_MSG conf ("+s.Host+")")
		}
	}
}

// generations counts the changes Learn made to the settings and identities.
func (e *Env) generations() [2]int {
	var g [2]int
	if e.Settings != nil {
		g[0] = e.Settings.Generation()
	}
	if e.Identity != nil {
		g[1] = e.Identity.Generation()
	}
	return g
}
