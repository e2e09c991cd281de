package ozdoctor_test

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is the package layering of shared/DESIGN.md (sources → records →
// signals → detectors → findings → sinks), bottom to top. A package may
// import the packages of the layers below its own, and those of its own
// layer only where the layer says so (peers); never a layer above. Test
// files are free: a test may run the whole pipeline.
//
//	store        store/...                  leaf libraries that keep state and data on disk: the checkpoints'
//	                                        codec (snapshot), spill files (diskstore), crash-safe replacement
//	                                        (atomicfile); they import nothing of ozdoctor
//	parsers      parsers, parsers/...       sources and records: log4j layouts, bundles, tailing, /prom,
//	                                        Elasticsearch (es, and the connection es/esclient that
//	                                        sinks/elasticsearch shares), site settings, and the message
//	                                        catalogue that makes records signals (peers)
//	engine       detectors                  the engine, the Detector and Finding types
//	detectors    detectors/..., signatures  one package per detector, the signature format, the built-in
//	                                        signatures; no detector imports another
//	registry     detectors/registry         the list of every detector
//	report       report                     what a run found and what it covered, as every report format
//	                                        reads it
//	sinks        sinks, sinks/...           outputs: the report formats, Alertmanager, Elasticsearch,
//	                                        /metrics; no sink imports another
//	rules        rules, dashboards          alerting rules and dashboards generated from the registry (peers)
//	application  internal/...               the pipeline's wiring and the modes that run it: stream,
//	                                        analysis, daemon, redact (peers)
//	harness      detectors/cases,           test support, which runs what it tests the way a user does:
//	             detectors/detectortest,    the case runner (also ozdoctor test), generated clusters
//	             internal/scenario,         (the library; every script together, with the sample and
//	             internal/scenario/scripts, the fleets made of them; each defect's scripts beside the
//	             internal/amtest,           detector or signature whose cases use them), an
//	             internal/esstandin,        Alertmanager and an Elasticsearch for tests (peers)
//	             detectors/bootstrapexit/scripts,
//	             detectors/divisionclosing/scripts,
//	             signatures/scm-pause-stale-nodes/scripts,
//	             signatures/old-datanode-after-finalize/scripts,
//	             signatures/empty-quasi-closed-delete/scripts
//	command      cmd/...                    main: the only place that reads flags, environment and config
//
// A package belongs to the layer of its most specific pattern: an exact
// path before a folder/..., a longer folder before a shorter one.
var layers = []struct {
	name     string
	patterns []string
	peers    bool // its packages may import each other
}{
	{"store", []string{"store/..."}, false},
	{"parsers", []string{"parsers", "parsers/..."}, true},
	{"engine", []string{"detectors"}, false},
	{"detectors", []string{"detectors/...", "signatures"}, false},
	{"registry", []string{"detectors/registry"}, false},
	{"report", []string{"report"}, false},
	{"sinks", []string{"sinks", "sinks/..."}, false},
	{"rules", []string{"rules", "dashboards"}, true},
	{"application", []string{"internal/..."}, true},
	{"harness", []string{"detectors/cases", "detectors/detectortest", "internal/scenario", "internal/scenario/scripts",
		"internal/amtest", "internal/esstandin",
		"detectors/bootstrapexit/scripts", "detectors/divisionclosing/scripts",
		"signatures/scm-pause-stale-nodes/scripts", "signatures/old-datanode-after-finalize/scripts",
		"signatures/empty-quasi-closed-delete/scripts"}, true},
	{"command", []string{"cmd/..."}, true},
}

// layerOf returns the index in layers of the package at rel (its path
// inside the module), the pattern that placed it there, or -1.
func layerOf(rel string) (int, string) {
	best, bestPattern, bestScore := -1, "", -1
	for i, l := range layers {
		for _, p := range l.patterns {
			score := -1
			if dir, ok := strings.CutSuffix(p, "/..."); ok {
				if strings.HasPrefix(rel, dir+"/") {
					score = 2 * len(dir)
				}
			} else if rel == p {
				score = 2*len(p) + 1
			}
			if score > bestScore {
				best, bestPattern, bestScore = i, p, score
			}
		}
	}
	return best, bestPattern
}

// pkg is a package of the module as its non-test files say.
type pkg struct {
	rel     string          // path inside the module; "" for the root
	imports map[string]bool // the module's packages it imports, by rel
	docs    []string        // files holding a package doc comment
}

// modulePackages reads every package of the module: the imports and doc
// comments of its non-test files, under every build constraint.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	module := modulePath(t)
	byDir := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		if dir == "." {
			dir = ""
		}
		pk := byDir[dir]
		if pk == nil {
			pk = &pkg{rel: dir, imports: map[string]bool{}}
			byDir[dir] = pk
		}
		if f.Doc != nil {
			pk.docs = append(pk.docs, name)
		}
		for _, spec := range f.Imports {
			ip, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if rel, ok := strings.CutPrefix(ip, module+"/"); ok {
				pk.imports[rel] = true
			} else if ip == module {
				pk.imports[""] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []pkg
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		out = append(out, *byDir[dir])
	}
	return out
}

// modulePath reads the module's path from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// TestLayering fails on every import that runs against the layering: up
// the table, or sideways within a layer whose packages stay apart.
func TestLayering(t *testing.T) {
	pkgs := modulePackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages: run from the module's root", len(pkgs))
	}
	used := map[string]bool{}
	for _, p := range pkgs {
		li, pattern := layerOf(p.rel)
		if li < 0 {
			t.Errorf("package %s is in no layer: add it to the table of layering_test.go", p.rel)
			continue
		}
		used[pattern] = true
		for _, imp := range slices.Sorted(maps.Keys(p.imports)) {
			lj, _ := layerOf(imp)
			switch {
			case lj < 0:
				t.Errorf("%s imports %s, which is in no layer", p.rel, imp)
			case lj > li:
				t.Errorf("%s (layer %s) imports %s (layer %s, above it): arrows run down the layers", p.rel, layers[li].name, imp, layers[lj].name)
			case lj == li && !layers[li].peers:
				t.Errorf("%s imports %s: the packages of layer %s do not import each other", p.rel, imp, layers[li].name)
			}
		}
	}
	for _, l := range layers {
		for _, p := range l.patterns {
			if !used[p] {
				t.Errorf("layer %s: no package matches %s (moved or gone? keep the table true)", l.name, p)
			}
		}
	}
}

// TestPackageDocs checks that every package has its doc comment, in one
// file: the comment names the package's one job.
func TestPackageDocs(t *testing.T) {
	for _, p := range modulePackages(t) {
		if p.rel == "" {
			continue
		}
		switch len(p.docs) {
		case 0:
			t.Errorf("package %s has no doc comment: say its one job in a // Package %s comment", p.rel, path.Base(p.rel))
		case 1:
		default:
			t.Errorf("package %s has doc comments in %s: keep one", p.rel, strings.Join(p.docs, ", "))
		}
	}
}

// layerOf places a package by its most specific pattern, and nothing
// outside the patterns.
func TestLayerOf(t *testing.T) {
	for rel, want := range map[string]string{
		"store/snapshot":                           "store",
		"parsers":                                  "parsers",
		"parsers/es/esclient":                      "parsers",
		"detectors":                                "engine",
		"detectors/pausestale":                     "detectors",
		"detectors/registry":                       "registry",
		"detectors/cases":                          "harness",
		"signatures":                               "detectors",
		"report":                                   "report",
		"sinks/metrics":                            "sinks",
		"internal/stream":                          "application",
		"internal/scenario":                        "harness",
		"internal/scenario/scripts":                "harness",
		"detectors/bootstrapexit/scripts":          "harness",
		"detectors/bootstrapexit/scripts/x":        "detectors",
		"signatures/scm-pause-stale-nodes/scripts": "harness",
		"signatures/scm-pause-stale-nodes":         "",
		"cmd/ozdoctor":                             "command",
		"detectorsx":                               "",
		"internal":                                 "",
		"sinks/metrics/internal":                   "sinks",
	} {
		i, _ := layerOf(rel)
		got := ""
		if i >= 0 {
			got = layers[i].name
		}
		if got != want {
			t.Errorf("layerOf(%q) = %q, want %q", rel, got, want)
		}
	}
}
