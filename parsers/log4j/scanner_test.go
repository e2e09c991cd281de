package log4j

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // zones for the Location tests

	"github.com/ozdoctor/ozdoctor/parsers"
)

const (
	staleThread = "scm1-EventQueue-StaleNodeForStaleNodeHandler"
	staleLogger = "org.apache.hadoop.hdds.scm.node.StaleNodeHandler"
	ccchLogger  = "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.CloseContainerCommandHandler"
)

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

// T10 in L1 at the given time.
func staleLine(ts string) string { return l1Line(at(ts), staleThread, "INFO", staleLogger, msgStale) }

// C1 in L1 at the given time, with its stack indented by indent.
func cantCloseLines(ts, indent string) (first, stack string) {
	return l1Line(at(ts), dnUUID+"-CloseContainerThread-0", "ERROR", ccchLogger, msgCantClose(1042)), stackC1(indent)
}

func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n", "\r\n\n\n"} {
		got, st := scanAll(t, in, Options{})
		if len(got) != 0 || st.Records != 0 || st.Layout != "" || !st.First.IsZero() {
			t.Errorf("%q: %v %+v", in, got, st)
		}
		if st.Lines != int64(strings.Count(in, "\n")) || st.Unparsed != st.Lines {
			t.Errorf("%q: lines %d unparsed %d", in, st.Lines, st.Unparsed)
		}
	}
}

// layouts.md §7.1: CRLF line endings and a missing final newline.
func TestCRLFAndMissingFinalNewline(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	in := staleLine("2026-08-23 10:20:10.416") + first + stack + staleLine("2026-08-23 10:20:11.000")
	in = strings.ReplaceAll(in, "\n", "\r\n")
	in = strings.TrimSuffix(in, "\r\n")
	got, st := scanAll(t, in, Options{})
	checkRecords(t, got, []want{
		{Line: 1, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelInfo, Logger: staleLogger, Thread: staleThread, Message: msgStale},
		{Line: 2, Time: "2026-08-23 10:20:10.420", Level: parsers.LevelError, Logger: ccchLogger, Thread: dnUUID + "-CloseContainerThread-0",
			Message: msgCantClose(1042) + "\n" + strings.TrimSuffix(stack, "\n")},
		{Line: 12, Time: "2026-08-23 10:20:11.000", Level: parsers.LevelInfo, Logger: staleLogger, Thread: staleThread, Message: msgStale},
	})
	if st.Lines != 12 || st.Records != 3 || st.Continuations != 9 {
		t.Errorf("stats %+v", st)
	}
	for _, w := range got {
		if strings.ContainsRune(w.Message, '\r') {
			t.Errorf("CR left in %q", w.Message)
		}
	}
}

// A record's origin holds the byte offset of its first line, CRLF, folded
// stack traces and lines longer than the read buffer included.
func TestRecordOffsets(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	long := l1Line(at("2026-08-23 10:20:10.500"), staleThread, "INFO", staleLogger, msgStale+strings.Repeat("x", 3<<20))
	lines := []string{staleLine("2026-08-23 10:20:10.416"), first + stack, long, staleLine("2026-08-23 10:20:11.000")}
	lines[0] = strings.ReplaceAll(lines[0], "\n", "\r\n")
	var want []int64
	var off int64
	for _, l := range lines {
		want = append(want, off)
		off += int64(len(l))
	}
	s := NewScanner(strings.NewReader(strings.Join(lines, "")), Options{})
	var got []int64
	for s.Next() {
		got = append(got, s.Record().Offset)
	}
	if !slices.Equal(got, want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
}

// layouts.md §7.3: thread names with spaces, '/', ':', '@', '->', '$',
// brackets inside and a trailing space before ']'; §7.4: padded and
// unpadded levels.
func TestThreadNames(t *testing.T) {
	cases := []struct{ thread, level, logger, msg string }{
		// "Unable to communicate…" EndpointStateMachine.java:242 (signatures-scm.md §1.3, 2.x wording)
		{"EndpointStateMachineTaskThread-scm/172.20.0.5:9861-0 ", "WARN", "org.apache.hadoop.ozone.container.common.statemachine.EndpointStateMachine",
			"Unable to communicate to SCM server at scm:9861 for past 300 seconds."},
		// "SCM trying to process heartbeat…" SCMNodeManager.java:572 (signatures-scm.md §1.3)
		{"IPC Server handler 76 on default port 9861", "ERROR", "org.apache.hadoop.hdds.scm.node.SCMNodeManager",
			"SCM trying to process heartbeat from an unregistered node " + dn1 + ". Ignoring the heartbeat."},
		// R8 ClosePipelineCommandHandler.java:166 (signatures-dn-om.md §A.5)
		{"Command processor thread", "INFO", "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.ClosePipelineCommandHandler",
			"Close Pipeline " + pipe1 + " command on datanode " + dnUUID + "."},
		// #12 XceiverServerRatis.java:945 (signatures-dn-om.md §E.1)
		{"Datanode State Machine Thread - 0", "INFO", "org.apache.hadoop.ozone.container.common.transport.server.ratis.XceiverServerRatis",
			"Leader change notification received for group: " + group1 + " with new leaderId: " + dnUUID},
		// B35 RaftServerImpl.java:393 on a Ratis log-appender thread ("<member>-><peer>-…", inferred name)
		{dnUUID + "@" + group1 + "->7c4e2a91-0b3d-4f6e-8a1c-2d3e4f5a6b7c-GrpcLogAppender-LogAppenderDaemon", "INFO", "org.apache.ratis.server.RaftServer$Division",
			dnUUID + "@" + group1 + ": changes role from    LEADER to FOLLOWER at term 5 for stepDown"},
		// ZooKeeper-style brackets inside the thread name (layouts.md §7.3) with B27 SCMNodeManager.java:447
		{"QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181", "INFO", "org.apache.hadoop.hdds.scm.node.SCMNodeManager", "Registered datanode: " + dn1},
		// a '$' and "] INFO" inside the name (synthetic name exercising the anchor) with T20
		{"Pool$Worker] INFO x", "INFO", "org.apache.hadoop.hdds.scm.node.ReadOnlyHealthyToHealthyNodeHandler", "Datanode " + dn1 + " moved to HEALTHY state."},
	}
	var in strings.Builder
	var exp []want
	for i, c := range cases {
		ts := at("2026-08-23 10:20:10.000").Add(time.Duration(i) * time.Second)
		in.WriteString(l1Line(ts, c.thread, c.level, c.logger, c.msg))
		exp = append(exp, want{Line: i + 1, Time: ts.Format(wantTime), Level: parsers.ParseLevel([]byte(c.level)), Logger: c.logger,
			Thread: strings.TrimRight(c.thread, " "), Message: c.msg})
	}
	got, _ := scanAll(t, in.String(), Options{})
	checkRecords(t, got, exp)

	// L4 pads the level to five (%-5p): "INFO  ", "WARN  ", "ERROR ".
	for _, lv := range []string{"INFO ", "WARN ", "ERROR", "DEBUG", "TRACE", "FATAL"} {
		line := "2026-08-23 10:20:10,416 [" + staleThread + "] " + lv + " node.StaleNodeHandler (StaleNodeHandler.java:onMessage(51)) - " + msgStale + "\n"
		got, st := scanAll(t, line, Options{})
		if len(got) != 1 || got[0].Level.String() != strings.TrimSpace(lv) || got[0].Message != msgStale || st.Layout != "L4" {
			t.Errorf("%q: %#v %s", lv, got, st.Layout)
		}
	}
}

// layouts.md §7.7: continuation lines of every shape fold into their record;
// a record starts only where a timestamp starts a line.
func TestMultiLine(t *testing.T) {
	first, tab := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	_, three := cantCloseLines("2026-08-23 10:20:10.420", "   ")
	_, eight := cantCloseLines("2026-08-23 10:20:10.420", "        ")
	// C.3 STARTUP_MSG banner (signatures-dn-om.md §C.3), HddsServerUtil.java:817-846.
	banner := "/************************************************************\n" +
		"STARTUP_MSG: Starting OzoneManager\n" +
		"STARTUP_MSG:        host = om4.example.com/10.0.0.14\n" +
		"STARTUP_MSG:     version = 2.2.0\n" +
		"STARTUP_MSG:        java = 17.0.15\n" +
		"STARTUP_MSG:        args = [--bootstrap]\n" +
		"************************************************************/\n"
	startup := "2026-08-20 10:00:00,001 [main] INFO org.apache.hadoop.ozone.om.OzoneManagerStarter: STARTUP_MSG: \n" + banner
	// L13 OzoneManagerRatisServer.java:428 (signatures-dn-om.md §B.2) followed
	// by an exception message line that does not start with "at" (layouts.md
	// §7.7; inferred composition).
	l13 := "2026-08-20 10:00:05,310 [IPC Server handler 3 on default port 9862] ERROR org.apache.hadoop.ozone.om.ratis.OzoneManagerRatisServer: " +
		"Failed to add OM omNode-bootstrap-1 in Ratis group group-C5BA1605619E. Ratis SetConfiguration reply: RaftClientReply:client-A31DF5C6ECF2->omNode-1@group-C5BA1605619E, cid=12, FAILED org.apache.ratis.protocol.exceptions.NotLeaderException: Server omNode-1@group-C5BA1605619E is not the leader, logIndex=0, commits[]\n"
	l13cont := "INTERNAL_ERROR org.apache.hadoop.ozone.om.exceptions.OMException: Failed to add OM omNode-bootstrap-1 in Ratis ring.\n"
	// An XML body (the S3 REST error document shape, layouts.md §7.7) after T12.
	xmlHead := l1Line(at("2026-08-20 10:00:06.000"), "qtp1-42", "INFO", "org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl", msgContainerClosed(7))
	xml := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n  <Code>NoSuchBucket</Code>\n  <Resource>/bucket1</Resource>\n</Error>\n"

	in := first + tab + first + three + first + eight + startup + l13 + l13cont + xmlHead + xml + staleLine("2026-08-20 10:00:07.000")
	got, st := scanAll(t, in, Options{})
	trim := func(s string) string { return strings.TrimSuffix(s, "\n") }
	msgs := []string{
		msgCantClose(1042) + "\n" + trim(tab),
		msgCantClose(1042) + "\n" + trim(three),
		msgCantClose(1042) + "\n" + trim(eight),
		"STARTUP_MSG: \n" + trim(banner),
		l13[strings.Index(l13, "Failed to add"):len(l13)-1] + "\n" + trim(l13cont),
		msgContainerClosed(7) + "\n" + trim(xml),
		msgStale,
	}
	if len(got) != len(msgs) {
		t.Fatalf("got %d records:\n%s", len(got), dump(got))
	}
	for i, m := range msgs {
		if got[i].Message != m {
			t.Errorf("record %d:\n got %q\nwant %q", i, got[i].Message, m)
		}
	}
	if got[4].Thread != "IPC Server handler 3 on default port 9862" || got[3].Logger != "org.apache.hadoop.ozone.om.OzoneManagerStarter" {
		t.Errorf("headers %#v %#v", got[3], got[4])
	}
	wantLines := strings.Count(in, "\n")
	if st.Lines != int64(wantLines) || st.Records != 7 || st.Continuations != int64(wantLines-7) || st.Unparsed != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Lines before the first record belong to no record.
func TestUnparsedBeforeFirstRecord(t *testing.T) {
	_, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	in := stack + staleLine("2026-08-23 10:20:10.416")
	got, st := scanAll(t, in, Options{})
	if len(got) != 1 || got[0].Line != 10 || got[0].Message != msgStale {
		t.Fatalf("got %#v", got)
	}
	if st.Unparsed != 9 || st.Continuations != 0 || st.Binary != 0 {
		t.Errorf("stats %+v", st)
	}
}

// layouts.md §7 "non-UTF-8 bytes (keep going)" and binary garbage lines.
func TestNonUTF8AndBinary(t *testing.T) {
	latin1 := "2026-08-23 10:20:10,416 [main] INFO org.apache.hadoop.hdds.scm.node.SCMNodeManager: Registered datanode: " + dn1 + " caf\xe9 \xff\n"
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	nul := "\x00\x00\x00\x00PK\x03\x04\x00\x00garbage\x00\n"
	high := "\x8f\xe2\x91\xff\xfe\x80\x81\xc0\xc1\xf5\xf6\x01\x02\x03abc\n"
	in := latin1 + nul + first + high + stack + "frame note: na\xefve\n" + nul + staleLine("2026-08-23 10:20:11.000")
	got, st := scanAll(t, in, Options{})
	if len(got) != 3 {
		t.Fatalf("got %d records:\n%s", len(got), dump(got))
	}
	if got[0].Message != "Registered datanode: "+dn1+" caf\xe9 \xff" {
		t.Errorf("latin1 record %q", got[0].Message)
	}
	if got[1].Message != msgCantClose(1042)+"\n"+stack+"frame note: na\xefve" {
		t.Errorf("record with garbage in it: %q", got[1].Message)
	}
	if st.Binary != 3 || st.Unparsed != 3 || st.Records != 3 || st.Continuations != 10 || st.Lines != 16 {
		t.Errorf("stats %+v", st)
	}
	if isBinary([]byte("\x1b[36mscm_1 |\x1b[0m colour")) || isBinary([]byte("naïve café")) || !isBinary([]byte("\xff\xfe\xfd\xfc ab")) || isBinary([]byte("\xff\xfe\xfd ab")) {
		t.Error("isBinary misjudges text")
	}
}

// patternReader yields n bytes of repeated p without holding them in memory.
type patternReader struct {
	p []byte
	n int
}

func (r *patternReader) Read(b []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(b) && r.n > 0 {
		c := copy(b[k:min(len(b), k+r.n)], r.p)
		k += c
		r.n -= c
	}
	return k, nil
}

// layouts.md §7.9 taken to the extreme: a 50 MB line is cut at MaxLineBytes,
// the rest is skipped without buffering it, and the scan goes on.
func TestVeryLongLine(t *testing.T) {
	head := "2026-08-20 10:00:00,001 [main] INFO org.apache.hadoop.ozone.om.OzoneManagerStarter: STARTUP_MSG:   classpath = "
	run := func(t *testing.T, opt Options, size int, candidate bool) (Stats, []want, uint64) {
		if !candidate {
			opt.Candidate = func(_, b []byte) bool { return bytes.Equal(b, []byte(msgStale)) }
		}
		r := io.MultiReader(strings.NewReader(head), &patternReader{p: []byte("/opt/hadoop/share/ozone/lib/ratis-server-3.2.1.jar:"), n: size},
			strings.NewReader("\r\n"+staleLine("2026-08-20 10:00:01.000")))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := NewScanner(r, opt)
		var got []want
		for s.Next() {
			rec := s.Record()
			got = append(got, want{Line: rec.Line, Message: rec.Message})
		}
		runtime.ReadMemStats(&after)
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		return s.Stats(), got, after.TotalAlloc - before.TotalAlloc
	}
	t.Run("50MB", func(t *testing.T) {
		st, got, alloc := run(t, Options{}, 50<<20, true)
		if st.Lines != 2 || st.Truncated != 1 || st.Records != 2 || len(got) != 2 {
			t.Fatalf("stats %+v, %d records", st, len(got))
		}
		if n := len(got[0].Message) + len(head) - len("STARTUP_MSG:   classpath = "); n != defaultMaxLine {
			t.Errorf("first record's line kept %d bytes, want %d", n, defaultMaxLine)
		}
		if got[1].Line != 2 || got[1].Message != msgStale {
			t.Errorf("record after the long line: %#v", got[1])
		}
		if alloc > 12<<20 {
			t.Errorf("allocated %d MiB for a 50 MB line", alloc>>20)
		}
	})
	t.Run("50MB-noncandidate", func(t *testing.T) {
		st, got, alloc := run(t, Options{}, 50<<20, false)
		if st.Truncated != 1 || len(got) != 1 || got[0].Line != 2 || alloc > 6<<20 {
			t.Errorf("stats %+v, %d records, %d bytes allocated", st, len(got), alloc)
		}
	})
	t.Run("above-buffer-not-truncated", func(t *testing.T) {
		size := readBufferSize + readBufferSize/2
		st, got, _ := run(t, Options{MaxLineBytes: 4 << 20, MaxRecordBytes: 4 << 20}, size, true)
		if st.Truncated != 0 || len(got) != 2 || len(got[0].Message) != len(head)-len("2026-08-20 10:00:00,001 [main] INFO org.apache.hadoop.ozone.om.OzoneManagerStarter: ")+size {
			t.Errorf("stats %+v, message length %d", st, len(got[0].Message))
		}
		if strings.HasSuffix(got[0].Message, "\r") {
			t.Error("CR kept at the end of a long line")
		}
	})
	t.Run("small-limit", func(t *testing.T) {
		st, got, _ := run(t, Options{MaxLineBytes: 400}, 1000, true)
		if st.Truncated != 1 || len(got) != 2 || len(got[0].Message) != 400-len("2026-08-20 10:00:00,001 [main] INFO org.apache.hadoop.ozone.om.OzoneManagerStarter: ") {
			t.Errorf("stats %+v, %#v", st, got)
		}
	})
}

// A candidate's folded message is capped at MaxRecordBytes.
func TestMaxRecordBytes(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	got, st := scanAll(t, first+stack+first+stack, Options{MaxRecordBytes: 100})
	if len(got) != 2 || len(got[0].Message) != 100 || got[0].Message != (msgCantClose(1042) + "\n" + stack)[:100] {
		t.Fatalf("got %#v", got)
	}
	if st.TruncatedRecords != 2 || st.Continuations != 18 {
		t.Errorf("stats %+v", st)
	}
}

// layouts.md §7.2: a docker compose capture interleaves services; each is
// its own stream for folding, gaps and figures, and the prefix is stripped
// from continuation lines too.
func TestCompose(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	prefix := func(p, lines string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(lines, "\n") {
			if l != "" {
				b.WriteString(p + l)
			}
		}
		return b.String()
	}
	// console layout L2 (%c{2}) with T10, T12 and C1.
	two := func(s string) string {
		s = strings.Replace(s, staleLogger, "node.StaleNodeHandler", 1)
		s = strings.Replace(s, ccchLogger, "commandhandler.CloseContainerCommandHandler", 1)
		return s
	}
	for _, v := range []struct{ name, scm, dn string }{
		{"v1", "scm_1       | ", "datanode_1  | "},
		{"v2", "ozone-scm-1       | ", "ozone-datanode-1  | "},
		{"v1-colour", "\x1b[36mscm_1       |\x1b[0m ", "\x1b[33mdatanode_1  |\x1b[0m "},
	} {
		t.Run(v.name, func(t *testing.T) {
			stackLines := strings.SplitAfter(stack, "\n")
			in := "Attaching to scm_1, datanode_1\n" +
				prefix(v.scm, two(staleLine("2026-08-23 10:20:10.416"))) +
				prefix(v.dn, two(first)) +
				prefix(v.dn, strings.Join(stackLines[:4], "")) +
				prefix(v.scm, l1Line(at("2026-08-23 10:20:10.431"), staleThread, "INFO", "pipeline.PipelineManagerImpl", msgContainerClosed(1042))) +
				prefix(v.dn, strings.Join(stackLines[4:], "")) +
				prefix(v.scm, two(staleLine("2026-08-23 10:25:00.000"))) +
				prefix(v.dn, two(staleLine("2026-08-23 10:30:00.000"))) + // datanode_1 silent for 9m50s
				prefix(v.scm, two(staleLine("2026-08-23 10:30:01.000")))
			got, st := scanAll(t, in, Options{GapThreshold: 6 * time.Minute})
			scmName := strings.TrimRight(strings.TrimSuffix(strings.TrimPrefix(v.scm, "\x1b[36m"), "|\x1b[0m "), " |")
			dnName := strings.TrimRight(strings.TrimSuffix(strings.TrimPrefix(v.dn, "\x1b[33m"), "|\x1b[0m "), " |")
			checkRecords(t, got, []want{
				{Line: 2, Time: "2026-08-23 10:20:10.416", Level: parsers.LevelInfo, Logger: "node.StaleNodeHandler", Thread: staleThread, Service: scmName, Message: msgStale},
				{Line: 8, Time: "2026-08-23 10:20:10.431", Level: parsers.LevelInfo, Logger: "pipeline.PipelineManagerImpl", Thread: staleThread, Service: scmName, Message: msgContainerClosed(1042)},
				{Line: 3, Time: "2026-08-23 10:20:10.420", Level: parsers.LevelError, Logger: "commandhandler.CloseContainerCommandHandler",
					Thread: dnUUID + "-CloseContainerThread-0", Service: dnName, Message: msgCantClose(1042) + "\n" + strings.TrimSuffix(stack, "\n")},
				{Line: 14, Time: "2026-08-23 10:25:00.000", Level: parsers.LevelInfo, Logger: "node.StaleNodeHandler", Thread: staleThread, Service: scmName, Message: msgStale},
				{Line: 15, Time: "2026-08-23 10:30:00.000", Level: parsers.LevelInfo, Logger: "node.StaleNodeHandler", Thread: staleThread, Service: dnName, Message: msgStale},
				{Line: 16, Time: "2026-08-23 10:30:01.000", Level: parsers.LevelInfo, Logger: "node.StaleNodeHandler", Thread: staleThread, Service: scmName, Message: msgStale},
			})
			if st.Layout != "L2" || st.Unparsed != 1 || st.Continuations != 9 || st.Records != 6 {
				t.Errorf("stats %+v", st)
			}
			if len(st.Gaps) != 1 || st.Gaps[0].Service != dnName || st.Gaps[0].Line != 15 ||
				!st.Gaps[0].From.Equal(at("2026-08-23 10:20:10.420")) || !st.Gaps[0].To.Equal(at("2026-08-23 10:30:00.000")) {
				t.Errorf("gaps %+v", st.Gaps)
			}
			wantSvc := map[string]ServiceStats{
				scmName: {Records: 4, First: at("2026-08-23 10:20:10.416"), Last: at("2026-08-23 10:30:01.000")},
				dnName:  {Records: 2, First: at("2026-08-23 10:20:10.420"), Last: at("2026-08-23 10:30:00.000")},
			}
			if len(st.Services) != 2 {
				t.Fatalf("services %+v", st.Services)
			}
			for k, w := range wantSvc {
				g := st.Services[k]
				if g.Records != w.Records || !g.First.Equal(w.First) || !g.Last.Equal(w.Last) {
					t.Errorf("service %s: %+v, want %+v", k, g, w)
				}
			}
		})
	}
}

// The same file without prefixes is one stream: the interleaved SCM line
// ends the datanode record, and no Services figures are kept.
func TestPlainFileIsOneStream(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	in := first + staleLine("2026-08-23 10:20:10.431") + stack
	got, st := scanAll(t, in, Options{})
	if len(got) != 2 || got[0].Message != msgCantClose(1042) || !strings.HasPrefix(got[1].Message, msgStale+"\njava.io.IOException") {
		t.Errorf("got %#v", got)
	}
	if st.Services != nil {
		t.Errorf("services %+v", st.Services)
	}
}

// layouts.md §7.2: Docker Desktop's own timestamp before every line, with
// and without a compose prefix.
func TestDockerDesktopPrefix(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	dd := "2026-08-23 10:20:10 "
	var in strings.Builder
	for _, l := range strings.SplitAfter(first+stack+staleLine("2026-08-23 10:20:11.000"), "\n") {
		if l != "" {
			in.WriteString(dd + l)
		}
	}
	got, st := scanAll(t, in.String(), Options{})
	if len(got) != 2 || got[0].Message != msgCantClose(1042)+"\n"+strings.TrimSuffix(stack, "\n") || got[0].Time != "2026-08-23 10:20:10.420" || got[1].Message != msgStale {
		t.Fatalf("got %#v", got)
	}
	if st.Layout != "L1" || st.Continuations != 9 {
		t.Errorf("stats %+v", st)
	}

	// L6 behind a Docker Desktop stamp: T10.
	l6 := dd + "2026-08-23 10:20:10 INFO  StaleNodeHandler:51 - " + msgStale + "\n" + dd + "\tat x\n"
	got, st = scanAll(t, l6, Options{})
	if len(got) != 1 || got[0].Message != msgStale+"\n\tat x" || got[0].Logger != "StaleNodeHandler:51" || st.Layout != "L6" {
		t.Errorf("L6: %#v %+v", got, st)
	}

	// compose service then Docker Desktop stamp
	cl := "scm-1  | " + dd + "2026-08-23 10:20:10,416 [" + staleThread + "] INFO node.StaleNodeHandler: " + msgStale + "\n" + "scm-1  | " + dd + "\tat x\n"
	got, _ = scanAll(t, cl, Options{})
	if len(got) != 1 || got[0].Message != msgStale+"\n\tat x" || got[0].Service != "scm-1" {
		t.Errorf("compose+desktop: %#v", got)
	}
}

// KindOut: a .out file's lines that fit no layout are records of their own,
// untimed; stack frames still fold.
func TestOutFile(t *testing.T) {
	// N3 OzoneManager.java:1601-1611 and N18 (signatures-dn-om.md §B.1),
	// around two lines of `ulimit -a` and a console (L2) log line of N16
	// OzoneManager.java:2154.
	n3 := "OM already initialized.Reusing existing cluster id for sd=/data/metadata/om;cid=CID-5f3e2a1b-7c4d-4e8f-9a0b-1c2d3e4f5a6b;layoutVersion=8"
	n16 := "2026-08-20 10:00:05,400 [main] ERROR om.OzoneManager: Failed to Bootstrap OM."
	n18 := "Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: Failed to add OM omNode-bootstrap-1 in Ratis ring."
	frames := "\tat org.apache.hadoop.ozone.om.protocolPB.OMInterServiceProtocolClientSideImpl.bootstrap(OMInterServiceProtocolClientSideImpl.java:109)\n\t... 3 more"
	in := n3 + "\ncore file size          (blocks, -c) 0\nopen files                      (-n) 1048576\n\n" + n16 + "\n" + n18 + "\n" + frames + "\n"
	got, st := scanAll(t, in, Options{Kind: parsers.KindOut})
	checkRecords(t, got, []want{
		{Line: 1, Message: n3},
		{Line: 2, Message: "core file size          (blocks, -c) 0"},
		{Line: 3, Message: "open files                      (-n) 1048576"},
		{Line: 5, Time: "2026-08-20 10:00:05.400", Level: parsers.LevelError, Logger: "om.OzoneManager", Thread: "main", Message: "Failed to Bootstrap OM."},
		{Line: 6, Message: n18 + "\n" + frames},
	})
	if st.Records != 5 || st.Continuations != 3 || st.Unparsed != 0 {
		t.Errorf("stats %+v", st)
	}
	// A daemon's log4j output in a .out file (a console appender) folds its
	// stack trace as in a .log, even unindented; raw lines after it stay
	// records of their own.
	for _, indent := range []string{"\t", ""} {
		first, stack := cantCloseLines("2026-08-23 10:20:11.000", indent)
		got, _ = scanAll(t, first+stack+n18+"\n", Options{Kind: parsers.KindOut})
		if len(got) != 2 || got[0].Message != msgCantClose(1042)+"\n"+strings.TrimSuffix(stack, "\n") || got[1].Message != n18 {
			t.Errorf("indent %q: stack trace not folded into its .out record: %#v", indent, got)
		}
	}
	// the same lines in a .log are continuations of nothing, then of N16
	got, st = scanAll(t, in, Options{Kind: parsers.KindLog})
	if len(got) != 1 || st.Unparsed != 4 || st.Continuations != 3 {
		t.Errorf("as .log: %#v %+v", got, st)
	}
}

// Timestamps carry no zone: they are read in Options.Location, also across
// daylight-saving switches.
func TestLocation(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	stamps := []string{
		"2026-03-08 01:59:59,999", "2026-03-08 03:00:00,000", // spring forward
		"2026-07-01 12:00:00,000",
		"2026-11-01 00:59:59,000", "2026-11-01 02:00:00,000", // fall back
		"2026-11-01 03:00:00,000", "2026-01-15 08:30:00,250",
	}
	var in strings.Builder
	for _, s := range stamps {
		in.WriteString(s + " [" + staleThread + "] INFO " + staleLogger + ": " + msgStale + "\n")
	}
	s := NewScanner(strings.NewReader(in.String()), Options{Location: ny})
	i := 0
	for ; s.Next(); i++ {
		r := s.Record()
		w, err := time.ParseInLocation("2006-01-02 15:04:05,000", stamps[i], ny)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Time.Equal(w) || r.Time.Location() != ny {
			t.Errorf("%s: got %v, want %v", stamps[i], r.Time, w)
		}
	}
	if i != len(stamps) {
		t.Fatalf("%d records", i)
	}
	st := s.Stats()
	if first, _ := time.ParseInLocation("2006-01-02 15:04:05,000", stamps[6], ny); !st.First.Equal(first) {
		t.Errorf("First %v", st.First)
	}
	if last, _ := time.ParseInLocation("2006-01-02 15:04:05,000", stamps[5], ny); !st.Last.Equal(last) {
		t.Errorf("Last %v", st.Last)
	}
	// nil Location is UTC
	got, _ := scanAll(t, stamps[2]+" [main] INFO x.Y: z\n", Options{})
	if got[0].Time != "2026-07-01 12:00:00.000" {
		t.Errorf("UTC: %v", got[0].Time)
	}
}

func TestGaps(t *testing.T) {
	in := staleLine("2026-08-23 10:00:00.000") + staleLine("2026-08-23 10:04:59.999") + staleLine("2026-08-23 10:10:00.000") +
		staleLine("2026-08-23 10:09:00.000") + staleLine("2026-08-23 10:14:00.000")
	_, st := scanAll(t, in, Options{GapThreshold: 5 * time.Minute})
	if len(st.Gaps) != 2 || st.Gaps[0].Line != 3 || st.Gaps[1].Line != 5 || st.Gaps[1].To.Sub(st.Gaps[1].From) != 5*time.Minute {
		t.Errorf("gaps %+v", st.Gaps)
	}
	if !st.First.Equal(at("2026-08-23 10:00:00.000")) || !st.Last.Equal(at("2026-08-23 10:14:00.000")) {
		t.Errorf("range %v %v", st.First, st.Last)
	}
	_, st = scanAll(t, in, Options{})
	if len(st.Gaps) != 0 {
		t.Errorf("gaps off: %+v", st.Gaps)
	}
}

// The silences kept between two candidate records are bounded: past
// maxGaps the shorter half goes, and the long ones and the latest stay, in
// the order found.
func TestGapsKeepTheLongest(t *testing.T) {
	const total, long = maxGaps + 10, 3   // silences; the one of ten hours
	length := func(i int) time.Duration { // of silence i (0-based)
		if i == long {
			return 10 * time.Hour
		}
		return time.Duration(1+i%7) * time.Minute
	}
	var b strings.Builder
	ts := at("2026-08-23 10:00:00.000")
	b.WriteString(staleLine(ts.Format(wantTime)))
	for i := range total {
		ts = ts.Add(length(i))
		b.WriteString(staleLine(ts.Format(wantTime)))
	}
	_, st := scanAll(t, b.String(), Options{GapThreshold: time.Minute, Candidate: func(_, _ []byte) bool { return false }})
	// The 1001st silence found 1000 kept: 500 went, 10 more came.
	if len(st.Gaps) != maxGaps/2+10 || st.GapsDropped != maxGaps/2 {
		t.Fatalf("%d gaps kept, %d dropped; want %d, %d", len(st.Gaps), st.GapsDropped, maxGaps/2+10, maxGaps/2)
	}
	if g := st.Gaps[0]; g.Line != long+2 || g.To.Sub(g.From) != 10*time.Hour {
		t.Errorf("first kept %+v, want the ten hours ending on line %d", g, long+2)
	}
	var fours []int // the silences of 4m among the first 1000 kept; ties go to the newer
	for i, g := range st.Gaps {
		if i > 0 && g.Line <= st.Gaps[i-1].Line {
			t.Fatalf("out of order: line %d after %d", g.Line, st.Gaps[i-1].Line)
		}
		n := g.Line - 2
		if n < maxGaps && g.To.Sub(g.From) < 4*time.Minute {
			t.Errorf("silence %d of %v kept: the 500 longest of 1000 are at least 4m", n, g.To.Sub(g.From))
		}
		if n < maxGaps && g.To.Sub(g.From) == 4*time.Minute {
			fours = append(fours, n)
		}
	}
	if len(fours) == 0 || fours[len(fours)-1] != maxGaps-3 || fours[len(fours)-1]-fours[0] != 7*(len(fours)-1) {
		t.Errorf("4m silences kept %v: want the newest, up to %d", fours, maxGaps-3)
	}
	if last := st.Gaps[len(st.Gaps)-1]; last.Line != total+1 {
		t.Errorf("last kept ends on line %d, want %d (the latest)", last.Line, total+1)
	}
}

// Candidate is called once per record with its logger and its first
// line's message.
func TestCandidateCalls(t *testing.T) {
	data := l1Corpus(256 << 10)
	var calls int
	var args, loggers []string
	s := NewScanner(bytes.NewReader(data), Options{Candidate: func(logger, b []byte) bool {
		calls++
		args = append(args, string(b))
		loggers = append(loggers, string(logger))
		return true
	}})
	i := 0
	for ; s.Next(); i++ {
		first, _, _ := strings.Cut(s.Record().Message, "\n")
		if first != args[i] || s.Record().Logger != loggers[i] || loggers[i] == "" {
			t.Fatalf("record %d: filter saw %q of %q, message starts %q of %q", i, args[i], loggers[i], first, s.Record().Logger)
		}
	}
	st := s.Stats()
	if int64(calls) != st.Records || int64(i) != st.Candidates || st.Candidates != st.Records {
		t.Errorf("calls %d, records %d, candidates %d, returned %d", calls, st.Records, st.Candidates, i)
	}
	// with a selective filter only the accepted records come back, whole
	stale := []byte("moved to stale state")
	calls = 0
	s = NewScanner(bytes.NewReader(data), Options{Candidate: func(_, b []byte) bool { calls++; return bytes.Contains(b, stale) }})
	n := 0
	for ; s.Next(); n++ {
		if s.Record().Message != msgStale || s.Record().Logger != staleLogger {
			t.Fatalf("record %#v", s.Record())
		}
	}
	st2 := s.Stats()
	if int64(calls) != st2.Records || st2.Records != st.Records || int64(n) != st2.Candidates || n != bytes.Count(data, stale) {
		t.Errorf("calls %d records %d candidates %d returned %d", calls, st2.Records, st2.Candidates, n)
	}
}

// Rejected records allocate nothing: the allocation count does not grow with
// the input.
func TestNoAllocationsPerRejectedLine(t *testing.T) {
	small, big := l1Corpus(256<<10), l1Corpus(4<<20)
	allocs := func(data []byte, cand func(logger, line []byte) bool) float64 {
		return testing.AllocsPerRun(2, func() {
			s := NewScanner(bytes.NewReader(data), Options{Candidate: cand})
			for s.Next() {
			}
		})
	}
	reject := func(_, _ []byte) bool { return false }
	if a, b := allocs(small, reject), allocs(big, reject); b > a {
		t.Errorf("reject-all: %v allocations for 256 KiB, %v for 4 MiB", a, b)
	}
	stale := []byte("moved to stale state")
	accept := func(_, b []byte) bool { return bytes.Contains(b, stale) }
	n := float64(bytes.Count(big, stale))
	if a, b := allocs(small, reject), allocs(big, accept); b > a+2*n {
		t.Errorf("1%% accepted: %v allocations for %v candidates (base %v)", b, n, a)
	}
}

// Concatenated files: a line that fails the detected layout but fits another
// is accepted.
func TestConcatenatedLayouts(t *testing.T) {
	in := staleLine("2026-08-23 10:00:00.000") + staleLine("2026-08-23 10:00:01.000") +
		"2026-08-23 10:00:02 INFO  StaleNodeHandler:51 - " + msgStale + "\n" + // L6
		"2026-08-23 10:00:03,000 | INFO  | ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted |  \n" + // L8, T47
		"26/08/23 10:00:04 INFO node.StaleNodeHandler: " + msgStale + "\n" // L10
	got, st := scanAll(t, in, Options{})
	if len(got) != 5 || got[2].Logger != "StaleNodeHandler:51" || got[3].Message != "ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted" ||
		got[4].Time != "2026-08-23 10:00:04.000" {
		t.Errorf("got %#v", got)
	}
	if st.Layout != "L1" || st.Continuations != 0 {
		t.Errorf("stats %+v", st)
	}
}

// The file kind decides L7 against L8 when a line could be either; without a
// kind the first lines decide.
func TestPipeLayoutHints(t *testing.T) {
	// OMAudit line of the real om-audit sample, and T47.
	audit := "2018-09-06 01:59:36,686 | INFO  | OMAudit | user=hadoop | ip=172.18.0.4 | op=DELETE_KEY {volume=dcv, bucket=dcb, key=dck1, dataSize=0, replicationType=null, replicationFactor=null, keyLocationInfo=null} | ret=SUCCESS |\n"
	container := "2026-08-23 10:25:00,120 | INFO  | ID=1 | Index=0 | BCSID=4 | State=DELETED | Container force deleted |  \n"
	got, st := scanAll(t, audit, Options{Kind: parsers.KindContainer})
	if got[0].Logger != "" || !strings.HasPrefix(got[0].Message, "OMAudit | user=hadoop") || st.Layout != "L8" {
		t.Errorf("container hint: %#v %s", got, st.Layout)
	}
	got, st = scanAll(t, audit+container, Options{Kind: parsers.KindAudit})
	if got[0].Logger != "OMAudit" || got[1].Logger != "ID=1" || st.Layout != "L7" {
		t.Errorf("audit hint: %#v %s", got, st.Layout)
	}
	got, st = scanAll(t, container+audit, Options{})
	if got[0].Logger != "" || got[1].Logger != "" || st.Layout != "L8" {
		t.Errorf("sniffed L8: %#v %s", got, st.Layout)
	}
}

type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// Only I/O errors are errors; records read before one are still returned.
func TestIOError(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	boom := errors.New("read error: device gone")
	s := NewScanner(&failingReader{r: strings.NewReader(staleLine("2026-08-23 10:20:10.416") + first + stack[:40]), err: boom}, Options{})
	var msgs []string
	for s.Next() {
		msgs = append(msgs, s.Record().Message)
	}
	if !errors.Is(s.Err(), boom) {
		t.Errorf("Err = %v", s.Err())
	}
	if len(msgs) != 2 || msgs[1] != msgCantClose(1042)+"\n"+stack[:40] {
		t.Errorf("records %q", msgs)
	}
	if s.Next() {
		t.Error("Next after the end")
	}
}

// Lines crafted to defeat the anchor searches (many "] INFO x (" or "]-"
// without a logger column) are decoded in linear time and fall back to a
// generic record or a continuation.
func TestPathologicalLines(t *testing.T) {
	for _, unit := range []string{"] INFO x (", "] INFO ", "]-a ", "] WARN a:b (c) ", "|"} {
		head := "2026-08-23 10:20:10,416 [" + strings.Repeat(unit, (1<<20)/len(unit)+1)
		for _, in := range []string{head + "\n", "2026-08-23 10:20:10,416 WARN [" + head[25:] + "\n", "x\n" + head[25:] + "\n"} {
			_, st := scanAll(t, in, Options{})
			if st.Records+st.Continuations+st.Unparsed != st.Lines || st.Truncated != 1 {
				t.Errorf("%q: stats %+v", unit, st)
			}
		}
	}
}

// A reset scanner reads the next file as a new one would, whatever the
// previous file left open: compose services, a record being folded, a
// partly read file.
func TestResetReadsLikeANewScanner(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	compose := "scm_1       | " + staleLine("2026-08-23 10:20:10.416") + "datanode_1  | " + first
	for _, l := range strings.SplitAfter(stack, "\n") {
		if l != "" {
			compose += "datanode_1  | " + l
		}
	}
	files := []struct {
		in  string
		opt Options
	}{
		{compose, Options{GapThreshold: time.Minute}},
		{first + stack + staleLine("2026-08-23 10:30:00.000"), Options{GapThreshold: time.Minute}},
		{"2026-08-23 11:00:00 INFO  SCMNodeManager:447 - two\n", Options{}},
		{"plain output\n" + first, Options{Kind: parsers.KindOut}},
		{first + stack, Options{Candidate: func(_, _ []byte) bool { return true }, LineOffset: 40, ByteOffset: 4000}},
	}
	read := func(s *Scanner, limit int) ([]parsers.Record, Stats) {
		var got []parsers.Record
		for len(got) < limit && s.Next() {
			got = append(got, *s.Record())
		}
		return got, s.Stats()
	}
	for i, prev := range files {
		for j, next := range files {
			for _, limit := range []int{0, 1, 1 << 10} { // the previous file left unread, partly or wholly read
				s := NewScanner(strings.NewReader(prev.in), prev.opt)
				read(s, limit)
				s.Reset(strings.NewReader(next.in), next.opt)
				got, gotSt := read(s, 1<<10)
				want, wantSt := read(NewScanner(strings.NewReader(next.in), next.opt), 1<<10)
				if len(want) == 0 || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotSt, wantSt) {
					t.Errorf("file %d read after %d records of file %d:\n got %+v %+v\nwant %+v %+v", j, limit, i, got, gotSt, want, wantSt)
				}
			}
		}
	}
}

// Kubernetes: the kubelet's CRI log files (/var/log/pods/<ns>_<pod>_<uid>/
// <container>/N.log) put "<RFC3339Nano> <stream> <F|P> " before every line the
// container printed, stack frames included.
func TestCRIPrefix(t *testing.T) {
	first, stack := cantCloseLines("2026-08-23 10:20:10.420", "\t")
	var in strings.Builder
	for i, l := range strings.SplitAfter(first+stack+staleLine("2026-08-23 10:20:11.000"), "\n") {
		if l != "" {
			in.WriteString("2026-08-23T10:20:10." + strings.Repeat(string(rune('0'+i%10)), 9) + "Z stderr F " + l)
		}
	}
	got, st := scanAll(t, in.String(), Options{})
	if len(got) != 2 || got[0].Message != msgCantClose(1042)+"\n"+strings.TrimSuffix(stack, "\n") ||
		got[0].Time != "2026-08-23 10:20:10.420" || got[0].Logger != ccchLogger || got[1].Message != msgStale {
		t.Fatalf("got %#v", got)
	}
	if st.Layout != "L1" || st.Unparsed != 0 {
		t.Errorf("stats %+v", st)
	}

	// L6 (the k8s examples' config-configmap.yaml layout), a zone offset
	// instead of Z, and lines the runtime split (P) whose rest follows: the
	// parts join into one line.
	l6 := "2026-08-23T10:20:10.5+02:00 stdout P 2026-08-23 10:20:10 INFO  StaleNodeHandler:51 - Datanode x moved\n" +
		"2026-08-23T10:20:10.5+02:00 stdout P  to st\n" +
		"2026-08-23T10:20:10.5+02:00 stdout F ale state.\n" +
		"2026-08-23T10:20:10.6+02:00 stdout F\n" +
		"2026-08-23T10:20:10.7+02:00 stdout P \tat x\n"
	got, st = scanAll(t, l6, Options{})
	if len(got) != 1 || got[0].Message != "Datanode x moved to stale state.\n\n\tat x" || got[0].Logger != "StaleNodeHandler:51" ||
		st.Layout != "L6" || st.Lines != st.Records+st.Continuations+st.Unparsed {
		t.Errorf("L6: %#v %+v", got, st)
	}

	// Near misses: not a CRI prefix, so no record.
	for _, l := range []string{
		"2026-08-23T10:20:10.5Z stdout X 2026-08-23 10:20:10 INFO  StaleNodeHandler:51 - m\n",
		"2026-08-23T10:20:10.5Z console F 2026-08-23 10:20:10 INFO  StaleNodeHandler:51 - m\n",
		"2026-08-23 10:20:10.5Z stdout F 2026-08-23 10:20:10 INFO  StaleNodeHandler:51 - m\n",
	} {
		if got, _ := scanAll(t, l, Options{}); len(got) != 0 && got[0].Logger == "StaleNodeHandler:51" {
			t.Errorf("%q: %#v", l, got)
		}
	}
}

func TestCRIPrefixLength(t *testing.T) {
	for in, want := range map[string]int{
		"2026-08-23T10:00:00.123456789Z stdout F x":       len("2026-08-23T10:00:00.123456789Z stdout F "),
		"2026-08-23T10:00:00.123456789Z stdout F":         len("2026-08-23T10:00:00.123456789Z stdout F"),
		"2026-08-23T10:00:00Z stderr P y":                 len("2026-08-23T10:00:00Z stderr P "),
		"2026-08-23T10:00:00.1-05:00 stdout F z":          len("2026-08-23T10:00:00.1-05:00 stdout F "),
		"2026-08-23T10:00:00.123456789Z stdout Fx":        0,
		"2026-08-23T10:00:00.123456789 stdout F x":        0,
		"2026-08-23 10:00:00,123 [main] INFO a.B: stdout": 0,
		"": 0,
	} {
		if got, _ := criPrefix([]byte(in)); got != want {
			t.Errorf("criPrefix(%q) = %d, want %d", in, got, want)
		}
	}
}
