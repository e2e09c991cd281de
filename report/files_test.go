package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// filesOf adds n files whose ranks run backwards, with a limit that sends
// the list to a temporary file after a few.
func filesOf(t *testing.T, n int) *Files {
	var fs Files
	dir := t.TempDir()
	for i := range n {
		fs.Add(FileCoverage{Path: fmt.Sprintf("f%03d", n-1-i), Lines: int64(i)}, n-1-i, 3*fileCost, dir)
	}
	return &fs
}

func paths(fs *Files) []string {
	var out []string
	for fc := range fs.All() {
		out = append(out, fc.Path)
	}
	return out
}

// A list past its limit goes to a temporary file and reads back the same,
// in name order once sorted, and as the same JSON.
func TestFilesSpillPastTheirLimit(t *testing.T) {
	fs := filesOf(t, 10)
	if fs.spill == nil || len(fs.list) >= 3 {
		t.Fatalf("%d files in memory past a limit of 3, spill %v", len(fs.list), fs.spill)
	}
	fs.SortByRank()
	want := []string{"f000", "f001", "f002", "f003", "f004", "f005", "f006", "f007", "f008", "f009"}
	if got := paths(fs); !slices.Equal(got, want) || fs.Len() != 10 || len(fs.list) != 0 {
		t.Fatalf("read back %v (Len %d, %d in memory), want %v", got, fs.Len(), len(fs.list), want)
	}
	var inMemory []FileCoverage
	for i, p := range want {
		inMemory = append(inMemory, FileCoverage{Path: p, Lines: int64(9 - i)})
	}
	got, err := json.Marshal(fs)
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := json.Marshal(inMemory); string(got) != string(w) {
		t.Fatalf("JSON %s, want %s", got, w)
	}
}

// When the temporary file can no longer be written, the rest of the list
// stays in memory and is counted; when what was written cannot be read
// back, All stops and Err says why.
func TestFilesSpillFailures(t *testing.T) {
	fs := filesOf(t, 4)
	fs.spill.store.Close()
	for i := 4; i < 10; i++ {
		fs.Add(FileCoverage{Path: fmt.Sprintf("f%03d", 13-i)}, 13-i, 3*fileCost, "")
	}
	if !fs.spill.failed || len(fs.list) != 7 || fs.Len() != 10 {
		t.Fatalf("after a write failure: failed %v, %d in memory, Len %d", fs.spill.failed, len(fs.list), fs.Len())
	}
	fs.SortByRank()
	if got := paths(fs); len(got) != 0 || fs.Err() == nil {
		t.Fatalf("read %v from a closed file, error %v", got, fs.Err())
	}
	if _, err := json.Marshal(fs); err == nil {
		t.Fatal("a list that cannot be read back marshals without an error")
	}
}

// The sums of a list are kept as files are added, whether they then went
// to the temporary file or not, and come back the same from FilesOf and
// from JSON.
func TestFileSums(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 8, 1, h, 0, 0, 0, time.UTC) }
	fcs := []FileCoverage{
		{Path: "scm1/a.log", Host: "scm1", Component: "scm", Bytes: 10, Lines: 3, Records: 2, First: at(5), Last: at(6)},
		{Path: "c.log", Host: "scm1.example.org", Component: "om", Lines: 4, Records: 4, First: at(7), Last: at(9), Truncated: 2},
		{Path: "b.log", Host: "scm1.example.com", Component: "scm", Bytes: 1, Lines: 1, Records: 1, First: at(2), Last: at(3), Damaged: 1, Unparsed: 1},
		{Path: "d.log", Host: "dn1", Component: "datanode", Records: 5, Samples: 6}, // no time told
		{Path: "e.out", Component: "", Lines: 1, Last: at(10)},
	}
	var fs Files
	dir := t.TempDir()
	for _, fc := range fcs {
		fs.Add(fc, 0, 2*fileCost, dir)
	}
	if fs.spill == nil {
		t.Fatal("nothing went to the temporary file")
	}
	want := fileSums{
		totals: Totals{Files: 5, Bytes: 11, Lines: 9, Records: 12, Unparsed: 1, Truncated: 2, Damaged: 1, Samples: 6},
		start:  at(2), end: at(10),
		hosts: map[string]*HostCoverage{
			"scm1":           {Host: "scm1.example.com", Components: []string{"scm", "om"}, Files: 3, Records: 7, First: at(2), Last: at(9)},
			"dn1":            {Host: "dn1", Components: []string{"datanode"}, Files: 1, Records: 5},
			"(unknown host)": {Host: "(unknown host)", Files: 1, Last: at(10)},
		},
		present: map[parsers.Component]bool{"scm": true, "om": true, "datanode": true, "": true},
	}
	b, err := json.Marshal(fs)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON Files
	if err := json.Unmarshal(b, &fromJSON); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]fileSums{"added": fs.sums, "FilesOf": FilesOf(fcs).sums, "JSON": fromJSON.sums} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: sums %+v, want %+v", name, got, want)
			for k, h := range got.hosts {
				t.Logf("%s: host %q: %+v", name, k, *h)
			}
		}
	}
	// SumFiles reports the sums with the hosts by name, their components
	// sorted.
	cov := Coverage{Files: fs}
	cov.SumFiles()
	if cov.Totals != want.totals || !cov.Start.Equal(at(2)) || !cov.End.Equal(at(10)) {
		t.Errorf("SumFiles: totals %+v from %v to %v", cov.Totals, cov.Start, cov.End)
	}
	wantHosts := []HostCoverage{*want.hosts["(unknown host)"], *want.hosts["dn1"],
		{Host: "scm1.example.com", Components: []string{"om", "scm"}, Files: 3, Records: 7, First: at(2), Last: at(9)}}
	if !reflect.DeepEqual(cov.Hosts, wantHosts) {
		t.Errorf("SumFiles: hosts %+v, want %+v", cov.Hosts, wantHosts)
	}
}
