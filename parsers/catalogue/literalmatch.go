package catalogue

import (
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// literalMatcher runs a catalogue pattern without the regular expression:
// a backtracker over its literals, runs of a character class, groups,
// alternations, optional parts and loops that tries the paths in the
// order the expression's own backtracker does, so that it gives the same
// leftmost-first submatches. Literals are found with strings.Index, and a
// run followed by a literal ends only where that literal starts (Index or
// LastIndex again), not at every byte in turn; there is no per-call visited
// set. That makes it several times faster on the messages a sick cluster
// repeats on every heartbeat. compileLiteral returns nil for the shapes it
// does not take (case folding, loops that may match nothing or capture), and find reports when a message needs the
// expression: too many steps, or a run that reaches a character beyond
// ASCII. FuzzLiteralMatcher holds the two to the same
// results.
type literalMatcher struct {
	anchored bool     // the pattern starts with ^ or \A
	first    []string // one of these starts every match (unanchored patterns)
	start    *byteSet // what may start a match (anchored patterns)
	prog     []node
	groups   int       // capture groups, the whole match included
	frames   sync.Pool // of *[]frame: each find's continuations, reused
}

// node is one element of a sequence of the pattern.
type node struct {
	kind   nodeKind
	lit    string     // litNode
	class  *byteClass // runNode
	min    int        // runNode, loopNode
	max    int        // runNode: -1 for no bound
	greedy bool       // runNode, loopNode
	sub    [][]node   // altNode: the alternatives; groupNode, loopNode: sub[0] the body
	group  int        // groupNode
	again  []node     // loopNode: itself with min 0, what follows one turn
	follow []string   // runNode: one of these starts right after the run (nil: unknown)
	next   *byteSet   // runNode: what may come right after the run (nil: anything)
}

// byteSet is what may come at a point of a match: one of its bytes, or
// the end of the text.
type byteSet struct {
	bytes byteClass
	end   bool
}

// admits reports whether what is at s[r:] may come where set is.
func (set *byteSet) admits(s string, r int) bool {
	return set == nil || r < len(s) && set.bytes[s[r]] || r == len(s) && set.end
}

// union returns what a or b admits (nil: anything).
func union(a, b *byteSet) *byteSet {
	if a == nil || b == nil {
		return nil
	}
	u := *a
	for i, in := range b.bytes {
		u.bytes[i] = u.bytes[i] || in
	}
	u.end = u.end || b.end
	return &u
}

type nodeKind uint8

const (
	litNode      nodeKind = iota
	runNode               // a class, min to max times
	altNode               // the first alternative that lets the rest match
	groupNode             // a capture group
	loopNode              // the body, min (0 or 1) or more times
	endNode               // \z, or $ without (?m)
	boundaryNode          // \b
)

// byteClass says which bytes a class matches. Its bytes beyond ASCII are
// set when it matches any character beyond ASCII: a run that reaches one
// leaves the message to the expression.
type byteClass [256]bool

// compileLiteral returns the matcher of expr, or nil when expr has a shape
// it does not take.
func compileLiteral(expr string) *literalMatcher {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	m := &literalMatcher{groups: re.MaxCap() + 1}
	top := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		top = re.Sub
	}
	if len(top) > 0 && top[0].Op == syntax.OpBeginText {
		m.anchored, top = true, top[1:]
	}
	for _, n := range top {
		var ok bool
		if m.prog, ok = compileNode(m.prog, n, false); !ok {
			return nil
		}
	}
	setFollow(m.prog, nil, nil)
	m.start = nextOf(m.prog, nil)
	if !m.anchored {
		// The expression tries every start; Index finds the starts where a
		// match can begin.
		if m.first = firstOf(m.prog, nil); len(m.first) == 0 || slices.Contains(m.first, "") {
			return nil
		}
	}
	return m
}

// compileNode appends the nodes of n to seq.
func compileNode(seq []node, n *syntax.Regexp, inLoop bool) ([]node, bool) {
	switch n.Op {
	case syntax.OpEmptyMatch:
		return seq, true
	case syntax.OpLiteral:
		if n.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		// A literal beyond ASCII matches as its UTF-8 bytes: its first byte
		// never continues another character.
		if k := len(seq) - 1; k >= 0 && seq[k].kind == litNode {
			seq[k].lit += string(n.Rune)
		} else {
			seq = append(seq, node{kind: litNode, lit: string(n.Rune)})
		}
		return seq, true
	case syntax.OpConcat:
		for _, p := range n.Sub {
			var ok bool
			if seq, ok = compileNode(seq, p, inLoop); !ok {
				return nil, false
			}
		}
		return seq, true
	case syntax.OpEndText:
		return append(seq, node{kind: endNode}), true
	case syntax.OpWordBoundary:
		return append(seq, node{kind: boundaryNode}), true
	case syntax.OpCapture:
		if inLoop {
			return nil, false // a loop's groups keep their last turn: not taken
		}
		body, ok := compileNode(nil, n.Sub[0], false)
		return append(seq, node{kind: groupNode, group: n.Cap, sub: [][]node{body}}), ok
	case syntax.OpAlternate:
		alt := node{kind: altNode}
		for _, p := range n.Sub {
			body, ok := compileNode(nil, p, inLoop)
			if !ok {
				return nil, false
			}
			alt.sub = append(alt.sub, body)
		}
		return append(seq, alt), true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		c := classOf(n)
		return append(seq, node{kind: runNode, class: c, min: 1, max: 1, greedy: true}), c != nil
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, -1
		switch n.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = n.Min, n.Max
		}
		greedy := n.Flags&syntax.NonGreedy == 0
		if c := classOf(n.Sub[0]); c != nil {
			return append(seq, node{kind: runNode, class: c, min: lo, max: hi, greedy: greedy}), true
		}
		optional := lo == 0 && hi == 1
		body, ok := compileNode(nil, n.Sub[0], inLoop || !optional)
		switch {
		case !ok:
			return nil, false
		case optional: // x? is x or nothing, in the order greed says
			alts := [][]node{body, nil}
			if !greedy {
				alts[0], alts[1] = alts[1], alts[0]
			}
			return append(seq, node{kind: altNode, sub: alts}), true
		case hi == -1 && lo <= 1 && minLen(body) > 0:
			l := node{kind: loopNode, min: lo, greedy: greedy, sub: [][]node{body}}
			l.again = []node{l}
			l.again[0].min, l.again[0].again = 0, l.again
			return append(seq, l), true
		}
	}
	return nil, false
}

// minLen returns the fewest bytes seq matches.
func minLen(seq []node) int {
	n := 0
	for i := range seq {
		switch x := &seq[i]; x.kind {
		case litNode:
			n += len(x.lit)
		case runNode:
			n += x.min
		case groupNode:
			n += minLen(x.sub[0])
		case loopNode:
			n += x.min * minLen(x.sub[0])
		case altNode:
			least := -1
			for _, a := range x.sub {
				if l := minLen(a); least < 0 || l < least {
					least = l
				}
			}
			n += least
		}
	}
	return n
}

// firstOf returns the literals one of which starts every match of seq
// followed by what matches after (after: the same of what follows; nil:
// not known). A literal "" tells that seq may match nothing at the end.
func firstOf(seq []node, after []string) []string {
	for i := range seq {
		switch x := &seq[i]; x.kind {
		case litNode:
			return []string{x.lit}
		case boundaryNode:
			continue
		case groupNode:
			return firstOf(x.sub[0], firstOf(seq[i+1:], after))
		case altNode:
			rest := firstOf(seq[i+1:], after)
			var lits []string
			for _, a := range x.sub {
				f := firstOf(a, rest)
				if f == nil {
					return nil
				}
				lits = append(lits, f...)
			}
			return lits
		case endNode:
			if i+1 == len(seq) && after == nil {
				return []string{""}
			}
			return nil
		default:
			return nil
		}
	}
	return after
}

// nextOf returns what may come first in a match of seq followed by what
// matches after (after: the same of what follows; nil: anything).
func nextOf(seq []node, after *byteSet) *byteSet {
	for i := range seq {
		switch x := &seq[i]; x.kind {
		case litNode:
			set := &byteSet{}
			set.bytes[x.lit[0]] = true
			return set
		case boundaryNode:
			continue
		case endNode:
			return &byteSet{end: true}
		case runNode:
			set := &byteSet{bytes: *x.class}
			if x.min == 0 {
				return union(set, nextOf(seq[i+1:], after))
			}
			return set
		case groupNode:
			return nextOf(x.sub[0], nextOf(seq[i+1:], after))
		case altNode:
			rest := nextOf(seq[i+1:], after)
			set := &byteSet{}
			for _, a := range x.sub {
				set = union(set, nextOf(a, rest))
			}
			return set
		case loopNode:
			rest := nextOf(seq[i+1:], after)
			set := nextOf(x.sub[0], rest)
			if x.min == 0 {
				set = union(set, rest)
			}
			return set
		}
	}
	return after
}

// setFollow gives each run of seq the literals that start right after it
// and what may come there; after and afterLits are what follows seq.
func setFollow(seq []node, afterLits []string, after *byteSet) {
	for i := range seq {
		x := &seq[i]
		lits, next := firstOf(seq[i+1:], afterLits), nextOf(seq[i+1:], after)
		switch x.kind {
		case runNode:
			if !slices.Contains(lits, "") {
				x.follow = lits
			}
			x.next = next
		case groupNode, altNode:
			for _, a := range x.sub {
				setFollow(a, lits, next)
			}
		case loopNode:
			// The body again, or what follows.
			setFollow(x.sub[0], nil, union(nextOf(x.sub[0], nil), next))
		}
	}
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
		for i := 0; i+1 < len(n.Rune); i += 2 {
			lo, hi := n.Rune[i], n.Rune[i+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				c[r] = true
			}
			if hi >= utf8.RuneSelf { // which ones, a byte cannot tell
				for b := utf8.RuneSelf; b < len(c); b++ {
					c[b] = true
				}
			}
		}
	case syntax.OpLiteral:
		if len(n.Rune) != 1 || n.Rune[0] >= utf8.RuneSelf || n.Flags&syntax.FoldCase != 0 {
			return nil
		}
		c[n.Rune[0]] = true
	default:
		return nil
	}
	return &c
}

// matchState is one find: the continuations of the path being tried and
// its budget of steps. The submatch indexes go along as a parameter, which
// keeps the caller's buffer on its stack.
type matchState struct {
	s      string
	end    int // where the match found ends
	frames []frame
	steps  int
	bail   bool // the regular expression must answer
}

// frame is what to match once a group, alternative or loop turn ends: the
// rest of seq from i, then frame next (-1: the match ends); group > 0
// closes that group, begun at start, first.
type frame struct {
	seq   []node
	i     int
	next  int
	group int
	start int
}

// find appends the submatch indexes of the leftmost match of s to dst and
// returns them as regexp's FindStringSubmatchIndex does (nil: no match); ok
// is false when the regular expression must answer instead.
func (m *literalMatcher) find(s string, dst []int) (idx []int, ok bool) {
	st := matchState{s: s, steps: 64*len(s) + 1024}
	// start returns where the next match may begin, from on (-1: none).
	start := func(from int) int {
		if m.anchored {
			if from > 0 || !m.start.admits(s, 0) {
				return -1
			}
			return 0
		}
		if i := st.firstIndex(s[from:], m.first, len(s)-from+1); i >= 0 {
			return from + i
		}
		return -1
	}
	at := start(0)
	if at < 0 {
		return nil, true
	}
	frames, _ := m.frames.Get().(*[]frame)
	if frames == nil {
		frames = new([]frame)
	}
	st.frames = (*frames)[:0]
	defer func() {
		*frames = st.frames[:0]
		m.frames.Put(frames)
	}()
	for range 2 * m.groups {
		dst = append(dst, -1)
	}
	idx = dst[len(dst)-2*m.groups:]
	for ; at >= 0; at = start(at + 1) {
		if st.at(idx, at, m.prog, 0, -1) {
			idx[0], idx[1] = at, st.end
			return dst, true
		}
		if st.spent() {
			return nil, false
		}
	}
	return nil, true
}

// firstIndex returns the least index in s, below limit, where one of lits
// starts, and -1 when there is none. The bytes it looks at count as steps:
// a literal that never comes would otherwise be looked for to the end of
// the message at every try.
func (st *matchState) firstIndex(s string, lits []string, limit int) int {
	best := -1
	for _, l := range lits {
		region := s[:min(len(s), limit-1+len(l))]
		i := strings.Index(region, l)
		if i >= 0 {
			best, limit = i, i
			region = region[:i+len(l)]
		}
		st.steps -= len(region)
	}
	return best
}

// lastIndex returns the greatest index in s, below limit, where one of
// lits starts, and -1 when there is none, counting as firstIndex does.
func (st *matchState) lastIndex(s string, lits []string, limit int) int {
	best := -1
	for _, l := range lits {
		region := s[:min(len(s), limit-1+len(l))]
		i := strings.LastIndex(region, l)
		st.steps -= len(region) - max(i, 0)
		best = max(best, i)
	}
	return best
}

// spent reports whether the find must stop: its steps are spent, or the
// regular expression must answer for another reason.
func (st *matchState) spent() bool {
	st.bail = st.bail || st.steps < 0
	return st.bail
}

// at matches seq from i, then the frames from next, at s[pos:].
func (st *matchState) at(idx []int, pos int, seq []node, i, next int) bool {
	if st.steps--; st.spent() {
		return false
	}
	for i < len(seq) && seq[i].kind == litNode {
		if !strings.HasPrefix(st.s[pos:], seq[i].lit) {
			return false
		}
		pos += len(seq[i].lit)
		i++
	}
	if i == len(seq) {
		if next < 0 {
			st.end = pos
			return true
		}
		f := st.frames[next]
		if f.group == 0 {
			return st.at(idx, pos, f.seq, f.i, f.next)
		}
		g := 2 * f.group
		was0, was1 := idx[g], idx[g+1]
		idx[g], idx[g+1] = f.start, pos
		if st.at(idx, pos, f.seq, f.i, f.next) {
			return true
		}
		idx[g], idx[g+1] = was0, was1
		return false
	}
	x := &seq[i]
	switch x.kind {
	case endNode:
		return pos == len(st.s) && st.at(idx, pos, seq, i+1, next)
	case boundaryNode:
		return wordAt(st.s, pos-1) != wordAt(st.s, pos) && st.at(idx, pos, seq, i+1, next)
	case groupNode:
		f := st.push(frame{seq: seq, i: i + 1, next: next, group: x.group, start: pos})
		ok := st.at(idx, pos, x.sub[0], 0, f)
		st.pop(f)
		return ok
	case altNode:
		f := st.push(frame{seq: seq, i: i + 1, next: next})
		ok := false
		for _, a := range x.sub {
			if ok = st.at(idx, pos, a, 0, f); ok {
				break
			}
		}
		st.pop(f)
		return ok
	case loopNode:
		rest := st.push(frame{seq: seq, i: i + 1, next: next})
		turn := st.push(frame{seq: x.again, next: rest}) // after one turn of the body
		var ok bool
		switch {
		case x.min > 0:
			ok = st.at(idx, pos, x.sub[0], 0, turn)
		case x.greedy:
			ok = st.at(idx, pos, x.sub[0], 0, turn) || st.at(idx, pos, seq, i+1, next)
		default:
			ok = st.at(idx, pos, seq, i+1, next) || st.at(idx, pos, x.sub[0], 0, turn)
		}
		st.pop(rest)
		return ok
	}
	return st.run(idx, pos, seq, i, next)
}

// run matches the run seq[i], then the rest, at s[pos:]. Its ends are
// tried where what follows it may start: where Index or LastIndex finds a
// literal that must follow, or else at each byte that may come next.
func (st *matchState) run(idx []int, pos int, seq []node, i, next int) bool {
	x, s := &seq[i], st.s
	limit := len(s)
	if x.max >= 0 {
		limit = min(limit, pos+x.max)
	}
	lo := pos + x.min
	try := func(r int) bool { return x.next.admits(s, r) && st.at(idx, r, seq, i+1, next) }
	n := pos // s[pos:n] is in the class
	// extend moves n up to r, and reports whether it got there; a character
	// beyond ASCII in the class leaves the message to the expression.
	extend := func(r int) bool {
		from := n
		for n < r && x.class[s[n]] {
			if s[n] >= utf8.RuneSelf {
				st.bail = true
				return false
			}
			n++
		}
		st.steps -= n - from
		return n == r
	}
	if !x.greedy {
		for r := lo; r <= limit; r++ {
			if len(x.follow) > 0 {
				j := st.firstIndex(s[r:], x.follow, limit+1-r)
				if j < 0 || st.spent() {
					return false
				}
				r += j
			}
			if !extend(r) {
				return false
			}
			if try(r) {
				return true
			}
		}
		return false
	}
	if extend(limit); st.bail || n < lo {
		return false
	}
	if len(x.follow) > 0 {
		for hi := n + 1; hi > lo; {
			r := st.lastIndex(s[lo:], x.follow, hi-lo)
			if r < 0 || st.spent() {
				return false
			}
			if try(lo + r) {
				return true
			}
			hi = lo + r
		}
		return false
	}
	for r := n; r >= lo; r-- {
		if try(r) {
			return true
		}
	}
	return false
}

// maxFrames bounds the continuations of a path: a loop turned this often
// leaves the message to the expression rather than grow the stack.
const maxFrames = 1024

// push adds a frame and returns its index.
func (st *matchState) push(f frame) int {
	if len(st.frames) == maxFrames {
		st.bail = true
	}
	st.frames = append(st.frames, f)
	return len(st.frames) - 1
}

// pop drops the frames from index f on.
func (st *matchState) pop(f int) { st.frames = st.frames[:f] }

// wordAt reports whether s[i] is an ASCII word character, as \b reads
// them (false outside s).
func wordAt(s string, i int) bool { return i >= 0 && i < len(s) && isWordByte(s[i]) }
