package elasticsearch_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/esstandin"
	"github.com/ozdoctor/ozdoctor/parsers/es/esclient"
	"github.com/ozdoctor/ozdoctor/sinks/elasticsearch"
)

func sampleFindings(t *testing.T) []detectors.Finding {
	t.Helper()
	res, err := analysis.Run(context.Background(), analysis.Options{Inputs: []string{"../../examples/bundles/sample.tar.gz"}, Detectors: registry.All()})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings.Slice()
}

// The template is installed with an explicit mapping of every field the
// documents carry; findings and transitions are indexed under
// deterministic IDs, so sending them again adds no document; on
// Elasticsearch 8 and 7.17.
func TestFindingsIndexedOnce(t *testing.T) {
	for _, version := range []string{"8.19.7", "7.17.25"} {
		t.Run(version, func(t *testing.T) { testFindingsIndexedOnce(t, version) })
	}
}

func testFindingsIndexedOnce(t *testing.T, version string) {
	srv := esstandin.New()
	srv.Version = version
	hs := httptest.NewServer(srv)
	defer hs.Close()
	sink, err := elasticsearch.New(elasticsearch.Config{Conn: esclient.Conn{URLs: []string{hs.URL}}, Cluster: "prod1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sink.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sink.InstallTemplate(ctx); err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		IndexPatterns []string `json:"index_patterns"`
		Template      struct {
			Mappings struct {
				Dynamic    bool                       `json:"dynamic"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"mappings"`
		} `json:"template"`
	}
	if err := json.Unmarshal(srv.Template("ozdoctor-findings"), &tmpl); err != nil || len(tmpl.IndexPatterns) != 1 || tmpl.IndexPatterns[0] != "ozdoctor-findings-*" {
		t.Fatalf("template: %v %+v", err, tmpl)
	}

	findings := sampleFindings(t)
	var docs []elasticsearch.Doc
	for _, f := range findings {
		docs = append(docs, sink.FindingDoc(f))
		fp := detectors.Fingerprint(f.Detector, f.Key)
		docs = append(docs,
			sink.TransitionDoc(detectors.Transition{At: f.Start, Fingerprint: fp, From: detectors.Pending, To: detectors.Firing, Finding: f}),
			sink.TransitionDoc(detectors.Transition{At: f.Start.Add(time.Minute), Fingerprint: fp, From: detectors.Firing, To: detectors.Resolved, Finding: f}))
	}
	for range 2 {
		if err := sink.Write(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	stored := srv.Docs("ozdoctor-findings-*")
	if len(stored) != 3*len(findings) || len(findings) < 5 {
		t.Fatalf("%d documents stored for %d findings sent twice (want %d)", len(stored), len(findings), 3*len(findings))
	}
	for _, d := range stored {
		for k := range d.Source {
			if _, ok := tmpl.Template.Mappings.Properties[k]; !ok {
				t.Errorf("field %q of %s is not in the template's mapping", k, d.ID)
			}
		}
		if !strings.HasPrefix(d.Index, "ozdoctor-findings-2026.") || d.Source["cluster"] != "prod1" {
			t.Errorf("%s in %s, cluster %v", d.ID, d.Index, d.Source["cluster"])
		}
	}
	// A finding's document is the finding, found by its fingerprint.
	f := findings[0]
	got := srv.Docs(sink.FindingDoc(f).Index)
	found := false
	for _, d := range got {
		if d.ID == "prod1-"+detectors.Fingerprint(f.Detector, f.Key) {
			found = d.Source["title"] == f.Title && d.Source["severity"] == f.Severity.String() && d.Source["kind"] == "finding"
		}
	}
	if !found {
		t.Errorf("no finding document for %s", f)
	}

	// Another cluster's finding of the same detector and key is a document
	// of its own.
	other, _ := elasticsearch.New(elasticsearch.Config{Conn: esclient.Conn{URLs: []string{hs.URL}}, Cluster: "prod2"})
	if err := other.Write(ctx, []elasticsearch.Doc{other.FindingDoc(f)}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Docs("ozdoctor-findings-*")); n != len(stored)+1 {
		t.Errorf("prod2's finding replaced prod1's: %d documents, want %d", n, len(stored)+1)
	}
}

// A 503 is retried; a refused request is an error that names the cause.
func TestWriteErrors(t *testing.T) {
	srv := esstandin.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	sink, _ := elasticsearch.New(elasticsearch.Config{Conn: esclient.Conn{URLs: []string{hs.URL}}})
	f := detectors.Finding{Detector: "d", Key: "k", Severity: detectors.Warning, Start: time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)}
	srv.FailNext(503, 429)
	if err := sink.Write(context.Background(), []elasticsearch.Doc{sink.FindingDoc(f)}); err != nil {
		t.Fatalf("after retries: %v", err)
	}
	if n := len(srv.Docs("ozdoctor-findings-2026.08.23")); n != 1 {
		t.Errorf("%d documents", n)
	}
	srv.FailNext(403)
	if err := sink.Write(context.Background(), []elasticsearch.Doc{sink.FindingDoc(f)}); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("403: %v", err)
	}
}
