// Package sdkhttp is the HTTP plumbing the two client packages (reconclient, parseclient) share:
// the documented retry rule and replayable request bodies. It is handwritten; nothing in gen/
// generates it.
package sdkhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Doer sends one HTTP request; *http.Client is one, and so are the generated clients'
// HttpRequestDoer values.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Policy is when and how long a request is retried. The API reference's rule is Default: up to 3
// attempts, waiting 2^retry seconds (2 s, then 4 s) before each retry, only after a 429, 500 or
// 503 answer (or a connection that failed before any answer), and never earlier than the
// answer's Retry-After.
type Policy struct {
	// Attempts is how many times a request is sent at the most; 1 turns retries off.
	Attempts int
	// Backoff is the wait before retry n (1 for the first retry); 2^n seconds when nil.
	Backoff func(n int) time.Duration
	// MaxWait is the longest wait the client accepts: an answer whose Retry-After asks for
	// more (a monthly job limit, say, resets in days) is returned at once. 2 minutes when 0.
	MaxWait time.Duration
}

// Default is the API reference's retry rule.
var Default = Policy{Attempts: 3}

func (p Policy) backoff(n int) time.Duration {
	if p.Backoff != nil {
		return p.Backoff(n)
	}
	return time.Duration(1<<n) * time.Second
}

func (p Policy) maxWait() time.Duration {
	if p.MaxWait <= 0 {
		return 2 * time.Minute
	}
	return p.MaxWait
}

// Retrying returns a Doer that sends each request through next and retries it by p. A request
// body is made replayable first (read into memory when it cannot be reopened), so every attempt
// sends the same bytes. A POST to a path that creates a resource (…/jobs, …/webhooks) without an
// Idempotency-Key gets one, so a retried upload never creates two jobs. Waits end early when
// the request's context does.
func Retrying(next Doer, p Policy) Doer {
	if p.Attempts < 1 {
		p.Attempts = 1
	}
	return &retrying{next: next, policy: p}
}

type retrying struct {
	next   Doer
	policy Policy
}

func (r *retrying) Do(req *http.Request) (*http.Response, error) {
	if r.policy.Attempts > 1 {
		if err := Replayable(req); err != nil {
			return nil, err
		}
		if req.Method == http.MethodPost && req.Header.Get("Idempotency-Key") == "" && createsResource(req.URL.Path) {
			req.Header.Set("Idempotency-Key", uuid.NewString())
		}
	}
	for attempt := 1; ; attempt++ {
		resp, err := r.next.Do(req)
		if attempt >= r.policy.Attempts || !retryable(resp, err) || req.Context().Err() != nil {
			return resp, err
		}
		wait := r.policy.backoff(attempt)
		if resp != nil {
			if after, ok := RetryAfter(resp.Header, time.Now()); ok {
				if after > r.policy.maxWait() {
					return resp, nil
				}
				wait = max(wait, after)
			}
			// The answer is dropped for the next one: read a little so the connection is reused.
			_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
			_ = resp.Body.Close()
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("replay request body: %w", err)
			}
			req.Body = body
		}
	}
}

// retryable reports whether an attempt's outcome may be retried: 429, 500 and 503 answers, and
// failures to get any answer that are not the caller's own cancellation.
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// createsResource reports whether a POST to path creates a job or a webhook endpoint, the
// operations that take an Idempotency-Key.
func createsResource(path string) bool {
	path = strings.TrimSuffix(path, "/")
	return strings.HasSuffix(path, "/api/v1/jobs") || strings.HasSuffix(path, "/api/v1/webhooks")
}

// Replayable makes req's body readable again for another attempt: it keeps a GetBody that
// http.NewRequest set, and otherwise reads the body into memory once.
func Replayable(req *http.Request) error {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return nil
	}
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	req.ContentLength = int64(len(data))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	req.Body, _ = req.GetBody()
	return nil
}

// RetryAfter reads a Retry-After header: seconds or an HTTP date, relative to now.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		return time.Duration(min(secs, 1<<32)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// DefaultClient is the HTTP client of the SDK's New: no overall time limit, which would cut a
// long export download, but at most 2 minutes to wait for an answer's headers; contexts bound
// the rest.
func DefaultClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 2 * time.Minute
	return &http.Client{Transport: t}
}

// maxPoll is the longest wait between two polls of NextPoll.
const maxPoll = 10 * time.Second

// NextPoll is the wait after one of d when polling: twice as long, up to 10 s (or d when it is
// longer already).
func NextPoll(d time.Duration) time.Duration {
	if d >= maxPoll {
		return d
	}
	return min(2*d, maxPoll)
}

// Poll calls get until it reports done: at once, then after interval (1 s when 0), the wait
// doubling up to 10 s (NextPoll). It ends early with get's error or ctx's, returning the last
// value read.
func Poll[T any](ctx context.Context, interval time.Duration, get func() (T, bool, error)) (T, error) {
	if interval <= 0 {
		interval = time.Second
	}
	for {
		v, done, err := get()
		if err != nil || done {
			return v, err
		}
		if err := sleep(ctx, interval); err != nil {
			return v, err
		}
		interval = NextPoll(interval)
	}
}

// Pages iterates over the items of a paginated list from cursor start (nil: the first page):
// page returns a page's items and the next page's cursor (nil after the last). Iteration stops
// at the first error, which is yielded.
func Pages[T any](start *string, page func(cursor *string) ([]T, *string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := start
		for {
			items, next, err := page(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if next == nil {
				return
			}
			cursor = next
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Pending holds the settings of clients under construction, keyed by the generated client
// value that the generated option type (func(*RawClient) error) receives, so that the SDK's own
// options can be of that one type although the generated client has no field for them.
type Pending[K comparable, S any] struct{ m sync.Map }

// Begin registers s for key until the returned function is called.
func (p *Pending[K, S]) Begin(key K, s *S) (end func()) {
	p.m.Store(key, s)
	return func() { p.m.Delete(key) }
}

// Get returns key's settings, or an error naming option when key is not being built by New.
func (p *Pending[K, S]) Get(key K, option string) (*S, error) {
	s, ok := p.m.Load(key)
	if !ok {
		return nil, fmt.Errorf("%s applies only to the client of New", option)
	}
	return s.(*S), nil
}

// Part is one part of a multipart/form-data body: a file when FileName is set, a text field
// otherwise.
type Part struct {
	Field    string
	FileName string
	Content  io.Reader
	Text     string
}

// Form builds a multipart/form-data body of parts in memory (uploads are at most tens of
// megabytes, and a body in memory can be sent again on a retry) and returns its content type.
func Form(parts ...Part) (contentType string, body *bytes.Reader, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		if p.FileName == "" {
			if err := w.WriteField(p.Field, p.Text); err != nil {
				return "", nil, err
			}
			continue
		}
		if p.Content == nil {
			return "", nil, fmt.Errorf("the %s file %q has no content", p.Field, p.FileName)
		}
		part, err := w.CreateFormFile(p.Field, p.FileName)
		if err != nil {
			return "", nil, err
		}
		if _, err := io.Copy(part, p.Content); err != nil {
			return "", nil, fmt.Errorf("read the %s file %q: %w", p.Field, p.FileName, err)
		}
	}
	if err := w.Close(); err != nil {
		return "", nil, err
	}
	return w.FormDataContentType(), bytes.NewReader(buf.Bytes()), nil
}

// Result turns a generated response into the one-call form: v (the decoded 2xx body) and nil,
// or the zero T and check's error for a non-2xx answer. A 2xx answer without the expected body
// is an error too, naming the status and content type.
func Result[T any](resp *http.Response, body []byte, v *T, check func(*http.Response, []byte) error) (T, error) {
	var zero T
	if err := check(resp, body); err != nil {
		return zero, err
	}
	if v == nil {
		return zero, fmt.Errorf("unexpected answer %d with content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return *v, nil
}

// Upload is a file to send: Name (the base name is kept) names the part, Content is read once,
// into memory, so that a retry can send it again. The client packages export it as their Upload.
type Upload struct {
	Name    string
	Content io.Reader
}

// UploadFile reads the file at path into an Upload named after the file.
func UploadFile(path string) (Upload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Upload{}, err
	}
	return Upload{Name: filepath.Base(path), Content: bytes.NewReader(data)}, nil
}

// Download streams a download's answer into w and returns the bytes written: check's error for
// an answer that is not 200, and an error naming what (and the bytes written) when the body
// breaks off, in which case w holds a partial file.
func Download(resp *http.Response, err error, check func(*http.Response, []byte) error, what string, w io.Writer) (int64, error) {
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return 0, check(resp, body)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("%s broke off after %d bytes: %w", what, n, err)
	}
	return n, nil
}
