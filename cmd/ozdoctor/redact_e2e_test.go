//go:build e2e

package main

import "testing"

// The detector test bundles that TestRedactDiagnosisSurvivesTestBundles
// leaves out give the same findings redacted: with it, every bundle.
func TestRedactDiagnosisSurvivesTheOtherTestBundles(t *testing.T) {
	t.Parallel()
	_, others := testBundles(t)
	for _, c := range others {
		checkTestBundle(t, c)
	}
}
