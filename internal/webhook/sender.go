package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
)

// DefaultTimeout is how long one delivery attempt may take: an endpoint must answer 2xx within
// it.
const DefaultTimeout = 10 * time.Second

// maxResponseBody is how much of an answer's body is read (and discarded).
const maxResponseBody = 64 << 10

// Sender makes delivery attempts. It never uses a proxy, never follows redirects, and refuses
// at connect time every address that is neither public nor allowed by its Policy, whatever the
// URL's host resolved to when it was registered: the check is on the address actually dialled,
// so DNS rebinding does not get around it. Plain http goes only to hosts and networks the Policy
// allows. A Sender is safe for concurrent use and keeps connections alive between deliveries.
type Sender struct {
	// Timeout bounds one attempt: connecting, sending, and the answer (headers and the part of
	// the body that is read). NewSender sets DefaultTimeout; tests may lower it before use.
	Timeout time.Duration

	policy Policy
	secure *http.Client // for https URLs
	plain  *http.Client // for http URLs: allowed hosts and networks only
}

// NewSender returns a Sender that delivers where p allows.
func NewSender(p Policy) *Sender {
	s := &Sender{Timeout: DefaultTimeout, policy: p}
	s.secure = s.newClient(false)
	s.plain = s.newClient(true)
	return s
}

func (s *Sender) newClient(plain bool) *http.Client {
	t := &http.Transport{
		Proxy:                  nil, // never HTTP(S)_PROXY: it would dial for us, past the guard
		DialContext:            s.dialContext(plain),
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    DefaultTimeout,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: maxResponseBody,
		DisableCompression:     true,
	}
	return &http.Client{
		Transport: t,
		// A 3xx is the answer, a failure: following it could lead anywhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// dialContext resolves a host name with the Policy's Resolver and dials its addresses in turn,
// each through a net.Dialer whose Control hook is the guard.
func (s *Sender) dialContext(plain bool) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		portNumber, err := strconv.Atoi(port)
		if err != nil {
			return nil, err
		}
		d := &net.Dialer{KeepAlive: 30 * time.Second, Control: s.policy.guard(s.policy.AllowsHost(host, uint16(portNumber)), plain)}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, address)
		}
		addrs, err := s.policy.lookup(ctx, host)
		if err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: err}
		}
		var first error
		for _, a := range addrs {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(normalize(a).String(), port))
			if err == nil {
				return conn, nil
			}
			if first == nil {
				first = err
			}
			if ctx.Err() != nil {
				break
			}
		}
		return nil, first
	}
}

// blockedError is the guard's refusal of an address.
type blockedError struct {
	addr  netip.Addr
	plain bool // public, but not allowed for plain http
}

func (e *blockedError) Error() string {
	if e.plain {
		return fmt.Sprintf("The address %s is not allowed for plain http.", e.addr)
	}
	return fmt.Sprintf("The address %s is not public.", e.addr)
}

// guard returns the Control hook of a dial: it runs after the socket is made and before it
// connects, with the address about to be dialled. Hosts allowed by name may be anywhere;
// otherwise the address must be in an allowed network, or public (and then only for https).
func (p Policy) guard(allowedByName, plain bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		if allowedByName {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &blockedError{}
		}
		a := normalize(ap.Addr())
		switch {
		case p.AllowsAddr(a, ap.Port()):
			return nil
		case !IsPublic(a):
			return &blockedError{addr: a}
		case plain:
			return &blockedError{addr: a, plain: true}
		}
		return nil
	}
}

// Result is the outcome of one delivery attempt.
type Result struct {
	Success    bool          // the endpoint answered 2xx
	StatusCode int           // the answer's status; 0 when there was no answer
	Gone       bool          // the endpoint answered 410: disable it
	RetryAfter time.Duration // a failed answer's Retry-After (seconds or HTTP date), 0 when none
	Duration   time.Duration // from sending to the end of the answer or the failure
	// Error is "" on success, else why the attempt failed, in a sentence the client may read:
	// "Answered 500.", "Redirects are not followed (answered 302).", "Connection refused.",
	// "Timed out after 10 seconds without a response.", "The address 127.0.0.1 is not public."
	Error string
	// Blocked: the policy refused the address (Error says which).
	Blocked bool
}

// Brief is the outcome in few words, as a test delivery reports it: "Delivery failed (status
// 500).", "Could not connect." whatever kept the answer from coming (so that a test cannot tell
// a closed port from a filtered one), or why the policy refused the address.
func (r Result) Brief() string {
	switch {
	case r.Success:
		return ""
	case r.Blocked:
		return r.Error
	case r.StatusCode != 0:
		return fmt.Sprintf("Delivery failed (status %d).", r.StatusCode)
	}
	return "Could not connect."
}

// Send makes one delivery attempt: it POSTs body to endpoint with the headers of Headers
// (secret, deliveryID, signed at now) and waits at most s.Timeout for the answer, of which at
// most 64 KiB of body is read and discarded. Every failure is a Result, never a panic or an
// error: the caller records it and schedules the retry.
func (s *Sender) Send(ctx context.Context, endpoint, secret string, deliveryID uuid.UUID, body []byte, now time.Time) Result {
	start := time.Now()
	res := s.send(ctx, endpoint, secret, deliveryID, body, now, start)
	res.Duration = time.Since(start)
	return res
}

func (s *Sender) send(ctx context.Context, endpoint, secret string, deliveryID uuid.UUID, body []byte, now, start time.Time) Result {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return Result{Error: "The URL is not valid."}
	}
	headers, err := Headers(secret, deliveryID, now, body)
	if err != nil {
		return Result{Error: "The delivery could not be signed."}
	}
	client := s.secure
	if u.Scheme == "http" {
		client = s.plain
	}

	attemptCtx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(attemptCtx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return Result{Error: "The URL is not valid."}
	}
	req.Header = headers
	resp, err := client.Do(req)
	if err != nil {
		var blocked *blockedError
		return Result{Error: s.describe(ctx, err), Blocked: errors.As(err, &blocked)}
	}
	// The body is ignored; reading a bounded part lets the connection be reused. A failure
	// while reading it does not change the answer.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBody))
	_ = resp.Body.Close()

	res := Result{StatusCode: resp.StatusCode}
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299:
		res.Success = true
		return res
	case code >= 300 && code <= 399:
		res.Error = fmt.Sprintf("Redirects are not followed (answered %d).", code)
	default:
		res.Error = fmt.Sprintf("Answered %d.", code)
		res.Gone = code == http.StatusGone
	}
	res.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now.Add(time.Since(start)))
	return res
}

func (s *Sender) timeout() time.Duration {
	if s.Timeout <= 0 {
		return DefaultTimeout
	}
	return s.Timeout
}

// describe turns a failed round trip into a sentence for the client, without internal details.
func (s *Sender) describe(ctx context.Context, err error) string {
	var (
		blocked  *blockedError
		dnsErr   *net.DNSError
		netErr   net.Error
		certErr  *tls.CertificateVerificationError
		authErr  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		recErr   tls.RecordHeaderError
		alertErr tls.AlertError
	)
	switch {
	case errors.As(err, &blocked):
		return blocked.Error()
	case errors.Is(ctx.Err(), context.Canceled):
		return "The delivery was cancelled before an answer came."
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("Timed out after %s without a response.", seconds(s.timeout()))
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "The host name does not resolve to an address."
		}
		return "The host name could not be resolved."
	case errors.Is(err, syscall.ECONNREFUSED):
		return "Connection refused."
	case errors.Is(err, syscall.ECONNRESET):
		return "The connection was reset."
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "The host is unreachable."
	case errors.As(err, &certErr) || errors.As(err, &authErr) || errors.As(err, &hostErr) || errors.As(err, &invalid):
		return "The TLS certificate could not be verified."
	case errors.As(err, &recErr) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "The endpoint did not answer with TLS."
	case errors.As(err, &alertErr) || strings.Contains(err.Error(), "tls: "):
		return "The TLS handshake failed."
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "The connection was closed without an answer."
	}
	return "The connection failed."
}

// seconds writes d as "10 seconds", "1 second" or "0.2 seconds".
func seconds(d time.Duration) string {
	if d == time.Second {
		return "1 second"
	}
	if d%time.Second == 0 {
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " seconds"
}

// parseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date (taken relative to
// ref, when the answer came), as a duration; 0 when absent, malformed or in the past.
func parseRetryAfter(v string, ref time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if strings.Trim(v, "0123456789") == "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(math.MaxInt64/time.Second) {
			return time.Duration(math.MaxInt64) // beyond any schedule
		}
		return time.Duration(n) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if d := t.Sub(ref); d > 0 {
		return d
	}
	return 0
}
