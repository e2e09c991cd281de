//go:build e2e

package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/esstandin"
	"github.com/ozdoctor/ozdoctor/parsers/es"
	"github.com/ozdoctor/ozdoctor/parsers/es/esclient"
	"github.com/ozdoctor/ozdoctor/sinks/alertmanager"
	esfindings "github.com/ozdoctor/ozdoctor/sinks/elasticsearch"
)

// alertStore keeps the alerts posted to it the way Alertmanager identifies
// them: by their label set. It stands in for Alertmanager's API v2 where
// only the identity of alerts matters (sinks/alertmanager tests the
// delivery against Debian's Alertmanager).
type alertStore struct {
	mu     sync.Mutex
	alerts map[string]map[string]string // label set -> labels
	posts  int
}

func (s *alertStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var alerts []struct {
		Labels map[string]string `json:"labels"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/alerts" || json.NewDecoder(r.Body).Decode(&alerts) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts++
	for _, a := range alerts {
		b, _ := json.Marshal(a.Labels) // map keys sorted: a canonical label set
		s.alerts[string(b)] = a.Labels
	}
}

// perIncident counts the distinct alerts of each detector, incident and
// severity (an escalation is a new alert by design: see sinks/alertmanager).
func (s *alertStore) perIncident() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := map[string]int{}
	for _, l := range s.alerts {
		n[l["detector"]+" "+l["incident"]+" "+l["severity"]]++
	}
	return n
}

// A watch on Elasticsearch reads the sample's documents window by window as
// the wall clock moves, is killed mid-incident (no final checkpoint) and
// restarted from its last checkpoint: it ends with the bundle run's
// findings, and the Alertmanager holds one alert per incident.
func TestWatchElasticsearchResumesAfterKill(t *testing.T) {
	const sample = "../../examples/bundles/sample.tar.gz"
	opt := analysis.Options{Detectors: registry.All(), Engine: detectors.EngineOptions{Retention: 24 * time.Hour}}
	bopt := opt
	bopt.Inputs = []string{sample}
	batch, err := analysis.Run(context.Background(), bopt)
	if err != nil {
		t.Fatal(err)
	}
	want := summary(batch.Findings.Slice())
	hosts := esstandin.Hosts(batch.Coverage)
	srv := esstandin.New()
	if _, err := esstandin.LoadBundle(srv, "filebeat-ozone", sample, hosts, "prod1", true); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	store := &alertStore{alerts: map[string]map[string]string{}}
	am := httptest.NewServer(store)
	defer am.Close()

	m, _ := es.Preset("ecs")
	clk := &clock{t: time.Date(2026, 8, 23, 9, 1, 0, 0, time.UTC)}
	var out bytes.Buffer
	cfg := Config{
		ES: &ESConfig{Source: es.Config{Conn: esclient.Conn{URLs: []string{hs.URL}}, Index: "filebeat-*", Mapping: m, Cluster: "prod1"},
			Poll: 10 * time.Second, Settle: time.Minute, LookBack: time.Hour},
		StateDir: t.TempDir(), CheckpointEvery: 15 * time.Minute, Pipeline: opt, Findings: &out, Now: clk.now,
		Alertmanager: alertmanager.Config{URLs: []string{am.URL}, Cluster: "prod1"},
		ESFindings:   &esfindings.Config{Conn: esclient.Conn{URLs: []string{hs.URL}}, Cluster: "prod1"},
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	killed := false
	for clk.t.Before(time.Date(2026, 8, 23, 13, 0, 0, 0, time.UTC)) {
		clk.t = clk.t.Add(5 * time.Minute)
		if err := d.Step(ctx); err != nil {
			t.Fatal(err)
		}
		d.am.Tick(ctx, clk.t)
		d.esq.Tick(ctx, clk.t)
		// Killed at 10:26, past the start of HDDS-17674 (10:10) and before
		// its end, 6 minutes after the last checkpoint (10:20... or earlier).
		if !killed && !clk.t.Before(time.Date(2026, 8, 23, 10, 26, 0, 0, time.UTC)) {
			killed = true
			if d.saved.Equal(clk.t) {
				t.Fatal("the kill should come between checkpoints")
			}
			if d, err = New(cfg); err != nil {
				t.Fatalf("restart: %v", err)
			}
		}
	}
	var got []detectors.Finding
	for _, f := range d.Alerts() {
		if f.State != detectors.Pending {
			got = append(got, f)
		}
	}
	if s := summary(got); !slices.Equal(s, want) {
		t.Errorf("alerts from Elasticsearch differ from the bundle run:\n got %v\nwant %v", s, want)
	}
	n := store.perIncident()
	if len(n) < len(want) {
		t.Errorf("Alertmanager holds alerts for %d incidents, want %d: %v", len(n), len(want), n)
	}
	for inc, c := range n {
		if c != 1 {
			t.Errorf("%s: %d alerts in Alertmanager, want 1", inc, c)
		}
	}
	if !strings.Contains(out.String(), `"to":"firing"`) {
		t.Error("no transition on the findings stream")
	}
	// Elasticsearch holds one document per alert the engine raised (and
	// one per transition), none twice although the restart replayed the
	// windows after the checkpoint.
	fps, changes := map[string]bool{}, map[string]bool{}
	for line := range strings.Lines(out.String()) {
		var tr struct {
			Fingerprint, To string
			At              time.Time
		}
		json.Unmarshal([]byte(line), &tr)
		fps[tr.Fingerprint] = true
		changes[tr.Fingerprint+tr.To+tr.At.String()] = true
	}
	findings, transitions := 0, 0
	for _, doc := range srv.Docs("ozdoctor-findings-*") {
		switch doc.Source["kind"] {
		case "finding":
			findings++
		case "transition":
			transitions++
		}
	}
	if findings != len(fps) || transitions != len(changes) {
		t.Errorf("%d finding and %d transition documents for %d alerts and %d distinct transitions", findings, transitions, len(fps), len(changes))
	}
	if st := d.esq.Stats(); st.Queue != 0 || st.Dropped != 0 {
		t.Errorf("findings queue: %+v", st)
	}
	// The / page lists the streams of documents read since the restart as
	// a batch run over the same index lists them (the coverage of every
	// source is counted in one place).
	src, err := es.New(cfg.ES.Source)
	if err != nil {
		t.Fatal(err)
	}
	esBatch, err := analysis.RunDocuments(ctx, opt, src)
	if err != nil {
		t.Fatal(err)
	}
	batchFiles := map[string]string{}
	for fc := range esBatch.Coverage.Files.All() {
		batchFiles[fc.Path] = fc.Host + " " + fc.Component + " " + fc.Kind + " " + fc.Note
	}
	watched := 0
	for fc := range d.Report().Coverage.Files.All() {
		watched++
		if got, want := fc.Host+" "+fc.Component+" "+fc.Kind+" "+fc.Note, batchFiles[fc.Path]; got != want {
			t.Errorf("/ page lists %s as %q, the batch run as %q", fc.Path, got, want)
		}
	}
	if watched == 0 || watched > len(batchFiles) {
		t.Errorf("/ page lists %d streams of documents, the batch run %d", watched, len(batchFiles))
	}
}
