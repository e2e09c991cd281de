package es_test

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/esclient"
	"github.com/ozdoctor/ozdoctor/internal/esstandin"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/es"
)

const sample = "../../examples/bundles/sample.tar.gz"

// loadBundle indexes the sample into srv (esstandin.LoadBundle) and returns
// the number of documents and the ones the catalogue's prefilter accepts.
func loadBundle(t testing.TB, srv *esstandin.Server, path string, hosts map[string]string, folded bool) (total int, candidates []string) {
	t.Helper()
	cat, err := catalogue.New()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := esstandin.LoadBundle(srv, "filebeat-ozone", path, hosts, "prod1", folded)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		first, _, _ := strings.Cut(d["message"].(string), "\n")
		if holdsLiteral(cat, first) {
			path := d["log"].(map[string]any)["file"].(map[string]any)["path"].(string)
			candidates = append(candidates, path+"@"+strings.TrimSpace(first))
		}
	}
	return len(docs), candidates
}

// holdsLiteral is the prefilter's contract: a line that holds one of the
// catalogue's literals is a candidate. (Candidate itself searches for a
// literal's tail, a superset that is faster to scan for.)
func holdsLiteral(cat *catalogue.Catalogue, line string) bool {
	for _, l := range cat.Literals() {
		if strings.Contains(line, l) {
			return true
		}
	}
	return false
}

// bundleRun analyses the sample as files and returns the result and each
// file's host.
func bundleRun(t testing.TB) (*analysis.Result, map[string]string) {
	t.Helper()
	res, err := analysis.Run(context.Background(), analysis.Options{Inputs: []string{sample}, Detectors: registry.All()})
	if err != nil {
		t.Fatal(err)
	}
	hosts := esstandin.Hosts(res.Coverage)
	return res, hosts
}

func ecsConfig(t testing.TB, url string) es.Config {
	t.Helper()
	m, err := es.Preset("ecs")
	if err != nil {
		t.Fatal(err)
	}
	return es.Config{Conn: esclient.Conn{URLs: []string{url}}, Index: "filebeat-*", Mapping: m, Cluster: "prod1", PageSize: 500}
}

// identity is what must agree between a bundle run and an Elasticsearch
// run: the finding and its subjects. Evidence differs by design (no line
// numbers in documents; silences from a histogram).
func identity(f detectors.Finding) string {
	return strings.Join([]string{f.Detector, f.Key, f.Severity.String(), string(f.Confidence), string(f.State), f.Title,
		strings.Join(f.Entities.Hosts, ","), f.Start.UTC().Format(time.RFC3339)}, " | ")
}

// The sample loaded as ECS documents, folded or one per line, gives the
// findings of `analyze` on the files, through 1 and 3 slices; the pushed-down
// query returns every document the catalogue's prefilter accepts.
func TestEquivalenceWithBundle(t *testing.T) {
	want, hosts := bundleRun(t)
	var wantIDs []string
	for _, f := range want.Findings {
		wantIDs = append(wantIDs, identity(f))
	}
	if len(wantIDs) < 5 {
		t.Fatalf("the sample gave %d findings", len(wantIDs))
	}
	for _, shape := range []struct {
		name   string
		folded bool
	}{{"folded", true}, {"per-line", false}} {
		for _, n := range []int{1, 3} {
			t.Run(shape.name+"/"+string(rune('0'+n)), func(t *testing.T) {
				srv := esstandin.New()
				hs := httptest.NewServer(srv)
				defer hs.Close()
				total, candidates := loadBundle(t, srv, sample, hosts, shape.folded)
				cfg := ecsConfig(t, hs.URL)
				cfg.Slices = n
				src, err := es.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := src.Check(context.Background()); err != nil {
					t.Fatal(err)
				}
				// The pushed-down query returns every candidate.
				cat, _ := catalogue.New()
				got := map[string]bool{}
				if err := src.Documents(context.Background(), cat.LiteralEdges(), func(d parsers.Document) error {
					first, _, _ := strings.Cut(d.Message, "\n")
					got[d.Path+"@"+strings.TrimSpace(first)] = true
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				for _, c := range candidates {
					if !got[c] {
						t.Errorf("the query missed a candidate: %s", c)
						for _, l := range cat.LiteralEdges() {
							if strings.Contains(c, l.Text) {
								t.Logf("  literal %+v, phrase %q", l, es.Phrase(l))
							}
						}
					}
				}
				st := src.Stats()
				t.Logf("%s, %d slice(s): %d of %d documents transferred (%.1f%%), %d requests, %d bytes",
					shape.name, n, st.Documents, total, 100*float64(st.Documents)/float64(total), st.Requests, st.Bytes)

				src, _ = es.New(cfg)
				res, err := analysis.RunDocuments(context.Background(), analysis.Options{Detectors: registry.All()}, src)
				if err != nil {
					t.Fatal(err)
				}
				var gotIDs []string
				for _, f := range res.Findings {
					gotIDs = append(gotIDs, identity(f))
				}
				if !slices.Equal(gotIDs, wantIDs) {
					t.Errorf("findings differ from the bundle run:\n got %q\nwant %q", gotIDs, wantIDs)
				}
			})
		}
	}
}

// 429 and 5xx answers are retried; a malformed answer is a clear error.
func TestRetriesAndMalformedAnswers(t *testing.T) {
	srv := esstandin.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	srv.Add("filebeat-ozone", map[string]any{"@timestamp": "2026-08-23T10:00:00.000Z", "message": "2026-08-23 10:00:00,000 [main] INFO x: STARTUP_MSG: Starting OzoneManager",
		"host": map[string]any{"name": "om1"}, "log": map[string]any{"file": map[string]any{"path": "om1/ozone-hadoop-om-om1.log"}}})
	cfg := ecsConfig(t, hs.URL)
	cfg.Cluster = ""
	src, err := es.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.FailNext(429, 503, 502)
	n := 0
	if err := src.Documents(context.Background(), []catalogue.Literal{{Text: "STARTUP_MSG:"}}, func(parsers.Document) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("after retries: %d documents, %v", n, err)
	}
	srv.FailNext(-1)
	err = src.Documents(context.Background(), []catalogue.Literal{{Text: "STARTUP_MSG:"}}, func(parsers.Document) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "malformed answer") {
		t.Errorf("malformed answer: %v", err)
	}
	srv.FailNext(400)
	if _, err := src.Silences(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a 400 is not retried and is reported: %v", err)
	}
}

// API key and basic authentication reach the server; a server that is not
// Elasticsearch (no product header, as OpenSearch) is named as such.
func TestAuthAndProductCheck(t *testing.T) {
	srv := esstandin.New()
	srv.APIKey = "a2V5OnNlY3JldA=="
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cfg := ecsConfig(t, hs.URL)
	src, _ := es.New(cfg)
	if err := src.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without credentials: %v", err)
	}
	cfg.APIKey = srv.APIKey
	src, _ = es.New(cfg)
	if err := src.Check(context.Background()); err != nil {
		t.Errorf("with the API key: %v", err)
	}
	srv.APIKey, srv.User, srv.Password = "", "ozdoctor", "pw"
	cfg.APIKey, cfg.Username, cfg.Password = "", "ozdoctor", "pw"
	src, _ = es.New(cfg)
	if err := src.Check(context.Background()); err != nil {
		t.Errorf("with basic auth: %v", err)
	}

	os := esstandin.New()
	os.Product = "-"
	ho := httptest.NewServer(os)
	defer ho.Close()
	src, _ = es.New(ecsConfig(t, ho.URL))
	err := src.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is not Elasticsearch") || !strings.Contains(err.Error(), "OpenSearch") {
		t.Errorf("OpenSearch-like server: %v", err)
	}
}

// The stand-in rejects what it does not implement, so a query ozdoctor
// would send that it cannot evaluate fails the tests rather than passing.
func TestStandInRejectsUnknownClauses(t *testing.T) {
	srv := esstandin.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	res, err := http.Post(hs.URL+"/x/_search", "application/json", strings.NewReader(`{"query": {"wildcard": {"message": "a*"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(string(body), "does not implement the [wildcard] query") {
		t.Errorf("%d %s", res.StatusCode, body)
	}
	if res.Header.Get("X-Elastic-Product") != "Elasticsearch" {
		t.Error("no product header")
	}
}

// A cluster behind TLS is reached with its CA file; without it the
// certificate is refused.
func TestTLSWithCAFile(t *testing.T) {
	srv := esstandin.New()
	hs := httptest.NewTLSServer(srv)
	defer hs.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := ecsConfig(t, hs.URL)
	cfg.Retries = 1
	src, _ := es.New(cfg)
	if err := src.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v", err)
	}
	cfg.CAFile = ca
	src, err := es.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Check(context.Background()); err != nil {
		t.Errorf("with the CA file: %v", err)
	}
	cfg.CAFile = filepath.Join(t.TempDir(), "missing.pem")
	if _, err := es.New(cfg); err == nil || !strings.Contains(err.Error(), "CA file") {
		t.Errorf("missing CA file: %v", err)
	}
}
