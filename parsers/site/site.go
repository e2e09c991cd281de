// Package site reads an Ozone cluster's settings: ozone-site.xml files and
// the "conf = {...}" line of STARTUP_MSG banners, with Ozone's defaults for
// the keys ozdoctor judges against.
package site

import (
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults are Ozone's defaults for the keys ozdoctor uses
// (ozone-default.xml; shared/ozone signatures-scm.md §1.2, signatures-dn-om.md A.0).
func Defaults() map[string]string {
	return map[string]string{
		"ozone.scm.stale.node.interval":                         "5m",
		"ozone.scm.dead.node.interval":                          "10m",
		"ozone.scm.heartbeat.thread.interval":                   "3s",
		"hdds.heartbeat.interval":                               "30s",
		"ozone.scm.heartbeat.rpc-timeout":                       "5s",
		"hdds.scm.replication.thread.interval":                  "300s",
		"hdds.container.ratis.statemachine.write.wait.interval": "10m",
	}
}

// Config is a set of settings with the source of each value.
type Config struct {
	values     map[string]string
	source     map[string]string
	generation int
}

// New returns a Config holding only Ozone's defaults.
func New() *Config {
	c := &Config{values: map[string]string{}, source: map[string]string{}}
	for k, v := range Defaults() {
		c.values[k], c.source[k] = v, "default"
	}
	return c
}

// Set records a value read from source (e.g. "ozone-site.xml (scm1)").
func (c *Config) Set(key, value, source string) {
	value = strings.TrimSpace(value)
	if old, ok := c.values[key]; ok && old == value && c.source[key] == source {
		return
	}
	c.values[key], c.source[key] = value, source
	c.generation++
}

// Generation counts the changes made by Set: a detector that derives
// thresholds from the settings re-derives them when it moves.
func (c *Config) Generation() int { return c.generation }

// Get returns a value and its source ("default" for Ozone's default).
func (c *Config) Get(key string) (value, source string, ok bool) {
	value, ok = c.values[key]
	return value, c.source[key], ok
}

// Keys returns the known keys, sorted.
func (c *Config) Keys() []string {
	keys := slices.Sorted(maps.Keys(c.values))
	return keys
}

// Duration returns a duration setting and its source. Values use Ozone's
// time-duration syntax ("30s", "5m", "1h", "1d", "100ms"); a bare number is
// in unit. An unreadable value falls back to the default.
func (c *Config) Duration(key string, unit time.Duration) (time.Duration, string) {
	if v, src, ok := c.Get(key); ok {
		if d, err := ParseDuration(v, unit); err == nil {
			return d, src
		}
		if def, ok := Defaults()[key]; ok {
			d, _ := ParseDuration(def, unit)
			return d, "default (unreadable value " + strconv.Quote(v) + " in " + src + ")"
		}
	}
	return 0, "unset"
}

// ParseDuration reads Ozone's time-duration syntax.
func ParseDuration(v string, unit time.Duration) (time.Duration, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q: %w", v, err)
	}
	switch strings.TrimSpace(v[i:]) {
	case "":
	case "ns":
		unit = time.Nanosecond
	case "us":
		unit = time.Microsecond
	case "ms":
		unit = time.Millisecond
	case "s":
		unit = time.Second
	case "m":
		unit = time.Minute
	case "h":
		unit = time.Hour
	case "d":
		unit = 24 * time.Hour
	default:
		return 0, fmt.Errorf("duration %q: unknown unit", v)
	}
	d := n * float64(unit)
	if d >= math.MaxInt64 {
		return 0, fmt.Errorf("duration %q: out of range", v)
	}
	return time.Duration(d), nil
}

// ParseXML reads a Hadoop-style configuration file (ozone-site.xml).
func ParseXML(r io.Reader) (map[string]string, error) {
	var doc struct {
		Properties []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	dec := xml.NewDecoder(io.LimitReader(r, 16<<20))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse configuration xml: %w", err)
	}
	out := make(map[string]string, len(doc.Properties))
	for _, p := range doc.Properties {
		if name := strings.TrimSpace(p.Name); name != "" {
			out[name] = strings.TrimSpace(p.Value)
		}
	}
	return out, nil
}

// ParseStartupConf reads the body of STARTUP_MSG's "conf = {k=v, k=v}" item.
// Values may contain commas; a new pair starts only where ", <key>=" follows
// with a dotted key.
func ParseStartupConf(body string) map[string]string {
	out := map[string]string{}
	parts := strings.Split(body, ", ")
	var key, val string
	flush := func() {
		if key != "" {
			out[key] = val
		}
	}
	for _, p := range parts {
		eq := strings.IndexByte(p, '=')
		if eq > 0 && strings.Contains(p[:eq], ".") && !strings.ContainsAny(p[:eq], " {}") {
			flush()
			key, val = p[:eq], p[eq+1:]
			continue
		}
		if key != "" {
			val += ", " + p
		}
	}
	flush()
	return out
}
