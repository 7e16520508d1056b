package httpkit

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Realm is the realm of every authentication challenge the service sends.
const Realm = "statementd"

// HeaderWWWAuthenticate is the challenge header of 401 and 403 answers.
const HeaderWWWAuthenticate = "WWW-Authenticate"

// Error codes of authentication answers that only some APIs use.
const (
	CodeTokenExpired = "TOKEN_EXPIRED"
)

// Bearer token error codes of RFC 6750 section 3.1.
const (
	BearerInvalidToken      = "invalid_token"
	BearerInsufficientScope = "insufficient_scope"
)

// Errors of ParseBearer.
var (
	// ErrNoCredentials: the request carries no bearer credential at all (no Authorization
	// header, or one of another scheme such as Basic). RFC 6750 says such an answer carries no
	// error code.
	ErrNoCredentials = errors.New("no bearer credentials")
	// ErrNotBearer: the Authorization header is there but of another scheme (Basic, a bare
	// token, "Bearer" followed by a tab). It is an ErrNoCredentials, so the answer is the same,
	// but its message should not say the header is missing.
	ErrNotBearer = fmt.Errorf("%w: the Authorization header is not of the Bearer scheme", ErrNoCredentials)
	// ErrMalformedCredentials: the Authorization header says Bearer but what follows is not a
	// token.
	ErrMalformedCredentials = errors.New("malformed bearer credentials")
)

// BearerCredential returns the bearer token of a request's Authorization header, as ParseBearer
// does. More than one Authorization header is malformed: HTTP allows the field once, and which
// one counts would be ambiguous (a proxy in front may read the last where the service reads the
// first), so none does.
func BearerCredential(h http.Header) (string, error) {
	values := h.Values(echo.HeaderAuthorization)
	switch len(values) {
	case 0:
		return "", ErrNoCredentials
	case 1:
		return ParseBearer(values[0])
	}
	return "", ErrMalformedCredentials
}

// ParseBearer returns the token of an "Authorization: Bearer <token>" header value (RFC 6750
// section 2.1). The scheme is case-insensitive; the token must be one b64token (letters, digits,
// "-._~+/" and trailing "="), so a header with spaces, quotes or control characters inside the
// token is malformed rather than silently cut.
func ParseBearer(header string) (string, error) {
	if header == "" {
		return "", ErrNoCredentials
	}
	scheme, rest, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNotBearer
	}
	token := strings.TrimLeft(rest, " ")
	if !isB64Token(token) {
		return "", ErrMalformedCredentials
	}
	return token, nil
}

// isB64Token reports whether s is a b64token of RFC 6750: 1*( ALPHA / DIGIT / "-" / "." / "_" /
// "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// Challenge is one WWW-Authenticate challenge (RFC 7235 section 2.1, with the parameters of
// RFC 6750 section 3 for Bearer).
type Challenge struct {
	// Scheme is "Bearer" or "Basic".
	Scheme string
	Realm  string
	// Error is an RFC 6750 error code, empty when the request carried no credentials.
	Error string
	// Description is a sentence for a developer (error_description).
	Description string
	// Scope lists the scopes the operation needs, space-separated (insufficient_scope only).
	Scope string
}

// String formats the challenge: the scheme, then realm, error, error_description and scope as
// quoted strings, in that order, leaving out the empty ones.
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString(c.Scheme)
	sep := " "
	param := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(quote(value))
		b.WriteByte('"')
		sep = ", "
	}
	param("realm", c.Realm)
	param("error", c.Error)
	param("error_description", c.Description)
	param("scope", c.Scope)
	return b.String()
}

// quote escapes a quoted-string's content; RFC 6750 allows no '"' or '\' in its parameter values,
// and none of ours has them, but a challenge must stay parseable whatever it is given. Control
// characters are dropped, so nothing can split the header.
func quote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// authError returns the error an AuthenticationFunc returns: an *echo.HTTPError, which the
// validator passes on as it is, holding the *Error the API's error handler renders.
func authError(status int, code, message string, challenge Challenge) *echo.HTTPError {
	h := http.Header{}
	h.Set(HeaderWWWAuthenticate, challenge.String())
	return &echo.HTTPError{Code: status, Message: message, Internal: &Error{Status: status, Code: code, Message: message, Header: h}}
}

// Unauthenticated is the answer to a request without bearer credentials: 401 UNAUTHORIZED with a
// challenge that carries no error code (RFC 6750 section 3.1).
func Unauthenticated(message string) *echo.HTTPError {
	return authError(http.StatusUnauthorized, CodeUnauthorized, message, Challenge{Scheme: "Bearer", Realm: Realm})
}

// InvalidToken is the answer to a bearer credential that is malformed, unknown, revoked, expired
// or of another environment: 401 with code (AUTH_INVALID or TOKEN_EXPIRED) and
// error="invalid_token".
func InvalidToken(code, message string) *echo.HTTPError {
	return authError(http.StatusUnauthorized, code, message,
		Challenge{Scheme: "Bearer", Realm: Realm, Error: BearerInvalidToken, Description: message})
}

// InsufficientScope is the answer to a valid credential without the scopes an operation needs:
// 403 FORBIDDEN with error="insufficient_scope" and the scopes needed, space-separated.
func InsufficientScope(message string, scopes []string) *echo.HTTPError {
	return authError(http.StatusForbidden, CodeForbidden, message,
		Challenge{Scheme: "Bearer", Realm: Realm, Error: BearerInsufficientScope, Description: message,
			Scope: strings.Join(scopes, " ")})
}

// AuthFailure is the answer when checking a credential failed for a reason that is not the
// client's (the database is unreachable, say): a 500 that logs err and shows nothing of it.
func AuthFailure(err error) *echo.HTTPError {
	return &echo.HTTPError{Code: http.StatusInternalServerError, Internal: &Error{
		Status: http.StatusInternalServerError, Code: CodeServerError, Message: messageServerError, Err: err}}
}
