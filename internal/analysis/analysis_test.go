package analysis

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// recorder is a detector that records what the engine gives it.
type recorder struct{ seen *[]*catalogue.Signal }

func (r recorder) Observe(s *catalogue.Signal, _ detectors.Emit) {
	c := *s // s is the engine's only during the call
	*r.seen = append(*r.seen, &c)
}
func (recorder) Advance(time.Time, detectors.Emit) {}
func (recorder) Quiet(now time.Time) time.Time     { return now.Add(detectors.NoDeadline) }
func (recorder) End(time.Time, detectors.Emit)     {}
func (recorder) StateStats() []detectors.StateStat { return nil }

func recording(seen *[]*catalogue.Signal, kinds ...catalogue.Kind) detectors.Registration {
	return detectors.Registration{
		Doc: detectors.Doc{Name: "recorder", Defect: "HDDS-0", Kinds: kinds},
		New: func(*detectors.Env) (detectors.Detector, error) { return recorder{seen}, nil },
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Two hosts' SCM logs interleave in time; the detectors must see one
// event-time ordered stream with hosts and components from the file names,
// and untimed .out lines first.
func TestMergeOrdersSignalsByEventTimeAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	// T10 StaleNodeHandler.java:51 (signatures-scm.md §1.3), layout L1.
	stale := func(ts, uuid, host string) string {
		return ts + " [scm1-EventQueue-StaleNodeForStaleNodeHandler] INFO org.apache.hadoop.hdds.scm.node.StaleNodeHandler: Datanode " +
			uuid + "(" + host + "/10.0.2.1) moved to stale state. Finalizing its pipelines []\n"
	}
	write(t, filepath.Join(dir, "scm1", "ozone-hadoop-scm-scm1.example.com.log"),
		stale("2026-08-23 10:00:01,000", "11111111-1111-1111-1111-111111111111", "dn1.example.com")+
			stale("2026-08-23 10:00:03,000", "33333333-3333-3333-3333-333333333333", "dn3.example.com"))
	write(t, filepath.Join(dir, "scm2", "ozone-hadoop-scm-scm2.example.com.log"),
		stale("2026-08-23 10:00:02,000", "22222222-2222-2222-2222-222222222222", "dn2.example.com"))
	// N18 (signatures-dn-om.md B.1): stderr line of a failed bootstrap, no timestamp.
	write(t, filepath.Join(dir, "om4", "ozone-hadoop-om-om4.example.com.out"),
		"Failed to Bootstrap OM. Error Code: RATIS_BOOTSTRAP_ERROR, Error Message: Failed to add OM omNode-4 in Ratis ring.\n")
	var seen []*catalogue.Signal
	res, err := Run(context.Background(), Options{Inputs: []string{dir},
		Detectors: []detectors.Registration{recording(&seen, catalogue.NodeStale, catalogue.OMBootstrapError)}})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range seen {
		order = append(order, s.Host+"/"+s.Datanode.Host)
	}
	want := "om4.example.com/ scm1.example.com/dn1.example.com scm2.example.com/dn2.example.com scm1.example.com/dn3.example.com"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
	if seen[1].Component != "scm" || seen[1].Origin.Line != 1 || seen[3].Origin.Line != 2 {
		t.Errorf("origin: %+v", seen[3])
	}
	if res.Coverage.Totals.Files != 3 || len(res.Coverage.Hosts) != 3 || res.Coverage.Detectors[0].Ran != true {
		t.Errorf("coverage: %+v", res.Coverage)
	}
}

func TestSinceUntilAndZone(t *testing.T) {
	dir := t.TempDir()
	// T01 NodeStateManager.java:730 (signatures-scm.md §1.3).
	line := func(ts string) string {
		return ts + " [scm1-SCMHeartbeatProcessor-0] INFO org.apache.hadoop.hdds.scm.node.NodeStateManager: Detected long delay in scheduling HB processing thread. Skipping heartbeat checks for one iteration.\n"
	}
	write(t, filepath.Join(dir, "ozone-hadoop-scm-scm1.log"), line("2026-08-23 10:00:00,000")+line("2026-08-23 11:00:00,000")+line("2026-08-23 12:00:00,000"))
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	var seen []*catalogue.Signal
	_, err = Run(context.Background(), Options{Inputs: []string{dir}, Zone: berlin,
		Since: time.Date(2026, 8, 23, 8, 30, 0, 0, time.UTC), Until: time.Date(2026, 8, 23, 9, 30, 0, 0, time.UTC),
		Detectors: []detectors.Registration{recording(&seen, catalogue.HeartbeatCheckSkipped)}})
	if err != nil {
		t.Fatal(err)
	}
	// 11:00 in Berlin (CEST, UTC+2) is 09:00 UTC: the only line in the window.
	if len(seen) != 1 || !seen[0].Time.Equal(time.Date(2026, 8, 23, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("seen %d signals: %v", len(seen), seen)
	}
}

func TestNoReadableInput(t *testing.T) {
	res, err := Run(context.Background(), Options{Inputs: []string{filepath.Join(t.TempDir(), "missing")}})
	if !errors.Is(err, ErrNoInput) {
		t.Fatalf("want ErrNoInput, got %v", err)
	}
	if len(res.Coverage.Skipped) != 1 || !strings.Contains(res.Coverage.Skipped[0].Path, "missing") {
		t.Errorf("skipped: %+v", res.Coverage.Skipped)
	}
}
