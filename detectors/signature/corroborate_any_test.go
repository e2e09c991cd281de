package signature

import (
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

const anyKeySig = `signature: v1
id: any-key-test
problem: any
title: t
summary: "pause"
match:
  by: e.host
  horizon: 1h
  max_open: 4
  steps:
    - name: pause
      on: jvm_pause
      emit: {severity: warning}
  corroborate:
    - name: fin
      on: upgrade_finalized
      any_key: true
      confidence: high
facts:
  fin: fin.host
`

// A finalization names no datanode: an any_key corroboration confirms
// every incident, opened before or after it.
func TestAnyKeyCorroboratesEveryIncident(t *testing.T) {
	s := mustCompile(t, anyKeySig)
	in := []catalogue.Signal{
		sig(catalogue.JVMPause, 0, "dn1", parsers.ComponentDatanode),
		sig(catalogue.UpgradeFinalized, time.Second, "scm1", parsers.ComponentSCM),
		sig(catalogue.JVMPause, 2*time.Second, "dn2", parsers.ComponentDatanode),
	}
	_, fs := run(t, s, in, time.Minute)
	if len(fs) != 2 {
		t.Fatalf("findings %d, want 2", len(fs))
	}
	for _, f := range fs {
		if f.Confidence != "high" || f.Facts["fin"] != "scm1" {
			t.Errorf("%s: confidence %s facts %v", f.Key, f.Confidence, f.Facts)
		}
	}
}

func TestAnyKeyWithByIsRefused(t *testing.T) {
	text := strings.Replace(anyKeySig, "      any_key: true\n", "      any_key: true\n      by: e.host\n", 1)
	if err := compileText(t, text); err == nil || !strings.Contains(err.Error(), "corroborate fin: any_key and by exclude each other") {
		t.Fatalf("got %v", err)
	}
}
