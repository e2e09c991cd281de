package catalogue

// keyFilter tells whether a line holds one of a set of keys: the scanner's
// filter on the first line of every record, so most of what ozdoctor reads
// passes through it. It is the Wu–Manber method: a window as long as the
// shortest key slides along the line, and the pair of bytes that ends it
// says how far it may move before some key's window could end in it. Most
// pairs of a log line are in no key's window and move it the whole window
// at once; keys are compared only where a pair ends one of their windows.
// Each key's window is the run of its bytes whose last pair is least
// common in log messages (byteCost), so that this is rare.
type keyFilter struct {
	window int            // the shortest key's length (at least 2)
	shift  [1 << 16]uint8 // pair (first byte | second<<8) -> how far the window may move
	ends   [1 << 16]uint8 // pair -> 1 + its index in ending, 0 when it ends no window
	ending [][]windowKey
}

// windowKey is a key and where its window starts in it.
type windowKey struct {
	key    string
	offset int
}

// newKeyFilter returns the filter of keys, each at least two bytes long.
func newKeyFilter(keys []string) *keyFilter {
	f := &keyFilter{window: len(keys[0])}
	for _, k := range keys {
		f.window = min(f.window, len(k))
	}
	w := f.window
	for i := range f.shift {
		f.shift[i] = uint8(min(w-1, 255))
	}
	for _, k := range keys {
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
		f.ending[f.ends[p]-1] = append(f.ending[f.ends[p]-1], windowKey{k, o})
	}
	return f
}

func pair(a, b byte) uint16 { return uint16(a) | uint16(b)<<8 }

func pairCost(s string) int { return byteCost(s[0]) + byteCost(s[1]) }

// any reports whether some key occurs in b.
func (f *keyFilter) any(b []byte) bool {
	for end := f.window - 1; end < len(b); {
		p := pair(b[end-1], b[end])
		if s := f.shift[p]; s > 0 {
			end += int(s)
			continue
		}
		for _, wk := range f.ending[f.ends[p]-1] {
			start := end + 1 - f.window - wk.offset
			if start >= 0 && len(b)-start >= len(wk.key) && string(b[start:start+len(wk.key)]) == wk.key {
				return true
			}
		}
		end++
	}
	return false
}
