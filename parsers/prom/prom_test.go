package prom

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// scmPage is the SCM example of signatures-scm.md §5.3 (PrometheusMetricsSink
// format: "# TYPE" per family, no "# HELP", no trailing comma).
const scmPage = `# TYPE jvm_metrics_gc_time_millis counter
jvm_metrics_gc_time_millis{context="jvm",processname="StorageContainerManager",sessionid="null",hostname="scm1.example.com"} 48213
# TYPE jvm_metrics_gc_time_millis_g1_old_generation counter
jvm_metrics_gc_time_millis_g1_old_generation{context="jvm",processname="StorageContainerManager",sessionid="null",hostname="scm1.example.com"} 0
# TYPE replication_manager_metrics_empty_containers gauge
replication_manager_metrics_empty_containers{hostname="scm1.example.com"} 1
# TYPE scm_container_metrics_deleted_containers gauge
scm_container_metrics_deleted_containers{hostname="scm1.example.com"} 17
# TYPE scm_datanode_protocol_counter counter
scm_datanode_protocol_counter{type="SendHeartbeat",hostname="scm1.example.com"} 1045882
# TYPE scm_node_manager_in_service_stale_nodes gauge
scm_node_manager_in_service_stale_nodes{context="ozone",hostname="scm1.example.com"} 12
# TYPE scm_node_manager_num_hb_processed counter
scm_node_manager_num_hb_processed{context="ozone",hostname="scm1.example.com"} 1045880
# TYPE scm_pipeline_metrics_num_pipeline_destroyed counter
scm_pipeline_metrics_num_pipeline_destroyed{hostname="scm1.example.com"} 42
# TYPE storage_container_metrics_container_force_delete counter
storage_container_metrics_container_force_delete{context="dfs",hostname="dn3.example.com"} 1
`

// dnPage is the datanode example of signatures-dn-om.md D.3: metrics2 part,
// the "\n\n#Dropwizard metrics\n\n" separator PrometheusServlet writes, then
// simpleclient's text with "# HELP" and a trailing comma in the label list.
const dnPage = `# TYPE csm_metrics_num_write_state_machine_fails counter
csm_metrics_num_write_state_machine_fails{context="dfs",raftgroupid="group-4C3FA0E1B2D9",hostname="dn3.example.com"} 1
# TYPE command_handler_metrics_invocation_count gauge
command_handler_metrics_invocation_count{context="CommandHandlerMetrics",command="closeContainerCommand",hostname="dn3.example.com"} 57
# TYPE scm_container_metrics_closing_containers gauge
scm_container_metrics_closing_containers{hostname="scm1.example.com"} 19


#Dropwizard metrics

# HELP ratis_log_worker_numStateMachineDataWriteTimeout Generated from Dropwizard metric import (metric=ratis.log_worker.6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9@group-4C3FA0E1B2D9.numStateMachineDataWriteTimeout, type=com.codahale.metrics.Counter)
# TYPE ratis_log_worker_numStateMachineDataWriteTimeout gauge
ratis_log_worker_numStateMachineDataWriteTimeout{instance="6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9",group="group-4C3FA0E1B2D9",} 30.0
`

// omPage is the OM example of signatures-dn-om.md D.4.
const omPage = `# TYPE omha_metrics_ozone_manager_ha_leader_state gauge
omha_metrics_ozone_manager_ha_leader_state{nodeid="omNode-1",hostname="om1.example.com"} 1
#Dropwizard metrics
# HELP ratis_server_omNode_bootstrap_1_lastHeartbeatElapsedTime Generated from Dropwizard metric import (metric=ratis.server.omNode-1@group-C5BA1605619E.omNode-bootstrap-1_lastHeartbeatElapsedTime, type=...)
# TYPE ratis_server_omNode_bootstrap_1_lastHeartbeatElapsedTime gauge
ratis_server_omNode_bootstrap_1_lastHeartbeatElapsedTime{instance="omNode-1",group="group-C5BA1605619E",} 8.6412345678E11
ratis_log_appender_follower_match_index{instance="omNode-1",group="group-C5BA1605619E",follower="omNode-bootstrap-1",} 10234.0
`

func mustParse(t *testing.T, text string) *Snapshot {
	t.Helper()
	s, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func find(t *testing.T, s *Snapshot, name string) Sample {
	t.Helper()
	for _, smp := range s.Samples {
		if smp.Name == name {
			return smp
		}
	}
	t.Fatalf("no sample %s in %d samples", name, len(s.Samples))
	return Sample{}
}

func TestParseSCMPage(t *testing.T) {
	s := mustParse(t, scmPage)
	if s.Errors != 0 || len(s.Samples) != 9 || len(s.Types) != 9 {
		t.Fatalf("errors=%d samples=%d types=%d, want 0/9/9", s.Errors, len(s.Samples), len(s.Types))
	}
	gc := find(t, s, "jvm_metrics_gc_time_millis")
	if gc.Value != 48213 || gc.Labels["sessionid"] != "null" || gc.Labels["processname"] != "StorageContainerManager" ||
		gc.Labels["hostname"] != "scm1.example.com" || len(gc.Labels) != 4 {
		t.Errorf("gc sample = %+v", gc)
	}
	if v := find(t, s, "scm_datanode_protocol_counter"); v.Value != 1045882 || v.Labels["type"] != "SendHeartbeat" {
		t.Errorf("protocol counter = %+v", v)
	}
	if got := s.Types["scm_node_manager_in_service_stale_nodes"]; got != "gauge" {
		t.Errorf("type = %q, want gauge", got)
	}
	if got := s.Types["scm_node_manager_num_hb_processed"]; got != "counter" {
		t.Errorf("type = %q, want counter", got)
	}
}

func TestParseDatanodePageWithDropwizardSection(t *testing.T) {
	s := mustParse(t, dnPage)
	if s.Errors != 0 || len(s.Samples) != 4 {
		t.Fatalf("errors=%d samples=%d, want 0/4", s.Errors, len(s.Samples))
	}
	w := find(t, s, "ratis_log_worker_numStateMachineDataWriteTimeout")
	if w.Value != 30 || len(w.Labels) != 2 || w.Labels["group"] != "group-4C3FA0E1B2D9" ||
		w.Labels["instance"] != "6c1f8a2e-2d7b-4c55-9f0e-4c3fa0e1b2d9" {
		t.Errorf("dropwizard sample = %+v", w)
	}
	if s.Types["ratis_log_worker_numStateMachineDataWriteTimeout"] != "gauge" {
		t.Errorf("types = %v", s.Types)
	}
	for name := range s.Types {
		if strings.Contains(name, "Dropwizard") || name == "metrics" {
			t.Errorf("separator comment read as a type: %q", name)
		}
	}
}

func TestParseOMPage(t *testing.T) {
	s := mustParse(t, omPage)
	if s.Errors != 0 || len(s.Samples) != 3 {
		t.Fatalf("errors=%d samples=%d, want 0/3", s.Errors, len(s.Samples))
	}
	hb := find(t, s, "ratis_server_omNode_bootstrap_1_lastHeartbeatElapsedTime")
	if hb.Value != 8.6412345678e11 {
		t.Errorf("heartbeat value = %v", hb.Value)
	}
	m := find(t, s, "ratis_log_appender_follower_match_index")
	if m.Value != 10234 || m.Labels["follower"] != "omNode-bootstrap-1" || len(m.Labels) != 3 {
		t.Errorf("match index = %+v", m)
	}
	if find(t, s, "omha_metrics_ozone_manager_ha_leader_state").Labels["nodeid"] != "omNode-1" {
		t.Error("nodeid label lost")
	}
}

// Older Ozone wrote "# TYPE" before every sample (layouts.md, HDDS-5010).
func TestParseDuplicateTypeLines(t *testing.T) {
	text := `# TYPE scm_node_manager_in_service_stale_nodes gauge
scm_node_manager_in_service_stale_nodes{context="ozone",hostname="scm1.example.com"} 12
# TYPE scm_node_manager_in_service_stale_nodes gauge
scm_node_manager_in_service_stale_nodes{context="ozone",hostname="scm2.example.com"} 0
`
	s := mustParse(t, text)
	if s.Errors != 0 || len(s.Samples) != 2 || s.Types["scm_node_manager_in_service_stale_nodes"] != "gauge" {
		t.Fatalf("got %+v", s)
	}
	if s.Samples[1].Labels["hostname"] != "scm2.example.com" || s.Samples[1].Value != 0 {
		t.Errorf("second sample = %+v", s.Samples[1])
	}
}

func TestParseNumbers(t *testing.T) {
	cases := []struct {
		text string
		want float64
	}{
		{"5", 5}, {"0", 0}, {"0.0", 0}, {"1823", 1823}, {"1.2E7", 1.2e7}, {"1.0E7", 1e7},
		{"4.0", 4}, {"-3", -3}, {"8.6412345678E11", 8.6412345678e11}, {"1.5e-3", 0.0015},
		{"+Inf", math.Inf(1)}, {"-Inf", math.Inf(-1)}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)},
		{"9.223372036854776E18", 9.223372036854776e18}, {"1e400", math.Inf(1)},
	}
	for _, c := range cases {
		s := mustParse(t, "x "+c.text+"\n")
		if s.Errors != 0 || len(s.Samples) != 1 || s.Samples[0].Value != c.want {
			t.Errorf("%q: got %+v, want %v", c.text, s, c.want)
		}
	}
	s := mustParse(t, "x NaN\n")
	if s.Errors != 0 || len(s.Samples) != 1 || !math.IsNaN(s.Samples[0].Value) {
		t.Errorf("NaN: got %+v", s)
	}
	for _, bad := range []string{"0x10", "1_000", "1.2.3", "five", "1,5", "0x1p-2"} {
		if s := mustParse(t, "x "+bad+"\n"); s.Errors != 1 || len(s.Samples) != 0 {
			t.Errorf("%q: accepted as %+v", bad, s)
		}
	}
}

func TestParseEscapedLabelValues(t *testing.T) {
	s := mustParse(t, `m{path="C:\\dir\\x",msg="say \"hi\"\nbye",other="a\tb",}`+" 1\n")
	if s.Errors != 0 || len(s.Samples) != 1 {
		t.Fatalf("got %+v", s)
	}
	l := s.Samples[0].Labels
	if l["path"] != `C:\dir\x` || l["msg"] != "say \"hi\"\nbye" || l["other"] != `a\tb` {
		t.Errorf("labels = %q", l)
	}
}

func TestParseTimestampsCRLFBlankLines(t *testing.T) {
	text := "# TYPE a counter\r\n\r\na{x=\"1\"} 3 1724408461114\r\n\r\n  b 2.5 1724408461.114\r\nc{} 7" // no final newline
	s := mustParse(t, text)
	if s.Errors != 0 || len(s.Samples) != 3 {
		t.Fatalf("errors=%d samples=%+v", s.Errors, s.Samples)
	}
	if s.Samples[0].Value != 3 || s.Samples[0].Labels["x"] != "1" || s.Samples[1].Value != 2.5 || s.Samples[2].Value != 7 {
		t.Errorf("samples = %+v", s.Samples)
	}
	if s.Samples[2].Labels != nil {
		t.Errorf("empty label list gave %v, want nil", s.Samples[2].Labels)
	}
	if s.Types["a"] != "counter" {
		t.Errorf("type with CRLF = %q", s.Types["a"])
	}
}

func TestParseCountsBadLinesAndGoesOn(t *testing.T) {
	bad := []string{
		`x{a="b" 1`,             // unterminated label list
		`{a="b"} 1`,             // no name
		`x`,                     // no value
		`x 1 2 3`,               // too many fields
		`x{a=b} 1`,              // unquoted value
		`x{a="b"}1`,             // no blank before the value
		`x{a="b\"} 1`,           // escaped closing quote
		`x{="b"} 1`,             // empty label name
		`x{a="b";c="d"} 1`,      // wrong separator
		`x 1 later`,             // bad timestamp
		`9x 1`,                  // name starts with a digit
		`# TYPE x`,              // TYPE without a type
		`# TYPE 9x gauge`,       // TYPE with a bad name
		"x{a=\"b\"} \x00\xff 1", // binary garbage
	}
	text := "good_before 1\n" + strings.Join(bad, "\n") + "\ngood_after{k=\"v\"} 2\n"
	s := mustParse(t, text)
	if s.Errors != len(bad) {
		t.Errorf("errors = %d, want %d", s.Errors, len(bad))
	}
	if len(s.Samples) != 2 || s.Samples[0].Name != "good_before" || s.Samples[1].Name != "good_after" {
		t.Errorf("samples = %+v", s.Samples)
	}
}

func TestParseLongLines(t *testing.T) {
	// Longer than the read buffer but under the cap: read.
	long := "m{v=\"" + strings.Repeat("a", 200<<10) + "\"} 1\n"
	// Over the cap: skipped, counted.
	huge := "m{v=\"" + strings.Repeat("b", MaxLineBytes) + "\"} 2\n"
	s := mustParse(t, long+huge+"after 3\n")
	if s.Errors != 1 || len(s.Samples) != 2 {
		t.Fatalf("errors=%d samples=%d, want 1/2", s.Errors, len(s.Samples))
	}
	if len(s.Samples[0].Labels["v"]) != 200<<10 || s.Samples[1].Name != "after" || s.Samples[1].Value != 3 {
		t.Errorf("samples = %v %v", s.Samples[0].Name, s.Samples[1])
	}
	// An over-long last line without a newline.
	s = mustParse(t, "a 1\n"+strings.Repeat("c", MaxLineBytes+10))
	if s.Errors != 1 || len(s.Samples) != 1 {
		t.Errorf("unterminated huge line: errors=%d samples=%d", s.Errors, len(s.Samples))
	}
}

type failingReader struct {
	data string
	done bool
}

var errDisk = errors.New("disk on fire")

func (r *failingReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, errDisk
	}
	r.done = true
	return copy(p, r.data), nil
}

func TestParseReturnsIOErrors(t *testing.T) {
	s, err := Parse(&failingReader{data: "a 1\nb 2\n"})
	if !errors.Is(err, errDisk) {
		t.Fatalf("err = %v, want %v", err, errDisk)
	}
	if s == nil || len(s.Samples) != 2 {
		t.Errorf("partial snapshot = %+v", s)
	}
}
