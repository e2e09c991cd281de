package scenario_test

import (
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
	"github.com/ozdoctor/ozdoctor/parsers"
)

// TestRenderScripts renders every defect script in L1 and one other layout
// (in turn): the application logs must hold one record header of the layout
// per line logged, so no continuation line is mistaken for a header.
func TestRenderScripts(t *testing.T) {
	all := scripts.All()
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		s := scenario.New(int64(i), scenario.TestStart, 90*time.Minute, scenario.NewCluster(rand.New(rand.NewSource(int64(i))), 3, 4, 6))
		all[name](s, scenario.TestStart.Add(10*time.Minute))
		want := map[string]int{}
		for _, l := range s.Lines("") {
			if l.File == parsers.KindLog {
				n, _ := s.Cluster.Node(l.Host)
				want[n.Host]++
			}
		}
		others := []string{scenario.LayoutConsole, scenario.LayoutCDP, scenario.LayoutHelm, scenario.LayoutIDE, scenario.LayoutK8s}
		for _, layout := range []string{scenario.LayoutFile, others[i%len(others)]} {
			dir := t.TempDir()
			if err := s.Render(dir, scenario.Render{Layout: layout}); err != nil {
				t.Fatalf("%s %s: %v", name, layout, err)
			}
			for _, n := range s.Cluster.Nodes() {
				b, err := os.ReadFile(filepath.Join(dir, n.Short(), "ozone-hadoop-"+string(n.Component)+"-"+n.Host+".log"))
				if err != nil {
					t.Fatal(err)
				}
				got := 0
				for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
					if scenario.HeaderRes[layout].MatchString(l) {
						got++
					}
				}
				if got != want[n.Host] {
					t.Errorf("%s %s %s: %d record headers, want %d", name, layout, n.Short(), got, want[n.Host])
				}
			}
		}
	}
}
