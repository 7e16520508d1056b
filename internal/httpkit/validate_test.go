package httpkit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

const uploadSpec = `
openapi: 3.0.3
info: {title: t, version: "1"}
components:
  securitySchemes:
    key: {type: http, scheme: bearer}
security: [{key: []}]
paths:
  /upload:
    post:
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file]
              properties:
                file: {type: string, format: binary}
      responses:
        '200': {description: ok}
`

// countingBody counts the bytes read from it.
type countingBody struct {
	r    io.Reader
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read.Add(int64(n))
	return n, err
}

func (b *countingBody) Close() error { return nil }

// TestValidatorLeavesAnUploadsBodyToTheHandler: with StreamUploads, no byte of a multipart
// upload is read before the handler runs (kin-openapi's security pass would read it all into
// memory), and the handler gets the whole body.
func TestValidatorLeavesAnUploadsBodyToTheHandler(t *testing.T) {
	spec, err := openapi3.NewLoader().LoadFromData([]byte(uploadSpec))
	require.NoError(t, err)
	authenticated := 0
	mw, err := Validator(spec, ValidatorOptions{StreamUploads: true,
		Authenticate: func(context.Context, *openapi3filter.AuthenticationInput) error { authenticated++; return nil }})
	require.NoError(t, err)

	payload := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"s.csv\"\r\n\r\n" +
		strings.Repeat("2024-01-01,x,1.00\n", 10000) + "\r\n--b--\r\n"
	body := &countingBody{r: strings.NewReader(payload)}
	var readBefore int64
	var got []byte
	e := echo.New()
	e.Use(mw)
	e.POST("/upload", func(c echo.Context) error {
		readBefore = body.read.Load()
		got, err = io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		return c.NoContent(http.StatusOK)
	})
	req := httptest.NewRequest(http.MethodPost, "/upload", body)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)

	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Zero(t, readBefore, "the validator read none of the upload")
	require.Equal(t, payload, string(got), "the handler reads all of it")
	require.Equal(t, 1, authenticated, "the credentials were checked once")
}

const jsonSpec = `
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /things:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string}
      responses:
        '200': {description: ok}
  /upload:
    post:
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                file: {type: string, format: binary}
      responses:
        '200': {description: ok}
`

// TestValidatorReadsMediaTypesAndJSONTextsAsTheRFCsDo: a media type is case-insensitive, and the
// handler sees it in lower case (its parameters untouched: a boundary is case-sensitive); a JSON
// body is one value, and data after it is refused.
func TestValidatorReadsMediaTypesAndJSONTextsAsTheRFCsDo(t *testing.T) {
	spec, err := openapi3.NewLoader().LoadFromData([]byte(jsonSpec))
	require.NoError(t, err)
	mw, err := Validator(spec, ValidatorOptions{})
	require.NoError(t, err)
	e := echo.New()
	e.Use(mw)
	var seen string
	record := func(c echo.Context) error {
		seen = c.Request().Header.Get("Content-Type")
		return c.NoContent(http.StatusOK)
	}
	e.POST("/things", record)
	e.POST("/upload", record)

	upload := "--AbC\r\nContent-Disposition: form-data; name=\"file\"; filename=\"s.csv\"\r\n\r\nx\r\n--AbC--\r\n"
	tests := []struct {
		name, path, contentType, body string
		want                          int
		wantSeen                      string
	}{
		{"JSON", "/things", "application/json", `{"name":"a"}`, http.StatusOK, "application/json"},
		{"JSON in capitals", "/things", "APPLICATION/JSON", `{"name":"a"}`, http.StatusOK, "application/json"},
		{"JSON in mixed case with a charset", "/things", "Application/Json; Charset=UTF-8", `{"name":"a"}`, http.StatusOK,
			"application/json; Charset=UTF-8"},
		{"JSON with whitespace around it", "/things", "application/json", " \n{\"name\":\"a\"}\r\n\t ", http.StatusOK, "application/json"},
		{"JSON followed by another value", "/things", "application/json", `{"name":"a"} {"name":"b"}`, http.StatusBadRequest, ""},
		{"JSON followed by garbage", "/things", "application/json", `{"name":"a"}x`, http.StatusBadRequest, ""},
		{"JSON cut short", "/things", "application/json", `{"name":"a"`, http.StatusBadRequest, ""},
		{"not JSON", "/things", "application/json", `name=a`, http.StatusBadRequest, ""},
		{"a multipart boundary keeps its case", "/upload", "Multipart/Form-Data; boundary=AbC", upload, http.StatusOK,
			"multipart/form-data; boundary=AbC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen = ""
			req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.contentType)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			require.Equal(t, tc.want, rec.Code, rec.Body.String())
			require.Equal(t, tc.wantSeen, seen)
		})
	}
}
