// Package esstandin is an in-process stand-in for the part of the
// Elasticsearch 8 (or 7.17, see Server.Version) REST API that ozdoctor uses. No Elasticsearch (or
// OpenSearch) server can be installed where ozdoctor is tested, so its tests
// run against this server: it evaluates every request for real over the
// documents it holds and rejects, with Elasticsearch's error shape, any
// request body, clause or parameter it does not implement.
//
// It implements: the product header (X-Elastic-Product) and GET /; point in
// time (POST /<index>/_pit, DELETE /_pit); _search with pit, size, sort
// (fields asc/desc, _shard_doc), search_after, slice, _source filtering,
// track_total_hits and the query clauses bool (filter, must, should, must_not,
// minimum_should_match), range (gt, gte, lt, lte on dates and numbers), term,
// terms, match_phrase, exists and match_all; the aggregations terms and
// date_histogram (fixed_interval, min_doc_count) and min and max of dates,
// within search.max_buckets (MaxBuckets); _bulk (index and create);
// PUT /_index_template/<name>; GET /<index>/_doc/<id>; API key and basic
// authentication; injected failures (FailNext). As 7.17 it differs in what
// ozdoctor's client can see: its version, "_type" in _bulk items, and a 400
// to requests asking for REST compatibility with 8 (the media type
// "compatible-with=8", which the Go client sends when
// ELASTIC_CLIENT_APIVERSIONING is set).
//
// It does not cover: relevance scoring (hits come in sort order only);
// analyzers and mappings (match_phrase is a lower-cased word-sequence match,
// the standard analyzer's behaviour on ASCII text; fields are not typed by a
// mapping, an index template is stored, not applied); shards, replicas and
// refresh (a document is searchable as soon as it is indexed); point-in-time
// expiry (keep_alive is checked for syntax, never enforced); cluster limits
// other than search.max_buckets; TLS (tests wrap it in httptest's TLS server);
// roles and privileges; every API not named above.
package esstandin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Doc is one stored document: its source and its place in the index.
type Doc struct {
	ID     string
	Index  string
	Source map[string]any
	seq    int                 // _shard_doc: the order of indexing
	flat   map[string]any      // Source's fields by dotted name
	lower  map[string]string   // lower-cased text fields, filled by phrase queries
	words  map[string][]string // their words, filled by phrase queries
}

// pit is an open point in time: the indices and documents it sees.
type pit struct {
	indices []string
	upto    int // documents with seq < upto
}

// Server is the stand-in. Its zero value is not usable: call New.
type Server struct {
	mu        sync.Mutex
	docs      []*Doc
	byID      map[string]*Doc // index + "\x00" + id
	pits      map[string]*pit
	templates map[string]json.RawMessage
	termIndex map[string]map[string][]*Doc // field -> value -> documents, built by term queries
	// rangeIndex holds the documents (all, or a term's) ordered by a
	// field's value, built by range queries (see candidates).
	rangeIndex map[string]*rangeView
	// hits keeps the sorted hits of searches on points in time: what a
	// point in time sees does not change, so paging through a query (or
	// running it again on the same documents) evaluates it once.
	hits    map[string][]hitDoc
	fail    []int // statuses to answer the next requests with
	nextPIT int

	// APIKey and User/Password, when set, are required of every request.
	APIKey         string
	User, Password string
	// Product is the X-Elastic-Product header sent ("Elasticsearch"
	// unless set; an OpenSearch server sends none: set "-").
	Product string
	// MaxBuckets is the cluster's search.max_buckets: a search whose
	// aggregations make more buckets fails (65,536 unless set).
	MaxBuckets int
	// Version is the version the server says it is: 8.19.7 unless set; a
	// 7.x version behaves as 7.17 (see the package comment).
	Version string

	requests  atomic.Int64
	bytesSent atomic.Int64
}

// New returns an empty stand-in.
func New() *Server {
	return &Server{byID: map[string]*Doc{}, pits: map[string]*pit{}, templates: map[string]json.RawMessage{}, termIndex: map[string]map[string][]*Doc{}, rangeIndex: map[string]*rangeView{}, hits: map[string][]hitDoc{}}
}

// Add indexes documents into index; a document without an "_id" gets one.
func (s *Server) Add(index string, sources ...map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, src := range sources {
		s.put(index, "", src)
	}
}

func (s *Server) put(index, id string, src map[string]any) (created bool) {
	if id == "" {
		id = strconv.Itoa(len(s.docs))
	}
	key := index + "\x00" + id
	if d, ok := s.byID[key]; ok {
		d.Source, d.flat, d.lower, d.words = src, map[string]any{}, nil, nil
		clear(s.termIndex)
		clear(s.rangeIndex)
		clear(s.hits)
		flatten("", src, d.flat)
		return false
	}
	d := &Doc{ID: id, Index: index, Source: src, seq: len(s.docs), flat: map[string]any{}}
	flatten("", src, d.flat)
	s.docs = append(s.docs, d)
	clear(s.termIndex)
	clear(s.rangeIndex)
	clear(s.hits)
	s.byID[key] = d
	return true
}

// Docs returns the documents of the indices matching pattern, in indexing order.
func (s *Server) Docs(pattern string) []Doc {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Doc
	for _, d := range s.docs {
		if matchIndex(pattern, d.Index) {
			out = append(out, *d)
		}
	}
	return out
}

// Template returns an index template installed by PUT /_index_template.
func (s *Server) Template(name string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.templates[name]
}

// FailNext makes the next len(statuses) requests fail with those statuses.
func (s *Server) FailNext(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, statuses...)
}

// Requests returns how many requests were served.
func (s *Server) Requests() int64 { return s.requests.Load() }

func (s *Server) maxBuckets() int {
	if s.MaxBuckets > 0 {
		return s.MaxBuckets
	}
	return 65536
}

// v7 tells whether the server behaves as Elasticsearch 7.17.
func (s *Server) v7() bool { return strings.HasPrefix(s.Version, "7.") }

// BytesSent returns how many response bytes were sent.
func (s *Server) BytesSent() int64 { return s.bytesSent.Load() }

// esError is Elasticsearch's error body.
func esError(status int, typ, reason string) (int, any) {
	return status, map[string]any{"error": map[string]any{"type": typ, "reason": reason,
		"root_cause": []any{map[string]any{"type": typ, "reason": reason}}}, "status": status}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	switch s.Product {
	case "":
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
	case "-":
	default:
		w.Header().Set("X-Elastic-Product", s.Product)
	}
	status, body := s.route(r)
	var b []byte
	if raw, ok := body.([]byte); ok {
		b = raw
	} else {
		b, _ = json.Marshal(body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	n, _ := w.Write(b)
	s.bytesSent.Add(int64(n))
}

func (s *Server) route(r *http.Request) (int, any) {
	if !s.authorized(r) {
		return esError(http.StatusUnauthorized, "security_exception", "missing authentication credentials for REST request ["+r.URL.Path+"]")
	}
	s.mu.Lock()
	if len(s.fail) > 0 {
		st := s.fail[0]
		s.fail = s.fail[1:]
		s.mu.Unlock()
		if st == -1 {
			return http.StatusOK, []byte(`{"took": 1, "hits": {"hits": [ {"_id": `) // malformed
		}
		return esError(st, "injected_failure", "injected by the test")
	}
	s.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return esError(http.StatusBadRequest, "parse_exception", err.Error())
	}
	if s.v7() {
		for _, h := range []string{"Accept", "Content-Type"} {
			if strings.Contains(r.Header.Get(h), "compatible-with=8") {
				return esError(http.StatusBadRequest, "media_type_header_exception", "Elasticsearch 7.17 knows no compatible-with=8 ("+h+")")
			}
		}
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		version := map[string]any{"number": "8.19.7", "build_flavor": "default", "minimum_wire_compatibility_version": "7.17.0"}
		if s.Version != "" {
			version["number"] = s.Version
		}
		if s.v7() {
			version["minimum_wire_compatibility_version"] = "6.8.0"
		}
		return http.StatusOK, map[string]any{"name": "esstandin", "cluster_name": "esstandin", "tagline": "You Know, for Search", "version": version}
	case len(parts) == 2 && parts[1] == "_pit" && r.Method == http.MethodPost:
		return s.openPIT(parts[0], r)
	case len(parts) == 1 && parts[0] == "_pit" && r.Method == http.MethodDelete:
		return s.closePIT(body)
	case len(parts) == 1 && parts[0] == "_search" && (r.Method == http.MethodPost || r.Method == http.MethodGet):
		return s.search("", body)
	case len(parts) == 2 && parts[1] == "_search" && (r.Method == http.MethodPost || r.Method == http.MethodGet):
		return s.search(parts[0], body)
	case len(parts) == 1 && parts[0] == "_bulk" && (r.Method == http.MethodPost || r.Method == http.MethodPut):
		return s.bulk(body)
	case len(parts) == 2 && parts[0] == "_index_template" && r.Method == http.MethodPut:
		return s.putTemplate(parts[1], body)
	case len(parts) == 3 && parts[1] == "_doc" && r.Method == http.MethodGet:
		return s.getDoc(parts[0], parts[2])
	}
	return esError(http.StatusBadRequest, "illegal_argument_exception", "the stand-in does not implement "+r.Method+" "+r.URL.Path)
}

func (s *Server) authorized(r *http.Request) bool {
	if s.APIKey == "" && s.User == "" {
		return true
	}
	if scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && s.APIKey != "" &&
		strings.EqualFold(scheme, "ApiKey") && key == s.APIKey {
		return true
	}
	u, p, ok := r.BasicAuth()
	return s.User != "" && ok && u == s.User && p == s.Password
}

func (s *Server) openPIT(index string, r *http.Request) (int, any) {
	if ka := r.URL.Query().Get("keep_alive"); !validDuration(ka) {
		return esError(http.StatusBadRequest, "illegal_argument_exception", "keep_alive ["+ka+"] is not a time value")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextPIT++
	id := fmt.Sprintf("pit-%d", s.nextPIT)
	s.pits[id] = &pit{indices: strings.Split(index, ","), upto: len(s.docs)}
	return http.StatusOK, map[string]any{"id": id}
}

func (s *Server) closePIT(body []byte) (int, any) {
	var req struct {
		ID string `json:"id"`
	}
	if err := strictJSON(body, &req); err != nil || req.ID == "" {
		return esError(http.StatusBadRequest, "parse_exception", "DELETE /_pit needs {\"id\": ...}")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pits[req.ID]
	delete(s.pits, req.ID)
	n := 0
	if ok {
		n = 1
	}
	return http.StatusOK, map[string]any{"succeeded": true, "num_freed": n}
}

func (s *Server) putTemplate(name string, body []byte) (int, any) {
	var t struct {
		IndexPatterns []string       `json:"index_patterns"`
		Template      map[string]any `json:"template"`
		DataStream    map[string]any `json:"data_stream"`
		Priority      int            `json:"priority"`
		Meta          map[string]any `json:"_meta"`
	}
	if err := strictJSON(body, &t); err != nil {
		return esError(http.StatusBadRequest, "x_content_parse_exception", err.Error())
	}
	if len(t.IndexPatterns) == 0 {
		return esError(http.StatusBadRequest, "action_request_validation_exception", "index patterns are missing")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.templates[name] = json.RawMessage(body)
	return http.StatusOK, map[string]any{"acknowledged": true}
}

func (s *Server) getDoc(index, id string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.byID[index+"\x00"+id]
	if !ok {
		return http.StatusNotFound, map[string]any{"_index": index, "_id": id, "found": false}
	}
	return http.StatusOK, map[string]any{"_index": index, "_id": id, "found": true, "_source": d.Source}
}

// bulk indexes NDJSON action and source lines.
func (s *Server) bulk(body []byte) (int, any) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var items []any
	errors := false
	s.mu.Lock()
	defer s.mu.Unlock()
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var action map[string]struct {
			Index string `json:"_index"`
			ID    string `json:"_id"`
		}
		if err := strictJSON(line, &action); err != nil || len(action) != 1 {
			return esError(http.StatusBadRequest, "illegal_argument_exception", "malformed action/metadata line")
		}
		for op, meta := range action {
			if op != "index" && op != "create" {
				return esError(http.StatusBadRequest, "illegal_argument_exception", "the stand-in does not implement bulk "+op)
			}
			if !sc.Scan() {
				return esError(http.StatusBadRequest, "illegal_argument_exception", "the bulk request must be terminated by a newline")
			}
			var src map[string]any
			if err := json.Unmarshal(sc.Bytes(), &src); err != nil {
				return esError(http.StatusBadRequest, "mapper_parsing_exception", err.Error())
			}
			if meta.Index == "" {
				return esError(http.StatusBadRequest, "action_request_validation_exception", "index is missing")
			}
			item := map[string]any{"_index": meta.Index, "_id": meta.ID}
			if s.v7() {
				item["_type"] = "_doc"
			}
			items = append(items, map[string]any{op: item})
			key := meta.Index + "\x00" + meta.ID
			if _, exists := s.byID[key]; op == "create" && meta.ID != "" && exists {
				errors = true
				item["status"] = 409
				item["error"] = map[string]any{"type": "version_conflict_engine_exception", "reason": "document already exists"}
				continue
			}
			item["result"], item["status"] = "updated", 200
			if s.put(meta.Index, meta.ID, src) {
				item["result"], item["status"] = "created", 201
			}
		}
	}
	return http.StatusOK, map[string]any{"took": 1, "errors": errors, "items": items}
}

// matchIndex reports whether index matches a comma-separated pattern list
// with * wildcards.
func matchIndex(pattern, index string) bool {
	for p := range strings.SplitSeq(pattern, ",") {
		if ok, _ := path.Match(p, index); ok {
			return true
		}
	}
	return false
}

// strictJSON decodes b into v, rejecting unknown fields.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	return dec.Decode(v)
}

func validDuration(s string) bool {
	if s == "" {
		return false
	}
	for _, u := range []string{"ms", "s", "m", "h", "d"} {
		if n, ok := strings.CutSuffix(s, u); ok {
			_, err := strconv.Atoi(n)
			return err == nil
		}
	}
	return false
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}
