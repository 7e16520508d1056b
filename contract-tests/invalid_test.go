package contracttests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testMaxUpload is the upload limit of the server of TestRequestsThatBreakTheSpec, small so the
// 413 cases need no large bodies.
const testMaxUpload = 64 << 10

// TestRequestsThatBreakTheSpec sends requests that break each API's spec and requires the
// declared status in that API's error body (validated against the spec by the transport), a
// message for a person, and no schema dump or Go error text.
func TestRequestsThatBreakTheSpec(t *testing.T) {
	t.Parallel()
	s := startServer(t, fmt.Sprintf("STATEMENTD_MAX_UPLOAD_BYTES=%d", testMaxUpload))
	// Authenticated, so each request reaches the check it is about: credentials are checked first.
	ten := s.newTenant(t, "A")
	token := s.token(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
	json1MiB := `{"url":"https://hooks.partner.dev/x","description":"` + strings.Repeat("x", 1<<20) + `"}`

	tests := []struct {
		name        string
		parsing     bool // the Parsing API; else the Reconciliation API
		method      string
		path        string
		contentType string
		body        string
		bodyReader  func() (string, io.Reader) // for multipart bodies
		wantStatus  int
		wantCode    string
		wantAllow   string
		wantMessage string
	}{
		{name: "a token request without client_secret is 400", method: "POST", path: "/api/v1/token", contentType: "application/json",
			body: `{"client_id":"cli_x"}`, wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "client_secret"},
		{name: "a token request with a number for client_id is 400", method: "POST", path: "/api/v1/token", contentType: "application/json",
			body: `{"client_id":5,"client_secret":"s"}`, wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "client_id"},
		{name: "a token request with an unknown field is 400", method: "POST", path: "/api/v1/token", contentType: "application/json",
			body: `{"client_id":"a","client_secret":"s","admin":true}`, wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "admin"},
		{name: "a token request with an env of neither kind is 400", method: "POST", path: "/api/v1/token", contentType: "application/json",
			body: `{"client_id":"a","client_secret":"s","env":"staging"}`, wantStatus: 400, wantCode: "INVALID_REQUEST"},
		{name: "truncated JSON is 400", method: "POST", path: "/api/v1/token", contentType: "application/json",
			body: `{"client_id":`, wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "not valid JSON"},
		{name: "a number out of range is 400 in words", method: "POST", path: "/api/v1/token", contentType: "application/json",
			body: `{"client_id":1e999999,"client_secret":"s"}`, wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "client_id"},
		{name: "a multipart upload without a boundary is 400 in words", method: "POST", path: "/api/v1/jobs", contentType: "multipart/form-data",
			body: "--x\r\n", wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "boundary"},
		{name: "a form token request without grant_type is 400", method: "POST", path: "/api/v1/token", contentType: "application/x-www-form-urlencoded",
			body: `client_id=a&client_secret=b`, wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "grant_type"},
		{name: "a token request as plain text is 400", method: "POST", path: "/api/v1/token", contentType: "text/plain",
			body: `hello`, wantStatus: 400, wantCode: "INVALID_REQUEST"},
		{name: "a job id that is not a UUID is 400", method: "GET", path: "/api/v1/jobs/not-a-uuid",
			wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "must be a UUID"},
		{name: "a reconciliation job without the expected file is 400", method: "POST", path: "/api/v1/jobs",
			bodyReader: multipartBody(map[string]int{"bank": 100}), wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "expected"},
		{name: "a reconciliation upload over the limit is 413", method: "POST", path: "/api/v1/jobs",
			bodyReader: multipartBody(map[string]int{"bank": 2*testMaxUpload + 1<<20, "expected": 10}), wantStatus: 413, wantCode: "FILE_TOO_LARGE"},
		{name: "an unknown reconciliation path is 404", method: "GET", path: "/api/v1/nothing-here",
			wantStatus: 404, wantCode: "NOT_FOUND"},
		{name: "a path outside /api/v1 is 404", method: "GET", path: "/admin",
			wantStatus: 404, wantCode: "NOT_FOUND"},
		{name: "DELETE on the limits is 405 naming GET", method: "DELETE", path: "/api/v1/limits",
			wantStatus: 405, wantCode: "METHOD_NOT_ALLOWED", wantAllow: "GET"},

		{parsing: true, name: "a job list limit of 0 is 400", method: "GET", path: "/api/v1/jobs?limit=0",
			wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "limit"},
		{parsing: true, name: "a job list limit that is not a number is 400", method: "GET", path: "/api/v1/jobs?limit=ten",
			wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "limit"},
		{parsing: true, name: "an unknown job status filter is 400", method: "GET", path: "/api/v1/jobs?status=lost",
			wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "status"},
		{parsing: true, name: "a created_after that is not a time is 400", method: "GET", path: "/api/v1/jobs?created_after=yesterday",
			wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "created_after"},
		{parsing: true, name: "an unknown export format is 400", method: "GET", path: "/api/v1/jobs/3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f/export?format=xml",
			wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "format"},
		{parsing: true, name: "a webhook without url is 400", method: "POST", path: "/api/v1/webhooks", contentType: "application/json",
			body: `{"events":["job.completed"]}`, wantStatus: 400, wantCode: "INVALID_REQUEST", wantMessage: "url"},
		{parsing: true, name: "a webhook with an unknown event is 400", method: "POST", path: "/api/v1/webhooks", contentType: "application/json",
			body: `{"url":"https://hooks.partner.dev/x","events":["job.exploded"]}`, wantStatus: 400, wantCode: "INVALID_REQUEST"},
		{parsing: true, name: "a JSON body over 1 MiB is 413 before it is read", method: "POST", path: "/api/v1/webhooks", contentType: "application/json",
			body: json1MiB, wantStatus: 413, wantCode: "REQUEST_TOO_LARGE"},
		{parsing: true, name: "a parse job without its file is 400", method: "POST", path: "/api/v1/jobs",
			bodyReader: multipartBody(map[string]int{"other": 10}), wantStatus: 400, wantCode: "INVALID_REQUEST"},
		{parsing: true, name: "a parse upload over the limit is 413", method: "POST", path: "/api/v1/jobs",
			bodyReader: multipartBody(map[string]int{"file": 2*testMaxUpload + 1<<20}), wantStatus: 413, wantCode: "FILE_TOO_LARGE"},
		{parsing: true, name: "an unknown parsing path is 404", method: "GET", path: "/api/v2/jobs",
			wantStatus: 404, wantCode: "NOT_FOUND"},
		{parsing: true, name: "PUT on a webhook is 405 naming DELETE", method: "PUT", path: "/api/v1/webhooks/3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f",
			wantStatus: 405, wantCode: "METHOD_NOT_ALLOWED", wantAllow: "DELETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, api := s.ReconURL, recon(t)
			if tt.parsing {
				base, api = s.ParseURL, parse(t)
			}
			var body io.Reader = strings.NewReader(tt.body)
			contentType := tt.contentType
			if tt.bodyReader != nil {
				contentType, body = tt.bodyReader()
			}
			req, err := http.NewRequest(tt.method, base+tt.path, body)
			require.NoError(t, err)
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			switch {
			case tt.parsing:
				req.Header.Set("Authorization", "Bearer "+ten.APIKey)
			case tt.path != "/api/v1/token":
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := api.client(t).Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "body: %s", raw)

			code, message := errorOf(t, tt.parsing, raw)
			require.Equal(t, tt.wantCode, code)
			require.NotEmpty(t, message)
			require.Contains(t, message, tt.wantMessage)
			for _, leak := range []string{"Schema:", "Value:", "goroutine", "*uuid.UUID", ".go:", "strconv", "#/components",
				"failed to decode", "multipart:", "doesn't match", "Error at", "openapi3"} {
				require.NotContains(t, message, leak, "the message shows no internals")
			}
			if tt.wantAllow != "" {
				require.Equal(t, tt.wantAllow, resp.Header.Get("Allow"))
			}
		})
	}
}

// errorOf returns the code and message of an API's error body.
func errorOf(t *testing.T, parsing bool, raw []byte) (code, message string) {
	t.Helper()
	if parsing {
		var e struct {
			Ok     bool   `json:"ok"`
			Error  string `json:"error"`
			Detail string `json:"detail"`
			Meta   struct {
				RequestID string `json:"request_id"`
			} `json:"meta"`
		}
		require.NoError(t, json.Unmarshal(raw, &e), "body: %s", raw)
		require.False(t, e.Ok)
		require.NotEmpty(t, e.Meta.RequestID)
		return e.Error, e.Detail
	}
	var e struct {
		Error  string `json:"error"`
		Detail struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(raw, &e), "body: %s", raw)
	require.Equal(t, e.Error, e.Detail.Code)
	return e.Error, e.Detail.Message
}

// multipartBody returns a multipart body with one file part of the given size per field.
func multipartBody(fields map[string]int) func() (string, io.Reader) {
	return func() (string, io.Reader) {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for field, size := range fields {
			part, _ := w.CreateFormFile(field, field+".csv")
			_, _ = part.Write(bytes.Repeat([]byte("a"), size))
		}
		_ = w.Close()
		return w.FormDataContentType(), &buf
	}
}
