package site

import (
	"strings"
	"testing"
	"time"
)

func TestDurationFromXMLAndDefaults(t *testing.T) {
	props, err := ParseXML(strings.NewReader(`<?xml version="1.0"?>
<configuration>
  <property><name>ozone.scm.stale.node.interval</name><value>30s</value></property>
  <property><name>hdds.heartbeat.interval</name><value> 5000 </value></property>
</configuration>`))
	if err != nil {
		t.Fatal(err)
	}
	c := New()
	for k, v := range props {
		c.Set(k, v, "ozone-site.xml")
	}
	if d, src := c.Duration("ozone.scm.stale.node.interval", time.Millisecond); d != 30*time.Second || src != "ozone-site.xml" {
		t.Errorf("stale: %v %s", d, src)
	}
	if d, _ := c.Duration("hdds.heartbeat.interval", time.Millisecond); d != 5*time.Second {
		t.Errorf("bare number uses the unit: %v", d)
	}
	if d, src := c.Duration("ozone.scm.dead.node.interval", time.Millisecond); d != 10*time.Minute || src != "default" {
		t.Errorf("dead: %v %s", d, src)
	}
	c.Set("ozone.scm.dead.node.interval", "soon", "x")
	if d, src := c.Duration("ozone.scm.dead.node.interval", time.Millisecond); d != 10*time.Minute || !strings.HasPrefix(src, "default") {
		t.Errorf("bad value falls back: %v %s", d, src)
	}
}

func TestParseXMLRejectsGarbage(t *testing.T) {
	if _, err := ParseXML(strings.NewReader("\x00\x01 not xml")); err == nil {
		t.Error("want an error")
	}
}

func TestParseStartupConf(t *testing.T) {
	m := ParseStartupConf("hdds.heartbeat.interval=5s, ozone.om.nodes.id1=om1,om2, ozone.scm.stale.node.interval=30s")
	if m["hdds.heartbeat.interval"] != "5s" || m["ozone.om.nodes.id1"] != "om1,om2" || m["ozone.scm.stale.node.interval"] != "30s" {
		t.Errorf("%v", m)
	}
}
