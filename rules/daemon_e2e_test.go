//go:build e2e

package rules_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/daemon"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// A real Prometheus with rules/ozdoctor-sidecar.yml scrapes a real daemon
// (internal/daemon, as ozdoctor watch runs it) that has read the sample's
// logs: the rules of the defects it found fire with the findings' labels.
func TestSidecarRulesOnTheDaemon(t *testing.T) {
	logs := t.TempDir()
	s, r := scripts.Sample()
	r.Rotate, r.Gzip = false, false
	if err := s.Render(logs, r); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 8, 23, 12, 5, 0, 0, time.UTC) // the wall clock after the logs' times
	d, err := daemon.New(daemon.Config{Logs: []string{logs + "/*/*.log"},
		Pipeline: analysis.Options{Detectors: registry.All()}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ { // read everything, then let the streams go idle
		if err := d.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
	}
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	addr := startPrometheus(t, "ozdoctor-sidecar.yml", "/metrics", strings.TrimPrefix(srv.URL, "http://"))
	want := map[string]string{"OzdoctorRaftDivisionStuckClosing": "HDDS-17674", "OzdoctorEmptyQuasiClosedDelete": "HDDS-16809",
		"OzdoctorOmBootstrapExitVoter": "HDDS-16839"}
	deadline := time.Now().Add(60 * time.Second)
	for {
		as, err := alerts(addr)
		found := map[string]bool{}
		for _, a := range as {
			if defect, ok := want[a.Labels["alertname"]]; ok && err == nil && a.State == "firing" && a.Labels["defect"] == defect &&
				a.Labels["severity"] == "critical" && a.Annotations["remediation"] != "" {
				found[a.Labels["alertname"]] = true
			}
		}
		if len(found) == len(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("firing %v of %v; alerts: %+v", found, want, as)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
