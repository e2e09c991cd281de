package catalogue

// keyFilter finds which of a set of keys a line holds. As the scanner's
// filter it looks at the first line of every record, so most of what
// ozdoctor reads passes through it. It is the Wu–Manber method: a window as
// long as the shortest key slides along the line, and the pair of bytes
// that ends it says how far it may move before some key's window could end
// in it. Most pairs of a log line are in no key's window and move it the
// whole window at once; keys are compared only where a pair ends one of
// their windows. Each key's window is the run of its bytes whose last pair
// is least common in log messages (byteCost), so that this is rare.
type keyFilter struct {
	window int            // the shortest key's length (at least 2)
	shift  [1 << 16]uint8 // pair (first byte | second<<8) -> how far the window may move
	ends   [1 << 16]uint8 // pair -> 1 + its index in ending, 0 when it ends no window
	ending [][]windowKey
}

// windowKey is a key, its index and where its window starts in it.
type windowKey struct {
	key    string
	index  int
	offset int
}

// newKeyFilter returns the filter of keys, each at least two bytes long,
// which reports keys[i] as index[i] (as i when index is nil).
func newKeyFilter(keys []string, index []int) *keyFilter {
	f := &keyFilter{window: len(keys[0])}
	for _, k := range keys {
		f.window = min(f.window, len(k))
	}
	w := f.window
	for i := range f.shift {
		f.shift[i] = uint8(min(w-1, 255))
	}
	for ki, k := range keys {
		o := 0
		for i := 1; i+w <= len(k); i++ {
			if pairCost(k[i+w-2:]) < pairCost(k[o+w-2:]) {
				o = i
			}
		}
		// The pair at j-1, j of the window ends it w-1-j bytes on.
		for j := max(1, w-256); j < w; j++ {
			p := pair(k[o+j-1], k[o+j])
			f.shift[p] = min(f.shift[p], uint8(w-1-j))
		}
		p := pair(k[o+w-2], k[o+w-1])
		if f.ends[p] == 0 {
			if len(f.ending) == 255 {
				panic("catalogue: too many keys for the filter")
			}
			f.ending = append(f.ending, nil)
			f.ends[p] = uint8(len(f.ending))
		}
		if index != nil {
			ki = index[ki]
		}
		f.ending[f.ends[p]-1] = append(f.ending[f.ends[p]-1], windowKey{k, ki, o})
	}
	return f
}

func pair(a, b byte) uint16 { return uint16(a) | uint16(b)<<8 }

func pairCost(s string) int { return byteCost(s[0]) + byteCost(s[1]) }

// any reports whether some key occurs in line.
func (f *keyFilter) any(line []byte) bool {
	_, found := findKeys(f, line, nil, true)
	return found
}

// appendKeys appends the index of every key occurring in line to dst (a
// key may be appended more than once).
func (f *keyFilter) appendKeys(dst []int, line string) []int {
	dst, _ = findKeys(f, line, dst, false)
	return dst
}

// findKeys appends the keys occurring in b to dst, or only reports the first
// when first is set.
func findKeys[T string | []byte](f *keyFilter, b T, dst []int, first bool) ([]int, bool) {
	found := false
	for end := f.window - 1; end < len(b); end++ {
		p := pair(b[end-1], b[end])
		if s := f.shift[p]; s > 0 {
			end += int(s) - 1
			continue
		}
		for _, wk := range f.ending[f.ends[p]-1] {
			start := end + 1 - f.window - wk.offset
			if start >= 0 && len(b)-start >= len(wk.key) && string(b[start:start+len(wk.key)]) == wk.key {
				if found = true; first {
					return dst, true
				}
				dst = append(dst, wk.index)
			}
		}
	}
	return dst, found
}
