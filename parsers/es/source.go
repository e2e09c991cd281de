package es

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/es/esclient"
)

// Config selects the documents of one Ozone cluster.
type Config struct {
	esclient.Conn
	Index   string // index pattern, e.g. "filebeat-*"
	Mapping Mapping
	Cluster string // value of Mapping.Cluster selecting the cluster ("" = all)
	Since   time.Time
	Until   time.Time

	PageSize  int           // hits per page; default 5000
	Slices    int           // parallel sliced searches; default 1
	KeepAlive time.Duration // point in time keep-alive; default 2m
	// RateLimit caps the searches per second over all slices (0: no cap).
	RateLimit float64
	// Silence is the shortest gap in a file's documents reported as a
	// silence; the histogram's interval is a fifth of it. Default 10s.
	Silence time.Duration
	// MaxHosts and MaxFilesPerHost bound the listing of files; more is
	// an error.
	MaxHosts, MaxFilesPerHost int
	// MaxBuckets bounds the buckets of one histogram request; default
	// 10,000 (Elasticsearch's search.max_buckets defaults to 65,536).
	MaxBuckets int
}

func (c *Config) defaults() {
	if c.PageSize <= 0 {
		c.PageSize = 5000
	}
	if c.Slices <= 0 {
		c.Slices = 1
	}
	if c.KeepAlive <= 0 {
		c.KeepAlive = 2 * time.Minute
	}
	if c.Silence <= 0 {
		c.Silence = 10 * time.Second
	}
	if c.MaxHosts <= 0 {
		c.MaxHosts = 5000
	}
	if c.MaxFilesPerHost <= 0 {
		c.MaxFilesPerHost = 100
	}
	if c.MaxBuckets <= 0 {
		c.MaxBuckets = 10000
	}
}

// Source reads one cluster's documents.
type Source struct {
	cfg    Config
	client *esclient.Client
	limit  *rateLimiter
	stats  Stats
	mu     sync.Mutex
}

// Stats count what a source transferred.
type Stats struct {
	Requests  int64
	Documents int64
	Bytes     int64 // response bytes read
}

// New returns a source for cfg.
func New(cfg Config) (*Source, error) {
	cfg.defaults()
	if cfg.Index == "" {
		return nil, errors.New("elasticsearch: an index pattern is needed")
	}
	if cfg.Mapping.Time == "" || cfg.Mapping.Message == "" || cfg.Mapping.Host == "" || cfg.Mapping.Path == "" {
		return nil, errors.New("elasticsearch: the field mapping needs time, message, host and path fields")
	}
	client, err := esclient.New(cfg.Conn, cfg.Slices+1)
	if err != nil {
		return nil, err
	}
	return &Source{cfg: cfg, client: client, limit: newRateLimiter(cfg.RateLimit)}, nil
}

// Between returns the source over [since, until), sharing the connection
// and the rate limit (its Stats are its own).
func (s *Source) Between(since, until time.Time) *Source {
	cfg := s.cfg
	cfg.Since, cfg.Until = since, until
	return &Source{cfg: cfg, client: s.client, limit: s.limit}
}

// ForCluster returns the source of one cluster's documents, sharing the
// connection and the rate limit (its Stats are its own).
func (s *Source) ForCluster(cluster string) *Source {
	cfg := s.cfg
	cfg.Cluster = cluster
	return &Source{cfg: cfg, client: s.client, limit: s.limit}
}

// maxClusters bounds the clusters Clusters lists.
const maxClusters = 10000

// Clusters returns, sorted, the values of the mapping's cluster field among
// the documents in the time range (whatever the configured cluster).
func (s *Source) Clusters(ctx context.Context) ([]string, error) {
	field := s.cfg.Mapping.Cluster
	if field == "" {
		return nil, errors.New("elasticsearch: listing the clusters needs a cluster field in the mapping")
	}
	body, _ := json.Marshal(map[string]any{
		"size":  0,
		"query": map[string]any{"bool": map[string]any{"filter": []any{s.cfg.rangeFilter()}}},
		"aggs":  map[string]any{"clusters": map[string]any{"terms": map[string]any{"field": field, "size": maxClusters}}},
	})
	var res struct {
		Aggregations struct {
			Clusters struct {
				Other   int64 `json:"sum_other_doc_count"`
				Buckets []struct {
					Key string `json:"key"`
				} `json:"buckets"`
			} `json:"clusters"`
		} `json:"aggregations"`
	}
	if err := s.search(ctx, "clusters", body, &res); err != nil {
		return nil, err
	}
	if res.Aggregations.Clusters.Other > 0 {
		return nil, fmt.Errorf("elasticsearch: more than %d values of %s: name the clusters", maxClusters, field)
	}
	var out []string
	for _, b := range res.Aggregations.Clusters.Buckets {
		out = append(out, b.Key)
	}
	slices.Sort(out)
	return out, nil
}

// Name describes the source for reports.
func (s *Source) Name() string {
	n := "elasticsearch " + strings.Join(s.cfg.URLs, ",") + " index " + s.cfg.Index
	if s.cfg.Cluster != "" {
		n += " cluster " + s.cfg.Cluster
	}
	return n
}

// Stats returns what the source transferred so far.
func (s *Source) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// do runs one request within the rate limit and counts what it transferred.
func (s *Source) do(ctx context.Context, what string, req func(context.Context) (*esapi.Response, error), out any) error {
	if err := s.limit.wait(ctx); err != nil {
		return err
	}
	n, err := s.client.Do(ctx, what, req, out)
	s.mu.Lock()
	s.stats.Requests++
	s.stats.Bytes += int64(n)
	s.mu.Unlock()
	return err
}

// search runs one search of the index with body and decodes its answer
// into out.
func (s *Source) search(ctx context.Context, what string, body []byte, out any) error {
	return s.do(ctx, what, func(ctx context.Context) (*esapi.Response, error) {
		return s.client.Search(s.client.Search.WithContext(ctx), s.client.Search.WithIndex(s.cfg.Index), s.client.Search.WithBody(bytes.NewReader(body)))
	}, out)
}

// Check asks the server who it is (see esclient.Client.Check).
func (s *Source) Check(ctx context.Context) error { return s.client.Check(ctx) }

// Silences returns, per host and file, the spans of at least cfg.Silence
// without a document, read from date histograms (to a fifth of
// cfg.Silence). keep selects the files whose silences matter: only theirs
// are counted, each in requests of at most cfg.MaxBuckets buckets, so the
// cluster's search.max_buckets is never reached.
func (s *Source) Silences(ctx context.Context, keep func(host, path string) bool) ([]parsers.Silence, error) {
	interval := s.cfg.Silence / 5
	files, err := s.files(ctx)
	if err != nil {
		return nil, err
	}
	var out []parsers.Silence
	for _, f := range files {
		if keep != nil && !keep(f.host, f.path) {
			continue
		}
		keys, err := s.histogram(ctx, f, interval)
		if err != nil {
			return nil, err
		}
		for i := 1; i < len(keys); i++ {
			// Documents fell in the buckets starting at a and b and none
			// between: the silence ends between the end of a's bucket and
			// the start of b's at least, and it may be up to two intervals
			// longer; the documents at its edges tell.
			a, b := keys[i-1], keys[i]
			if b.Sub(a.Add(interval)) < s.cfg.Silence-2*interval {
				continue
			}
			from, err := s.edge(ctx, f.host, f.path, a, a.Add(interval), "desc")
			if err != nil {
				return nil, err
			}
			to, err := s.edge(ctx, f.host, f.path, b, b.Add(interval), "asc")
			if err != nil {
				return nil, err
			}
			if to.Sub(from) >= s.cfg.Silence {
				out = append(out, parsers.Silence{Host: f.host, Path: f.path, From: from, To: to})
			}
		}
	}
	return out, nil
}

// fileSpan is one host's file and the times of its first and last document.
type fileSpan struct {
	host, path  string
	first, last time.Time
}

// files lists the files in range; a list cut short by MaxHosts or
// MaxFilesPerHost is an error, since silences would go unseen.
func (s *Source) files(ctx context.Context) ([]fileSpan, error) {
	body, _ := json.Marshal(s.cfg.filesBody())
	type bound struct {
		Value float64 `json:"value"` // epoch milliseconds
	}
	var res struct {
		Aggregations struct {
			Hosts struct {
				Other   int64 `json:"sum_other_doc_count"`
				Buckets []struct {
					Key   string `json:"key"`
					Files struct {
						Other   int64 `json:"sum_other_doc_count"`
						Buckets []struct {
							Key   string `json:"key"`
							First bound  `json:"first"`
							Last  bound  `json:"last"`
						} `json:"buckets"`
					} `json:"files"`
				} `json:"buckets"`
			} `json:"hosts"`
		} `json:"aggregations"`
	}
	if err := s.search(ctx, "files", body, &res); err != nil {
		return nil, err
	}
	if res.Aggregations.Hosts.Other > 0 {
		return nil, fmt.Errorf("elasticsearch: more than %d hosts in %s: silences cannot be listed", s.cfg.MaxHosts, s.Name())
	}
	var out []fileSpan
	for _, h := range res.Aggregations.Hosts.Buckets {
		if h.Files.Other > 0 {
			return nil, fmt.Errorf("elasticsearch: more than %d files of host %s: silences cannot be listed", s.cfg.MaxFilesPerHost, h.Key)
		}
		for _, f := range h.Files.Buckets {
			out = append(out, fileSpan{host: h.Key, path: f.Key,
				first: time.UnixMilli(int64(f.First.Value)).UTC(), last: time.UnixMilli(int64(f.Last.Value)).UTC()})
		}
	}
	return out, nil
}

// histogram returns the start of every interval of f that holds a document,
// in order, asking for at most MaxBuckets intervals at a time.
func (s *Source) histogram(ctx context.Context, f fileSpan, interval time.Duration) ([]time.Time, error) {
	step := time.Duration(s.cfg.MaxBuckets) * interval
	ms := interval.Milliseconds()
	from := time.UnixMilli(f.first.UnixMilli() - f.first.UnixMilli()%ms).UTC() // the buckets' alignment
	var keys []time.Time
	for ; !from.After(f.last); from = from.Add(step) {
		body, _ := json.Marshal(s.cfg.histogramBody(f.host, f.path, from, from.Add(step), interval))
		var res struct {
			Aggregations struct {
				Counts struct {
					Buckets []struct {
						Key int64 `json:"key"`
					} `json:"buckets"`
				} `json:"counts"`
			} `json:"aggregations"`
		}
		if err := s.search(ctx, "histogram", body, &res); err != nil {
			return nil, err
		}
		for _, b := range res.Aggregations.Counts.Buckets {
			keys = append(keys, time.UnixMilli(b.Key).UTC())
		}
	}
	return keys, nil
}

// edge returns the time of the last ("desc") or first ("asc") document of a
// host's file in [from, to).
func (s *Source) edge(ctx context.Context, host, path string, from, to time.Time, order string) (time.Time, error) {
	m := s.cfg.Mapping
	body, _ := json.Marshal(map[string]any{
		"size": 1, "_source": []string{m.Time}, "sort": []any{map[string]any{m.Time: order}},
		"query": map[string]any{"bool": map[string]any{"filter": []any{
			map[string]any{"term": map[string]any{m.Host: host}},
			map[string]any{"term": map[string]any{m.Path: path}},
			map[string]any{"range": map[string]any{m.Time: map[string]any{
				"gte": from.Format(time.RFC3339Nano), "lt": to.Format(time.RFC3339Nano)}}},
		}}},
	})
	var res struct {
		Hits struct {
			Hits []hit `json:"hits"`
		} `json:"hits"`
	}
	if err := s.search(ctx, "silence edge", body, &res); err != nil {
		return time.Time{}, err
	}
	if len(res.Hits.Hits) == 0 {
		return from, nil
	}
	ts, _ := lookup(res.Hits.Hits[0].Source, m.Time).(string)
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}, fmt.Errorf("elasticsearch: %s of a document is not a date: %q", m.Time, ts)
	}
	return t.UTC(), nil
}

// hit is one search hit with its sort values.
type hit struct {
	Source map[string]any `json:"_source"`
	Sort   []json.Number  `json:"sort"`
}

// Documents calls fn with every document the pushed-down query selects, in
// event-time order (then file offset), literals being the catalogue's.
func (s *Source) Documents(ctx context.Context, literals []catalogue.Literal, fn func(parsers.Document) error) error {
	var pit struct {
		ID string `json:"id"`
	}
	if err := s.do(ctx, "open point in time", func(ctx context.Context) (*esapi.Response, error) {
		return s.client.OpenPointInTime(strings.Split(s.cfg.Index, ","), durationString(s.cfg.KeepAlive), s.client.OpenPointInTime.WithContext(ctx))
	}, &pit); err != nil {
		return err
	}
	defer func() {
		body, _ := json.Marshal(map[string]string{"id": pit.ID})
		var ignored map[string]any
		_ = s.do(context.Background(), "close point in time", func(ctx context.Context) (*esapi.Response, error) {
			return s.client.ClosePointInTime(s.client.ClosePointInTime.WithContext(ctx), s.client.ClosePointInTime.WithBody(bytes.NewReader(body)))
		}, &ignored)
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	query := s.cfg.Query(literals)
	pages := make([]chan []hit, s.cfg.Slices)
	errs := make(chan error, s.cfg.Slices)
	for i := range pages {
		pages[i] = make(chan []hit, 1)
		go func() {
			defer close(pages[i])
			if err := s.slice(ctx, pit.ID, i, query, pages[i]); err != nil {
				errs <- err
				cancel()
			}
		}()
	}
	err := s.merge(ctx, pages, fn)
	cancel()
	for _, p := range pages { // let the workers end
		for range p {
		}
	}
	select {
	case e := <-errs:
		return e
	default:
	}
	return err
}

// slice pages through one slice of the point in time.
func (s *Source) slice(ctx context.Context, pit string, id int, query map[string]any, out chan<- []hit) error {
	var after []json.Number
	for {
		req := map[string]any{
			"size": s.cfg.PageSize, "query": query, "sort": s.cfg.sort(), "_source": s.cfg.Mapping.fields(),
			"track_total_hits": false, "pit": map[string]any{"id": pit, "keep_alive": durationString(s.cfg.KeepAlive)},
		}
		if s.cfg.Slices > 1 {
			req["slice"] = map[string]any{"id": id, "max": s.cfg.Slices}
		}
		if after != nil {
			req["search_after"] = after
		}
		body, _ := json.Marshal(req)
		var res struct {
			PitID string `json:"pit_id"`
			Hits  struct {
				Hits []hit `json:"hits"`
			} `json:"hits"`
		}
		if err := s.do(ctx, "search", func(ctx context.Context) (*esapi.Response, error) {
			return s.client.Search(s.client.Search.WithContext(ctx), s.client.Search.WithBody(bytes.NewReader(body)))
		}, &res); err != nil {
			return err
		}
		if res.PitID != "" {
			pit = res.PitID
		}
		hits := res.Hits.Hits
		if len(hits) == 0 {
			return nil
		}
		select {
		case out <- hits:
		case <-ctx.Done():
			return ctx.Err()
		}
		if len(hits) < s.cfg.PageSize {
			return nil
		}
		after = hits[len(hits)-1].Sort
	}
}

// merge emits the slices' hits in sort order (each slice is sorted).
func (s *Source) merge(ctx context.Context, pages []chan []hit, fn func(parsers.Document) error) error {
	heads := make([][]hit, len(pages))
	open := make([]bool, len(pages))
	for i := range pages {
		open[i] = true
	}
	for {
		best := -1
		for i := range pages {
			if len(heads[i]) == 0 && open[i] {
				select {
				case p, ok := <-pages[i]:
					heads[i], open[i] = p, ok
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if len(heads[i]) > 0 && (best < 0 || less(heads[i][0].Sort, heads[best][0].Sort)) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		h := heads[best][0]
		heads[best] = heads[best][1:]
		s.mu.Lock()
		s.stats.Documents++
		s.mu.Unlock()
		if err := fn(s.document(h)); err != nil {
			return err
		}
	}
}

func less(a, b []json.Number) bool {
	for i := range min(len(a), len(b)) {
		x, _ := a[i].Int64()
		y, _ := b[i].Int64()
		if x != y {
			return x < y
		}
	}
	return false
}

// document reads a hit's fields through the mapping.
func (s *Source) document(h hit) parsers.Document {
	m := s.cfg.Mapping
	d := parsers.Document{Offset: -1}
	d.Message, _ = lookup(h.Source, m.Message).(string)
	d.Host, _ = lookup(h.Source, m.Host).(string)
	d.Path, _ = lookup(h.Source, m.Path).(string)
	if ts, ok := lookup(h.Source, m.Time).(string); ok {
		d.Time, _ = time.Parse(time.RFC3339Nano, ts)
	}
	if m.Offset != "" {
		if n, ok := lookup(h.Source, m.Offset).(float64); ok {
			d.Offset = int64(n)
		}
	}
	return d
}

// lookup finds a dotted field as a flat key or in nested objects.
func lookup(src map[string]any, field string) any {
	if v, ok := src[field]; ok {
		return v
	}
	for i := 0; i < len(field); i++ {
		if field[i] != '.' {
			continue
		}
		if sub, ok := src[field[:i]].(map[string]any); ok {
			if v := lookup(sub, field[i+1:]); v != nil {
				return v
			}
		}
	}
	return nil
}

// rateLimiter spaces requests to at most rate a second.
type rateLimiter struct {
	mu    sync.Mutex
	every time.Duration
	next  time.Time
}

func newRateLimiter(rate float64) *rateLimiter {
	if rate <= 0 {
		return &rateLimiter{}
	}
	return &rateLimiter{every: time.Duration(float64(time.Second) / rate)}
}

func (r *rateLimiter) wait(ctx context.Context) error {
	if r.every == 0 {
		return nil
	}
	r.mu.Lock()
	now := time.Now()
	at := r.next
	if at.Before(now) {
		at = now
	}
	r.next = at.Add(r.every)
	r.mu.Unlock()
	select {
	case <-time.After(at.Sub(now)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
