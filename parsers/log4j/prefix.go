package log4j

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// maxServiceName bounds a docker-compose service name.
const maxServiceName = 64

func isServiceByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// skipANSI skips ANSI colour sequences (ESC '[' ... letter) at b[i:].
func skipANSI(b []byte, i int) int {
	for i+1 < len(b) && b[i] == 0x1b && b[i+1] == '[' {
		j := i + 2
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';') {
			j++
		}
		if j >= len(b) {
			return i
		}
		i = j + 1
	}
	return i
}

// composePrefix returns the length of a docker-compose prefix at the start of
// b — v1 "scm_1       | ", v2 "ozone-datanode-1  | ", optionally coloured —
// and the service name, or 0 and nil.
func composePrefix(b []byte) (int, []byte) {
	i := skipANSI(b, 0)
	start := i
	letter := false
	for i < len(b) && isServiceByte(b[i]) {
		if b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' {
			letter = true
		}
		i++
		if i-start > maxServiceName {
			return 0, nil
		}
	}
	end := i
	if end == start || !letter || i >= len(b) || b[i] != ' ' {
		return 0, nil
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	i = skipANSI(b, i)
	if i >= len(b) || b[i] != '|' {
		return 0, nil
	}
	i = skipANSI(b, i+1)
	if i < len(b) {
		if b[i] != ' ' {
			return 0, nil
		}
		i++
	}
	return i, b[start:end]
}

// desktopPrefix returns the length of Docker Desktop's extra
// "yyyy-MM-dd HH:mm:ss " timestamp at the start of b, or 0.
func desktopPrefix(b []byte) int {
	if len(b) < 20 || b[19] != ' ' {
		return 0
	}
	if _, n, kind := parseStamp(b[:19]); kind != stampSeconds || n != 19 {
		return 0
	}
	return 20
}

// criPrefix returns the length of a container runtime (CRI) log line's
// prefix at the start of b, or 0: "<RFC3339Nano time> <stream> <tag> " as
// the kubelet writes /var/log/pods/<ns>_<pod>_<uid>/<container>/N.log, e.g.
// "2026-08-23T10:00:00.123456789Z stdout F ". stream is stdout or stderr; tag
// is F (a full line) or P (partial: part of a line the runtime split, the
// rest follows on the next CRI line).
func criPrefix(b []byte) (n int, partial bool) {
	if len(b) < 29 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	i := 19
	if b[i] == '.' {
		i++
		for i < len(b) && i < 30 && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	switch {
	case i < len(b) && b[i] == 'Z':
		i++
	case i+6 <= len(b) && (b[i] == '+' || b[i] == '-') && b[i+3] == ':':
		i += 6
	default:
		return 0, false
	}
	if i+9 > len(b) || b[i] != ' ' || b[i+1] != 's' {
		return 0, false
	}
	if w := string(b[i+1 : i+8]); w != "stdout " && w != "stderr " {
		return 0, false
	}
	t := b[i+8]
	if t != 'F' && t != 'P' {
		return 0, false
	}
	i += 9
	if i < len(b) {
		if b[i] != ' ' {
			return 0, false
		}
		i++
	}
	return i, t == 'P'
}

// isBinary reports whether a line that starts no record is binary garbage: it
// holds a NUL byte, or more than half of its bytes are invalid UTF-8 or C0
// control characters (other than tab, form feed, vertical tab and ESC).
// Printable ASCII is checked eight bytes at a time.
func isBinary(b []byte) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if ((w-lo)|w)&hi != 0 {
			return binarySlow(b)
		}
	}
	for ; i < len(b); i++ {
		if b[i] == 0 || b[i] >= 0x80 {
			return binarySlow(b)
		}
	}
	return false
}

func binarySlow(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\f' && c != '\v' && c != 0x1b {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			bad++
		}
		i += size
	}
	return bad*2 > len(b)
}
