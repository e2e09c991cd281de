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
	const cid = "0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f56"
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
		{"ozone-hadoop-datanode-dn3.log.1.xz", "dn3", dn, log},
		{"ozone-hadoop-datanode-dn3.log.1.zst", "dn3", dn, log},
		{"ozone-hadoop-datanode-dn3.log.1.bz2", "dn3", dn, log},
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
		{"dn3-logs.tar.xz!/ozone.log", "dn3", dn, log},
		{"dn3-logs.tar.zst!/ozone.log", "dn3", dn, log},
		{"dn3-logs.tbz2!/ozone.log", "dn3", dn, log},
		{"dn3-logs.txz!/ozone.log", "dn3", dn, log},
		{"a.tgz!/x/om2.zip!/gc.log", "om2", om, log},
		{"a.tgz!/x/b.zip!", "", "", ""},
		// the file name wins over a directory of another component
		{"om1/ozone-hadoop-scm-scm1.log", "scm1", scm, log},
		{"om1/scm-audit-x.log", "x", scm, audit},
		// Ozone ≤0.5.0-beta scripts: hadoop-<user>-<role>-<host>
		// (hadoop-functions.sh:2687,2698 @ozone-0.5.0-beta)
		{"hadoop-hadoop-scm-scm1.example.com.log", "scm1.example.com", scm, log},
		{"hadoop-hadoop-om-om1.out", "om1", om, out},
		{"hadoop-ozone-datanode-dn3.out.2", "dn3", dn, out},
		{"hadoop-hdfs-hadoop-datanode-dn-4.example.com.log.1", "dn-4.example.com", dn, log}, // secure form
		// Cloudera Manager role logs (log4j files named .log.out) and process directories
		{"hadoop-cmf-ozone-OZONE_MANAGER-om1.example.com.log.out", "om1.example.com", om, log},
		{"hadoop-cmf-ozone-STORAGE_CONTAINER_MANAGER-scm1.example.com.log.out", "scm1.example.com", scm, log},
		{"hadoop-cmf-ozone-OZONE_DATANODE-dn3.example.com.log.out", "dn3.example.com", dn, log},
		{"hadoop-cmf-ozone-OZONE_DATANODE-dn3.example.com.log.out.4", "dn3.example.com", dn, log},
		{"hadoop-cmf-ozone-OZONE_RECON-recon.example.com.log.out", "recon.example.com", recon, log},
		{"hadoop-cmf-ozone-S3_GATEWAY-gw1.example.com.log.out", "gw1.example.com", s3g, log},
		{"hadoop-cmf-ozone1-OZONE_MANAGER-node-2.log.out", "node-2", om, log},
		// The prefix is the service's, not always hadoop.
		{"ozone-cmf-ozone-STORAGE_CONTAINER_MANAGER-scm1.example.com.log.out", "scm1.example.com", scm, log},
		{"ozone-cmf-ozone-OZONE_DATANODE-dn3.example.com.log.out.2", "dn3.example.com", dn, log},
		{"ozone-cmf-ozone-OZONE_MANAGER-om-1.example.com.log.out", "om-1.example.com", om, log},
		{"var/log/hadoop-ozone/hadoop-cmf-ozone-OZONE_MANAGER-om1.example.com.log.out", "om1.example.com", om, log},
		{"om1.example.com/process/1544-ozone-OZONE_MANAGER/logs/stdout.log", "om1.example.com", om, out},
		{"hosts/dn3.example.com/1544-ozone-OZONE_DATANODE/logs/stderr.log", "dn3.example.com", dn, out},
		// Kubernetes: pods of Ozone's k8s examples (statefulsets scm, om, datanode,
		// s3g, recon in hadoop-ozone/dist/src/main/k8s/examples/*) and of the
		// apache/ozone-helm-charts chart ("{{ .Release.Name }}-datanode", recon a
		// Deployment), saved with kubectl logs <pod> > <pod>.log
		{"scm-0.log", "scm-0", scm, log},
		{"datanode-2.log", "datanode-2", dn, log},
		{"ozone-datanode-2.log", "ozone-datanode-2", dn, log},
		{"myrelease-om-1.log", "myrelease-om-1", om, log},
		{"logs/my-ozone-scm-2.log", "my-ozone-scm-2", scm, log},
		{"myrelease-recon-7d9f8c6b5-x2k4q.log", "myrelease-recon-7d9f8c6b5-x2k4q", recon, log},
		{"ozone/s3g-0/logs.txt", "s3g-0", s3g, log}, // kubectl cluster-info dump --output-directory
		// CRI log files and the kubelet's links to them
		{"/var/log/pods/ozone_scm-0_6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e/scm/0.log", "scm-0", scm, log},
		{"/var/log/pods/ozone_myrel-datanode-2_6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e/datanode/3.log", "myrel-datanode-2", dn, log},
		{"/var/log/pods/ozone_myrel-datanode-2_6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e/datanode/3.log.20260823-101500", "myrel-datanode-2", dn, log},
		{"/var/log/pods/ozone_myrel-datanode-2_6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e/datanode/3.log.20260823-101500.gz", "myrel-datanode-2", dn, log},
		{"/var/log/pods/ozone_myrel-om-0_6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e/om-bootstrap/0.log", "myrel-om-0", om, log},
		{"/var/log/pods/ozone_ozone-0_6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e/scm/0.log", "ozone-0", scm, log},
		{"/var/log/containers/myrel-scm-1_ozone_scm-" + cid + ".log", "myrel-scm-1", scm, log},
		{"/var/log/containers/ozone-0_ozone_datanode-" + cid + ".log", "ozone-0", dn, log},
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
		{"hadoop-cmf-hdfs-NAMENODE-nn1.example.com.log.out", "nn1.example.com", "", log},
		{"hadoop-cmf-ozone-OZONE_MANAGER-om1.out", "om1", om, out}, // not a .log.out
		{"logs/om-bootstrap.log", "", "", log},
		{"v2-scm-x.log", "", "", log},
		{"/var/log/pods/ozone_freon-0_6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e/freon/0.log", "freon-0", "", log},
		{"", "", "", ""},
	}
	for _, c := range cases {
		host, comp, kind := Classify(c.path)
		if host != c.host || comp != c.comp || kind != c.kind {
			t.Errorf("Classify(%q) = %q, %q, %q; want %q, %q, %q", c.path, host, comp, kind, c.host, c.comp, c.kind)
		}
	}
}
