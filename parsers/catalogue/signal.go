// Package catalogue is the Ozone message catalogue: each Entry recognises one
// Ozone or Ratis log message (every wording it has had across versions),
// names the source it mirrors, and turns a matching record into a typed
// Signal. Matching is literal-prefiltered: one pass of a Wu-Manber filter
// over a record's first line finds the candidate entries, and only those
// run their pattern, through a matcher that gives its regular expression's
// submatches without it (the expression answers what the matcher leaves).
package catalogue

import (
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Kind names a signal: one fact that one catalogue entry recognises.
type Kind string

// Datanode identifies a datanode as Ozone prints DatanodeDetails:
// "<uuid>(<host>/<ip>)"; any part may be empty when the message lacks it.
type Datanode struct {
	UUID string `json:"uuid,omitempty"`
	Host string `json:"host,omitempty"`
	IP   string `json:"ip,omitempty"`
}

// IsZero reports whether nothing is known about the datanode.
func (d Datanode) IsZero() bool { return d.UUID == "" && d.Host == "" && d.IP == "" }

// Signal is a typed fact recognised from one record. Only the fields its
// Kind documents are set.
type Signal struct {
	Kind      Kind
	Time      time.Time // zero for untimed lines (e.g. stderr in .out files)
	Host      string    // host that logged the record
	Component parsers.Component
	Level     parsers.Level
	Thread    string
	Origin    parsers.Origin
	Text      string // the record's first line as logged (message only)

	Datanode  Datanode
	Container uint64   // container ID (#N)
	Pipeline  string   // pipeline UUID, lower case, without "Pipeline-"
	Pipelines []string // pipeline UUIDs
	Group     string   // Raft group ID, "group-XXXXXXXXXXXX"
	Peer      string   // Raft peer ID (datanode UUID or OM node ID)
	OMNode    string   // OM node ID
	Peers     []string // Raft peer IDs of a configuration
	OldPeers  []string // Raft peer IDs of the old half of a transitional configuration
	Duration  time.Duration
	Count     int64
	Index     int64 // Raft log index
	Term      int64
	BCSID     int64
	MaxBCSID  int64
	State     string // lifecycle, replica or role state as printed
	Reason    string
	Version   string // the subject's (software) version
	Version2  string // the other side's version (e.g. SCM's, or apparent version)
	Apparent  string // the subject's apparent version, where a message names both
	Apparent2 string // the other side's apparent version, likewise
	NonEmpty  bool
	Force     bool
	Attrs     map[string]string // rare extras, named by the entry
	Metric    string            // a MetricSample's metric name
	Value     float64           // a MetricSample's value
}
