package parsers

import "time"

// Document is one log event as a log shipper stored it in a search engine:
// one line, or one record whose continuation lines the shipper folded into it
// (its multiline settings). Message is the raw text of the line(s), layout
// and all, as in the file.
type Document struct {
	Time    time.Time // the shipper's event time (used for ordering only)
	Host    string
	Path    string // the file the shipper read
	Offset  int64  // byte offset of the event in that file, -1 if unknown
	Message string
}

// Silence is a span in which a host's file logged nothing, as a search
// engine's document counts show it.
type Silence struct {
	Host, Path string
	From, To   time.Time
}
