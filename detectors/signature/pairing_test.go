package signature

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// pairSig counts ERROR pairs: the first line of each only once the
// caller's line follows it on the same host within 2s.
const pairSig = `signature: v1
id: pair-test
problem: pair
title: t
summary: "pairs on {{index .Entities.Hosts 0}}"
match:
  horizon: 1h
  max_open: 4
  steps:
    - name: pairs
      on: old_datanode_on_finalized_scm
      followed_by:
        on: invalid_datanode
        within: 2s
        where: e.host == first.host && e.thread == first.thread
      count: {min: 2}
      within: 10m
      emit: {severity: warning}
  resolve: {quiet: 5m}
entities:
  hosts: [pairs.first.host]
facts:
  count: pairs.count
  first_text: pairs.first.text
`

func half(kind catalogue.Kind, at time.Duration, host, thread string) catalogue.Signal {
	s := sig(kind, at, host, parsers.ComponentSCM)
	s.Thread = thread
	return s
}

func TestFollowedByPairsTheTwoLines(t *testing.T) {
	s := mustCompile(t, pairSig)
	t31, t30 := catalogue.OldDatanodeOnFinalizedSCM, catalogue.InvalidDatanode
	for _, tc := range []struct {
		name string
		in   []catalogue.Signal
		want string
	}{
		{"two pairs", []catalogue.Signal{half(t31, 0, "scm1", "a"), half(t30, 100*time.Millisecond, "scm1", "a"),
			half(t31, 30*time.Second, "scm1", "a"), half(t30, 31*time.Second, "scm1", "a")}, "31s >firing warning|5m31s firing>resolved warning"},
		{"first halves alone", []catalogue.Signal{half(t31, 0, "scm1", "a"), half(t31, 30*time.Second, "scm1", "a"),
			half(t31, 60*time.Second, "scm1", "a")}, ""},
		{"follower too late", []catalogue.Signal{half(t31, 0, "scm1", "a"), half(t30, 3*time.Second, "scm1", "a"),
			half(t31, 30*time.Second, "scm1", "a"), half(t30, 30*time.Second, "scm1", "a")}, ""},
		{"follower of another host or thread", []catalogue.Signal{half(t31, 0, "scm1", "a"), half(t30, 0, "scm2", "a"),
			half(t31, 30*time.Second, "scm1", "a"), half(t30, 30*time.Second, "scm1", "b")}, ""},
		{"followers alone", []catalogue.Signal{half(t30, 0, "scm1", "a"), half(t30, 30*time.Second, "scm1", "a")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trs, fs := run(t, s, tc.in, time.Hour)
			if got := strings.Join(trs, "|"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.want != "" {
				// The step binds the first line; its follower is no step.
				if f := fs[0]; f.Facts["count"] != "2" || f.Facts["first_text"] != string(t31)+" on scm1" {
					t.Errorf("facts %v", f.Facts)
				}
			}
		})
	}
}

// A held first line is state: a checkpoint between the two lines of a
// pair keeps it.
func TestFollowedByAcrossCheckpoints(t *testing.T) {
	s := mustCompile(t, pairSig)
	rng := rand.New(rand.NewSource(3))
	for seed := range 20 {
		var in []catalogue.Signal
		at := time.Duration(0)
		for range 40 {
			at += time.Duration(rng.Intn(90)) * time.Second
			host := fmt.Sprintf("scm%d", rng.Intn(2))
			in = append(in, half(catalogue.OldDatanodeOnFinalizedSCM, at, host, "t"))
			if rng.Intn(3) > 0 {
				in = append(in, half(catalogue.InvalidDatanode, at+time.Duration(rng.Intn(3))*time.Second, host, "t"))
			}
		}
		want, _ := run(t, s, in, at+time.Hour)
		cut := 1 + rng.Intn(len(in)-1)
		if got := runCut(t, s, in, cut, at+time.Hour); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("seed %d cut at %d:\n got %q\nwant %q", seed, cut, got, want)
		}
	}
}

func TestFollowedByLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown kind", "        on: invalid_datanode\n", "        on: invalid_datanod\n", `sig.yaml:13:9: step pairs followed_by: unknown signal kind "invalid_datanod"`},
		{"missing on", "        on: invalid_datanode\n", "", `sig.yaml:13:9: step pairs followed_by: missing on`},
		{"missing within", "        within: 2s\n", "", `step pairs followed_by: missing within`},
		{"long window", "within: 2s", "within: 2m", `sig.yaml:14:17: step pairs followed_by: within "2m": want a constant duration above 0 and at most 1m`},
		{"unknown variable", "first.thread", "second.thread", `step pairs followed_by where: undeclared reference to 'second'`},
		{"unknown key", "        within: 2s\n", "        within: 2s\n        widthin: 2s\n", `unknown key "widthin" in match.steps.followed_by`},
	} {
		t.Run(tc.name, func(t *testing.T) { wantEditedError(t, pairSig, tc.from, tc.to, tc.want) })
	}
}

// A join key and a pair's where may call the identity functions: a
// signal naming a datanode by host alone joins the incident of its UUID.
func TestJoinKeyAndPairReadTheIdentities(t *testing.T) {
	s := mustCompile(t, `signature: v1
id: identity-test
problem: identity
title: t
summary: "stale then healthy"
match:
  by: complete(e.datanode).uuid
  horizon: 1h
  max_open: 4
  steps:
    - name: stale
      on: scm_node_stale
      followed_by:
        on: scm_node_dead
        within: 2s
        where: complete(e.datanode).uuid == complete(first.datanode).uuid
    - name: back
      on: scm_node_healthy
      within: 1m
      emit: {severity: warning}
`)
	named := func(kind catalogue.Kind, at time.Duration, uuid, host string) catalogue.Signal {
		s := dnSig(kind, at, uuid)
		s.Datanode.Host = host
		return s
	}
	for _, tc := range []struct {
		name string
		host string // of the dead and healthy lines, which name no UUID
		want int
	}{
		{"the same datanode by host", "dn1.example.com", 1},
		{"near miss: another datanode", "dn2.example.com", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fs := run(t, s, []catalogue.Signal{
				named(catalogue.NodeStale, 0, "u-1", "dn1.example.com"),
				named(catalogue.NodeDead, time.Second, "", tc.host),
				named(catalogue.NodeHealthy, 20*time.Second, "", tc.host),
			}, time.Hour)
			if len(fs) != tc.want {
				t.Fatalf("findings %+v, want %d", fs, tc.want)
			}
		})
	}
}
