// Package prom reads Prometheus text snapshots as Ozone's /prom endpoint
// writes them, tolerating the quirks of that output: duplicate "# TYPE"
// lines, no "# HELP", the "#Dropwizard metrics" separator, label lists with a
// trailing comma, Java number renderings, CRLF line endings.
//
// A line that cannot be read is counted in Snapshot.Errors and skipped; only
// an I/O error stops Parse.
package prom

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// MaxLineBytes is the longest line Parse reads; a longer line counts as an
// error and is skipped.
const MaxLineBytes = 1 << 20

// Sample is one metric sample.
type Sample struct {
	Name   string
	Labels map[string]string // nil when the sample has no labels
	Value  float64
}

// String renders the sample as the exposition format writes it, labels
// sorted by name.
func (s Sample) String() string {
	var b strings.Builder
	b.WriteString(s.Name)
	if len(s.Labels) > 0 {
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(s.Labels)) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k + "=" + strconv.Quote(s.Labels[k]))
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(strconv.FormatFloat(s.Value, 'g', -1, 64))
	return b.String()
}

// Snapshot is what one /prom page held.
type Snapshot struct {
	Samples []Sample
	Types   map[string]string // metric family name -> counter, gauge, summary, histogram, untyped
	Errors  int               // lines that could not be read
}

// Parse reads a text snapshot. The error is only for I/O; unreadable lines
// are counted in Snapshot.Errors.
func Parse(r io.Reader) (*Snapshot, error) {
	s := &Snapshot{Types: map[string]string{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than br's buffer, assembled
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(line) <= MaxLineBytes {
				long = append(long, line...)
			} else {
				long = long[:0]
				if err := skipLine(br); err != nil && err != io.EOF {
					return s, err
				}
				s.Errors++
			}
			continue
		}
		if len(long) > 0 {
			if len(long)+len(line) > MaxLineBytes {
				s.Errors++
				line = nil
			} else {
				line = append(long, line...)
			}
			long = long[:0]
		}
		if len(line) > 0 {
			s.parseLine(line)
		}
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return s, err
		}
	}
}

// skipLine discards the rest of an over-long line.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

func (s *Snapshot) parseLine(line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	line = bytes.TrimLeft(line, " \t")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if line[0] == '#' {
		s.parseComment(line[1:])
		return
	}
	if smp, ok := parseSample(line); ok {
		s.Samples = append(s.Samples, smp)
		return
	}
	s.Errors++
}

// parseComment reads "# TYPE name type"; HELP lines and other comments
// ("#Dropwizard metrics", "# EOF") are ignored.
func (s *Snapshot) parseComment(c []byte) {
	f := strings.Fields(string(c))
	if len(f) == 0 || f[0] != "TYPE" {
		return
	}
	if len(f) != 3 || !validName(f[1]) {
		s.Errors++
		return
	}
	s.Types[f[1]] = strings.ToLower(f[2])
}

// parseSample reads `name{label="value",...} value [timestamp]`.
func parseSample(b []byte) (Sample, bool) {
	var smp Sample
	i := 0
	for i < len(b) && isNameByte(b[i], i == 0) {
		i++
	}
	if i == 0 {
		return smp, false
	}
	smp.Name = string(b[:i])
	j := i
	i = skipBlank(b, i)
	if i < len(b) && b[i] == '{' {
		labels, n, ok := parseLabels(b[i+1:])
		if !ok {
			return smp, false
		}
		smp.Labels = labels
		i += 1 + n
		j = i
		i = skipBlank(b, i)
	}
	if i == j { // the value must follow a blank
		return smp, false
	}
	rest := strings.Fields(string(b[i:]))
	if len(rest) == 0 || len(rest) > 2 {
		return smp, false
	}
	v, ok := parseNumber(rest[0])
	if !ok {
		return smp, false
	}
	if len(rest) == 2 { // timestamp: integer milliseconds (or OpenMetrics float seconds)
		if _, ok := parseNumber(rest[1]); !ok {
			return smp, false
		}
	}
	smp.Value = v
	return smp, true
}

// parseNumber reads a value as Java and Go render it: "5", "0.0",
// "1.2E7", "+Inf", "-Inf", "NaN", "Infinity". Hexadecimal and underscores,
// which strconv would take, are refused.
func parseNumber(s string) (float64, bool) {
	if strings.ContainsAny(s, "_xXpP") {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

// parseLabels reads a label list after "{" up to and including "}"; it
// returns the labels and the number of bytes consumed.
func parseLabels(b []byte) (map[string]string, int, bool) {
	var labels map[string]string
	i := 0
	for {
		i = skipBlank(b, i)
		if i >= len(b) {
			return nil, 0, false
		}
		if b[i] == '}' {
			return labels, i + 1, true
		}
		start := i
		for i < len(b) && isLabelByte(b[i], i == start) {
			i++
		}
		if i == start {
			return nil, 0, false
		}
		name := string(b[start:i])
		i = skipBlank(b, i)
		if i >= len(b) || b[i] != '=' {
			return nil, 0, false
		}
		i = skipBlank(b, i+1)
		if i >= len(b) || b[i] != '"' {
			return nil, 0, false
		}
		value, n, ok := parseQuoted(b[i+1:])
		if !ok {
			return nil, 0, false
		}
		i += 1 + n
		if labels == nil {
			labels = make(map[string]string, 4)
		}
		labels[name] = value
		i = skipBlank(b, i)
		if i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ',':
			i++ // a trailing comma before '}' is what simpleclient writes
		case '}':
		default:
			return nil, 0, false
		}
	}
}

// parseQuoted reads a label value after the opening quote up to and
// including the closing quote. Escapes \\, \" and \n are decoded; any other
// backslash is kept as written.
func parseQuoted(b []byte) (string, int, bool) {
	end := -1
	escaped := false
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' {
			escaped = true
			i++
			continue
		}
		if b[i] == '"' {
			end = i
			break
		}
	}
	if end < 0 {
		return "", 0, false
	}
	if !escaped {
		return string(b[:end]), end + 1, true
	}
	var sb strings.Builder
	sb.Grow(end)
	for i := 0; i < end; i++ {
		c := b[i]
		if c != '\\' || i+1 >= end {
			sb.WriteByte(c)
			continue
		}
		i++
		switch b[i] {
		case '\\':
			sb.WriteByte('\\')
		case '"':
			sb.WriteByte('"')
		case 'n':
			sb.WriteByte('\n')
		default:
			sb.WriteByte('\\')
			sb.WriteByte(b[i])
		}
	}
	return sb.String(), end + 1, true
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (!first && '0' <= c && c <= '9')
}

func isLabelByte(c byte, first bool) bool {
	return c != ':' && isNameByte(c, first)
}

func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return s != ""
}
