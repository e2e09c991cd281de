package site

import (
	"strings"
	"testing"
	"time"
)

// FuzzSite: the configuration decoders never panic, and a parsed duration
// is never negative.
func FuzzSite(f *testing.F) {
	f.Add(`<configuration><property><name>hdds.heartbeat.interval</name><value>5s</value></property></configuration>`)
	f.Add("hdds.heartbeat.interval=5s, ozone.om.nodes.id1=om1,om2, x.y={a, b}")
	f.Add("<configuration><property><name>")
	f.Add("1.5d")
	f.Fuzz(func(t *testing.T, s string) {
		props, _ := ParseXML(strings.NewReader(s))
		c := New()
		for k, v := range props {
			c.Set(k, v, "fuzz")
		}
		for k, v := range ParseStartupConf(s) {
			c.Set(k, v, "fuzz")
		}
		for _, k := range c.Keys() {
			c.Duration(k, time.Millisecond)
		}
		if d, err := ParseDuration(s, time.Second); err == nil && d < 0 {
			t.Errorf("ParseDuration(%q) = %v", s, d)
		}
	})
}
