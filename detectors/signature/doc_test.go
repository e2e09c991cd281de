package signature

import (
	"os"
	"strings"
	"testing"
)

// docs/signatures.md holds the field tables as FieldTable renders them,
// between markers, so the reference cannot drift from the code.
func TestDocsHoldTheFieldTables(t *testing.T) {
	b, err := os.ReadFile("../../docs/signatures.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- fields: generated from detectors/signature/event.go -->\n", "<!-- end of fields -->"
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/signatures.md lacks the markers %q ... %q", begin, end)
	}
	if got, want := strings.TrimSpace(doc[i+len(begin):j]), strings.TrimSpace(FieldTable()); got != want {
		t.Errorf("docs/signatures.md's field tables differ from the code; put this between the markers:\n%s", want)
	}
}
