//go:build e2e

package main

import "testing"

// TestAnalyzeSeveralClusters with the sample stored as the two clusters.
func TestAnalyzeSeveralClustersOfTheSample(t *testing.T) {
	checkSeveralClusters(t, sample)
}
