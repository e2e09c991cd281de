package catalogue

import (
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ozdoctor/ozdoctor/parsers"
)

func TestKeyFilterFindsEveryKey(t *testing.T) {
	f := newKeyFilter([]string{"he", "she", "his", "hers", "Skipping heartbeat"}, nil)
	cases := map[string][]int{
		"ushers":                       {1, 0, 3},
		"nothing here? no: th":         {0},
		"xx Skipping heartbeat checks": {0, 4},
		"zzz":                          nil,
		"":                             nil,
	}
	for text, want := range cases {
		seen := map[int]bool{}
		for _, i := range f.appendKeys(nil, text) {
			seen[i] = true
		}
		if len(seen) != len(want) {
			t.Errorf("%q: got %v, want %v", text, seen, want)
		}
		for _, w := range want {
			if !seen[w] {
				t.Errorf("%q: key %d not found", text, w)
			}
		}
		if f.any([]byte(text)) != (len(want) > 0) {
			t.Errorf("%q: any() disagrees with appendKeys()", text)
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
	if !c.Candidate(nil, []byte("STARTUP_MSG: ")) {
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
	// The signal must not keep the banner (its classpath runs to tens of
	// kilobytes) alive through its text or fields.
	kept := map[string]string{"text": s.Text, "version": s.Version}
	for k, v := range s.Attrs {
		kept[k] = v
	}
	for name, v := range kept {
		if inside(v, msg) {
			t.Errorf("%s %q points into the record's message", name, v)
		}
	}
}

// inside reports whether the bytes of s lie within those of msg.
func inside(s, msg string) bool {
	p, m := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(msg)))
	return len(s) > 0 && p >= m && p < m+uintptr(len(msg))
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

// The key filter agrees with a plain substring search on random text over
// a small alphabet, where keys overlap and restart often, with keys whose
// windows start at their first byte and past it.
func TestKeyFilterAgreesWithStringsContains(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, keys := range [][]string{
		{"abc", "bca", "cab", "aab", "c:a", ": s", "zz"},
		{"ab", "Zb", "a:Z"},
		{"abcaZ", "ab:Za", "bbbbb", "Za\xffa", "a bc ab"},
		{"\xff\xfe", "aZ\x00"},
	} {
		f := newKeyFilter(keys, nil)
		alphabet := "abc: sz\xffZ"
		for n := 0; n < 20000; n++ {
			b := make([]byte, rng.Intn(16))
			for i := range b {
				b[i] = alphabet[rng.Intn(len(alphabet))]
			}
			want := false
			for _, k := range keys {
				want = want || strings.Contains(string(b), k)
			}
			if got := f.any(b); got != want {
				t.Fatalf("keys %q, %q: any() = %v, want %v", keys, b, got, want)
			}
		}
	}
}

// Every key of the catalogue is found wherever it stands in a log line,
// and a line that holds a key but for one byte is not a candidate.
func TestCandidateFindsEveryKey(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, l := range c.Literals() {
		keys = append(keys, prefilterKey(l))
	}
	rng := rand.New(rand.NewSource(2))
	// A line of the background (shared/ozone, SCMNodeManager's heartbeat
	// report) around the key: it holds no key itself.
	line := "Datanode 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(dn1.example.com/10.0.0.11) sent a heartbeat"
	if c.Candidate(nil, []byte(line)) {
		t.Fatalf("%q is a candidate", line)
	}
	for _, k := range keys {
		for range 20 {
			at := rng.Intn(len(line) + 1)
			in := line[:at] + k + line[at:]
			if !c.Candidate(nil, []byte(in)) {
				t.Errorf("%q is not a candidate: key %q", in, k)
			}
			i := rng.Intn(len(k))
			cut := line[:at] + k[:i] + k[i+1:] + line[at:]
			want := false
			for _, other := range keys {
				want = want || strings.Contains(cut, other)
			}
			if c.Candidate(nil, []byte(cut)) != want {
				t.Errorf("%q: candidate %v, want %v", cut, !want, want)
			}
		}
	}
}

// A record's logger narrows the keys looked for: of a logger no entry
// names, only the entries that name none can match; of an entry's logger
// (in any of its renderings), that entry's keys count too, and another
// logger's entries' keys do not; of no logger, every key counts. A scanner's
// Filter gives Candidate's verdicts over loggers in any order, many more
// than it has slots for.
func TestCandidateByLogger(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var unnamed []string
	byLogger := map[string][]string{}
	for _, e := range c.Entries() {
		for _, l := range e.Literals {
			if len(e.Loggers) == 0 {
				unnamed = append(unnamed, prefilterKey(l))
			}
			for _, lg := range e.Loggers {
				byLogger[lg] = append(byLogger[lg], prefilterKey(l))
			}
		}
	}
	holds := func(line string, keys ...[]string) bool {
		for _, ks := range keys {
			if slices.ContainsFunc(ks, func(k string) bool { return strings.Contains(line, k) }) {
				return true
			}
		}
		return false
	}
	f := c.Filter()
	check := func(logger, line string, want bool) {
		t.Helper()
		if got := c.Candidate([]byte(logger), []byte(line)); got != want {
			t.Errorf("logger %q, %q: Candidate %v, want %v", logger, line, got, want)
		}
		if got := f.Candidate([]byte(logger), []byte(line)); got != want {
			t.Errorf("logger %q, %q: Filter.Candidate %v, want %v", logger, line, got, want)
		}
	}
	quiet, quietNamed := 0, 0
	entries := c.Entries()
	for i, e := range entries {
		for _, l := range e.Literals {
			line := "at " + l + " then"
			check("", line, true)
			for _, lg := range e.Loggers {
				check("org.apache.hadoop.hdds."+lg, line, true)
				check(lg, line, true)
				check(lg+":"+fmt.Sprint(100+i), line, true) // layout L6
			}
			// The next entry's loggers that this one does not name.
			for _, lg := range entries[(i+1)%len(entries)].Loggers {
				if slices.Contains(e.Loggers, lg) {
					continue
				}
				want := holds(line, unnamed, byLogger[lg])
				if !want {
					quietNamed++
				}
				check("org.apache.hadoop.hdds."+lg, line, want)
			}
			want := holds(line, unnamed)
			if !want {
				quiet++
			}
			for j := range 3 {
				check(fmt.Sprintf("org.example.Unrelated%d", 7*i+j), line, want)
			}
		}
	}
	if quiet == 0 || quietNamed == 0 {
		t.Fatalf("literals left out: %d for an unrelated logger, %d for another entry's logger; want some of both", quiet, quietNamed)
	}
}

// The regular expressions ParseDatanode's two DatanodeDetails forms were
// read with before it parsed them by hand: the reference it must agree with.
var (
	refShortRe = regexp.MustCompile(`^([0-9a-fA-F-]{36})\(([^/()]*)/([^()]*)\)`)
	refLongRe  = regexp.MustCompile(`^([0-9a-fA-F-]{36})\{ip: ([^,]*), host: ([^,]*)`)
)

func refParseDatanode(v string) Datanode {
	v = strings.TrimSpace(v)
	if m := refShortRe.FindStringSubmatch(v); m != nil {
		return Datanode{UUID: strings.ToLower(m[1]), Host: m[2], IP: m[3]}
	}
	if m := refLongRe.FindStringSubmatch(v); m != nil {
		return Datanode{UUID: strings.ToLower(m[1]), IP: m[2], Host: m[3]}
	}
	if u := uuidRe.FindString(v); u != "" {
		return Datanode{UUID: strings.ToLower(u)}
	}
	return Datanode{Host: v}
}

const testUUID = "3B1F8A0E-6c1d-4d2f-9f5e-0a1b2c3d4e5f"

var datanodeSeeds = []string{
	testUUID + "(dn1.example.com/10.0.0.11)",
	"  " + testUUID + "(dn1.example.com/10.0.0.11) trailing",
	testUUID + "{ip: 10.0.0.11, host: dn1.example.com, ports: []}",
	testUUID + "{ip: 10.0.0.11, host: dn1.example.com}",
	testUUID + "{ip: 10.0.0.11, host: dn1, networkLocation: /default-rack, certSerialId: null}",
	testUUID + "(dn1/10.0.0.11/x)",  // an address with a slash
	testUUID + "(dn1(x)/10.0.0.11)", // a parenthesis in the host: not the short form
	testUUID + "(dn1/10.0.0.11(x))", // nor in the address
	testUUID + "(dn1.example.com)",  // no address
	testUUID + "(dn1/10.0.0.11",     // unclosed
	testUUID + "{ip: 10.0.0.11 host: dn1}",
	testUUID + "{ip: , host: }",
	testUUID + "()",
	testUUID,
	"------------------------------------(a/b)", // dashes only: the form, not a UUID
	"zz" + testUUID + "(dn1/10.0.0.11)",         // UUID not at the start
	"dn1.example.com",
	"",
	"3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5(dn1/10.0.0.11)", // 35 characters, then '('
}

// TestParseDatanodeAgreesWithTheRegularExpressions: the hand parser reads
// every form (and every near miss) as the regular expressions did.
func TestParseDatanodeAgreesWithTheRegularExpressions(t *testing.T) {
	for _, v := range datanodeSeeds {
		if got, want := ParseDatanode(v), refParseDatanode(v); got != want {
			t.Errorf("ParseDatanode(%q) = %+v, the regular expressions give %+v", v, got, want)
		}
	}
}

func FuzzParseDatanode(f *testing.F) {
	for _, v := range datanodeSeeds {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := ParseDatanode(v), refParseDatanode(v); got != want {
			t.Errorf("ParseDatanode(%q) = %+v, the regular expressions give %+v", v, got, want)
		}
	})
}

// GapText writes what fmt would, in fewer allocations.
func TestGapText(t *testing.T) {
	india := time.FixedZone("IST", 5*3600+1800)
	from := time.Date(2026, 8, 23, 10, 59, 57, 338_000_000, time.UTC)
	for _, to := range []time.Time{
		from.Add(10*time.Minute + 22662*time.Millisecond),
		from.Add(48 * time.Hour),
		from.Add(time.Nanosecond),
		from.In(india).Add(90 * time.Second),
		time.Date(12026, 1, 1, 0, 0, 0, 0, india),
	} {
		want := fmt.Sprintf("no record for %s (%s to %s)", to.Sub(from), from.Format(time.RFC3339), to.Format(time.RFC3339))
		if got := GapText(from, to); got != want {
			t.Errorf("GapText = %q, want %q", got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { GapText(from, from.Add(time.Minute)) }); n > 2 {
		t.Errorf("%v allocations, want at most 2", n)
	}
}
