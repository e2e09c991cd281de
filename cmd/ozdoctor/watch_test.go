package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario/scripts"
)

// freePort returns a loopback address nothing listens on.
func freePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// The watch command as a real process: it follows files written while it
// runs, serves the alert on /alerts, writes its checkpoint on SIGTERM and
// exits 0, and a second start resumes from it with the alert still known.
func TestWatchProcess(t *testing.T) {
	t.Parallel()
	bin := buildOzdoctor(t)
	src, logs, state := sampleLogs(t), t.TempDir(), t.TempDir()
	addr := freePort(t)
	start := func() (*exec.Cmd, *syncBuffer) {
		out := &syncBuffer{}
		cmd := exec.Command(bin, "watch", "--logs", filepath.Join(logs, "*", "*.log"), "--state-dir", state,
			"--listen", addr, "--poll", "100ms", "--checkpoint-interval", "1s")
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, out
	}
	cmd, out := start()
	defer cmd.Process.Kill()
	// The whole of every log appears at once; the daemon reads it from the
	// start (new files) and the wall clock, far after the logs' times,
	// releases idle streams.
	copyLogs(t, src, logs)
	find := func(defect string) bool { return alertFiring(http.DefaultClient, "http://"+addr, "", defect) }
	deadline := time.Now().Add(60 * time.Second)
	for !find("HDDS-17674") {
		if time.Now().After(deadline) {
			t.Fatalf("no HDDS-17674 alert on /alerts; daemon output:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(out.String(), `"to":"firing"`) {
		t.Errorf("no JSON line of the firing transition on stdout:\n%.2000s", out.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, out.String())
	}
	fired := firing(out.String())
	if _, err := os.Stat(filepath.Join(state, "checkpoint.json")); err != nil {
		t.Fatalf("no checkpoint after SIGTERM: %v", err)
	}

	cmd, out = start()
	defer cmd.Process.Kill()
	deadline = time.Now().Add(30 * time.Second)
	for !find("HDDS-17674") {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted daemon lost the alert:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "resumed from checkpoint") {
		t.Errorf("the second start did not resume:\n%.2000s", out.String())
	}
	for fp := range firing(out.String()) {
		if fired[fp] > 0 {
			t.Errorf("the restarted daemon sent the firing transition of %s again:\n%s", fp, out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatal(fmt.Errorf("second SIGTERM: %w", err))
	}
}

// syncBuffer is a bytes.Buffer a running process writes to while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// firing counts the transitions into firing (not escalations, which stay
// firing) by fingerprint among the JSON lines of a daemon's output.
func firing(out string) map[string]int {
	fps := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		var tr struct{ Fingerprint, From, To string }
		if json.Unmarshal([]byte(line), &tr) == nil && tr.To == "firing" && tr.From != "firing" {
			fps[tr.Fingerprint]++
		}
	}
	return fps
}

// The example configuration in deploy/ is valid; a bad value is a usage
// error that names the key.
func TestWatchCheckConfig(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"watch", "--config", "../../deploy/watch.yaml", "--check-config"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "1 Alertmanager(s)") || !strings.Contains(out.String(), "1 /prom endpoint(s)") {
		t.Errorf("output: %s", out.String())
	}
	errOut.Reset()
	if code := run([]string{"watch", "--checkpoint-interval", "-1s", "--check-config"}, &out, &errOut); code != exitUsage ||
		!strings.Contains(errOut.String(), "--checkpoint-interval") {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
}

// watch reads Elasticsearch instead of files when given --es.url; the two
// sources exclude each other and the Elasticsearch settings are checked.
func TestWatchElasticsearchConfig(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, nil, 0o600)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--es.url", "http://127.0.0.1:9200", "--es.index", "filebeat-*", "--es.cluster", "prod1"}, exitOK, "Elasticsearch index filebeat-*"},
		{[]string{"--config", "../../deploy/watch-elasticsearch.yaml", "--es.ca-file", "/nonexistent/ca.pem"}, exitUsage, "--es.ca-file"},
		{[]string{"--config", "../../deploy/watch-elasticsearch.yaml", "--es.ca-file", ca}, exitOK, "Elasticsearch index filebeat-*, findings to Elasticsearch https://es1.example.com:9200,https://es2.example.com:9200"},
		{[]string{"--es.url", "http://127.0.0.1:9200", "--es.index", "x", "--logs", "/var/log/ozone/*.log"}, exitUsage, "not both"},
		{[]string{"--es.url", "http://127.0.0.1:9200"}, exitUsage, "--es.index is needed"},
		{[]string{"--es.url", "http://127.0.0.1:9200", "--es.index", "x", "--es.settle", "0s"}, exitUsage, "--es.settle"},
		{[]string{"--logs", "/var/log/ozone/*.log", "--es.write-findings", "--es.findings-url", "http://127.0.0.1:9200"}, exitOK, "findings to Elasticsearch http://127.0.0.1:9200"},
		{[]string{"--logs", "/var/log/ozone/*.log", "--es.write-findings"}, exitUsage, "needs --es.findings-url or --es.url"},
	} {
		var out, errOut bytes.Buffer
		code := run(append(append([]string{"watch"}, c.args...), "--check-config"), &out, &errOut)
		if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
			t.Errorf("%q: exit %d, %s%s; want %d and %q", c.args, code, out.String(), errOut.String(), c.code, c.want)
		}
	}
}

// The /prom endpoints to scrape and the web configuration are checked at
// start.
func TestWatchScrapeAndWebConfig(t *testing.T) {
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--prom.url", "http://localhost:9876/prom", "--prom.url", "om=https://om1:9875/prom", "--prom.token-file", token}, exitOK, "2 /prom endpoint(s)"},
		{[]string{"--prom.url", "recon=http://localhost:9888/prom"}, exitUsage, `component "recon" is not scm, om or datanode`},
		{[]string{"--prom.url", "localhost:9882/prom"}, exitUsage, "not an http(s) URL"},
		{[]string{"--prom.url", "http://localhost:9882/prom", "--prom.token-file", "/nonexistent"}, exitUsage, "--prom.token-file"},
		{[]string{"--prom.url", "http://localhost:9882/prom", "--prom.timeout", "0s"}, exitUsage, "--prom.timeout"},
		{[]string{"--web.config.file", "/nonexistent/web.yaml"}, exitUsage, "--web.config.file"},
		{[]string{"--web.config.file", token}, exitUsage, "--web.config.file"}, // not YAML of the format
	} {
		var out, errOut bytes.Buffer
		code := run(append(append([]string{"watch", "--logs", "/var/log/ozone/*.log"}, c.args...), "--check-config"), &out, &errOut)
		if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
			t.Errorf("%q: exit %d, %s%s; want %d and %q", c.args, code, out.String(), errOut.String(), c.code, c.want)
		}
	}
}

// The configuration in the Kubernetes example's ConfigMap is valid.
func TestKubernetesExampleConfig(t *testing.T) {
	manifest, err := os.ReadFile("../../deploy/kubernetes/datanode-sidecar.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(manifest), "watch.yaml: |\n")
	if !ok {
		t.Fatal("no watch.yaml in the ConfigMap")
	}
	var config strings.Builder
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		config.WriteString(l[4:] + "\n")
	}
	path := filepath.Join(t.TempDir(), "watch.yaml")
	os.WriteFile(path, []byte(config.String()), 0o600)
	var out, errOut bytes.Buffer
	if code := run([]string{"watch", "--config", path, "--check-config"}, &out, &errOut); code != exitOK ||
		!strings.Contains(out.String(), "2 log pattern(s)") || !strings.Contains(out.String(), "1 /prom endpoint(s)") {
		t.Errorf("exit %d: %s%s", code, out.String(), errOut.String())
	}
}

// built is the command built once for the package's tests (buildOzdoctor);
// TestMain removes it.
var built struct {
	once sync.Once
	dir  string
	bin  string
	out  []byte
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildOzdoctor returns the command built into a temporary directory: the
// first call builds it, the others share the binary (tests run it, none
// changes it).
func buildOzdoctor(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "ozdoctor-test-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "ozdoctor")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// sampleLogs renders the sample's cluster, unrotated, and returns its directory.
func sampleLogs(t *testing.T) string {
	src := t.TempDir()
	s, r := scripts.Sample()
	r.Rotate, r.Gzip = false, false
	if err := s.Render(src, r); err != nil {
		t.Fatal(err)
	}
	return src
}

// copyLogs copies the .log files of src into dst, whole.
func copyLogs(t *testing.T, src, dst string) {
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".log") {
			rel, _ := filepath.Rel(src, p)
			os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755)
			data, _ := os.ReadFile(p)
			err = os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// alertFiring reports whether /alerts at base lists a firing alert of
// defect; auth is "user:password" for basic authentication, or "".
func alertFiring(client *http.Client, base, auth, defect string) bool {
	req, _ := http.NewRequest(http.MethodGet, base+"/alerts", nil)
	if user, pw, ok := strings.Cut(auth, ":"); ok {
		req.SetBasicAuth(user, pw)
	}
	res, err := client.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	var a struct {
		Alerts []struct{ Defect, State string }
	}
	json.NewDecoder(res.Body).Decode(&a)
	for _, f := range a.Alerts {
		if f.Defect == defect && f.State == "firing" {
			return true
		}
	}
	return false
}
