package cases

import (
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors"
)

func TestFactLines(t *testing.T) {
	fs := []detectors.Finding{{Detector: "d", Key: "k", Facts: map[string]string{"prom_sample": `m{hostname="h"} 1`}}}
	for _, tc := range []struct{ line, want string }{
		{`fact d k prom_sample m{hostname="h"} 1`, ""},
		{"fact d k other -", ""},
		{"fact d k prom_sample 2", `fact prom_sample is "m{hostname=\"h\"} 1", want "2"`},
		{"fact d k other x", `fact other is "-", want "x"`},
		{"fact d k2 prom_sample -", "d k2: no such finding"},
		{"fact d k prom_sample", "want fact <detector> <key> <name> <value>"},
	} {
		got := checkFact(tc.line, fs)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
	}
}
