package redact

import (
	"bytes"
	"strings"
)

// contextKind says what the value of name=value, "name":"value" or
// name = value is, for the names Ozone's audit logs (AuditMessage params,
// OM and S3 gateway), STARTUP_MSG, Hadoop UGI and protobuf text print.
// Names are case-sensitive: the datanode container log's "Volume=" is a
// disk, not an Ozone volume.
func contextKind(name []byte) (Kind, bool) {
	switch string(name) {
	case "user", "ugi", "realUser", "proxyUser", "proxyuser", "doAs", "admin", "renewer", "userName", "username", "owner", "creator":
		return KindUser, true
	case "group":
		return KindGroup, true
	case "volume", "volumeName", "srcVolume", "dstVolume", "sourceVolume":
		return KindVolume, true
	case "bucket", "bucketName", "s3Bucket", "srcBucket", "dstBucket", "sourceBucket":
		return KindBucket, true
	case "key", "keyName", "toKeyName", "fromKeyName", "srcKey", "dstKey", "keyPrefix", "prefix", "startKey":
		return KindKey, true
	case "awsAccessKey", "awsAccessKeyId", "accessKey", "accessKeyId", "accessID", "accessId", "kerberosID":
		return KindAccessKey, true
	case "encodedToken", "token", "delegationToken", "blockToken", "tokenString", "signature", "stringToSign":
		return KindToken, true
	case "password", "passwd", "secret", "secretKey", "awsSecret", "awsSecretKey", "secretAccessKey":
		return KindSecret, true
	case "host", "hostname", "hostName":
		return KindHost, true
	}
	return "", false
}

// sensitiveSetting reports a configuration property whose value is a
// secret or a keytab/keystore path: its name says password, secret, key,
// token, keytab, keystore, truststore or credential, and its last part is
// not one that names a plain setting (…token.expiry.time, …keystore.type).
func sensitiveSetting(name string) bool {
	parts := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '.' || r == '-' || r == '_' })
	if len(parts) < 2 {
		return false
	}
	hit := false
	for i, p := range parts {
		switch p {
		case "password", "passwd", "secret", "secrets", "token", "keytab", "keystore", "truststore", "credential", "credentials", "jceks":
			hit = true
		case "key":
			hit = hit || i == len(parts)-1 || i == len(parts)-2 && parts[i+1] == "id"
		}
	}
	if !hit {
		return false
	}
	switch parts[len(parts)-1] {
	case "duration", "interval", "timeout", "expiry", "time", "len", "length", "size", "algorithm", "algo",
		"provider", "class", "classes", "enabled", "enable", "type", "limit", "count", "ms", "max", "min",
		"lifetime", "days", "renew", "period", "bits", "format", "version", "threads", "retries":
		return false
	}
	return true
}

// pathSetting reports a sensitive setting whose value is a path.
func pathSetting(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"keytab", "keystore", "truststore", "location", "file", "path", "jceks"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// keptUser reports user names that are Ozone's and Hadoop's own service
// users: they say nothing about the owner and the SCM audit log needs
// them (user=dn, user=om).
func keptUser(u string) bool {
	switch u {
	case "root", "hadoop", "ozone", "om", "scm", "dn", "datanode", "recon", "s3g", "hdfs", "yarn", "mapred",
		"hive", "impala", "spark", "HTTP", "http", "httpfs", "nobody", "anonymous", "dr.who", "testuser":
		return true
	}
	// an OM or SCM service id named as a container's owner: om1, omservice, scm-1
	for _, p := range []string{"omservice", "scmservice", "om", "scm"} {
		if rest, ok := strings.CutPrefix(u, p); ok {
			rest = strings.TrimLeft(rest, "-_")
			if rest == "" || strings.Trim(rest, "0123456789") == "" {
				return true
			}
		}
	}
	return false
}

// keptService reports the service part of a principal kept as it is
// (service/host@REALM): Ozone's and Hadoop's own services.
func keptService(s string) bool {
	switch s {
	case "om", "scm", "dn", "datanode", "recon", "s3g", "HTTP", "http", "httpfs", "hdfs", "hadoop", "ozone",
		"testuser", "host", "nn", "rm", "nm", "jhs", "hive", "impala", "yarn", "mapred", "spark", "hbase", "zookeeper", "kafka":
		return true
	}
	return false
}

// keptGroup reports groups that every Hadoop installation has.
func keptGroup(g string) bool {
	switch g {
	case "users", "supergroup", "hadoop", "ozone", "wheel", "root", "admin":
		return true
	}
	return false
}

// keptLabel reports short names never replaced as bare words, even when a
// host has them for first label: role words that logger and property names
// are made of (org.apache.hadoop.hdds.scm.node), localhost.
func keptLabel(l string) bool {
	switch l {
	case "localhost", "scm", "om", "dn", "datanode", "recon", "s3g", "httpfs", "ozone", "hadoop", "hdds", "ratis",
		"_HOST", "host", "node", "server", "master", "leader", "follower", "client", "default":
		return true
	}
	return false
}

// roleLabel reports a host label that is an Ozone role word and a number
// (dn1, om2, scm-1, datanode_3, s3g): the names Ozone's own examples,
// docker-compose services and Kubernetes StatefulSets give hosts. They say
// nothing about the owner, and analyze takes a host's component from them
// (compose prefixes, directories), so they are kept; the domain is not.
func roleLabel(l string) bool {
	for _, p := range []string{"datanode", "recon", "scm", "s3g", "om", "dn"} {
		if rest, ok := strings.CutPrefix(l, p); ok {
			if rest == "" {
				return true
			}
			if rest[0] == '-' || rest[0] == '_' {
				rest = rest[1:]
			}
			return len(rest) >= 1 && len(rest) <= 3 && strings.Trim(rest, "0123456789") == ""
		}
	}
	return false
}

// javaRoot reports the first labels of Java package and class names
// (org.apache.hadoop.hdds.scm.node.SCMNodeManager), which are not hosts.
func javaRoot(l []byte) bool {
	switch string(l) {
	case "org", "com", "net", "java", "javax", "sun", "jdk", "io", "jakarta", "kotlin", "scala", "ch", "de":
		return true
	}
	return false
}

// topLevel reports the top-level domains a host name ends with: the
// generic ones clusters use, reserved and private ones, and common country
// codes, but no word that ends Java names, file names or properties
// (.info, .home, .sh, .py, .md, .so, .id).
func topLevel(l []byte) bool {
	switch string(l) {
	case "com", "net", "org", "edu", "gov", "mil", "io", "local", "localdomain", "internal", "intranet", "corp",
		"lan", "example", "test", "invalid", "cloud", "dev",
		"de", "uk", "fr", "jp", "cn", "nl", "ru", "br", "es", "se", "ch", "kr", "ca", "au", "eu", "be", "dk",
		"fi", "ie", "il", "sg", "hk", "tw", "nz", "za", "mx", "ar", "cz", "pt", "gr", "tr", "hu", "ro", "ua",
		"vn", "th", "us", "in", "it", "pl", "no", "at", "co", "me":
		return true
	}
	return false
}

// upperTopLevel reports the generic top-level domains in upper case
// (DN1.EXAMPLE.COM): country codes are not taken in upper case, where
// they are more often words (Level.IN, State.NO).
func upperTopLevel(l []byte) bool {
	switch string(l) {
	case "COM", "NET", "ORG", "EDU", "IO", "LOCAL", "LOCALDOMAIN", "INTERNAL", "CORP", "LAN", "EXAMPLE", "TEST", "INVALID":
		return true
	}
	return false
}

// extLabel reports the last labels of a file name after a host name:
// extensions and rotation suffixes (.log, .out.1, .log.2026-08-23, .gz).
func extLabel(l []byte) bool {
	switch string(l) {
	case "log", "out", "err", "txt", "gz", "xml", "json", "prom", "tar", "tgz", "zip", "xz", "zst", "bz2", "tbz2",
		"yaml", "yml", "properties", "conf", "pid", "html", "md", "csv", "jar", "keytab", "jks":
		return true
	}
	if len(l) == 0 {
		return false
	}
	// .N, -N rotation (log-1 is cut at the dot: "log-1" itself is a label)
	digits := true
	for _, c := range l {
		if c < '0' || c > '9' {
			digits = false
			break
		}
	}
	if digits && len(l) <= 4 {
		return true
	}
	if i := bytes.IndexByte(l, '-'); i > 0 && extLabel(l[:i]) {
		return true // log-1, out-2
	}
	return isDate(l)
}

// isDate reports yyyy-MM-dd with an optional -HH[-mm] (DRFA suffixes).
func isDate(l []byte) bool {
	if len(l) < 10 || l[4] != '-' || l[7] != '-' {
		return false
	}
	for k, c := range l {
		if k == 4 || k == 7 || k >= 10 && c == '-' {
			continue
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// dateSuffix returns the length of a log4j2 rolled-file date suffix at the
// end of l ("com-2026-08-23-1" → len("-2026-08-23-1")), or 0.
func dateSuffix(l []byte) int {
	i := bytes.IndexByte(l, '-')
	if i <= 0 || !isDate(l[i+1:min(len(l), i+11)]) {
		return 0
	}
	rest := l[min(len(l), i+11):]
	if len(rest) > 0 {
		if rest[0] != '-' || len(rest) == 1 {
			return 0
		}
		for _, c := range rest[1:] {
			if c < '0' || c > '9' {
				return 0
			}
		}
	}
	return len(l) - i
}

// hostLabelOK reports a valid host name label.
func hostLabelOK(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// filePrefixLen returns the length of the prefix Ozone's file names put
// before a host name: ozone-<user>-<role>-, hadoop-<user>-<role>-,
// <component>-audit-, dn-container-, and the upper-case role of a Cloudera
// Manager role log (hadoop-cmf-ozone-OZONE_MANAGER-<host>: "MANAGER-" once
// '_' split the name).
func filePrefixLen(l []byte) int {
	if len(l) < 4 || bytes.IndexByte(l, '-') < 0 {
		return 0
	}
	switch {
	case bytes.HasPrefix(l, []byte("ozone-")), bytes.HasPrefix(l, []byte("hadoop-")):
		// <user>-<role>- : the first role word after the user wins
		parts := bytes.Split(l, []byte("-"))
		for k := 2; k < len(parts)-1; k++ {
			switch string(parts[k]) {
			case "scm", "om", "datanode", "recon", "s3g":
				n := 0
				for _, p := range parts[:k+1] {
					n += len(p) + 1
				}
				return n
			}
		}
		return 0
	case bytes.HasPrefix(l, []byte("dn-container-")):
		return len("dn-container-")
	}
	for _, p := range []string{"om-sys-audit-", "scm-audit-", "om-audit-", "dn-audit-", "s3g-audit-"} {
		if bytes.HasPrefix(l, []byte(p)) {
			return len(p)
		}
	}
	// an upper-case word and a hyphen
	k := 0
	for k < len(l) && ('A' <= l[k] && l[k] <= 'Z' || k > 0 && '0' <= l[k] && l[k] <= '9') {
		k++
	}
	if k >= 2 && k < len(l)-1 && l[k] == '-' && ('a' <= l[k+1] && l[k+1] <= 'z' || '0' <= l[k+1] && l[k+1] <= '9') {
		return k + 1 // followed by a lower-case host name, not part of an upper-case one
	}
	return 0
}

// publicDomains are public sites Ozone's own lines name (STARTUP_MSG
// build = https://github.com/apache/ozone/...): not the owner's.
var publicDomains = []string{"apache.org", "github.com", "maven.org", "openjdk.org", "oracle.com", "java.com", "cloudera.com"}

// publicHost reports a name in or under publicDomains.
func publicHost(fqdn []byte) bool {
	for _, d := range publicDomains {
		if n := len(fqdn) - len(d); n >= 0 && strings.EqualFold(string(fqdn[n:]), d) && (n == 0 || fqdn[n-1] == '.') {
			return true
		}
	}
	return false
}

// ozoneID reports the ids a diagnosis needs, whatever name a value has:
// numbers, UUIDs (datanodes, pipelines), Raft groups (group-<12 hex>),
// pipelines (Pipeline-<uuid>) and containers (#<n>).
func ozoneID(v []byte) bool {
	s := string(v)
	s = strings.TrimPrefix(s, "Pipeline-")
	if rest, ok := strings.CutPrefix(s, "group-"); ok && len(rest) == 12 && isHexString(rest) {
		return true
	}
	s = strings.TrimPrefix(s, "#")
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return true
	}
	return isUUID(s)
}

func isUUID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	return isHexString(s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:])
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}
