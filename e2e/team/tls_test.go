package team

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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
)

// testCert writes a self-signed ECDSA certificate for 127.0.0.1 and
// localhost, and its key, as PEM files in a folder of the test, and returns
// their paths and a pool that trusts the certificate.
func testCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "kg test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "kg.crt"), filepath.Join(dir, "kg.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestTeamServerTLS: a team server refuses, in one line, to listen on an
// address other machines reach without TLS, unless --insecure-http says a
// proxy does it; with --tls-cert and --tls-key it serves HTTPS only, on any
// address (docs/design/team.md#transport).
func TestTeamServerTLS(t *testing.T) {
	dbEnv := "KG_DATABASE_URL=" + pgtest.Database(t)
	code, _, stderr := kgRun(t, []string{dbEnv}, "serve", "--storage", "postgres", "--host", "0.0.0.0", "--port", "0")
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
		!strings.Contains(stderr, "--tls-cert") || !strings.Contains(stderr, "--insecure-http") {
		t.Errorf("team server on 0.0.0.0 without TLS: exit %d, %q; want 2 and one line naming --tls-cert and --insecure-http", code, stderr)
	}
	certFile, keyFile, pool := testCert(t)
	if code, _, stderr := kgRun(t, []string{dbEnv, "KG_TLS_CERT=" + certFile}, "serve", "--storage", "postgres", "--port", "0"); code != 2 ||
		!strings.Contains(stderr, "--tls-key") {
		t.Errorf("a certificate without its key: exit %d, %q; want 2 naming --tls-key", code, stderr)
	}
	_, otherKey, _ := testCert(t)
	if code, _, stderr := kgRun(t, []string{dbEnv}, "serve", "--storage", "postgres", "--port", "0", "--tls-cert", certFile, "--tls-key", otherKey); code == 0 ||
		!strings.Contains(stderr, certFile) || !strings.Contains(stderr, otherKey) {
		t.Errorf("a key that is not the certificate's: exit %d, %q; want a failure naming both files", code, stderr)
	}
	_, token, _ := kgRun(t, []string{dbEnv}, "token", "create", "--name", "alice")
	token = strings.TrimSpace(token)

	get := func(c *http.Client, url string) (int, error) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		res.Body.Close()
		return res.StatusCode, nil
	}
	addr := serveTeamWith(t, []string{"--host", "0.0.0.0", "--tls-cert", certFile, "--tls-key", keyFile}, dbEnv)
	_, port, _ := net.SplitHostPort(addr)
	local := net.JoinHostPort("127.0.0.1", port)
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	if code, err := get(trusting, "https://"+local+"/api/graph/read"); err != nil || code != 200 {
		t.Errorf("a read over HTTPS: %d %v, want 200", code, err)
	}
	if code, err := get(&http.Client{Timeout: 10 * time.Second}, "http://"+local+"/api/graph/read"); err == nil && code == 200 {
		t.Errorf("a read over plain HTTP of a TLS server: %d, want it refused", code)
	}
	if _, err := get(&http.Client{Timeout: 10 * time.Second}, "https://"+local+"/health"); err == nil {
		t.Error("a client that does not trust the certificate connected")
	}

	plain := serveTeamWith(t, []string{"--host", "0.0.0.0", "--insecure-http"}, dbEnv)
	_, port, _ = net.SplitHostPort(plain)
	if code, err := get(&http.Client{Timeout: 10 * time.Second}, "http://"+net.JoinHostPort("127.0.0.1", port)+"/api/graph/read"); err != nil || code != 200 {
		t.Errorf("--insecure-http behind a proxy: %d %v, want 200 over plain HTTP", code, err)
	}
}
