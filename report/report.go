// Package report holds what one analysis produced, as every report format
// reads it: the findings in their final state and the coverage, what was
// read and what could not be analysed. The pipeline fills it; the sinks
// write it.
package report

import "github.com/ozdoctor/ozdoctor/detectors"

// Result is the outcome of an analysis.
type Result struct {
	// Cluster names the Ozone cluster when the source held several (an
	// Elasticsearch index read per cluster).
	Cluster  string                `json:"cluster,omitempty"`
	Findings detectors.FindingList `json:"findings"`
	Coverage Coverage              `json:"coverage"`
}
