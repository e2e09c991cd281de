package report

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
	Files     Files              `json:"files"`
	Skipped   []bundle.Problem   `json:"skipped"`
	Detectors []DetectorCoverage `json:"detectors"`
	// Replaced names the built-in detectors an operator's signature of the
	// same id replaced (--signatures).
	Replaced []string      `json:"replaced,omitempty"`
	Settings []Setting     `json:"settings"`
	Offsets  []ClockOffset `json:"clock_offsets,omitempty"`
	// Versions are the Ozone versions the services' STARTUP_MSG banners
	// printed, by component.
	Versions []VersionCoverage `json:"versions,omitempty"`
	// State is the size of the retained state at the end of the run, with
	// what was evicted to keep it bounded.
	State []StateCoverage `json:"state,omitempty"`
	// Stream counts what the event-time ordering did.
	Stream StreamCoverage `json:"stream"`
}

// VersionCoverage is one Ozone version a component ran, and where.
type VersionCoverage struct {
	Component string   `json:"component"`
	Version   string   `json:"version"`
	Hosts     []string `json:"hosts"`
}

// StateCoverage is one bounded part of the run's retained state.
type StateCoverage struct {
	Owner   string `json:"owner"` // a detector, "engine" or "merger"
	Name    string `json:"name"`
	Entries int    `json:"entries"`
	Limit   int    `json:"limit,omitempty"`
	Evicted int64  `json:"evicted"`
}

// StreamCoverage counts what the merger and the engine did with the signals.
type StreamCoverage struct {
	Late int64 `json:"late"` // signals that arrived after their place in the order had passed
	// Overtaken counts the signals of files on disk older than a file
	// read before theirs (by more than the lateness): the bundle was then
	// read a second time, holding every signal to the end.
	Overtaken     int64 `json:"overtaken,omitempty"`
	Filtered      int64 `json:"filtered"`       // outside --since/--until
	Transitions   int64 `json:"transitions"`    // alert state changes
	AlertsExpired int64 `json:"alerts_expired"` // resolved alerts forgotten after the retention
	// Unattributed counts signals of streams whose component could not be
	// told, withheld from the detectors that need a specific component.
	Unattributed int64 `json:"unattributed,omitempty"`
	// Spilled counts signals that waited for their turn on disk (the
	// memory budget of a bundle run).
	Spilled    int64  `json:"spilled,omitempty"`
	SpillError string `json:"spill_error,omitempty"` // why spilling stopped: memory was not bounded
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
	Damaged   int64 `json:"damaged,omitempty"`
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
	Path      string `json:"path"`
	Host      string `json:"host"`
	Component string `json:"component"`
	Kind      string `json:"kind"`
	Layout    string `json:"layout,omitempty"`
	Bytes     int64  `json:"bytes"`
	Lines     int64  `json:"lines"`
	Records   int64  `json:"records"`
	Signals   int64  `json:"signals"`
	Unparsed  int64  `json:"unparsed"`
	Truncated int64  `json:"truncated"`
	Binary    int64  `json:"binary"`
	// Damaged lines look hand-edited (an impossible timestamp, an elided
	// "..."): counted in Unparsed too, never folded into a record.
	Damaged      int64 `json:"damaged,omitempty"`
	DamagedLines []int `json:"damaged_lines,omitempty"` // the first few
	// SilencesDropped are silences of an SCM log left out because more
	// than a thousand came between two records with signals: the
	// shortest went, the long ones a pause leaves were kept.
	SilencesDropped int64     `json:"silences_dropped,omitempty"`
	Samples         int64     `json:"samples,omitempty"`
	First           time.Time `json:"first"`
	Last            time.Time `json:"last"`
	Note            string    `json:"note,omitempty"`
	rank            int       // its file on disk in name order (bundle.File.Rank)
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

// ClockOffset is a host's estimated clock offset against the reference
// host, as the merger learned it from events several hosts logged.
type ClockOffset struct {
	Host      string        `json:"host"`
	Reference string        `json:"reference"`
	Offset    time.Duration `json:"offset_ns"`
	Pairs     int           `json:"pairs"` // paired events the estimate rests on
	Applied   bool          `json:"applied"`
}
