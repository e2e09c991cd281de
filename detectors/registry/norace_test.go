//go:build !race

package registry

// deterministicRuns is how many times each bundle is analysed by
// TestReportsAreByteIdentical.
const deterministicRuns = 20
