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
