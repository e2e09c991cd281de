package catalogue

import (
	"regexp"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Process lifecycle signals, logged by every Ozone service.
const (
	// StartupMsg: the STARTUP_MSG banner. Attrs: service (e.g.
	// "OzoneManager"), hostname, ip, args, conf (when printed); Version.
	StartupMsg Kind = "startup"
	// ShutdownMsg: the SHUTDOWN_MSG banner. Attrs: service, hostname, ip.
	ShutdownMsg Kind = "shutdown"
	// SignalReceived: "RECEIVED SIGNAL 15: SIGTERM". Reason = signal name.
	SignalReceived Kind = "signal_received"
	// Terminating: a programmatic exit. Count = exit status, Reason = message.
	Terminating Kind = "terminating"
	// LogGap: a silence in one log stream, produced by the analysis from the
	// scanner's gap list rather than by an entry. Time = the first record
	// after the silence, Duration = its length, Origin = that record.
	LogGap Kind = "log_gap"
)

// ServiceComponent maps the class named in STARTUP_MSG/SHUTDOWN_MSG to a component.
func ServiceComponent(service string) parsers.Component {
	switch service {
	case "StorageContainerManager":
		return parsers.ComponentSCM
	case "OzoneManager":
		return parsers.ComponentOM
	case "HddsDatanodeService":
		return parsers.ComponentDatanode
	case "ReconServer":
		return parsers.ComponentRecon
	case "Gateway", "S3Gateway":
		return parsers.ComponentS3G
	}
	return parsers.ComponentUnknown
}

func processEntries() []Entry {
	return []Entry{
		{
			// HddsServerUtil.java:817-846 (STARTUP_MSG banner, shared/ozone C.3).
			Kind:     StartupMsg,
			Source:   "hadoop-hdds/framework/.../HddsServerUtil.java:794 (B37, C.3)",
			Literals: []string{"STARTUP_MSG:"},
			Pattern: regexp.MustCompile(`(?s)STARTUP_MSG: Starting (?P<service>\w+)` +
				`(?:.*?STARTUP_MSG:\s+host = (?P<hostname>[^/\n]*)/(?P<ip>[^\s\n]*))?` +
				`(?:.*?STARTUP_MSG:\s+version = (?P<version>[^\n]*))?` +
				`(?:.*?STARTUP_MSG:\s+args = \[(?P<args>[^\n]*)\])?` +
				`(?:.*?STARTUP_MSG:\s+conf = \{(?P<conf>[^\n]*)\})?`),
		},
		{
			// HddsServerUtil.java:805-808 (SHUTDOWN_MSG banner, C.3).
			Kind:     ShutdownMsg,
			Source:   "hadoop-hdds/framework/.../HddsServerUtil.java:805 (N19, C.3)",
			Literals: []string{"SHUTDOWN_MSG:"},
			Pattern:  regexp.MustCompile(`SHUTDOWN_MSG: Shutting down (?P<service>\w+) at (?P<hostname>[^/\s]*)(?:/(?P<ip>\S*))?`),
		},
		{
			// Hadoop SignalLogger: "RECEIVED SIGNAL {n}: SIG{name}" (C.4).
			Kind:     SignalReceived,
			Source:   "hadoop-common/.../util/SignalLogger.java (C.4)",
			Literals: []string{"RECEIVED SIGNAL "},
			Pattern:  regexp.MustCompile(`RECEIVED SIGNAL (?P<count>\d+): (?P<reason>SIG\w+)`),
		},
		{
			// Ratis ExitUtils.terminate (ExitUtils.java:129-131) and Hadoop
			// ExitUtil.terminate "Exiting with status {}: {}" (C.4, T07).
			Kind:     Terminating,
			Source:   "ratis-common/.../util/ExitUtils.java:129; hadoop ExitUtil (T07, C.4)",
			Literals: []string{"Terminating with exit status ", "Exiting with status "},
			Pattern:  regexp.MustCompile(`(?:Terminating with exit status|Exiting with status) (?P<count>-?\d+)(?:: (?P<reason>[^\n]*))?`),
		},
	}
}
