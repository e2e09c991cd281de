package detectors

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestBoundedEvictsOldest(t *testing.T) {
	b := NewBounded[string, int](3, EvictOldest)
	for i, k := range []string{"a", "b", "c"} {
		b.Put(k, i)
	}
	b.Put("a", 10) // an update keeps a's place
	k, v, ev := b.Put("d", 3)
	if !ev || k != "a" || v != 10 {
		t.Fatalf("evicted %q=%d %v, want a=10", k, v, ev)
	}
	if got := b.Keys(); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Errorf("keys %v", got)
	}
	b.Touch("b") // no effect on EvictOldest
	b.Put("e", 4)
	if got := b.Keys(); !slices.Equal(got, []string{"c", "d", "e"}) {
		t.Errorf("keys %v", got)
	}
	if st := b.Stat("m"); st != (StateStat{Name: "m", Entries: 3, Limit: 3, Evicted: 2}) {
		t.Errorf("stat %+v", st)
	}
}

func TestBoundedEvictsLeastRecent(t *testing.T) {
	b := NewBounded[int, string](2, EvictLeastRecent)
	b.Put(1, "x")
	b.Put(2, "y")
	b.Touch(1)
	if k, _, ev := b.Put(3, "z"); !ev || k != 2 {
		t.Fatalf("evicted %d %v, want 2", k, ev)
	}
	b.Put(1, "x2") // touches 1
	if k, _, _ := b.Put(4, "w"); k != 3 {
		t.Fatalf("evicted %d, want 3", k)
	}
	if got := b.Values(); !slices.Equal(got, []string{"x2", "w"}) {
		t.Errorf("values %v", got)
	}
	if v, ok := b.Get(1); !ok || v != "x2" {
		t.Errorf("get 1 = %q %v", v, ok)
	}
	if b.Evicted() != 2 {
		t.Errorf("evicted %d", b.Evicted())
	}
}

func TestBoundedDeleteAndCompact(t *testing.T) {
	b := NewBounded[int, int](1000, EvictLeastRecent)
	for i := range 100 {
		b.Put(i, i)
	}
	for range 50 {
		for i := range 100 {
			b.Touch(i)
		}
	}
	if len(b.order) > 2*b.Len()+16 {
		t.Errorf("order not compacted: %d entries for %d keys", len(b.order), b.Len())
	}
	b.Delete(5)
	n := b.DeleteFunc(func(k, _ int) bool { return k%2 == 0 })
	if n != 50 || b.Len() != 49 || b.Has(5) || b.Has(4) || !b.Has(7) {
		t.Errorf("deleted %d, len %d", n, b.Len())
	}
	if k, _, ok := b.Oldest(); !ok || k != 1 {
		t.Errorf("oldest %d %v", k, ok)
	}
	if b.Evicted() != 0 {
		t.Errorf("deletions counted as evictions: %d", b.Evicted())
	}
	// Deleting during All is allowed for the current entry.
	for k := range b.All() {
		b.Delete(k)
	}
	if b.Len() != 0 {
		t.Errorf("len %d after deleting all", b.Len())
	}
	if _, _, ok := b.Oldest(); ok {
		t.Error("oldest of an empty map")
	}
}

// A small map touched again and again keeps its order without allocating,
// and an iteration that deletes as it goes (compacting the order) still
// visits every entry once.
func TestBoundedTouchesInPlace(t *testing.T) {
	b := NewBounded[string, int](8, EvictLeastRecent)
	keys := []string{"scm1", "scm2", "scm3"}
	for i, k := range keys {
		b.Put(k, i)
	}
	touch := func() {
		for _, k := range keys {
			b.Put(k, 0)
		}
	}
	for range 100 {
		touch() // the order reaches its final capacity
	}
	// A hundred touches a run: the order is compacted several times.
	if n := testing.AllocsPerRun(10, func() {
		for range 33 {
			touch()
		}
	}); n != 0 {
		t.Errorf("%v allocations per 99 touches, want 0", n)
	}
	if got := b.Keys(); !slices.Equal(got, keys) {
		t.Errorf("order %v, want %v", got, keys)
	}

	for i := range 40 {
		b.Put(fmt.Sprint("k", i), i) // evicts; the order holds stale entries
	}
	var seen []string
	for k := range b.All() {
		seen = append(seen, k)
		b.Delete(k)
		b.compact() // as a Delete past the threshold would
	}
	want := []string{"k32", "k33", "k34", "k35", "k36", "k37", "k38", "k39"}
	if !slices.Equal(seen, want) || b.Len() != 0 {
		t.Errorf("visited %v (left %d), want %v", seen, b.Len(), want)
	}
}

func TestRing(t *testing.T) {
	r := NewRing[int](3)
	for i := range 5 {
		r.Push(i)
	}
	if got := r.Items(); !slices.Equal(got, []int{2, 3, 4}) || r.Evicted() != 2 {
		t.Fatalf("items %v evicted %d", got, r.Evicted())
	}
	r.DropWhile(func(v int) bool { return v < 3 })
	r.Push(5)
	if got := r.Items(); !slices.Equal(got, []int{3, 4, 5}) {
		t.Fatalf("items %v", got)
	}
	r.DropWhile(func(int) bool { return true })
	if r.Len() != 0 {
		t.Fatalf("len %d", r.Len())
	}
	r.Push(7)
	r.Push(8)
	if got := r.Items(); !slices.Equal(got, []int{7, 8}) {
		t.Fatalf("items after emptying %v", got)
	}
	// A ring not yet full whose front was dropped appends in order.
	q := NewRing[int](4)
	q.Push(1)
	q.Push(2)
	q.DropWhile(func(v int) bool { return v == 1 })
	q.Push(3)
	q.Push(4)
	q.Push(5)
	q.Push(6)
	if got := q.Items(); !slices.Equal(got, []int{3, 4, 5, 6}) || q.Stat("q").Entries != 4 {
		t.Fatalf("items %v", got)
	}
	if n := q.DeleteFunc(func(v int) bool { return v%2 == 0 }); n != 2 {
		t.Fatalf("deleted %d", n)
	}
	q.Push(7)
	q.Push(9)
	q.Push(11)
	if got := q.Items(); !slices.Equal(got, []int{5, 7, 9, 11}) || q.Evicted() != 2 {
		t.Fatalf("items after DeleteFunc %v evicted %d", got, q.Evicted())
	}
	q.Clear()
	if q.Len() != 0 || len(q.Items()) != 0 {
		t.Fatal("clear")
	}
}

func TestSweep(t *testing.T) {
	var s Sweep
	t0 := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	if !s.Due(t0, time.Minute) || s.Due(t0.Add(59*time.Second), time.Minute) || !s.Due(t0.Add(time.Minute), time.Minute) {
		t.Error("sweep not paced by a minute of stream time")
	}
}
