package listen

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"sync/atomic"
	"time"
)

// Certificate is the certificate chain and key the listeners serve HTTPS with, read from two PEM
// files and read again on Reload (SIGHUP), so that a renewed certificate is served without a
// restart: connections made after the reload get the new one.
type Certificate struct {
	certFile, keyFile string
	current           atomic.Pointer[tls.Certificate]
}

// LoadCertificate reads the pair; a start with a broken pair fails rather than serve plain HTTP.
func LoadCertificate(certFile, keyFile string) (*Certificate, error) {
	c := &Certificate{certFile: certFile, keyFile: keyFile}
	if _, err := c.Reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// Reload reads the pair again and serves it from now on, returning the leaf certificate for the
// log. A pair that does not load leaves the one being served in place.
func (c *Certificate) Reload() (*x509.Certificate, error) {
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s with key %s: %w", c.certFile, c.keyFile, err)
	}
	leaf := pair.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return nil, fmt.Errorf("TLS certificate %s: %w", c.certFile, err)
		}
		pair.Leaf = leaf
	}
	c.current.Store(&pair)
	return leaf, nil
}

// Leaf returns the leaf certificate being served.
func (c *Certificate) Leaf() *x509.Certificate { return c.current.Load().Leaf }

// Describe names a leaf certificate for the log: its subject and when it expires.
func Describe(leaf *x509.Certificate) string {
	return fmt.Sprintf("%s, valid until %s", leaf.Subject, leaf.NotAfter.UTC().Format(time.RFC3339))
}

// config is the TLS configuration of a listener: TLS 1.2 at least, with Go's default cipher
// suites (ECDHE key exchange only), the current certificate, and HTTP/1.1 only, so that a request behaves over HTTPS exactly as over plain HTTP (the
// closing of a connection after a refused upload included).
func (c *Certificate) config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.current.Load(), nil
		},
	}
}
