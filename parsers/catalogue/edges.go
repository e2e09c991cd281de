package catalogue

import (
	"regexp"
	"strings"
)

// Literal is a prefilter literal with what its entries' patterns say about
// its edges: whether a message may glue word characters onto its first
// (GluedBefore) or last (GluedAfter) byte, as T43's "Sending
// {}DeleteContainerCommand" glues "force" onto "DeleteContainerCommand".
// A search engine that matches whole words (parsers/es) must not ask for a
// glued edge word.
type Literal struct {
	Text                    string
	GluedBefore, GluedAfter bool
}

// LiteralEdges returns every literal once, with its edges.
func (c *Catalogue) LiteralEdges() []Literal {
	byText := map[string]int{}
	var out []Literal
	for _, e := range c.entries {
		src := e.Pattern.String()
		for _, l := range e.Literals {
			before, after := glued(src, l)
			i, ok := byText[l]
			if !ok {
				i = len(out)
				byText[l] = i
				out = append(out, Literal{Text: l})
			}
			out[i].GluedBefore = out[i].GluedBefore || before
			out[i].GluedAfter = out[i].GluedAfter || after
		}
	}
	return out
}

// groupOpening is the opening of a group at the end of pattern source.
var groupOpening = regexp.MustCompile(`(^|[^\\])\((?:\?:|\?P<\w+>)?$`)

// minEdge is the shortest part of a literal looked up in its pattern.
const minEdge = 4

// glued reads, in a pattern's source, what may stand before and after the
// literal: it finds the literal's longest prefix (suffix) written out in the
// pattern and looks at the pattern just before (after) it. The start of the
// pattern is the start of the message, which follows the layout's ": "; the
// pattern's end leaves the rest of the message open. Unknown is glued.
func glued(src, lit string) (before, after bool) {
	before, after = true, true
	for n := len(lit); n >= min(minEdge, len(lit)); n-- {
		if i := strings.Index(src, regexp.QuoteMeta(lit[:n])); i >= 0 {
			before = !boundaryBefore(src[:i])
			break
		}
	}
	for n := 0; n <= len(lit)-min(minEdge, len(lit)); n++ {
		q := regexp.QuoteMeta(lit[n:])
		if i := strings.Index(src, q); i >= 0 {
			after = !boundaryAfter(src[i+len(q):])
			break
		}
	}
	return before, after
}

// boundaryBefore reports whether pattern source ending in prefix puts a
// non-word character (or the message start) before what follows. At the
// start of a group or of an alternative, what stands before the group
// decides.
func boundaryBefore(prefix string) bool {
	for _, flags := range []string{"(?s)", "(?i)", "(?m)"} {
		prefix = strings.TrimPrefix(prefix, flags)
	}
	switch {
	case prefix == "" || prefix == "^" || prefix == `\A`:
		return true
	case strings.HasSuffix(prefix, `\s*`):
		return boundaryBefore(strings.TrimSuffix(prefix, `\s*`))
	case strings.HasSuffix(prefix, `\s`) || strings.HasSuffix(prefix, `\s+`):
		return true
	case strings.HasSuffix(prefix, ")?") && !strings.HasSuffix(prefix, `\)?`):
		// An optional group: both its end and what precedes it.
		inner := prefix[:len(prefix)-2]
		return boundaryBefore(inner) && boundaryBefore(inner[:max(groupStart(inner), 0)])
	case groupOpening.MatchString(prefix):
		return boundaryBefore(groupOpening.ReplaceAllString(prefix, "$1"))
	case strings.HasSuffix(prefix, "|"):
		if open := groupStart(prefix); open >= 0 {
			return boundaryBefore(prefix[:open])
		}
		return boundaryBefore("") // an alternative of the whole pattern
	}
	c := prefix[len(prefix)-1]
	if len(prefix) >= 2 && prefix[len(prefix)-2] == '\\' { // an escaped punctuation mark
		return !isWordByte(c)
	}
	return strings.IndexByte(" :=,;#/<>\"'-", c) >= 0
}

// groupStart returns the index of the unclosed "(" that prefix ends inside
// (-1 at the top level).
func groupStart(prefix string) int {
	depth := 0
	for i := len(prefix) - 1; i >= 0; i-- {
		if i > 0 && prefix[i-1] == '\\' {
			continue
		}
		switch prefix[i] {
		case ')':
			depth++
		case '(':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// boundaryAfter reports whether pattern source starting with rest puts a
// non-word character (or the message end) after what precedes.
func boundaryAfter(rest string) bool {
	if strings.HasPrefix(rest, "$") || strings.HasPrefix(rest, `\s`) {
		return true
	}
	if rest == "" {
		return false
	}
	if rest[0] == '\\' && len(rest) > 1 {
		return !isWordByte(rest[1])
	}
	return strings.IndexByte(" :=,;#/<>\"'-", rest[0]) >= 0
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
