package httpkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/parsehttp"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/reconhttp"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/webhook"
)

// FuzzIdemKey sends every create operation that takes an Idempotency-Key (the Parsing API's
// POST /api/v1/jobs and POST /api/v1/webhooks, the Reconciliation API's POST /api/v1/jobs)
// through the listener as cmd/statementd builds it (middleware, spec validator, generated
// binding, handler), with the key (and, when twice is set, a second Idempotency-Key header)
// from the fuzzer and fakes behind the handlers. Properties, per operation:
//
//   - no answer is a 5xx, and every refusal is 400 INVALID_REQUEST that reaches no service;
//   - a key that reaches the service is the header's value byte for byte (nothing trims,
//     unescapes or folds it), and one the database can keep: 1 to 255 characters of UTF-8
//     without NUL; on the Parsing API also the spec's printable ASCII;
//   - a single header with a key that follows the API's rule is accepted, not refused;
//   - httpkit.IdempotencyKey agrees: it accepts exactly the storable keys, unchanged.
//
// The key is set on the request as the handler receives it, so it may hold bytes (controls, a
// leading space) that net/http would refuse or trim on the wire: the handlers must hold for those
// too.
func FuzzIdemKey(f *testing.F) {
	for _, seed := range []struct {
		key, second string
		twice       bool
	}{
		{"5d0b8a4e-2f6c-4b91-a3d7-8e1f0c6b9a24", "", false},
		{"key-1", "key-1", true},
		{"key-1", "key-2", true},
		{"", "", false},
		{" ", "", false},
		{"two words", "", false},
		{"é", "", false},
		{"\xff\xfe", "", false},
		{"a\x00b", "", false},
		{"a\tb", "", false},
		{"%41%00", "", false},
		{strings.Repeat("k", 255), "", false},
		{strings.Repeat("k", 256), "", false},
		{strings.Repeat("é", 255), "", false},
		{strings.Repeat("é", 256), "", false},
		{"\xed\xa0\x80", "", false}, // a UTF-16 surrogate, encoded: not UTF-8
		{"~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}", "", false},
	} {
		f.Add(seed.key, seed.second, seed.twice)
	}
	f.Fuzz(func(t *testing.T, key, second string, twice bool) {
		storable := utf8.ValidString(key) && !strings.ContainsRune(key, 0) &&
			utf8.RuneCountInString(key) >= 1 && utf8.RuneCountInString(key) <= httpkit.MaxIdempotencyKeyLength
		got, err := httpkit.IdempotencyKey(&key)
		if storable {
			if err != nil || got != key {
				t.Fatalf("IdempotencyKey(%q) = %q, %v; want the key unchanged", key, got, err)
			}
		} else {
			var ce *httpkit.Error
			if err == nil || !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || ce.Code != httpkit.CodeInvalidRequest {
				t.Fatalf("IdempotencyKey(%q) = %q, %v; want 400 INVALID_REQUEST", key, got, err)
			}
		}
		if k, err := httpkit.IdempotencyKey(nil); k != "" || err != nil {
			t.Fatalf("IdempotencyKey(nil) = %q, %v", k, err)
		}

		values := []string{key}
		if twice {
			values = append(values, second)
		}
		h := idemHarness(t)
		printable := idemPrintable.MatchString(key) && len(key) <= httpkit.MaxIdempotencyKeyLength
		for _, op := range []struct {
			name    string
			handler http.Handler
			request func() *http.Request
			accepts bool // the API's rule for one header with key
			status  int  // the success status
			code    func(body []byte) string
		}{
			{"parse POST /api/v1/jobs", h.parse, parseUpload, printable, http.StatusAccepted, parseCode},
			{"parse POST /api/v1/webhooks", h.parse, webhookRequest, printable, http.StatusCreated, parseCode},
			{"recon POST /api/v1/jobs", h.recon, reconUpload, storable, http.StatusAccepted, reconCode},
		} {
			req := op.request()
			req.Header["Idempotency-Key"] = values
			h.mu.Lock()
			h.seen, h.called = "", false
			h.mu.Unlock()
			rec := httptest.NewRecorder()
			op.handler.ServeHTTP(rec, req)
			h.mu.Lock()
			seen, called := h.seen, h.called
			h.mu.Unlock()

			switch {
			case rec.Code >= 500:
				t.Fatalf("%s with Idempotency-Key %q: %d %s", op.name, values, rec.Code, rec.Body)
			case called:
				if rec.Code != op.status {
					t.Fatalf("%s with Idempotency-Key %q: the service was called, then %d %s", op.name, values, rec.Code, rec.Body)
				}
				if twice {
					t.Fatalf("%s: two Idempotency-Key headers %q were accepted (%q used)", op.name, values, seen)
				}
				if seen != key {
					t.Fatalf("%s: the service got Idempotency-Key %q for the header %q", op.name, seen, key)
				}
				if !op.accepts {
					t.Fatalf("%s: the key %q, which breaks the API's rule, reached the service", op.name, key)
				}
			default:
				if rec.Code != http.StatusBadRequest || op.code(rec.Body.Bytes()) != httpkit.CodeInvalidRequest {
					t.Fatalf("%s with Idempotency-Key %q: refused with %d %s; want 400 INVALID_REQUEST", op.name, values, rec.Code, rec.Body)
				}
				if op.accepts && !twice {
					t.Fatalf("%s: the key %q follows the API's rule but was refused: %s", op.name, key, rec.Body)
				}
			}
		}
	})
}

// idemPrintable is the Parsing API's Idempotency-Key pattern (openapi/parsing.yaml).
var idemPrintable = regexp.MustCompile(`^[\x21-\x7E]+$`)

const (
	fuzzAPIKey = "smk_live_4eC39HqLyjWDarjtT1zdp7dcA1b2C3d4"
	fuzzToken  = "sat_fuzz"
)

var fuzzAccount = uuid.MustParse("0b7e0a52-5a43-4f0e-9d5c-3c1f1f4a2b6e")

// keyHarness is both APIs' listeners with fakes that record the Idempotency-Key they are given.
type keyHarness struct {
	parse, recon http.Handler
	mu           sync.Mutex
	seen         string
	called       bool
}

func (h *keyHarness) record(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen, h.called = key, true
}

var (
	keyHarnessOnce sync.Once
	keyHarnessVal  *keyHarness
	keyHarnessErr  error
)

// idemHarness builds the listeners once per process: the fuzzer calls the target many times.
func idemHarness(t *testing.T) *keyHarness {
	t.Helper()
	keyHarnessOnce.Do(func() {
		h := &keyHarness{}
		logger := slog.New(slog.DiscardHandler)
		var p, r *echo.Echo
		p, keyHarnessErr = parsehttp.New(parsehttp.Config{Logger: logger, DB: okPinger{}, Accounts: keyAccounts{},
			MaxUploadBodyBytes: 1 << 20, MaxFileBytes: 1 << 20, Jobs: parseJobs{h: h}, Webhooks: webhooks{h: h}, Version: "fuzz"})
		if keyHarnessErr != nil {
			return
		}
		r, keyHarnessErr = reconhttp.New(reconhttp.Config{Env: account.Production, Logger: logger, DB: okPinger{},
			Accounts: keyAccounts{}, MaxUploadBodyBytes: 1 << 20, MaxFileBytes: 1 << 20, Jobs: reconJobs{h: h}})
		h.parse, h.recon = p, r
		keyHarnessVal = h
	})
	if keyHarnessErr != nil {
		t.Fatal(keyHarnessErr)
	}
	return keyHarnessVal
}

type okPinger struct{}

func (okPinger) PingContext(context.Context) error { return nil }

type keyAccounts struct{}

func (keyAccounts) AuthenticateAPIKey(_ context.Context, key string) (account.APIKey, error) {
	if key != fuzzAPIKey {
		return account.APIKey{}, account.ErrInvalidCredentials
	}
	return account.APIKey{ID: uuid.New(), AccountID: fuzzAccount, Scopes: account.AllScopes}, nil
}

func (keyAccounts) AuthenticateToken(_ context.Context, token string, env account.Environment) (account.AccessToken, error) {
	if token != fuzzToken {
		return account.AccessToken{}, account.ErrInvalidCredentials
	}
	return account.AccessToken{ClientID: "cli_fuzz", AccountID: fuzzAccount, Env: env, Permissions: account.AllPermissions,
		IssuedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}, nil
}

func (keyAccounts) IssueToken(context.Context, string, string, account.Environment, []account.Permission) (string, account.AccessToken, error) {
	return "", account.AccessToken{}, account.ErrInvalidCredentials
}

// parseJobs, webhooks and reconJobs implement only Create; the embedded interfaces are nil, so
// any other call panics and fails the target.
type parseJobs struct {
	parsehttp.Jobs
	h *keyHarness
}

func (j parseJobs) Create(_ context.Context, req parsejob.NewJob) (parsejob.Accepted, error) {
	j.h.record(req.IdempotencyKey)
	return parsejob.Accepted{Job: parsejob.Job{ID: uuid.New(), AccountID: req.AccountID, Status: parsejob.StatusQueued,
		FileName: "march.csv", Format: statement.FormatCSV, CreatedAt: time.Now(), RequestID: req.RequestID}}, nil
}

type webhooks struct {
	parsehttp.Webhooks
	h *keyHarness
}

func (w webhooks) Create(_ context.Context, req webhook.NewEndpoint) (webhook.Created, error) {
	w.h.record(req.IdempotencyKey)
	return webhook.Created{Endpoint: webhook.Endpoint{ID: uuid.New(), AccountID: req.AccountID, URL: req.URL, Enabled: true,
		CreatedAt: time.Now()}, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, nil
}

type reconJobs struct {
	reconhttp.Jobs
	h *keyHarness
}

func (j reconJobs) Create(_ context.Context, req reconjob.NewJob) (reconjob.Accepted, error) {
	j.h.record(req.IdempotencyKey)
	return reconjob.Accepted{Job: reconjob.Job{ID: uuid.New(), AccountID: req.AccountID, Env: req.Env, Status: reconjob.StatusProcessing,
		CreatedAt: time.Now()}}, nil
}

const fuzzCSV = "Date,Description,Amount\n2024-03-01,PAYMENT,10.00\n"

// multipartRequest is a POST of files (field name to content) to path with a bearer credential.
func multipartRequest(path, credential string, files ...string) *http.Request {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for i := 0; i+1 < len(files); i += 2 {
		p, _ := w.CreateFormFile(files[i], files[i]+".csv")
		_, _ = p.Write([]byte(files[i+1]))
	}
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+credential)
	return req
}

func parseUpload() *http.Request {
	return multipartRequest("/api/v1/jobs", fuzzAPIKey, "file", fuzzCSV)
}

func reconUpload() *http.Request {
	return multipartRequest("/api/v1/jobs", fuzzToken, "bank", fuzzCSV, "expected", "reference,amount\nINV-1,10.00\n")
}

func webhookRequest() *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/api/v1/webhooks", strings.NewReader(`{"url":"https://example.com/hooks"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+fuzzAPIKey)
	return req
}

// parseCode and reconCode return the error code of each API's error body.
func parseCode(body []byte) string {
	var e struct {
		Ok    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Ok == nil || *e.Ok {
		return ""
	}
	return e.Error
}

func reconCode(body []byte) string {
	var e struct {
		Error  string `json:"error"`
		Detail struct {
			Code string `json:"code"`
		} `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error != e.Detail.Code {
		return ""
	}
	return e.Error
}
