package catalogue

// acMatcher is a byte-class compressed Aho-Corasick automaton in DFA form.
// It answers "which literals occur in this text" in one pass.
type acMatcher struct {
	classes  [256]uint8 // byte -> class; 0 is "no literal has this byte"
	nclass   int
	next     []uint32 // state*nclass + class -> state
	out      [][]int  // state -> literal indexes ending here (after fail closure)
	hasOut   []bool
	literals []string
}

func newACMatcher(literals []string) *acMatcher {
	m := &acMatcher{literals: literals}
	n := 1
	for _, lit := range literals {
		for i := 0; i < len(lit); i++ {
			if m.classes[lit[i]] == 0 {
				m.classes[lit[i]] = uint8(n)
				n++
			}
		}
	}
	if n > 256 {
		panic("catalogue: too many byte classes")
	}
	m.nclass = n
	// trie
	type node struct {
		child map[uint8]int
		fail  int
		out   []int
	}
	nodes := []node{{child: map[uint8]int{}}}
	for li, lit := range literals {
		s := 0
		for i := 0; i < len(lit); i++ {
			c := m.classes[lit[i]]
			t, ok := nodes[s].child[c]
			if !ok {
				t = len(nodes)
				nodes = append(nodes, node{child: map[uint8]int{}})
				nodes[s].child[c] = t
			}
			s = t
		}
		nodes[s].out = append(nodes[s].out, li)
	}
	m.next = make([]uint32, len(nodes)*n)
	// BFS to set fail links and complete the DFA.
	queue := []int{}
	for c := 1; c < n; c++ {
		if t, ok := nodes[0].child[uint8(c)]; ok {
			m.next[c] = uint32(t)
			nodes[t].fail = 0
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		nodes[s].out = append(nodes[s].out, nodes[nodes[s].fail].out...)
		for c := 1; c < n; c++ {
			if t, ok := nodes[s].child[uint8(c)]; ok {
				nodes[t].fail = int(m.next[nodes[s].fail*n+c])
				m.next[s*n+c] = uint32(t)
				queue = append(queue, t)
			} else {
				m.next[s*n+c] = m.next[nodes[s].fail*n+c]
			}
		}
	}
	m.out = make([][]int, len(nodes))
	m.hasOut = make([]bool, len(nodes))
	for i := range nodes {
		m.out[i] = nodes[i].out
		m.hasOut[i] = len(nodes[i].out) > 0
	}
	return m
}

// appendMatches appends the index of every literal occurring in b to dst
// (a literal may be appended more than once).
func (m *acMatcher) appendMatches(dst []int, b string) []int {
	s := uint32(0)
	n := uint32(m.nclass)
	for i := 0; i < len(b); i++ {
		c := b[i]
		s = m.next[s*n+uint32(m.classes[c])]
		if m.hasOut[s] {
			dst = append(dst, m.out[s]...)
		}
	}
	return dst
}
