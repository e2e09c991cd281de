package bundle

import (
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers"
)

func TestClassify(t *testing.T) {
	const (
		scm   = parsers.ComponentSCM
		om    = parsers.ComponentOM
		dn    = parsers.ComponentDatanode
		recon = parsers.ComponentRecon
		s3g   = parsers.ComponentS3G
		log   = parsers.KindLog
		out   = parsers.KindOut
		audit = parsers.KindAudit
		cont  = parsers.KindContainer
		prom  = parsers.KindProm
		conf  = parsers.KindConfig
	)
	cases := []struct {
		path string
		host string
		comp parsers.Component
		kind parsers.Kind
	}{
		// daemon logs, ozone-functions.sh names (signatures-scm.md §4.1, signatures-dn-om.md C.2)
		{"ozone-hadoop-scm-scm1.example.com.log", "scm1.example.com", scm, log},
		{"ozone-hadoop-om-om-1.log", "om-1", om, log},
		{"ozone-root-datanode-ip-10-0-0-11.ec2.internal.log", "ip-10-0-0-11.ec2.internal", dn, log},
		{"ozone-ozone-recon-recon-host.log", "recon-host", recon, log},
		{"ozone-hadoop-s3g-gw7.log", "gw7", s3g, log},
		{"ozone-hadoop-scm-scm1.example.com.log.3", "scm1.example.com", scm, log},
		{"ozone-hadoop-scm-scm1.example.com.log.2026-08-23", "scm1.example.com", scm, log},
		{"ozone-hadoop-scm-scm1.example.com.log.2026-08-23-10", "scm1.example.com", scm, log},
		{"ozone-hadoop-scm-scm1.example.com.log-7.gz", "scm1.example.com", scm, log},
		{"ozone-hadoop-datanode-dn3.log.gz", "dn3", dn, log},
		{"ozone-hadoop-datanode-dn3.log.1.gz", "dn3", dn, log},
		{"ozone-hadoop-datanode-dn3.out", "dn3", dn, out},
		{"ozone-hadoop-datanode-dn3.out.5", "dn3", dn, out},
		{"ozone-hdfs-hadoop-datanode-dn-4.rack2.example.com.log", "dn-4.rack2.example.com", dn, log}, // secure form
		{"ozone-privileged-hadoop-datanode-dn3.err", "dn3", dn, out},
		{"ozone-privileged-hadoop-datanode-dn3.out", "dn3", dn, out},
		{"OZONE-HADOOP-OM-OM2.LOG", "OM2", om, log},
		// audit and container logs (log4j2 properties, signatures-scm.md §4.2)
		{"scm-audit-scm1.example.com.log", "scm1.example.com", scm, audit},
		{"om-audit-om1.log", "om1", om, audit},
		{"om-sys-audit-om1.log", "om1", om, audit},
		{"dn-audit-dn-3.example.com.log", "dn-3.example.com", dn, audit},
		{"s3g-audit-s3g-0.log", "s3g-0", s3g, audit},
		{"scm-audit-scm1.example.com-2026-08-23-1.log.gz", "scm1.example.com", scm, audit},
		{"om-audit-om-node-2-2026-08-22-14.log.gz", "om-node-2", om, audit},
		{"dn-container-dn3.example.com.log", "dn3.example.com", dn, cont},
		{"dn-container-dn3.example.com-2026-08-23-2.log.gz", "dn3.example.com", dn, cont},
		// config and metrics snapshots
		{"ozone-site.xml", "", "", conf},
		{"scm1/ozone-site.xml", "scm1", scm, conf},
		{"etc/hadoop/ozone-site.xml", "", "", conf},
		{"scm1.prom", "scm1", scm, prom},
		{"dn3.example.com.prom", "dn3.example.com", dn, prom},
		{"prom.txt", "", "", prom},
		{"prom-om2.txt", "om2", om, prom},
		{"scm1-prom.txt", "scm1", scm, prom},
		{"node7.example.com-prom.txt", "node7.example.com", "", prom},
		{"metrics.txt", "", "", prom},
		{"metrics-datanode-2.txt", "datanode-2", dn, prom},
		{"datanode-2/prom.txt", "datanode-2", dn, prom},
		{"host12/metrics.txt.gz", "host12", "", prom},
		// other logs: component and host from the directories
		{"scm/gc.log", "", scm, log},
		{"om1/gc.log", "om1", om, log},
		{"datanode-3/logs/ozone.log", "datanode-3", dn, log},
		{"logs/alpha/ozone.log", "alpha", "", log},
		{"logs/dn3.example.com/ozone.log", "dn3.example.com", dn, log},
		{"node17.example.com/var/log/ozone/ozone.log", "node17.example.com", "", log},
		{"10.0.0.11/ozone.log", "10.0.0.11", "", log},
		{"bundle-2026-08-23/scm_1/app.log", "scm_1", scm, log},
		{"compose/ozone-datanode-1/app.log", "ozone-datanode-1", dn, log},
		{"k8s/ozone-scm/scm-0.log", "scm-0", scm, log},
		{"om/om2.log", "om2", om, log},
		{"scm.log", "", scm, log},
		{"scm1-logs/ozone.log", "scm1", scm, log},
		{"host3/scm/ozone.log", "host3", scm, log},
		// archive names count as directories
		{"bundle.tgz!/scm1/ozone-hadoop-scm-scm1.log", "scm1", scm, log},
		{"dn3-logs.tar.gz!/ozone.log", "dn3", dn, log},
		{"a.tgz!/x/om2.zip!/gc.log", "om2", om, log},
		{"a.tgz!/x/b.zip!", "", "", ""},
		// the file name wins over a directory of another component
		{"om1/ozone-hadoop-scm-scm1.log", "scm1", scm, log},
		{"om1/scm-audit-x.log", "x", scm, audit},
		// near misses: no host or component to invent
		{"ozone.log", "", "", log},
		{"logs/ozone.log", "", "", log},
		{"hadoop-3.3.6/logs/ozone.log", "", "", log},
		{"ozone-1.4.0/logs/ozone.log", "", "", log},
		{"jdk17/gc.log", "", "", log},
		{"case12345/gc.log", "", "", log},
		{"logs/old/gc.log", "", "", log},
		{"conf.d/gc.log", "", "", log},
		{"ozone-hadoop-freon-h1.log", "", "", log},
		{"app1.log", "", "", log},
		{"logs/app1.log", "", "", log},
		{"scmaudit.log", "", "", log},
		{"dns/x.log", "", "", log},
		{"stdout", "", "", ""},
		{"README.md", "", "", ""},
		{"core-site.xml", "", "", ""},
		{"ozone-site.xml.bak", "", "", ""},
		{"notes.txt", "", "", ""},
		{"app.err", "", "", ""},
		{"gc.log.0.current", "", "", ""},
		{"ozone-hadoop-scm-h1.log.tmp", "", "", ""},
		{"", "", "", ""},
	}
	for _, c := range cases {
		host, comp, kind := Classify(c.path)
		if host != c.host || comp != c.comp || kind != c.kind {
			t.Errorf("Classify(%q) = %q, %q, %q; want %q, %q, %q", c.path, host, comp, kind, c.host, c.comp, c.kind)
		}
	}
}
