package catalogue

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

func TestAhoCorasickFindsEveryLiteral(t *testing.T) {
	m := newACMatcher([]string{"he", "she", "his", "hers", "Skipping heartbeat"})
	cases := map[string][]int{
		"ushers":                       {1, 0, 3},
		"nothing here? no: th":         {0},
		"xx Skipping heartbeat checks": {0, 4},
		"zzz":                          nil,
		"":                             nil,
	}
	for text, want := range cases {
		seen := map[int]bool{}
		for _, i := range m.appendMatches(nil, text) {
			seen[i] = true
		}
		if len(seen) != len(want) {
			t.Errorf("%q: got %v, want %v", text, seen, want)
		}
		for _, w := range want {
			if !seen[w] {
				t.Errorf("%q: literal %d not found", text, w)
			}
		}
		if m.any([]byte(text)) != (len(want) > 0) {
			t.Errorf("%q: any() disagrees with each()", text)
		}
	}
}

func TestStartupBanner(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	// Rendered from shared/ozone signatures-dn-om.md C.3 (STARTUP_MSG banner).
	msg := "STARTUP_MSG: \n/************************************************************\n" +
		"STARTUP_MSG: Starting OzoneManager\n" +
		"STARTUP_MSG:        host = om4.example.com/10.0.0.14\n" +
		"STARTUP_MSG:     version = 2.1.0\n" +
		"STARTUP_MSG:       build = https://github.com/apache/ozone/abc\n" +
		"STARTUP_MSG:        java = 17.0.15\n" +
		"STARTUP_MSG:        args = [--bootstrap]\n" +
		"STARTUP_MSG:   classpath = /opt/ozone/lib/a.jar\n" +
		"STARTUP_MSG:        conf = {ozone.scm.stale.node.interval=30s}\n" +
		"************************************************************/"
	r := &parsers.Record{Time: time.Unix(1, 0), Logger: "org.apache.hadoop.ozone.om.OzoneManagerStarter", Message: msg}
	if !c.Candidate([]byte("STARTUP_MSG: ")) {
		t.Fatal("banner first line is not a candidate")
	}
	sigs := c.Match(r)
	if len(sigs) != 1 || sigs[0].Kind != StartupMsg {
		t.Fatalf("got %+v", sigs)
	}
	s := sigs[0]
	if s.Attrs["service"] != "OzoneManager" || s.Attrs["hostname"] != "om4.example.com" || s.Attrs["ip"] != "10.0.0.14" ||
		s.Version != "2.1.0" || s.Attrs["args"] != "--bootstrap" || s.Attrs["conf"] != "ozone.scm.stale.node.interval=30s" {
		t.Errorf("fields: %+v", s)
	}
}

func TestParsers(t *testing.T) {
	d := ParseDatanode("3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(dn1.example.com/10.0.0.11)")
	if d != (Datanode{UUID: "3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f", Host: "dn1.example.com", IP: "10.0.0.11"}) {
		t.Errorf("short form: %+v", d)
	}
	d = ParseDatanode("3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f{ip: 10.0.0.11, host: dn1.example.com, ports: []}")
	if d.Host != "dn1.example.com" || d.IP != "10.0.0.11" {
		t.Errorf("long form: %+v", d)
	}
	if got := ParsePipelineID("PipelineID=8A1C2D3E-4F50-6172-8394-A5B6C7D8E9F0"); got != "8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0" {
		t.Errorf("pipeline: %q", got)
	}
	for in, want := range map[string][]string{
		"peers:[omNode-1|om1:9872, omNode-4|om4:9872]|listeners:[]":                       {"omNode-1", "omNode-4"},
		"[omNode-1|rpc:om1:9872|admin:|client:|dataStream:|priority:1, omNode-2|rpc:om2]": {"omNode-1", "omNode-2"},
		"omNode-1(om1:9872), omNode-2(om2:9872)":                                          {"omNode-1", "omNode-2"},
	} {
		got := ParsePeers(in)
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("peers %q: %v", in, got)
		}
	}
	for in, want := range map[string]time.Duration{"52.114s": 52114 * time.Millisecond, "52s": 52 * time.Second, "300ms": 300 * time.Millisecond, "1day": 24 * time.Hour, "99999999999999999999s": 0} {
		if got := ParseRatisDuration(in); got != want {
			t.Errorf("duration %q: %v", in, got)
		}
	}
}

// any() agrees with a plain substring search on random text over a small
// alphabet, where literals overlap and restart often.
func TestAhoCorasickAgreesWithStringsContains(t *testing.T) {
	lits := []string{"abc", "bca", "cab", "aab", "c:a", ": s", "zz"}
	m := newACMatcher(lits)
	rng := rand.New(rand.NewSource(1))
	alphabet := "abc: sz"
	for n := 0; n < 20000; n++ {
		b := make([]byte, rng.Intn(12))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		want := false
		for _, l := range lits {
			want = want || strings.Contains(string(b), l)
		}
		if got := m.any(b); got != want {
			t.Fatalf("%q: any() = %v, want %v", b, got, want)
		}
	}
}
