package scenario

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Layout names accepted by Render (shared/ozone/layouts.md §3).
const (
	LayoutFile    = "L1"         // %d{ISO8601} [%t] %p %c: %m%n — tarball RFA file appender (default)
	LayoutConsole = "L2"         // %d{ISO8601} [%t] %p %c{2}: %m%n — console, written per host
	LayoutCompose = "L2-compose" // L2 behind docker-compose v1 prefixes, all hosts in one file
	LayoutCDP     = "L3"         // %d{ISO8601} %p %c: %m%n — Cloudera Manager, no thread
	LayoutHelm    = "L4"         // %d{ISO8601} [%t] %-5p %c{2} (%F:%M(%L)) - %m%n — tests, helm charts
	LayoutIDE     = "L5"         // %d{ISO8601} %-5p %c{2} (%F:%M(%L)) - %m%n — IDE runs, no thread
	LayoutK8s     = "L6"         // %d{yyyy-MM-dd HH:mm:ss} %-5p %c{1}:%L - %m%n — k8s, no millis
)

// Layouts returns every layout name Render accepts.
func Layouts() []string {
	return []string{LayoutFile, LayoutConsole, LayoutCompose, LayoutCDP, LayoutHelm, LayoutIDE, LayoutK8s}
}

// ComposeFile is the name of the one file LayoutCompose writes for all hosts.
const ComposeFile = "docker-compose.log"

// Render says how Scenario.Render writes a bundle.
type Render struct {
	Layout string                   // one of Layouts(); "" is LayoutFile
	Noise  int                      // background events per host per minute, 0 for none (see Scenario.Noise)
	Skew   map[string]time.Duration // clock offset added to a host's timestamps, keyed by short host ("dn2") or FQDN
	Rotate bool                     // split each host's main log into the current file and two older rotations
	Gzip   bool                     // rotations are gzip files "<file>-<i>.gz" (RFA) instead of "<file>.<i>"
	CRLF   bool                     // end log lines with "\r\n"
	Zone   *time.Location           // zone of rendered timestamps; nil is UTC
}

// Render writes the scenario's lines under dir as a support bundle, one
// directory per host (short name):
//
//	<short>/ozone-hadoop-<scm|om|datanode>-<host>.log   application log in r.Layout
//	<short>/ozone-hadoop-<role>-<host>.out              KindOut lines, raw
//	<short>/<scm|om|dn>-audit-<host>.log                KindAudit lines (L7); "om-sys-audit" for OMSystemAudit
//	<short>/dn-container-<host>.log                     KindContainer lines (L8)
//	<first SCM short>/ozone-site.xml                    when s.Site is set
//
// <host> is the node's FQDN. KindQuiet lines are not written.
// With LayoutCompose every host's KindLog lines go to dir/docker-compose.log
// instead, interleaved by rendered time, each physical line behind the
// host's docker-compose v1 service prefix. Rotation applies to the per-host
// main logs only.
//
// When r.Noise > 0, background lines are rendered too. They come from a
// generator seeded from the cluster and the scenario window, so the scenario
// is not changed and rendering twice gives the same bytes; call
// Scenario.Noise instead to make the background part of the scenario.
func (s *Scenario) Render(dir string, r Render) error {
	if r.Layout == "" {
		r.Layout = LayoutFile
	}
	if !validLayout(r.Layout) {
		return fmt.Errorf("render scenario: unknown layout %q (want one of %s)", r.Layout, strings.Join(Layouts(), ", "))
	}
	if r.Zone == nil {
		r.Zone = time.UTC
	}
	lines := s.lines
	if r.Noise > 0 {
		lines = append(lines[:len(lines):len(lines)], s.noise(rand.New(rand.NewSource(s.noiseSeed(r.Noise))), r.Noise)...)
	}
	lines = sortLines(lines) // as Lines("") orders them
	nodes := s.Cluster.Nodes()
	hosts := hostIndex(nodes)
	byHost := map[string][]Line{}
	for _, l := range lines {
		if l.File == KindQuiet {
			continue
		}
		n, ok := hosts[l.Host]
		if !ok {
			return fmt.Errorf("render scenario: line at %s names unknown host %q", l.At.Format(time.RFC3339), l.Host)
		}
		byHost[n.Host] = append(byHost[n.Host], l)
	}
	w := bundleWriter{eol: "\n"}
	if r.CRLF {
		w.eol = "\r\n"
	}
	var compose []composeRecord
	for i, n := range nodes {
		hostDir := filepath.Join(dir, n.Short())
		skew, ok := r.Skew[n.Short()]
		if !ok {
			skew = r.Skew[n.Host]
		}
		var main, out, container [][]string
		audit := map[string][][]string{}
		for _, l := range byHost[n.Host] {
			at := l.At.Add(skew).In(r.Zone)
			switch l.File {
			case parsers.KindOut:
				out = append(out, strings.Split(l.Msg, "\n"))
			case parsers.KindAudit:
				name := auditFile(n, l.Logger)
				audit[name] = append(audit[name], pipeRecord(at, l, auditLogger(n, l.Logger)))
			case parsers.KindContainer:
				container = append(container, pipeRecord(at, l, ""))
			default:
				layout := r.Layout
				if layout == LayoutCompose {
					layout = LayoutConsole
				}
				rec := logRecord(layout, at, l)
				if r.Layout == LayoutCompose {
					compose = append(compose, composeRecord{at: at, node: i, lines: rec})
					continue
				}
				main = append(main, rec)
			}
		}
		base := "ozone-hadoop-" + roleName(n.Component) + "-" + n.Host
		if r.Layout != LayoutCompose {
			if err := w.writeMain(filepath.Join(hostDir, base+".log"), main, r.Rotate, r.Gzip); err != nil {
				return err
			}
		}
		if len(out) > 0 {
			if err := w.write(filepath.Join(hostDir, base+".out"), out); err != nil {
				return err
			}
		}
		names := make([]string, 0, len(audit))
		for name := range audit {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := w.write(filepath.Join(hostDir, name), audit[name]); err != nil {
				return err
			}
		}
		if len(container) > 0 {
			if err := w.write(filepath.Join(hostDir, "dn-container-"+n.Host+".log"), container); err != nil {
				return err
			}
		}
	}
	if r.Layout == LayoutCompose {
		if err := w.write(filepath.Join(dir, ComposeFile), composeLines(s.Cluster, compose)); err != nil {
			return err
		}
	}
	if s.Site != nil && len(s.Cluster.SCMs) > 0 {
		if err := w.writeBytes(filepath.Join(dir, s.Cluster.SCMs[0].Short(), "ozone-site.xml"), siteXML(s.Site)); err != nil {
			return err
		}
	}
	return nil
}

// hostIndex maps every node's FQDN and short name to the node.
func hostIndex(nodes []Node) map[string]Node {
	m := make(map[string]Node, 2*len(nodes))
	for _, n := range nodes {
		m[n.Short()] = n
	}
	for _, n := range nodes {
		m[n.Host] = n
	}
	return m
}

// sortLines orders lines by event time, stable, moving indexes rather than
// the large Line values while sorting.
func sortLines(lines []Line) []Line {
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return lines[idx[a]].At.Before(lines[idx[b]].At) })
	out := make([]Line, len(lines))
	for i, k := range idx {
		out[i] = lines[k]
	}
	return out
}

func validLayout(name string) bool {
	for _, l := range Layouts() {
		if l == name {
			return true
		}
	}
	return false
}

// roleName is the subcommand in Ozone's daemon file names (ozone-functions.sh:2748-2767).
func roleName(c parsers.Component) string {
	if c == "" {
		return "unknown"
	}
	return string(c)
}

// auditFile names the log4j2 audit file of a node (signatures-scm.md §4.2).
func auditFile(n Node, logger string) string {
	switch {
	case simpleName(logger) == "OMSystemAudit":
		return "om-sys-audit-" + n.Host + ".log"
	case n.Component == parsers.ComponentSCM:
		return "scm-audit-" + n.Host + ".log"
	case n.Component == parsers.ComponentOM:
		return "om-audit-" + n.Host + ".log"
	case n.Component == parsers.ComponentDatanode:
		return "dn-audit-" + n.Host + ".log"
	}
	return string(n.Component) + "-audit-" + n.Host + ".log"
}

// auditLogger is the audit logger of a node when the line names none.
func auditLogger(n Node, logger string) string {
	if logger != "" {
		return simpleName(logger)
	}
	switch n.Component {
	case parsers.ComponentSCM:
		return "SCMAudit"
	case parsers.ComponentOM:
		return "OMAudit"
	case parsers.ComponentDatanode:
		return "DNAudit"
	}
	return "Audit"
}

// Timestamp formats: %d{ISO8601} and log4j2 %d{DEFAULT} print
// "yyyy-MM-dd HH:mm:ss,SSS"; L6 prints no millis (layouts.md §3).
const (
	stampISO8601 = "2006-01-02 15:04:05,000"
	stampNoMilli = "2006-01-02 15:04:05"
)

// logRecord renders one application-log record in a layout, as physical
// lines without line ends. Continuation lines of the message follow as they
// are (%m%n).
func logRecord(layout string, at time.Time, l Line) []string {
	msg := strings.Split(l.Msg, "\n")
	level := levelName(l.Level)
	thread := l.Thread
	if thread == "" {
		thread = "main"
	}
	var b strings.Builder
	switch layout {
	case LayoutFile: // %d{ISO8601} [%t] %p %c: %m%n
		b.WriteString(at.Format(stampISO8601) + " [" + thread + "] " + level + " " + l.Logger + ": ")
	case LayoutConsole: // %d{ISO8601} [%t] %p %c{2}: %m%n
		b.WriteString(at.Format(stampISO8601) + " [" + thread + "] " + level + " " + abbreviate(l.Logger, 2) + ": ")
	case LayoutCDP: // %d{ISO8601} %p %c: %m%n
		b.WriteString(at.Format(stampISO8601) + " " + level + " " + l.Logger + ": ")
	case LayoutHelm: // %d{ISO8601} [%t] %-5p %c{2} (%F:%M(%L)) - %m%n
		file, line := sourceOf(l)
		b.WriteString(at.Format(stampISO8601) + " [" + thread + "] " + fmt.Sprintf("%-5s", level) + " " +
			abbreviate(l.Logger, 2) + " (" + file + ":" + sourceMethod + "(" + line + ")) - ")
	case LayoutIDE: // %d{ISO8601} %-5p %c{2} (%F:%M(%L)) - %m%n
		file, line := sourceOf(l)
		b.WriteString(at.Format(stampISO8601) + " " + fmt.Sprintf("%-5s", level) + " " +
			abbreviate(l.Logger, 2) + " (" + file + ":" + sourceMethod + "(" + line + ")) - ")
	case LayoutK8s: // %d{yyyy-MM-dd HH:mm:ss} %-5p %c{1}:%L - %m%n
		_, line := sourceOf(l)
		b.WriteString(at.Format(stampNoMilli) + " " + fmt.Sprintf("%-5s", level) + " " +
			abbreviate(l.Logger, 1) + ":" + line + " - ")
	}
	b.WriteString(msg[0])
	msg[0] = b.String()
	return msg
}

// sourceMethod is what %M prints: Line carries no method name, so a neutral
// one stands in.
const sourceMethod = "log"

// pipeRecord renders an audit (L7, when logger is set) or dn-container (L8)
// record: "%d{DEFAULT} | %-5level | [%c{1} | ]%msg | %throwable{3} %n". The
// message's continuation lines, if any, are the throwable.
func pipeRecord(at time.Time, l Line, logger string) []string {
	msg, throwable, _ := strings.Cut(l.Msg, "\n")
	var b strings.Builder
	b.WriteString(at.Format(stampISO8601) + " | " + fmt.Sprintf("%-5s", levelName(l.Level)) + " | ")
	if logger != "" {
		b.WriteString(logger + " | ")
	}
	b.WriteString(msg + " | " + throwable + " ")
	return strings.Split(b.String(), "\n")
}

func levelName(l parsers.Level) string {
	if l == parsers.LevelUnknown {
		return parsers.LevelInfo.String()
	}
	return l.String()
}

// abbreviate keeps the last n dot-separated components of a logger name, as
// log4j's %c{n} does: "org.apache.ratis.server.RaftServer$Division" with 2
// is "server.RaftServer$Division".
func abbreviate(logger string, n int) string {
	i := len(logger)
	for ; n > 0; n-- {
		j := strings.LastIndexByte(logger[:i], '.')
		if j < 0 {
			return logger
		}
		i = j
	}
	return logger[i+1:]
}

// simpleName is %c{1}.
func simpleName(logger string) string { return abbreviate(logger, 1) }

// sourceOf returns the %F and %L of a line: from Line.Source
// ("RaftServerImpl.java:393" or a path ending so), else the logger's simple
// class name (without any inner-class part) + ".java" and line 0.
func sourceOf(l Line) (file, line string) {
	if l.Source != "" {
		file, line = l.Source, "0"
		if i := strings.LastIndexByte(l.Source, ':'); i >= 0 {
			if _, err := strconv.Atoi(l.Source[i+1:]); err == nil {
				file, line = l.Source[:i], l.Source[i+1:]
			}
		}
		return path.Base(file), line
	}
	class := simpleName(l.Logger)
	if i := strings.IndexByte(class, '$'); i >= 0 {
		class = class[:i]
	}
	return class + ".java", "0"
}

// composeRecord is one record of LayoutCompose before interleaving.
type composeRecord struct {
	at    time.Time
	node  int // index in Cluster.Nodes()
	lines []string
}

// composeService is a node's docker-compose v1 container name: "scm_1",
// "om_1" for single services, "scm2_1", "om1_1" for numbered HA services,
// and "datanode_3" for the scaled datanode service.
func composeService(c Cluster, n Node) string {
	number := func(list []Node) int {
		for i, m := range list {
			if m.Host == n.Host {
				return i + 1
			}
		}
		return 0
	}
	switch n.Component {
	case parsers.ComponentSCM:
		if len(c.SCMs) == 1 {
			return "scm_1"
		}
		return fmt.Sprintf("scm%d_1", number(c.SCMs))
	case parsers.ComponentOM:
		if len(c.OMs) == 1 {
			return "om_1"
		}
		return fmt.Sprintf("om%d_1", number(c.OMs))
	case parsers.ComponentDatanode:
		return fmt.Sprintf("datanode_%d", number(c.Datanodes))
	}
	return n.Short() + "_1"
}

// composeLines interleaves the records of every host by rendered time and
// puts the service prefix, padded to the widest service name as
// docker-compose v1 does ("scm_1       | "), before each physical line.
func composeLines(c Cluster, recs []composeRecord) [][]string {
	nodes := c.Nodes()
	prefix := make([]string, len(nodes))
	width := 0
	for i, n := range nodes {
		prefix[i] = composeService(c, n)
		width = max(width, len(prefix[i]))
	}
	for i := range prefix {
		prefix[i] = fmt.Sprintf("%-*s | ", width, prefix[i])
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].at.Before(recs[j].at) })
	out := make([][]string, len(recs))
	for i, r := range recs {
		lines := make([]string, len(r.lines))
		for k, l := range r.lines {
			lines[k] = prefix[r.node] + l
		}
		out[i] = lines
	}
	return out
}

// bundleWriter writes files of records (each record one or more physical
// lines) with a fixed line end.
type bundleWriter struct{ eol string }

func (w bundleWriter) content(recs [][]string) []byte {
	size := 0
	for _, r := range recs {
		size += recordSize(r) + len(r)*len(w.eol)
	}
	var b bytes.Buffer
	b.Grow(size)
	for _, r := range recs {
		for _, l := range r {
			b.WriteString(l)
			b.WriteString(w.eol)
		}
	}
	return b.Bytes()
}

func (w bundleWriter) write(name string, recs [][]string) error {
	return w.writeBytes(name, w.content(recs))
}

func (w bundleWriter) writeBytes(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("render scenario: %w", err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return fmt.Errorf("render scenario: %w", err)
	}
	return nil
}

// rotations is how many older files Rotate leaves beside the current one.
const rotations = 2

// writeMain writes a host's application log, split when rotate is set into
// the current file and older rotations — "<file>.1", "<file>.2" (Hadoop
// style) or, with gz, "<file>-1.gz", "<file>-2.gz" (the RFA appender's
// FixedWindowRollingPolicy, log4j.properties:54-62) — the oldest records in
// the highest number. Splits fall between records, never inside one.
func (w bundleWriter) writeMain(name string, recs [][]string, rotate, gz bool) error {
	parts := [][][]string{recs}
	if rotate {
		parts = splitRecords(recs, rotations+1)
	}
	last := len(parts) - 1
	for i, part := range parts {
		index := last - i // 0 is the current file
		if index == 0 {
			if err := w.write(name, part); err != nil {
				return err
			}
			continue
		}
		if !gz {
			if err := w.write(name+"."+strconv.Itoa(index), part); err != nil {
				return err
			}
			continue
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b) // zero header time and name: the output is deterministic
		if _, err := zw.Write(w.content(part)); err != nil {
			return fmt.Errorf("render scenario: gzip %s: %w", name, err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("render scenario: gzip %s: %w", name, err)
		}
		if err := w.writeBytes(name+"-"+strconv.Itoa(index)+".gz", b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// splitRecords cuts recs into at most n consecutive non-empty parts of
// roughly equal size in bytes, oldest first.
func splitRecords(recs [][]string, n int) [][][]string {
	n = min(n, len(recs))
	if n <= 1 {
		return [][][]string{recs}
	}
	total := 0
	for _, r := range recs {
		total += recordSize(r)
	}
	var parts [][][]string
	start, acc := 0, 0
	for i, r := range recs {
		acc += recordSize(r)
		cuts := len(parts)
		if cuts == n-1 {
			break
		}
		later := len(recs) - i - 1 // records after this one
		needed := n - 1 - cuts     // parts still to fill after this cut
		if acc*n >= total*(cuts+1) || later == needed {
			parts = append(parts, recs[start:i+1])
			start = i + 1
		}
	}
	return append(parts, recs[start:])
}

func recordSize(r []string) int {
	n := 0
	for _, l := range r {
		n += len(l) + 1
	}
	return n
}

// siteXML renders properties as a Hadoop configuration file, keys sorted.
func siteXML(props map[string]string) []byte {
	keys := slices.Sorted(maps.Keys(props))
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	b.WriteString("<?xml-stylesheet type=\"text/xsl\" href=\"configuration.xsl\"?>\n")
	b.WriteString("<configuration>\n")
	for _, k := range keys {
		b.WriteString("  <property>\n    <name>")
		_ = xml.EscapeText(&b, []byte(k)) // a bytes.Buffer write does not fail
		b.WriteString("</name>\n    <value>")
		_ = xml.EscapeText(&b, []byte(props[k]))
		b.WriteString("</value>\n  </property>\n")
	}
	b.WriteString("</configuration>\n")
	return b.Bytes()
}

// noiseSeed derives the seed of Render's background lines from what
// identifies the scenario: its hosts and IDs, its window and the rate.
func (s *Scenario) noiseSeed(rate int) int64 {
	h := fnv.New64a()
	for _, n := range s.Cluster.Nodes() {
		fmt.Fprintf(h, "%s|%s|%s|%s|%s;", n.Host, n.IP, n.Component, n.UUID, n.ID)
	}
	fmt.Fprintf(h, "%s|%s|%d|%d|%d", s.Cluster.Version, s.Cluster.OMGroup, s.Start.UnixNano(), s.End.UnixNano(), rate)
	return int64(h.Sum64())
}
