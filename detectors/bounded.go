package detectors

import (
	"fmt"
	"iter"
	"time"
)

// Policy says which entry a full Bounded map gives up for a new one.
type Policy int

// Eviction policies.
const (
	// EvictOldest gives up the entry inserted first; updating an entry
	// does not change its place.
	EvictOldest Policy = iota
	// EvictLeastRecent gives up the entry touched least recently: Put
	// and Touch make an entry the most recent.
	EvictLeastRecent
)

func (p Policy) String() string {
	if p == EvictLeastRecent {
		return "least recently touched"
	}
	return "oldest inserted"
}

// Bounded is a map that holds at most Limit entries: a Put beyond the limit
// evicts one entry by the map's Policy and counts it. It iterates in its
// eviction order (the entry it would evict first comes first), so nothing
// a detector derives from it depends on Go's map order.
//
// It holds no pointer to itself, so a checkpoint codec that walks struct
// fields can save it; build it with NewBounded.
type Bounded[K comparable, V any] struct {
	limit   int
	policy  Policy
	m       map[K]slot[V]
	order   []stamped[K] // in eviction order; entries whose seq is stale are skipped
	seq     uint64
	evicted int64
	walking int `state:"-"` // iterations under way: order is not compacted in place
}

type slot[V any] struct {
	Val V
	Seq uint64
}

type stamped[K any] struct {
	Key K
	Seq uint64
}

// NewBounded returns an empty map of at most limit entries (at least 1).
func NewBounded[K comparable, V any](limit int, policy Policy) *Bounded[K, V] {
	if limit < 1 {
		limit = 1
	}
	return &Bounded[K, V]{limit: limit, policy: policy, m: map[K]slot[V]{}}
}

// Len returns the number of entries.
func (b *Bounded[K, V]) Len() int { return len(b.m) }

// Limit returns the most entries the map holds.
func (b *Bounded[K, V]) Limit() int { return b.limit }

// Evicted returns how many entries the limit made the map give up.
func (b *Bounded[K, V]) Evicted() int64 { return b.evicted }

// Stat reports the map's size under name.
func (b *Bounded[K, V]) Stat(name string) StateStat {
	return StateStat{Name: name, Entries: len(b.m), Limit: b.limit, Evicted: b.evicted}
}

// Get returns the value under k; it does not touch the entry.
func (b *Bounded[K, V]) Get(k K) (V, bool) {
	s, ok := b.m[k]
	return s.Val, ok
}

// Has reports whether k is in the map.
func (b *Bounded[K, V]) Has(k K) bool {
	_, ok := b.m[k]
	return ok
}

// Put stores v under k. A new key beyond the limit evicts one entry, which
// Put returns with evicted true. With EvictLeastRecent, Put touches k.
func (b *Bounded[K, V]) Put(k K, v V) (oldK K, oldV V, evicted bool) {
	if s, ok := b.m[k]; ok {
		if b.policy == EvictLeastRecent {
			b.touch(k, v)
			return
		}
		b.m[k] = slot[V]{Val: v, Seq: s.Seq}
		return
	}
	if len(b.m) >= b.limit {
		oldK, oldV, evicted = b.popFront()
		b.evicted++
	}
	b.touch(k, v)
	return
}

// Touch makes k the most recent entry of an EvictLeastRecent map; it does
// nothing for EvictOldest or an absent key.
func (b *Bounded[K, V]) Touch(k K) {
	if s, ok := b.m[k]; ok && b.policy == EvictLeastRecent {
		b.touch(k, s.Val)
	}
}

func (b *Bounded[K, V]) touch(k K, v V) {
	b.seq++
	b.m[k] = slot[V]{Val: v, Seq: b.seq}
	b.order = append(b.order, stamped[K]{Key: k, Seq: b.seq})
	b.compact()
}

// Delete removes k (not counted as evicted).
func (b *Bounded[K, V]) Delete(k K) {
	if _, ok := b.m[k]; ok {
		delete(b.m, k)
		b.compact()
	}
}

// DeleteFunc removes every entry for which del returns true, in order (not
// counted as evicted: a horizon forgets, the limit evicts).
func (b *Bounded[K, V]) DeleteFunc(del func(K, V) bool) int {
	n := 0
	for k, v := range b.All() {
		if del(k, v) {
			delete(b.m, k)
			n++
		}
	}
	if n > 0 {
		b.compact()
	}
	return n
}

// Oldest returns the entry the map would evict next.
func (b *Bounded[K, V]) Oldest() (K, V, bool) {
	for k, v := range b.All() {
		return k, v, true
	}
	var k K
	var v V
	return k, v, false
}

func (b *Bounded[K, V]) popFront() (K, V, bool) {
	for i, st := range b.order {
		if s, ok := b.m[st.Key]; ok && s.Seq == st.Seq {
			b.order = b.order[i+1:]
			delete(b.m, st.Key)
			return st.Key, s.Val, true
		}
	}
	b.order = b.order[:0]
	var k K
	var v V
	return k, v, false
}

// compact drops stale order entries once they outnumber the live ones: in
// place, so that a small map touched on every signal does not allocate a
// new order and grow it again every few touches; into a new slice while an
// iteration, which goes on over the old one, is under way.
func (b *Bounded[K, V]) compact() {
	if len(b.order) <= 2*len(b.m)+16 {
		return
	}
	inPlace := b.walking == 0
	live := b.order[:0]
	if !inPlace {
		live = make([]stamped[K], 0, len(b.m))
	}
	for _, st := range b.order {
		if s, ok := b.m[st.Key]; ok && s.Seq == st.Seq {
			live = append(live, st)
		}
	}
	if inPlace {
		clear(b.order[len(live):]) // let go of the keys left behind
	}
	b.order = live
}

// All iterates over the entries in eviction order. The map must not be
// changed during the iteration except by deleting the current entry.
func (b *Bounded[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		b.walking++
		defer func() { b.walking-- }()
		for _, st := range b.order {
			if s, ok := b.m[st.Key]; ok && s.Seq == st.Seq {
				if !yield(st.Key, s.Val) {
					return
				}
			}
		}
	}
}

// Keys returns the keys in eviction order.
func (b *Bounded[K, V]) Keys() []K {
	out := make([]K, 0, len(b.m))
	for k := range b.All() {
		out = append(out, k)
	}
	return out
}

// Values returns the values in eviction order.
func (b *Bounded[K, V]) Values() []V {
	out := make([]V, 0, len(b.m))
	for _, v := range b.All() {
		out = append(out, v)
	}
	return out
}

// Ring is a FIFO list of at most Limit items: a Push beyond the limit drops
// the oldest item and counts it. Build it with NewRing.
type Ring[T any] struct {
	limit   int
	buf     []T
	head, n int
	evicted int64
}

// NewRing returns an empty ring of at most limit items (at least 1).
func NewRing[T any](limit int) *Ring[T] {
	if limit < 1 {
		limit = 1
	}
	return &Ring[T]{limit: limit}
}

// Len returns the number of items.
func (r *Ring[T]) Len() int { return r.n }

// Evicted returns how many items the limit dropped.
func (r *Ring[T]) Evicted() int64 { return r.evicted }

// Stat reports the ring's size under name.
func (r *Ring[T]) Stat(name string) StateStat {
	return StateStat{Name: name, Entries: r.n, Limit: r.limit, Evicted: r.evicted}
}

// Push appends v, dropping the oldest item when the ring is full.
func (r *Ring[T]) Push(v T) {
	if len(r.buf) < r.limit {
		r.buf = append(r.buf, v)
		r.n++
		return
	}
	if r.n == r.limit {
		r.buf[r.head] = v
		r.head = (r.head + 1) % r.limit
		r.evicted++
		return
	}
	r.buf[(r.head+r.n)%r.limit] = v
	r.n++
}

// At returns the i-th item, oldest first.
func (r *Ring[T]) At(i int) T {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("ring index %d out of range [0,%d)", i, r.n))
	}
	return r.buf[(r.head+i)%len(r.buf)]
}

// DropWhile removes items from the front while drop returns true.
func (r *Ring[T]) DropWhile(drop func(T) bool) {
	var zero T
	for r.n > 0 && drop(r.buf[r.head]) {
		r.buf[r.head] = zero
		r.head = (r.head + 1) % len(r.buf)
		r.n--
	}
	if r.n == 0 {
		r.buf, r.head = r.buf[:0], 0
	}
}

// DeleteFunc removes the items for which del returns true, keeping the
// order of the others (not counted as evicted), and returns how many.
func (r *Ring[T]) DeleteFunc(del func(T) bool) int {
	items := r.Items()
	kept := items[:0]
	for _, v := range items {
		if !del(v) {
			kept = append(kept, v)
		}
	}
	n := len(items) - len(kept)
	if n > 0 {
		r.buf, r.head, r.n = append(r.buf[:0], kept...), 0, len(kept)
	}
	return n
}

// Clear removes every item (not counted as evicted).
func (r *Ring[T]) Clear() {
	r.buf, r.head, r.n = r.buf[:0], 0, 0
}

// Items returns a new slice of the items, oldest first.
func (r *Ring[T]) Items() []T {
	out := make([]T, r.n)
	for i := range out {
		out[i] = r.At(i)
	}
	return out
}

// Sweep paces the scans that forget state past a horizon: Due reports true
// at most once per every of stream time, so that Advance, which runs for
// every signal with a new time, does not walk whole maps each time.
type Sweep struct {
	next time.Time
}

// Due reports whether a sweep is due at now, and if so schedules the next.
func (s *Sweep) Due(now time.Time, every time.Duration) bool {
	if now.Before(s.next) {
		return false
	}
	s.next = now.Add(every)
	return true
}

// Quiet returns the time through which Due reports false.
func (s *Sweep) Quiet() time.Time { return s.next.Add(-time.Nanosecond) }
