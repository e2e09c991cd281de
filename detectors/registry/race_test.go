//go:build race

package registry

// deterministicRuns is how many times each bundle is analysed by
// TestReportsAreByteIdentical; the race detector makes a run ten times
// slower, so fewer.
const deterministicRuns = 3
