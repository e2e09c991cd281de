package catalogue

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// literalEntries are the default entries' patterns with their literal
// matchers. Every pattern has one: an entry whose pattern the matcher does
// not take would run the regular expression on every record it names.
func literalEntries(tb testing.TB) (res []*regexp.Regexp, ms []*literalMatcher) {
	for _, e := range Default() {
		m := compileLiteral(e.Pattern.String())
		if m == nil {
			tb.Errorf("the literal matcher does not take %s's pattern", e.Kind)
			continue
		}
		res, ms = append(res, e.Pattern), append(ms, m)
	}
	return res, ms
}

// sameAsRegexp reports where m's answer on msg differs from re's; an answer
// m leaves to the regular expression does not differ.
func sameAsRegexp(re *regexp.Regexp, m *literalMatcher, msg string) (string, bool) {
	got, ok := m.find(msg, nil)
	if !ok || slices.Equal(got, re.FindStringSubmatchIndex(msg)) {
		return "", true
	}
	return strings.Join([]string{re.String(), msg}, "\n  on "), false
}

// t30 and t31 are the HDDS-17425 pair as SCMNodeManager logs it (T30
// SCMNodeManager.java:771, T31 :2068; signatures-scm.md §2.2).
const (
	t31 = "Datanode " + dn3Details + " has software version STORAGE_SPACE_DISTRIBUTION (10) which is older than " +
		"SCM software version ZDU (100) and SCM is finalized. Datanode must be upgraded to join the cluster."
	t30 = "Invalid datanode in the cluster : dn3.example.com. Datanode software version = STORAGE_SPACE_DISTRIBUTION (10), " +
		"Datanode apparent version = STORAGE_SPACE_DISTRIBUTION (10), SCM software version = ZDU (100) SCM apparent version = ZDU (100)"
)

// The literal matcher gives the regular expression's submatches on every
// historic rendering of every entry, and on near misses: a prefix, a second
// occurrence of a literal, a line break inside a group, characters beyond
// ASCII, spaces where the last group ends, and no match at all.
func TestLiteralMatcherAgreesWithTheRegularExpressions(t *testing.T) {
	res, ms := literalEntries(t)
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, r := range historicRecords(t, c) {
		m := r.Message
		msgs = append(msgs, m, m[:len(m)/2], m[:len(m)-1], strings.Replace(m, " ", " é", 1), strings.Replace(m, " ", "", 2))
	}
	msgs = append(msgs, t30, t31,
		"prefix "+t31, t31+" suffix "+t31,
		strings.Replace(t31, " has software version", " has software version has software version", 1),
		strings.Replace(t31, "(10)", "(1\n0)", 1),
		strings.Replace(t30, "ZDU (100) SCM apparent", "ZDÜ (100) SCM apparent", 1),
		strings.Replace(t30, "dn3.example.com.", "dn3 example.com.", 1),
		t30+"   ", t30+" \n next line", t30+"é",
		strings.Replace(t30, "SCM apparent version = ZDU (100)", "SCM apparent version =   ", 1),
		"Invalid datanode in the cluster : ", "Datanode  has software version  which is older than",
	)
	matched := 0
	for i, m := range ms {
		for _, msg := range msgs {
			if where, ok := sameAsRegexp(res[i], m, msg); !ok {
				t.Errorf("differs from %s", where)
			}
			if idx, ok := m.find(msg, nil); idx != nil && ok {
				matched++
			}
		}
	}
	if matched < 100 {
		t.Errorf("only %d matches among the messages: the table tests too little", matched)
	}
}

// A message that would make the matcher try too many ends is left to the
// regular expression, whose time is linear, and the catalogue still finds
// what the expression finds.
func TestLiteralMatcherLeavesPathologicalMessagesToTheRegularExpression(t *testing.T) {
	m := compileLiteral(`a (?P<x>.+?) b (?P<y>.+?) c (?P<z>.+?) d`)
	if m == nil {
		t.Fatal("the pattern does not compile")
	}
	msg := "a " + strings.Repeat("x b x c ", 2000)
	if _, ok := m.find(msg, nil); ok {
		t.Error("a message of thousands of candidate ends was not left to the regular expression")
	}
	// A literal that never comes, looked for again after each of thousands
	// of failed tries, would take time quadratic in the message.
	absent := compileLiteral(`(?s)^a(?:.*?(?:xyzxyz (?P<a>\d)|q: (?P<b>\d)))?`)
	if absent == nil {
		t.Fatal("the pattern with an absent literal does not compile")
	}
	if _, ok := absent.find("a"+strings.Repeat("q: z", 20000), nil); ok {
		t.Error("20,000 tries that each look for an absent literal were not left to the regular expression")
	}
	if idx, ok := absent.find("aq: zq: 1", nil); !ok || len(idx) < 6 || idx[4] != 8 {
		t.Errorf("a short message: %v, %v", idx, ok)
	}
	// A loop turned without end would grow the stack with the message.
	loop := compileLiteral(`x(?: \| [a-z]+=[^|\n]*)* \| end`)
	if loop == nil {
		t.Fatal("the loop does not compile")
	}
	if _, ok := loop.find("x"+strings.Repeat(" | a=b", 100000)+" | end", nil); ok {
		t.Error("a loop of 100,000 turns was not left to the regular expression")
	}
	if idx, ok := loop.find("x | a=b | c=d | end", nil); !ok || idx == nil {
		t.Errorf("a loop of two turns: %v, %v", idx, ok)
	}
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for ei, e := range c.entries {
		if e.Kind != OldDatanodeOnFinalizedSCM {
			continue
		}
		hostile := "Datanode " + strings.Repeat(" has software version  which is older than SCM software version ", 500) + "x"
		if got, want := c.match(ei, hostile, nil), e.Pattern.FindStringSubmatchIndex(hostile); !slices.Equal(got, want) {
			t.Errorf("match %v, the expression %v", got, want)
		}
		if got := c.match(ei, t31, nil); got == nil {
			t.Error("T31 does not match")
		}
	}
}

// FuzzLiteralMatcher: on any message the literal matcher gives what the
// regular expression gives, or leaves the message to it.
func FuzzLiteralMatcher(f *testing.F) {
	res, ms := literalEntries(f)
	f.Add(uint8(0), t31)
	f.Add(uint8(1), t30)
	for i, m := range ms {
		var b strings.Builder
		writeExample(&b, m.prog)
		f.Add(uint8(i), b.String())
	}
	f.Fuzz(func(t *testing.T, which uint8, msg string) {
		i := int(which) % len(ms)
		if where, ok := sameAsRegexp(res[i], ms[i], msg); !ok {
			t.Errorf("differs from %s", where)
		}
	})
}

// writeExample writes a message seq may match: its literals, the first
// alternative, a loop's body once and each run as short as it may be
// with the first printable byte of its class (two where it may be longer).
func writeExample(b *strings.Builder, seq []node) {
	for i := range seq {
		switch x := &seq[i]; x.kind {
		case litNode:
			b.WriteString(x.lit)
		case groupNode, altNode, loopNode:
			writeExample(b, x.sub[0])
		case runNode:
			c := byte(' ')
			for c < '~' && !x.class[c] {
				c++
			}
			n := max(x.min, 1)
			if x.max < 0 || x.max > n {
				n++
			}
			b.WriteString(strings.Repeat(string(c), n))
		}
	}
}

// Shapes beyond the catalogue's, on short random messages of their
// letters: runs that end the pattern (lazy or greedy), bounded and optional
// runs, classes with and without characters beyond ASCII, groups of
// several parts, alternations, optional parts, loops, \b and the end of
// the text, literals beyond ASCII. Case folding, a pattern that may start
// anywhere, a loop that captures or may match nothing, and (?m) stay with
// the expression.
func TestLiteralMatcherShapes(t *testing.T) {
	exprs := []string{`x (?P<a>.+?)`, `x (?P<a>.*)`, `x (?P<a>\d+) y`, `x .*? y`, `^x (?P<a>[^y]+)y`,
		`x (?P<a>\S*\S) y`, `x (?P<a>[^\s]+?)`, `x (?P<a>a|b)`, `x (?P<a>.+)$`, `x (?P<a>.{2})`, `x .+.+`,
		`x (?P<a>.+?)(?P<b>\d) y`, `x(?P<a>[ab]{2,3}?)(?P<b>a?)`, `x (?P<a>ab|a)(?P<b>b?)y?`, `(?:xa|ab)(?P<a>b*?)\z`,
		`x(?: (?P<a>\w+)| (?P<b>1))?(?P<c>.*)`, `x(?:a|b[ab]?)*?(?P<a>b)`, `x(?: [ab]+)*(?P<a>.*)`, `\bx(?P<a>\w*)\b`,
		`x(?:1|a[ab])+?(?P<a>.)`, `(?s)x(?P<a>.*?)(?:ab|y|\n)`, `^(?P<a>[^ ]*) x(?:,? y(?: (?P<b>a+))?)?[ \t]*(?:\r?\n|\z)`,
		`x[^b]*b`, `x(?P<a>[a-y ]+)`, `x(?:(?P<a>a)b|a(?P<b>.))`, `x [^é]+`, `x(?P<a>[a-zé]+?)y`, `(?:éa|x)(?P<a>\d*)(?:é?b|y)`}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, expr := range exprs {
		m := compileLiteral(expr)
		if m == nil {
			t.Errorf("%s does not compile", expr)
			continue
		}
		re := regexp.MustCompile(expr)
		matched, answered := 0, 0
		for range 20000 {
			b := make([]byte, 4+rng.IntN(16))
			for i := range b {
				b[i] = "abxy 11_\n"[rng.IntN(9)]
			}
			msg := string(b)
			if rng.IntN(8) == 0 {
				msg = strings.Replace(msg, "a", "é", 1)
			}
			if where, ok := sameAsRegexp(re, m, msg); !ok {
				got, _ := m.find(msg, nil)
				t.Fatalf("differs from %s: %v, want %v", where, got, re.FindStringSubmatchIndex(msg))
			}
			if _, ok := m.find(msg, nil); ok {
				answered++
			}
			if re.MatchString(msg) {
				matched++
			}
		}
		if matched < 5 || answered < 15000 {
			t.Errorf("%s matched %d messages and answered %d of 20000 itself", expr, matched, answered)
		}
	}
	for _, expr := range []string{`(?i)x (?P<a>.+)`, `(?P<a>.+) y`, `x (?:(?P<a>y)z)*`, `x (?:y?)*`,
		`(?m)x$`, `x (?:ab){2}`, `x|.y`, `x(?:(?P<a>1)|(?P<a>a))+?`} {
		if compileLiteral(expr) != nil {
			t.Errorf("%s compiles", expr)
		}
	}
}

// A run followed by a literal ends only where the literal starts, found
// with strings.Index (lazy) or LastIndex (greedy): literals that overlap
// themselves, repeat, or follow one another closely give the expression's
// submatches on every short message of their letters.
func TestLiteralMatcherRunEndsAtItsLiteral(t *testing.T) {
	exprs := []string{`a (?P<x>.+?)aa(?P<y>.*)b`, `a (?P<x>.+)aa(?P<y>.*?)b`, `b(?P<x>.*)aba`, `b(?P<x>.*?)aba`,
		`^(?P<x>[ab]+)ba (?P<y>[^ ]*) `, `a(?P<x>.+)a(?P<y>.+?)a`, `x(?P<a>.+?)aba(?P<b>[^b]+)`, `x(?P<a>.+)aba(?P<b>[^a]+)`,
		`x(?P<a>.+?)aa(?P<b>[^a]+)`, `x(?P<a>.+)aa(?P<b>[^b]+)`}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, expr := range exprs {
		m := compileLiteral(expr)
		if m == nil {
			t.Fatalf("%s does not compile", expr)
		}
		re := regexp.MustCompile(expr)
		matched := 0
		for range 20000 {
			b := make([]byte, rng.IntN(14))
			for i := range b {
				b[i] = "abx "[rng.IntN(4)]
			}
			msg := string(b)
			if where, ok := sameAsRegexp(re, m, msg); !ok {
				got, _ := m.find(msg, nil)
				t.Fatalf("differs from %s: %v, want %v", where, got, re.FindStringSubmatchIndex(msg))
			}
			if re.MatchString(msg) {
				matched++
			}
		}
		if matched < 100 {
			t.Errorf("%s matched only %d messages", expr, matched)
		}
	}
}
