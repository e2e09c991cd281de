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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/esstandin"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/es"
	"github.com/ozdoctor/ozdoctor/parsers/es/esclient"
	"github.com/ozdoctor/ozdoctor/report"
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
func bundleRun(t testing.TB) (*report.Result, map[string]string) {
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
// query returns every document the catalogue's prefilter accepts. The same
// holds against a server that behaves as Elasticsearch 7.17.
func TestEquivalenceWithBundle(t *testing.T) {
	want, hosts := bundleRun(t)
	var wantIDs []string
	for _, f := range want.Findings.Slice() {
		wantIDs = append(wantIDs, identity(f))
	}
	if len(wantIDs) < 5 {
		t.Fatalf("the sample gave %d findings", len(wantIDs))
	}
	for _, shape := range []struct {
		name    string
		folded  bool
		version string
	}{{"folded", true, ""}, {"per-line", false, ""}, {"7.17/folded", true, "7.17.25"}} {
		for _, n := range []int{1, 3} {
			t.Run(shape.name+"/"+string(rune('0'+n)), func(t *testing.T) {
				srv := esstandin.New()
				srv.Version = shape.version
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
				for _, f := range res.Findings.Slice() {
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

// Clusters lists the cluster field's values in the time range, and refuses
// to list part of them.
func TestClusters(t *testing.T) {
	srv := esstandin.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	doc := func(ts, cluster string) map[string]any {
		return map[string]any{"@timestamp": ts, "message": "m", "host": map[string]any{"name": "h"},
			"log": map[string]any{"file": map[string]any{"path": "p"}}, "labels": map[string]any{"ozone_cluster": cluster}}
	}
	srv.Add("filebeat-1", doc("2026-08-23T10:00:00Z", "west"), doc("2026-08-23T11:00:00Z", "east"), doc("2026-08-23T11:30:00Z", "east"),
		doc("2026-08-22T10:00:00Z", "retired"))
	cfg := ecsConfig(t, hs.URL)
	cfg.Since, cfg.Until = time.Date(2026, 8, 23, 0, 0, 0, 0, time.UTC), time.Date(2026, 8, 24, 0, 0, 0, 0, time.UTC)
	src, err := es.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := src.Clusters(context.Background())
	if err != nil || !slices.Equal(got, []string{"east", "west"}) {
		t.Errorf("clusters %q, %v; want east and west (retired has no document in range)", got, err)
	}
	many := make([]map[string]any, 10001)
	for i := range many {
		many[i] = doc("2026-08-23T12:00:00Z", "c"+strconv.Itoa(i))
	}
	srv.Add("filebeat-2", many...)
	if got, err := src.Clusters(context.Background()); err == nil || !strings.Contains(err.Error(), "name the clusters") {
		t.Errorf("10,003 clusters: %d listed, err %v; want an error", len(got), err)
	}
}

// Elasticsearch 8.x and 7.17 are accepted, older versions refused; with
// ELASTIC_CLIENT_APIVERSIONING set, 7.17's refusal says what to unset.
func TestVersions(t *testing.T) {
	for _, c := range []struct {
		version, env, want string
	}{
		{"8.19.7", "", ""},
		{"7.17.25", "", ""},
		{"8.19.7", "true", ""},
		{"7.17.25", "true", "unset it"},
		{"7.16.3", "", "version 7.16.3 is not supported"},
		{"6.8.23", "", "version 6.8.23 is not supported"},
	} {
		t.Run(c.version+"/"+c.env, func(t *testing.T) {
			t.Setenv("ELASTIC_CLIENT_APIVERSIONING", c.env)
			srv := esstandin.New()
			srv.Version = c.version
			hs := httptest.NewServer(srv)
			defer hs.Close()
			src, err := es.New(ecsConfig(t, hs.URL))
			if err != nil {
				t.Fatal(err)
			}
			err = src.Check(context.Background())
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

// Silences come from per-file histograms of the files that matter, asked
// for in requests within the cluster's search.max_buckets: a silence that
// spans two requests is found whole, a datanode's silence is not asked for,
// and one histogram of the whole range would be refused.
func TestSilencesWithinMaxBuckets(t *testing.T) {
	srv := esstandin.New()
	srv.MaxBuckets = 150
	hs := httptest.NewServer(srv)
	defer hs.Close()
	at := func(h, m, s int) time.Time { return time.Date(2026, 8, 23, h, m, s, 0, time.UTC) }
	gaps := [][2]time.Time{{at(10, 30, 0), at(10, 31, 0)}, {at(10, 53, 5), at(10, 53, 40)}} // the second spans 10:53:20, a request boundary
	var docs []map[string]any
	for ts := at(10, 0, 0); ts.Before(at(12, 0, 0)); ts = ts.Add(time.Second) {
		for _, file := range []struct{ host, path string }{{"scm1", "ozone-hadoop-scm-scm1.log"}, {"dn1", "ozone-hadoop-datanode-dn1.log"}} {
			silent := false
			for _, g := range gaps {
				silent = silent || (ts.After(g[0]) && ts.Before(g[1]))
			}
			if !silent {
				docs = append(docs, map[string]any{"@timestamp": ts.Format(time.RFC3339), "message": "m", "host": map[string]any{"name": file.host},
					"log": map[string]any{"file": map[string]any{"path": file.path}}, "labels": map[string]any{"ozone_cluster": "prod1"}})
			}
		}
	}
	srv.Add("filebeat-1", docs...)
	cfg := ecsConfig(t, hs.URL)
	cfg.MaxBuckets = 100 // 200 s of 2 s buckets per request
	src, err := es.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := src.Silences(context.Background(), analysis.SilencesMatter)
	if err != nil {
		t.Fatal(err)
	}
	var want []parsers.Silence
	for _, g := range gaps {
		want = append(want, parsers.Silence{Host: "scm1", Path: "ozone-hadoop-scm-scm1.log", From: g[0], To: g[1]})
	}
	if !slices.Equal(got, want) {
		t.Errorf("silences\n got %+v\nwant %+v", got, want)
	}

	cfg.MaxBuckets = 10000
	src, _ = es.New(cfg)
	if _, err := src.Silences(context.Background(), analysis.SilencesMatter); err == nil || !strings.Contains(err.Error(), "too many buckets") {
		t.Errorf("one histogram of 3,600 buckets against search.max_buckets 150: %v", err)
	}
}
