package signature

import (
	"strings"
	"testing"
)

// base is a valid signature; the error tests change one part of it.
const base = `signature: v1
id: test-sig
problem: test-problem
title: A test signature
description: one line
summary: "something on {{index .Entities.Hosts 0}}"
needs: [datanode]
signals:
  - kind: test_volume_failed
    source: "MutableVolumeSet.java:244 @ozone-2.2.0"
    literals: ["Marking volume "]
    pattern: '^Marking volume (?P<volume>\S+) as failed'
    groups: {volume: string}
match:
  by: e.host
  horizon: 1h
  max_open: 10
  steps:
    - name: failed
      on: test_volume_failed
      where: e.attrs.volume != ""
      emit: {severity: warning}
entities:
  hosts: [failed.host]
`

func compileText(t *testing.T, text string) error {
	t.Helper()
	f, err := Parse("sig.yaml", []byte(text))
	if err != nil {
		return err
	}
	_, err = Compile("sig.yaml", f, KnownKinds())
	return err
}

// wantEditedError checks that sig with from replaced by to fails to load
// with an error containing want.
func wantEditedError(t *testing.T, sig, from, to, want string) {
	t.Helper()
	text := strings.Replace(sig, from, to, 1)
	if text == sig {
		t.Fatalf("%q is not in the signature", from)
	}
	if err := compileText(t, text); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestBaseCompiles(t *testing.T) {
	if err := compileText(t, base); err != nil {
		t.Fatal(err)
	}
}

// Each error a user will make names file:line:column and what was expected.
func TestErrorsNamePlaceAndCause(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"yaml syntax", "  by: e.host\n", "  by: [e.host\n", "sig.yaml:"},
		{"unknown key", "  max_open: 10\n", "  max_open: 10\n  max_opne: 3\n", `sig.yaml:18:3: unknown key "max_opne" in match (known: by, key, horizon, max_open, skew, steps, until, resolve, corroborate, tables, severity, confidence)`},
		{"unknown top key", "title: A test signature\n", "title: A test signature\ntitel: x\n", `sig.yaml:5:1: unknown key "titel" in the signature`},
		{"unknown major version", "signature: v1\n", "signature: v2\n", `sig.yaml:1:12: unknown signature format "v2" (this ozdoctor reads v1)`},
		{"unknown signal kind", "      on: test_volume_failed\n", "      on: test_volume_faild\n", `sig.yaml:19:7: step failed: unknown signal kind "test_volume_faild"`},
		{"unknown field", `where: e.attrs.volume != ""`, `where: e.atrs.volume != ""`, `sig.yaml:21:15: step failed where: undefined field 'atrs'`},
		{"type mismatch", `where: e.attrs.volume != ""`, `where: e.bcsid > "a"`, `sig.yaml:21:22: step failed where: found no matching overload for '_>_' applied to '(int, string)'`},
		{"not a bool", `where: e.attrs.volume != ""`, `where: e.bcsid + 1`, `sig.yaml:21:14: step failed where: "e.bcsid + 1" has type int, want bool`},
		{"unbound step", `where: e.attrs.volume != ""`, `where: later.host == e.host`, `sig.yaml:21:14: step failed where: undeclared reference to 'later'`},
		{"missing horizon", "  horizon: 1h\n", "", "sig.yaml:15:3: match: missing horizon"},
		{"missing max_open", "  max_open: 10\n", "", "sig.yaml:15:3: match: missing max_open"},
		{"short literal", `literals: ["Marking volume "]`, `literals: ["Marking"]`, `signal test_volume_failed: literal "Marking" is shorter than 8 bytes`},
		{"regex", `pattern: '^Marking volume (?P<volume>\S+) as failed'`, `pattern: '^Marking volume (?P<volume>\S+ as failed'`, "sig.yaml:12:14: signal test_volume_failed: pattern: error parsing regexp: missing closing ): "},
		{"undeclared group", "groups: {volume: string}", "groups: {}", `sig.yaml:12:14: signal test_volume_failed: named group "volume" is not declared under groups`},
		{"group type", "groups: {volume: string}", "groups: {volume: string, count: string}", `group "count" fills the signal's count field, of type int, not string`},
		{"literal not in pattern", `literals: ["Marking volume "]`, `literals: ["Marking volume ", "Moving Volume : "]`, `literal "Moving Volume : " does not appear in the pattern`},
		{"kind taken", "  - kind: test_volume_failed\n", "  - kind: startup\n", `signal kind "startup" is already in the catalogue`},
		{"severity", "emit: {severity: warning}", "emit: {severity: severe}", `sig.yaml:22:24: step failed emit severity: "severe": want info, warning, critical, or an expression giving one`},
		{"no emit", "      emit: {severity: warning}\n", "", "match: no step emits a finding"},
		{"bad duration expr", "  horizon: 1h\n", "  horizon: params.nothing\n", `sig.yaml:16:12: match.horizon: undeclared reference to 'params'`},
		{"summary template", `summary: "something on {{index .Entities.Hosts 0}}"`, `summary: "something on {{index .Entities.Hosts 0}"`, "sig.yaml:6:10: summary template: "},
		{"corroborate without metrics", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  corroborate:\n    - {name: prom, on: metric_sample, where: e.value > 0.0}\n",
			`sig.yaml:24:7: corroborate prom: on metric_sample needs the metric names under metrics:`},
		{"corroborate name taken", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  corroborate:\n    - {name: failed, on: startup}\n",
			`sig.yaml:24:7: corroborate: name "failed" is already taken`},
		{"needs", "needs: [datanode]", "needs: [dn]", `needs "dn": want scm, om, datanode, recon or s3g`},
		{"table without max_rows", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: vols, on: test_volume_failed, row: e.attrs.volume}\n",
			`sig.yaml:24:7: table vols: missing max_rows (the rows kept at most; the oldest is evicted and counted)`},
		{"table without row", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: vols, on: test_volume_failed, max_rows: 3}\n",
			`sig.yaml:24:7: table vols: missing row`},
		{"table row type", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: vols, on: test_volume_failed, row: e.bcsid, max_rows: 3}\n",
			`table vols row: "e.bcsid" has type int, want string, or a list`},
		{"table scope", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: vols, scope: global, on: test_volume_failed, row: e.host, max_rows: 3}\n",
			`table vols: scope "global": want incident`},
		{"as_of of an incident table", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: vols, as_of: open, on: test_volume_failed, row: e.host, max_rows: 3}\n",
			`table vols: as_of belongs to run tables`},
		{"horizon of an incident table", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: vols, horizon: 1h, on: test_volume_failed, row: e.host, max_rows: 3}\n",
			`table vols: horizon belongs to run tables`},
		{"run table reads a step", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: vols, scope: run, on: test_volume_failed, where: failed.host == e.host, row: e.host, max_rows: 3}\n",
			`table vols where: undeclared reference to 'failed'`},
		{"table name taken", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  tables:\n    - {name: failed, on: test_volume_failed, row: e.host, max_rows: 3}\n",
			`sig.yaml:24:7: table: name "failed" is already taken`},
		{"key type", "  max_open: 10\n", "  max_open: 10\n  key: failed.bcsid\n", `match.key: "failed.bcsid" has type int, want string`},
		{"key reads e", "  max_open: 10\n", "  max_open: 10\n  key: e.host\n", `match.key: undeclared reference to 'e'`},
		{"resolve name without on", "      emit: {severity: warning}\n", "      emit: {severity: warning}\n  resolve: {name: back, quiet: 1h}\n",
			`resolve back: a name binds the signal that resolved, so it needs on`},
		{"let name taken", "entities:\n", "let:\n  failed: 1\nentities:\n", `let: name "failed" is already taken`},
		{"let error", "entities:\n", "let:\n  n: failed.nothing\nentities:\n", `let n: undefined field 'nothing'`},
		{"severity expression", "  max_open: 10\n", "  max_open: 10\n  severity: failed.bcsid\n", `match.severity: "failed.bcsid" has type int, want string`},
		{"entity type", "  hosts: [failed.host]\n", "  hosts: [failed.bcsid]\n", `entities.hosts: "failed.bcsid" has type int, want string, or a list`},
		{"evidence type", "entities:\n", "evidence: [failed.host]\nentities:\n", `evidence: "failed.host" has type string, want signature.Event or signature.Row, or a list`},
		{"affected_hosts type", "entities:\n", "affected_hosts: [failed.bcsid]\nentities:\n", `affected_hosts: "failed.bcsid" has type int, want string, or a list`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := base
			if !strings.Contains(text, tc.from) {
				t.Fatalf("base lacks %q", tc.from)
			}
			text = strings.Replace(text, tc.from, tc.to, 1)
			err := compileText(t, text)
			if err == nil {
				t.Fatal("compiled")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tc.want)
			}
		})
	}
}

func TestDuplicateIDIsRefused(t *testing.T) {
	other := strings.Replace(base, "  - kind: test_volume_failed\n", "  - kind: test_volume_failed_too\n", 1)
	other = strings.Replace(other, "      on: test_volume_failed\n", "      on: test_volume_failed_too\n", 1)
	files := map[string]string{"a.yaml": base, "b.yaml": other}
	_, err := compileAll([]string{"a.yaml", "b.yaml"}, func(p string) ([]byte, error) { return []byte(files[p]), nil }, false)
	if err == nil || !strings.Contains(err.Error(), `b.yaml:2:1: duplicate id "test-sig" (also in a.yaml)`) {
		t.Fatalf("got %v", err)
	}
}

// A group named like a typed field never lands in attrs: reading it there
// is refused at load.
func TestAttrsOfATypedGroupIsRefused(t *testing.T) {
	text := strings.Replace(base, `where: e.attrs.volume != ""`, `where: e.attrs["state"] == "x"`, 1)
	err := compileText(t, text)
	if err == nil || !strings.Contains(err.Error(), `sig.yaml:21:14: step failed where: a group named "state" fills the signal's typed field (string), never attrs`) {
		t.Fatalf("got %v", err)
	}
}

// A file may match a signal an earlier file of the load declares, not
// one a later file does: the files compile in parallel, in that order's
// sight.
func TestLaterFileUsesEarlierSignal(t *testing.T) {
	user := strings.Replace(base, "id: test-sig\n", "id: test-user\n", 1)
	i := strings.Index(user, "signals:\n")
	user = user[:i] + user[strings.Index(user, "match:\n"):] // declares none: uses a.yaml's test_volume_failed
	files := map[string]string{"a.yaml": base, "b.yaml": user}
	read := func(p string) ([]byte, error) { return []byte(files[p]), nil }
	sigs, err := compileAll([]string{"a.yaml", "b.yaml"}, read, false)
	if err != nil || len(sigs) != 2 || sigs[1].ID != "test-user" {
		t.Fatalf("a, b: %v %v", sigs, err)
	}
	_, err = compileAll([]string{"b.yaml", "a.yaml"}, read, false)
	if err == nil || !strings.Contains(err.Error(), `b.yaml:`) || !strings.Contains(err.Error(), `unknown signal kind "test_volume_failed"`) {
		t.Fatalf("b, a: got %v, want b.yaml's unknown kind", err)
	}
}
