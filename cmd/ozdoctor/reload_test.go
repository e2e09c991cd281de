package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ozdoctor test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// The daemon as a process behind TLS and basic authentication
// (--web.config.file, as Prometheus exporters do it): SIGHUP applies a
// changed configuration (a new log directory is followed, the alerts and
// the checkpoint carry over), a configuration with a bad value is refused
// and the daemon goes on, and SIGTERM still ends it cleanly.
func TestWatchReloadAndWebConfig(t *testing.T) {
	t.Parallel()
	bin := buildOzdoctor(t)
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.yaml")
	os.WriteFile(webConfig, []byte("tls_server_config:\n  cert_file: "+certFile+"\n  key_file: "+keyFile+
		"\nbasic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600)
	empty, logs, state := filepath.Join(dir, "empty"), filepath.Join(dir, "logs"), filepath.Join(dir, "state")
	os.MkdirAll(empty, 0o755)
	copyLogs(t, sampleLogs(t), logs)
	addr := freePort(t)
	config := filepath.Join(dir, "watch.yaml")
	writeConfig := func(logGlob, poll string) {
		os.WriteFile(config, []byte("logs: ["+logGlob+"]\nlisten: "+addr+"\nstate-dir: "+state+"\nweb:\n  config:\n    file: "+webConfig+
			"\npoll: "+poll+"\ncheckpoint-interval: 1s\n"), 0o600)
	}
	writeConfig(filepath.Join(empty, "*.log"), "100ms")
	out := &syncBuffer{}
	cmd := exec.Command(bin, "watch", "--config", config)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	base := "https://" + addr
	status := func(path, auth string) int {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if user, pw, ok := strings.Cut(auth, ":"); ok {
			req.SetBasicAuth(user, pw)
		}
		res, err := client.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 60s; daemon output:\n%s", what, out.String())
			}
		}
	}
	waitFor("ready over TLS", func() bool { return status("/readyz", "prometheus:s3cret") == http.StatusOK })
	if c := status("/metrics", ""); c != http.StatusUnauthorized {
		t.Errorf("/metrics without credentials: %d, want 401", c)
	}
	if c := status("/metrics", "prometheus:wrong"); c != http.StatusUnauthorized {
		t.Errorf("/metrics with a wrong password: %d, want 401", c)
	}
	if res, err := http.Get("http://" + addr + "/healthz"); err == nil && res.StatusCode == http.StatusOK {
		t.Error("plain HTTP is served")
	}
	if alertFiring(client, base, "prometheus:s3cret", "HDDS-17674") {
		t.Fatal("an alert before any log was followed")
	}

	// A changed configuration: the sample's logs are followed after SIGHUP.
	writeConfig(filepath.Join(logs, "*", "*.log"), "100ms")
	cmd.Process.Signal(syscall.SIGHUP)
	waitFor("HDDS-17674 after the reload", func() bool { return alertFiring(client, base, "prometheus:s3cret", "HDDS-17674") })
	if !strings.Contains(out.String(), "reloaded") {
		t.Errorf("no reload in the daemon's log:\n%s", out.String())
	}

	// A bad value is refused; the daemon goes on with what it runs.
	writeConfig(filepath.Join(logs, "*", "*.log"), "-1s")
	cmd.Process.Signal(syscall.SIGHUP)
	waitFor("the refusal", func() bool { return strings.Contains(out.String(), "reload refused") })
	if !strings.Contains(out.String(), "--poll") {
		t.Errorf("the refusal does not name the key:\n%s", out.String())
	}
	if !alertFiring(client, base, "prometheus:s3cret", "HDDS-17674") {
		t.Error("the alert is gone after a refused reload")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, out.String())
	}
	for fp, n := range firing(out.String()) {
		if n != 1 {
			t.Errorf("%s fired %d times across the reloads", fp, n)
		}
	}
}
