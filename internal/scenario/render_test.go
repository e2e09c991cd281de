package scenario

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

var testStart = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)

// stackMsg is a multi-line record: a message with an exception, tab frames,
// a cause and "... N more".
const stackMsg = "Container allocation failed on pipeline=Pipeline-8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0\n" +
	"java.io.IOException: test failure\n" +
	"\tat org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl.submitRequest(SCMRatisServerImpl.java:229)\n" +
	"\tat org.apache.hadoop.hdds.scm.container.ContainerManagerImpl.allocateContainer(ContainerManagerImpl.java:271)\n" +
	"Caused by: java.util.concurrent.TimeoutException\n" +
	"\tat java.base/java.util.concurrent.CompletableFuture.get(CompletableFuture.java:2073)\n" +
	"\t... 12 more"

// testScenario is a 3 SCM / 3 OM / 3 DN cluster over two hours with a
// startup, a few fixed lines of every kind and a multi-line record.
func testScenario(t *testing.T) *Scenario {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	s := New(7, testStart, 2*time.Hour, NewCluster(rng, 3, 3, 3))
	s.Site = map[string]string{"ozone.scm.stale.node.interval": "90s", "hdds.heartbeat.interval": "10s", "ozone.om.service.ids": "omservice"}
	s.StartCluster(testStart)
	scm, dn := s.Cluster.SCMs[0], s.Cluster.Datanodes[0]
	// B01 ReplicationManager.java:385
	s.Add(Line{At: testStart.Add(time.Minute), Host: scm.Host, Level: parsers.LevelInfo, Logger: logReplicationManager,
		Thread: "scm1-ReplicationMonitor", Source: "ReplicationManager.java:385",
		Msg: "Replication Monitor Thread took 3 milliseconds for processing 12 containers."})
	// B38 ContainerManagerImpl.java:381 + exception
	s.Add(Line{At: testStart.Add(2 * time.Minute), Host: scm.Host, Level: parsers.LevelWarn, Logger: logContainerManager,
		Thread: "IPC Server handler 3 on default port 9863", Source: "ContainerManagerImpl.java:381", Msg: stackMsg})
	// E.1 #20 RaftServerImpl.java:393, no Source: layouts derive it
	s.Add(Line{At: testStart.Add(3 * time.Minute), Host: dn.Host, Level: parsers.LevelInfo, Logger: logRaftDivision,
		Thread: dn.UUID + "-server-thread1", Msg: dn.UUID + "@group-4C3FA0E1B2D9: changes role from  FOLLOWER to CANDIDATE at term 1 for changeToCandidate"})
	// stdout line of a .out file (raw)
	s.Add(Line{At: testStart.Add(4 * time.Minute), Host: dn.Host, File: parsers.KindOut, Msg: "core file size          (blocks, -c) 0"})
	// SEND_HEARTBEAT audit, signatures-scm.md §4.2
	s.Add(Line{At: testStart.Add(5 * time.Minute), Host: scm.Host, File: parsers.KindAudit, Level: parsers.LevelInfo, Logger: "SCMAudit",
		Msg: `user=dn | ip=` + dn.IP + ` | op=SEND_HEARTBEAT {"datanodeUUID":"` + dn.UUID + `","command":"[]","term":"7"} | ret=SUCCESS`})
	// dn-container, ContainerLogger.java:56-87
	s.Add(Line{At: testStart.Add(6 * time.Minute), Host: dn.Host, File: parsers.KindContainer, Level: parsers.LevelInfo,
		Msg: "ID=2 | Index=0 | BCSID=0 | State=OPEN | Volume=/data/hdds/hdds | DataChecksum=0"})
	return s
}

const stampRe = `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}`

// headerRes recognise a record's first line in each layout.
var headerRes = map[string]*regexp.Regexp{
	LayoutFile:    regexp.MustCompile(`^` + stampRe + ` \[[^\]]+\] (INFO|WARN|ERROR) [a-z]+(\.[\w$]+){2,}: `),
	LayoutConsole: regexp.MustCompile(`^` + stampRe + ` \[[^\]]+\] (INFO|WARN|ERROR) ([\w$]+\.)?[A-Z][\w$]*: `),
	LayoutCDP:     regexp.MustCompile(`^` + stampRe + ` (INFO|WARN|ERROR) [a-z]+(\.[\w$]+){2,}: `),
	LayoutHelm:    regexp.MustCompile(`^` + stampRe + ` \[[^\]]+\] (INFO |WARN |ERROR) ([\w$]+\.)?[A-Z][\w$]* \([A-Z]\w*\.java:log\(\d+\)\) - `),
	LayoutIDE:     regexp.MustCompile(`^` + stampRe + ` (INFO |WARN |ERROR) ([\w$]+\.)?[A-Z][\w$]* \([A-Z]\w*\.java:log\(\d+\)\) - `),
	LayoutK8s:     regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (INFO |WARN |ERROR) [A-Z][\w$]*:\d+ - `),
}

// continuationRe recognises the non-first lines of the records rendered
// here: stack frames, causes, banner lines, exception messages.
var continuationRe = regexp.MustCompile(`^(\t|Caused by: |/\*{60}$|\*{60}/$|STARTUP_MSG: |SHUTDOWN_MSG: |java\.io\.IOException: )`)

var composePrefixRe = regexp.MustCompile(`^(scm\d_1|om\d_1|datanode_\d) +\| `)

var (
	auditRe     = regexp.MustCompile(`^` + stampRe + ` \| (INFO |WARN |ERROR) \| (SCMAudit|DNAudit|OMAudit) \| user=\S+ \| ip=\S+ \| op=[A-Z_]+ \{.*\} \| ret=SUCCESS \|  $`)
	containerRe = regexp.MustCompile(`^` + stampRe + ` \| INFO  \| ID=\d+ \| Index=0 \| BCSID=\d+ \| State=[A-Z_]+ \| Volume=\S+ \| DataChecksum=[0-9a-f]+ \|  $`)
)

// readBundle returns every file under dir by slash path relative to dir,
// gzip files decompressed.
func readBundle(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			if b, err = io.ReadAll(zr); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func render(t *testing.T, s *Scenario, r Render) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	if err := s.Render(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir, readBundle(t, dir)
}

func lines(content string) []string {
	return strings.Split(strings.TrimSuffix(content, "\n"), "\n")
}

// checkLayout checks that every line of a main log is a header of the
// layout or a continuation line, and returns the number of records.
func checkLayout(t *testing.T, name, content string, header *regexp.Regexp) int {
	t.Helper()
	records := 0
	for i, l := range lines(content) {
		switch {
		case header.MatchString(l):
			records++
		case i > 0 && continuationRe.MatchString(l):
		default:
			t.Errorf("%s:%d: neither a header nor a continuation line: %q", name, i+1, l)
			return records
		}
	}
	return records
}

func TestRenderLayouts(t *testing.T) {
	for _, layout := range []string{LayoutFile, LayoutConsole, LayoutCDP, LayoutHelm, LayoutIDE, LayoutK8s} {
		t.Run(layout, func(t *testing.T) {
			s := testScenario(t)
			_, files := render(t, s, Render{Layout: layout})
			for _, n := range s.Cluster.Nodes() {
				name := n.Short() + "/ozone-hadoop-" + string(n.Component) + "-" + n.Host + ".log"
				content, ok := files[name]
				if !ok {
					t.Fatalf("missing %s; have %v", name, keys(files))
				}
				want := 0
				for _, l := range s.Lines(n.Host) {
					if l.File == parsers.KindLog {
						want++
					}
				}
				if got := checkLayout(t, name, content, headerRes[layout]); got != want {
					t.Errorf("%s: %d records, want %d", name, got, want)
				}
			}
			// With background noise every line still fits the layout.
			_, files = render(t, s, Render{Layout: layout, Noise: 4})
			for name, content := range files {
				if strings.HasPrefix(filepath.Base(name), "ozone-hadoop-") && strings.HasSuffix(name, ".log") {
					if checkLayout(t, name, content, headerRes[layout]) < 50 {
						t.Errorf("%s: too few records with noise", name)
					}
				}
			}
		})
	}
}

// TestRenderExactLines pins one line per layout.
func TestRenderExactLines(t *testing.T) {
	s := testScenario(t)
	scm := s.Cluster.SCMs[0]
	dn := s.Cluster.Datanodes[0]
	raft := dn.UUID + "@group-4C3FA0E1B2D9: changes role from  FOLLOWER to CANDIDATE at term 1 for changeToCandidate"
	cases := []struct {
		layout, host, want string
	}{
		{LayoutFile, scm.Short(), "2026-08-23 10:01:00,000 [scm1-ReplicationMonitor] INFO org.apache.hadoop.hdds.scm.container.replication.ReplicationManager: Replication Monitor Thread took 3 milliseconds for processing 12 containers."},
		{LayoutConsole, scm.Short(), "2026-08-23 10:01:00,000 [scm1-ReplicationMonitor] INFO replication.ReplicationManager: Replication Monitor Thread took 3 milliseconds for processing 12 containers."},
		{LayoutConsole, dn.Short(), "2026-08-23 10:03:00,000 [" + dn.UUID + "-server-thread1] INFO server.RaftServer$Division: " + raft},
		{LayoutCDP, scm.Short(), "2026-08-23 10:01:00,000 INFO org.apache.hadoop.hdds.scm.container.replication.ReplicationManager: Replication Monitor Thread took 3 milliseconds for processing 12 containers."},
		{LayoutHelm, scm.Short(), "2026-08-23 10:01:00,000 [scm1-ReplicationMonitor] INFO  replication.ReplicationManager (ReplicationManager.java:log(385)) - Replication Monitor Thread took 3 milliseconds for processing 12 containers."},
		{LayoutHelm, dn.Short(), "2026-08-23 10:03:00,000 [" + dn.UUID + "-server-thread1] INFO  server.RaftServer$Division (RaftServer.java:log(0)) - " + raft},
		{LayoutIDE, scm.Short(), "2026-08-23 10:02:00,000 WARN  container.ContainerManagerImpl (ContainerManagerImpl.java:log(381)) - Container allocation failed on pipeline=Pipeline-8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"},
		{LayoutK8s, scm.Short(), "2026-08-23 10:01:00 INFO  ReplicationManager:385 - Replication Monitor Thread took 3 milliseconds for processing 12 containers."},
		{LayoutK8s, dn.Short(), "2026-08-23 10:03:00 INFO  RaftServer$Division:0 - " + raft},
	}
	for _, c := range cases {
		_, files := render(t, s, Render{Layout: c.layout})
		n, _ := s.Cluster.Node(c.host)
		content := files[c.host+"/ozone-hadoop-"+string(n.Component)+"-"+n.Host+".log"]
		if !strings.Contains(content, "\n"+c.want+"\n") {
			t.Errorf("%s %s: missing line\n%s\nin\n%s", c.layout, c.host, c.want, content)
		}
	}
	// The stack trace follows its header unchanged.
	_, files := render(t, s, Render{})
	content := files[scm.Short()+"/ozone-hadoop-scm-"+scm.Host+".log"]
	want := "2026-08-23 10:02:00,000 [IPC Server handler 3 on default port 9863] WARN org.apache.hadoop.hdds.scm.container.ContainerManagerImpl: " + stackMsg + "\n"
	if !strings.Contains(content, want) {
		t.Errorf("stack trace record not rendered intact:\n%s", content)
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestRenderFilesAndSideLogs(t *testing.T) {
	s := testScenario(t)
	_, files := render(t, s, Render{Noise: 3})
	scm, dn := s.Cluster.SCMs[0], s.Cluster.Datanodes[0]
	for _, name := range []string{
		scm.Short() + "/ozone-hadoop-scm-" + scm.Host + ".log",
		scm.Short() + "/scm-audit-" + scm.Host + ".log",
		scm.Short() + "/ozone-site.xml",
		dn.Short() + "/ozone-hadoop-datanode-" + dn.Host + ".log",
		dn.Short() + "/ozone-hadoop-datanode-" + dn.Host + ".out",
		dn.Short() + "/dn-container-" + dn.Host + ".log",
		dn.Short() + "/dn-audit-" + dn.Host + ".log",
		"om1/ozone-hadoop-om-om1.example.com.log",
	} {
		if _, ok := files[name]; !ok {
			t.Errorf("missing %s; have %v", name, keys(files))
		}
	}
	if got := files[dn.Short()+"/ozone-hadoop-datanode-"+dn.Host+".out"]; got != "core file size          (blocks, -c) 0\n" {
		t.Errorf(".out = %q, want the raw line", got)
	}
	for name, content := range files {
		var re *regexp.Regexp
		switch base := filepath.Base(name); {
		case strings.Contains(base, "-audit-"):
			re = auditRe
		case strings.HasPrefix(base, "dn-container-"):
			re = containerRe
		default:
			continue
		}
		for i, l := range lines(content) {
			if !re.MatchString(l) {
				t.Errorf("%s:%d: %q does not match %s", name, i+1, l, re)
				break
			}
		}
	}
	got, err := site.ParseXML(strings.NewReader(files[scm.Short()+"/ozone-site.xml"]))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(s.Site) {
		t.Errorf("ozone-site.xml has %d properties, want %d", len(got), len(s.Site))
	}
	for k, v := range s.Site {
		if got[k] != v {
			t.Errorf("ozone-site.xml %s = %q, want %q", k, got[k], v)
		}
	}
}

func TestRenderCompose(t *testing.T) {
	s := testScenario(t)
	_, files := render(t, s, Render{Layout: LayoutCompose, Noise: 2})
	content, ok := files[ComposeFile]
	if !ok {
		t.Fatalf("missing %s; have %v", ComposeFile, keys(files))
	}
	for name := range files {
		if strings.HasPrefix(filepath.Base(name), "ozone-hadoop-") && strings.HasSuffix(name, ".log") {
			t.Errorf("compose layout wrote a per-host main log %s", name)
		}
	}
	width := -1
	services := map[string]bool{}
	var last time.Time
	stripped := &strings.Builder{}
	for i, l := range lines(content) {
		m := composePrefixRe.FindString(l)
		if m == "" {
			t.Fatalf("line %d has no compose prefix: %q", i+1, l)
		}
		if width >= 0 && len(m) != width {
			t.Fatalf("line %d: prefix %q not padded to the common width %d", i+1, m, width)
		}
		width = len(m)
		services[strings.TrimSpace(strings.TrimSuffix(m, "| "))] = true
		rest := l[len(m):]
		stripped.WriteString(rest + "\n")
		if headerRes[LayoutConsole].MatchString(rest) {
			at, err := time.Parse(stampISO8601, rest[:23])
			if err != nil {
				t.Fatal(err)
			}
			if at.Before(last) {
				t.Fatalf("line %d: records not interleaved in time order", i+1)
			}
			last = at
		}
	}
	checkLayout(t, ComposeFile, stripped.String(), headerRes[LayoutConsole])
	for _, want := range []string{"scm1_1", "scm3_1", "om2_1", "datanode_1", "datanode_3"} {
		if !services[want] {
			t.Errorf("service %s missing; have %v", want, services)
		}
	}
	// The multi-line record keeps its prefix on every line.
	if !strings.Contains(content, "scm1_1     | \tat org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl.submitRequest") {
		t.Errorf("continuation line without its prefix")
	}
}

func TestRenderRotation(t *testing.T) {
	for _, gz := range []bool{false, true} {
		s := testScenario(t)
		_, plain := render(t, s, Render{Noise: 3})
		_, rotated := render(t, s, Render{Noise: 3, Rotate: true, Gzip: gz})
		for _, n := range s.Cluster.Nodes() {
			name := n.Short() + "/ozone-hadoop-" + string(n.Component) + "-" + n.Host + ".log"
			parts := []string{name + ".2", name + ".1", name}
			if gz {
				parts = []string{name + "-2.gz", name + "-1.gz", name}
			}
			var joined strings.Builder
			for _, p := range parts {
				content, ok := rotated[p]
				if !ok {
					t.Fatalf("gzip=%v: missing %s; have %v", gz, p, keys(rotated))
				}
				if content == "" || !headerRes[LayoutFile].MatchString(content) {
					t.Errorf("gzip=%v: %s does not start with a record: %.80q", gz, p, content)
				}
				joined.WriteString(content)
			}
			if joined.String() != plain[name] {
				t.Errorf("gzip=%v: rotations of %s do not add up to the unrotated log", gz, name)
			}
		}
		scm := s.Cluster.SCMs[0]
		stack := "WARN org.apache.hadoop.hdds.scm.container.ContainerManagerImpl: " + stackMsg + "\n"
		found := 0
		for name, content := range rotated {
			if strings.Contains(name, scm.Host+".log") && strings.Contains(content, stack) {
				found++
			}
		}
		if found != 1 {
			t.Errorf("gzip=%v: the stack-trace record is whole in %d files, want 1", gz, found)
		}
	}
}

func TestSplitRecords(t *testing.T) {
	recs := [][]string{{"a"}, {"b", "\tat x"}, {"c"}, {"d"}, {"e"}}
	for n := 1; n <= 6; n++ {
		parts := splitRecords(recs, n)
		if want := min(n, len(recs)); len(parts) != want {
			t.Errorf("n=%d: %d parts, want %d", n, len(parts), want)
		}
		total := 0
		for _, p := range parts {
			if len(p) == 0 {
				t.Errorf("n=%d: empty part", n)
			}
			total += len(p)
		}
		if total != len(recs) {
			t.Errorf("n=%d: %d records in parts, want %d", n, total, len(recs))
		}
	}
	// One huge record first: every later part still gets a record.
	huge := [][]string{{strings.Repeat("x", 1000)}, {"a"}, {"b"}}
	if parts := splitRecords(huge, 3); len(parts) != 3 {
		t.Errorf("huge first record: %d parts, want 3", len(parts))
	}
}

func TestRenderDeterministic(t *testing.T) {
	r := Render{Layout: LayoutHelm, Noise: 5, Rotate: true, Gzip: true, Skew: map[string]time.Duration{"dn2": 3 * time.Second}}
	s := testScenario(t)
	dir1 := t.TempDir()
	dir2 := t.TempDir()
	if err := s.Render(dir1, r); err != nil {
		t.Fatal(err)
	}
	if err := s.Render(dir2, r); err != nil {
		t.Fatal(err)
	}
	// A scenario built again from the same seed renders the same bytes too.
	dir3 := t.TempDir()
	if err := testScenario(t).Render(dir3, r); err != nil {
		t.Fatal(err)
	}
	raw := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b, c := raw(dir1), raw(dir2), raw(dir3)
	if len(a) == 0 || len(a) != len(b) || len(a) != len(c) {
		t.Fatalf("file counts differ: %d, %d, %d", len(a), len(b), len(c))
	}
	for name, want := range a {
		if !bytes.Equal(b[name], want) || !bytes.Equal(c[name], want) {
			t.Errorf("%s differs between renders", name)
		}
	}
	// A different seed gives different background.
	other := New(8, testStart, 2*time.Hour, NewCluster(rand.New(rand.NewSource(8)), 3, 3, 3))
	dir4 := t.TempDir()
	if err := other.Render(dir4, Render{Noise: 5}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(raw(dir4)["scm1/ozone-hadoop-scm-scm1.example.com.log"], raw(dir1)["scm1/ozone-hadoop-scm-scm1.example.com.log"]) {
		t.Error("different seeds rendered the same SCM log")
	}
}

// firstStamp returns the timestamp of the first line in content containing marker.
func firstStamp(t *testing.T, content, marker, layout string) time.Time {
	t.Helper()
	for _, l := range lines(content) {
		if strings.Contains(l, marker) {
			at, err := time.Parse(layout, l[:len(layout)])
			if err != nil {
				t.Fatal(err)
			}
			return at
		}
	}
	t.Fatalf("no line with %q", marker)
	return time.Time{}
}

func TestRenderSkewAndZone(t *testing.T) {
	s := testScenario(t)
	scm, dn := s.Cluster.SCMs[0], s.Cluster.Datanodes[0]
	scmLog := scm.Short() + "/ozone-hadoop-scm-" + scm.Host + ".log"
	dnLog := dn.Short() + "/ozone-hadoop-datanode-" + dn.Host + ".log"
	dnContainer := dn.Short() + "/dn-container-" + dn.Host + ".log"
	_, base := render(t, s, Render{})
	_, skewed := render(t, s, Render{Skew: map[string]time.Duration{dn.Short(): 90*time.Second + 250*time.Millisecond}})
	shift := func(name, marker string) time.Duration {
		return firstStamp(t, skewed[name], marker, stampISO8601).Sub(firstStamp(t, base[name], marker, stampISO8601))
	}
	if d := shift(dnLog, "changes role from"); d != 90*time.Second+250*time.Millisecond {
		t.Errorf("dn log shifted by %s, want 1m30.25s", d)
	}
	if d := shift(dnContainer, "State=OPEN"); d != 90*time.Second+250*time.Millisecond {
		t.Errorf("dn-container log shifted by %s, want 1m30.25s", d)
	}
	if d := shift(scmLog, "Replication Monitor"); d != 0 {
		t.Errorf("unskewed scm log shifted by %s", d)
	}
	_, zoned := render(t, s, Render{Zone: time.FixedZone("CEST", 2*3600)})
	got := firstStamp(t, zoned[scmLog], "Replication Monitor", stampISO8601)
	if want := time.Date(2026, 8, 23, 12, 1, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("zoned stamp reads %s, want 12:01 wall clock", got)
	}
}

func TestRenderCRLF(t *testing.T) {
	s := testScenario(t)
	_, files := render(t, s, Render{CRLF: true, Noise: 2})
	checked := 0
	for name, content := range files {
		if strings.HasSuffix(name, ".xml") {
			continue
		}
		if !strings.HasSuffix(content, "\r\n") {
			t.Errorf("%s does not end with CRLF", name)
		}
		if strings.Count(content, "\n") != strings.Count(content, "\r\n") {
			t.Errorf("%s has bare LF line ends", name)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d files checked", checked)
	}
}

func TestRenderErrors(t *testing.T) {
	s := testScenario(t)
	if err := s.Render(t.TempDir(), Render{Layout: "L9"}); err == nil {
		t.Error("unknown layout accepted")
	}
	s.Add(Line{At: testStart, Host: "nowhere.example.com", Msg: "x"})
	if err := s.Render(t.TempDir(), Render{}); err == nil {
		t.Error("line of an unknown host accepted")
	}
}

func TestAbbreviate(t *testing.T) {
	for _, c := range []struct {
		logger string
		n      int
		want   string
	}{
		{"org.apache.ratis.server.RaftServer$Division", 2, "server.RaftServer$Division"},
		{"org.apache.hadoop.hdds.scm.node.StaleNodeHandler", 2, "node.StaleNodeHandler"},
		{"org.apache.hadoop.hdds.scm.node.StaleNodeHandler", 1, "StaleNodeHandler"},
		{"SCMAudit", 2, "SCMAudit"},
		{"a.B", 2, "a.B"},
	} {
		if got := abbreviate(c.logger, c.n); got != c.want {
			t.Errorf("abbreviate(%q, %d) = %q, want %q", c.logger, c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		l          Line
		file, line string
	}{
		{Line{Source: "RaftServerImpl.java:393"}, "RaftServerImpl.java", "393"},
		{Line{Source: "ratis-server/src/main/java/org/apache/ratis/server/impl/RaftServerImpl.java:393"}, "RaftServerImpl.java", "393"},
		{Line{Logger: "org.apache.ratis.server.RaftServer$Division"}, "RaftServer.java", "0"},
	} {
		if f, l := sourceOf(c.l); f != c.file || l != c.line {
			t.Errorf("sourceOf(%+v) = %s:%s, want %s:%s", c.l, f, l, c.file, c.line)
		}
	}
}
