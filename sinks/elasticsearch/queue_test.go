package elasticsearch_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/esstandin"
	"github.com/ozdoctor/ozdoctor/parsers/es/esclient"
	"github.com/ozdoctor/ozdoctor/sinks/elasticsearch"
)

// Transitions observed while Elasticsearch fails stay queued in the state
// directory, survive a restart, and are indexed once it answers again: one
// document per finding and one per change of state, none twice.
func TestQueueSurvivesOutageAndRestart(t *testing.T) {
	srv := esstandin.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	state := t.TempDir()
	sink, err := elasticsearch.New(elasticsearch.Config{Conn: esclient.Conn{URLs: []string{hs.URL}, Retries: 1}, Cluster: "prod1"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := sink.NewQueue(elasticsearch.QueueConfig{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	f := detectors.Finding{Detector: "raft-division-stuck-closing", Defect: "HDDS-17674", Key: "dn1/group-1", Severity: detectors.Warning,
		Title: "stuck", Start: start, State: detectors.Firing}
	fp := detectors.Fingerprint(f.Detector, f.Key)
	q.Observe(detectors.Transition{At: start, Fingerprint: fp, From: detectors.Pending, To: detectors.Firing, Finding: f})
	f.Summary = "more evidence"
	q.Observe(detectors.Transition{At: start.Add(time.Minute), Fingerprint: fp, From: detectors.Firing, To: detectors.Firing, Finding: f, Previous: f.Severity})

	now := start
	srv.FailNext(503, 503) // the template request and its retry
	q.Tick(context.Background(), now)
	if st := q.Stats(); st.Queue != 2 || st.Failed != 2 || st.LastError == "" {
		t.Fatalf("after a failure: %+v", st)
	}
	requests := srv.Requests()
	q.Tick(context.Background(), now.Add(100*time.Millisecond)) // backing off: nothing is sent
	if srv.Requests() != requests {
		t.Error("a Tick during the backoff sent a request")
	}

	// A restart: the queue comes back from the state directory.
	f.State, f.End = detectors.Resolved, start.Add(time.Hour)
	q, err = sink.NewQueue(elasticsearch.QueueConfig{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	q.Observe(detectors.Transition{At: f.End, Fingerprint: fp, From: detectors.Firing, To: detectors.Resolved, Finding: f})
	q.Tick(context.Background(), now.Add(time.Hour))
	q.Tick(context.Background(), now.Add(2*time.Hour))
	if st := q.Stats(); st.Queue != 0 || st.Sent != 3 {
		t.Fatalf("after the outage: %+v", st)
	}
	docs := srv.Docs("ozdoctor-findings-*")
	if len(docs) != 3 {
		t.Fatalf("%d documents, want the finding and two transitions", len(docs))
	}
	found := false
	for _, d := range docs {
		if d.ID == "prod1-"+fp {
			found = true
			if d.Source["state"] != "resolved" || d.Source["summary"] != "more evidence" {
				t.Errorf("the finding's document is not its latest state: %v", d.Source)
			}
		}
	}
	if !found {
		t.Error("no document for the finding")
	}
	if srv.Template("ozdoctor-findings") == nil {
		t.Error("no template installed")
	}
}
