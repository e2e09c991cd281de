package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/parsers/es"
	"github.com/ozdoctor/ozdoctor/parsers/es/esclient"
	"github.com/ozdoctor/ozdoctor/report"
	esfindings "github.com/ozdoctor/ozdoctor/sinks/elasticsearch"
)

// addESFlags declares the flags of the Elasticsearch source.
func addESFlags(f *pflag.FlagSet) {
	f.StringSlice("es.url", nil, "read the logs a shipper stored in Elasticsearch at this URL instead of PATHs (repeatable, one per node)")
	f.String("es.index", "", "index pattern of the log documents, e.g. filebeat-* or logs-ozone-*")
	f.String("es.mapping", "ecs", "document field mapping: "+strings.Join(es.PresetNames(), ", "))
	f.StringSlice("es.field", nil, "override one field of the mapping, KEY=FIELD with KEY time, message, host, path, offset or cluster (repeatable)")
	f.StringSlice("es.cluster", nil, "value of the mapping's cluster field that selects one Ozone cluster; analyze: repeatable, '*' for every cluster in the index")
	f.String("es.api-key", "", "API key (base64 id:key as Kibana shows it; better: OZDOCTOR_ES_API_KEY)")
	f.String("es.username", "", "basic authentication user")
	f.String("es.password", "", "basic authentication password (better: OZDOCTOR_ES_PASSWORD)")
	f.String("es.ca-file", "", "PEM file of the CA that signed the cluster's certificate")
	f.Int("es.slices", 2, "parallel sliced searches")
	f.Float64("es.rate-limit", 0, "at most this many searches a second (0: no limit)")
	f.Duration("es.timeout", time.Minute, "timeout of one request")
}

// addESFindingsFlags declares the flags of the findings sink.
func addESFindingsFlags(f *pflag.FlagSet) {
	f.Bool("es.write-findings", false, "also index the findings into Elasticsearch (daily indices PREFIX-YYYY.MM.DD, template installed)")
	f.String("es.findings-prefix", esfindings.DefaultPrefix, "index name prefix and template name of the findings")
	f.StringSlice("es.findings-url", nil, "Elasticsearch URL the findings go to (repeatable; default --es.url); the es.* credentials apply")
}

// esConn reads the connection flags.
func esConn(v *viper.Viper, urls []string) esclient.Conn {
	return esclient.Conn{
		URLs: urls, APIKey: v.GetString("es.api-key"), Username: v.GetString("es.username"), Password: v.GetString("es.password"),
		CAFile: v.GetString("es.ca-file"), Timeout: v.GetDuration("es.timeout"),
	}
}

// esConfig reads the Elasticsearch flags; ok is false when no URL is given.
func esConfig(v *viper.Viper, since, until time.Time) (cfg es.Config, ok bool, err error) {
	urls := v.GetStringSlice("es.url")
	if len(urls) == 0 {
		return es.Config{}, false, nil
	}
	if v.GetString("es.index") == "" {
		return es.Config{}, true, fmt.Errorf("--es.index is needed with --es.url")
	}
	m, err := es.Preset(v.GetString("es.mapping"))
	if err != nil {
		return es.Config{}, true, fmt.Errorf("--es.mapping: %w", err)
	}
	fields, err := keyValues(v.GetStringSlice("es.field"))
	if err != nil {
		return es.Config{}, true, fmt.Errorf("--es.field: %w", err)
	}
	for k, f := range fields {
		if err := m.Set(k, f); err != nil {
			return es.Config{}, true, fmt.Errorf("--es.field: %w", err)
		}
	}
	if ca := v.GetString("es.ca-file"); ca != "" {
		if _, err := os.Stat(ca); err != nil {
			return es.Config{}, true, fmt.Errorf("--es.ca-file: %w", err)
		}
	}
	clusters, err := esClusters(v)
	if err != nil {
		return es.Config{}, true, err
	}
	if len(clusters) > 0 && m.Cluster == "" {
		return es.Config{}, true, fmt.Errorf("--es.cluster needs a cluster field in the mapping (--es.field cluster=FIELD)")
	}
	return es.Config{
		Conn:  esConn(v, urls),
		Index: v.GetString("es.index"), Mapping: m, Cluster: oneCluster(clusters), Since: since, Until: until,
		Slices: v.GetInt("es.slices"), RateLimit: v.GetFloat64("es.rate-limit"),
	}, true, nil
}

// allClusters is the --es.cluster value that stands for every cluster.
const allClusters = "*"

// esClusters reads --es.cluster: names, or "*" alone.
func esClusters(v *viper.Viper) ([]string, error) {
	clusters := v.GetStringSlice("es.cluster")
	if slices.Contains(clusters, allClusters) && len(clusters) > 1 {
		return nil, fmt.Errorf("--es.cluster: %q stands for every cluster; give it alone", allClusters)
	}
	if slices.Contains(clusters, "") {
		return nil, fmt.Errorf("--es.cluster: empty cluster name")
	}
	return clusters, nil
}

// oneCluster is the cluster named when exactly one is, else "".
func oneCluster(clusters []string) string {
	if len(clusters) == 1 && clusters[0] != allClusters {
		return clusters[0]
	}
	return ""
}

// esFindingsConfig reads the findings sink's flags: nil without
// --es.write-findings.
func esFindingsConfig(v *viper.Viper, cluster string) (*esfindings.Config, error) {
	if !v.GetBool("es.write-findings") {
		return nil, nil
	}
	urls := v.GetStringSlice("es.url")
	if v.IsSet("es.findings-url") {
		urls = v.GetStringSlice("es.findings-url")
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("--es.write-findings needs --es.findings-url or --es.url")
	}
	return &esfindings.Config{Conn: esConn(v, urls), Prefix: v.GetString("es.findings-prefix"), Cluster: cluster}, nil
}

// esUnreachable is a source that cannot be used: not reachable, not
// Elasticsearch, refused credentials (a usage error, exit 2).
type esUnreachable struct{ err error }

func (e *esUnreachable) Error() string { return e.err.Error() }
func (e *esUnreachable) Unwrap() error { return e.err }

// analyzeES analyses the documents of an Elasticsearch source, each of
// clusters ("*": every cluster in the time range) with its own engine, one
// after the other. A cluster without documents gets an empty report;
// analysis.ErrNoInput is returned when no cluster had any.
func analyzeES(ctx context.Context, opt analysis.Options, cfg es.Config, clusters []string) ([]*report.Result, error) {
	src, err := es.New(cfg)
	if err != nil {
		return nil, &esUnreachable{err}
	}
	if err := src.Check(ctx); err != nil {
		return nil, &esUnreachable{err}
	}
	if len(clusters) == 1 && clusters[0] == allClusters {
		if clusters, err = src.Clusters(ctx); err != nil {
			return nil, err
		}
		if len(clusters) == 0 {
			return nil, fmt.Errorf("%w: no document of any cluster in %s", analysis.ErrNoInput, src.Name())
		}
	}
	if len(clusters) == 0 {
		res, err := analysis.RunDocuments(ctx, opt, src)
		return []*report.Result{res}, err
	}
	var out []*report.Result
	read := false
	for _, c := range clusters {
		res, err := analysis.RunDocuments(ctx, opt, src.ForCluster(c))
		if err != nil && !errors.Is(err, analysis.ErrNoInput) {
			return nil, fmt.Errorf("cluster %s: %w", c, err)
		}
		read = read || err == nil
		res.Cluster = c
		out = append(out, res)
	}
	if !read {
		return out, analysis.ErrNoInput
	}
	return out, nil
}

// writeFindingsES indexes a run's findings.
func writeFindingsES(ctx context.Context, cfg esfindings.Config, findings []detectors.Finding) error {
	sink, err := esfindings.New(cfg)
	if err != nil {
		return err
	}
	if err := sink.InstallTemplate(ctx); err != nil {
		return err
	}
	docs := make([]esfindings.Doc, 0, len(findings))
	for _, f := range findings {
		docs = append(docs, sink.FindingDoc(f))
	}
	return sink.Write(ctx, docs)
}
