package alertmanager

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/amtest"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
)

// TestRealAlertmanagerTakesTheSampleBundle replays the shipped sample bundle
// through the real detectors into the real Alertmanager: every notification
// is accepted, and the incidents still ongoing at the end of the bundle are
// the active alerts, with their detector's remediation.
func TestRealAlertmanagerTakesTheSampleBundle(t *testing.T) {
	hook := &amtest.Webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := amtest.New(t, hs.URL)
	regs := registry.All()
	var docs []detectors.Doc
	for _, r := range regs {
		docs = append(docs, r.Doc)
	}
	s, err := New(Config{URLs: []string{am.URL()}, Cluster: "sample", Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	res, err := analysis.Run(context.Background(), analysis.Options{Inputs: []string{"../../examples/bundles/sample.tar.gz"},
		Detectors: regs, Subscribe: s.Observe})
	if err != nil {
		t.Fatal(err)
	}
	s.Tick(context.Background(), time.Now())
	st := s.Stats()
	if ts := st.Targets[0]; ts.Queue != 0 || ts.Dropped != 0 || ts.Failed != 0 || ts.Sent == 0 || ts.LastError != "" {
		t.Fatalf("stats %+v", st)
	}
	active := am.ByIncident(t)
	firing := 0
	for _, f := range res.Findings.Slice() {
		a, ok := active[f.Key]
		if f.State != detectors.Firing {
			if ok {
				t.Errorf("%s %s is %s but active in Alertmanager", f.Detector, f.Key, f.State)
			}
			continue
		}
		firing++
		if !ok {
			t.Errorf("%s %s firing but not in Alertmanager", f.Detector, f.Key)
			continue
		}
		if a.Labels["alertname"] != AlertName(f.Detector) || a.Labels["defect"] != f.Defect ||
			a.Labels["severity"] != f.Severity.String() || a.Annotations["remediation"] == "" || a.Annotations["description"] == "" {
			t.Errorf("%s: labels %v annotations %v", f.Key, a.Labels, a.Annotations)
		}
	}
	t.Logf("%d findings, %d firing at the end, %d notifications sent", res.Findings.Len(), firing, st.Targets[0].Sent)
	if firing == 0 || len(active) != firing {
		t.Errorf("%d firing findings, %d active alerts", firing, len(active))
	}
	if st.Firing != firing {
		t.Errorf("sink re-sends %d alerts, want %d", st.Firing, firing)
	}
}
