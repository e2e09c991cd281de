// Package parsers turns bytes into records: one log record (multi-line folded)
// or one metric sample, with its event time and origin. Sub-packages hold one
// concern each: log4j layouts and the line scanner, bundle walking, following
// files (tail), log documents in Elasticsearch (es), /prom snapshots, the
// Ozone message catalogue and site configuration.
package parsers

import (
	"bytes"
	"time"
)

// Level is a log4j level.
type Level uint8

// Levels in increasing severity.
const (
	LevelUnknown Level = iota
	LevelTrace
	LevelDebug
	LevelInfo
	LevelWarn
	LevelError
	LevelFatal
)

var levelNames = [...]string{"", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}

func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return ""
}

// ParseLevel reads a level column, padded or not ("INFO", "WARN  ", "WARNING").
func ParseLevel(b []byte) Level {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "INFO":
		return LevelInfo
	case "WARN", "WARNING":
		return LevelWarn
	case "ERROR":
		return LevelError
	case "DEBUG":
		return LevelDebug
	case "TRACE":
		return LevelTrace
	case "FATAL":
		return LevelFatal
	}
	return LevelUnknown
}

// Component is the Ozone service that wrote a log.
type Component string

// Components ozdoctor knows.
const (
	ComponentUnknown  Component = ""
	ComponentSCM      Component = "scm"
	ComponentOM       Component = "om"
	ComponentDatanode Component = "datanode"
	ComponentRecon    Component = "recon"
	ComponentS3G      Component = "s3g"
)

// Kind is what sort of file a record came from.
type Kind string

// File kinds.
const (
	KindUnknown   Kind = ""
	KindLog       Kind = "log"       // application log (log4j)
	KindOut       Kind = "out"       // daemon stdout/stderr (.out)
	KindAudit     Kind = "audit"     // log4j2 audit log
	KindContainer Kind = "container" // datanode dn-container log
	KindProm      Kind = "prom"      // /prom snapshot
	KindConfig    Kind = "config"    // ozone-site.xml
)

// Origin says where a record was read.
type Origin struct {
	File   string // display path inside the bundle, e.g. "b.tgz!/scm1/ozone-hadoop-scm-scm1.log"
	Line   int    // 1-based line number of the record's first line
	Offset int64  // byte offset of the record's first line in the (decompressed) file
}

// Record is one log record: the header fields of its first line and the
// message with any continuation lines (stack traces, banners) folded in,
// joined by "\n".
type Record struct {
	Time      time.Time
	Level     Level
	Logger    string // as printed: full, %c{2} or %c{1} (with :line for L6)
	Thread    string
	Message   string
	Host      string
	Component Component
	Service   string // docker-compose service prefix, if the line had one
	Origin
}

// SimpleLogger returns the logger's class simple name: the last dot-separated
// component, without a trailing ":<line>" (layout L6).
func SimpleLogger[T string | []byte](logger T) T {
	if i := lastIndexByte(logger, '.'); i >= 0 {
		logger = logger[i+1:]
	}
	if i := lastIndexByte(logger, ':'); i >= 0 {
		logger = logger[:i]
	}
	return logger
}

func lastIndexByte[T string | []byte](s T, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}
