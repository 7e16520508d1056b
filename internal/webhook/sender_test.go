package webhook_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/webhook"
)

// loopbackPolicy allows deliveries to 127.0.0.0/8 on any port, as the tests' receivers listen there.
func loopbackPolicy(t *testing.T) webhook.Policy { return policy(t, "127.0.0.0/8:*", nil) }

// receiver is a loopback endpoint that counts the requests it gets.
type receiver struct {
	*httptest.Server
	hits atomic.Int32
}

func newReceiver(t *testing.T, h http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		h(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// hang waits until the client goes away (or 5 seconds pass). It reads the body first: the
// server notices a closed connection only once the body is consumed.
func hang(r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// received is what a receiver saw of one delivery.
type received struct {
	method, userAgent, contentType, deliveryID string
	body                                       []byte
	verifyBoth, verifyService, verifyStandard  error
	verifyLibrary                              error
}

func TestSendDeliversASignedEventThatVerifies(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	got := make(chan received, 1)
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		only := func(drop ...string) http.Header {
			h := r.Header.Clone()
			for _, d := range drop {
				h.Del(d)
			}
			return h
		}
		wh, err := standardwebhooks.NewWebhook(secret)
		if err == nil {
			err = wh.Verify(body, r.Header)
		}
		got <- received{
			method: r.Method, userAgent: r.UserAgent(), contentType: r.Header.Get("Content-Type"),
			deliveryID: r.Header.Get("X-Service-Delivery-Id"), body: body,
			verifyBoth:     verifyBody(secret, r.Header, body, 0),
			verifyService:  verifyBody(secret, only("webhook-id", "webhook-timestamp", "webhook-signature"), body, 0),
			verifyStandard: verifyBody(secret, only("X-Service-Signature", "X-Service-Timestamp"), body, 0),
			verifyLibrary:  err,
		}
		w.WriteHeader(http.StatusNoContent)
	})
	body, err := webhook.Body(webhook.EventJobCompleted, webhook.SampleData(webhook.EventJobCompleted, time.Now()), time.Now())
	require.NoError(t, err)
	id := uuid.New()

	res := webhook.NewSender(loopbackPolicy(t)).Send(context.Background(), rcv.URL+"/hook", secret, id, body, time.Now())

	require.True(t, res.Success, res.Error)
	require.Equal(t, http.StatusNoContent, res.StatusCode)
	require.Empty(t, res.Error)
	require.False(t, res.Gone)
	require.Zero(t, res.RetryAfter)
	require.Positive(t, res.Duration)
	r := <-got
	require.Equal(t, http.MethodPost, r.method)
	require.Equal(t, "statementd-webhooks/1", r.userAgent)
	require.Equal(t, "application/json", r.contentType)
	require.Equal(t, id.String(), r.deliveryID)
	require.Equal(t, body, r.body)
	require.NoError(t, r.verifyBoth, "VerifyWebhook accepts the delivery")
	require.NoError(t, r.verifyService, "X-Service-Signature alone verifies")
	require.NoError(t, r.verifyStandard, "the Standard Webhooks signature alone verifies")
	require.NoError(t, r.verifyLibrary, "the Standard Webhooks library verifies the delivery")
}

func TestSendReportsFailedAnswers(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Second)
	tests := []struct {
		name           string
		status         int
		retryAfter     string
		wantError      string
		wantGone       bool
		wantRetryAfter time.Duration
		tolerance      time.Duration
	}{
		{name: "a 500 is a failure whose Retry-After seconds are kept", status: 500, retryAfter: "120",
			wantError: "Answered 500.", wantRetryAfter: 120 * time.Second},
		{name: "a 503 with an HTTP-date Retry-After waits until that date", status: 503, retryAfter: now.Add(90 * time.Second).UTC().Format(http.TimeFormat),
			wantError: "Answered 503.", wantRetryAfter: 90 * time.Second, tolerance: 2 * time.Second},
		{name: "a 429 without Retry-After has none", status: 429, wantError: "Answered 429."},
		{name: "a 410 means the endpoint is gone", status: 410, wantError: "Answered 410.", wantGone: true},
		{name: "a 404 is a failure but not gone", status: 404, wantError: "Answered 404."},
		{name: "a 304 is a redirect-class answer and a failure", status: 304, wantError: "Redirects are not followed (answered 304)."},
	}
	sender := webhook.NewSender(loopbackPolicy(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
			})
			res := sender.Send(context.Background(), rcv.URL, webhook.NewSecret(), uuid.New(), []byte(`{}`), now)
			require.False(t, res.Success)
			require.Equal(t, tt.status, res.StatusCode)
			require.Equal(t, tt.wantError, res.Error)
			require.Equal(t, tt.wantGone, res.Gone)
			require.InDelta(t, tt.wantRetryAfter, res.RetryAfter, float64(tt.tolerance))
		})
	}
}

func TestSendDoesNotFollowARedirect(t *testing.T) {
	t.Parallel()
	target := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	redirecting := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere", http.StatusFound)
	})

	res := webhook.NewSender(loopbackPolicy(t)).Send(context.Background(), redirecting.URL, webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())

	require.False(t, res.Success)
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "Redirects are not followed (answered 302).", res.Error)
	require.EqualValues(t, 1, redirecting.hits.Load())
	require.Zero(t, target.hits.Load(), "the redirect target sees no request")
}

func TestSendTimesOutWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(_ http.ResponseWriter, r *http.Request) { hang(r) })
	sender := webhook.NewSender(loopbackPolicy(t))
	sender.Timeout = 200 * time.Millisecond

	res := sender.Send(context.Background(), rcv.URL, webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())

	require.False(t, res.Success)
	require.Zero(t, res.StatusCode)
	require.Equal(t, "Timed out after 0.2 seconds without a response.", res.Error)
	require.GreaterOrEqual(t, res.Duration, 200*time.Millisecond)
	require.Less(t, res.Duration, 3*time.Second)
}

func TestSendCountsA2xxWhoseBodyNeverEnds(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		hang(r)
	})
	sender := webhook.NewSender(loopbackPolicy(t))
	sender.Timeout = 200 * time.Millisecond

	res := sender.Send(context.Background(), rcv.URL, webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())

	require.True(t, res.Success, "the 2xx status arrived in time")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Less(t, res.Duration, 3*time.Second)
}

func TestSendReadsAtMost64KiBOfALargeAnswer(t *testing.T) {
	t.Parallel()
	var written atomic.Int64
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(64<<20))
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 32<<10)
		for written.Load() < 64<<20 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})

	res := webhook.NewSender(loopbackPolicy(t)).Send(context.Background(), rcv.URL, webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())

	require.True(t, res.Success)
	require.Less(t, written.Load(), int64(64<<20), "the sender stopped reading long before the end")
}

func TestSendDescribesConnectionFailures(t *testing.T) {
	t.Parallel()
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedPort := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	tlsRcv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
	tlsRcv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	tlsRcv.StartTLS()
	t.Cleanup(tlsRcv.Close)
	plainRcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) })

	p := policy(t, "127.0.0.0/8:*", webhook.StaticResolver{})
	tests := []struct {
		name      string
		url       string
		secret    string
		wantError string
	}{
		{name: "a closed port is connection refused", url: "http://127.0.0.1:" + strconv.Itoa(closedPort) + "/", wantError: "Connection refused."},
		{name: "a host that does not resolve says so", url: "https://nowhere.test/", wantError: "The host name does not resolve to an address."},
		{name: "an untrusted certificate is a TLS failure", url: tlsRcv.URL, wantError: "The TLS certificate could not be verified."},
		{name: "https to a plain http server is a TLS failure", url: strings.Replace(plainRcv.URL, "http:", "https:", 1), wantError: "The endpoint did not answer with TLS."},
		{name: "an unsupported scheme is not a valid URL", url: "ftp://127.0.0.1/", wantError: "The URL is not valid."},
		{name: "a malformed URL is not valid", url: "http://127.0.0.1:port/", wantError: "The URL is not valid."},
		{name: "a malformed secret cannot sign", url: plainRcv.URL, secret: "not-a-secret", wantError: "The delivery could not be signed."},
	}
	sender := webhook.NewSender(p)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			secret := tt.secret
			if secret == "" {
				secret = webhook.NewSecret()
			}
			res := sender.Send(context.Background(), tt.url, secret, uuid.New(), []byte(`{}`), time.Now())
			require.False(t, res.Success)
			require.Zero(t, res.StatusCode)
			require.Equal(t, tt.wantError, res.Error)
		})
	}
}

func TestSendReportsACancelledDelivery(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(_ http.ResponseWriter, r *http.Request) { hang(r) })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)

	res := webhook.NewSender(loopbackPolicy(t)).Send(ctx, rcv.URL, webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())

	require.False(t, res.Success)
	require.Equal(t, "The delivery was cancelled before an answer came.", res.Error)
}

// canary is a TCP listener that records the connections it accepts.
type canary struct {
	net.Listener
	accepted chan string // remote address of each accepted connection, in order
}

func newCanary(t *testing.T) *canary {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	c := &canary{Listener: l, accepted: make(chan string, 64)}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			c.accepted <- conn.RemoteAddr().String()
			_ = conn.Close()
		}
	}()
	t.Cleanup(func() { _ = l.Close() })
	return c
}

func (c *canary) port() string { return strconv.Itoa(c.Addr().(*net.TCPAddr).Port) }

// connections returns how many connections the canary accepted so far: it connects once itself
// and counts the connections accepted before that sentinel, which queues behind them.
func (c *canary) connections(t *testing.T) int {
	t.Helper()
	conn, err := net.Dial("tcp", c.Addr().String())
	require.NoError(t, err)
	sentinel := conn.LocalAddr().String()
	_ = conn.Close()
	deadline := time.After(5 * time.Second)
	for n := 0; ; n++ {
		select {
		case remote := <-c.accepted:
			if remote == sentinel {
				return n
			}
		case <-deadline:
			t.Fatal("the canary did not accept the sentinel connection")
		}
	}
}

func TestSendNeverConnectsToANonPublicAddressThePolicyDoesNotAllow(t *testing.T) {
	t.Parallel()
	c := newCanary(t)
	p := policy(t, "", webhook.StaticResolver{
		"canary.test":  addrs("127.0.0.1"),
		"rebound.test": addrs("127.0.0.1"), // passed CheckURL as public once, now rebound to loopback
	})
	sender := webhook.NewSender(p)
	for _, u := range []string{
		"https://127.0.0.1:" + c.port() + "/",
		"http://127.0.0.1:" + c.port() + "/",
		"https://[::ffff:127.0.0.1]:" + c.port() + "/",
		"https://canary.test:" + c.port() + "/",
		"http://canary.test:" + c.port() + "/",
		"https://rebound.test:" + c.port() + "/",
	} {
		res := sender.Send(context.Background(), u, webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())
		require.False(t, res.Success, u)
		require.Zero(t, res.StatusCode, u)
		require.Equal(t, "The address 127.0.0.1 is not public.", res.Error, u)
	}
	require.Zero(t, c.connections(t), "the canary saw no connection from the sender")
}

func TestSendAllowsTheCanaryOnceThePolicyAllowsIt(t *testing.T) {
	t.Parallel()
	c := newCanary(t)
	sender := webhook.NewSender(policy(t, "canary.test:"+c.port(), webhook.StaticResolver{"canary.test": addrs("127.0.0.1")}))

	res := sender.Send(context.Background(), "http://canary.test:"+c.port()+"/", webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())

	require.False(t, res.Success, "the canary closes the connection without answering")
	require.Positive(t, c.connections(t), "the sentinel method sees a real connection")
}

func TestSendUsesPlainHTTPOnlyForAllowedAddresses(t *testing.T) {
	t.Parallel()
	// The guard refuses before connecting, so no packet leaves for this public address.
	res := webhook.NewSender(webhook.Policy{}).Send(context.Background(), "http://93.184.215.14:80/", webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())
	require.Equal(t, "The address 93.184.215.14 is not allowed for plain http.", res.Error)
}

func TestSenderTransportsIgnoreProxiesAndRedirects(t *testing.T) {
	t.Parallel()
	s := webhook.NewSender(webhook.Policy{})
	require.Equal(t, webhook.DefaultTimeout, s.Timeout)
	for _, tr := range s.Transports() {
		require.Nil(t, tr.Proxy, "no proxy, never ProxyFromEnvironment")
		require.NotNil(t, tr.DialContext, "every connection goes through the guarded dialer")
	}
	for _, c := range s.Clients() {
		require.NotNil(t, c.CheckRedirect)
		req := &http.Request{URL: &url.URL{Scheme: "https", Host: "example.com"}}
		require.True(t, errors.Is(c.CheckRedirect(req, []*http.Request{req}), http.ErrUseLastResponse))
	}
}

// Not parallel: it sets the proxy variables of the process.
func TestSendIgnoresProxyEnvironmentVariables(t *testing.T) {
	proxy := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		t.Setenv(name, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	port := rcv.Listener.Addr().(*net.TCPAddr).Port
	// A host name, not a loopback literal: ProxyFromEnvironment never proxies those anyway.
	sender := webhook.NewSender(policy(t, "receiver.test:"+strconv.Itoa(port), webhook.StaticResolver{"receiver.test": addrs("127.0.0.1")}))

	res := sender.Send(context.Background(), "http://receiver.test:"+strconv.Itoa(port)+"/", webhook.NewSecret(), uuid.New(), []byte(`{}`), time.Now())

	require.True(t, res.Success, res.Error)
	require.Equal(t, http.StatusNoContent, res.StatusCode)
	require.EqualValues(t, 1, rcv.hits.Load())
	require.Zero(t, proxy.hits.Load(), "the proxy saw nothing")
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	ref := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		value string
		want  time.Duration
	}{
		{name: "absent is zero", value: "", want: 0},
		{name: "seconds are read", value: "120", want: 120 * time.Second},
		{name: "spaces around seconds are fine", value: " 30 ", want: 30 * time.Second},
		{name: "zero seconds is zero", value: "0", want: 0},
		{name: "negative seconds are malformed", value: "-5", want: 0},
		{name: "fractional seconds are malformed", value: "1.5", want: 0},
		{name: "garbage is zero", value: "soon", want: 0},
		{name: "an HTTP date in the future is the time until it", value: "Tue, 01 Apr 2025 08:05:00 GMT", want: 5 * time.Minute},
		{name: "an HTTP date in the past is zero", value: "Tue, 01 Apr 2025 07:55:00 GMT", want: 0},
		{name: "an RFC 850 date is read too", value: "Tuesday, 01-Apr-25 08:01:00 GMT", want: time.Minute},
		{name: "an absurd number of seconds does not overflow", value: "99999999999999999999999", want: time.Duration(1<<63 - 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, webhook.ParseRetryAfter(tt.value, ref))
		})
	}
}
