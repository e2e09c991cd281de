package signature

import (
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// A service that terminated stays firing while it is down, and resolves
// a quiet while after it started again.
const afterSig = `signature: v1
id: after-test
problem: after
title: t
summary: "{{index .Entities.Hosts 0}}"
match:
  by: e.host
  horizon: 24h
  max_open: 4
  steps:
    - name: exit
      on: terminating
      emit: {severity: critical}
    - name: restart
      on: startup
  resolve:
    quiet: 1m
    after: restart
entities:
  hosts: [exit.host]
`

func TestResolveQuietAfterAStep(t *testing.T) {
	s := mustCompile(t, afterSig)
	scm := parsers.ComponentSCM
	trs, _ := run(t, s, []catalogue.Signal{sig(catalogue.Terminating, 0, "scm1", scm), sig(catalogue.StartupMsg, 10*time.Minute, "scm1", scm)}, time.Hour)
	if want := "0s >firing critical|11m1s firing>resolved critical"; strings.Join(trs, "|") != want {
		t.Errorf("transitions %q, want %q", trs, want)
	}
	// Without the restart it stays firing, however long the quiet.
	trs, _ = run(t, s, []catalogue.Signal{sig(catalogue.Terminating, 0, "scm1", scm)}, time.Hour)
	if want := "0s >firing critical"; strings.Join(trs, "|") != want {
		t.Errorf("no restart: %q, want %q", trs, want)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"    after: restart\n", "    after: restrat\n", `resolve: after "restrat" is no step of the match`},
		{"    quiet: 1m\n", "    on: shutdown\n", "resolve: after needs quiet"},
	} {
		if err := compileText(t, strings.Replace(afterSig, tc.from, tc.to, 1)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
