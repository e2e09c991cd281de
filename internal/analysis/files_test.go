package analysis

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// filesOf adds n files whose ranks run backwards, with a limit that sends
// the list to a temporary file after a few.
func filesOf(t *testing.T, n int) *Files {
	var fs Files
	dir := t.TempDir()
	for i := range n {
		fs.add(FileCoverage{Path: fmt.Sprintf("f%03d", n-1-i), Lines: int64(i), rank: n - 1 - i}, 3*fileCost, dir)
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
	fs.sortByRank()
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
		fs.add(FileCoverage{Path: fmt.Sprintf("f%03d", 13-i), rank: 13 - i}, 3*fileCost, "")
	}
	if !fs.spill.failed || len(fs.list) != 7 || fs.Len() != 10 {
		t.Fatalf("after a write failure: failed %v, %d in memory, Len %d", fs.spill.failed, len(fs.list), fs.Len())
	}
	fs.sortByRank()
	if got := paths(fs); len(got) != 0 || fs.Err() == nil {
		t.Fatalf("read %v from a closed file, error %v", got, fs.Err())
	}
	if _, err := json.Marshal(fs); err == nil {
		t.Fatal("a list that cannot be read back marshals without an error")
	}
}
