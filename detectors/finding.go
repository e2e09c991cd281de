package detectors

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Severity of a finding.
type Severity int

// Severities in increasing order.
const (
	Info Severity = iota + 1
	Warning
	Critical
)

var severityNames = map[Severity]string{Info: "info", Warning: "warning", Critical: "critical"}

func (s Severity) String() string { return severityNames[s] }

// ParseSeverity reads "info", "warning" or "critical".
func ParseSeverity(v string) (Severity, error) {
	for s, n := range severityNames {
		if strings.EqualFold(v, n) {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want info, warning or critical)", v)
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the severity's name; "" is the zero severity (none
// decided yet), as MarshalText writes it.
func (s *Severity) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = 0
		return nil
	}
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Confidence says how much of a defect's signature was seen.
type Confidence string

// Confidences.
const (
	Low    Confidence = "low"
	Medium Confidence = "medium"
	High   Confidence = "high"
)

// State is where a finding stands in its life: pending (part of the
// signature seen, its confirmation not yet due), firing, or resolved.
type State string

// States.
const (
	Pending  State = "pending"  // seen in part; the detector decides when its deadline passes
	Firing   State = "firing"   // ongoing (at the end of the input, for a report)
	Resolved State = "resolved" // recovered at End
)

// Evidence is one log record that supports a finding.
type Evidence struct {
	File      string    `json:"file"`
	Line      int       `json:"line"`
	Host      string    `json:"host"`
	Component string    `json:"component"`
	Time      time.Time `json:"time"`
	Text      string    `json:"text"`
}

// EvidenceOf turns a signal into evidence.
func EvidenceOf(s *catalogue.Signal) Evidence {
	return Evidence{File: s.Origin.File, Line: s.Origin.Line, Host: s.Host,
		Component: string(s.Component), Time: s.Time, Text: s.Text}
}

// Entities are what a finding is about.
type Entities struct {
	Hosts      []string             `json:"hosts,omitempty"`
	Datanodes  []catalogue.Datanode `json:"datanodes,omitempty"`
	Containers []uint64             `json:"containers,omitempty"`
	Pipelines  []string             `json:"pipelines,omitempty"`
	RaftGroups []string             `json:"raft_groups,omitempty"`
	OMNodes    []string             `json:"om_nodes,omitempty"`
}

// Finding is one recognised defect occurrence with its evidence and the
// remediation steps filled with the entities found.
type Finding struct {
	Detector    string            `json:"detector"`
	Defect      string            `json:"defect"`
	Key         string            `json:"key"` // identity within the detector; a later finding with the same key replaces the earlier
	Severity    Severity          `json:"severity"`
	Confidence  Confidence        `json:"confidence"`
	Title       string            `json:"title"`
	Summary     string            `json:"summary"`
	Entities    Entities          `json:"entities"`
	Start       time.Time         `json:"start"`
	End         time.Time         `json:"end"`
	State       State             `json:"state"`
	Facts       map[string]string `json:"facts,omitempty"` // thresholds used and their source, versions, counts
	Evidence    []Evidence        `json:"evidence"`
	Remediation []string          `json:"remediation"`
}

// stub returns what orders, selects and moves f through its states
// (detector, key, start, state, severity), without its content: what the
// engine and a spilling collector keep of a finding whose content is kept
// elsewhere.
func (f *Finding) stub() Finding {
	return Finding{Detector: f.Detector, Key: f.Key, Start: f.Start, State: f.State, Severity: f.Severity}
}

// MaxEvidence bounds the evidence a finding carries; detectors keep the first
// and the most recent lines and count the rest in Facts.
const MaxEvidence = 40

// String is a one-line rendering for logs and test failures.
func (f Finding) String() string {
	b, _ := json.Marshal(struct {
		D, K, S, C string
	}{f.Defect, f.Key, f.Severity.String(), string(f.Confidence)})
	return string(b)
}
