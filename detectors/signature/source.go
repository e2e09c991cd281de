package signature

import (
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// Every window has a source beside it: sources.<name> says where the
// setting it read came from ("default", "ozone-site.xml (conf/ozone-site.xml)",
// "STARTUP_MSG conf (scm1.example.com)"), "" when it read none; with
// several settings, the last one read. Facts name the values they judged
// by and where those came from.

// settingSource returns where key's value comes from, as a finding names
// it: "default" when the setting is unset or unreadable.
func settingSource(cfg *site.Config, key string) string {
	v, src, ok := cfg.Get(key)
	if !ok {
		return "default"
	}
	if _, err := site.ParseDuration(v, time.Millisecond); err != nil {
		return "default"
	}
	return detectors.ShortSource(src)
}
