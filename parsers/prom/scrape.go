package prom

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// MaxPageBytes is the largest /prom page Scrape reads; a datanode with
// thousands of pipelines writes a few MiB.
const MaxPageBytes = 64 << 20

// Scrape fetches and parses one /prom page. A token is sent as
// "Authorization: Bearer <token>", as Ozone's hdds.prometheus.endpoint.token
// requires. The context bounds the whole request, body included. It
// returns the page's size in bytes; an answer other than 200, a page
// larger than MaxPageBytes or a body cut short is an error.
func Scrape(ctx context.Context, client *http.Client, url, token string) (*Snapshot, int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(res.Body, 4<<10))
		return nil, 0, fmt.Errorf("%s: %s", url, res.Status)
	}
	body := &countReader{r: io.LimitReader(res.Body, MaxPageBytes+1)}
	snap, err := Parse(body)
	switch {
	case err != nil:
		return nil, body.n, fmt.Errorf("%s: %w", url, err)
	case body.n > MaxPageBytes:
		return nil, body.n, fmt.Errorf("%s: page larger than %d bytes", url, MaxPageBytes)
	}
	return snap, body.n, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
