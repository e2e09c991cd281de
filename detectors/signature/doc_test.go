package signature

import (
	"os"
	"strings"
	"testing"
)

// docs/signatures.md holds the field tables as FieldTable renders them,
// and the table keys as TableKeys does, between markers, so the
// reference cannot drift from the code.
func TestDocsHoldTheFieldTables(t *testing.T) {
	b, err := os.ReadFile("../../docs/signatures.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, tc := range []struct{ begin, end, want string }{
		{"<!-- fields: generated from detectors/signature/event.go -->\n", "<!-- end of fields -->", FieldTable()},
		{"<!-- table keys: generated from detectors/signature/file.go -->\n", "<!-- end of table keys -->", TableKeys()},
	} {
		i, j := strings.Index(doc, tc.begin), strings.Index(doc, tc.end)
		if i < 0 || j < i {
			t.Fatalf("docs/signatures.md lacks the markers %q ... %q", tc.begin, tc.end)
		}
		if got, want := strings.TrimSpace(doc[i+len(tc.begin):j]), strings.TrimSpace(tc.want); got != want {
			t.Errorf("docs/signatures.md's table between %q and %q differs from the code; put this between the markers:\n%s", tc.begin, tc.end, want)
		}
	}
}
