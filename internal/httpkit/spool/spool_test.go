package spool

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/httpkit"
)

type part struct {
	name, file, content string
}

// multipartBody returns a multipart body of the parts and its boundary.
func multipartBody(t *testing.T, parts []part) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := `form-data; name="` + p.name + `"`
		if p.file != "" {
			disp += `; filename="` + p.file + `"`
		}
		h.Set("Content-Disposition", disp)
		pw, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = io.WriteString(pw, p.content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return &buf, w.Boundary()
}

func TestReadUpload(t *testing.T) {
	spec := FormSpec{Files: []string{"bank", "expected"}, Required: []string{"bank", "expected"}, Fields: []string{"env", "password"},
		MaxFileBytes: 10, MaxFieldChars: map[string]int{"password": 4}}
	tests := []struct {
		name       string
		parts      []part
		raw        string // a body used instead of parts
		wantStatus int
		wantCode   string
		wantMsg    string
		check      func(t *testing.T, f *Form)
	}{
		{name: "two files and a field are read with their names, sizes and digests",
			parts: []part{{"bank", "dir/stmt.csv", "0123456789"}, {"expected", "exp.csv", "abc"}, {"env", "", "sandbox"}},
			check: func(t *testing.T, f *Form) {
				require.Equal(t, "stmt.csv", f.Files["bank"].Name, "directory parts are dropped")
				require.EqualValues(t, 10, f.Files["bank"].Size)
				require.Equal(t, sha256.Sum256([]byte("abc")), f.Files["expected"].SHA256)
				require.Equal(t, "sandbox", f.Fields["env"])
				r, err := f.Files["bank"].Open()
				require.NoError(t, err)
				defer r.Close()
				b, err := io.ReadAll(r)
				require.NoError(t, err)
				require.Equal(t, "0123456789", string(b))
			}},
		{name: "a file one byte over the limit is 413 naming the field",
			parts: []part{{"bank", "a.csv", "0123456789X"}, {"expected", "b.csv", "x"}}, wantStatus: 413, wantCode: httpkit.CodeFileTooLarge, wantMsg: "bank: file exceeds the limit of 10 bytes"},
		{name: "a missing required file is 400 naming it",
			parts: []part{{"bank", "a.csv", "x"}}, wantStatus: 400, wantCode: httpkit.CodeInvalidRequest, wantMsg: "expected: required file is missing"},
		{name: "an unknown part is 400 naming it",
			parts: []part{{"bank", "a.csv", "x"}, {"other", "c.csv", "x"}}, wantStatus: 400, wantCode: httpkit.CodeInvalidRequest, wantMsg: "other: unknown field"},
		{name: "a repeated part is 400",
			parts: []part{{"bank", "a.csv", "x"}, {"bank", "a.csv", "y"}}, wantStatus: 400, wantCode: httpkit.CodeInvalidRequest, wantMsg: "bank: sent more than once"},
		{name: "a repeated empty field is 400",
			parts: []part{{"env", "", ""}, {"env", "", ""}}, wantStatus: 400, wantCode: httpkit.CodeInvalidRequest, wantMsg: "env: sent more than once"},
		{name: "an overlong field is 400",
			parts: []part{{"env", "", strings.Repeat("p", maxFieldBytes+1)}}, wantStatus: 400, wantCode: httpkit.CodeInvalidRequest, wantMsg: "env: longer than"},
		{name: "a field longer in characters than its limit is refused",
			parts: []part{{"password", "", "ééééé"}}, wantStatus: 400, wantCode: httpkit.CodeInvalidRequest, wantMsg: "password: longer than 4 characters"},
		{name: "a field as long as its limit in characters is read, whatever its bytes",
			parts: []part{{"bank", "b.csv", "x"}, {"expected", "e.csv", "y"}, {"password", "", "éééé"}},
			check: func(t *testing.T, f *Form) { require.Equal(t, "éééé", f.Fields["password"]) }},
		{name: "a body cut short is 400",
			raw: "--B\r\nContent-Disposition: form-data; name=\"bank\"; filename=\"a\"\r\n\r\nabc", wantStatus: 400, wantCode: httpkit.CodeInvalidRequest},
		{name: "control characters and long names are cleaned from file names",
			parts: []part{{"bank", "ab" + strings.Repeat("é", 200) + ".csv", "x"}, {"expected", "..", "y"}},
			check: func(t *testing.T, f *Form) {
				require.True(t, strings.HasPrefix(f.Files["bank"].Name, "abé"))
				require.LessOrEqual(t, len(f.Files["bank"].Name), 255)
				require.Equal(t, "", f.Files["expected"].Name)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			var (
				body     io.Reader
				boundary = "B"
			)
			if tt.raw != "" {
				body = strings.NewReader(tt.raw)
			} else {
				var buf *bytes.Buffer
				buf, boundary = multipartBody(t, tt.parts)
				body = buf
			}
			form, err := Read(multipart.NewReader(body, boundary), spec)
			if tt.wantStatus != 0 {
				var ce *httpkit.Error
				require.True(t, errors.As(err, &ce), "got %v", err)
				require.Equal(t, tt.wantStatus, ce.Status)
				require.Equal(t, tt.wantCode, ce.Code)
				require.Contains(t, ce.Message, tt.wantMsg)
				require.Nil(t, form)
				left, _ := filepath.Glob(filepath.Join(tmp, "*"))
				require.Empty(t, left, "a refused upload leaves no file behind")
				return
			}
			require.NoError(t, err)
			tt.check(t, form)
			form.Remove()
			left, _ := filepath.Glob(filepath.Join(tmp, "*"))
			require.Empty(t, left, "Remove deletes the spooled files")
		})
	}
}

// TestReadUploadStopsAtTheLimit checks that a file over the limit is refused without reading
// the rest of the body.
func TestReadUploadStopsAtTheLimit(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	big := strings.Repeat("x", 1<<20)
	buf, boundary := multipartBody(t, []part{{"bank", "a", big}, {"expected", "b", big}})
	total := buf.Len()
	_, err := Read(multipart.NewReader(buf, boundary), FormSpec{Files: []string{"bank", "expected"}, MaxFileBytes: 1000})
	var ce *httpkit.Error
	require.True(t, errors.As(err, &ce))
	require.Equal(t, http.StatusRequestEntityTooLarge, ce.Status)
	read := total - buf.Len() // a bytes.Buffer drops what was read from it
	require.Less(t, read, total/4, "the body is not read to its end")
}

// TestReadUploadPastTheBodyLimit checks that a body cut by http.MaxBytesReader is a 413.
func TestReadUploadPastTheBodyLimit(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	buf, boundary := multipartBody(t, []part{{"bank", "a", strings.Repeat("x", 5000)}})
	limited := http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(buf), 1000)
	_, err := Read(multipart.NewReader(limited, boundary), FormSpec{Files: []string{"bank"}, MaxFileBytes: 1 << 20})
	var ce *httpkit.Error
	require.True(t, errors.As(err, &ce))
	require.Equal(t, http.StatusRequestEntityTooLarge, ce.Status)
	require.Equal(t, httpkit.CodeFileTooLarge, ce.Code)
}

func TestCleanFileName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a plain name is kept", "statement 2024-03.csv", "statement 2024-03.csv"},
		{"directory parts are dropped", "../../etc/passwd", "passwd"},
		{"Windows directory parts are dropped", `C:\Users\me\st.csv`, "st.csv"},
		{"control characters are dropped", "a\x00b\x1fc\n.csv", "abc.csv"},
		{"dot names become empty", "..", ""},
		{"invalid UTF-8 is dropped", "a\xffb", "ab"},
		{"bidirectional controls are dropped, so a name shows as it is", "\u202egpj.csv", "gpj.csv"},
		{"every kind of them", "a\u200eb\u200fc\u202ad\u2066e\u2069f\u061cg.csv", "abcdefg.csv"},
		{"a long name is cut at a character boundary", strings.Repeat("é", 200), strings.Repeat("é", 127)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, cleanFileName(tt.in))
		})
	}
}

// TestReadUploadEarlyRefusalClosesTheConnection checks which refusals close the connection: the
// ones decided before the body's end, whose rest is never read. A refusal after the whole body
// was read keeps it.
func TestReadUploadEarlyRefusalClosesTheConnection(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	spec := FormSpec{Files: []string{"bank", "expected"}, Required: []string{"bank", "expected"}, MaxFileBytes: 10}
	for _, tt := range []struct {
		name   string
		parts  []part
		status int
		closes bool
	}{
		{"a file over the limit", []part{{"bank", "a", "0123456789X"}, {"expected", "b", "x"}}, 413, true},
		{"an unknown part", []part{{"other", "a", "x"}, {"bank", "a", "x"}, {"expected", "b", "x"}}, 400, true},
		{"a repeated part", []part{{"bank", "a", "x"}, {"bank", "a", "x"}, {"expected", "b", "x"}}, 400, true},
		{"a missing file, known at the end", []part{{"bank", "a", "x"}}, 400, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			buf, boundary := multipartBody(t, tt.parts)
			_, err := Read(multipart.NewReader(buf, boundary), spec)
			var ce *httpkit.Error
			require.True(t, errors.As(err, &ce), "got %v", err)
			require.Equal(t, tt.status, ce.Status)
			if tt.closes {
				require.Equal(t, "close", ce.Header.Get("Connection"))
			} else {
				require.Empty(t, ce.Header.Get("Connection"))
			}
		})
	}
	require.Equal(t, "close", httpkit.TooLarge(nil).Header.Get("Connection"), "a body over the body limit is never read further")
}

// TestEarlyRefusalReachesAPausedClient runs a real server: a client streams an upload with no
// declared length, sends more than the file limit and then waits for the answer without sending
// the rest. Without Connection: close on the refusal, net/http would first try to read up to
// 256 KiB more of the body, and the 413 would come only at the read timeout.
func TestEarlyRefusalReachesAPausedClient(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	e := echo.New()
	e.HTTPErrorHandler = httpkit.ErrorHandler(slog.New(slog.DiscardHandler), func(c echo.Context, ce *httpkit.Error) error {
		return c.JSON(ce.Status, map[string]string{"error": ce.Code})
	}, nil)
	e.Use(httpkit.BodyLimit(1 << 20))
	e.POST("/upload", func(c echo.Context) error {
		mr, err := c.Request().MultipartReader()
		if err != nil {
			return err
		}
		form, err := Read(mr, FormSpec{Files: []string{"file"}, MaxFileBytes: 1000})
		if err != nil {
			return err
		}
		form.Remove()
		return c.NoContent(http.StatusNoContent)
	})
	srv := httptest.NewServer(e)
	defer srv.Close()

	pr, pw := io.Pipe()
	defer pw.Close()
	mw := multipart.NewWriter(pw)
	go func() {
		p, err := mw.CreateFormFile("file", "a.csv")
		if err == nil {
			_, _ = p.Write(bytes.Repeat([]byte("x"), 64<<10)) // returns once the server has read it
		}
		// ...and then nothing more until the test ends.
	}()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/upload", pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := srv.Client().Do(req)
		done <- result{resp, err}
	}()
	select {
	case r := <-done:
		require.NoError(t, r.err)
		defer r.resp.Body.Close()
		require.Equal(t, http.StatusRequestEntityTooLarge, r.resp.StatusCode)
		require.True(t, r.resp.Close, "the server closes the connection after the answer")
	case <-time.After(5 * time.Second):
		_ = pw.CloseWithError(errors.New("test timed out")) // lets the transport return
		t.Fatal("no answer while the client waited with the rest of the body unsent")
	}
}
