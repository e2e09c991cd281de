package registry

import (
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// packageDir returns the directory of the package that defines reg.New.
func packageDir(t *testing.T, reg detectors.Registration) string {
	fn := runtime.FuncForPC(reflect.ValueOf(reg.New).Pointer()).Name()
	pkg := fn[:strings.LastIndex(fn, ".")]
	rel, ok := strings.CutPrefix(pkg, "github.com/ozdoctor/ozdoctor/detectors/")
	if !ok {
		t.Fatalf("%s: detector outside detectors/: %s", reg.Doc.Name, pkg)
	}
	return filepath.Join("..", rel)
}

// Every Go detector has both kinds of cases in its testdata/ (the built-in
// signatures' are checked in signatures/).
func TestEveryDetectorHasPositiveAndQuietCases(t *testing.T) {
	for _, reg := range Go() {
		pos, quiet, err := detectortest.Kinds(filepath.Join(packageDir(t, reg), "testdata"))
		if err != nil {
			t.Errorf("%s: %v", reg.Doc.Name, err)
			continue
		}
		if pos == 0 || quiet == 0 {
			t.Errorf("%s: %d positive and %d quiet cases; want at least one of each", reg.Doc.Name, pos, quiet)
		}
	}
}

var metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

func TestDocsAreComplete(t *testing.T) {
	kinds := map[catalogue.Kind]bool{catalogue.LogGap: true, catalogue.MetricSample: true}
	for _, e := range catalogue.Default() {
		kinds[e.Kind] = true
	}
	for _, reg := range All() {
		for _, e := range reg.Entries {
			kinds[e.Kind] = true
		}
	}
	names := map[string]bool{}
	for _, reg := range All() {
		d := reg.Doc
		if d.Name == "" || names[d.Name] || d.Defect == "" || d.Title == "" || d.Summary == "" ||
			d.Explanation == "" || len(d.Remediation) == 0 || d.Resolves == "" || len(d.FalsePositives) == 0 ||
			len(d.Needs) == 0 && d.File == "" { // a signature may read any component's logs
			t.Errorf("%s: incomplete doc", d.Name)
		}
		names[d.Name] = true
		for _, k := range d.Kinds {
			if !kinds[k] {
				t.Errorf("%s consumes %q, which no catalogue entry produces", d.Name, k)
			}
		}
		if (len(d.Metrics) > 0) != slices.Contains(d.Kinds, catalogue.MetricSample) {
			t.Errorf("%s: metrics %q, but Kinds and Metrics disagree on %s", d.Name, d.Metrics, catalogue.MetricSample)
		}
		for _, m := range d.Metrics {
			if !metricName.MatchString(m) {
				t.Errorf("%s: %q is not a Prometheus metric name", d.Name, m)
			}
		}
		if _, err := d.Remediate(&detectors.Finding{Facts: map[string]string{}, Entities: detectors.Entities{
			Containers: []uint64{1}, Datanodes: []catalogue.Datanode{{UUID: "u", Host: "h"}}, Hosts: []string{"h"},
			Pipelines: []string{"p"}, RaftGroups: []string{"g"}, OMNodes: []string{"o"}}}); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
}

// Every detector of a defect declares the Ozone versions it affects, where
// they were read, and (while no release has a fix) says so.
func TestDocsDeclareVersions(t *testing.T) {
	for _, reg := range All() {
		d := reg.Doc
		if !strings.HasPrefix(d.Defect, "HDDS-") {
			continue // a condition, not a defect of one code path
		}
		if d.Affected == "" || d.VersionsRead == "" {
			t.Errorf("%s: no affected versions or no source for them", d.Name)
		}
		if err := d.ValidateVersions(); err != nil {
			t.Error(err)
		}
		if len(d.FixedIn) == 0 && !strings.Contains(d.VersionsRead, "not fixed in any release as of") {
			t.Errorf("%s: no fixed release and no \"not fixed in any release as of\"", d.Name)
		}
	}
}

// Bundles with several defects at once, run through every detector.
func TestMultiDefectBundles(t *testing.T) {
	detectortest.RunAll(t, All(), "testdata")
}

// Every detector tells the engine its next deadline: an idle one whose
// Quiet cannot tell makes the engine call it at every second of event time.
func TestIdleDetectorsAreQuiet(t *testing.T) {
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity()}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, reg := range All() {
		d, err := reg.New(env)
		if err != nil {
			t.Fatalf("%s: %v", reg.Doc.Name, err)
		}
		d.Advance(t0, func(f detectors.Finding) { t.Errorf("%s: idle detector emitted %+v", reg.Doc.Name, f) })
		if q := d.Quiet(t0); !q.After(t0) {
			t.Errorf("%s: idle, Quiet(%v) = %v: advanced at every tick", reg.Doc.Name, t0, q)
		}
	}
}
