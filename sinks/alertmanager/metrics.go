package alertmanager

import "github.com/prometheus/client_golang/prometheus"

// Collector exports a sink's figures as the ozdoctor_alertmanager_*
// metrics of the sidecar's /metrics, read at every scrape. Whoever wires
// the sink registers it, the way node_exporter's collectors each export
// their own subsystem.
type Collector struct {
	// Stats returns the figures (Sink.Stats); it must be safe to call from
	// the scraping goroutine, as Sink.Stats is.
	Stats func() Stats
}

var (
	descQueue = prometheus.NewDesc("ozdoctor_alertmanager_queue_length",
		"Notifications waiting for an Alertmanager to acknowledge them.", []string{"url"}, nil)
	descNotifications = prometheus.NewDesc("ozdoctor_alertmanager_notifications_total",
		"Alert notifications to an Alertmanager by result: sent (acknowledged), failed (in a request to retry), dropped (rejected with a 4xx or pushed out of a full queue).",
		[]string{"url", "result"}, nil)
	descUp = prometheus.NewDesc("ozdoctor_alertmanager_up",
		"Whether the last request to an Alertmanager succeeded or none failed yet (1), or it is being retried (0).", []string{"url"}, nil)
	descStateErrors = prometheus.NewDesc("ozdoctor_alertmanager_state_errors_total",
		"Failures to read or write the Alertmanager queues in the state directory (the queues are then kept in memory).", nil, nil)
)

// Describe implements prometheus.Collector.
func (Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descQueue, descNotifications, descUp, descStateErrors} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: one series per Alertmanager
// URL (the first of a URL configured twice, since a registry refuses a
// scrape with two series of the same labels).
func (c Collector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv...)
	}
	counter := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, lv...)
	}
	st := c.Stats()
	seen := make(map[string]bool, len(st.Targets))
	for _, t := range st.Targets {
		if seen[t.URL] {
			continue
		}
		seen[t.URL] = true
		gauge(descQueue, float64(t.Queue), t.URL)
		counter(descNotifications, float64(t.Sent), t.URL, "sent")
		counter(descNotifications, float64(t.Failed), t.URL, "failed")
		counter(descNotifications, float64(t.Dropped), t.URL, "dropped")
		up := 1.0
		if t.Failures > 0 {
			up = 0
		}
		gauge(descUp, up, t.URL)
	}
	counter(descStateErrors, float64(st.StateErrors))
}
