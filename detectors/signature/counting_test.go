package signature

import (
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// perSig: met once one host logged two pauses; graded high once two
// hosts logged three, and only when a finalization corroborates.
const perSig = `signature: v1
id: per-test
problem: per
title: t
summary: "pauses"
match:
  horizon: 1h
  max_open: 4
  steps:
    - name: pauses
      on: jvm_pause
      count: {min: 2, per: e.host}
      within: 10m
      emit:
        severity: warning
        confidence: >-
          pauses.per.filter(h, pauses.per[h] >= 3).size() >= 2 && fin.kind != "" ? "high" :
          pauses.per.exists(h, pauses.per[h] >= 3) ? "medium" : "low"
  corroborate:
    - {name: fin, on: upgrade_finalized}
entities:
  hosts: ['pauses.hosts.sort()[0]']
facts:
  per: 'pauses.per.map(h, h + "=" + string(pauses.per[h])).sort().join(",")'
`

func TestCountPerAndRegrade(t *testing.T) {
	s := mustCompile(t, perSig)
	p := func(at time.Duration, host string) catalogue.Signal {
		return sig(catalogue.JVMPause, at, host, parsers.ComponentSCM)
	}
	fin := sig(catalogue.UpgradeFinalized, 0, "scm1", parsers.ComponentSCM)
	for _, tc := range []struct {
		name       string
		in         []catalogue.Signal
		conf, per  string
		host, want string
	}{
		{"one per host", []catalogue.Signal{p(0, "b"), p(time.Second, "a"), p(2*time.Second, "c")}, "", "", "", ""},
		{"two on one host", []catalogue.Signal{p(0, "b"), p(time.Second, "a"), p(30*time.Second, "b")}, "low", "a=1,b=2", "a", "30s >firing warning"},
		{"three on one host", []catalogue.Signal{p(0, "b"), p(time.Second, "a"), p(30*time.Second, "b"), p(31*time.Second, "a"), p(60*time.Second, "b"), p(61*time.Second, "a")},
			"medium", "a=3,b=3", "a", "30s >firing warning|5m0s firing>firing warning"},
		{"corroborated", []catalogue.Signal{fin, p(0, "b"), p(time.Second, "a"), p(30*time.Second, "b"), p(31*time.Second, "a"), p(60*time.Second, "b"), p(61*time.Second, "a")},
			"high", "a=3,b=3", "a", "30s >firing warning|5m0s firing>firing warning"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A batch run hands on the grown finding at the end: the
			// engine records the raised confidence there.
			trs, fs := run(t, s, tc.in, 5*time.Minute)
			if got := strings.Join(trs, "|"); got != tc.want {
				t.Fatalf("transitions %q, want %q", got, tc.want)
			}
			if tc.conf == "" {
				return
			}
			f := fs[0]
			if string(f.Confidence) != tc.conf || f.Facts["per"] != tc.per || f.Entities.Hosts[0] != tc.host {
				t.Errorf("confidence %s per %q hosts %v, want %s %q %s", f.Confidence, f.Facts["per"], f.Entities.Hosts, tc.conf, tc.per, tc.host)
			}
		})
	}
}

func TestCountPerLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"per with distinct", "per: e.host}", "per: e.host, distinct: e.host}", "step pauses: count.per and count.distinct exclude each other"},
		{"per not a string", "per: e.host}", "per: e.count}", `step pauses count.per: "e.count" has type int, want string`},
		{"unknown corroboration", `fin.kind != ""`, `fon.kind != ""`, `undeclared reference to 'fon'`},
	} {
		t.Run(tc.name, func(t *testing.T) { wantEditedError(t, perSig, tc.from, tc.to, tc.want) })
	}
}

// A count step that goes on counting after a later step emitted raises
// that step's grade too: its emit reads the grown burst.
func TestRegradeLaterStepReadingTheBurst(t *testing.T) {
	s := mustCompile(t, `signature: v1
id: later-test
problem: later
title: t
summary: "pauses then stale"
match:
  by: e.host
  horizon: 1h
  max_open: 4
  steps:
    - name: pauses
      on: jvm_pause
      count: {min: 2}
      within: 10m
    - name: stale
      on: scm_node_stale
      within: 10m
      emit:
        severity: warning
        confidence: 'pauses.count >= 4 ? "high" : "low"'
`)
	p := func(at time.Duration) catalogue.Signal {
		return sig(catalogue.JVMPause, at, "scm1", parsers.ComponentSCM)
	}
	stale := dnSig(catalogue.NodeStale, 3*time.Second, "dn1")
	for _, tc := range []struct {
		name   string
		pauses int // after the stale node
		want   string
	}{
		{"near miss: three pauses", 1, "low"},
		{"four pauses", 2, "high"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []catalogue.Signal{p(0), p(time.Second), stale}
			for i := range tc.pauses {
				in = append(in, p(time.Duration(10+i)*time.Second))
			}
			_, fs := run(t, s, in, time.Hour)
			if len(fs) != 1 || string(fs[0].Confidence) != tc.want {
				t.Fatalf("findings %+v, want one of confidence %s", fs, tc.want)
			}
		})
	}
}
