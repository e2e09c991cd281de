package divisionclosing

// fifo is a map bounded to max entries that drops its oldest entry (by first
// insertion) when full, and iterates in insertion order.
type fifo[K comparable, V any] struct {
	max   int
	m     map[K]V
	order []K
}

func newFIFO[K comparable, V any](max int) *fifo[K, V] {
	return &fifo[K, V]{max: max, m: map[K]V{}}
}

func (f *fifo[K, V]) get(k K) (V, bool) {
	v, ok := f.m[k]
	return v, ok
}

// put stores v under k, evicting the oldest entries beyond max.
func (f *fifo[K, V]) put(k K, v V) {
	if _, ok := f.m[k]; !ok {
		f.order = append(f.order, k)
	}
	f.m[k] = v
	for len(f.m) > f.max {
		delete(f.m, f.order[0])
		f.order = f.order[1:]
	}
}

func (f *fifo[K, V]) del(k K) {
	if _, ok := f.m[k]; !ok {
		return
	}
	delete(f.m, k)
	for i, o := range f.order {
		if o == k {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
}

func (f *fifo[K, V]) len() int { return len(f.m) }

// values returns the values in insertion order.
func (f *fifo[K, V]) values() []V {
	out := make([]V, 0, len(f.order))
	for _, k := range f.order {
		out = append(out, f.m[k])
	}
	return out
}
