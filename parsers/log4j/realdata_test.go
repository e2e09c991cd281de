package log4j

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// readSample returns a real sample of testdata (see testdata/SOURCES.md) and
// its lines.
func readSample(t *testing.T, name string) (string, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func after(line, sep string) string {
	_, rest, ok := strings.Cut(line, sep)
	if !ok {
		panic(sep + " not in " + line)
	}
	return rest
}

// dn-container log of the ozone-site docs: L8.
func TestRealDNContainer(t *testing.T) {
	data, lines := readSample(t, "dn-container_ozone-site-example.log")
	got, st := scanAll(t, data, Options{Kind: parsers.KindContainer})
	if st.Layout != "L8" || st.Records != 5 || st.Lines != 5 || st.Continuations != 0 || st.Unparsed != 0 {
		t.Errorf("stats %+v", st)
	}
	checkRecords(t, got[4:], []want{{Line: 5, Time: "2026-02-03 13:31:17.205", Level: parsers.LevelWarn,
		Message: "ID=2018 | Index=0 | BCSID=159 | State=QUASI_CLOSED | Volume=/mnt/dummy_disk1/hadoop-ozone/datanode/data/hdds | DataChecksum=2a21d155 | Ratis group removed. Group id: group-82AA09A3DA8C"}})
	for i, w := range got {
		if exp := strings.TrimSuffix(after(lines[i], "  | "), " |"); w.Message != exp {
			t.Errorf("line %d: %q, want %q", i+1, w.Message, exp)
		}
	}
	// the kind hint is not needed: the layout is sniffed
	if _, st2 := scanAll(t, data, Options{}); st2.Layout != "L8" {
		t.Errorf("sniffed layout %q", st2.Layout)
	}
}

// OM audit test resource: L7, unpadded levels on hand-edited lines, a
// multi-line exception, minute 60 and no final newline.
func TestRealOMAudit(t *testing.T) {
	data, lines := readSample(t, "om-audit_testaudit.log")
	got, st := scanAll(t, data, Options{Kind: parsers.KindAudit})
	if st.Layout != "L7" || st.Lines != 18 || st.Records != 12 || st.Continuations != 6 || st.Unparsed != 0 {
		t.Errorf("stats %+v", st)
	}
	if len(got) != 12 {
		t.Fatalf("%d records", len(got))
	}
	// record of line 4: ERROR with the exception's frames folded in
	exc := got[3]
	wantMsg := after(lines[3], "| OMAudit | ") + "\n" + lines[4] + "\n" + lines[5]
	if exc.Line != 4 || exc.Level != parsers.LevelError || exc.Logger != "OMAudit" || exc.Message != wantMsg {
		t.Errorf("exception record %#v\nwant message %q", exc, wantMsg)
	}
	// line 7 has an unpadded level ("| INFO |")
	if got[4].Line != 7 || got[4].Level != parsers.LevelInfo || !strings.HasSuffix(got[4].Message, "ret=SUCCESS") {
		t.Errorf("unpadded level record %#v", got[4])
	}
	// "01:60:22" rolls over into the next hour rather than being a continuation
	if got[10].Line != 17 || got[10].Time != "2018-09-06 02:00:22.900" {
		t.Errorf("minute-60 record %#v", got[10])
	}
	// the last line has no newline
	if got[11].Line != 18 || !strings.HasSuffix(got[11].Message, "]} | ret=SUCCESS") {
		t.Errorf("last record %#v", got[11])
	}

	data, lines = readSample(t, "om-audit_testloadaudit.log")
	got, st = scanAll(t, data, Options{})
	if st.Layout != "L7" || st.Records != 10 || st.Continuations != 11 {
		t.Errorf("testloadaudit stats %+v", st)
	}
	last := got[len(got)-1]
	wantMsg = "user=hadoop | ip=172.18.0.4\n" + strings.Join(lines[16:], "\n")
	wantMsg = strings.TrimSuffix(wantMsg, " |")
	if last.Line != 16 || last.Message != wantMsg {
		t.Errorf("multi-line audit record:\n got %q\nwant %q", last.Message, wantMsg)
	}
}

// `ozone insight logs` output of the Observability doc: L9 with protobuf
// bodies.
func TestRealInsight(t *testing.T) {
	data, lines := readSample(t, "insight-logs_observability-doc.log")
	got, st := scanAll(t, data, Options{})
	if st.Layout != "L9" || st.Records != 4 || st.Lines != 37 || st.Continuations != 33 || st.Unparsed != 0 {
		t.Errorf("stats %+v", st)
	}
	const logger = "org.apache.hadoop.ozone.protocolPB.OzoneManagerProtocolServerSideTranslatorPB"
	checkRecords(t, got, []want{
		{Line: 1, Time: "2020-07-28 12:31:49.988", Level: parsers.LevelDebug, Logger: logger, Message: "OzoneProtocol ServiceList request is received"},
		{Line: 2, Time: "2020-07-28 12:31:50.095", Level: parsers.LevelDebug, Logger: logger, Message: "OzoneProtocol CreateVolume request is received"},
		{Line: 3, Time: "2020-07-28 12:33:28.463", Level: parsers.LevelTrace, Logger: logger,
			Message: after(lines[2], "Dispatcher] ") + "\n" + strings.Join(lines[3:30], "\n")},
		{Line: 32, Time: "2020-07-28 12:33:28.474", Level: parsers.LevelTrace, Logger: logger,
			Message: after(lines[31], "Dispatcher] ") + "\n" + strings.Join(lines[32:], "\n")},
	})
}
