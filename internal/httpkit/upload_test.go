package httpkit

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	spec := FormSpec{Files: []string{"bank", "expected"}, Required: []string{"bank", "expected"}, Fields: []string{"env"}, MaxFileBytes: 10}
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
			parts: []part{{"bank", "a.csv", "0123456789X"}, {"expected", "b.csv", "x"}}, wantStatus: 413, wantCode: CodeFileTooLarge, wantMsg: "bank: file exceeds the limit of 10 bytes"},
		{name: "a missing required file is 400 naming it",
			parts: []part{{"bank", "a.csv", "x"}}, wantStatus: 400, wantCode: CodeInvalidRequest, wantMsg: "expected: required file is missing"},
		{name: "an unknown part is 400 naming it",
			parts: []part{{"bank", "a.csv", "x"}, {"other", "c.csv", "x"}}, wantStatus: 400, wantCode: CodeInvalidRequest, wantMsg: "other: unknown field"},
		{name: "a repeated part is 400",
			parts: []part{{"bank", "a.csv", "x"}, {"bank", "a.csv", "y"}}, wantStatus: 400, wantCode: CodeInvalidRequest, wantMsg: "bank: sent more than once"},
		{name: "a repeated empty field is 400",
			parts: []part{{"env", "", ""}, {"env", "", ""}}, wantStatus: 400, wantCode: CodeInvalidRequest, wantMsg: "env: sent more than once"},
		{name: "an overlong field is 400",
			parts: []part{{"env", "", strings.Repeat("p", maxFieldBytes+1)}}, wantStatus: 400, wantCode: CodeInvalidRequest, wantMsg: "env: longer than"},
		{name: "a body cut short is 400",
			raw: "--B\r\nContent-Disposition: form-data; name=\"bank\"; filename=\"a\"\r\n\r\nabc", wantStatus: 400, wantCode: CodeInvalidRequest},
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
			form, err := ReadUpload(multipart.NewReader(body, boundary), spec)
			if tt.wantStatus != 0 {
				var ce *Error
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
	r := &countingReader{r: buf}
	_, err := ReadUpload(multipart.NewReader(r, boundary), FormSpec{Files: []string{"bank", "expected"}, MaxFileBytes: 1000})
	var ce *Error
	require.True(t, errors.As(err, &ce))
	require.Equal(t, http.StatusRequestEntityTooLarge, ce.Status)
	require.Less(t, r.n, total/4, "the body is not read to its end")
}

// TestReadUploadPastTheBodyLimit checks that a body cut by http.MaxBytesReader is a 413.
func TestReadUploadPastTheBodyLimit(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	buf, boundary := multipartBody(t, []part{{"bank", "a", strings.Repeat("x", 5000)}})
	limited := http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(buf), 1000)
	_, err := ReadUpload(multipart.NewReader(limited, boundary), FormSpec{Files: []string{"bank"}, MaxFileBytes: 1 << 20})
	var ce *Error
	require.True(t, errors.As(err, &ce))
	require.Equal(t, http.StatusRequestEntityTooLarge, ce.Status)
	require.Equal(t, CodeFileTooLarge, ce.Code)
}

func TestCleanFileName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a plain name is kept", "statement 2024-03.csv", "statement 2024-03.csv"},
		{"directory parts are dropped", "../../etc/passwd", "passwd"},
		{"Windows directory parts are dropped", `C:\Users\me\st.csv`, "st.csv"},
		{"control characters are dropped", "a\x00b\x1fc\n.csv", "abc.csv"},
		{"dot names become empty", "..", ""},
		{"invalid UTF-8 is dropped", "a\xffb", "ab"},
		{"a long name is cut at a character boundary", strings.Repeat("é", 200), strings.Repeat("é", 127)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, cleanFileName(tt.in))
		})
	}
}
