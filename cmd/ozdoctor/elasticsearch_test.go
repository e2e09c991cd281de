package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/detectors/registry"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/internal/esstandin"
)

// findingNames returns "defect detector key" of each finding of a JSON report.
func findingNames(t *testing.T, out string) []string {
	t.Helper()
	var doc struct {
		Findings []struct{ Defect, Detector, Key string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, out)
	}
	var names []string
	for _, f := range doc.Findings {
		names = append(names, f.Defect+" "+f.Detector+" "+f.Key)
	}
	return names
}

// standInWith returns a stand-in holding the bundle at path as ECS
// documents (folded stack traces, the hosts a bundle run tells) of each
// cluster, in the index index(cluster).
func standInWith(t *testing.T, path string, index func(cluster string) string, clusters ...string) *esstandin.Server {
	t.Helper()
	res, err := analysis.Run(context.Background(), analysis.Options{Inputs: []string{path}, Detectors: registry.All()})
	if err != nil {
		t.Fatal(err)
	}
	srv := esstandin.New()
	for _, c := range clusters {
		if _, err := esstandin.LoadBundle(srv, index(c), path, esstandin.Hosts(res.Coverage), c, true); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// `analyze --es.url` over a bundle stored as ECS documents reports what
// `analyze` on the bundle reports: here scm-terminated-after-pause's terminate-L6 case (see
// TestAnalyzeSeveralClusters); TestAnalyzeFromElasticsearchTheSample (tag
// e2e) stores the sample.
func TestAnalyzeFromElasticsearch(t *testing.T) {
	t.Parallel()
	checkAnalyzeFromElasticsearch(t, terminateL6(t), 2)
}

// terminateL6 renders the bundle of scm-terminated-after-pause's
// terminate-L6 case: 6 hosts over 90 minutes (layout L6, rotated, clock
// offsets), an SCM that terminated after a pause, two findings of two
// signatures.
func terminateL6(t *testing.T) string {
	t.Helper()
	bundle := filepath.Join(t.TempDir(), "bundle")
	if _, err := detectortest.BuildFile("../../signatures/scm-terminated-after-pause/testdata/terminate-L6.txtar", bundle); err != nil {
		t.Fatal(err)
	}
	return bundle
}

// checkAnalyzeFromElasticsearch is TestAnalyzeFromElasticsearch on the
// bundle at path, which must give minFindings findings or more.
func checkAnalyzeFromElasticsearch(t *testing.T, path string, minFindings int) {
	srv := standInWith(t, path, func(string) string { return "filebeat-ozone-2026.08.23" }, "prod1")
	hs := httptest.NewServer(srv)
	defer hs.Close()

	_, want, _ := runCLI(t, "analyze", "--format", "json", path)
	for range 2 { // the second run indexes the same findings again
		code, got, stderr := runCLI(t, "analyze", "--format", "json", "--es.url", hs.URL, "--es.index", "filebeat-ozone-*", "--es.cluster", "prod1", "--es.write-findings")
		if code != exitFindings {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if g, w := findingNames(t, got), findingNames(t, want); !slices.Equal(g, w) || len(w) < minFindings {
			t.Errorf("findings from Elasticsearch:\n%q\nfrom the bundle (at least %d):\n%q", g, minFindings, w)
		}
	}
	if n, w := len(srv.Docs("ozdoctor-findings-*")), len(findingNames(t, want)); n != w {
		t.Errorf("%d finding documents indexed by two runs, want %d", n, w)
	}
	// Another cluster's label selects nothing.
	if code, _, stderr := runCLI(t, "analyze", "--es.url", hs.URL, "--es.index", "filebeat-ozone-*", "--es.cluster", "prod2"); code != exitUsage || !strings.Contains(stderr, "no input") {
		t.Errorf("another cluster: exit %d, %s", code, stderr)
	}
}

func TestAnalyzeElasticsearchUsageErrors(t *testing.T) {
	t.Parallel()
	opensearch := esstandin.New()
	opensearch.Product = "-"
	hs := httptest.NewServer(opensearch)
	defer hs.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--es.url", hs.URL}, "--es.index is needed"},
		{[]string{"--es.url", hs.URL, "--es.index", "x", sample}, "not both"},
		{[]string{}, "give PATHs or --es.url"},
		{[]string{"--es.url", hs.URL, "--es.index", "x", "--es.mapping", "splunk"}, `unknown field mapping "splunk"`},
		{[]string{"--es.url", hs.URL, "--es.index", "x", "--es.field", "colour=x"}, `unknown mapping key "colour"`},
		{[]string{"--es.url", hs.URL, "--es.index", "x"}, "is not Elasticsearch"},
		{[]string{"--es.url", "http://127.0.0.1:1", "--es.index", "x", "--es.timeout", "20s"}, "connection refused"},
	} {
		code, _, stderr := runCLI(t, append([]string{"analyze"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// A bundle run indexes its findings into Elasticsearch with
// --es.write-findings --es.findings-url.
func TestAnalyzeBundleWritesFindingsToElasticsearch(t *testing.T) {
	srv := esstandin.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	code, out, stderr := runCLI(t, "analyze", "--format", "json", "--es.write-findings", "--es.findings-url", hs.URL, "--es.cluster", "prod1", sample)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := srv.Docs("ozdoctor-findings-*")
	if n := len(findingNames(t, out)); len(docs) != n || n == 0 {
		t.Fatalf("%d documents for %d findings", len(docs), n)
	}
	if docs[0].Source["cluster"] != "prod1" {
		t.Errorf("cluster: %v", docs[0].Source["cluster"])
	}
}

// One run analyses several clusters of one index, each with its own engine:
// a bundle stored as two clusters gives each the bundle's findings, a
// cluster without documents gets an empty report, and --output with
// {cluster} writes a page per cluster. The bundle is scm-terminated-after-pause's
// terminate-L6 case (terminateL6); TestAnalyzeSeveralClustersOfTheSample
// (tag e2e) stores the sample, whose silences take five times the
// searches.
func TestAnalyzeSeveralClusters(t *testing.T) {
	t.Parallel()
	checkSeveralClusters(t, terminateL6(t))
}

// checkSeveralClusters is TestAnalyzeSeveralClusters on the bundle at path.
func checkSeveralClusters(t *testing.T, path string) {
	srv := standInWith(t, path, func(c string) string { return "filebeat-ozone-" + c }, "prod1", "prod2")
	hs := httptest.NewServer(srv)
	defer hs.Close()
	_, bundleOut, _ := runCLI(t, "analyze", "--format", "json", path)
	want := findingNames(t, bundleOut)
	if len(want) == 0 {
		t.Fatalf("the bundle %s gives no finding", path)
	}
	es := []string{"analyze", "--es.url", hs.URL, "--es.index", "filebeat-ozone-*"}

	code, out, stderr := runCLI(t, append(es, "--format", "json", "--es.cluster", "*", "--es.write-findings")...)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Clusters []struct {
			Cluster  string
			Findings json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Clusters) != 2 || doc.Clusters[0].Cluster != "prod1" || doc.Clusters[1].Cluster != "prod2" {
		t.Fatalf("clusters: %+v", doc.Clusters)
	}
	for _, c := range doc.Clusters {
		if got := findingNames(t, `{"findings":`+string(c.Findings)+`}`); !slices.Equal(got, want) {
			t.Errorf("cluster %s: %q, want the bundle's %q", c.Cluster, got, want)
		}
	}
	byCluster := map[any]int{}
	for _, d := range srv.Docs("ozdoctor-findings-*") {
		byCluster[d.Source["cluster"]]++
	}
	if byCluster["prod1"] != len(want) || byCluster["prod2"] != len(want) || len(byCluster) != 2 {
		t.Errorf("finding documents by cluster: %v, want %d each of prod1 and prod2", byCluster, len(want))
	}

	// A named cluster without documents: its report is empty, the other's stands.
	code, out, stderr = runCLI(t, append(es, "--es.cluster", "prod2", "--es.cluster", "prod3")...)
	if code != exitFindings || !strings.Contains(out, "ozdoctor: cluster prod2: ") || !strings.Contains(out, "ozdoctor: cluster prod3: no findings in 0 files") {
		t.Errorf("exit %d, stderr %s, report:\n%s", code, stderr, out)
	}

	dir := t.TempDir()
	if code, _, stderr := runCLI(t, append(es, "--es.cluster", "*", "--format", "html", "--output", filepath.Join(dir, "report-{cluster}.html"))...); code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []string{"prod1", "prod2"} {
		page, err := os.ReadFile(filepath.Join(dir, "report-"+c+".html"))
		if err != nil || !strings.Contains(string(page), "<h1>ozdoctor report: cluster "+c+"</h1>") {
			t.Errorf("page of %s: %v", c, err)
		}
	}
}

func TestSeveralClustersUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--es.url", "http://127.0.0.1:1", "--es.index", "x", "--es.cluster", "a", "--es.cluster", "*"}, "give it alone"},
		{[]string{"analyze", "--es.url", "http://127.0.0.1:1", "--es.index", "x", "--es.cluster", "*", "--format", "html"}, "put {cluster} in --output"},
		{[]string{"analyze", "--es.cluster", "a", "--es.cluster", "b", sample}, "a bundle is one cluster"},
		{[]string{"analyze", "--es.url", "http://127.0.0.1:1", "--es.index", "x", "--es.mapping", "ecs", "--es.field", "cluster=", "--es.cluster", "a"}, "needs a cluster field"},
		{[]string{"watch", "--es.url", "http://127.0.0.1:1", "--es.index", "x", "--es.cluster", "*", "--check-config"}, "run one watch per cluster"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
