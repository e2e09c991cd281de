package elasticsearch

import "github.com/prometheus/client_golang/prometheus"

// Collector exports a queue's figures as the
// ozdoctor_elasticsearch_findings_* metrics of the sidecar's /metrics,
// read at every scrape. Whoever wires the queue registers it, the way
// node_exporter's collectors each export their own subsystem.
type Collector struct {
	// Stats returns the figures (Queue.Stats); it must be safe to call
	// from the scraping goroutine, as Queue.Stats is.
	Stats func() QueueStats
}

var (
	descQueue = prometheus.NewDesc("ozdoctor_elasticsearch_findings_queue_length",
		"Finding and transition documents waiting to be indexed into Elasticsearch.", nil, nil)
	descDocuments = prometheus.NewDesc("ozdoctor_elasticsearch_findings_documents_total",
		"Finding and transition documents sent to Elasticsearch by result: sent (indexed), failed (in a request to retry), dropped (refused with a 4xx or pushed out of a full queue).",
		[]string{"result"}, nil)
)

// Describe implements prometheus.Collector.
func (Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descQueue
	ch <- descDocuments
}

// Collect implements prometheus.Collector.
func (c Collector) Collect(ch chan<- prometheus.Metric) {
	q := c.Stats()
	ch <- prometheus.MustNewConstMetric(descQueue, prometheus.GaugeValue, float64(q.Queue))
	for _, r := range []struct {
		result string
		n      int64
	}{{"sent", q.Sent}, {"failed", q.Failed}, {"dropped", q.Dropped}} {
		ch <- prometheus.MustNewConstMetric(descDocuments, prometheus.CounterValue, float64(r.n), r.result)
	}
}
