// Package esclient connects to Elasticsearch for ozdoctor's source
// (parsers/es) and findings sink (sinks/elasticsearch): authentication, TLS,
// retries with backoff on 429 and 5xx, and answers read as JSON with errors
// that say what failed.
package esclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// Conn says how to reach a cluster.
type Conn struct {
	URLs     []string
	APIKey   string // base64 "id:key"
	Username string
	Password string
	CAFile   string        // PEM of the CA that signed the cluster's certificate
	Timeout  time.Duration // per request; default 60s
	Retries  int           // on 429 and 5xx, with exponential backoff; default 5
}

// Client is a connected client.
type Client struct {
	*elasticsearch.Client
	conn Conn
}

// New returns a client for c; maxConns bounds idle connections per host.
func New(c Conn, maxConns int) (*Client, error) {
	if len(c.URLs) == 0 {
		return nil, fmt.Errorf("elasticsearch: no URL")
	}
	if c.Timeout <= 0 {
		c.Timeout = time.Minute
	}
	if c.Retries <= 0 {
		c.Retries = 5
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ResponseHeaderTimeout = c.Timeout
	transport.MaxIdleConnsPerHost = maxConns
	ec := elasticsearch.Config{
		Addresses: c.URLs, APIKey: c.APIKey, Username: c.Username, Password: c.Password,
		RetryOnStatus: []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout},
		MaxRetries:    c.Retries,
		RetryBackoff: func(attempt int) time.Duration {
			return min(time.Duration(math.Pow(2, float64(attempt)))*100*time.Millisecond, 10*time.Second)
		},
		Transport: transport,
	}
	if c.CAFile != "" {
		ca, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("elasticsearch: CA file: %w", err)
		}
		ec.CACert = ca
		ec.Transport = nil // the client builds a transport that trusts the CA
	}
	client, err := elasticsearch.NewClient(ec)
	if err != nil {
		return nil, fmt.Errorf("elasticsearch: %w", err)
	}
	return &Client{Client: client, conn: c}, nil
}

// Do runs one request with the client's timeout and decodes its JSON answer
// into out; it returns the size of the answer.
func (c *Client) Do(ctx context.Context, what string, req func(context.Context) (*esapi.Response, error), out any) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.conn.Timeout)
	defer cancel()
	res, err := req(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "not Elasticsearch") {
			return 0, fmt.Errorf("elasticsearch %s: the server at %s is not Elasticsearch (it sent no X-Elastic-Product header; OpenSearch does not): "+
				"ozdoctor speaks to Elasticsearch 8.x and 7.17 only", what, strings.Join(c.conn.URLs, ","))
		}
		return 0, fmt.Errorf("elasticsearch %s at %s: %w", what, strings.Join(c.conn.URLs, ","), err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return len(body), fmt.Errorf("elasticsearch %s: reading the answer: %w", what, err)
	}
	if res.IsError() {
		hint := ""
		if on, _ := strconv.ParseBool(os.Getenv(compatibilityEnv)); on && res.StatusCode == http.StatusBadRequest {
			hint = " (" + compatibilityEnv + " makes the client ask for REST compatibility with 8, which Elasticsearch 7.17 refuses: unset it)"
		}
		return len(body), fmt.Errorf("elasticsearch %s: %s: %s%s", what, res.Status(), clip(body), hint)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return len(body), fmt.Errorf("elasticsearch %s: malformed answer: %w", what, err)
	}
	return len(body), nil
}

// compatibilityEnv, when true, makes the Go client send the media type
// "compatible-with=8" with every request.
const compatibilityEnv = "ELASTIC_CLIENT_APIVERSIONING"

// Check asks the server who it is (the client's product check runs here)
// and refuses versions other than 8.x and 7.17.
func (c *Client) Check(ctx context.Context) error {
	var info struct {
		Version struct {
			Number string `json:"number"`
		} `json:"version"`
	}
	if _, err := c.Do(ctx, "info", func(ctx context.Context) (*esapi.Response, error) {
		return c.Info(c.Info.WithContext(ctx))
	}, &info); err != nil {
		return err
	}
	if v := info.Version.Number; !strings.HasPrefix(v, "8.") && !strings.HasPrefix(v, "7.17") {
		return fmt.Errorf("elasticsearch: version %s is not supported (8.x or 7.17)", v)
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
