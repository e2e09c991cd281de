package redact

import (
	"bufio"
	"bytes"
	"net/netip"
	"sort"
	"strings"
)

// Options says what a Redactor replaces beyond what it always does.
type Options struct {
	// Keywords are the operator's own words (a company name), replaced
	// wherever they occur, case-insensitively, even inside words.
	Keywords []string
	// KeepDomain keeps domain names: only a host's first label is replaced.
	KeepDomain bool
}

// Redactor replaces the originals of one run, line by line, through a Map.
// It is not safe for concurrent use.
type Redactor struct {
	m        *Map
	opt      Options
	kw       [][]byte // lower-cased keywords: the map's (earlier runs'), then the new ones
	kwPs     []string // their pseudonyms
	counts   map[Kind]int
	kwCounts []int
	lower    []byte // scratch for keyword search
	scratch  []byte // scratch for values
	// Stream's buffers, reused from file to file
	br      *bufio.Reader
	bw      *bufio.Writer
	lineBuf []byte
}

// New returns a Redactor that takes and gives pseudonyms through m.
func New(m *Map, opt Options) *Redactor {
	r := &Redactor{m: m, opt: opt, counts: map[Kind]int{}}
	seen := map[string]bool{}
	// the keywords of earlier runs, kept in the map, then the new ones
	words := make([]string, 0, m.Len(KindKeyword)+len(opt.Keywords))
	for w := range m.fwd[KindKeyword] {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		a, b := m.fwd[KindKeyword][words[i]], m.fwd[KindKeyword][words[j]]
		return len(a) < len(b) || len(a) == len(b) && a < b
	})
	words = append(words, opt.Keywords...)
	for _, k := range words {
		lk := strings.ToLower(strings.TrimSpace(k))
		if lk == "" || seen[lk] {
			continue
		}
		seen[lk] = true
		r.kw = append(r.kw, []byte(lk))
	}
	for _, k := range r.kw {
		r.kwPs = append(r.kwPs, m.Get(KindKeyword, string(k)))
	}
	r.kwCounts = make([]int, len(r.kw))
	return r
}

// Map returns the map the redactor uses.
func (r *Redactor) Map() *Map { return r.m }

// Counts returns how many replacements of each kind were made.
func (r *Redactor) Counts() map[Kind]int {
	out := make(map[Kind]int, len(r.counts))
	for k, n := range r.counts {
		out[k] = n
	}
	return out
}

// KeywordCounts returns how many times each keyword was replaced, without
// the words: first those of earlier runs the map holds (in the order of
// their pseudonyms' numbers), then those given (duplicates and empty words dropped).
func (r *Redactor) KeywordCounts() []int { return append([]int(nil), r.kwCounts...) }

// get returns the pseudonym of orig and counts a replacement.
func (r *Redactor) get(k Kind, orig string) string {
	r.counts[k]++
	return r.m.Get(k, orig)
}

// lowerGet is getBytes of the lower-cased original (host names).
func (r *Redactor) lowerGet(k Kind, orig []byte) string {
	if lowerLabel(orig) {
		return r.getBytes(k, orig)
	}
	return r.get(k, strings.ToLower(string(orig)))
}

// getBytes is get without a string made for an original already mapped.
func (r *Redactor) getBytes(k Kind, orig []byte) string {
	if ps, ok := r.m.fwd[k][string(orig)]; ok {
		r.counts[k]++
		return ps
	}
	return r.get(k, string(orig))
}

// Character classes.
const (
	cOther = iota
	cLabel // [A-Za-z0-9-]: '_' splits words (Java constants, metric names, pod directories ns_pod_uid)
	cDot
)

var class = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = cLabel, cLabel
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = cLabel
	}
	t['-'], t['.'] = cLabel, cDot
	return t
}()

// labelByte is class[c] == cLabel, looked up without a compare.
var labelByte = func() (t [256]bool) {
	for c := range t {
		t[c] = class[c] == cLabel
	}
	return t
}()

func isLabel(c byte) bool { return labelByte[c] }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Line appends the redaction of line (without its line ending) to dst.
func (r *Redactor) Line(dst, line []byte) []byte {
	start := len(dst)
	dst = r.line(dst, line)
	if len(r.kw) > 0 {
		dst = r.keywords(dst, start)
	}
	return dst
}

// Name redacts a file name (one path element) as a line.
func (r *Redactor) Name(name string) string {
	return string(r.Line(nil, []byte(name)))
}

// Learn takes the names in a host name a file's name or directory gives
// ("dn1.example.com", "dn1"), so that they are replaced wherever they are
// met later.
func (r *Redactor) Learn(host string) {
	if host == "" {
		return
	}
	if !strings.Contains(host, ".") {
		if hostLabelOK(host) && !keptLabel(host) && !roleLabel(host) {
			r.m.Get(KindHost, strings.ToLower(host))
		}
		return
	}
	r.line(nil, []byte(host))
}

func (r *Redactor) line(dst, line []byte) []byte {
	// line[p:i] is to be copied as it is: it is appended only before a
	// replacement, so that most of a line is copied in one go
	p, i := 0, 0
	bare := len(r.m.hosts) > 0 || len(r.m.users) > 0
	for i < len(line) {
		// skip what cannot start a word
		for i < len(line) && !isLabel(line[i]) && line[i] != ':' {
			i++
		}
		if i == len(line) {
			break
		}
		if line[i] == ':' {
			if k, ok := ipv6At(line, i); ok {
				dst = append(dst, line[p:i]...)
				dst = append(dst, r.get(KindIPv6, normIPv6(line[i:k]))...)
				i, p = k, k
				continue
			}
			i++
			continue
		}
		// a dotted run of labels
		j, dots := runEnd(line, i)
		if j < len(line) {
			try := tryNone
			switch line[j] {
			case ':':
				if k, ok := ipv6At(line, i); ok {
					dst = append(dst, line[p:i]...)
					dst = append(dst, r.get(KindIPv6, normIPv6(line[i:k]))...)
					i, p = k, k
					continue
				}
				try = tryACL
			case ' ':
				// only "name = value" (STARTUP_MSG) and "keytab /path" go on
				if j+2 < len(line) && (line[j+1] == '=' && line[j+2] == ' ' || line[j+1] == '/' && j-i == 6) {
					try = tryContext
				} else if j-i == 3 && i >= 2 && line[i-2] == ')' && string(line[i:j]) == "via" {
					try = tryVia
				}
			case '"':
				if i > 0 && line[i-1] == '"' {
					try = tryContext
				}
			case '=':
				try = tryContext
			case '/', '@':
				try = tryPrincipal
			}
			if line[j] == ':' && j+2 < len(line) && line[j+1] == '/' && line[j+2] == '/' && (string(line[i:j]) == "ofs" || string(line[i:j]) == "o3fs") {
				try = tryOzoneURL
			}
			if try != tryNone {
				dst = append(dst, line[p:i]...)
				p = i
				var k int
				var out []byte
				var ok bool
				switch try {
				case tryACL:
					if k, out, ok = r.acl(dst, line, i, j); !ok {
						k, out, ok = r.context(dst, line, i, j)
					}
				case tryContext:
					k, out, ok = r.context(dst, line, i, j)
				case tryPrincipal:
					k, out, ok = r.principal(dst, line, i, j)
				case tryOzoneURL:
					k, out, ok = r.ozoneURL(dst, line, i, j)
				case tryVia:
					k, out, ok = r.via(dst, line, i, j)
				}
				if ok {
					dst, i, p = out, k, k
					continue
				}
			}
		}
		w := line[i:j]
		if dots == 0 && (!bare || !r.m.maybeBare(w) && (w[0] != 'o' && w[0] != 'h' && w[0] != 'd' && w[0] != 's' && (w[0] < 'A' || w[0] > 'Z')) && len(r.m.users) == 0) {
			i = j // a plain word: nothing to replace
			continue
		}
		dst = append(dst, line[p:i]...)
		dst = r.run(dst, w, dots)
		i, p = j, j
	}
	return append(dst, line[p:]...)
}

// What the byte after a run asks to try.
const (
	tryNone = iota
	tryACL  // then a context
	tryContext
	tryPrincipal
	tryOzoneURL
	tryVia
)

// runEnd returns the end of the dotted run of labels starting at i: labels
// joined by single dots, ending before a dot that no label follows.
func runEnd(line []byte, i int) (end, dots int) {
	j := i
	for {
		for j < len(line) && isLabel(line[j]) {
			j++
		}
		if j+1 < len(line) && line[j] == '.' && isLabel(line[j+1]) {
			j++
			dots++
			continue
		}
		return j, dots
	}
}

// run appends the redaction of one dotted run of labels.
func (r *Redactor) run(dst, w []byte, dots int) []byte {
	if dots == 0 {
		if len(r.m.hosts) > 0 || len(r.m.users) > 0 {
			if ps, ok := r.known(w); ok {
				return append(dst, ps...)
			}
			// a file name's prefix before a known host: ozone-hadoop-om-om1
			if p := filePrefixLen(w); p > 0 {
				if ps, ok := r.known(w[p:]); ok {
					return append(append(dst, w[:p]...), ps...)
				}
			}
			if len(r.m.users) > 0 && bytes.IndexByte(w, '-') > 0 && r.m.bareLen>>(minBareUser) != 0 {
				return r.userParts(dst, w)
			}
		}
		return append(dst, w...)
	}
	if dots == 3 {
		if a, ok := ipv4(w); ok {
			if keptAddr(a) {
				return append(dst, w...)
			}
			return append(dst, r.getBytes(KindIPv4, w)...)
		}
	}
	if dots >= 3 {
		// an address inside a longer run: a file named after it
		// (ozone-hadoop-datanode-10.0.0.5.log), an address and a suffix
		if s, e, ok := innerIPv4(w); ok {
			a, _ := ipv4(w[s:e])
			dst = r.run(dst, w[:s], bytes.Count(w[:s], []byte(".")))
			if keptAddr(a) {
				dst = append(dst, w[s:e]...)
			} else {
				dst = append(dst, r.getBytes(KindIPv4, w[s:e])...)
			}
			return append(dst, w[e:]...)
		}
	}
	return r.hostRun(dst, w, true)
}

// hostRun appends the redaction of a dotted run that may be or hold a
// host name: [file prefix] host [. domain] [extensions]. learnShort also
// takes a single label that is a known host.
func (r *Redactor) hostRun(dst, w []byte, knownShort bool) []byte {
	// labels
	var lab [24][2]int
	n := 0
	s := 0
	for k := 0; k <= len(w); k++ {
		if k == len(w) || w[k] == '.' {
			if n == len(lab) {
				return append(dst, w...)
			}
			lab[n] = [2]int{s, k}
			n++
			s = k + 1
		}
	}
	if javaRoot(w[lab[0][0]:lab[0][1]]) {
		return append(dst, w...)
	}
	// strip extensions: .log .gz .1 ...
	last := n
	for last > 1 && extLabel(w[lab[last-1][0]:lab[last-1][1]]) {
		last--
	}
	// the top label, with a log4j2 date suffix cut: com-2026-08-23-1
	tld := w[lab[last-1][0]:lab[last-1][1]]
	tldEnd := lab[last-1][1]
	if d := dateSuffix(tld); d > 0 {
		tld = tld[:len(tld)-d]
		tldEnd -= d
	}
	if last >= 2 && (topLevel(tld) || upperTopLevel(tld) || r.knownFirst(w[lab[0][0]:lab[0][1]])) {
		for k := 0; k < last; k++ {
			l := w[lab[k][0]:lab[k][1]]
			if k == last-1 {
				l = tld
			}
			if !hostLabelOK(string(l)) {
				return append(dst, w...)
			}
		}
		if publicHost(w[:tldEnd]) {
			return append(dst, w...)
		}
		first := w[lab[0][0]:lab[0][1]]
		p := filePrefixLen(first)
		hostLabel := first[p:]
		dst = append(dst, first[:p]...)
		if roleLabel(string(hostLabel)) || !lowerLabel(hostLabel) && roleLabel(strings.ToLower(string(hostLabel))) {
			dst = append(dst, first[p:]...)
		} else {
			dst = append(dst, r.lowerGet(KindHost, hostLabel)...)
		}
		dst = append(dst, '.')
		domain := w[lab[1][0]:tldEnd]
		if r.opt.KeepDomain {
			dst = append(dst, domain...)
		} else {
			dst = append(dst, r.lowerGet(KindDomain, domain)...)
		}
		return append(dst, w[tldEnd:]...)
	}
	if knownShort && last == 1 && (len(r.m.hosts) > 0 || len(r.m.users) > 0) {
		first := w[lab[0][0]:lab[0][1]]
		p := filePrefixLen(first)
		if ps, ok := r.known(first[p:]); ok {
			dst = append(dst, first[:p]...)
			dst = append(dst, ps...)
			return append(dst, w[lab[0][1]:]...)
		}
		if len(r.m.users) > 0 && bytes.IndexByte(first, '-') > 0 {
			dst = r.userParts(dst, first)
			return append(dst, w[lab[0][1]:]...)
		}
	}
	return append(dst, w...)
}

// knownFirst reports a first label that is a known host's: a Kubernetes
// pod's name before its service (prod-om-0.prod-om-headless), which has
// no top-level domain.
func (r *Redactor) knownFirst(l []byte) bool {
	if len(r.m.hosts) == 0 || !r.m.maybeBare(l) || keptLabel(string(l)) {
		return false
	}
	_, ok := r.m.hosts[string(l)]
	return ok
}

// minBareUser is the shortest user name replaced as a bare word: shorter
// ones ("tom" aside) too often are words of their own.
const minBareUser = 4

// known returns the pseudonym of a bare word that is a known host's short
// name or a known user's name (learned from a context).
func (r *Redactor) known(w []byte) (string, bool) {
	if !r.m.maybeBare(w) {
		return "", false
	}
	if ps, ok := r.m.hosts[string(w)]; ok && !keptLabel(string(w)) {
		r.counts[KindHost]++
		return ps, true
	}
	if len(w) >= minBareUser {
		if ps, ok := r.m.users[string(w)]; ok {
			r.counts[KindUser]++
			return ps, true
		}
	}
	return "", false
}

// userParts replaces the known users among the hyphen-separated parts of
// a word (SecurityAuth-jsmith, ozone-jsmith-om-...).
func (r *Redactor) userParts(dst, w []byte) []byte {
	s := 0
	for k := 0; k <= len(w); k++ {
		if k < len(w) && w[k] != '-' {
			continue
		}
		part := w[s:k]
		if !r.m.maybeBare(part) || len(part) < minBareUser {
			dst = append(dst, part...)
		} else if ps, ok := r.m.users[string(part)]; ok {
			r.counts[KindUser]++
			dst = append(dst, ps...)
		} else {
			dst = append(dst, part...)
		}
		if k < len(w) {
			dst = append(dst, '-')
		}
		s = k + 1
	}
	return dst
}

// host appends the pseudonym of a host named in a context that says it is
// one (STARTUP_MSG host =, a principal's instance): a single label is
// taken as a host's short name.
func (r *Redactor) host(dst, w []byte) []byte {
	if bytes.IndexByte(w, '.') < 0 {
		if hostLabelOK(string(w)) && !keptLabel(string(w)) && !roleLabel(string(w)) && lowerLabel(w) {
			return append(dst, r.get(KindHost, strings.ToLower(string(w)))...)
		}
		return append(dst, w...)
	}
	return r.line(dst, w)
}

// lowerLabel reports a label without upper-case letters: a host's short
// name, not a thread's (EndpointStateMachineTaskThread-scm/10.0.0.5).
func lowerLabel(w []byte) bool {
	for _, c := range w {
		if 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// ipv4 parses a dotted quad of decimal numbers.
func ipv4(w []byte) (netip.Addr, bool) {
	var a [4]byte
	part, v, digits := 0, 0, 0
	for _, c := range w {
		switch {
		case c == '.':
			if digits == 0 || part == 3 {
				return netip.Addr{}, false
			}
			a[part] = byte(v)
			part, v, digits = part+1, 0, 0
		case '0' <= c && c <= '9':
			v = v*10 + int(c-'0')
			digits++
			if digits > 3 || v > 255 {
				return netip.Addr{}, false
			}
		default:
			return netip.Addr{}, false
		}
	}
	if part != 3 || digits == 0 {
		return netip.Addr{}, false
	}
	a[3] = byte(v)
	return netip.AddrFrom4(a), true
}

// keptAddr reports addresses that say nothing about a cluster: unspecified,
// loopback, broadcast.
func keptAddr(a netip.Addr) bool {
	return a.IsUnspecified() || a.IsLoopback() || a == netip.AddrFrom4([4]byte{255, 255, 255, 255})
}

// ipv6At recognises an IPv6 address starting at i: hex groups and colons,
// with "::" or eight groups, not inside a longer word.
func ipv6At(line []byte, i int) (int, bool) {
	if i > 0 && (isLabel(line[i-1]) || line[i-1] == ':' || line[i-1] == '.') {
		return 0, false
	}
	k, colons, double := i, 0, false
	for k < len(line) && (isHex(line[k]) || line[k] == ':' || line[k] == '.') {
		if line[k] == ':' {
			colons++
			if k > i && line[k-1] == ':' {
				double = true
			}
		}
		k++
	}
	// a trailing colon or dot belongs to the text ("at ::1:" is rare, "::1." not)
	for k > i && (line[k-1] == '.' || line[k-1] == ':' && !(k-2 >= i && line[k-2] == ':')) {
		if line[k-1] == ':' {
			colons--
		}
		k--
	}
	if colons < 2 || !double && colons != 7 {
		return 0, false
	}
	if k < len(line) && (isLabel(line[k]) || line[k] == '%') {
		return 0, false
	}
	a, err := netip.ParseAddr(string(line[i:k]))
	if err != nil || !a.Is6() || a.Is4In6() {
		return 0, false
	}
	if a.IsUnspecified() || a.IsLoopback() {
		return 0, false
	}
	return k, true
}

func normIPv6(b []byte) string {
	a, err := netip.ParseAddr(string(b))
	if err != nil {
		return string(b)
	}
	return a.String()
}

// context handles name=value, name = value and "name":"value" where name
// says what the value is. j is the end of the name starting at i.
func (r *Redactor) context(dst, line []byte, i, j int) (int, []byte, bool) {
	name := line[i:j]
	quoted := false
	v := j // start of the value
	switch {
	case i > 0 && line[i-1] == '"' && line[j] == '"':
		// "name":"value" or "name": "value"
		if v+1 < len(line) && line[v+1] == ':' {
			v += 2
			for v < len(line) && line[v] == ' ' {
				v++
			}
			if v >= len(line) || line[v] != '"' {
				return 0, nil, false
			}
			v++
			quoted = true
		} else {
			return 0, nil, false
		}
	case line[j] == ':':
		// protobuf text: name: "value"; Hadoop's "... for user: <u>"
		switch {
		case j+2 < len(line) && line[j+1] == ' ' && line[j+2] == '"':
			v, quoted = j+3, true
		case j+2 < len(line) && line[j+1] == ' ' && (string(name) == "user" || string(name) == "host") && isLabel(line[j+2]):
			v = j + 2 // also DatanodeDetails.toDebugString's "host: <host>"
		default:
			return 0, nil, false
		}
	case line[j] == '=':
		v++
		if v < len(line) && line[v] == '"' {
			v++
			quoted = true // label="value"
		}
	case line[j] == ' ':
		// name = value (STARTUP_MSG)
		k := j
		for k < len(line) && line[k] == ' ' {
			k++
		}
		switch {
		case k+1 < len(line) && line[k] == '=' && line[k+1] == ' ':
			v = k + 2
		case k == j+1 && k < len(line) && line[k] == '/' && string(name) == "keytab":
			// "... from keytab /etc/security/keytabs/om.keytab" (UGI login failures)
			e := k
			for e < len(line) && !valueEnd(line[e]) {
				e++
			}
			dst = append(dst, line[i:k]...)
			dst = append(dst, r.get(KindPath, string(line[k:e]))...)
			return e, dst, true
		default:
			return 0, nil, false
		}
	default:
		return 0, nil, false
	}
	kind, ok := contextKind(name)
	setting := false
	if !ok {
		if bytes.IndexByte(name, '.') < 0 || !sensitiveSetting(string(name)) {
			return 0, nil, false
		}
		setting = true
	}
	// value end
	e := v
	if quoted {
		for e < len(line) && line[e] != '"' {
			if line[e] == '\\' {
				e++
			}
			e++
		}
		if e > len(line) {
			e = len(line)
		}
	} else {
		for e < len(line) && !valueEnd(line[e]) {
			e++
		}
	}
	val := line[v:e]
	dst = append(dst, line[i:v]...)
	switch {
	case len(val) == 0:
	case setting:
		dst = r.secret(dst, string(name), val)
	default:
		dst = r.value(dst, kind, val)
	}
	return e, dst, true
}

// valueEnd reports the bytes that end an unquoted value.
func valueEnd(c byte) bool {
	switch c {
	case ' ', '\t', ',', '}', ']', ')', '|', ';', '&', '"', '\'', '\r', '\n':
		return true
	}
	return false
}

// value appends the pseudonym of a value whose kind its name told.
func (r *Redactor) value(dst []byte, k Kind, val []byte) []byte {
	switch string(val) {
	case "null", "NULL", "*", "-", "true", "false", "{}", "[]":
		return append(dst, val...)
	}
	if ozoneID(val) {
		return append(dst, val...) // "group": "group-03CA9397D54B" is a Raft group, not a user group
	}
	switch k {
	case KindHost:
		if i := bytes.IndexByte(val, '/'); i > 0 { // name/ip
			dst = r.host(dst, val[:i])
			return r.line(dst, val[i:])
		}
		return r.host(dst, val)
	case KindUser:
		if bytes.ContainsAny(val, "/@") {
			return r.line(dst, val) // a principal
		}
		if keptUser(string(val)) {
			return append(dst, val...)
		}
	case KindVolume, KindBucket, KindKey:
		if val[0] == '/' && k != KindKey {
			return append(append(dst, '/'), r.get(k, string(val[1:]))...)
		}
	}
	return append(dst, r.get(k, string(val))...)
}

// secret appends the pseudonym of the value of a sensitive setting.
func (r *Redactor) secret(dst []byte, name string, val []byte) []byte {
	switch string(val) {
	case "true", "false", "null", "":
		return append(dst, val...)
	}
	if pathSetting(name) && (val[0] == '/' || bytes.HasPrefix(val, []byte("file:")) || bytes.HasPrefix(val, []byte("jceks:"))) {
		return append(dst, r.get(KindPath, string(val))...)
	}
	return append(dst, r.get(KindSecret, string(val))...)
}

// acl handles USER:name: and GROUP:name: of Ozone ACLs.
func (r *Redactor) acl(dst, line []byte, i, j int) (int, []byte, bool) {
	var k Kind
	switch string(line[i:j]) {
	case "USER", "user":
		k = KindUser
	case "GROUP", "group":
		k = KindGroup
	default:
		return 0, nil, false
	}
	if i > 0 && line[i-1] != '[' && line[i-1] != ' ' && line[i-1] != ',' && line[i-1] != '"' {
		return 0, nil, false
	}
	e := j + 1
	for e < len(line) && line[e] != ':' && !valueEnd(line[e]) {
		e++
	}
	if e >= len(line) || line[e] != ':' || e == j+1 {
		return 0, nil, false
	}
	dst = append(dst, line[i:j+1]...)
	name := line[j+1 : e]
	if k == KindUser && keptUser(string(name)) || k == KindGroup && keptGroup(string(name)) {
		dst = append(dst, name...)
	} else {
		dst = append(dst, r.get(k, string(name))...)
	}
	return e, dst, true
}

// principal handles Kerberos principals, primary[/instance]@REALM, and
// e-mail-like user@host. j ends the run starting at i, before '/' or '@'.
func (r *Redactor) principal(dst, line []byte, i, j int) (int, []byte, bool) {
	if i > 0 && (line[i-1] == '/' || line[i-1] == '.' || line[i-1] == ':') {
		return 0, nil, false // part of a path or a URL
	}
	primary := line[i:j]
	var inst []byte
	at := j
	if line[j] == '/' && bytes.HasPrefix(line[j+1:], []byte("_HOST@")) {
		inst, at = line[j+1:j+6], j+6 // service/_HOST@REALM, Hadoop's placeholder
	} else if line[j] == '/' {
		if j+1 >= len(line) || !isLabel(line[j+1]) {
			return 0, nil, false
		}
		e, dots := runEnd(line, j+1)
		if e >= len(line) || line[e] != '@' {
			if dots == 3 && (e == len(line) || !isLabel(line[e])) {
				if _, ok := ipv4(line[j+1 : e]); ok && dots == 3 {
					// host/ip (uuid(host/ip), STARTUP_MSG host = name/ip): a short name is a host
					dst = r.host(dst, primary)
					return j, dst, true
				}
			}
			return 0, nil, false
		}
		inst, at = line[j+1:e], e
	}
	if at+1 >= len(line) || !isLabel(line[at+1]) {
		return 0, nil, false
	}
	re, dots := runEnd(line, at+1)
	realm := line[at+1 : re]
	switch {
	case realmLike(realm):
	case inst == nil && dots > 0 && !realmLike(realm):
		// user@host.domain: an e-mail address or a user at a host
		if keptUser(string(primary)) {
			dst = append(dst, primary...)
		} else {
			dst = append(dst, r.get(KindUser, string(primary))...)
		}
		dst = append(dst, '@')
		dst = r.hostRun(dst, realm, false)
		return re, dst, true
	default:
		return 0, nil, false
	}
	if inst != nil && keptService(string(primary)) || inst == nil && keptUser(string(primary)) {
		dst = append(dst, primary...)
	} else {
		dst = append(dst, r.get(KindUser, string(primary))...)
	}
	if inst != nil {
		dst = append(dst, '/')
		if bytes.Equal(inst, []byte("_HOST")) {
			dst = append(dst, inst...)
		} else {
			dst = r.host(dst, inst)
		}
	}
	dst = append(dst, '@')
	dst = append(dst, r.get(KindRealm, string(realm))...)
	return re, dst, true
}

// realmLike reports an upper-case realm: EXAMPLE.COM, CORP.EXAMPLE, EXAMPLE.
func realmLike(w []byte) bool {
	letters, dot := 0, false
	for _, c := range w {
		switch {
		case 'A' <= c && c <= 'Z':
			letters++
		case c == '.':
			dot = true
		case '0' <= c && c <= '9' || c == '-':
		default:
			return false
		}
	}
	if letters < 2 {
		return false
	}
	if dot {
		return true
	}
	// a single label: letters only (not a hash code like ABCD1234)
	return letters == len(w)
}

// keywords replaces the keywords in dst[start:], case-insensitively.
func (r *Redactor) keywords(dst []byte, start int) []byte {
	r.lower = append(r.lower[:0], dst[start:]...)
	for i, c := range r.lower {
		if 'A' <= c && c <= 'Z' {
			r.lower[i] = c + 'a' - 'A'
		}
	}
	found := false
	for _, k := range r.kw {
		if bytes.Contains(r.lower, k) {
			found = true
			break
		}
	}
	if !found {
		return dst
	}
	r.scratch = append(r.scratch[:0], dst[start:]...)
	src, low := r.scratch, r.lower
	// pseudonyms already written are not cut by a keyword (domain-1.example)
	spans := pseudonymRe.FindAllIndex(src, -1)
	dst = dst[:start]
	for p := 0; p < len(src); {
		if len(spans) > 0 && p >= spans[0][0] {
			if p < spans[0][1] {
				dst = append(dst, src[p:spans[0][1]]...)
				p = spans[0][1]
			}
			spans = spans[1:]
			continue
		}
		hit := -1 // the longest keyword here, so that one inside another does not cut it
		for n, k := range r.kw {
			if (hit < 0 || len(k) > len(r.kw[hit])) && bytes.HasPrefix(low[p:], k) {
				hit = n
			}
		}
		if hit < 0 {
			dst = append(dst, src[p])
			p++
			continue
		}
		dst = append(dst, r.kwPs[hit]...)
		r.kwCounts[hit]++
		r.counts[KindKeyword]++
		p += len(r.kw[hit])
	}
	return dst
}

// ozoneURL handles Ozone's file system URLs: ofs://<om>/<volume>/<bucket>/<key>
// and o3fs://<bucket>.<volume>[.<om>][:port]/<key>. j ends the scheme at i.
func (r *Redactor) ozoneURL(dst, line []byte, i, j int) (int, []byte, bool) {
	a := j + 3 // the authority
	e := a
	for e < len(line) && !valueEnd(line[e]) {
		e++
	}
	url := line[a:e]
	auth, path := url, []byte(nil)
	if k := bytes.IndexByte(url, '/'); k >= 0 {
		auth, path = url[:k], url[k+1:]
	}
	dst = append(dst, line[i:a]...)
	if string(line[i:j]) == "o3fs" {
		parts := bytes.SplitN(auth, []byte("."), 3)
		if len(parts) >= 2 {
			dst = append(dst, r.getBytes(KindBucket, parts[0])...)
			dst = append(dst, '.')
			dst = append(dst, r.getBytes(KindVolume, parts[1])...)
			if len(parts) == 3 {
				dst = append(dst, '.')
				dst = r.host(dst, parts[2])
			}
		} else {
			dst = r.line(dst, auth)
		}
		if path != nil {
			dst = append(dst, '/')
			if len(path) > 0 {
				dst = append(dst, r.getBytes(KindKey, path)...)
			}
		}
		return e, dst, true
	}
	// ofs: the authority is an OM service id (kept) or a host
	dst = r.line(dst, auth)
	if path == nil {
		return e, dst, true
	}
	segs := bytes.SplitN(path, []byte("/"), 3)
	for n, sg := range segs {
		dst = append(dst, '/')
		if len(sg) == 0 {
			continue
		}
		switch n {
		case 0:
			dst = append(dst, r.getBytes(KindVolume, sg)...)
		case 1:
			dst = append(dst, r.getBytes(KindBucket, sg)...)
		default:
			dst = append(dst, r.getBytes(KindKey, sg)...)
		}
	}
	return e, dst, true
}

// via handles the real user of a Hadoop proxy UGI: "tom (auth:PROXY) via
// oozie (auth:KERBEROS)". j ends "via" at i.
func (r *Redactor) via(dst, line []byte, i, j int) (int, []byte, bool) {
	v := j + 1
	e := v
	for e < len(line) && !valueEnd(line[e]) {
		e++
	}
	if e == v {
		return 0, nil, false
	}
	dst = append(dst, line[i:v]...)
	return e, r.value(dst, KindUser, line[v:e]), true
}

// innerIPv4 finds a dotted quad inside a dotted run: four labels of one to
// three digits, the first possibly after a hyphen ("datanode-10.0.0.5").
func innerIPv4(w []byte) (start, end int, ok bool) {
	var lab [24][2]int
	n, s := 0, 0
	for k := 0; k <= len(w); k++ {
		if k == len(w) || w[k] == '.' {
			if n == len(lab) {
				return 0, 0, false
			}
			lab[n] = [2]int{s, k}
			n++
			s = k + 1
		}
	}
	for k := 0; k+3 < n; k++ {
		first := w[lab[k][0]:lab[k][1]]
		off := 0
		if h := bytes.LastIndexByte(first, '-'); h >= 0 {
			off = h + 1
		}
		st := lab[k][0] + off
		if _, ok := ipv4(w[st:lab[k+3][1]]); ok {
			return st, lab[k+3][1], true
		}
	}
	return 0, 0, false
}
