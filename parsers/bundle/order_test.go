package bundle

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/log4j"
)

// firstRecordTime is a FirstTime: the time of the first record of head.
func firstRecordTime(_ File, head []byte) time.Time {
	sc := log4j.NewScanner(bytes.NewReader(head), log4j.Options{})
	if sc.Next() {
		return sc.Record().Time
	}
	return time.Time{}
}

// A walk ordered by time visits the files on disk whose start tells no time
// first (archives, settings, text without a time), in name order, then the
// others by the time of their first record (gzip decompressed; ties in
// name order), by one worker and by several; each tells the next one's
// start and its place in name order.
func TestWalkOrderedByTime(t *testing.T) {
	dir := t.TempDir()
	earlier := strings.Replace(scmLine, "10:21:01,114", "10:00:00,000", 1)
	writeFile(t, filepath.Join(dir, "a", "old.log.gz"), gz(t, []byte(earlier)))
	writeFile(t, filepath.Join(dir, "a", "x.log"), []byte(scmLine))
	writeFile(t, filepath.Join(dir, "b", "same.log"), []byte(scmLine+earlier))
	writeFile(t, filepath.Join(dir, "c", "ozone-site.xml"), []byte("<configuration></configuration>\n"))
	writeFile(t, filepath.Join(dir, "d", "bundle.tar.gz"), gz(t, tarBytes(t, entry{name: "scm.log", body: earlier})))
	writeFile(t, filepath.Join(dir, "e", "notes.txt"), []byte("no time here\n"))
	res := walk(t, Options{FirstTime: firstRecordTime}, dir)
	res.wantNoProblems(t)
	p := func(rel string) string { return filepath.Join(dir, rel) }
	wantOrder := []string{p("c/ozone-site.xml"), p("d/bundle.tar.gz") + "!/scm.log", p("e/notes.txt"),
		p("a/old.log.gz"), p("a/x.log"), p("b/same.log")}
	if !slices.Equal(res.order, wantOrder) {
		t.Fatalf("order %q\nwant %q", res.order, wantOrder)
	}
	at := func(s string) time.Time {
		ts, _ := time.Parse("15:04:05.000", s)
		return time.Date(2026, 8, 23, ts.Hour(), ts.Minute(), ts.Second(), ts.Nanosecond(), time.UTC)
	}
	for path, want := range map[string]struct {
		next time.Time
		rank int
	}{
		p("a/old.log.gz"):                  {at("10:21:01.114"), 0},
		p("a/x.log"):                       {at("10:21:01.114"), 1},
		p("b/same.log"):                    {time.Time{}, 2}, // the last
		p("c/ozone-site.xml"):              {time.Time{}, 3},
		p("d/bundle.tar.gz") + "!/scm.log": {time.Time{}, 4},
		p("e/notes.txt"):                   {time.Time{}, 5},
	} {
		if f := res.files[path]; !f.Next.Equal(want.next) || f.Rank != want.rank {
			t.Errorf("%s: next %v rank %d, want %v %d", path, f.Next, f.Rank, want.next, want.rank)
		}
	}
	// Without FirstTime: name order, no ranks.
	plain := walk(t, Options{}, dir)
	if plain.order[0] != p("a/old.log.gz") || plain.files[p("e/notes.txt")].Rank != 0 {
		t.Fatalf("walk by name: order %q", plain.order)
	}
}

// A walk by time of files in more than one part of its list (each let go
// once visited) still visits each in time order and tells each the next one's
// start and its place in name order (names here run against time).
func TestWalkOrderedByTimeOfManyFiles(t *testing.T) {
	dir := t.TempDir()
	n := 2*listedPart + 123
	start := time.Date(2026, 8, 23, 10, 21, 1, 114e6, time.UTC)
	for i := range n {
		line := strings.Replace(scmLine, "10:21:01,114", start.Add(time.Duration(i)*time.Second).Format("15:04:05,000"), 1)
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%05d.log", n-1-i)), []byte(line))
	}
	res := walk(t, Options{FirstTime: firstRecordTime}, dir)
	res.wantNoProblems(t)
	if len(res.order) != n {
		t.Fatalf("%d files visited, want %d", len(res.order), n)
	}
	for i, path := range res.order {
		f := res.files[path]
		wantNext := start.Add(time.Duration(i+1) * time.Second)
		if i == n-1 {
			wantNext = time.Time{}
		}
		if want := filepath.Join(dir, fmt.Sprintf("f%05d.log", n-1-i)); path != want || f.Rank != n-1-i || !f.Next.Equal(wantNext) {
			t.Fatalf("visit %d: %s rank %d next %v, want %s rank %d next %v", i, path, f.Rank, f.Next, want, n-1-i, wantNext)
		}
	}
}

// A walk by time hands on each file as a walk by name does (path, name,
// size, time, host, component, kind): files beside and below directories,
// and an input file named with a path no join would give.
func TestWalkOrderedByTimeKeepsWhatFilesAre(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"dn1/a.log", "dn1/sub/ozone-hadoop-scm-scm1.log", "dn1/z.log", "scm1/x.log"} {
		writeFile(t, filepath.Join(dir, rel), []byte(scmLine))
	}
	input := dir + "/./scm1/x.log"
	byTime, byName := walk(t, Options{FirstTime: firstRecordTime}, dir, input), walk(t, Options{}, dir, input)
	if len(byTime.files) != 5 || byTime.files[input].Path != input {
		t.Fatalf("files %v, want 5 with %s", slices.Sorted(maps.Keys(byTime.files)), input)
	}
	for p, f := range byName.files {
		g := byTime.files[p]
		g.Next, g.Rank = time.Time{}, 0
		if !reflect.DeepEqual(g, f) {
			t.Errorf("%s: by time %+v\nby name %+v", p, g, f)
		}
	}
}

// A part of a listing holds the same files with only their names and
// directories.
func TestListingPart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.log")
	writeFile(t, p, []byte(scmLine))
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	var ls listing
	for _, f := range []struct{ dir, class, name string }{{"in/a", "a", "1.log"}, {"in/a", "a", "2.log"}, {"in/b", "b", "3.log"}, {"x.log", "x.log", ""}} {
		ls.add(f.dir, f.class, f.name, fi)
	}
	if len(ls.dirs) != 3 || string(ls.names) != "1.log2.log3.log" {
		t.Fatalf("dirs %v names %q, want 3 dirs and each name once", ls.dirs, ls.names)
	}
	part := ls.part(2, 4)
	if len(part.dirs) != 2 || string(part.names) != "3.log" {
		t.Fatalf("part: dirs %v names %q", part.dirs, part.names)
	}
	for i, want := range []string{"in/b/3.log", "x.log"} {
		if n, m := part.node(i), ls.node(i+2); n.path != want || !reflect.DeepEqual(n, m) {
			t.Errorf("part file %d: %+v, want %s as %+v", i, n, want, m)
		}
	}
}
