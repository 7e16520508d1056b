package httpkit

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

func TestParseBearer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		header    string
		wantToken string
		wantErr   error
	}{
		{name: "a bearer token is returned", header: "Bearer sat_abc123", wantToken: "sat_abc123"},
		{name: "the scheme is case-insensitive", header: "bearer sat_abc", wantToken: "sat_abc"},
		{name: "extra spaces before the token are allowed", header: "Bearer   sat_abc", wantToken: "sat_abc"},
		{name: "a b64token with its padding is a token", header: "Bearer a-b.c_d~e+f/g==", wantToken: "a-b.c_d~e+f/g=="},
		{name: "no header is no credentials", header: "", wantErr: ErrNoCredentials},
		{name: "another scheme is no bearer credentials", header: "Basic Y2xpOnNlY3JldA==", wantErr: ErrNoCredentials},
		{name: "a scheme that only starts with Bearer is another scheme", header: "Bearerx sat_abc", wantErr: ErrNoCredentials},
		{name: "the scheme alone is malformed", header: "Bearer", wantErr: ErrMalformedCredentials},
		{name: "the scheme and a space is malformed", header: "Bearer ", wantErr: ErrMalformedCredentials},
		{name: "two tokens are malformed", header: "Bearer sat_a sat_b", wantErr: ErrMalformedCredentials},
		{name: "a quoted token is malformed", header: `Bearer "sat_a"`, wantErr: ErrMalformedCredentials},
		{name: "padding alone is malformed", header: "Bearer ==", wantErr: ErrMalformedCredentials},
		{name: "padding inside the token is malformed", header: "Bearer ab=cd", wantErr: ErrMalformedCredentials},
		{name: "a control character is malformed", header: "Bearer sat\x01a", wantErr: ErrMalformedCredentials},
		{name: "non-ASCII is malformed", header: "Bearer sät", wantErr: ErrMalformedCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseBearer(tt.header)
			require.ErrorIs(t, err, tt.wantErr)
			require.Equal(t, tt.wantToken, got)
		})
	}
}

func TestBearerCredential(t *testing.T) {
	t.Parallel()
	header := func(values ...string) http.Header { return http.Header{"Authorization": values} }
	tests := []struct {
		name      string
		header    http.Header
		wantToken string
		wantErr   error
	}{
		{name: "one header is parsed", header: header("Bearer sat_abc"), wantToken: "sat_abc"},
		{name: "no header is no credentials", header: http.Header{}, wantErr: ErrNoCredentials},
		{name: "one of another scheme is no bearer credentials", header: header("Basic Y2xpOnNlY3JldA=="), wantErr: ErrNoCredentials},
		{name: "one malformed header is malformed", header: header("Bearer a b"), wantErr: ErrMalformedCredentials},
		{name: "two headers are malformed, the first good", header: header("Bearer sat_good", "Bearer sat_bad"), wantErr: ErrMalformedCredentials},
		{name: "two headers are malformed, the second good", header: header("Bearer sat_bad", "Bearer sat_good"), wantErr: ErrMalformedCredentials},
		{name: "the same header twice is malformed", header: header("Bearer sat_a", "Bearer sat_a"), wantErr: ErrMalformedCredentials},
		{name: "two headers of other schemes are malformed", header: header("Basic eA==", "Basic eQ=="), wantErr: ErrMalformedCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := BearerCredential(tt.header)
			require.ErrorIs(t, err, tt.wantErr)
			require.Equal(t, tt.wantToken, got)
		})
	}
}

func TestChallengeString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		challenge Challenge
		want      string
	}{
		{name: "no credentials: realm only, no error", challenge: Challenge{Scheme: "Bearer", Realm: "statementd"},
			want: `Bearer realm="statementd"`},
		{name: "an invalid token names the error and says why",
			challenge: Challenge{Scheme: "Bearer", Realm: "statementd", Error: BearerInvalidToken, Description: "The access token expired"},
			want:      `Bearer realm="statementd", error="invalid_token", error_description="The access token expired"`},
		{name: "a missing scope names the scopes needed",
			challenge: Challenge{Scheme: "Bearer", Realm: "statementd", Error: BearerInsufficientScope, Scope: "jobs:read jobs:write"},
			want:      `Bearer realm="statementd", error="insufficient_scope", scope="jobs:read jobs:write"`},
		{name: "basic: realm only", challenge: Challenge{Scheme: "Basic", Realm: "statementd"}, want: `Basic realm="statementd"`},
		{name: "quotes and backslashes are escaped, control characters dropped",
			challenge: Challenge{Scheme: "Bearer", Realm: `a"b\c`, Description: "line\r\nbreak"},
			want:      `Bearer realm="a\"b\\c", error_description="linebreak"`},
		{name: "a scheme without parameters is the scheme", challenge: Challenge{Scheme: "Bearer"}, want: "Bearer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, tt.challenge.String())
		})
	}
}

func TestAuthErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		err           *echo.HTTPError
		wantStatus    int
		wantCode      string
		wantChallenge string
	}{
		{name: "no credentials is 401 UNAUTHORIZED without an error code", err: Unauthenticated("send a token"),
			wantStatus: 401, wantCode: CodeUnauthorized, wantChallenge: `Bearer realm="statementd"`},
		{name: "a bad token is 401 with invalid_token", err: InvalidToken(CodeAuthInvalid, "invalid access token"),
			wantStatus: 401, wantCode: CodeAuthInvalid,
			wantChallenge: `Bearer realm="statementd", error="invalid_token", error_description="invalid access token"`},
		{name: "an expired token is 401 TOKEN_EXPIRED with invalid_token", err: InvalidToken(CodeTokenExpired, "expired"),
			wantStatus: 401, wantCode: CodeTokenExpired, wantChallenge: `Bearer realm="statementd", error="invalid_token", error_description="expired"`},
		{name: "a missing scope is 403 with insufficient_scope", err: InsufficientScope("lacks jobs:write", []string{"jobs:write"}),
			wantStatus: 403, wantCode: CodeForbidden,
			wantChallenge: `Bearer realm="statementd", error="insufficient_scope", error_description="lacks jobs:write", scope="jobs:write"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.wantStatus, tt.err.Code)
			got := toClientError(tt.err)
			require.Equal(t, tt.wantStatus, got.Status)
			require.Equal(t, tt.wantCode, got.Code)
			require.Equal(t, tt.wantChallenge, got.Header.Get(HeaderWWWAuthenticate))
		})
	}
	t.Run("a failure to check hides its cause", func(t *testing.T) {
		t.Parallel()
		got := toClientError(AuthFailure(io.ErrUnexpectedEOF))
		require.Equal(t, 500, got.Status)
		require.NotContains(t, got.Message, "EOF")
		require.ErrorIs(t, got, io.ErrUnexpectedEOF, "the cause is kept for the log")
	})
}

// authSpec has one operation behind a bearer scheme with a required scope, and a body schema,
// so the order of authentication and body validation shows.
const authSpec = `
openapi: 3.0.3
info: {title: test, version: "1"}
security:
  - Token: []
paths:
  /items:
    post:
      security:
        - Token: [items:write]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              additionalProperties: false
              properties:
                name: {type: string}
      responses: {"200": {description: ok}}
  /open:
    get:
      security: []
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    Token:
      type: oauth2
      flows:
        clientCredentials:
          tokenUrl: /token
          scopes: {items:write: write items}
`

type callerKey struct{}

// authEcho serves authSpec with an AuthenticationFunc that knows two tokens: "good" holds
// items:write, "weak" holds nothing.
func authEcho(t *testing.T) (*echo.Echo, *strings.Builder) {
	t.Helper()
	var logs strings.Builder
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	spec, err := openapi3.NewLoader().LoadFromData([]byte(authSpec))
	require.NoError(t, err)
	authenticate := func(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
		require.NotNil(t, RequestContext(ctx).Value(requestIDKey{}), "the request's own context is reachable")
		token, err := ParseBearer(in.RequestValidationInput.Request.Header.Get("Authorization"))
		switch {
		case err == ErrNoCredentials:
			return Unauthenticated("send a token")
		case err != nil:
			return InvalidToken(CodeAuthInvalid, "invalid access token")
		}
		var scopes []string
		switch token {
		case "good":
			scopes = []string{"items:write"}
		case "weak":
		default:
			return InvalidToken(CodeAuthInvalid, "invalid access token")
		}
		SetAuthenticated(ctx, "acct-"+token, func(ctx context.Context) context.Context {
			return context.WithValue(ctx, callerKey{}, token)
		})
		for _, need := range in.Scopes {
			if !strings.Contains(strings.Join(scopes, " "), need) {
				return InsufficientScope("lacks "+need, in.Scopes)
			}
		}
		return nil
	}
	e, err := NewEcho(EchoConfig{API: "test", Logger: logger, MaxUploadBodyBytes: 1 << 20, Spec: spec,
		Validation: ValidatorOptions{Authenticate: authenticate},
		Render: func(c echo.Context, e *Error) error {
			return c.JSON(e.Status, map[string]string{"code": e.Code, "message": e.Message})
		}})
	require.NoError(t, err)
	e.POST("/items", func(c echo.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		caller, _ := c.Request().Context().Value(callerKey{}).(string)
		return c.JSON(http.StatusOK, map[string]string{"caller": caller, "account": AccountID(c.Request().Context()), "body": string(body)})
	})
	e.GET("/open", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	return e, &logs
}

func TestAuthenticationThroughTheValidator(t *testing.T) {
	t.Parallel()
	e, logs := authEcho(t)
	tests := []struct {
		name          string
		method, path  string
		auth          string
		body          string
		wantStatus    int
		wantCode      string
		wantChallenge string
	}{
		{name: "no credentials and a bad body is 401, not 400: security is checked first", method: "POST", path: "/items",
			body: `{"nope":1}`, wantStatus: 401, wantCode: CodeUnauthorized, wantChallenge: `Bearer realm="statementd"`},
		{name: "an unknown token and a bad body is 401 invalid_token", method: "POST", path: "/items", auth: "Bearer forged",
			body: `{"nope":1}`, wantStatus: 401, wantCode: CodeAuthInvalid,
			wantChallenge: `Bearer realm="statementd", error="invalid_token", error_description="invalid access token"`},
		{name: "a malformed header is 401 invalid_token", method: "POST", path: "/items", auth: "Bearer a b",
			body: `{"name":"x"}`, wantStatus: 401, wantCode: CodeAuthInvalid,
			wantChallenge: `Bearer realm="statementd", error="invalid_token", error_description="invalid access token"`},
		{name: "a token without the scope is 403 insufficient_scope", method: "POST", path: "/items", auth: "Bearer weak",
			body: `{"name":"x"}`, wantStatus: 403, wantCode: CodeForbidden,
			wantChallenge: `Bearer realm="statementd", error="insufficient_scope", error_description="lacks items:write", scope="items:write"`},
		{name: "a good token and a bad body is 400", method: "POST", path: "/items", auth: "Bearer good",
			body: `{"nope":1}`, wantStatus: 400, wantCode: CodeInvalidRequest},
		{name: "an operation without security needs no token", method: "GET", path: "/open", wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			require.Equal(t, tt.wantChallenge, rec.Header().Get(HeaderWWWAuthenticate))
			if tt.wantCode != "" {
				var body map[string]string
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
				require.Equal(t, tt.wantCode, body["code"])
			}
		})
	}

	t.Run("the handler sees the identity and the whole body", func(t *testing.T) {
		req := httptest.NewRequest("POST", "/items", strings.NewReader(`{"name":"pen"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer good")
		req.Header.Set(HeaderRequestID, "auth-ok")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		require.Equal(t, 200, rec.Code, rec.Body.String())
		var body map[string]string
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.Equal(t, map[string]string{"caller": "good", "account": "acct-good", "body": `{"name":"pen"}`}, body)
		require.Contains(t, logs.String(), `"account":"acct-good"`, "the access log names the account")
	})
	t.Run("the body of a request without valid credentials is never read", func(t *testing.T) {
		for _, auth := range []string{"", "Bearer forged"} {
			body := &countingReader{r: strings.NewReader(`{"name":"` + strings.Repeat("x", 512<<10) + `"}`)}
			req := httptest.NewRequest("POST", "/items", body)
			req.Header.Set("Content-Type", "application/json")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			require.Equal(t, 401, rec.Code)
			require.Zero(t, body.n, "authorization %q: %d bytes of the body were read", auth, body.n)
		}
	})
	t.Run("a 403 is logged with its account", func(t *testing.T) {
		req := httptest.NewRequest("POST", "/items", strings.NewReader(`{"name":"pen"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer weak")
		e.ServeHTTP(httptest.NewRecorder(), req)
		require.Contains(t, logs.String(), `"account":"acct-weak"`)
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
