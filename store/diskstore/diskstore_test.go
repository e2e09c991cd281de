package diskstore

import (
	"fmt"
	"os"
	"strings"
	"sync"
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

// Values put all at once follow those put before them and read back as
// they were put; a closed store writes none of them.
func TestPutAll(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Put(doc{"first", 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []doc{{"a", 1}, {strings.Repeat("long ", 1000), 2}, {"é\n\"q\"", 3}}
	refs, err := PutAll(s, want)
	if err != nil || len(refs) != len(want) {
		t.Fatalf("PutAll: %v, %d refs", err, len(refs))
	}
	if refs[0].Off != first.Off+int64(first.Size) {
		t.Fatalf("the batch starts at %d, want %d", refs[0].Off, first.Off+int64(first.Size))
	}
	for _, i := range []int{2, 0, 1} {
		var got doc
		if err := s.Get(refs[i], &got); err != nil || got != want[i] {
			t.Fatalf("read back %+v (%v), want %+v", got, err, want[i])
		}
	}
	s.Close()
	if refs, err := PutAll(s, want); err == nil || refs != nil {
		t.Fatalf("wrote to a closed store: %v %v", refs, err)
	}
}

// Values read back at once from several goroutines are the ones put, and
// their JSON is as they were put, with no HTML escaped.
func TestReadsAtOnce(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var refs []Ref
	for i := range 200 {
		r, err := s.Put(doc{strings.Repeat("<&>", i), i})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(refs); i += 4 {
				var got doc
				if err := s.Get(refs[i], &got); err != nil || got.N != i || got.Text != strings.Repeat("<&>", i) {
					t.Errorf("read back %+v (%v), want value %d", got, err, i)
				}
				raw, err := s.Raw(refs[i])
				if want := fmt.Sprintf(`{"Text":"%s","N":%d}`, strings.Repeat("<&>", i), i); err != nil || string(raw) != want {
					t.Errorf("raw %s (%v), want %s", raw, err, want)
				}
			}
		})
	}
	wg.Wait()
}
