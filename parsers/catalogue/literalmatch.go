package catalogue

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// literalMatcher runs the patterns most entries have, literal text and runs
// of a character class between them (`Datanode (?P<dn>.+?) has software
// version (?P<version>.+?) which is older than …`), by finding the literals
// with strings.Index and trying a run's possible ends in the order the
// regular expression's backtracker tries them: the same match without its
// per-call visited set, several times faster on the messages a sick
// cluster repeats on every heartbeat. compileLiteral returns nil for any
// other pattern, and find reports when a message needs the regular
// expression (too many steps, or a run's end that could split a
// character); FuzzLiteralMatcher holds the two to the same results.
type literalMatcher struct {
	anchored bool // the pattern starts with ^
	items    []matchItem
	groups   int // capture groups, the whole match included
}

// matchItem is a literal or a run of a class (captured when group > 0),
// optionally ended by one character of the class tail.
type matchItem struct {
	lit    string
	run    *byteClass
	group  int
	min    int // 0 for *, 1 for +
	greedy bool
	tail   *byteClass
}

// byteClass says which bytes a class matches; a class compiles only when
// it matches every non-ASCII character or none, so that one byte tells.
type byteClass [256]bool

// compileLiteral returns the matcher of expr, or nil when expr has another
// shape.
func compileLiteral(expr string) *literalMatcher {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	m := &literalMatcher{groups: re.MaxCap() + 1}
	nodes := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		nodes = re.Sub
	}
	if len(nodes) > 0 && nodes[0].Op == syntax.OpBeginText {
		m.anchored, nodes = true, nodes[1:]
	}
	for _, n := range nodes {
		if !m.add(n) {
			return nil
		}
	}
	// A run must be followed by a literal or end the pattern, and an
	// unanchored pattern must start with a literal (where Index looks).
	for i, it := range m.items {
		if it.run != nil && i+1 < len(m.items) && m.items[i+1].run != nil {
			return nil
		}
	}
	if len(m.items) == 0 || !m.anchored && m.items[0].run != nil {
		return nil
	}
	return m
}

// add appends the item of one node of the pattern's top concatenation.
func (m *literalMatcher) add(n *syntax.Regexp) bool {
	switch n.Op {
	case syntax.OpLiteral:
		if n.Flags&syntax.FoldCase != 0 {
			return false
		}
		for _, r := range n.Rune {
			if r >= utf8.RuneSelf {
				return false
			}
		}
		if k := len(m.items) - 1; k >= 0 && m.items[k].run == nil {
			m.items[k].lit += string(n.Rune)
		} else {
			m.items = append(m.items, matchItem{lit: string(n.Rune)})
		}
		return true
	case syntax.OpCapture:
		sub := n.Sub[0]
		var tail *byteClass
		if sub.Op == syntax.OpConcat && len(sub.Sub) == 2 {
			if tail = classOf(sub.Sub[1]); tail == nil {
				return false
			}
			sub = sub.Sub[0]
		}
		it, ok := runOf(sub)
		it.group, it.tail = n.Cap, tail
		m.items = append(m.items, it)
		return ok
	default:
		it, ok := runOf(n)
		m.items = append(m.items, it)
		return ok
	}
}

// runOf returns the item of x* or x+ with x a class.
func runOf(n *syntax.Regexp) (matchItem, bool) {
	it := matchItem{greedy: n.Flags&syntax.NonGreedy == 0}
	switch n.Op {
	case syntax.OpStar:
	case syntax.OpPlus:
		it.min = 1
	default:
		return it, false
	}
	it.run = classOf(n.Sub[0])
	return it, it.run != nil
}

// classOf returns the bytes of a one-character node, or nil.
func classOf(n *syntax.Regexp) *byteClass {
	var c byteClass
	switch n.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for b := range c {
			c[b] = true
		}
		c['\n'] = n.Op == syntax.OpAnyChar
	case syntax.OpCharClass:
		nonASCII := 0 // how much of U+0080..U+10FFFF the ranges cover
		for i := 0; i+1 < len(n.Rune); i += 2 {
			lo, hi := n.Rune[i], n.Rune[i+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				c[r] = true
			}
			if hi >= utf8.RuneSelf {
				nonASCII += int(hi - max(lo, utf8.RuneSelf) + 1)
			}
		}
		switch nonASCII {
		case 0:
		case utf8.MaxRune - utf8.RuneSelf + 1:
			for b := utf8.RuneSelf; b < len(c); b++ {
				c[b] = true
			}
		default:
			return nil
		}
	default:
		return nil
	}
	return &c
}

// matchState is one find: its submatch indexes and its budget of steps.
type matchState struct {
	m     *literalMatcher
	s     string
	idx   []int
	steps int
	bail  bool // the regular expression must answer
}

// find appends the submatch indexes of the leftmost match of s to dst and
// returns them as regexp's FindStringSubmatchIndex does (nil: no match); ok
// is false when the regular expression must answer instead.
func (m *literalMatcher) find(s string, dst []int) (idx []int, ok bool) {
	st := matchState{m: m, s: s, steps: 64*len(s) + 1024}
	for range 2 * m.groups {
		dst = append(dst, -1)
	}
	st.idx = dst[len(dst)-2*m.groups:]
	for from := 0; from <= len(s); {
		start := from
		if !m.anchored {
			i := strings.Index(s[from:], m.items[0].lit)
			if i < 0 {
				break
			}
			start += i
		}
		if st.at(start, 0) {
			st.idx[0] = start
			return dst, true
		}
		if st.bail {
			return nil, false
		}
		if m.anchored {
			break
		}
		from = start + 1
	}
	return nil, true
}

// at matches the items from k on at s[pos:].
func (st *matchState) at(pos, k int) bool {
	if st.steps--; st.steps < 0 {
		st.bail = true
	}
	if st.bail {
		return false
	}
	if k == len(st.m.items) {
		st.idx[1] = pos
		return true
	}
	it := &st.m.items[k]
	if it.run == nil {
		return strings.HasPrefix(st.s[pos:], it.lit) && st.at(pos+len(it.lit), k+1)
	}
	s := st.s
	n, wide := pos, false
	for n < len(s) && it.run[s[n]] {
		wide = wide || s[n] >= utf8.RuneSelf
		n++
	}
	st.steps -= n - pos
	// A run's end is at an ASCII byte when a literal follows; otherwise it
	// could fall inside a character, which the expression never splits.
	if (it.tail != nil || k+1 == len(st.m.items) && !it.greedy) && (wide || n < len(s) && s[n] >= utf8.RuneSelf) {
		st.bail = true
		return false
	}
	try := func(r int) bool {
		e := r
		if it.tail != nil {
			if r >= len(s) || !it.tail[s[r]] {
				return false
			}
			e = r + 1
		}
		if !st.at(e, k+1) {
			return false
		}
		if it.group > 0 {
			st.idx[2*it.group], st.idx[2*it.group+1] = pos, e
		}
		return true
	}
	if k+1 < len(st.m.items) && it.tail == nil {
		// A literal follows: only the ends where it starts can match, and
		// strings.Index finds them faster than a try at every byte.
		lit := st.m.items[k+1].lit
		lo, hi := pos+it.min, min(len(s), n+len(lit))
		for lo <= hi {
			var r int
			if it.greedy {
				r = strings.LastIndex(s[lo:hi], lit)
			} else {
				r = strings.Index(s[lo:hi], lit)
			}
			if r < 0 {
				return false
			}
			r += lo
			if try(r) {
				return true
			}
			if it.greedy {
				hi = r + len(lit) - 1
			} else {
				lo = r + 1
			}
		}
		return false
	}
	if it.greedy {
		for r := n; r >= pos+it.min; r-- {
			if try(r) {
				return true
			}
		}
		return false
	}
	for r := pos + it.min; r <= n; r++ {
		if try(r) {
			return true
		}
	}
	return false
}
