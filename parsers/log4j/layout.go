package log4j

import (
	"bytes"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// layoutID names a layout of shared/ozone/layouts.md §3.
type layoutID uint8

const (
	layoutNone layoutID = iota
	layoutL1            // %d{ISO8601} [%t] %p %c: %m%n
	layoutL2            // %d{ISO8601} [%t] %p %c{2}: %m%n
	layoutL3            // %d{ISO8601} %p %c: %m%n
	layoutL3b           // %d{ISO8601} %p [%t]-%c: %m%n
	layoutL4            // %d{ISO8601} [%t] %-5p %c{2} (%F:%M(%L)) - %m%n
	layoutL5            // %d{ISO8601} %-5p %c{2} (%F:%M(%L)) - %m%n
	layoutL6            // %d{yyyy-MM-dd HH:mm:ss} %-5p %c{1}:%L - %m%n
	layoutL7            // %d{DEFAULT} | %-5level | %c{1} | %msg | %throwable{3} %n
	layoutL8            // %d{DEFAULT} | %-5level | %msg | %throwable{3} %n
	layoutL9            // [OM] %d [%p|%c|%C{1}] %m%n
	layoutL10           // %d{yy/MM/dd HH:mm:ss} %p %c{2}: %m%n
	layoutCount
)

var layoutNames = [layoutCount]string{"", "L1", "L2", "L3", "L3b", "L4", "L5", "L6", "L7", "L8", "L9", "L10"}

func (l layoutID) String() string { return layoutNames[l] }

// header is the decoded first line of a record. Byte slices point into the
// line.
type header struct {
	layout layoutID
	wall   int64 // wall-clock ms, see parseStamp; meaningless if untimed
	timed  bool
	level  parsers.Level
	logger []byte
	thread []byte
	msg    []byte
	pipes  bool // L7/L8: trailing " | " columns are trimmed from the record's end
}

// levelAt reads a level name at the start of b and returns it with its
// length, or LevelUnknown and 0.
func levelAt(b []byte) (parsers.Level, int) {
	if len(b) < 4 {
		return parsers.LevelUnknown, 0
	}
	switch b[0] {
	case 'I':
		if string(b[:4]) == "INFO" {
			return parsers.LevelInfo, 4
		}
	case 'W':
		if string(b[:4]) == "WARN" {
			return parsers.LevelWarn, 4
		}
	case 'E':
		if len(b) >= 5 && string(b[:5]) == "ERROR" {
			return parsers.LevelError, 5
		}
	case 'D':
		if len(b) >= 5 && string(b[:5]) == "DEBUG" {
			return parsers.LevelDebug, 5
		}
	case 'T':
		if len(b) >= 5 && string(b[:5]) == "TRACE" {
			return parsers.LevelTrace, 5
		}
	case 'F':
		if len(b) >= 5 && string(b[:5]) == "FATAL" {
			return parsers.LevelFatal, 5
		}
	}
	return parsers.LevelUnknown, 0
}

// levelColumn reads a level followed by at least one space (or the end of b)
// and returns the level and the bytes after the spaces.
func levelColumn(b []byte) (parsers.Level, []byte, bool) {
	lv, n := levelAt(b)
	if n == 0 {
		return lv, nil, false
	}
	if n == len(b) {
		return lv, b[n:], true
	}
	if b[n] != ' ' {
		return lv, nil, false
	}
	return lv, skipSpaces(b[n+1:]), true
}

func skipSpaces(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return b
}

func trimRightSpaces(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// trimPipes trims trailing spaces and '|' (the empty %throwable column of
// L7/L8).
func trimPipes(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '|') {
		b = b[:len(b)-1]
	}
	return b
}

// Search windows that keep decoding linear in the line length whatever the
// line holds: a thread name, a logger name and a (%F:%M(%L)) column are
// looked for only this far.
const (
	maxThreadBytes = 1024
	maxLoggerBytes = 512
	maxSourceBytes = 256
)

// window returns b cut to at most n bytes.
func window(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// loggerTail decodes what follows the level column of L1-L6 and L10:
//
//	logger: msg                      (L1, L2, L3, L10)
//	logger (File:method(line)) - msg (L4, L5)
//	Class:line - msg                 (L6)
//
// It returns the logger, the message and which of the three shapes it saw
// (0 none, 1 colon, 2 source, 3 class:line).
func loggerTail(b []byte) (logger, msg []byte, shape int) {
	sp := bytes.IndexByte(window(b, maxLoggerBytes), ' ')
	tok := b
	if sp >= 0 {
		tok = b[:sp]
	}
	if len(tok) == 0 || len(tok) >= maxLoggerBytes {
		return nil, nil, 0
	}
	if tok[len(tok)-1] == ':' {
		if len(tok) == 1 {
			return nil, nil, 0
		}
		if sp < 0 {
			return tok[:len(tok)-1], nil, 1
		}
		return tok[:len(tok)-1], b[sp+1:], 1
	}
	if sp < 0 {
		return nil, nil, 0
	}
	after := b[sp:]
	if len(after) >= 2 && after[1] == '(' {
		if e := bytes.Index(window(after, maxSourceBytes), []byte(") - ")); e >= 0 {
			return tok, after[e+4:], 2
		}
		if bytes.HasSuffix(after, []byte(") -")) {
			return tok, nil, 2
		}
		return nil, nil, 0
	}
	if len(after) >= 3 && after[1] == '-' && after[2] == ' ' {
		return tok, after[3:], 3
	}
	if len(after) == 2 && after[1] == '-' {
		return tok, nil, 3
	}
	return nil, nil, 0
}

// decodeThreaded decodes "[thread] LEVEL tail" (L1, L2, L4). The thread ends
// at the first "] LEVEL " so that names holding ']' or a trailing space are
// kept whole.
func decodeThreaded(b []byte, h *header) bool {
	w := window(b, maxThreadBytes)
	for i := 1; i < len(w); {
		j := bytes.IndexByte(w[i:], ']')
		if j < 0 {
			return false
		}
		p := i + j
		if p+2 < len(b) && b[p+1] == ' ' {
			if lv, rest, ok := levelColumn(b[p+2:]); ok {
				logger, msg, shape := loggerTail(rest)
				if shape == 0 || shape == 3 {
					i = p + 1
					continue
				}
				h.level, h.thread, h.logger, h.msg = lv, trimRightSpaces(b[1:p]), logger, msg
				switch {
				case shape == 2:
					h.layout = layoutL4
				case bytes.Count(logger, []byte{'.'}) == 1:
					h.layout = layoutL2
				default:
					h.layout = layoutL1
				}
				return true
			}
		}
		i = p + 1
	}
	return false
}

// decodeUnthreaded decodes "LEVEL tail" (L3, L5, L6, L10) and
// "LEVEL [thread]-logger: msg" (L3b; also "[thread] logger:" as YARN writes).
func decodeUnthreaded(b []byte, h *header) bool {
	lv, rest, ok := levelColumn(b)
	if !ok {
		return false
	}
	if len(rest) > 0 && rest[0] == '[' {
		w := window(rest, maxThreadBytes)
		for i := 1; i < len(w); {
			j := bytes.IndexByte(w[i:], ']')
			if j < 0 {
				return false
			}
			p := i + j
			if p+1 < len(rest) && (rest[p+1] == '-' || rest[p+1] == ' ') {
				if logger, msg, shape := loggerTail(rest[p+2:]); shape == 1 {
					h.level, h.thread, h.logger, h.msg, h.layout = lv, trimRightSpaces(rest[1:p]), logger, msg, layoutL3b
					return true
				}
			}
			i = p + 1
		}
		return false
	}
	logger, msg, shape := loggerTail(rest)
	h.level, h.logger, h.msg = lv, logger, msg
	switch shape {
	case 1:
		h.layout = layoutL3
	case 2:
		h.layout = layoutL5
	case 3:
		h.layout = layoutL6
	default:
		return false
	}
	return true
}

// decodePipes decodes "| LEVEL | ..." (L7 audit, L8 dn-container). pref
// resolves which of the two when known (layoutL7 or layoutL8); otherwise a
// bare identifier in the third column (OMAudit, SCMAudit, DNAudit) means L7.
func decodePipes(b []byte, pref layoutID, h *header) bool {
	if len(b) < 2 || b[0] != '|' || b[1] != ' ' {
		return false
	}
	lv, n := levelAt(b[2:])
	if n == 0 {
		return false
	}
	rest := skipSpaces(b[2+n:])
	if len(rest) == 0 || rest[0] != '|' {
		return false
	}
	rest = rest[1:]
	if len(rest) > 0 {
		if rest[0] != ' ' {
			return false
		}
		rest = rest[1:]
	}
	h.level, h.pipes = lv, true
	layout := pref
	bar := bytes.IndexByte(rest, '|')
	if layout != layoutL7 && layout != layoutL8 {
		layout = layoutL8
		if bar > 0 && isIdentifier(trimRightSpaces(rest[:bar])) {
			layout = layoutL7
		}
	}
	h.layout = layout
	if layout == layoutL8 {
		h.msg = trimPipes(rest)
		return true
	}
	if bar < 0 {
		h.logger, h.msg = trimRightSpaces(rest), nil
		return true
	}
	h.logger = trimRightSpaces(rest[:bar])
	msg := rest[bar+1:]
	if len(msg) > 0 && msg[0] == ' ' {
		msg = msg[1:]
	}
	h.msg = trimPipes(msg)
	return true
}

// isIdentifier reports whether b looks like a %c{1} logger name.
func isIdentifier(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.') {
			return false
		}
	}
	return true
}

// decodeInsightBody decodes "[LEVEL|logger|Class] msg" (L9 after the
// timestamp).
func decodeInsightBody(b []byte, h *header) bool {
	if len(b) < 2 || b[0] != '[' {
		return false
	}
	lv, n := levelAt(b[1:])
	if n == 0 || 1+n >= len(b) || b[1+n] != '|' {
		return false
	}
	rest := b[2+n:]
	bar := bytes.IndexByte(rest, '|')
	if bar < 0 {
		return false
	}
	logger := rest[:bar]
	rest = rest[bar+1:]
	end := bytes.IndexByte(rest, ']')
	if end < 0 {
		return false
	}
	rest = rest[end+1:]
	if len(rest) > 0 {
		if rest[0] != ' ' {
			return false
		}
		rest = rest[1:]
	}
	h.level, h.logger, h.msg, h.layout = lv, logger, rest, layoutL9
	return true
}

// insightPrefix returns the length of an `ozone insight logs` prefix ("[OM] ").
func insightPrefix(b []byte) int {
	if len(b) < 4 || b[0] != '[' {
		return 0
	}
	for i := 1; i < len(b) && i <= 16; i++ {
		c := b[i]
		switch {
		case c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-':
		case c == ']' && i > 1 && i+1 < len(b) && b[i+1] == ' ':
			return i + 2
		default:
			return 0
		}
	}
	return 0
}

// decode decodes a (prefix-stripped) line as the first line of a record in
// any layout of layouts.md §3. pref is the file's detected layout, used only
// to tell L7 from L8.
func decode(b []byte, pref layoutID, h *header) bool {
	if len(b) < 17 {
		return false
	}
	insight := false
	if b[0] == '[' {
		n := insightPrefix(b)
		if n == 0 {
			return false
		}
		b, insight = b[n:], true
	}
	wall, n, kind := parseStamp(b)
	if kind == stampNone || n+1 >= len(b) || b[n] != ' ' {
		return false
	}
	h.wall, h.timed, h.thread, h.logger, h.pipes = wall, true, nil, nil, false
	rest := b[n+1:]
	switch kind {
	case stampMillis:
		switch c := rest[0]; {
		case c == '[':
			if decodeInsightBody(rest, h) {
				return true
			}
			return !insight && decodeThreaded(rest, h)
		case insight:
			return false
		case c == '|':
			return decodePipes(rest, pref, h)
		default:
			return decodeUnthreaded(rest, h)
		}
	case stampSeconds:
		if insight || !decodeUnthreaded(rest, h) {
			return false
		}
		h.layout = layoutL6
		return true
	case stampShort:
		if insight || !decodeUnthreaded(rest, h) || h.layout != layoutL3 {
			return false
		}
		h.layout = layoutL10
		return true
	}
	return false
}

// decodeGeneric accepts a line that starts with the timestamp shape of the
// file's layout pref (yyyy-MM-dd HH:mm:ss for L6, with ",SSS" for the others
// and before any layout is known) followed by a space, as a record of unknown
// layout: a new record starts wherever the layout's timestamp starts a line.
func decodeGeneric(b []byte, pref layoutID, h *header) bool {
	wall, n, kind := parseStamp(b)
	want := stampMillis
	if pref == layoutL6 {
		want = stampSeconds
	}
	if kind != want || pref == layoutL10 {
		return false
	}
	if n >= len(b) || b[n] != ' ' {
		return false
	}
	rest := b[n+1:]
	*h = header{wall: wall, timed: true}
	if lv, after, ok := levelColumn(rest); ok {
		h.level, rest = lv, after
	}
	h.msg = rest
	return true
}
