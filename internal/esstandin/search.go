package esstandin

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// searchRequest is the subset of the _search body the stand-in implements;
// any other key is rejected.
type searchRequest struct {
	Size           *int                       `json:"size"`
	Pit            *pitRef                    `json:"pit"`
	Sort           []json.RawMessage          `json:"sort"`
	SearchAfter    []json.Number              `json:"search_after"`
	Slice          *sliceSpec                 `json:"slice"`
	Query          json.RawMessage            `json:"query"`
	Source         json.RawMessage            `json:"_source"`
	TrackTotalHits json.RawMessage            `json:"track_total_hits"`
	Aggs           map[string]json.RawMessage `json:"aggs"`
}

type pitRef struct {
	ID        string `json:"id"`
	KeepAlive string `json:"keep_alive"`
}

type sliceSpec struct {
	ID  int `json:"id"`
	Max int `json:"max"`
}

// candidates returns the documents among the first upto that can match q,
// in indexing order: through the term index, the fewest that a term clause
// of q's filter allows, narrowed further, when a range clause of the filter
// bounds a field, to the documents whose value is within its bounds (a
// binary search of those documents ordered by the field); else all. The
// query itself still decides on each.
func (s *Server) candidates(q clause, upto int) []*Doc {
	b, ok := q.(boolQuery)
	if !ok {
		return s.docs[:upto]
	}
	best, base, baseKey := s.docs[:upto], s.docs, "all"
	for _, c := range b.filter {
		t, ok := c.(termsQuery)
		if !ok || len(t.values) != 1 {
			continue
		}
		if s.termIndex[t.field] == nil {
			idx := map[string][]*Doc{}
			for _, d := range s.docs {
				if v, ok := d.field(t.field); ok {
					k := fmt.Sprint(v)
					idx[k] = append(idx[k], d)
				}
			}
			s.termIndex[t.field] = idx
		}
		docs := s.termIndex[t.field][t.values[0]]
		n, _ := slices.BinarySearchFunc(docs, upto, func(d *Doc, upto int) int { return d.seq - upto })
		if n < len(best) {
			best, base, baseKey = docs[:n], docs, "term\x00"+t.field+"\x00"+t.values[0]
		}
	}
	for _, c := range b.filter {
		r, ok := c.(rangeQuery)
		if !ok || r.gt == nil && r.gte == nil && r.lt == nil && r.lte == nil {
			continue
		}
		key := baseKey + "\x00" + r.field
		v := s.rangeIndex[key]
		if v == nil {
			v = newRangeView(base, r.field)
			s.rangeIndex[key] = v
		}
		lo, hi := v.bounds(r)
		if hi-lo >= len(best) {
			continue
		}
		in := make([]*Doc, 0, hi-lo)
		for _, d := range v.docs[lo:hi] {
			if d.seq < upto {
				in = append(in, d)
			}
		}
		slices.SortFunc(in, func(a, b *Doc) int { return a.seq - b.seq })
		best = in
	}
	return best
}

// rangeView is a list of documents ordered by the value a range clause
// compares of one field; the documents without such a value, which no
// range matches, are left out.
type rangeView struct {
	docs []*Doc
	vals []float64
}

func newRangeView(docs []*Doc, field string) *rangeView {
	type entry struct {
		d *Doc
		x float64
	}
	var es []entry
	for _, d := range docs {
		if x, ok := rangeValue(d, field); ok {
			es = append(es, entry{d, x})
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.x, b.x) })
	v := &rangeView{docs: make([]*Doc, len(es)), vals: make([]float64, len(es))}
	for i, e := range es {
		v.docs[i], v.vals[i] = e.d, e.x
	}
	return v
}

// bounds returns the span of v's documents within r's bounds.
func (v *rangeView) bounds(r rangeQuery) (int, int) {
	first := func(ok func(x float64) bool) int {
		return sort.Search(len(v.vals), func(i int) bool { return ok(v.vals[i]) })
	}
	lo, hi := 0, len(v.vals)
	if r.gt != nil {
		lo = max(lo, first(func(x float64) bool { return x > *r.gt }))
	}
	if r.gte != nil {
		lo = max(lo, first(func(x float64) bool { return x >= *r.gte }))
	}
	if r.lt != nil {
		hi = min(hi, first(func(x float64) bool { return x >= *r.lt }))
	}
	if r.lte != nil {
		hi = min(hi, first(func(x float64) bool { return x > *r.lte }))
	}
	return lo, max(lo, hi)
}

// hitDoc is a matching document with its sort values.
type hitDoc struct {
	d    *Doc
	sort []int64
}

// sortKey is one sort criterion.
type sortKey struct {
	field string
	desc  bool
}

const missingLast = math.MaxInt64

// maxCachedSearches bounds the searches whose hits are kept.
const maxCachedSearches = 64

func (s *Server) search(index string, body []byte) (int, any) {
	var req searchRequest
	if err := strictJSON(body, &req); err != nil {
		return esError(http.StatusBadRequest, "x_content_parse_exception", "search body: "+err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var indices []string
	upto := len(s.docs)
	var p *pit
	switch {
	case req.Pit != nil && index != "":
		return esError(http.StatusBadRequest, "action_request_validation_exception", "[indices] cannot be used with point in time")
	case req.Pit != nil:
		var ok bool
		if p, ok = s.pits[req.Pit.ID]; !ok {
			return esError(http.StatusNotFound, "search_phase_execution_exception", "No search context found for id ["+req.Pit.ID+"]")
		}
		if req.Pit.KeepAlive != "" && !validDuration(req.Pit.KeepAlive) {
			return esError(http.StatusBadRequest, "illegal_argument_exception", "bad keep_alive")
		}
		indices, upto = p.indices, p.upto
	case index != "":
		indices = []string{index}
	default:
		indices = []string{"*"}
	}
	if req.Slice != nil && (req.Slice.Max < 2 || req.Slice.ID < 0 || req.Slice.ID >= req.Slice.Max || req.Pit == nil) {
		return esError(http.StatusBadRequest, "action_request_validation_exception", "slice needs 0 <= id < max, max > 1 and a point in time")
	}
	keys, err := parseSort(req.Sort)
	if err != nil {
		return esError(http.StatusBadRequest, "parsing_exception", err.Error())
	}
	if len(req.SearchAfter) > 0 && len(req.SearchAfter) != len(keys) {
		return esError(http.StatusBadRequest, "illegal_argument_exception", "search_after has a different number of values than sort")
	}
	var q clause = matchAll{}
	if len(req.Query) > 0 {
		if q, err = parseQuery(req.Query); err != nil {
			return esError(http.StatusBadRequest, "parsing_exception", err.Error())
		}
	}
	fields, err := parseSourceFilter(req.Source)
	if err != nil {
		return esError(http.StatusBadRequest, "parsing_exception", err.Error())
	}
	cacheKey := fmt.Sprintf("%q\x00%d\x00%s\x00%q\x00%v", indices, upto, req.Query, req.Sort, req.Slice)
	matched, cached := []hitDoc(nil), false
	if p != nil {
		matched, cached = s.hits[cacheKey]
	}
	if !cached {
		inIndices := map[string]bool{}
		for _, d := range s.candidates(q, upto) {
			in, seen := inIndices[d.Index]
			if !seen {
				in = slices.ContainsFunc(indices, func(p string) bool { return matchIndex(p, d.Index) })
				inIndices[d.Index] = in
			}
			if !in {
				continue
			}
			if req.Slice != nil && d.seq%req.Slice.Max != req.Slice.ID {
				continue
			}
			if q.match(d) {
				h := hitDoc{d: d, sort: make([]int64, len(keys))}
				for i, k := range keys {
					h.sort[i] = sortValue(d, k.field)
				}
				matched = append(matched, h)
			}
		}
		slices.SortStableFunc(matched, func(a, b hitDoc) int { return compareSort(a.sort, b.sort, keys) })
		if p != nil {
			if len(s.hits) >= maxCachedSearches {
				clear(s.hits)
			}
			s.hits[cacheKey] = matched
		}
	}
	resp := map[string]any{"took": 1, "timed_out": false, "_shards": map[string]any{"total": 1, "successful": 1, "skipped": 0, "failed": 0}}
	if req.Pit != nil {
		resp["pit_id"] = req.Pit.ID
	}
	if len(req.Aggs) > 0 {
		docs := make([]*Doc, len(matched))
		for i, h := range matched {
			docs[i] = h.d
		}
		n := 0
		aggs, err := aggregate(req.Aggs, docs, &n)
		if err != nil {
			return esError(http.StatusBadRequest, "parsing_exception", err.Error())
		}
		if n > s.maxBuckets() {
			return esError(http.StatusBadRequest, "too_many_buckets_exception", fmt.Sprintf("Trying to create too many buckets. Must be less than or equal to: [%d] but was [%d]. "+
				"This limit can be set by changing the [search.max_buckets] cluster level setting.", s.maxBuckets(), n))
		}
		resp["aggregations"] = aggs
	}
	total := len(matched)
	if len(req.SearchAfter) > 0 {
		after := make([]int64, len(req.SearchAfter))
		for i, n := range req.SearchAfter {
			if after[i], err = n.Int64(); err != nil {
				return esError(http.StatusBadRequest, "parsing_exception", "search_after value "+n.String()+" is not a long")
			}
		}
		i, _ := slices.BinarySearchFunc(matched, after, func(h hitDoc, a []int64) int {
			if compareSort(h.sort, a, keys) <= 0 {
				return -1
			}
			return 1
		})
		matched = matched[i:]
	}
	size := 10
	if req.Size != nil {
		size = *req.Size
	}
	if size < 0 || size > 10000 {
		return esError(http.StatusBadRequest, "illegal_argument_exception", "Result window is too large, size must be at most 10000")
	}
	hits := []any{}
	for _, m := range matched[:min(size, len(matched))] {
		h := map[string]any{"_index": m.d.Index, "_id": m.d.ID, "_score": nil, "_source": filterSource(m.d.Source, fields)}
		if len(keys) > 0 {
			h["sort"] = m.sort
		}
		hits = append(hits, h)
	}
	resp["hits"] = map[string]any{"total": map[string]any{"value": total, "relation": "eq"}, "max_score": nil, "hits": hits}
	return http.StatusOK, resp
}

func parseSort(raw []json.RawMessage) ([]sortKey, error) {
	var keys []sortKey
	for _, r := range raw {
		var name string
		if json.Unmarshal(r, &name) == nil {
			keys = append(keys, sortKey{field: name})
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(r, &m); err != nil || len(m) != 1 {
			return nil, fmt.Errorf("sort entry %s is not {field: order}", r)
		}
		for f, v := range m {
			k := sortKey{field: f}
			var order string
			if json.Unmarshal(v, &order) != nil {
				var opt struct {
					Order        string `json:"order"`
					UnmappedType string `json:"unmapped_type"`
					Format       string `json:"format"`
				}
				if err := strictJSON(v, &opt); err != nil {
					return nil, fmt.Errorf("sort options of %s: %v", f, err)
				}
				order = opt.Order
			}
			switch order {
			case "", "asc":
			case "desc":
				k.desc = true
			default:
				return nil, fmt.Errorf("sort order %q", order)
			}
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// sortValue is what Elasticsearch returns as a hit's sort value: epoch
// milliseconds for dates, the number for numbers, missing values last.
func sortValue(d *Doc, field string) int64 {
	if field == "_shard_doc" {
		return int64(d.seq)
	}
	v, ok := d.field(field)
	if !ok {
		return missingLast
	}
	if n, ok := number(v); ok {
		return int64(n)
	}
	if t, ok := date(v); ok {
		return t.UnixMilli()
	}
	return missingLast
}

func compareSort(a, b []int64, keys []sortKey) int {
	for i, k := range keys {
		c := 0
		switch {
		case a[i] < b[i]:
			c = -1
		case a[i] > b[i]:
			c = 1
		}
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// field returns a document's field by its dotted name, from the flattened
// source (built when the document was indexed).
func (d *Doc) field(name string) (any, bool) {
	v, ok := d.flat[name]
	return v, ok
}

// flatten lists every field of src under its dotted name, objects included.
func flatten(prefix string, src map[string]any, into map[string]any) {
	for k, v := range src {
		if prefix != "" {
			k = prefix + "." + k
		}
		into[k] = v
		if sub, ok := v.(map[string]any); ok {
			flatten(k, sub, into)
		}
	}
}

// lookup finds a dotted field as a flat key or in nested objects
// ("host.name" as {"host.name": ..} or {"host": {"name": ..}}).
func lookup(src map[string]any, field string) (any, bool) {
	if v, ok := src[field]; ok {
		return v, true
	}
	for i := 0; i < len(field); i++ {
		if field[i] != '.' {
			continue
		}
		if sub, ok := src[field[:i]].(map[string]any); ok {
			if v, ok := lookup(sub, field[i+1:]); ok {
				return v, true
			}
		}
	}
	return nil, false
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func date(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

func parseSourceFilter(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var fields []string
	if err := json.Unmarshal(raw, &fields); err == nil {
		return fields, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil && b {
		return nil, nil
	}
	return nil, fmt.Errorf("_source must be true or a list of fields, got %s", raw)
}

// filterSource keeps only the listed fields (all when fields is nil).
func filterSource(src map[string]any, fields []string) map[string]any {
	if fields == nil {
		return src
	}
	out := map[string]any{}
	for _, f := range fields {
		if v, ok := lookup(src, f); ok {
			out[f] = v
		}
	}
	return out
}

// clause is one evaluated query clause.
type clause interface{ match(d *Doc) bool }

type matchAll struct{}

func (matchAll) match(*Doc) bool { return true }

type boolQuery struct {
	filter, must, should, mustNot []clause
	minShould                     int
}

func (b boolQuery) match(src *Doc) bool {
	for _, cs := range [][]clause{b.filter, b.must} {
		for _, c := range cs {
			if !c.match(src) {
				return false
			}
		}
	}
	for _, c := range b.mustNot {
		if c.match(src) {
			return false
		}
	}
	n := 0
	for _, c := range b.should {
		if c.match(src) {
			n++
		}
	}
	return n >= b.minShould
}

type rangeQuery struct {
	field            string
	gt, gte, lt, lte *float64
}

func (r rangeQuery) match(d *Doc) bool {
	x, ok := rangeValue(d, r.field)
	if !ok {
		return false
	}
	return (r.gt == nil || x > *r.gt) && (r.gte == nil || x >= *r.gte) && (r.lt == nil || x < *r.lt) && (r.lte == nil || x <= *r.lte)
}

// rangeValue is the value a range clause compares of a document's field:
// the number, or a date's epoch milliseconds.
func rangeValue(d *Doc, field string) (float64, bool) {
	v, ok := d.field(field)
	if !ok {
		return 0, false
	}
	if x, ok := number(v); ok {
		return x, true
	}
	t, ok := date(v)
	if !ok {
		return 0, false
	}
	return float64(t.UnixMilli()), true
}

type termsQuery struct {
	field  string
	values []string
}

func (t termsQuery) match(d *Doc) bool {
	v, ok := d.field(t.field)
	if !ok {
		return false
	}
	if str, ok := v.(string); ok {
		return slices.Contains(t.values, str)
	}
	return slices.Contains(t.values, fmt.Sprint(v))
}

type existsQuery struct{ field string }

func (e existsQuery) match(d *Doc) bool { _, ok := d.field(e.field); return ok }

type phraseQuery struct {
	field  string
	tokens []string
}

func (p phraseQuery) match(d *Doc) bool {
	if len(p.tokens) == 0 {
		return false
	}
	lower, ok := d.lowerText(p.field)
	if !ok {
		return false
	}
	for _, t := range p.tokens { // each token of a match is a substring
		if !strings.Contains(lower, t) {
			return false
		}
	}
	doc := d.tokens(p.field, lower)
	for i := 0; i+len(p.tokens) <= len(doc); i++ {
		if slices.Equal(doc[i:i+len(p.tokens)], p.tokens) {
			return true
		}
	}
	return false
}

// lowerText returns a text field lower-cased, computed once per document.
func (d *Doc) lowerText(field string) (string, bool) {
	if l, ok := d.lower[field]; ok {
		return l, true
	}
	v, _ := d.field(field)
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	if d.lower == nil {
		d.lower = map[string]string{}
	}
	d.lower[field] = strings.ToLower(s)
	return d.lower[field], true
}

// tokens returns the words of a text field (lower, lower-cased), split
// once per document.
func (d *Doc) tokens(field, lower string) []string {
	if t, ok := d.words[field]; ok {
		return t
	}
	if d.words == nil {
		d.words = map[string][]string{}
	}
	d.words[field] = tokens(lower)
	return d.words[field]
}

// tokens splits text the way Elasticsearch's standard analyzer does on
// ASCII text, lower-cased: words are runs of letters, digits and "_"; a
// ".", ":" or "'" between two letters, and a "." or "," between two digits,
// join their neighbours into one word (Unicode word boundaries, UAX #29:
// "org.apache.Foo", "can't" and "10.0.0.1" are one token each).
func tokens(s string) []string {
	var out []string
	rs := []rune(strings.ToLower(s))
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
	start := -1
	for i, r := range rs {
		if word(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i+1 < len(rs) && joins(rs[i-1], r, rs[i+1]) {
			continue
		}
		if start >= 0 {
			out = append(out, string(rs[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, string(rs[start:]))
	}
	return out
}

// joins reports whether mid between prev and next stays inside a word.
func joins(prev, mid, next rune) bool {
	switch {
	case unicode.IsLetter(prev) && unicode.IsLetter(next):
		return mid == '.' || mid == ':' || mid == '\''
	case unicode.IsDigit(prev) && unicode.IsDigit(next):
		return mid == '.' || mid == ','
	}
	return false
}

func parseQuery(raw json.RawMessage) (clause, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
		return nil, fmt.Errorf("a query clause is an object with one key, got %s", raw)
	}
	for name, body := range m {
		switch name {
		case "match_all":
			return matchAll{}, nil
		case "bool":
			return parseBool(body)
		case "range":
			return parseRange(body)
		case "term", "terms":
			return parseTerms(name, body)
		case "match_phrase":
			f, v, err := oneField(body, "query")
			if err != nil {
				return nil, err
			}
			var text string
			if err := json.Unmarshal(v, &text); err != nil {
				return nil, fmt.Errorf("match_phrase on %s: %v", f, err)
			}
			return phraseQuery{field: f, tokens: tokens(text)}, nil
		case "exists":
			var e struct {
				Field string `json:"field"`
			}
			if err := strictJSON(body, &e); err != nil || e.Field == "" {
				return nil, fmt.Errorf("exists needs a field")
			}
			return existsQuery{e.Field}, nil
		}
		return nil, fmt.Errorf("the stand-in does not implement the [%s] query", name)
	}
	return nil, nil
}

func parseBool(body json.RawMessage) (clause, error) {
	var b struct {
		Filter             json.RawMessage `json:"filter"`
		Must               json.RawMessage `json:"must"`
		Should             json.RawMessage `json:"should"`
		MustNot            json.RawMessage `json:"must_not"`
		MinimumShouldMatch *int            `json:"minimum_should_match"`
	}
	if err := strictJSON(body, &b); err != nil {
		return nil, fmt.Errorf("bool: %v", err)
	}
	var q boolQuery
	var err error
	for _, part := range []struct {
		raw json.RawMessage
		to  *[]clause
	}{{b.Filter, &q.filter}, {b.Must, &q.must}, {b.Should, &q.should}, {b.MustNot, &q.mustNot}} {
		if *part.to, err = clauses(part.raw); err != nil {
			return nil, err
		}
	}
	switch {
	case b.MinimumShouldMatch != nil:
		q.minShould = *b.MinimumShouldMatch
	case len(q.should) > 0 && len(q.filter)+len(q.must) == 0:
		q.minShould = 1
	}
	return q, nil
}

// clauses reads one clause or a list of them.
func clauses(raw json.RawMessage) ([]clause, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	out := make([]clause, 0, len(list))
	for _, r := range list {
		c, err := parseQuery(r)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func parseRange(body json.RawMessage) (clause, error) {
	f, v, err := oneField(body, "")
	if err != nil {
		return nil, err
	}
	var bounds struct {
		GT     any    `json:"gt"`
		GTE    any    `json:"gte"`
		LT     any    `json:"lt"`
		LTE    any    `json:"lte"`
		Format string `json:"format"`
	}
	if err := strictJSON(v, &bounds); err != nil {
		return nil, fmt.Errorf("range on %s: %v", f, err)
	}
	r := rangeQuery{field: f}
	for _, b := range []struct {
		v  any
		to **float64
	}{{bounds.GT, &r.gt}, {bounds.GTE, &r.gte}, {bounds.LT, &r.lt}, {bounds.LTE, &r.lte}} {
		if b.v == nil {
			continue
		}
		x, ok := number(b.v)
		if !ok {
			t, ok := date(b.v)
			if !ok {
				return nil, fmt.Errorf("range on %s: cannot parse %v", f, b.v)
			}
			x = float64(t.UnixMilli())
		}
		*b.to = &x
	}
	return r, nil
}

func parseTerms(name string, body json.RawMessage) (clause, error) {
	f, v, err := oneField(body, "value")
	if err != nil {
		return nil, err
	}
	var vals []any
	if name == "terms" {
		if err := json.Unmarshal(v, &vals); err != nil {
			return nil, fmt.Errorf("terms on %s needs a list", f)
		}
	} else {
		var one any
		if err := json.Unmarshal(v, &one); err != nil {
			return nil, err
		}
		vals = []any{one}
	}
	t := termsQuery{field: f}
	for _, x := range vals {
		if n, ok := x.(float64); ok {
			t.values = append(t.values, strconv.FormatFloat(n, 'f', -1, 64))
			continue
		}
		t.values = append(t.values, fmt.Sprint(x))
	}
	return t, nil
}

// oneField reads {field: value} or {field: {key: value}} (key "" allows
// only the plain object form, returned whole).
func oneField(body json.RawMessage, key string) (string, json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || len(m) != 1 {
		return "", nil, fmt.Errorf("expected {field: ...}, got %s", body)
	}
	for f, v := range m {
		if key != "" && len(v) > 0 && v[0] == '{' {
			var inner map[string]json.RawMessage
			if err := json.Unmarshal(v, &inner); err != nil || len(inner) != 1 || inner[key] == nil {
				return "", nil, fmt.Errorf("expected {%s: {%s: ...}}", f, key)
			}
			return f, inner[key], nil
		}
		return f, v, nil
	}
	return "", nil, nil
}

// aggregate evaluates terms and date_histogram aggregations with min and
// max of dates below them, adding the buckets made to *n.
func aggregate(aggs map[string]json.RawMessage, docs []*Doc, n *int) (map[string]any, error) {
	out := map[string]any{}
	for _, name := range sortedKeys(aggs) {
		var spec struct {
			Terms *struct {
				Field string `json:"field"`
				Size  int    `json:"size"`
			} `json:"terms"`
			DateHistogram *struct {
				Field         string `json:"field"`
				FixedInterval string `json:"fixed_interval"`
				MinDocCount   int    `json:"min_doc_count"`
			} `json:"date_histogram"`
			Min, Max *fieldSpec
			Aggs     map[string]json.RawMessage `json:"aggs"`
		}
		if err := strictJSON(aggs[name], &spec); err != nil {
			return nil, fmt.Errorf("aggregation %s: %v", name, err)
		}
		if spec.Min != nil || spec.Max != nil {
			out[name] = dateBound(spec.Min, spec.Max, docs)
			continue
		}
		type bucket struct {
			key  string
			ms   int64
			docs []*Doc
		}
		var buckets []*bucket
		other := 0 // documents in the terms buckets cut off by size
		switch {
		case spec.Terms != nil:
			by := map[string]*bucket{}
			for _, d := range docs {
				v, ok := d.field(spec.Terms.Field)
				if !ok {
					continue
				}
				k := fmt.Sprint(v)
				if by[k] == nil {
					by[k] = &bucket{key: k}
					buckets = append(buckets, by[k])
				}
				by[k].docs = append(by[k].docs, d)
			}
			slices.SortFunc(buckets, func(a, b *bucket) int {
				if len(a.docs) != len(b.docs) {
					return len(b.docs) - len(a.docs)
				}
				return strings.Compare(a.key, b.key)
			})
			size := spec.Terms.Size
			if size == 0 {
				size = 10
			}
			for _, b := range buckets[min(size, len(buckets)):] {
				other += len(b.docs)
			}
			buckets = buckets[:min(size, len(buckets))]
		case spec.DateHistogram != nil:
			iv, err := time.ParseDuration(spec.DateHistogram.FixedInterval)
			if err != nil || iv <= 0 || !validDuration(spec.DateHistogram.FixedInterval) {
				return nil, fmt.Errorf("date_histogram %s: fixed_interval %q", name, spec.DateHistogram.FixedInterval)
			}
			by := map[int64]*bucket{}
			for _, d := range docs {
				v, _ := d.field(spec.DateHistogram.Field)
				t, ok := date(v)
				if !ok {
					continue
				}
				k := t.UnixMilli() - t.UnixMilli()%iv.Milliseconds()
				if by[k] == nil {
					by[k] = &bucket{ms: k, key: time.UnixMilli(k).UTC().Format("2006-01-02T15:04:05.000Z")}
					buckets = append(buckets, by[k])
				}
				by[k].docs = append(by[k].docs, d)
			}
			slices.SortFunc(buckets, func(a, b *bucket) int { return int(a.ms - b.ms) })
			if spec.DateHistogram.MinDocCount != 1 {
				return nil, fmt.Errorf("date_histogram %s: the stand-in implements min_doc_count 1 only", name)
			}
		default:
			return nil, fmt.Errorf("aggregation %s: the stand-in implements terms and date_histogram only", name)
		}
		*n += len(buckets)
		var bs []any
		for _, b := range buckets {
			m := map[string]any{"doc_count": len(b.docs)}
			if spec.DateHistogram != nil {
				m["key"], m["key_as_string"] = b.ms, b.key
			} else {
				m["key"] = b.key
			}
			if len(spec.Aggs) > 0 {
				sub, err := aggregate(spec.Aggs, b.docs, n)
				if err != nil {
					return nil, err
				}
				for k, v := range sub {
					m[k] = v
				}
			}
			bs = append(bs, m)
		}
		out[name] = map[string]any{"buckets": bs}
		if spec.Terms != nil {
			out[name] = map[string]any{"buckets": bs, "sum_other_doc_count": other}
		}
	}
	return out, nil
}

// fieldSpec is an aggregation on one field.
type fieldSpec struct {
	Field string `json:"field"`
}

// dateBound evaluates a min or a max aggregation of a date field: epoch
// milliseconds as a number, null without a value.
func dateBound(lo, hi *fieldSpec, docs []*Doc) map[string]any {
	spec, sign := lo, -1
	if hi != nil {
		spec, sign = hi, 1
	}
	var best time.Time
	for _, d := range docs {
		v, _ := d.field(spec.Field)
		if t, ok := date(v); ok && (best.IsZero() || t.Compare(best) == sign) {
			best = t
		}
	}
	if best.IsZero() {
		return map[string]any{"value": nil}
	}
	return map[string]any{"value": float64(best.UnixMilli()), "value_as_string": best.UTC().Format("2006-01-02T15:04:05.000Z")}
}
