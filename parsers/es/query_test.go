package es

import (
	"testing"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// A phrase keeps a literal's whole words and drops an edge word that a
// message may extend.
func TestPhrase(t *testing.T) {
	cases := []struct {
		lit  catalogue.Literal
		want string
	}{
		{catalogue.Literal{Text: "DeleteContainerCommand due to ", GluedBefore: true, GluedAfter: true}, "due to"},
		{catalogue.Literal{Text: "Resurrecting container "}, "Resurrecting container"},
		{catalogue.Literal{Text: "Registered datanode: ", GluedAfter: true}, "Registered datanode"},
		{catalogue.Literal{Text: "Finalization is done.", GluedAfter: true}, "Finalization is"}, // "done.x" is one word
		{catalogue.Literal{Text: "Stopping Ozone Manager", GluedAfter: true}, "Stopping Ozone"},
		{catalogue.Literal{Text: ": shutdown", GluedBefore: true}, "shutdown"},
		{catalogue.Literal{Text: "Ratis group removed", GluedBefore: true, GluedAfter: true}, "group"},
		{catalogue.Literal{Text: "STARTUP_MSG:"}, "STARTUP_MSG"},
		{catalogue.Literal{Text: "Marking", GluedBefore: true, GluedAfter: true}, "Marking"}, // no whole word: as it is
	}
	for _, c := range cases {
		if got := Phrase(c.lit); got != c.want {
			t.Errorf("Phrase(%+v) = %q, want %q", c.lit, got, c.want)
		}
	}
}

// wordSpans follows the standard tokenizer on the joins that matter in
// Ozone messages.
func TestWordSpans(t *testing.T) {
	for in, want := range map[string]int{
		"org.apache.Foo: bar":   2,
		"can't close #12,345.6": 3,
		"10.0.0.1:9858":         2,
		"a-b c_d":               3,
	} {
		if got := len(wordSpans(in)); got != want {
			t.Errorf("%q: %d words, want %d", in, got, want)
		}
	}
}
