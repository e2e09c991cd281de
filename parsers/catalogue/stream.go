package catalogue

import "fmt"

// Facts that do not come from a log line but flow with the signals, so that
// every mode learns them from the stream in the same way.
const (
	// SiteSettings: the properties of an ozone-site.xml file. Untimed;
	// Attrs = the properties, Text = the file's label.
	SiteSettings Kind = "site_settings"
)

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
