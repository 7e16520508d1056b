package contracttests

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// awayFromMinuteEnd waits, if needed, until the current calendar minute has at least margin left,
// so a burst of requests falls into one rate-limit window.
func awayFromMinuteEnd(margin time.Duration) {
	now := time.Now()
	if left := now.Truncate(time.Minute).Add(time.Minute).Sub(now); left < margin {
		time.Sleep(left + 100*time.Millisecond)
	}
}

// TestRateLimitIsExactAcrossProcesses: two statementd processes share one database; an account on
// the Standard plan (100 requests a minute) sends 200 requests at once, spread over both; exactly
// 100 are answered without 429. Every answer carries the rate-limit headers, every 429 a
// Retry-After, and all answers are valid against the spec. Half the requests read a job (an
// unknown one: 404), which the job store counts in the same statement as its read; the other
// half are counted before their handler.
func TestRateLimitIsExactAcrossProcesses(t *testing.T) {
	t.Parallel()
	one := startServer(t)
	two := startServer(t, "DATABASE_URL="+one.DatabaseURL, "STATEMENTD_DATA_DIR="+one.DataDir)
	acct := one.newAccount(t, "Limited", "--recon-plan", "standard")
	id, secret := one.newClient(t, acct)

	awayFromMinuteEnd(20 * time.Second)
	// The token request is not counted against the account: it is the throttle of the token
	// endpoint that limits it.
	tokens := []string{one.token(t, one.ReconURL, id, secret), two.token(t, two.ReconURL, id, secret)}
	bases := []string{one.ReconURL, two.ReconURL}

	const sent, limit = 200, 100
	type answer struct {
		status                  int
		limit, remaining, reset string
		retryAfter              string
	}
	answers := make([]answer, sent)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range sent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/api/v1/limits"
			switch i % 4 {
			case 1:
				path = "/api/v1/jobs/" + uuid.NewString()
			case 2:
				path = "/api/v1/jobs/" + uuid.NewString() + "/results"
			}
			req, err := http.NewRequest(http.MethodGet, bases[i%2]+path, nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Authorization", "Bearer "+tokens[i%2])
			<-start
			resp, err := recon(t).client(t).Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_ = resp.Body.Close()
			h := resp.Header
			answers[i] = answer{resp.StatusCode, h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"),
				h.Get("X-RateLimit-Reset"), h.Get("Retry-After")}
		}()
	}
	close(start)
	wg.Wait()

	passed := 0
	for i, a := range answers {
		require.Equal(t, strconv.Itoa(limit), a.limit, "X-RateLimit-Limit on every answer")
		remaining, err := strconv.Atoi(a.remaining)
		require.NoError(t, err)
		reset, err := strconv.ParseInt(a.reset, 10, 64)
		require.NoError(t, err)
		require.Greater(t, reset, time.Now().Unix()-60, "X-RateLimit-Reset is the end of the current window")
		if a.status == http.StatusTooManyRequests {
			require.Equal(t, 0, remaining)
			retry, err := strconv.Atoi(a.retryAfter)
			require.NoError(t, err)
			require.GreaterOrEqual(t, retry, 1)
			continue
		}
		want := http.StatusOK
		if i%4 == 1 || i%4 == 2 {
			want = http.StatusNotFound
		}
		require.Equal(t, want, a.status, "an allowed request reaches the operation")
		passed++
	}
	require.Equal(t, limit, passed, "exactly the limit passes, across both processes")
}

// TestRateLimitOfTheParsingAPI: a free-plan account gets 10 requests a minute, then 429
// RATE_LIMITED in the envelope; Remaining counts down by one per request. The requests alternate
// between the status and a job's reads, which the job store counts in the same statement as its
// read: over the limit, a job read is refused like any other request, and shows nothing of the job.
func TestRateLimitOfTheParsingAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Free", "--parse-plan", "free")
	c := s.parseCaller(t, acct)
	job := c.create(t, "s.csv", simpleCSV(3)).JobId.String()
	awayFromMinuteEnd(15 * time.Second)
	// The upload counted too, in this window or the one before.
	paths := []string{"/api/v1/status", "/api/v1/jobs/" + job, "/api/v1/jobs/" + uuid.NewString() + "/results", "/api/v1/jobs/" + uuid.NewString()}
	wants := []int{http.StatusOK, http.StatusOK, http.StatusNotFound, http.StatusNotFound}
	remaining := -1
	for i := 0; i < 12; i++ {
		path := paths[i%len(paths)]
		req, err := http.NewRequest(http.MethodGet, s.ParseURL+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+c.key)
		resp, err := parse(t).client(t).Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, "10", resp.Header.Get("X-RateLimit-Limit"))
		got, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		require.NoError(t, err)
		if remaining == -1 {
			require.Contains(t, []int{8, 9}, got, "the first request after the upload")
		} else {
			require.Equal(t, max(remaining-1, 0), got, "request %d: Remaining falls by one", i)
		}
		if remaining != 0 {
			require.Equal(t, wants[i%len(paths)], resp.StatusCode, "request %d: %s", i, path)
			remaining = got
			continue
		}
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "request %d: %s", i, path)
		require.NotEmpty(t, resp.Header.Get("Retry-After"))
		require.Contains(t, string(body), `"RATE_LIMITED"`)
		require.NotContains(t, string(body), job, "a refused read shows nothing of the job")
	}
	require.Equal(t, 0, remaining, "the budget ran out within 12 requests")
}

// TestTokenEndpointThrottlesFailedAuthentications (A2): ten wrong secrets for one client within a
// minute, then even the right one gets 429 LIMIT_EXCEEDED with Retry-After; the 401s count the
// budget down in X-RateLimit-Remaining.
func TestTokenEndpointThrottlesFailedAuthentications(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Guessed")
	id, secret := s.newClient(t, acct)
	awayFromMinuteEnd(15 * time.Second)
	try := func(secret string) *http.Response {
		body := strings.NewReader(`{"client_id":"` + id + `","client_secret":"` + secret + `"}`)
		req, err := http.NewRequest(http.MethodPost, s.ReconURL+"/api/v1/token", body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := recon(t).client(t).Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp
	}
	for i := 1; i <= 10; i++ {
		resp := try("cs_wrong")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		require.Equal(t, strconv.Itoa(10-i), resp.Header.Get("X-RateLimit-Remaining"), "attempt %d", i)
	}
	resp := try(secret)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "the right secret is refused while throttled")
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
}

// TestRequestsWithoutCredentialsAreLimitedPerAddress: 60 requests a minute without valid
// credentials from one address get 401 with that budget in their X-RateLimit headers; the 61st
// gets 429 RATE_LIMITED in the Parsing API's envelope, while a caller with a valid key is not
// affected.
func TestRequestsWithoutCredentialsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	_, key := s.newKey(t, s.newAccount(t, "Unaffected"))
	awayFromMinuteEnd(15 * time.Second)
	get := func(credential string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, s.ParseURL+"/api/v1/status", nil)
		require.NoError(t, err)
		if credential != "" {
			req.Header.Set("Authorization", "Bearer "+credential)
		}
		resp, err := parse(t).client(t).Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp
	}
	for i := 1; i <= 60; i++ {
		resp := get("smk_live_" + strings.Repeat("x", 40))
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		require.Equal(t, "60", resp.Header.Get("X-RateLimit-Limit"))
		require.Equal(t, strconv.Itoa(60-i), resp.Header.Get("X-RateLimit-Remaining"), "request %d", i)
	}
	resp := get("")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.Equal(t, http.StatusOK, get(key).StatusCode, "a valid key is not limited by the address's budget")
}

// TestRateLimitHeadersOnEveryAnswerToAValidCredential sends each API, with a valid credential,
// requests that end in different answers (success, 400, 404 for an unknown job, 404 for a path
// no operation has, 405 for a method no operation has) and requires every answer to carry the
// X-RateLimit headers, each request counted once (Remaining falls by one per request).
func TestRateLimitHeadersOnEveryAnswerToAValidCredential(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "A")
	token := s.token(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
	for _, tc := range []struct {
		base, auth string
		requests   [][2]string // method, path
	}{
		{s.ReconURL, "Bearer " + token, [][2]string{
			{"GET", "/api/v1/limits"}, {"GET", "/api/v1/jobs/not-a-uuid"}, {"GET", "/api/v1/jobs/" + uuid.NewString()},
			{"GET", "/api/v1/no-such-path"}, {"PUT", "/api/v1/limits"}, {"GET", "/api/v1/limits"},
		}},
		{s.ParseURL, "Bearer " + ten.APIKey, [][2]string{
			{"GET", "/api/v1/usage"}, {"GET", "/api/v1/jobs?limit=lots"}, {"GET", "/api/v1/jobs/" + uuid.NewString()},
			{"GET", "/api/v1/no-such-path"}, {"DELETE", "/api/v1/usage"}, {"GET", "/api/v1/usage"},
		}},
	} {
		last := -1
		for _, r := range tc.requests {
			req, err := http.NewRequest(r[0], tc.base+r[1], nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", tc.auth)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			what := fmt.Sprintf("%s %s%s answered %d", r[0], tc.base, r[1], resp.StatusCode)
			require.NotEmpty(t, resp.Header.Get("X-RateLimit-Limit"), what)
			require.NotEmpty(t, resp.Header.Get("X-RateLimit-Reset"), what)
			remaining, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
			require.NoError(t, err, what)
			if last >= 0 {
				require.Equal(t, last-1, remaining, "%s: counted once", what)
			}
			last = remaining
		}
	}
}
