package catalogue

import (
	"regexp"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Process lifecycle signals, logged by every Ozone service.
const (
	// StartupMsg: the STARTUP_MSG banner. Attrs: service (e.g.
	// "OzoneManager"), hostname, ip, args, conf (when printed; 1.4.0+);
	// Version. The fields' order differs by release.
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

// GapText is the text of a LogGap signal for a silence from from to to:
// "no record for 1m30s (2026-08-01T10:00:00Z to 2026-08-01T10:01:30Z)". A
// log that is quiet most of the time has a silence per record, so it is
// built with one allocation beyond the duration's.
func GapText(from, to time.Time) string {
	var buf [96]byte
	b := append(buf[:0], "no record for "...)
	b = append(b, to.Sub(from).String()...)
	b = append(b, " ("...)
	b = from.AppendFormat(b, time.RFC3339)
	b = append(b, " to "...)
	b = to.AppendFormat(b, time.RFC3339)
	return string(append(b, ')'))
}

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
			// The STARTUP_MSG banner (shared/ozone C.3), built by
			// toStartupShutdownString. Its fields changed order across
			// releases, so Post reads them wherever they stand:
			//   A ozone-1.0.0..1.3.0  hadoop-hdds/common/.../hdds/StringUtils.java:139
			//     (1.0.0): host, args, version, classpath, build, java
			//   B ozone-1.4.0..2.0.0  StringUtils.java:160 (1.4.x),
			//     framework/.../utils/HddsServerUtil.java:731 (2.0.0): A + conf
			//   C ozone-2.1.0..master HddsServerUtil.java:722 (2.1.0), :825
			//     (2.2.0), :837 (master): host, version, build, java, args,
			//     classpath, conf, names right-aligned.
			// host is "<hostname>/<ip>" (NetUtils.getHostname) in every form.
			Kind:     StartupMsg,
			Source:   "hadoop-hdds/framework/.../HddsServerUtil.java:837 (B37, C.3); ≤1.4 hadoop-hdds/common/.../StringUtils.java:139",
			Literals: []string{"STARTUP_MSG:"},
			Pattern:  regexp.MustCompile(`(?s)STARTUP_MSG: Starting (?P<service>\w+)(?P<_banner>.*)`),
			Post:     startupFields,
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

// startupFields reads host, version, args and conf from the banner lines
// "STARTUP_MSG:   <name> = <value>" in whatever order the release printed
// them, and drops the raw banner.
func startupFields(s *Signal, m Groups) bool {
	for line := range strings.Lines(m.Get("_banner")) {
		rest, ok := strings.CutPrefix(line, "STARTUP_MSG:")
		if !ok {
			continue
		}
		name, value, ok := strings.Cut(strings.TrimSpace(rest), " = ")
		if !ok {
			continue
		}
		value = strings.TrimRight(value, "\r\n")
		switch name {
		case "host":
			if host, ip, ok := strings.Cut(value, "/"); ok {
				if host != "" {
					s.Attrs = setAttr(s.Attrs, "hostname", host)
				}
				if ip = strings.TrimSpace(ip); ip != "" {
					s.Attrs = setAttr(s.Attrs, "ip", ip)
				}
			}
		case "version":
			s.Version = value
		case "args", "conf": // "[a, b]", "{k=v, ...}"; a cut line may lack its closing bracket
			v := strings.TrimSpace(value)
			v = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(v, "["), "{"), "]"), "}")
			if v != "" {
				s.Attrs = setAttr(s.Attrs, name, v)
			}
		}
	}
	return true
}
