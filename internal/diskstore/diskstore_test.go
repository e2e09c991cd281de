package diskstore

import (
	"os"
	"strings"
	"testing"
)

type doc struct {
	Text string
	N    int
}

// Values read back are the ones put, in any order, and the file leaves no
// name behind; a closed store refuses both ways with an error.
func TestPutGet(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []doc{{"a", 1}, {strings.Repeat("long ", 1000), 2}, {"é\n\"q\"", 3}}
	var refs []Ref
	for _, d := range want {
		r, err := s.Put(d)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the store left %v in its directory", entries)
	}
	for _, i := range []int{2, 0, 1, 2} {
		var got doc
		if err := s.Get(refs[i], &got); err != nil || got != want[i] {
			t.Fatalf("read back %+v (%v), want %+v", got, err, want[i])
		}
	}
	s.Close()
	var got doc
	if err := s.Get(refs[0], &got); err == nil || !strings.Contains(err.Error(), "temporary file") {
		t.Fatalf("read from a closed store: %v", err)
	}
	if _, err := s.Put(want[0]); err == nil {
		t.Fatal("wrote to a closed store")
	}
	if _, err := Open(dir + "/missing"); err == nil {
		t.Fatal("opened a store in a missing directory")
	}
}
