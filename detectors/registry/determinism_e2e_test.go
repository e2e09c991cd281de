//go:build e2e

package registry

import "testing"

// The test bundles that TestReportsAreByteIdentical leaves out give
// byte-identical reports too: with it, every test bundle.
func TestReportsOfTheOtherCasesAreByteIdentical(t *testing.T) {
	_, others := testCases(t)
	checkByteIdentical(t, buildCases(t, others))
}
