package main

// kg hook, kg mcp and kg status reach a server named by --server-url
// (KG_SERVER_URL) over HTTPS: the certificate verified against the
// system's roots, a private CA added with SSL_CERT_FILE
// (docs/decisions/0114-client-https.md).

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCA writes, in a folder of the test, a private CA's certificate and a
// server certificate for 127.0.0.1 it signed, with the server's key, as PEM
// files, as a team's kg-ca.crt, kg.crt and kg.key (docs/operations.md#team-server).
func testCA(t *testing.T) (caFile, certFile, keyFile string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kg test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kg test server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	caFile, certFile, keyFile = filepath.Join(dir, "kg-ca.crt"), filepath.Join(dir, "kg.crt"), filepath.Join(dir, "kg.key")
	for path, b := range map[string]*pem.Block{
		caFile:   {Type: "CERTIFICATE", Bytes: caDER},
		certFile: {Type: "CERTIFICATE", Bytes: der},
		keyFile:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return caFile, certFile, keyFile
}

// A server that serves HTTPS with a private CA's certificate, and holds
// another root than the clients' (as a team server does): kg mcp, kg hook
// and kg status reach it by KG_SERVER_URL when SSL_CERT_FILE names the CA,
// the token sent; without the CA they fail, naming the certificate problem
// and the setting, and kg mcp starts no server of its own.
func TestClientsReachAnHTTPSServerByURL(t *testing.T) {
	t.Parallel()
	caFile, certFile, keyFile := testCA(t)
	p := start(t, "--port", "0", "--storage-root", t.TempDir(), "--storage", "bolt", "--auth-token", "s3cret",
		"--tls-cert", certFile, "--tls-key", keyFile)
	url := "https://" + p.Addr
	trusted := []string{"KG_SERVER_URL=" + url, "KG_AUTH_TOKEN=s3cret", "SSL_CERT_FILE=" + caFile}
	untrusted := []string{"KG_SERVER_URL=" + url, "KG_AUTH_TOKEN=s3cret"}
	proj := projectDir(t, "app")

	// kg mcp: initialize (in stdioClient), tools/list, a session and a write.
	c := stdioClient(t, trusted, "--no-start")
	if names := toolNames(t, c.client); len(names) < 3 {
		t.Errorf("tools/list through kg mcp over https: %v", names)
	}
	c.putNode(c.session(proj), "project", "token-refresh", "the oauth token refresh races when two requests refresh at once", nil)
	_ = c.client.Close()

	// kg hook session-start preloads what kg mcp wrote.
	code, out, stderr := runKGStdin(t, trusted, hookInput(t, "session-start-startup", "conv-1", proj), "hook", "session-start", "--debug")
	if h := decodeHook(t, out, "SessionStart"); code != 0 || !strings.Contains(h.HookSpecificOutput.AdditionalContext, "token-refresh: the oauth token refresh races") {
		t.Errorf("kg hook session-start over https: exit %d, %s%s", code, out, stderr)
	}

	// kg status names the server by its URL.
	code, out, stderr = runKG(t, trusted, "status")
	if code != 0 || !strings.Contains(out, "answers at "+url+"/") || !strings.Contains(out, "status    ok") {
		t.Errorf("kg status over https: exit %d, %s%s", code, out, stderr)
	}

	// Without the CA: the certificate problem, the URL and the setting.
	const unknownCA = "x509: certificate signed by unknown authority"
	named := "the kg server at " + url + "/ (--server-url, KG_SERVER_URL) does not answer: "
	code, out, stderr = runKGStdin(t, untrusted, hookInput(t, "session-start-startup", "conv-2", proj), "hook", "session-start", "--debug")
	if code != 0 || out != "" || !strings.Contains(stderr, named) || !strings.Contains(stderr, unknownCA) {
		t.Errorf("kg hook without the CA: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	home := t.TempDir()
	code, out, stderr = runKG(t, append(untrusted, "HOME="+home), "mcp")
	if code != 1 || out != "" || !strings.Contains(stderr, named) || !strings.Contains(stderr, unknownCA) {
		t.Errorf("kg mcp without the CA: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".knowledge-graph")); !os.IsNotExist(err) {
		t.Errorf("kg mcp with KG_SERVER_URL made its own root (it started a server?): %v", err)
	}
	code, out, stderr = runKG(t, untrusted, "status")
	if code != 1 || out != "" || !strings.Contains(stderr, named) || !strings.Contains(stderr, unknownCA) {
		t.Errorf("kg status without the CA: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// A KG_SERVER_URL or --server-url that is not an http:// or https:// URL of
// a host alone is refused, by every command that reads the settings,
// naming the setting.
func TestServerURLRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"status"}, "KG_SERVER_URL=ftp://kg.internal", `invalid KG_SERVER_URL "ftp://kg.internal": want an http:// or https:// URL`},
		{[]string{"mcp", "--server-url", "https://kg.internal/kg"}, "", `invalid --server-url "https://kg.internal/kg": want no path`},
		{[]string{"hook", "session-start", "--debug"}, "KG_SERVER_URL=https://", `invalid KG_SERVER_URL "https://": want a host after the scheme`},
	} {
		var env []string
		if tc.env != "" {
			env = []string{tc.env}
		}
		code, out, stderr := runKGStdin(t, env, "{}", tc.args...)
		want := 2 // bad usage; kg hook never fails the hook, and says why with --debug
		if tc.args[0] == "hook" {
			want = 0
		}
		if code != want || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("kg %v with %s: exit %d, stdout %q, stderr %q; want %q", tc.args, tc.env, code, out, stderr, tc.want)
		}
	}
}
