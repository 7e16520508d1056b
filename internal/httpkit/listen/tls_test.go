package listen

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/httpkit/listen/listentest"
)

// TestHTTPSReloadsItsCertificate: a listener with a Certificate serves HTTPS with TLS 1.2 or
// later over HTTP/1.1, and after Reload serves the new pair to new connections; a pair that
// does not load leaves the served one in place.
func TestHTTPSReloadsItsCertificate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := listentest.Write(t, dir, "server")
	cert, err := LoadCertificate(first.CertFile, first.KeyFile)
	require.NoError(t, err)
	l := &Listener{Name: "test", Addr: "127.0.0.1:0", TLS: cert, Logger: slog.New(slog.DiscardHandler),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.Proto) })}
	require.NoError(t, l.Listen())
	go func() { _ = l.Serve() }()
	t.Cleanup(func() { _ = l.Shutdown(t.Context()) })

	// get makes a new connection and returns the serial of the certificate it was shown.
	get := func(t *testing.T, cfg *tls.Config) (string, error) {
		t.Helper()
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true, DisableKeepAlives: true}}
		resp, err := client.Get("https://" + l.Bound() + "/")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, "HTTP/1.1", string(body), "HTTP/1.1 only, even to a client offering HTTP/2")
		return resp.TLS.PeerCertificates[0].SerialNumber.String(), nil
	}
	serial, err := get(t, &tls.Config{RootCAs: first.Pool})
	require.NoError(t, err)
	require.Equal(t, first.Serial.String(), serial)

	_, err = get(t, &tls.Config{RootCAs: first.Pool, MaxVersion: tls.VersionTLS11})
	require.Error(t, err, "TLS 1.1 is refused")

	plain, err := http.Get("http://" + l.Bound() + "/")
	if err == nil {
		plain.Body.Close()
		require.Equal(t, http.StatusBadRequest, plain.StatusCode, "plain HTTP to an HTTPS listener")
	}

	second := listentest.Write(t, dir, "server")
	leaf, err := cert.Reload()
	require.NoError(t, err)
	require.Equal(t, second.Serial, leaf.SerialNumber)
	serial, err = get(t, &tls.Config{RootCAs: second.Pool})
	require.NoError(t, err)
	require.Equal(t, second.Serial.String(), serial, "a new connection after the reload gets the new certificate")

	require.NoError(t, os.WriteFile(second.KeyFile, []byte("not a key"), 0o600))
	_, err = cert.Reload()
	require.ErrorContains(t, err, second.CertFile)
	serial, err = get(t, &tls.Config{RootCAs: second.Pool})
	require.NoError(t, err)
	require.Equal(t, second.Serial.String(), serial, "a broken pair leaves the served one in place")

	_, err = LoadCertificate(second.CertFile, second.KeyFile)
	require.Error(t, err, "a broken pair fails the start")
}
