package analysis

import (
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/bundle"
)

// Coverage says what was read and what could not be analysed, so that a
// report with no findings can be told apart from a report on no data.
type Coverage struct {
	Inputs    []string           `json:"inputs"`
	TimeZone  string             `json:"time_zone"` // zone assumed for log timestamps without one
	HostZones map[string]string  `json:"host_zones,omitempty"`
	Since     *time.Time         `json:"since,omitempty"`
	Until     *time.Time         `json:"until,omitempty"`
	Start     time.Time          `json:"start"` // earliest record read
	End       time.Time          `json:"end"`   // latest record read
	Totals    Totals             `json:"totals"`
	Hosts     []HostCoverage     `json:"hosts"`
	Files     []FileCoverage     `json:"files"`
	Skipped   []bundle.Problem   `json:"skipped"`
	Detectors []DetectorCoverage `json:"detectors"`
	Settings  []Setting          `json:"settings"`
	Offsets   []ClockOffset      `json:"clock_offsets,omitempty"`
}

// Totals sums the files read.
type Totals struct {
	Files     int   `json:"files"`
	Bytes     int64 `json:"bytes"`
	Lines     int64 `json:"lines"`
	Records   int64 `json:"records"`
	Signals   int64 `json:"signals"`
	Unparsed  int64 `json:"unparsed"`
	Truncated int64 `json:"truncated"`
	Samples   int64 `json:"samples"`
}

// HostCoverage sums the files of one host.
type HostCoverage struct {
	Host       string    `json:"host"`
	Components []string  `json:"components"`
	Files      int       `json:"files"`
	Records    int64     `json:"records"`
	First      time.Time `json:"first"`
	Last       time.Time `json:"last"`
}

// FileCoverage is what was read from one file.
type FileCoverage struct {
	Path      string    `json:"path"`
	Host      string    `json:"host"`
	Component string    `json:"component"`
	Kind      string    `json:"kind"`
	Layout    string    `json:"layout,omitempty"`
	Bytes     int64     `json:"bytes"`
	Lines     int64     `json:"lines"`
	Records   int64     `json:"records"`
	Signals   int64     `json:"signals"`
	Unparsed  int64     `json:"unparsed"`
	Truncated int64     `json:"truncated"`
	Binary    int64     `json:"binary"`
	Samples   int64     `json:"samples,omitempty"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`
	Note      string    `json:"note,omitempty"`
}

// DetectorCoverage says whether a detector ran, and if not, why.
type DetectorCoverage struct {
	Name   string `json:"name"`
	Defect string `json:"defect"`
	Ran    bool   `json:"ran"`
	Reason string `json:"reason,omitempty"`
}

// Setting is one cluster setting the detectors judge against.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// ClockOffset is a host's estimated clock offset against the reference host.
type ClockOffset struct {
	Host      string        `json:"host"`
	Reference string        `json:"reference"`
	Offset    time.Duration `json:"offset_ns"`
	Pairs     int           `json:"pairs"` // paired events the estimate rests on
	Applied   bool          `json:"applied"`
}
