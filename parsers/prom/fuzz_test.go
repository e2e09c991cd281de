package prom

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that every sample it returns
// survives a round trip: rendered back to text and parsed again it comes out
// the same, with no error. Seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(scmPage))
	f.Add([]byte(dnPage))
	f.Add([]byte(omPage))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Parse returned an I/O error on a memory reader: %v", err)
		}
		if lines := bytes.Count(data, []byte{'\n'}) + 1; s.Errors > lines || len(s.Samples) > lines {
			t.Fatalf("%d errors and %d samples from %d lines", s.Errors, len(s.Samples), lines)
		}
		for _, smp := range s.Samples {
			text := render(smp)
			again, err := Parse(strings.NewReader(text))
			if err != nil || again.Errors != 0 || len(again.Samples) != 1 {
				t.Fatalf("re-parse of %q: err=%v errors=%d samples=%d", text, err, again.Errors, len(again.Samples))
			}
			if !sameSample(smp, again.Samples[0]) {
				t.Fatalf("round trip of %q: %+v != %+v", text, again.Samples[0], smp)
			}
		}
	})
}

// render writes a sample in the text format, escaping label values.
func render(s Sample) string {
	var b strings.Builder
	b.WriteString(s.Name)
	if len(s.Labels) > 0 {
		keys := make([]string, 0, len(s.Labels))
		for k := range s.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(k)
			b.WriteString(`="`)
			b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s.Labels[k]))
			b.WriteString(`",`)
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(strconv.FormatFloat(s.Value, 'g', -1, 64))
	b.WriteByte('\n')
	return b.String()
}

func sameSample(a, b Sample) bool {
	if a.Name != b.Name || len(a.Labels) != len(b.Labels) {
		return false
	}
	if a.Value != b.Value && !(math.IsNaN(a.Value) && math.IsNaN(b.Value)) {
		return false
	}
	for k, v := range a.Labels {
		if w, ok := b.Labels[k]; !ok || w != v {
			return false
		}
	}
	return true
}
