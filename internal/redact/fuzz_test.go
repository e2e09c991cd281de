package redact

import (
	"bytes"
	"strings"
	"testing"
)

// seeds are lines rendered from the templates the line tests name.
var seeds = []string{
	`2026-08-23 10:21:02,530 | INFO  | SCMAudit | user=dn | ip=10.0.0.13 | op=REGISTER {"datanodeDetails":"7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c(dn3.example.com/10.0.0.13)"} | ret=SUCCESS |  `,
	`2018-09-06 01:58:08,035 | ERROR | OMAudit | user=hadoop | ip=172.18.0.4 | op=CREATE_VOLUME {admin=hadoop, owner=tom, volume=dcv, creationTime=0} | ret=FAILURE |`,
	`STARTUP_MSG:        host = om4.example.com/10.0.0.14`,
	`STARTUP_MSG:        conf = {ozone.om.kerberos.keytab.file=/etc/security/keytabs/om.keytab, ssl.server.keystore.password=x}`,
	`closeContainerCommand: cmdID: 12, encodedToken: "abc", term: 7`,
	`failure to login: for principal: om/om1.corp.example@CORP.EXAMPLE from keytab /etc/om.keytab`,
	`2026-08-23 10:21:01,114 [EndpointStateMachineTaskThread-scm/172.20.0.5:9861-0 ] INFO org.apache.hadoop.hdds.scm.node.SCMNodeManager: x`,
	`from /[fe80::1]:9858 at 10:21:01 acls=[USER:alice:rw]`,
	`<property><name>ozone.s3g.secret.key</name><value>v</value></property>`,
}

// FuzzLine: the redactor never panics; a line without any byte that can
// start a pattern ('.', ':', '=', '@', '"', "keytab /") is left as it is; and what it
// replaced comes back with Reverse.
func FuzzLine(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		r := New(NewMap(), Options{})
		out := r.Line(nil, []byte(line))
		if !strings.ContainsAny(line, ".:=@\"") && !strings.Contains(line, "keytab /") && string(out) != line {
			t.Fatalf("a line with nothing to recognise was changed:\n in %q\nout %q", line, out)
		}
		// Reverse gives the line back, when the line holds nothing that
		// looks like a pseudonym already and nothing the map normalises
		// (IPv6 text, upper-case host names)
		if !pseudonymRe.MatchString(line) && !strings.Contains(line, ":") && strings.ToLower(line) == line {
			if back := r.m.Reverse(nil, out); string(back) != line {
				t.Fatalf("Reverse(Line(x)) != x:\n   in %q\n  out %q\n back %q", line, out, back)
			}
		}
	})
}

// FuzzRecognised: a value in a context that names it (user=, volume=, the
// JSON params of an audit line, a principal, a host name) never comes out.
func FuzzRecognised(f *testing.F) {
	f.Add("jsmith", "finance", "node-a7", "corp", 10, 3)
	f.Add("etl", "b-2", "x", "lan", 255, 0)
	f.Fuzz(func(t *testing.T, user, vol, host, dom string, a, b int) {
		clean := func(s string) string {
			var sb strings.Builder
			for _, c := range strings.ToLower(s) {
				if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
					sb.WriteRune(c)
				}
			}
			return sb.String()
		}
		user, vol, host, dom = clean(user), clean(vol), clean(host), clean(dom)
		// a host name's labels are 63 bytes at most (RFC 1035): longer ones are no host
		if len(user) < 4 || len(vol) < 4 || len(host) < 4 || len(dom) < 2 || len(host) > 63 || len(dom) > 63 || keptUser(user) || keptLabel(host) || roleLabel(host) ||
			ozoneID([]byte(user)) || ozoneID([]byte(vol)) || ozoneID([]byte(vol+"b")) {
			return
		}
		ip := "10." + itoa(a&255) + "." + itoa(b&255) + ".7"
		fqdn := host + "." + dom + ".example.com"
		// signatures-scm.md §4.2 AuditMessage, §0.1 DatanodeDetails; C.3 STARTUP_MSG host
		line := `2026-08-23 10:21:03,001 | INFO  | OMAudit | user=` + user + ` | ip=` + ip + ` | op=CREATE_BUCKET {"volume":"` + vol +
			`","bucket":"` + vol + `b"} | ret=SUCCESS | 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(` + fqdn + `/` + ip + `) ugi=` + user + `/` + fqdn + `@CORP.EXAMPLE`
		r := New(NewMap(), Options{})
		out := string(r.Line(nil, []byte(line)))
		fixed := strings.NewReplacer(user, "", vol, "", fqdn, "", ip, "").Replace(line)
		for _, orig := range []string{user, vol, fqdn, ip, host + "." + dom} {
			if strings.Contains(out, orig) && !strings.Contains(fixed, orig) && !pseudonymRe.MatchString(orig) &&
				!strings.Contains(strings.Join(r.m.pseudonyms(), " "), orig) {
				t.Fatalf("%q came out:\n in %s\nout %s", orig, line, out)
			}
		}
		if bytes.Contains([]byte(out), []byte("CORP.EXAMPLE")) {
			t.Fatalf("realm came out: %s", out)
		}
	})
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
