// Package elasticsearch indexes ozdoctor's findings and their transitions
// into Elasticsearch, for Kibana dashboards and Watcher or ElastAlert rules.
//
// Documents go into daily indices "<prefix>-YYYY.MM.DD" (prefix
// "ozdoctor-findings" by default) through an index template with an
// explicit mapping that the sink installs. A finding is one document whose
// ID is its fingerprint (detector and key), in the index of the day its
// incident started (after the cluster's name when one is configured),
// replaced as the finding changes; each transition of its alert (pending,
// firing, resolved, escalated, withdrawn) is one more document whose ID is
// that, the new state and the time, in the index of the day it happened. IDs are deterministic, so sending the same finding or
// transition again replaces a document and never adds a second one.
package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/es/esclient"
)

// DefaultPrefix names the findings indices and their template.
const DefaultPrefix = "ozdoctor-findings"

// Config configures a Sink.
type Config struct {
	esclient.Conn
	Prefix  string // index name prefix and template name; DefaultPrefix when ""
	Cluster string // the Ozone cluster the findings are about, in every document
}

// Sink writes findings to one Elasticsearch cluster.
type Sink struct {
	cfg    Config
	client *esclient.Client
}

// New returns a sink for cfg.
func New(cfg Config) (*Sink, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	client, err := esclient.New(cfg.Conn, 2)
	if err != nil {
		return nil, err
	}
	return &Sink{cfg: cfg, client: client}, nil
}

// Doc is one document to index.
type Doc struct {
	Index, ID string
	Body      map[string]any
}

// FindingDoc is a finding's document.
func (s *Sink) FindingDoc(f detectors.Finding) Doc {
	fp := detectors.Fingerprint(f.Detector, f.Key)
	return Doc{Index: s.index(f.Start), ID: s.id(fp), Body: s.body("finding", fp, f.Start, f)}
}

// TransitionDoc is the document of one transition of a finding's alert.
func (s *Sink) TransitionDoc(t detectors.Transition) Doc {
	b := s.body("transition", t.Fingerprint, t.At, t.Finding)
	b["previous_state"] = string(t.From)
	b["state"] = string(t.To)
	b["escalated"] = t.Escalated
	id := fmt.Sprintf("%s-%s-%d", s.id(t.Fingerprint), t.To, t.At.UnixNano())
	return Doc{Index: s.index(t.At), ID: id, Body: b}
}

// id is a finding's document ID: its fingerprint, after the cluster's name
// when there is one, so that clusters sharing the indices never replace
// each other's findings.
func (s *Sink) id(fingerprint string) string {
	if s.cfg.Cluster == "" {
		return fingerprint
	}
	return s.cfg.Cluster + "-" + fingerprint
}

func (s *Sink) index(t time.Time) string { return s.cfg.Prefix + "-" + t.UTC().Format("2006.01.02") }

// body is a finding as the report's JSON has it, with the document's time,
// kind, fingerprint and cluster.
func (s *Sink) body(kind, fingerprint string, at time.Time, f detectors.Finding) map[string]any {
	var b map[string]any
	raw, _ := json.Marshal(f)
	_ = json.Unmarshal(raw, &b)
	b["@timestamp"] = at.UTC().Format(time.RFC3339Nano)
	b["kind"] = kind
	b["fingerprint"] = fingerprint
	if s.cfg.Cluster != "" {
		b["cluster"] = s.cfg.Cluster
	}
	return b
}

// Template is the index template the sink installs: daily indices of the
// prefix with an explicit mapping (unknown fields are kept in _source and
// not indexed).
func (s *Sink) Template() map[string]any {
	kw := map[string]any{"type": "keyword"}
	date := map[string]any{"type": "date"}
	text := map[string]any{"type": "text"}
	return map[string]any{
		"index_patterns": []string{s.cfg.Prefix + "-*"},
		"priority":       200,
		"_meta":          map[string]any{"description": "ozdoctor findings and their alert transitions"},
		"template": map[string]any{
			"settings": map[string]any{"number_of_shards": 1},
			"mappings": map[string]any{
				"dynamic": false,
				"properties": map[string]any{
					"@timestamp": date, "kind": kw, "fingerprint": kw, "cluster": kw,
					"detector": kw, "defect": kw, "key": kw, "severity": kw, "confidence": kw,
					"state": kw, "previous_state": kw, "escalated": map[string]any{"type": "boolean"},
					"title": text, "summary": text, "start": date, "end": date,
					"facts":       map[string]any{"type": "flattened"},
					"remediation": text,
					"entities": map[string]any{"properties": map[string]any{
						"hosts": kw, "pipelines": kw, "raft_groups": kw, "om_nodes": kw,
						"containers": map[string]any{"type": "long"},
						"datanodes":  map[string]any{"properties": map[string]any{"uuid": kw, "host": kw, "ip": map[string]any{"type": "ip"}}},
					}},
					"evidence": map[string]any{"properties": map[string]any{
						"file": kw, "line": map[string]any{"type": "long"}, "host": kw, "component": kw, "time": date, "text": text,
					}},
				},
			},
		},
	}
}

// InstallTemplate puts the index template (again: it is idempotent).
func (s *Sink) InstallTemplate(ctx context.Context) error {
	body, _ := json.Marshal(s.Template())
	var ack map[string]any
	_, err := s.client.Do(ctx, "put index template", func(ctx context.Context) (*esapi.Response, error) {
		return s.client.Indices.PutIndexTemplate(s.cfg.Prefix, bytes.NewReader(body), s.client.Indices.PutIndexTemplate.WithContext(ctx))
	}, &ack)
	return err
}

// Check asks the server who it is (see esclient.Client.Check).
func (s *Sink) Check(ctx context.Context) error { return s.client.Check(ctx) }

// Write indexes docs with one bulk request. A document Elasticsearch
// refuses fails the write with its reason; retrying the whole write is
// safe (the IDs make it idempotent).
func (s *Sink) Write(ctx context.Context, docs []Doc) error {
	statuses, reasons, err := s.bulk(ctx, docs)
	if err != nil {
		return err
	}
	var failed []string
	for i, st := range statuses {
		if st >= 300 {
			failed = append(failed, fmt.Sprintf("%s: %d %s", docs[i].ID, st, reasons[i]))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("elasticsearch bulk: %d of %d documents refused: %s", len(failed), len(docs), strings.Join(failed, "; "))
	}
	return nil
}

// bulk sends docs and returns each one's status and error reason.
func (s *Sink) bulk(ctx context.Context, docs []Doc) (statuses []int, reasons []string, err error) {
	if len(docs) == 0 {
		return nil, nil, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, d := range docs {
		_ = enc.Encode(map[string]any{"index": map[string]any{"_index": d.Index, "_id": d.ID}})
		if err := enc.Encode(d.Body); err != nil {
			return nil, nil, fmt.Errorf("elasticsearch bulk: %w", err)
		}
	}
	var res struct {
		Items []map[string]struct {
			Status int `json:"status"`
			Error  struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"error"`
		} `json:"items"`
	}
	if _, err := s.client.Do(ctx, "bulk", func(ctx context.Context) (*esapi.Response, error) {
		return s.client.Bulk(bytes.NewReader(buf.Bytes()), s.client.Bulk.WithContext(ctx))
	}, &res); err != nil {
		return nil, nil, err
	}
	if len(res.Items) != len(docs) {
		return nil, nil, fmt.Errorf("elasticsearch bulk: %d answers for %d documents", len(res.Items), len(docs))
	}
	statuses, reasons = make([]int, len(docs)), make([]string, len(docs))
	for i, item := range res.Items {
		for _, r := range item {
			statuses[i] = r.Status
			if r.Error.Type != "" {
				reasons[i] = r.Error.Type + ": " + r.Error.Reason
			}
		}
	}
	return statuses, reasons, nil
}
