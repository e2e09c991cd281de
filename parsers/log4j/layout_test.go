package log4j

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// want is the part of a record a test checks.
type want struct {
	Line    int
	Time    string // "2006-01-02 15:04:05.000" in the record's zone, "" for untimed
	Level   parsers.Level
	Logger  string
	Thread  string
	Service string
	Message string
}

const wantTime = "2006-01-02 15:04:05.000"

func scanAll(t *testing.T, input string, opt Options) ([]want, Stats) {
	t.Helper()
	s := NewScanner(strings.NewReader(input), opt)
	var got []want
	for s.Next() {
		r := s.Record()
		w := want{Line: r.Line, Level: r.Level, Logger: r.Logger, Thread: r.Thread, Service: r.Service, Message: r.Message}
		if !r.Time.IsZero() {
			w.Time = r.Time.Format(wantTime)
		}
		if r.Host != "" || r.Component != "" || r.File != "" {
			t.Errorf("record %d: Host/Component/File must be left empty, got %q %q %q", r.Line, r.Host, r.Component, r.File)
		}
		got = append(got, w)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	return got, s.Stats()
}

func checkRecords(t *testing.T, got, exp []want) {
	t.Helper()
	if len(got) != len(exp) {
		t.Fatalf("got %d records, want %d:\n%s", len(got), len(exp), dump(got))
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Errorf("record %d:\n got %#v\nwant %#v", i, got[i], exp[i])
		}
	}
}

func dump(ws []want) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(strings.ReplaceAll(w.Message, "\n", "⏎") + "\n")
	}
	return b.String()
}

// T10 StaleNodeHandler.java:51 and T12 PipelineManagerImpl.java:483
// (signatures-scm.md §1.3), rendered in every layout of layouts.md §3.
func TestLayouts(t *testing.T) {
	const ts, tsNoMillis = "2026-08-23 10:20:10,416", "2026-08-23 10:20:10"
	const thread = "scm1-EventQueue-StaleNodeForStaleNodeHandler"
	const full, two, one = "org.apache.hadoop.hdds.scm.node.StaleNodeHandler", "node.StaleNodeHandler", "StaleNodeHandler"
	t12 := msgContainerClosed(1042)
	cases := []struct {
		name   string
		kind   parsers.Kind
		input  string
		layout string
		want   []want
	}{{
		// L1 %d{ISO8601} [%t] %p %c: %m%n — T10, T12.
		name: "L1",
		input: ts + " [" + thread + "] INFO " + full + ": " + msgStale + "\n" +
			"2026-08-23 10:20:10,431 [" + thread + "] INFO org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl: " + t12 + "\n",
		layout: "L1",
		want: []want{
			{Line: 1, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelInfo, Logger: full, Thread: thread, Message: msgStale},
			{Line: 2, Time: "2026-08-23 10:20:10.431", Level: parsers.LevelInfo, Logger: "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl", Thread: thread, Message: t12},
		},
	}, {
		// L2 %d{ISO8601} [%t] %p %c{2}: %m%n — T10.
		name:   "L2",
		input:  ts + " [" + thread + "] INFO " + two + ": " + msgStale + "\n",
		layout: "L2",
		want:   []want{{Line: 1, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelInfo, Logger: two, Thread: thread, Message: msgStale}},
	}, {
		// L3 %d{ISO8601} %p %c: %m%n — T10.
		name:   "L3",
		input:  ts + " INFO " + full + ": " + msgStale + "\n",
		layout: "L3",
		want:   []want{{Line: 1, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelInfo, Logger: full, Message: msgStale}},
	}, {
		// L3b `WARN [pool-28-thread-1]-org.apache…Impl: msg` — S2 PipelineActionHandler.java:117
		// (signatures-dn-om.md §A.3).
		name:   "L3b",
		input:  ts + " WARN [pool-28-thread-1]-org.apache.hadoop.hdds.scm.pipeline.PipelineActionHandler: Pipeline action received for unknown Pipeline " + pipe1 + ", firing close pipeline event.\n",
		layout: "L3b",
		want: []want{{Line: 1, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelWarn, Logger: "org.apache.hadoop.hdds.scm.pipeline.PipelineActionHandler",
			Thread: "pool-28-thread-1", Message: "Pipeline action received for unknown Pipeline " + pipe1 + ", firing close pipeline event."}},
	}, {
		// L4 %d{ISO8601} [%t] %-5p %c{2} (%F:%M(%L)) - %m%n — T10 (method name inferred).
		name:   "L4",
		input:  ts + " [" + thread + "] INFO  " + two + " (StaleNodeHandler.java:onMessage(51)) - " + msgStale + "\n",
		layout: "L4",
		want:   []want{{Line: 1, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelInfo, Logger: two, Thread: thread, Message: msgStale}},
	}, {
		// L5 %d{ISO8601} %-5p %c{2} (%F:%M(%L)) - %m%n — T10, and B38
		// ContainerManagerImpl.java:381 at WARN (padding of one).
		name: "L5",
		input: ts + " INFO  " + two + " (StaleNodeHandler.java:onMessage(51)) - " + msgStale + "\n" +
			"2026-08-23 10:20:11,002 WARN  container.ContainerManagerImpl (ContainerManagerImpl.java:allocateContainer(381)) - Container allocation failed on pipeline=" + pipe1 + "\n",
		layout: "L5",
		want: []want{
			{Line: 1, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelInfo, Logger: two, Message: msgStale},
			{Line: 2, Time: "2026-08-23 10:20:11.002", Level: parsers.LevelWarn, Logger: "container.ContainerManagerImpl", Message: "Container allocation failed on pipeline=" + pipe1},
		},
	}, {
		// L6 %d{yyyy-MM-dd HH:mm:ss} %-5p %c{1}:%L - %m%n — T10 and T05
		// RaftServerImpl.java:393 (role padded to 9, signatures-dn-om.md trap 2).
		name: "L6",
		input: tsNoMillis + " INFO  " + one + ":51 - " + msgStale + "\n" +
			"2026-08-23 10:20:12 INFO  RaftServer$Division:393 - " + scmPeer + "@" + group1 + ": changes role from    LEADER to FOLLOWER at term 5 for JVM_PAUSE\n",
		layout: "L6",
		want: []want{
			{Line: 1, Time: "2026-08-23 10:20:10.000", Level: parsers.LevelInfo, Logger: "StaleNodeHandler:51", Message: msgStale},
			{Line: 2, Time: "2026-08-23 10:20:12.000", Level: parsers.LevelInfo, Logger: "RaftServer$Division:393",
				Message: scmPeer + "@" + group1 + ": changes role from    LEADER to FOLLOWER at term 5 for JVM_PAUSE"},
		},
	}, {
		// L7 audit — the SEND_HEARTBEAT example of signatures-scm.md §4.2 (two
		// trailing spaces: empty %throwable then " %n"), and an unpadded level.
		name: "L7",
		input: "2026-08-23 10:21:01,114 | INFO  | SCMAudit | user=dn | ip=10.0.0.11 | op=SEND_HEARTBEAT {\"datanodeUUID\":\"3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f\",\"command\":\"[]\",\"term\":\"7\"} | ret=SUCCESS |  \n" +
			"2026-08-23 10:21:02,530 | INFO | SCMAudit | user=dn | ip=10.0.0.13 | op=REGISTER {\"datanodeDetails\":\"7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c(dn3.example.com/10.0.0.13)\"} | ret=SUCCESS |  \n",
		layout: "L7",
		want: []want{
			{Line: 1, Time: "2026-08-23 10:21:01.114", Level: parsers.LevelInfo, Logger: "SCMAudit",
				Message: "user=dn | ip=10.0.0.11 | op=SEND_HEARTBEAT {\"datanodeUUID\":\"3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f\",\"command\":\"[]\",\"term\":\"7\"} | ret=SUCCESS"},
			{Line: 2, Time: "2026-08-23 10:21:02.530", Level: parsers.LevelInfo, Logger: "SCMAudit",
				Message: "user=dn | ip=10.0.0.13 | op=REGISTER {\"datanodeDetails\":\"7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c(dn3.example.com/10.0.0.13)\"} | ret=SUCCESS"},
		},
	}, {
		// L8 dn-container — T47 ContainerLogger.java:119 (signatures-scm.md §3.3)
		// and the QUASI_CLOSED group-removal line (signatures-dn-om.md §A.5).
		name: "L8",
		input: "2026-08-23 10:25:00,120 | INFO  | ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted |  \n" +
			"2026-08-23 10:25:01,007 | WARN  | ID=1042 | Index=0 | BCSID=159 | State=QUASI_CLOSED | Volume=/data/hdds | DataChecksum=2a21d155 | Ratis group removed. Group id: " + group1 + " |  \n",
		layout: "L8",
		want: []want{
			{Line: 1, Time: "2026-08-23 10:25:00.120", Level: parsers.LevelInfo, Message: "ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted"},
			{Line: 2, Time: "2026-08-23 10:25:01.007", Level: parsers.LevelWarn,
				Message: "ID=1042 | Index=0 | BCSID=159 | State=QUASI_CLOSED | Volume=/data/hdds | DataChecksum=2a21d155 | Ratis group removed. Group id: " + group1},
		},
	}, {
		// L9 ozone insight logs — the first line of the real sample
		// (testdata/insight-logs_observability-doc.log).
		name:   "L9",
		input:  "[OM] 2020-07-28 12:31:49,988 [DEBUG|org.apache.hadoop.ozone.protocolPB.OzoneManagerProtocolServerSideTranslatorPB|OzoneProtocolMessageDispatcher] OzoneProtocol ServiceList request is received\n",
		layout: "L9",
		want: []want{{Line: 1, Time: "2020-07-28 12:31:49.988", Level: parsers.LevelDebug,
			Logger: "org.apache.hadoop.ozone.protocolPB.OzoneManagerProtocolServerSideTranslatorPB", Message: "OzoneProtocol ServiceList request is received"}},
	}, {
		// L10 %d{yy/MM/dd HH:mm:ss} %p %c{2}: %m%n — the layout's shape with T12.
		name:   "L10",
		input:  "26/08/23 10:20:10 INFO pipeline.PipelineManagerImpl: " + t12 + "\n",
		layout: "L10",
		want:   []want{{Line: 1, Time: "2026-08-23 10:20:10.000", Level: parsers.LevelInfo, Logger: "pipeline.PipelineManagerImpl", Message: t12}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, st := scanAll(t, c.input, Options{Kind: c.kind})
			checkRecords(t, got, c.want)
			if st.Layout != c.layout {
				t.Errorf("Layout = %q, want %q", st.Layout, c.layout)
			}
			if st.Records != int64(len(c.want)) || st.Unparsed != 0 || st.Continuations != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// A line that looks like a record of no layout stays a continuation: text
// after a timestamp that is not a level, and near-miss timestamps.
func TestNearMissHeaders(t *testing.T) {
	// T03 JvmPauseMonitor.java:168 with its GC pool line (signatures-scm.md
	// §1.3), followed by lines that must fold into it.
	head := "2026-08-23 10:20:07,412 [JvmPauseMonitor0] WARN org.apache.ratis.util.JvmPauseMonitor: JvmPauseMonitor-" + scmPeer +
		": Detected pause in JVM or host machine approximately 52.114s with 51.907s GC time."
	tail := []string{
		"GC pool 'G1 Old Generation' had collection(s): count=1 time=51907ms",
		"2026-8-23 10:20:07,412 [main] INFO x: y",        // one-digit month
		"2026-08-23T10:20:07Z",                           // ISO 8601 with a zone: not a log4j stamp
		"2026-08-23 10:20:07",                            // a bare timestamp
		"26/08/23 10:20:10 pipeline.PipelineManagerImpl", // L10 stamp without a level
		"[OM] not a stamp",
		"20:07,412 [main] INFO",
	}
	input := head + "\n" + strings.Join(tail, "\n") + "\n"
	got, st := scanAll(t, input, Options{})
	checkRecords(t, got, []want{{Line: 1, Time: "2026-08-23 10:20:07.412", Level: parsers.LevelWarn, Logger: "org.apache.ratis.util.JvmPauseMonitor",
		Thread: "JvmPauseMonitor0", Message: input[strings.Index(input, "JvmPauseMonitor-"):strings.LastIndexByte(input, '\n')]}})
	if st.Continuations != int64(len(tail)) {
		t.Errorf("Continuations = %d, want %d", st.Continuations, len(tail))
	}
}

// Hand-edited or damaged lines (a timestamp with an impossible field, an
// elision) are counted and end the record before them instead of being
// folded into it; the lines after them belong to no record.
func TestDamagedLines(t *testing.T) {
	// T13 PipelineManagerImpl.java:505 and T15 DeadNodeHandler.java:99
	// (signatures-scm.md §1.4, §1.5).
	t13 := "2026-08-23 10:20:11,002 [EventQueue-StaleNodeForStaleNodeHandler] INFO org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl: Pipeline Pipeline-8a1c2d3e-4f50-6172-8394-a5b6c7d8e9f0 moved to CLOSED state"
	t15 := "2026-08-23 10:31:40,118 [EventQueue-DeadNodeForDeadNodeHandler] INFO org.apache.hadoop.hdds.scm.node.DeadNodeHandler: A dead datanode is detected. 3b1f8a0e-6c1d-4d2f-9f5e-0a1b2c3d4e5f(dn1.example.com/10.0.0.11)"
	input := strings.Join([]string{
		t13,
		"2026-13-23 10:20:07,412 [main] INFO x: y", // month 13: line 2
		"\tat org.example.A.b(A.java:1)",           // after a damaged line: no record
		t13,
		"...", // an elision: line 5
		t15,
		"2026-08-23 25:20:07,412 [main] INFO x: y", // hour 25: line 7
	}, "\n") + "\n"
	got, st := scanAll(t, input, Options{})
	msg := func(l string) string { return l[strings.Index(l, ": ")+2:] }
	checkRecords(t, got, []want{
		{Line: 1, Time: "2026-08-23 10:20:11.002", Level: parsers.LevelInfo, Logger: "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl",
			Thread: "EventQueue-StaleNodeForStaleNodeHandler", Message: msg(t13)},
		{Line: 4, Time: "2026-08-23 10:20:11.002", Level: parsers.LevelInfo, Logger: "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl",
			Thread: "EventQueue-StaleNodeForStaleNodeHandler", Message: msg(t13)},
		{Line: 6, Time: "2026-08-23 10:31:40.118", Level: parsers.LevelInfo, Logger: "org.apache.hadoop.hdds.scm.node.DeadNodeHandler",
			Thread: "EventQueue-DeadNodeForDeadNodeHandler", Message: msg(t15)},
	})
	if st.Damaged != 3 || !slices.Equal(st.DamagedLines, []int{2, 5, 7}) || st.Unparsed != 4 || st.Continuations != 0 {
		t.Errorf("Damaged = %d at %v, Unparsed = %d, Continuations = %d; want 3 at [2 5 7], 4, 0",
			st.Damaged, st.DamagedLines, st.Unparsed, st.Continuations)
	}
}

// A full timestamp at a line start opens a record even when the rest fits no
// layout (layouts.md §7.7: a new record starts only where a timestamp
// matches); it is not counted towards layout detection.
func TestGenericRecord(t *testing.T) {
	// T01 NodeStateManager.java:730 (signatures-scm.md §1.3) in L1, then a
	// ZooKeeper-shaped line (layouts.md §3) carrying T14.
	input := "2026-08-23 10:20:07,415 [scm1-SCMHeartbeatProcessor-0] INFO org.apache.hadoop.hdds.scm.node.NodeStateManager: Detected long delay in scheduling HB processing thread. Skipping heartbeat checks for one iteration.\n" +
		"2026-08-23 10:20:10,433 - INFO  [main:CloseContainerEventHandler@87] - " + msgCloseEvent(1042) + "\n"
	got, st := scanAll(t, input, Options{})
	if len(got) != 2 || got[1].Message != "- INFO  [main:CloseContainerEventHandler@87] - "+msgCloseEvent(1042) || got[1].Time != "2026-08-23 10:20:10.433" {
		t.Fatalf("got %#v", got)
	}
	if st.Layout != "L1" || st.Records != 2 {
		t.Errorf("stats %+v", st)
	}
}

// The generic fallback follows the file's timestamp shape: seconds-only
// stamps open records in an L6 file but are text in an L1 file, and Docker
// Desktop stamps before the first record do not open records.
func TestGenericFollowsLayoutStamp(t *testing.T) {
	l6 := "2026-08-23 10:20:10 INFO  StaleNodeHandler:51 - " + msgStale + "\n"
	odd := "2026-08-23 10:20:11 - INFO  [main:CloseContainerEventHandler@87] - " + msgCloseEvent(1042) + "\n" // ZooKeeper-shaped, seconds only
	if _, st := scanAll(t, l6+odd, Options{}); st.Records != 2 {
		t.Errorf("L6 file: %+v", st)
	}
	if _, st := scanAll(t, staleLine("2026-08-23 10:20:10.000")+odd, Options{}); st.Records != 1 || st.Continuations != 1 {
		t.Errorf("L1 file: %+v", st)
	}
	dd := "2026-08-23 10:20:10 \tat org.apache.hadoop.ozone.container.common.transport.server.ratis.XceiverServerRatis.submitRequest(XceiverServerRatis.java:677)\n"
	got, st := scanAll(t, dd+"2026-08-23 10:20:10 "+staleLine("2026-08-23 10:20:10.416")+dd, Options{})
	if st.Records != 1 || st.Unparsed != 1 || st.Continuations != 1 || len(got) != 1 || got[0].Line != 2 {
		t.Errorf("desktop capture: %+v %#v", st, got)
	}
}

func TestParseStamp(t *testing.T) {
	cases := []struct {
		in   string
		want time.Time
		n    int
		kind stampKind
	}{
		{"2026-08-23 10:20:10,416 x", time.Date(2026, 8, 23, 10, 20, 10, 416e6, time.UTC), 23, stampMillis},
		{"2026-08-23T10:20:10.416", time.Date(2026, 8, 23, 10, 20, 10, 416e6, time.UTC), 23, stampMillis},
		{"2026-08-23 10:20:10 INFO", time.Date(2026, 8, 23, 10, 20, 10, 0, time.UTC), 19, stampSeconds},
		{"2026-08-23 10:20:10,4x", time.Date(2026, 8, 23, 10, 20, 10, 0, time.UTC), 19, stampSeconds},
		{"26/08/23 10:20:10 INFO", time.Date(2026, 8, 23, 10, 20, 10, 0, time.UTC), 17, stampShort},
		{"2024-02-29 23:59:59,999", time.Date(2024, 2, 29, 23, 59, 59, 999e6, time.UTC), 23, stampMillis},
		{"1970-01-01 00:00:00,000", time.Unix(0, 0).UTC(), 23, stampMillis},
		{"1969-12-31 23:59:59,500", time.Date(1969, 12, 31, 23, 59, 59, 500e6, time.UTC), 23, stampMillis},
		{"0001-01-01 00:00:00,000", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), 23, stampMillis},
		// the real om-audit sample has minute 60: it rolls over like time.Date
		{"2018-09-06 01:60:22,900", time.Date(2018, 9, 6, 1, 60, 22, 900e6, time.UTC), 23, stampMillis},
		{"2026-00-23 10:20:10,416", time.Time{}, 0, stampNone},
		{"2026-08-32 10:20:10,416", time.Time{}, 0, stampNone},
		{"2026-08-23 24:20:10,416", time.Time{}, 0, stampNone},
		{"2026-08-23 10:61:10,416", time.Time{}, 0, stampNone},
		{"2026/08/23 10:20:10,416", time.Time{}, 0, stampNone},
		{"2026-08-23 10:20", time.Time{}, 0, stampNone},
		{"", time.Time{}, 0, stampNone},
	}
	for _, c := range cases {
		ms, n, kind := parseStamp([]byte(c.in))
		if n != c.n || kind != c.kind {
			t.Errorf("%q: n=%d kind=%d, want %d %d", c.in, n, kind, c.n, c.kind)
			continue
		}
		if kind != stampNone && ms != c.want.UnixMilli() {
			t.Errorf("%q: %v, want %v", c.in, time.UnixMilli(ms).UTC(), c.want)
		}
	}
	// every day of four centuries agrees with time.Date
	for d := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2300; d = d.AddDate(0, 0, 1) {
		if got := daysFromCivil(int64(d.Year()), int64(d.Month()), int64(d.Day())); got*86400 != d.Unix() {
			t.Fatalf("%v: day %d", d, got)
		}
	}
}

func TestLevelAt(t *testing.T) {
	for _, l := range []parsers.Level{parsers.LevelTrace, parsers.LevelDebug, parsers.LevelInfo, parsers.LevelWarn, parsers.LevelError, parsers.LevelFatal} {
		if got, n := levelAt([]byte(l.String() + " ")); got != l || n != len(l.String()) {
			t.Errorf("%s: %v %d", l, got, n)
		}
	}
	for _, s := range []string{"INF", "Info", "WARNX", "", "ERRO"} {
		if lv, rest, ok := levelColumn([]byte(s)); ok {
			t.Errorf("%q accepted as %v %q", s, lv, rest)
		}
	}
}
