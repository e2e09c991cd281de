package daemon

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/analysis"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/prom"
	"github.com/ozdoctor/ozdoctor/sinks/metrics"
)

// ScrapeConfig makes the daemon scrape the /prom endpoints of the Ozone
// services next to it. The samples of the metrics detectors read become
// signals at the time of the scrape.
type ScrapeConfig struct {
	Targets []ScrapeTarget
	// Token is sent as a bearer token (Ozone's hdds.prometheus.endpoint.token).
	Token string
	// Interval is how often every target is scraped; default 30s.
	Interval time.Duration
	// Timeout bounds one scrape; default 10s.
	Timeout time.Duration
}

// ScrapeTarget is one /prom endpoint.
type ScrapeTarget struct {
	URL string
	// Component is the service's; when empty it is told by Ozone's default
	// HTTP ports (SCM 9876, OM 9874, datanode 9882).
	Component parsers.Component
}

// ParseScrapeTarget reads "[COMPONENT=]URL", COMPONENT being scm, om or
// datanode.
func ParseScrapeTarget(s string) (ScrapeTarget, error) {
	t := ScrapeTarget{URL: s}
	if comp, rest, ok := strings.Cut(s, "="); ok && !strings.Contains(comp, "/") {
		switch c := parsers.Component(comp); c {
		case parsers.ComponentSCM, parsers.ComponentOM, parsers.ComponentDatanode:
			t = ScrapeTarget{URL: rest, Component: c}
		default:
			return t, fmt.Errorf("%s: component %q is not scm, om or datanode", s, comp)
		}
	}
	if u, err := url.Parse(t.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return t, fmt.Errorf("%s: not an http(s) URL", s)
	}
	return t, nil
}

// defaultPorts are the HTTP ports Ozone's services listen on by default.
var defaultPorts = map[string]parsers.Component{"9876": parsers.ComponentSCM, "9874": parsers.ComponentOM,
	"9882": parsers.ComponentDatanode, "9888": parsers.ComponentRecon, "19878": parsers.ComponentS3G}

func (c *ScrapeConfig) defaults() {
	if c.Interval <= 0 {
		c.Interval = 30 * time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
}

// scraper scrapes the targets; its figures are read under the daemon's lock.
type scraper struct {
	cfg     ScrapeConfig
	client  *http.Client
	targets []*scrapeTarget
}

// scrapeTarget is a target with what it told the daemon so far.
type scrapeTarget struct {
	ScrapeTarget
	host   string // the URL's host, for samples without a hostname label
	stats  metrics.Scrape
	source metrics.Source
}

func newScraper(cfg ScrapeConfig) (*scraper, error) {
	cfg.defaults()
	s := &scraper{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}}
	for _, t := range cfg.Targets {
		u, err := url.Parse(t.URL)
		if err != nil {
			return nil, fmt.Errorf("scrape target: %w", err)
		}
		if t.Component == "" {
			t.Component = defaultPorts[u.Port()]
		}
		st := &scrapeTarget{ScrapeTarget: t, host: u.Hostname()}
		st.stats.Target, st.source.Name = t.URL, t.URL
		s.targets = append(s.targets, st)
	}
	return s, nil
}

// scrapeResult is one scrape's outcome.
type scrapeResult struct {
	target *scrapeTarget
	snap   *prom.Snapshot
	bytes  int64
	took   time.Duration
	err    error
}

// scrapeAll scrapes every target at once and waits for all.
func (s *scraper) scrapeAll(ctx context.Context) []scrapeResult {
	out := make([]scrapeResult, len(s.targets))
	var wg sync.WaitGroup
	for i, t := range s.targets {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
			defer cancel()
			start := time.Now()
			snap, n, err := prom.Scrape(ctx, s.client, t.URL, s.cfg.Token)
			if err == nil && len(snap.Samples) == 0 && snap.Errors > 0 {
				err = fmt.Errorf("%s: no line of the page is a metric sample (%d unreadable)", t.URL, snap.Errors)
			}
			out[i] = scrapeResult{target: t, snap: snap, bytes: n, took: time.Since(start), err: err}
		})
	}
	wg.Wait()
	return out
}

// scrapeLoop scrapes every Interval until ctx ends, handing each page to
// the pipeline at the wall time it was read.
func (d *Daemon) scrapeLoop(ctx context.Context) {
	tick := time.NewTicker(d.scraper.cfg.Interval)
	defer tick.Stop()
	for {
		d.scrape(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// scrape scrapes every target once and hands the pages to the pipeline.
func (d *Daemon) scrape(ctx context.Context) {
	results := d.scraper.scrapeAll(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.cfg.Now()
	for _, r := range results {
		d.scraped(r, now)
	}
	d.metrics.Update(d.stats(now))
}

// scraped counts one scrape and pushes its samples; called under d.mu.
func (d *Daemon) scraped(r scrapeResult, now time.Time) {
	t := r.target
	t.stats.Duration, t.stats.Up = r.took, r.err == nil
	t.source.Bytes += r.bytes
	if r.err != nil {
		t.stats.Failures++
		if r.snap != nil {
			t.source.ParseErrors += int64(r.snap.Errors)
		}
		d.cfg.Log.Warn("scrape failed (the next one is tried in the scrape interval)", "target", t.URL, "err", r.err)
		return
	}
	t.source.Records += int64(len(r.snap.Samples))
	t.source.ParseErrors += int64(r.snap.Errors)
	d.pipe.Step(context.Background(), analysis.SourceFunc(func(_ context.Context, in *analysis.Input, now time.Time) (bool, error) {
		in.Samples(r.snap, t.host, t.Component, now, t.URL, now)
		return true, nil
	}), now)
}
