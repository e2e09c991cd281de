package bundle

import (
	"net"
	"regexp"
	"strings"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Classify says which host and component wrote a file and what kind of file
// it is, from its base name first, then from its directories, nearest first.
// Path may be a display path of Walk ("b.tgz!/scm1/x.log"): archive names
// count as directories, without their extensions.
//
// Names follow Ozone's own (ozone-functions.sh, the *-log4j2.properties):
//
//	ozone-<user>-<role>-<host>.log[.N|.yyyy-MM-dd|-N.gz|.gz]   log
//	ozone-<user>-<role>-<host>.out[.N]                        out
//	ozone-<secureuser>-<ident>-<role>-<host>.log              log (secure daemons)
//	scm-audit-, om-audit-, om-sys-audit-, dn-audit-, s3g-audit-<host>.log
//	                                                          audit
//	dn-container-<host>.log                                   container
//	<name>-<host>-yyyy-MM-dd-<i>.log.gz                       rolled log4j2 files
//	hadoop-<user>-<role>-<host>.log / .out[.N]                log / out (Ozone ≤0.5 scripts)
//	ozone-site.xml                                            config
//	*.prom, prom*.txt, *-prom.txt, metrics*.txt               prom
//
// with role one of scm, om, datanode, recon, s3g. Other collections:
//
//	<prefix>-cmf-<service>-<ROLE>-<host>.log.out[.N]          log (Cloudera Manager role log; prefix hadoop, ozone, ...)
//	<n>-<service>-<ROLE>/logs/stdout.log, stderr.log          out (Cloudera Manager process dir)
//	/var/log/pods/<ns>_<pod>_<uid>/<container>/N.log[.<yyyyMMdd-HHmmss>[.gz]]
//	                                                          log (Kubernetes CRI, host = pod)
//	/var/log/containers/<pod>_<ns>_<container>-<id>.log       log (kubelet's links to the above)
//	<ns>/<pod>/logs.txt                                       log (kubectl cluster-info dump)
//	<pod>.log                                                 log (kubectl logs <pod> > <pod>.log)
//
// with ROLE one of OZONE_MANAGER, STORAGE_CONTAINER_MANAGER, OZONE_DATANODE,
// OZONE_RECON, S3_GATEWAY (also accepted with the OZONE_ prefix Ambari's
// role names carry) and pods named as Ozone's Kubernetes examples
// (hadoop-ozone/dist/src/main/k8s: statefulsets scm, om, datanode, s3g, recon
// → "scm-0", "datanode-2") and the apache/ozone-helm-charts chart
// ("<release>-scm-0", "<release>-datanode-2", Deployment pods
// "<release>-recon-<hash>-<id>") name them. Other *.log files are of kind
// log; their component and host come from a name or directory such as
// "scm", "om1", "datanode-3", "dn2.example.com" or a host name.
func Classify(p string) (host string, comp parsers.Component, kind parsers.Kind) {
	segs := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	if len(segs) == 0 {
		return "", "", ""
	}
	name := segs[len(segs)-1]
	if strings.HasSuffix(name, "!") { // an archive itself
		return "", "", ""
	}
	host, comp, kind = classifyName(name)
	dirs := segs[:len(segs)-1]
	for i := len(dirs) - 1; i >= 0 && (host == "" || comp == ""); i-- {
		parent := ""
		if i > 0 {
			parent = dirWord(dirs[i-1])
		}
		h, c := dirInfo(dirWord(dirs[i]), parent)
		if comp != "" && c != "" && c != comp {
			continue // a directory of another component: trust neither its host nor its component
		}
		if host == "" {
			host = h
		}
		if comp == "" {
			comp = c
		}
	}
	return host, comp, kind
}

var (
	// <stem>.<log|out|err> with an optional rotation suffix: .N, -N (RFA's
	// <file>-<i>.gz), .yyyy-MM-dd[-HH[-mm]] (DRFA).
	// The kubelet rotates N.log to N.log.<yyyyMMdd-HHmmss>.
	logExtRe = regexp.MustCompile(`(?i)^(.+)\.(log|out|err)(?:[.-](?:\d{1,4}|\d{4}-\d{2}-\d{2}(?:[-_.T]\d{2}(?:[-:.]?\d{2})?)?|\d{8}-\d{6}))?$`)
	// log4j2 rolled names: <name>-<host>-yyyy-MM-dd-<i>.
	rolledRe = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}(?:-\d+)?$`)
	// ozone-<user>-<role>-<host>; secure: ozone-<secureuser>-<ident>-<role>-<host>;
	// jsvc: ozone-privileged-<ident>-<role>-<host>. The first role word wins,
	// so host names may contain role words ("ozone-hadoop-om-om-1").
	// Ozone up to 0.5.0-beta wrote hadoop-<user>-<role>-<host>
	// (hadoop-functions.sh:2687,2698 @ozone-0.5.0-beta), ozone- since 1.0.0.
	daemonRe = regexp.MustCompile(`(?i)^(?:ozone|hadoop)-(.+?)-(scm|om|datanode|recon|s3g)-(.+)$`)
	// Cloudera Manager role logs: <prefix>-cmf-<service>-<ROLE>-<host>.log.out,
	// the prefix being the service's ("hadoop", "ozone", ...).
	cmfRe = regexp.MustCompile(`^[A-Za-z0-9_.]+-cmf-(.+?)-(` + cmRoles + `)-(.+)$`)
	// any Cloudera Manager role log: <prefix>-cmf-<service>-<ROLE>-<host>
	cmfAnyRe = regexp.MustCompile(`^[A-Za-z0-9_.]+-cmf-.+?-[A-Z][A-Z0-9_]+-([^A-Z].*)$`)
	// Cloudera Manager process directories: <n>-<service>-<ROLE>.
	cmProcRe = regexp.MustCompile(`^\d+-(.+)-(` + cmRoles + `)$`)
	// Kubernetes pods of a StatefulSet ("[<release>-]scm-0") or a Deployment
	// ("[<release>-]recon-7d9f8c6b5-x2k4q").
	podRe = regexp.MustCompile(`^(?:[a-z0-9]+(?:-[a-z0-9]+)*-)?(scm|om|datanode|recon|s3g)-(?:\d+|[a-z0-9]{6,10}-[a-z0-9]{5})$`)
	// /var/log/pods/<namespace>_<pod>_<uid>
	podDirRe = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?_([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	// /var/log/containers/<pod>_<namespace>_<container>-<container id>.log
	podLinkRe = regexp.MustCompile(`^([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)_[a-z0-9](?:[a-z0-9-]*[a-z0-9])?_([a-z0-9-]+)-[0-9a-f]{64}$`)
	auditRe   = regexp.MustCompile(`(?i)^(scm|om-sys|om|dn|s3g)-audit-(.+)$`)
	contRe    = regexp.MustCompile(`(?i)^dn-container-(.+)$`)
	// a component word, optionally numbered (compose "scm_1", "datanode1_1",
	// k8s "datanode-2") or qualified by a domain ("dn3.example.com").
	compWordRe = regexp.MustCompile(`^(scm|om|datanode|dn|recon|s3g)(?:[-_]?\d+)?(?:[-_]\d+)?(\.[a-z0-9.-]+)?$`)
	hostLabel  = `[a-z0-9](?:[a-z0-9-]*[a-z0-9])?`
	fqdnRe     = regexp.MustCompile(`^` + hostLabel + `(?:\.` + hostLabel + `)+$`)
	shortRe    = regexp.MustCompile(`^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$`)
	digitRunRe = regexp.MustCompile(`\d{4,}`)
	// short names that end in a digit but are versions or tools, not hosts.
	notHostRe = regexp.MustCompile(`^(?:v|version|release|rc|jdk|java|jre|hadoop|ozone|ratis|log4j|scala|python|spark|hive|hbase|backup|bundle|run|test|case|day|part|tmp|old|copy|attempt)[-_]?\d+$`)
)

// cmRoles are the Ozone role types of Cloudera Manager (as its role config
// groups name them: ozone-OZONE_MANAGER-BASE, ...), with Ambari's
// OZONE_-prefixed spellings.
const cmRoles = `OZONE_MANAGER|(?:OZONE_)?STORAGE_CONTAINER_MANAGER|OZONE_DATANODE|OZONE_RECON|(?:OZONE_)?S3_GATEWAY`

func cmRole(role string) parsers.Component {
	switch strings.TrimPrefix(role, "OZONE_") {
	case "MANAGER":
		return parsers.ComponentOM
	case "STORAGE_CONTAINER_MANAGER":
		return parsers.ComponentSCM
	case "DATANODE":
		return parsers.ComponentDatanode
	case "RECON":
		return parsers.ComponentRecon
	case "S3_GATEWAY":
		return parsers.ComponentS3G
	}
	return ""
}

func classifyName(name string) (string, parsers.Component, parsers.Kind) {
	for _, ext := range compressedExts {
		if strings.HasSuffix(strings.ToLower(name), ext) {
			name = name[:len(name)-len(ext)]
			break
		}
	}
	lower := strings.ToLower(name)
	switch {
	case lower == "ozone-site.xml":
		return "", "", parsers.KindConfig
	case isPromName(lower):
		h, c := wordInfo(promStem(name), true)
		return h, c, parsers.KindProm
	case lower == "logs.txt": // kubectl cluster-info dump: <namespace>/<pod>/logs.txt
		return "", "", parsers.KindLog
	case lower == "stdout.log" || lower == "stderr.log": // a process's own output (Cloudera Manager)
		return "", "", parsers.KindOut
	}
	m := logExtRe.FindStringSubmatch(name)
	if m == nil {
		return "", "", ""
	}
	stem, ext := m[1], strings.ToLower(m[2])
	kind := parsers.KindLog
	if ext != "log" {
		kind = parsers.KindOut
	}
	if ext == "err" && !strings.HasPrefix(strings.ToLower(stem), "ozone-") {
		return "", "", "" // only jsvc's ozone-privileged-*.err is a daemon's output
	}
	if m := cmfRe.FindStringSubmatch(stem); m != nil {
		host, ok := strings.CutSuffix(m[3], ".log")
		if ok && ext == "out" {
			kind = parsers.KindLog // the role's log4j file, named .log.out
		}
		return host, cmRole(m[2]), kind
	}
	if m := cmfAnyRe.FindStringSubmatch(stem); m != nil { // another service's role: its host only
		host, ok := strings.CutSuffix(m[1], ".log")
		if ok && ext == "out" {
			kind = parsers.KindLog
		}
		return host, "", kind
	}
	if m := podLinkRe.FindStringSubmatch(stem); m != nil {
		_, c := wordInfo(m[1], true)
		if c == "" {
			_, c = wordInfo(m[2], true)
		}
		return m[1], c, kind
	}
	if loc := rolledRe.FindStringIndex(stem); loc != nil && loc[0] > 0 {
		stem = stem[:loc[0]]
	}
	if m := daemonRe.FindStringSubmatch(stem); m != nil {
		return m[3], component(strings.ToLower(m[2])), kind
	}
	if kind == parsers.KindLog {
		if m := auditRe.FindStringSubmatch(stem); m != nil {
			return m[2], component(strings.TrimSuffix(strings.ToLower(m[1]), "-sys")), parsers.KindAudit
		}
		if m := contRe.FindStringSubmatch(stem); m != nil {
			return m[1], parsers.ComponentDatanode, parsers.KindContainer
		}
	}
	h, c := wordInfo(stem, false) // "scm.log", "om2.log", "dn3.example.com.log"; not "app1.log"
	return h, c, kind
}

func isPromName(lower string) bool {
	return strings.HasSuffix(lower, ".prom") ||
		strings.HasSuffix(lower, ".txt") && (strings.HasPrefix(lower, "prom") || strings.HasPrefix(lower, "metrics") ||
			strings.HasSuffix(lower, "-prom.txt") || strings.HasSuffix(lower, "_prom.txt") || strings.HasSuffix(lower, ".prom.txt"))
}

// promStem is what is left of a prom file name once "prom"/"metrics" and
// the extension are removed: "scm1-prom.txt" -> "scm1", "prom-dn3.txt" -> "dn3".
func promStem(name string) string {
	s := name
	for _, ext := range []string{".txt", ".prom"} {
		if strings.HasSuffix(strings.ToLower(s), ext) {
			s = s[:len(s)-len(ext)]
		}
	}
	l := strings.ToLower(s)
	for _, w := range []string{"prometheus", "prom", "metrics"} {
		if strings.HasPrefix(l, w) {
			s = s[len(w):]
			break
		}
		if strings.HasSuffix(l, w) {
			s = s[:len(s)-len(w)]
			break
		}
	}
	return strings.Trim(s, "-_.")
}

// compressedExts are the suffixes of a single compressed file, which the
// name of its content does not have.
var compressedExts = []string{".gz", ".xz", ".zst", ".bz2"}

// archiveExts are the suffixes an archive's name loses as a directory word.
var archiveExts = []string{".tgz", ".txz", ".tzst", ".tbz2", ".tbz", ".tar", ".zip", ".gz", ".xz", ".zst", ".bz2"}

// dirWord is a path segment as a word: an archive segment ("x.tgz!") loses
// its extensions.
func dirWord(seg string) string {
	if !strings.HasSuffix(seg, "!") {
		return seg
	}
	seg = strings.TrimSuffix(seg, "!")
	for {
		l := strings.ToLower(seg)
		trimmed := false
		for _, ext := range archiveExts {
			if strings.HasSuffix(l, ext) {
				seg, trimmed = seg[:len(seg)-len(ext)], true
			}
		}
		if !trimmed {
			return seg
		}
	}
}

// dirInfo reads a host and component from a directory name. Beyond the
// names wordInfo knows, a directory right under logs/, hosts/ or nodes/
// is taken as a host name when it looks like one.
func dirInfo(word, parent string) (string, parsers.Component) {
	if h, c := wordInfo(word, true); h != "" || c != "" {
		return h, c
	}
	if m := podDirRe.FindStringSubmatch(word); m != nil {
		_, c := wordInfo(m[1], true)
		return m[1], c
	}
	if m := cmProcRe.FindStringSubmatch(word); m != nil {
		return "", cmRole(m[2])
	}
	switch strings.ToLower(parent) {
	case "logs", "log", "hosts", "nodes", "servers":
		l := strings.ToLower(word)
		if shortRe.MatchString(l) && !digitRunRe.MatchString(l) && !genericDir(l) {
			return word, ""
		}
	}
	return "", ""
}

func genericDir(l string) bool {
	switch l {
	case "ozone", "hadoop", "hdds", "old", "archive", "archived", "rotated", "audit", "gc", "tmp", "backup",
		"current", "latest", "conf", "etc", "data", "metrics", "prom", "logs", "log", "var", "all", "other", "misc":
		return true
	}
	return false
}

// wordInfo reads a host and component from one word (a file stem or a
// directory name): "scm" (component only), "om1", "datanode-3", "scm_1",
// "ozone-datanode-1", "dn3.example.com" (both), "node7.example.com",
// "10.0.0.11" and, when short is set, "host-12" (host only). A "-logs"
// suffix is ignored.
func wordInfo(word string, short bool) (string, parsers.Component) {
	for _, suf := range []string{"-logs", "_logs", ".logs", "-log", "_log"} {
		if len(word) > len(suf) && strings.HasSuffix(strings.ToLower(word), suf) {
			word = word[:len(word)-len(suf)]
			break
		}
	}
	l := strings.ToLower(word)
	bare := strings.TrimPrefix(strings.TrimPrefix(l, "ozone-"), "ozone_")
	if m := compWordRe.FindStringSubmatch(bare); m != nil {
		if bare == m[1] { // "scm", "ozone-scm": a component, not a host
			return "", component(m[1])
		}
		return word, component(m[1])
	}
	if m := podRe.FindStringSubmatch(l); m != nil {
		return word, component(m[1])
	}
	switch {
	case net.ParseIP(l) != nil:
		return word, ""
	case fqdnRe.MatchString(l):
		labels := strings.Split(l, ".")
		last := labels[len(labels)-1]
		if strings.Trim(last, "0123456789") == "" || len(last) < 2 {
			return "", "" // a version or a file-ish name ("1.4.0", "conf.d")
		}
		if len(labels) >= 3 || strings.ContainsAny(labels[0], "0123456789") {
			return word, ""
		}
	case short && shortRe.MatchString(l) && l[len(l)-1] >= '0' && l[len(l)-1] <= '9' &&
		!digitRunRe.MatchString(l) && !notHostRe.MatchString(l):
		return word, ""
	}
	return "", ""
}

func component(word string) parsers.Component {
	switch word {
	case "scm":
		return parsers.ComponentSCM
	case "om":
		return parsers.ComponentOM
	case "datanode", "dn":
		return parsers.ComponentDatanode
	case "recon":
		return parsers.ComponentRecon
	case "s3g":
		return parsers.ComponentS3G
	}
	return ""
}
