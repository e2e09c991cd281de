package redact

import "regexp"

// pseudonymRe finds every shape of pseudonym Map gives (see pseudonym).
var pseudonymRe = regexp.MustCompile(`host-\d+|domain-\d+\.example|REALM-\d+\.EXAMPLE|` +
	`198\.1[89]\.\d{1,3}\.\d{1,3}|100\.\d{1,3}\.\d{1,3}\.\d{1,3}|2001:db8::(?:[0-9a-f]{1,4}:)?[0-9a-f]{1,4}|` +
	`(?:user|group|vol|bucket|key|keyword)-\d+|(?:ACCESSKEY|TOKEN|SECRET)-\d+|/redacted/path-\d+`)

// Reverse appends text with every pseudonym of m replaced by its original:
// a report of a redacted bundle (text, JSON, Markdown or HTML) read back in
// the names of the cluster. What is not a pseudonym of m stays as it is.
func (m *Map) Reverse(dst, text []byte) []byte {
	last := 0
	for _, loc := range pseudonymRe.FindAllIndex(text, -1) {
		s, e := loc[0], loc[1]
		if s > 0 && isAlnum(text[s-1]) || e < len(text) && isAlnum(text[e]) {
			continue // inside a longer word
		}
		orig, ok := m.rev[string(text[s:e])]
		if !ok {
			continue
		}
		dst = append(dst, text[last:s]...)
		dst = append(dst, orig...)
		last = e
	}
	return append(dst, text[last:]...)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
