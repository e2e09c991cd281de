//go:build e2e

package main

import "testing"

// TestAnalyzeFromElasticsearch with the sample stored: at least its five
// defects.
func TestAnalyzeFromElasticsearchTheSample(t *testing.T) {
	t.Parallel()
	checkAnalyzeFromElasticsearch(t, sample, 5)
}

// TestAnalyzeSeveralClusters with the sample stored as the two clusters.
func TestAnalyzeSeveralClustersOfTheSample(t *testing.T) {
	t.Parallel()
	checkSeveralClusters(t, sample)
}
