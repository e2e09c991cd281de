package catalogue

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Entry recognises one Ozone/Ratis message.
//
// Literals are the prefilter: a record is a candidate for the entry when its
// first line contains any of them (one literal per wording the message has
// had). Pattern then runs on the record's message (all folded lines); its
// named groups fill the Signal (see setField for the group names). Loggers,
// when set, restrict the entry to records whose logger's simple class name is
// one of them (records without a logger column always pass).
type Entry struct {
	Kind     Kind
	Source   string // the Ozone/Ratis source it mirrors, "path:line" (template ID from shared/ozone)
	Loggers  []string
	Literals []string
	Pattern  *regexp.Regexp
	// Post, if set, finishes the signal after the named groups were applied
	// (see setField; groups named "_..." are left to Post alone); returning
	// false drops the match.
	Post func(s *Signal, m Groups) bool
}

// maxGroups bounds an entry's groups (the whole match counts as one).
const maxGroups = 16

// Groups are the text of a match's named groups, held by value: a Post
// reads them without a map made for every match.
type Groups struct {
	names []string
	sub   [maxGroups]string
}

// Get returns the text of the named group ("" when absent or empty); of
// groups of one name (alternatives), the one that matched.
func (g *Groups) Get(name string) string {
	for i, n := range g.names {
		if n == name && g.sub[i] != "" {
			return g.sub[i]
		}
	}
	return ""
}

// Catalogue matches records against a set of entries.
type Catalogue struct {
	entries  []Entry
	literals []string   // every entry literal, once each
	keys     *keyFilter // over the literals' prefilter keys
	unnamed  *keyFilter // over the keys of entries that name no logger; nil when all do
	// loggers are the keys a record of each named logger may hold: those
	// of the entries naming it and of those naming none.
	loggers map[string][]string
	litEnt  [][]int        // key index -> entry indexes
	keyIdx  map[string]int // key -> its index
	names   [][]string
	literal []*literalMatcher // by entry: its pattern without the regular expression, or nil

	mu       sync.Mutex
	byLogger map[string]*keyFilter // loggers' filters, built when first asked for
}

// New builds a catalogue of the given entries (Default() when none given).
func New(entries ...Entry) (*Catalogue, error) {
	if len(entries) == 0 {
		entries = Default()
	}
	c := &Catalogue{entries: entries, loggers: map[string][]string{}, byLogger: map[string]*keyFilter{}}
	index := map[string]int{}
	seen := map[string]bool{}
	var keys, unnamed []string
	for ei, e := range entries {
		if e.Kind == "" || e.Pattern == nil || len(e.Literals) == 0 {
			return nil, fmt.Errorf("catalogue entry %d (%s): kind, pattern and literals are required", ei, e.Kind)
		}
		for _, l := range e.Literals {
			if len(l) < 2 {
				return nil, fmt.Errorf("catalogue entry %s: literal %q is shorter than two bytes", e.Kind, l)
			}
			if !seen[l] {
				seen[l] = true
				c.literals = append(c.literals, l)
			}
			key := prefilterKey(l)
			if len(e.Loggers) == 0 && !slices.Contains(unnamed, key) {
				unnamed = append(unnamed, key)
			}
			for _, lg := range e.Loggers {
				if !slices.Contains(c.loggers[lg], key) {
					c.loggers[lg] = append(c.loggers[lg], key)
				}
			}
			li, ok := index[key]
			if !ok {
				li = len(keys)
				index[key] = li
				keys = append(keys, key)
				c.litEnt = append(c.litEnt, nil)
			}
			c.litEnt[li] = appendUnique(c.litEnt[li], ei)
		}
		if n := e.Pattern.NumSubexp() + 1; n > maxGroups {
			return nil, fmt.Errorf("catalogue entry %s: %d groups, at most %d", e.Kind, n, maxGroups)
		}
		c.names = append(c.names, e.Pattern.SubexpNames())
		c.literal = append(c.literal, compileLiteral(e.Pattern.String()))
	}
	c.keys, c.keyIdx = newKeyFilter(keys, nil), index
	if len(unnamed) > 0 {
		c.unnamed = c.newKeyFilter(unnamed)
	}
	for lg, ks := range c.loggers {
		for _, k := range unnamed {
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
		c.loggers[lg] = ks
	}
	return c, nil
}

// loggerFilter returns the filter of the keys a record of logger (its
// simple class name) may hold, nil when no entry names it. Filters are
// built when first asked for: a log has a few dozen loggers, the
// catalogue names many more.
func (c *Catalogue) loggerFilter(logger []byte) *keyFilter {
	keys, ok := c.loggers[string(logger)]
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.byLogger[string(logger)]
	if f == nil {
		f = c.newKeyFilter(keys)
		c.byLogger[string(logger)] = f
	}
	return f
}

// newKeyFilter returns the filter of some of c's keys, which reports each
// by its index among all (litEnt's).
func (c *Catalogue) newKeyFilter(keys []string) *keyFilter {
	index := make([]int, len(keys))
	for i, k := range keys {
		index[i] = c.keyIdx[k]
	}
	return newKeyFilter(keys, index)
}

// prefilterKey returns the part of a literal the prefilter searches for: its
// tail from the byte least common in log messages, keeping at least
// minKey bytes. A line that contains the literal contains the key, so no
// candidate is lost, and literals that share a tail share a key.
func prefilterKey(lit string) string {
	const minKey = 16
	best, bestCost := 0, byteCost(lit[0])
	for i := 1; i <= len(lit)-minKey; i++ {
		if c := byteCost(lit[i]); c < bestCost {
			best, bestCost = i, c
		}
	}
	return lit[best:]
}

// byteCost ranks how common a byte is in Ozone log messages: lower case,
// digits and spaces are everywhere; capitals and most punctuation are not.
func byteCost(b byte) int {
	switch {
	case b >= 'A' && b <= 'Z':
		return 1
	case b == ' ' || b >= 'a' && b <= 'z':
		return 4
	case b >= '0' && b <= '9', b == '.', b == ':', b == ',', b == '-', b == '=':
		return 3
	}
	return 2
}

// Entries returns the catalogue's entries.
func (c *Catalogue) Entries() []Entry { return c.entries }

// Literals returns every prefilter literal, once each (for grep comparisons).
func (c *Catalogue) Literals() []string { return c.literals }

// Candidate reports whether a record of logger (as logged; nil when the
// layout names none) whose first line is line may produce a signal: whether
// it holds a key of an entry that may match it. Most records come from
// loggers no entry names: only the few entries that name no logger can
// match those, and their keys are quicker to look for; a named logger's
// records are looked at for its entries' keys and those.
func (c *Catalogue) Candidate(logger, line []byte) bool {
	if len(logger) == 0 {
		return c.keys.any(line)
	}
	return c.candidate(c.loggerFilter(parsers.SimpleLogger(logger)), line)
}

// candidate is Candidate once the filter of the record's logger is known
// (nil: no entry names it).
func (c *Catalogue) candidate(named *keyFilter, line []byte) bool {
	if named != nil {
		return named.any(line)
	}
	return c.unnamed != nil && c.unnamed.any(line)
}

// Filter is Candidate for one scanner: it remembers the filters of the
// loggers it was shown (a log has a few dozen), so that most records cost
// a comparison of their logger instead of a map lookup. It is the scanner's
// hot-path filter.
type Filter struct {
	c     *Catalogue
	known [64]knownLogger // by loggerSlot
}

// knownLogger is a logger a Filter was shown and the filter of its keys
// (nil when no entry names it).
type knownLogger struct {
	logger []byte
	filter *keyFilter
}

// Filter returns a Filter of c's entries.
func (c *Catalogue) Filter() *Filter { return &Filter{c: c} }

// Candidate is Catalogue.Candidate.
func (f *Filter) Candidate(logger, line []byte) bool {
	if len(logger) == 0 {
		return f.c.keys.any(line)
	}
	k := &f.known[loggerSlot(logger)]
	if !bytes.Equal(logger, k.logger) {
		k.logger = append(k.logger[:0], logger...)
		k.filter = f.c.loggerFilter(parsers.SimpleLogger(logger))
	}
	return f.c.candidate(k.filter, line)
}

// loggerSlot hashes a logger's length and last eight bytes (where loggers
// of one package differ) to a slot of Filter.known.
func loggerSlot[T string | []byte](logger T) int {
	var tail [8]byte
	copy(tail[:], logger[max(len(logger)-8, 0):])
	h := (binary.LittleEndian.Uint64(tail[:]) ^ uint64(len(logger))) * 0x9E3779B97F4A7C15
	return int(h >> 58)
}

// Match returns the signals a record produces (usually none or one).
func (c *Catalogue) Match(r *parsers.Record) []Signal { return c.AppendMatches(nil, r) }

// AppendMatches appends the signals a record produces to out: a caller
// that hands them on by value reuses one slice for every record.
func (c *Catalogue) AppendMatches(out []Signal, r *parsers.Record) []Signal {
	return c.appendMatches(out, r, c.keys)
}

// AppendMatches is Catalogue.AppendMatches for a record the filter passed:
// the keys its first line holds are looked for with the filter of its
// logger, which has fewer keys than the catalogue's and moves faster.
func (f *Filter) AppendMatches(out []Signal, r *parsers.Record) []Signal {
	keys := f.c.keys
	if r.Logger != "" {
		if k := &f.known[loggerSlot(r.Logger)]; string(k.logger) == r.Logger {
			keys = k.filter
			if keys == nil {
				keys = f.c.unnamed
			}
		}
	}
	if keys == nil { // no entry a record of this logger may match
		return out
	}
	return f.c.appendMatches(out, r, keys)
}

// appendMatches is AppendMatches with keys, a filter over the keys of
// every entry r may match.
func (c *Catalogue) appendMatches(out []Signal, r *parsers.Record, keys *keyFilter) []Signal {
	first := r.Message
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	var candBuf, litBuf [8]int // on the stack: most records name one or two entries
	cand := candBuf[:0]
	for _, li := range keys.appendKeys(litBuf[:0], first) {
		for _, ei := range c.litEnt[li] {
			cand = appendUnique(cand, ei)
		}
	}
	if len(cand) == 0 {
		return out
	}
	logger := parsers.SimpleLogger(r.Logger)
	// A signal keeps its text and fields, not the record's whole message: of
	// a record of several lines (a stack trace, the STARTUP_MSG block with
	// its classpath) they are copied out.
	text, own := first, len(first) == len(r.Message)
	for _, ei := range cand {
		e := &c.entries[ei]
		if r.Logger != "" && len(e.Loggers) > 0 && !slices.Contains(e.Loggers, logger) {
			continue
		}
		var idxBuf [2 * maxGroups]int
		idx := c.match(ei, r.Message, idxBuf[:0])
		if idx == nil {
			continue
		}
		var rest string // the groups past the first line, copied out
		text, rest = copyOut(text, own, r.Message, idx)
		own = true
		g := Groups{names: c.names[ei]} // on the stack
		for i := 0; i+1 < len(idx); i += 2 {
			switch {
			case idx[i] < 0:
			case idx[i+1] <= len(text):
				g.sub[i/2] = text[idx[i]:idx[i+1]]
			default:
				n := idx[i+1] - idx[i]
				g.sub[i/2], rest = rest[:n], rest[n:]
			}
		}
		// Built in place: a Signal of its own would escape to the heap.
		out = append(out, Signal{
			Kind: e.Kind, Time: r.Time, Host: r.Host, Component: r.Component,
			Level: r.Level, Thread: r.Thread, Origin: r.Origin, Text: text,
		})
		s := &out[len(out)-1]
		for i, name := range g.names {
			if name != "" && name[0] != '_' && g.sub[i] != "" {
				setField(s, name, g.sub[i])
			}
		}
		if e.Post != nil && !e.Post(s, g) {
			out = out[:len(out)-1]
		}
	}
	return out
}

// copyOut copies out of msg, in one allocation, the first line text
// unless it is already a copy (own) and the groups of idx that end past it,
// one after the other: a signal keeps them, not msg.
func copyOut(text string, own bool, msg string, idx []int) (string, string) {
	n := 0
	if !own {
		n = len(text)
	}
	for i := 0; i+1 < len(idx); i += 2 {
		if idx[i] >= 0 && idx[i+1] > len(text) {
			n += idx[i+1] - idx[i]
		}
	}
	if n == 0 {
		return text, ""
	}
	var b strings.Builder
	b.Grow(n)
	if !own {
		b.WriteString(text)
	}
	for i := 0; i+1 < len(idx); i += 2 {
		if idx[i] >= 0 && idx[i+1] > len(text) {
			b.WriteString(msg[idx[i]:idx[i+1]])
		}
	}
	all := b.String()
	if own {
		return text, all
	}
	return all[:len(text)], all[len(text):]
}

// match returns the submatch indexes of entry ei's pattern in msg (in buf
// when it can), nil when it does not match.
func (c *Catalogue) match(ei int, msg string, buf []int) []int {
	if m := c.literal[ei]; m != nil {
		if idx, ok := m.find(msg, buf); ok {
			return idx
		}
	}
	return c.entries[ei].Pattern.FindStringSubmatchIndex(msg)
}

// setField applies one named group. Group names:
//
//	dn        DatanodeDetails "<uuid>(<host>/<ip>)" or the ≤1.3 long form
//	dnuuid    datanode UUID      dnhost  datanode host name   dnip  its address
//	container container ID (with or without "#")
//	pipeline  "Pipeline-<uuid>", "PipelineID=<uuid>" or a bare UUID
//	pipelines a list of pipelines "[Pipeline-a, Pipeline-b]"
//	group     Raft group ID      peer    Raft peer ID    om  OM node ID
//	member    Raft member ID "<peer>@<group>" (sets Peer and Group)
//	peers     a peer list (any Ratis/OM rendering)   oldpeers  likewise
//	ratisdur  Ratis TimeDuration ("52.114s", "52s", "300ms")
//	ms, ns    durations in milliseconds / nanoseconds
//	count index term bcsid maxbcsid   integers
//	state reason version version2 apparent apparent2   strings
//	nonempty  "non-empty" or "empty"   force  "force" or ""
//
// Any other name lands in Attrs, but for names that begin with "_": the
// entry's Post alone reads those.
func setField(s *Signal, name, v string) {
	switch name {
	case "dn":
		s.Datanode = ParseDatanode(v)
	case "dnuuid":
		s.Datanode.UUID = strings.ToLower(v)
	case "dnhost":
		s.Datanode.Host = v
	case "dnip":
		s.Datanode.IP = v
	case "container":
		s.Container, _ = strconv.ParseUint(strings.TrimPrefix(v, "#"), 10, 64)
	case "pipeline":
		s.Pipeline = ParsePipelineID(v)
	case "pipelines":
		for _, p := range splitList(v) {
			if id := ParsePipelineID(p); id != "" {
				s.Pipelines = append(s.Pipelines, id)
			}
		}
	case "group":
		s.Group = v
	case "peer":
		s.Peer = v
	case "om":
		s.OMNode = v
	case "member":
		if i := strings.IndexByte(v, '@'); i >= 0 {
			s.Peer, s.Group = v[:i], v[i+1:]
		}
	case "peers":
		s.Peers = ParsePeers(v)
	case "oldpeers":
		s.OldPeers = ParsePeers(v)
	case "ratisdur":
		s.Duration = ParseRatisDuration(v)
	case "ms":
		n, _ := strconv.ParseFloat(v, 64)
		s.Duration = time.Duration(n * float64(time.Millisecond))
	case "ns":
		n, _ := strconv.ParseInt(v, 10, 64)
		s.Duration = time.Duration(n)
	case "count":
		s.Count, _ = strconv.ParseInt(v, 10, 64)
	case "index":
		s.Index, _ = strconv.ParseInt(v, 10, 64)
	case "term":
		s.Term, _ = strconv.ParseInt(v, 10, 64)
	case "bcsid":
		s.BCSID, _ = strconv.ParseInt(v, 10, 64)
	case "maxbcsid":
		s.MaxBCSID, _ = strconv.ParseInt(v, 10, 64)
	case "state":
		s.State = v
	case "reason":
		s.Reason = v
	case "version":
		s.Version = v
	case "version2":
		s.Version2 = v
	case "apparent":
		s.Apparent = v
	case "apparent2":
		s.Apparent2 = v
	case "nonempty":
		s.NonEmpty = v == "non-empty"
	case "force":
		s.Force = v == "force"
	default:
		if s.Attrs == nil {
			s.Attrs = map[string]string{}
		}
		s.Attrs[name] = v
	}
}

var uuidRe = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// ParseDatanode reads DatanodeDetails as Ozone prints it: "<uuid>(<host>/<ip>)"
// (toString since ozone-1.4.0, HDDS-7753), "<uuid>{ip: <ip>, host: <host>, ...}"
// (toString up to 1.3.0 — without "ports:" in 1.0.0 — and toDebugString
// since 1.4.0), or a bare UUID.
func ParseDatanode(v string) Datanode {
	v = strings.TrimSpace(v)
	if len(v) > 36 && isUUIDChars(v[:36]) {
		// Parsed by hand, without the allocations of a regular expression's
		// submatches: <uuid>(<host>/<ip>) and <uuid>{ip: <ip>, host: <host>, ...}.
		id, rest := strings.ToLower(v[:36]), v[36:]
		if inner, ok := strings.CutPrefix(rest, "("); ok {
			if i := strings.IndexAny(inner, "/()"); i >= 0 && inner[i] == '/' {
				host, addr := inner[:i], inner[i+1:]
				if j := strings.IndexAny(addr, "()"); j >= 0 && addr[j] == ')' {
					return Datanode{UUID: id, Host: host, IP: addr[:j]}
				}
			}
		}
		if inner, ok := strings.CutPrefix(rest, "{ip: "); ok {
			if i := strings.IndexByte(inner, ','); i >= 0 {
				if host, ok := strings.CutPrefix(inner[i:], ", host: "); ok {
					if j := strings.IndexByte(host, ','); j >= 0 {
						host = host[:j]
					}
					return Datanode{UUID: id, IP: inner[:i], Host: host}
				}
			}
		}
	}
	if u := uuidRe.FindString(v); u != "" {
		return Datanode{UUID: strings.ToLower(u)}
	}
	return Datanode{Host: v}
}

// isUUIDChars tells whether s has only hexadecimal digits and dashes.
func isUUIDChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			return false
		}
	}
	return true
}

// ParsePipelineID accepts "Pipeline-<uuid>" (2.1+), "PipelineID=<uuid>" (≤2.0),
// "Pipeline{ Id: <uuid>, ..." (2.0+), "Pipeline[ Id: <uuid>, ..." (≤1.4) or a
// bare UUID, and returns the lower-case UUID.
func ParsePipelineID(v string) string {
	if u := uuidRe.FindString(v); u != "" {
		return strings.ToLower(u)
	}
	return ""
}

// ParsePeers extracts the peer IDs of a peer list in any rendering Ozone and
// Ratis use: "peers:[a|host:port, b|host:port]|listeners:[]" (ratis 2.4+),
// "[a|rpc:host:port|admin:...|priority:1, ...]" (ratis 2.x),
// "a(host:port), b(host:port)" (Ozone), "[a:host:port, ...]" (ratis-1.0.0).
func ParsePeers(v string) []string {
	if i := strings.Index(v, "|listeners:"); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimPrefix(strings.TrimSpace(v), "peers:")
	var ids []string
	for _, p := range splitList(v) {
		end := strings.IndexAny(p, "|(")
		if end < 0 {
			end = strings.IndexByte(p, ':') // ratis-1.0.0 "id:address"
		}
		if end >= 0 {
			p = p[:end]
		}
		if p = strings.TrimSpace(p); p != "" && p != "null" {
			ids = append(ids, p)
		}
	}
	return ids
}

// splitList splits "[a, b, c]" or "a, b, c" on top-level commas.
func splitList(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "[")
	v = strings.TrimSuffix(v, "]")
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(v[start:i]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(v[start:]); rest != "" {
		parts = append(parts, rest)
	}
	return parts
}

// ParseRatisDuration reads Ratis TimeDuration.toString output such as
// "52.114s", "52s", "300ms", "10min", "1day".
func ParseRatisDuration(v string) time.Duration {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0
	}
	unit := map[string]time.Duration{
		"ns": time.Nanosecond, "μs": time.Microsecond, "us": time.Microsecond,
		"ms": time.Millisecond, "s": time.Second, "min": time.Minute,
		"h": time.Hour, "hr": time.Hour, "day": 24 * time.Hour,
	}[strings.TrimSpace(v[i:])]
	if unit == 0 {
		unit = time.Second
	}
	if d := n * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return 0
}

func appendUnique(xs []int, x int) []int {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
