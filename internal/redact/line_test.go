package redact

import (
	"strings"
	"testing"
)

// lineCase is one rendered line and its redaction by a fresh Redactor.
type lineCase struct {
	name, in, want string
}

func runLines(t *testing.T, opt Options, learn []string, cases []lineCase) *Redactor {
	t.Helper()
	r := New(NewMap(), opt)
	for _, h := range learn {
		r.Learn(h)
	}
	for _, c := range cases {
		if got := string(r.Line(nil, []byte(c.in))); got != c.want {
			t.Errorf("%s:\n  in   %s\n  got  %s\n  want %s", c.name, c.in, got, c.want)
		}
	}
	return r
}

func TestLineOzoneForms(t *testing.T) {
	runLines(t, Options{}, nil, []lineCase{
		// signatures-scm.md §4.2, SCM audit REGISTER (L7), DatanodeDetails "<uuid>(<host>/<ip>)" (§0.1)
		{"scm audit",
			`2026-08-23 10:21:02,530 | INFO  | SCMAudit | user=dn | ip=10.0.0.13 | op=REGISTER {"datanodeDetails":"7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c(node-a.corp.example.com/10.0.0.13)"} | ret=SUCCESS |  `,
			`2026-08-23 10:21:02,530 | INFO  | SCMAudit | user=dn | ip=198.18.0.1 | op=REGISTER {"datanodeDetails":"7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c(host-1.domain-1.example/198.18.0.1)"} | ret=SUCCESS |  `},
		// realdata om-audit_testaudit.log, OM audit before JSON params: {k=v, ...}
		{"om audit old params",
			`2018-09-06 01:58:08,035 | ERROR | OMAudit | user=alice | ip=172.18.0.4 | op=CREATE_VOLUME {admin=hadoop, owner=tom, volume=dcv, creationTime=0, quotaInBytes=1152921504606846976} | ret=FAILURE | org.apache.hadoop.ozone.om.exceptions.OMException`,
			`2018-09-06 01:58:08,035 | ERROR | OMAudit | user=user-1 | ip=198.18.0.2 | op=CREATE_VOLUME {admin=hadoop, owner=user-2, volume=vol-1, creationTime=0, quotaInBytes=1152921504606846976} | ret=FAILURE | org.apache.hadoop.ozone.om.exceptions.OMException`},
		// realdata om-audit_testloadaudit.log, CREATE_BUCKET with acls
		{"om audit acls",
			`2021-05-18 01:58:18,447 | ERROR | OMAudit | user=hadoop | ip=172.18.0.4 | op=CREATE_BUCKET {volume=dcv, bucket=dcb, acls=[USER:alice:rw, GROUP:users:rw, GROUP:finance:r], isVersionEnabled=false, storageType=DISK, creationTime=0} | ret=FAILURE | org.apache.hadoop.ozone.om.exceptions.OMException: Bucket already exist`,
			`2021-05-18 01:58:18,447 | ERROR | OMAudit | user=hadoop | ip=198.18.0.2 | op=CREATE_BUCKET {volume=vol-1, bucket=bucket-1, acls=[USER:user-1:rw, GROUP:users:rw, GROUP:group-1:r], isVersionEnabled=false, storageType=DISK, creationTime=0} | ret=FAILURE | org.apache.hadoop.ozone.om.exceptions.OMException: Bucket already exist`},
		// OM audit at HEAD: params as JSON (AuditMessage.formMessage, signatures-scm.md §4.2)
		{"om audit json params",
			`2026-08-23 10:21:03,001 | INFO  | OMAudit | user=bob | ip=10.0.0.21 | op=COMMIT_KEY {"volume":"sales","bucket":"q3-reports","key":"2026/08/summary.csv","dataSize":"10240"} | ret=SUCCESS |  `,
			`2026-08-23 10:21:03,001 | INFO  | OMAudit | user=user-3 | ip=198.18.0.3 | op=COMMIT_KEY {"volume":"vol-2","bucket":"bucket-2","key":"key-1","dataSize":"10240"} | ret=SUCCESS |  `},
		// signatures-dn-om.md C.3, STARTUP_MSG host = name/ip and SHUTDOWN_MSG
		{"startup host", `STARTUP_MSG:        host = om-prod-4.corp.example.com/10.0.0.14`, `STARTUP_MSG:        host = host-2.domain-1.example/198.18.0.4`},
		{"startup short host", `STARTUP_MSG:        host = ozmaster7/10.0.0.15`, `STARTUP_MSG:        host = host-3/198.18.0.5`},
		{"shutdown", `SHUTDOWN_MSG: Shutting down OzoneManager at om-prod-4.corp.example.com/10.0.0.14`, `SHUTDOWN_MSG: Shutting down OzoneManager at host-2.domain-1.example/198.18.0.4`},
		// STARTUP_MSG conf = {<sorted ozone props>}: secrets and keytab paths, settings kept
		{"startup conf",
			`STARTUP_MSG:        conf = {hdds.block.token.enabled=true, hdds.secret.key.expiry.duration=7d, ozone.om.address=om-prod-4.corp.example.com:9862, ozone.om.kerberos.keytab.file=/etc/security/keytabs/om.service.keytab, ozone.om.kerberos.principal=om/_HOST@CORP.EXAMPLE.COM, ssl.server.keystore.password=hunter2}`,
			`STARTUP_MSG:        conf = {hdds.block.token.enabled=true, hdds.secret.key.expiry.duration=7d, ozone.om.address=host-2.domain-1.example:9862, ozone.om.kerberos.keytab.file=/redacted/path-1, ozone.om.kerberos.principal=om/_HOST@REALM-1.EXAMPLE, ssl.server.keystore.password=SECRET-1}`},
		// signatures-dn-om.md S11: closeContainerCommand ... encodedToken: "<tok>"
		{"encoded token",
			`Sending command [closeContainerCommand: cmdID: 12, encodedToken: "SGVsbG8gd29ybGQ=", term: 7, deadlineMsSinceEpoch: 1787480000000, containerID: 90643, pipelineID: Pipeline-5d0e7c3a-1b2c-4d5e-8f90-a1b2c3d4e5f6, force: false]`,
			`Sending command [closeContainerCommand: cmdID: 12, encodedToken: "TOKEN-1", term: 7, deadlineMsSinceEpoch: 1787480000000, containerID: 90643, pipelineID: Pipeline-5d0e7c3a-1b2c-4d5e-8f90-a1b2c3d4e5f6, force: false]`},
		{"empty token kept", `encodedToken: "", term: 7`, `encodedToken: "", term: 7`},
		// operational-problems.md §3.2: UGI login failure, HddsDispatcher block token failure
		{"login failure",
			`failure to login: for principal: om/om-prod-4.corp.example.com@CORP.EXAMPLE.COM from keytab /etc/security/keytabs/om.keytab javax.security.auth.login.LoginException: Unable to obtain password from user`,
			`failure to login: for principal: om/host-2.domain-1.example@REALM-1.EXAMPLE from keytab /redacted/path-2 javax.security.auth.login.LoginException: Unable to obtain password from user`},
		{"block token", `BLOCK_TOKEN_VERIFICATION_FAILED for ctx: Expired token for user: carol , Result: BLOCK_TOKEN_VERIFICATION_FAILED`,
			`BLOCK_TOKEN_VERIFICATION_FAILED for ctx: Expired token for user: user-4 , Result: BLOCK_TOKEN_VERIFICATION_FAILED`},
		// Hadoop UserGroupInformation.toString of a proxy user
		{"proxy user", `ugi=carol (auth:PROXY) via etlsvc (auth:KERBEROS)`, `ugi=user-4 (auth:PROXY) via user-5 (auth:KERBEROS)`},
		{"user principal", `ugi=carol@CORP.EXAMPLE.COM (auth:KERBEROS)`, `ugi=user-4@REALM-1.EXAMPLE (auth:KERBEROS)`},
		// signatures-dn-om.md N17: {nodeId}[{hostAddress}:{rpcPort}]: Stopping Ozone Manager
		{"om node id kept", `omNode-4[10.0.0.14:9862]: Stopping Ozone Manager`, `omNode-4[198.18.0.4:9862]: Stopping Ozone Manager`},
		// layouts.md §7.3: a thread name with an address in it
		{"thread with address",
			`2026-08-23 10:21:01,114 [EndpointStateMachineTaskThread-scm/172.20.0.5:9861-0 ] INFO org.apache.hadoop.ozone.container.common.statemachine.EndpointStateMachine: x`,
			`2026-08-23 10:21:01,114 [EndpointStateMachineTaskThread-scm/198.18.0.6:9861-0 ] INFO org.apache.hadoop.ozone.container.common.statemachine.EndpointStateMachine: x`},
		{"urls and prom labels",
			`om_metrics_num_key_ops{hostname="om-prod-4.corp.example.com",} 5 http://om-prod-4.corp.example.com:9874/prom`,
			`om_metrics_num_key_ops{hostname="host-2.domain-1.example",} 5 http://host-2.domain-1.example:9874/prom`},
		{"upper-case host", `from OZN-A7.CORP.EXAMPLE.COM:9858 DN7.CORP.EXAMPLE.COM`, `from host-4.domain-1.example:9858 DN7.domain-1.example`},
		{"ipv6", `from /[fe80::1ff:fe23:4567:890a]:9858 and 2001:470:1f0b:1::5 at 10:21:01`, `from /[2001:db8::1]:9858 and 2001:db8::2 at 10:21:01`},
		// Ozone file system URLs, the key the same as in the audit line above (ofs://<om service>/<volume>/<bucket>/<key>, o3fs://<bucket>.<volume>.<om host>/<key>)
		{"ofs url", `Listing ofs://omservice/sales/q3-reports/2026/08/summary.csv failed`, `Listing ofs://omservice/vol-2/bucket-2/key-1 failed`},
		{"o3fs url", `o3fs://q3-reports.sales.om-prod-4.corp.example.com:9862/2026/summary.csv`, `o3fs://bucket-2.vol-2.host-2.domain-1.example:9862/key-2`},
		{"public domains kept", `STARTUP_MSG:       build = https://github.com/apache/ozone/abc123; compiled by 'hadoop'`, `STARTUP_MSG:       build = https://github.com/apache/ozone/abc123; compiled by 'hadoop'`},
	})
}

func TestLineDatanodeDebugString(t *testing.T) {
	runLines(t, Options{}, nil, []lineCase{
		// signatures-scm.md §0.1: DatanodeDetails.toDebugString in "Registered datanode: {}"
		{"datanode debug string", `Registered datanode: 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f{ip: 10.0.0.11, host: ozn-dn-7, ports: [], networkLocation: /default-rack, certSerialId: 1, persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}`,
			`Registered datanode: 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f{ip: 198.18.0.1, host: host-1, ports: [], networkLocation: /default-rack, certSerialId: 1, persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}`},
	})
}

// Near misses: what looks like a host, an address or a value but is an
// Ozone id, a logger, a setting or a size must stay as it is.
func TestLineNearMisses(t *testing.T) {
	var cases []lineCase
	for _, l := range []string{
		// layouts.md §7.5 logger forms
		`2026-08-23 10:21:01,114 [IPC Server handler 76 on default port 9861] INFO org.apache.hadoop.hdds.scm.node.SCMNodeManager: x`,
		`2026-08-23 10:21:01,114 [main] INFO  node.SCMNodeManager (SCMNodeManager.java:register(667)) - x`,
		`2026-08-23 10:21:01 INFO  RaftServer$Division:393 - x`,
		// realdata dn-container_ozone-site-example.log (L8): disk Volume=, BCSID, group id
		`2026-02-03 13:31:17,205 | WARN  | ID=2018 | Index=0 | BCSID=159 | State=QUASI_CLOSED | Volume=/mnt/dummy_disk1/hadoop-ozone/datanode/data/hdds | DataChecksum=2a21d155 | Ratis group removed. Group id: group-82AA09A3DA8C |`,
		// signatures-scm.md §0.1 ContainerInfo with owner=<om>, ContainerID, PipelineID
		`ContainerInfo{id=#90643, state=QUASI_CLOSED, stateEnterTime=2026-08-23T10:00:00Z, pipelineID=Pipeline-5d0e7c3a-1b2c-4d5e-8f90-a1b2c3d4e5f6, owner=om1}`,
		`PipelineID=5d0e7c3a-1b2c-4d5e-8f90-a1b2c3d4e5f6 raftlog=5d0e7c3a@group-82AA09A3DA8C-SegmentedRaftLog:OPENED:c2272:last(t:7, i:2272)`,
		// Java objects, exceptions, versions, sizes, durations, settings
		`keyLocationInfo=[org.apache.hadoop.ozone.om.helpers.OmKeyLocationInfo@25bd7387], clientID=61987500296`,
		`java.io.IOException: sun.net.www.protocol failed in 7m30.153s; 268435456 bytes; version 1.4.0 (2.0.0-SNAPSHOT) jdk 17.0.15`,
		`ozone.scm.stale.node.interval=5m, ozone.scm.dead.node.interval=10m, hdds.heartbeat.interval=30s, ozone.om.ratis.enable=true`,
		`LOG.info user.home config.local.dir 12:34:56.789 aa:bb:cc:dd:ee:ff Foo::bar`,
		`STARTUP_MSG:   classpath = /opt/ozone/etc/hadoop:/opt/ozone/share/ozone/lib/ozone-common-1.4.0.jar:/opt/ozone/share/ozone/lib/hadoop-auth-3.3.6.jar`,
		`0.0.0.0:9862 127.0.0.1 255.255.255.255 ::1 localhost`,
		`dn1 om2 scm-1 datanode-3 scm om dn user=hadoop ugi=om user=dn`,
		// realdata recon_prometheus-query-api-response.json: a Raft group as a metric label
		`          "group": "group-03CA9397D54B",`,
		`key=12345 "key":"3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f" bucket=#42`,
	} {
		cases = append(cases, lineCase{"near miss", l, l})
	}
	r := runLines(t, Options{}, nil, cases)
	for k, n := range r.Counts() {
		if n != 0 {
			t.Errorf("%d replacements of kind %s in near misses", n, k)
		}
	}
}

// A host learned from a file name is replaced in its short form and in
// file names; role-numbered hosts keep their label but not their domain.
func TestLineLearnedHostsAndFileNames(t *testing.T) {
	runLines(t, Options{}, []string{"ozn-a17.corp.example.com", "dn1.corp.example.com"}, []lineCase{
		{"short", `heartbeat from ozn-a17 took 3s`, `heartbeat from host-1 took 3s`},
		{"file names",
			`ozone-hadoop-om-ozn-a17.corp.example.com.log-1.gz scm-audit-ozn-a17.corp.example.com-2026-08-23-1.log.gz ozone-hadoop-om-ozn-a17.log dn-container-ozn-a17.log`,
			`ozone-hadoop-om-host-1.domain-1.example.log-1.gz scm-audit-host-1.domain-1.example-2026-08-23-1.log.gz ozone-hadoop-om-host-1.log dn-container-host-1.log`},
		// Cloudera Manager role log (bundle.Classify): hadoop-cmf-<service>-<ROLE>-<host>.log.out
		{"cloudera manager", `hadoop-cmf-ozone-OZONE_MANAGER-ozn-a17.corp.example.com.log.out`, `hadoop-cmf-ozone-OZONE_MANAGER-host-1.domain-1.example.log.out`},
		// Kubernetes: /var/log/pods/<ns>_<pod>_<uid>/
		{"pod and service", `ozn-a17.prod-om-headless:9862 ozn-a17.prod-om-headless.prod.svc.cluster.local`, `host-1.domain-2.example:9862 host-1.domain-3.example`},
		{"pod dir", `/var/log/pods/prod_ozn-a17_0a6bdaf2-3d9c-33c4-cb31-44afbf9850fa/om/0.log`, `/var/log/pods/prod_host-1_0a6bdaf2-3d9c-33c4-cb31-44afbf9850fa/om/0.log`},
		{"role host", `dn1.corp.example.com dn1`, `dn1.domain-1.example dn1`},
		{"address in a file name", `ozone-hadoop-datanode-10.0.0.5.log 10.0.0.5.out`, `ozone-hadoop-datanode-198.18.0.1.log 198.18.0.1.out`},
	})
	r := runLines(t, Options{KeepDomain: true}, []string{"ozn-a17.corp.example.com"}, []lineCase{
		{"keep domain", `ozn-a17.corp.example.com ozn-a17`, `host-1.corp.example.com host-1`},
	})
	if r.m.Len(KindDomain) != 0 {
		t.Errorf("--keep-domain mapped domains")
	}
}

func TestLineKeywords(t *testing.T) {
	r := runLines(t, Options{Keywords: []string{"Acme", "acme", "  ", "AcmeCorp"}}, nil, []lineCase{
		{"keywords", `ACME-prod acmecorp Acme.example.com user=acme_ops`, `keyword-1-prod keyword-2 host-1.domain-1.example user=user-1`},
		{"not inside pseudonyms", `nothing here`, `nothing here`},
	})
	if got := r.KeywordCounts(); len(got) != 2 || got[0] != 1 || got[1] != 1 {
		t.Errorf("keyword counts %v, want [1 1]", got)
	}
	// a keyword that is part of a pseudonym's shape does not cut it
	runLines(t, Options{Keywords: []string{"example"}}, nil, []lineCase{
		{"reserved", `node-a.corp.example.com example`, `host-1.domain-1.example keyword-1`},
	})
}

func TestStreamKeepsEndingsAndXML(t *testing.T) {
	r := New(NewMap(), Options{})
	// an ozone-site.xml, values on their line and on the next
	in := "<configuration>\r\n  <property><name>ozone.om.address</name><value>om-prod-4.corp.example.com:9862</value></property>\r\n" +
		"  <property>\n    <name>ozone.s3g.secret.key</name>\n    <value>\n      s3cr3t-v4lue\n    </value>\n  </property>\n" +
		"  <property><name>ssl.server.keystore.location</name><value>/etc/ozone/keystore.jks</value></property>\n" +
		"  <property><name>hdds.block.token.expiry.time</name><value>1d</value></property>\nlast"
	var out strings.Builder
	n, err := r.Stream(&out, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "<configuration>\r\n  <property><name>ozone.om.address</name><value>host-1.domain-1.example:9862</value></property>\r\n" +
		"  <property>\n    <name>ozone.s3g.secret.key</name>\n    <value>\n      SECRET-1\n    </value>\n  </property>\n" +
		"  <property><name>ssl.server.keystore.location</name><value>/redacted/path-1</value></property>\n" +
		"  <property><name>hdds.block.token.expiry.time</name><value>1d</value></property>\nlast"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	if n != 11 {
		t.Errorf("%d lines, want 11", n)
	}
}
