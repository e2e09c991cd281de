package catalogue

import (
	"fmt"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/prom"
)

// Facts that do not come from a log line but flow with the signals, so that
// every mode learns them from the stream in the same way.
const (
	// SiteSettings: the properties of an ozone-site.xml file. Untimed;
	// Attrs = the properties, Text = the file's label.
	SiteSettings Kind = "site_settings"
	// MetricSample: one sample of a /prom metric some detector reads
	// (detectors.Doc.Metrics), scraped or from a snapshot in a bundle.
	// Metric, Value; Attrs = its labels; Host = its hostname label (Hadoop
	// adds one to every metrics2 record), else the scraped service's host;
	// Time = when it was scraped (zero for a snapshot in a bundle);
	// Text = the sample as exposed.
	MetricSample Kind = "metric_sample"
)

// SampleSignal returns the MetricSample of s, read from host's component
// at the time at (zero if unknown) from origin (a URL or a file).
func SampleSignal(s prom.Sample, host string, comp parsers.Component, at time.Time, origin string) Signal {
	if h := s.Labels["hostname"]; h != "" {
		host = h
	}
	return Signal{Kind: MetricSample, Time: at, Host: host, Component: comp, Origin: parsers.Origin{File: origin},
		Text: s.String(), Metric: s.Name, Value: s.Value, Attrs: s.Labels}
}

// SyncKey names the cluster-wide event a signal reports when several hosts
// log the same event at nearly the same moment, or returns "". Such pairs
// let the pipeline estimate clock offsets between hosts: an OM Raft
// configuration entry appended (A1/L5: leader and followers log "set
// configuration" for the same index within milliseconds) or applied (A2:
// "notifyConfigurationChanged" for the same term and index).
func SyncKey(s *Signal) string {
	switch s.Kind {
	case OMRaftConfSet:
		return fmt.Sprintf("om-conf-appended/%s/%d", s.Group, s.Index)
	case OMConfChanged:
		return fmt.Sprintf("om-conf-applied/%d/%d", s.Term, s.Index)
	}
	return ""
}
