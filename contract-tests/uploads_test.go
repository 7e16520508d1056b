package contracttests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/internal/statement/excel/exceltest"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// uploadLimit is STATEMENTD_MAX_UPLOAD_BYTES of the servers of the upload tests: small, so the
// bodies over it are quick to build and send.
const uploadLimit = 1 << 20

// uploadServer is a server whose upload files are spooled under a temporary folder of the test
// (TMPDIR), with a tenant of every credential.
type uploadServer struct {
	*server
	tmp        string
	ten        fullTenant
	reconToken string
}

func startUploadServer(t *testing.T, extraEnv ...string) *uploadServer {
	t.Helper()
	tmp := t.TempDir()
	env := append([]string{"TMPDIR=" + tmp, fmt.Sprintf("STATEMENTD_MAX_UPLOAD_BYTES=%d", uploadLimit)}, extraEnv...)
	s := startServer(t, env...)
	u := &uploadServer{server: s, tmp: tmp, ten: s.newTenant(t, "Uploads")}
	u.reconToken = s.token(t, s.ReconURL, u.ten.ClientID, u.ten.ClientSecret)
	return u
}

// uploadAPI is one of the two operations that take uploads: the Parsing API's POST /api/v1/jobs
// (one part "file") and the Reconciliation API's (parts "bank" and "expected").
type uploadAPI struct {
	name    string
	parsing bool
	base    string
	spec    *api
	cred    string
	// filePart is the part that holds the statement.
	filePart string
}

func (u *uploadServer) apis(t *testing.T) []uploadAPI {
	return []uploadAPI{
		{name: "parsing", parsing: true, base: u.ParseURL, spec: parse(t), cred: u.ten.APIKey, filePart: "file"},
		{name: "reconciliation", base: u.ReconURL, spec: recon(t), cred: u.reconToken, filePart: "bank"},
	}
}

// request returns an authenticated POST /api/v1/jobs with the body.
func (a uploadAPI) request(t *testing.T, contentType string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.base+"/api/v1/jobs", body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+a.cred)
	return req
}

// tempEntries lists everything under dir, folders included, as paths relative to it.
func tempEntries(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while walking
		}
		if err != nil {
			return err
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			names = append(names, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return names
}

// heldBody is a request body that hands out the first hold bytes of data, then blocks until it
// is closed (by the test, or heldBodyLimit after it was made): a client that stops sending in
// the middle of an upload. sent counts the bytes handed to the transport.
type heldBody struct {
	data    []byte
	hold    int
	sent    atomic.Int64
	release chan struct{}
	once    sync.Once
}

// heldBodyLimit is when a held body gives up waiting: the transport does not end a request,
// even at its client's timeout, while its body blocks.
const heldBodyLimit = 20 * time.Second

func newHeldBody(data []byte, hold int) *heldBody {
	b := &heldBody{data: data, hold: min(hold, len(data)), release: make(chan struct{})}
	time.AfterFunc(heldBodyLimit, func() { _ = b.Close() })
	return b
}

func (b *heldBody) Read(p []byte) (int, error) {
	off := int(b.sent.Load())
	if off >= b.hold {
		<-b.release
		return 0, errors.New("the test stopped sending this body")
	}
	n := copy(p, b.data[off:b.hold])
	b.sent.Add(int64(n))
	return n, nil
}

func (b *heldBody) Close() error {
	b.once.Do(func() { close(b.release) })
	return nil
}

// bigUpload is a multipart body whose statement part holds size bytes (text lines): for the
// Reconciliation API the bank part, followed by a small expected part it never gets to.
func bigUpload(t *testing.T, a uploadAPI, size int) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	p, err := w.CreateFormFile(a.filePart, "big.csv")
	require.NoError(t, err)
	line := []byte("2024-03-01,CARD PAYMENT OFFICE SUPPLIES,-42.99\n")
	for written := 0; written < size; written += len(line) {
		_, err = p.Write(line[:min(len(line), size-written)])
		require.NoError(t, err)
	}
	if !a.parsing {
		p, err := w.CreateFormFile("expected", "expected.csv")
		require.NoError(t, err)
		_, err = p.Write([]byte(reconExpectedCSV))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return w.FormDataContentType(), buf.Bytes()
}

// TestUploadOverLimitRefusedEarly (U1): an upload over the limit gets 413 FILE_TOO_LARGE in the
// API's error body while the client is still sending it. The client sends the limit and 64 KiB
// more, then stops: the answer must come without the rest, whether the body's length was
// declared (and over the body limit, or just over the file limit) or the body is chunked.
// Nothing is left in the server's temporary folder. (The 413s of TestRequestsThatBreakTheSpec,
// TestJobRequestErrors and TestParseJobRequestErrors send whole bodies: they do not show that
// the server stops reading.)
func TestUploadOverLimitRefusedEarly(t *testing.T) {
	t.Parallel()
	u := startUploadServer(t)
	const hold = uploadLimit + 64<<10
	for _, a := range u.apis(t) {
		for _, tc := range []struct {
			name     string
			size     int  // of the statement part
			declared bool // Content-Length sent; else chunked
		}{
			{name: "a declared body far over the body limit", size: 8 * uploadLimit, declared: true},
			{name: "a declared body whose file is 128 KiB over the limit", size: uploadLimit + 128<<10, declared: true},
			{name: "a chunked body of unknown length", size: 8 * uploadLimit},
		} {
			t.Run(a.name+": "+tc.name, func(t *testing.T) {
				before := tempEntries(t, u.tmp)
				ct, data := bigUpload(t, a, tc.size)
				body := newHeldBody(data, hold)
				defer body.Close()
				req := a.request(t, ct, body)
				if tc.declared {
					req.ContentLength = int64(len(data))
				} else {
					req.ContentLength = -1
				}
				start := time.Now()
				resp, err := a.spec.client(t).Do(req)
				require.NoError(t, err)
				took := time.Since(start)
				raw, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				require.NoError(t, resp.Body.Close())
				sent := body.sent.Load()
				require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "body: %s", raw)
				code, msg := errorOf(t, a.parsing, raw)
				require.Equal(t, "FILE_TOO_LARGE", code)
				require.NotEmpty(t, msg)
				require.LessOrEqual(t, sent, int64(hold), "the answer came while the client held back the rest")
				require.Less(t, sent, int64(len(data)))
				require.Less(t, took, 5*time.Second)
				require.ElementsMatch(t, before, tempEntries(t, u.tmp), "no upload file is left behind")
				t.Logf("413 after %v, %d of %d bytes sent", took.Round(time.Millisecond), sent, len(data))
			})
		}
	}
	require.Empty(t, tempEntries(t, u.tmp), "the temporary folder is empty")
	parsing, reconciliation := u.jobCounts(t)
	require.Zero(t, parsing, "no parsing job was created")
	require.Zero(t, reconciliation, "no reconciliation job was created")
	u.requireAlive(t)
}

// callers returns the two APIs' clients of the server's tenant.
func (u *uploadServer) callers(t *testing.T) (parseCaller, reconCaller) {
	return parseCaller{pc: parseClient(t, u.ParseURL), key: u.ten.APIKey},
		reconCaller{base: u.ReconURL, rc: reconClient(t, u.ReconURL), token: u.reconToken}
}

// jobCounts returns how many jobs the tenant has on each API: parsing jobs listed, and
// reconciliation jobs counted against the production quota.
func (u *uploadServer) jobCounts(t *testing.T) (parsing, reconciliation int) {
	t.Helper()
	pc, rc := u.callers(t)
	return len(pc.listed(t, nil).Jobs), rc.limits(t).JobsUsed
}

// memKiB returns the server's resident memory and its high-water mark.
func (u *uploadServer) memKiB(t *testing.T) (rss, hwm int64) {
	t.Helper()
	return procMemKiB(t, u.cmd.Process.Pid)
}

// requireAlive checks that the server process is the one started, still running, and that both
// APIs still answer: a small upload to each is accepted.
func (u *uploadServer) requireAlive(t *testing.T) {
	t.Helper()
	require.Nil(t, u.cmd.ProcessState, "statementd exited")
	require.NoError(t, u.cmd.Process.Signal(syscall.Signal(0)), "statementd is running")
	for _, base := range []string{u.ParseURL, u.ReconURL} {
		resp, err := http.Get(base + "/healthz")
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	pc, rc := u.callers(t)
	pc.create(t, "alive.csv", bankCSV(reconBankLines))
	ct, body := jobUpload(t, "alive.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
	r := rc.create(t, "", ct, body)
	require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
}

// manyParts is a multipart body of n parts: part i is named name(i), holds size bytes, and is a
// file part when file is set. first, when given, comes before them.
func manyParts(t *testing.T, n, size int, file bool, name func(i int) string, first ...uploadPart) (string, []byte) {
	t.Helper()
	parts := append([]uploadPart{}, first...)
	content := bytes.Repeat([]byte("7"), size)
	for i := range n {
		p := uploadPart{field: name(i), content: content}
		if file {
			p.fileName = fmt.Sprintf("part-%d.csv", i)
		}
		parts = append(parts, p)
	}
	return multipartUpload(t, parts...)
}

// TestUploadManyPartsForm (U1): a form of 1,001 parts, file parts or small text fields, is a 400
// INVALID_REQUEST in the API's error body (the specs' 400 answers name "several files" and
// "unknown fields"; 413 is for sizes, and these bodies are under the limits). The server stops at
// the first part it cannot take, so its memory does not grow with the form: the high-water mark
// of its resident memory grows by less than a quarter of the largest body (16 MiB). No job is
// created and nothing is left in the temporary folder.
func TestUploadManyPartsForm(t *testing.T) {
	t.Parallel()
	// An upload limit of 8 MiB: a body limit of 17 MiB, so the 16 MiB forms are read, not refused
	// for their declared length.
	u := startUploadServer(t, fmt.Sprintf("STATEMENTD_MAX_UPLOAD_BYTES=%d", 8<<20))
	const parts = 1001
	// The first request of a kind makes the server touch code and buffers it had not used yet;
	// the memory is measured over the second run of all the cases.
	var peakRSS, hwmGrowth int64
	for round := range 2 {
		_, hwmBefore := u.memKiB(t)
		stop, peak := sampleRSS(u.cmd.Process.Pid, 5*time.Millisecond)
		for _, a := range u.apis(t) {
			valid := uploadPart{field: a.filePart, fileName: "statement.csv", content: bankCSV(reconBankLines)}
			cases := []struct {
				name    string
				body    func() (string, []byte)
				message string
			}{
				{name: "1,001 file parts of the statement field, 16 KiB each", message: a.filePart + ": sent more than once",
					body: func() (string, []byte) {
						return manyParts(t, parts, 16<<10, true, func(int) string { return a.filePart })
					}},
				{name: "1,001 file parts under as many names, 16 KiB each", message: "x0: unknown field",
					body: func() (string, []byte) {
						return manyParts(t, parts, 16<<10, true, func(i int) string { return fmt.Sprintf("x%d", i) })
					}},
				{name: "1,001 small text fields", message: "f0: unknown field",
					body: func() (string, []byte) {
						return manyParts(t, parts, 8, false, func(i int) string { return fmt.Sprintf("f%d", i) })
					}},
				{name: "a valid form followed by 1,000 text fields", message: "note0: unknown field",
					body: func() (string, []byte) {
						return manyParts(t, parts-1, 8, false, func(i int) string { return fmt.Sprintf("note%d", i) }, valid,
							uploadPart{field: "expected", fileName: "expected.csv", content: []byte(reconExpectedCSV)})
					}},
			}
			for _, tc := range cases {
				if a.parsing && strings.HasPrefix(tc.name, "a valid form") {
					// The Parsing API has no "expected" part: that is the first unknown one.
					tc.message = "expected: unknown field"
				}
				t.Run(fmt.Sprintf("%s: %s (run %d)", a.name, tc.name, round+1), func(t *testing.T) {
					ct, data := tc.body()
					start := time.Now()
					resp, err := a.spec.client(t).Do(a.request(t, ct, bytes.NewReader(data)))
					require.NoError(t, err)
					raw, err := io.ReadAll(resp.Body)
					require.NoError(t, err)
					require.NoError(t, resp.Body.Close())
					require.Equal(t, http.StatusBadRequest, resp.StatusCode, "body: %s", raw)
					code, msg := errorOf(t, a.parsing, raw)
					require.Equal(t, "INVALID_REQUEST", code)
					require.Contains(t, msg, tc.message)
					if round == 1 {
						t.Logf("%d bytes: 400 after %v: %s", len(data), time.Since(start).Round(time.Millisecond), msg)
					}
				})
			}
		}
		close(stop)
		peakRSS = <-peak
		_, hwmAfter := u.memKiB(t)
		hwmGrowth = hwmAfter - hwmBefore
	}
	t.Logf("second run: peak RSS %d KiB, high-water mark grew by %d KiB", peakRSS, hwmGrowth)
	require.Less(t, hwmGrowth, int64(4<<10), "the server's memory does not grow with the form")
	require.Empty(t, tempEntries(t, u.tmp), "nothing is left in the temporary folder")
	parsing, reconciliation := u.jobCounts(t)
	require.Zero(t, parsing, "no parsing job was created")
	require.Zero(t, reconciliation, "no reconciliation job was created")
	u.requireAlive(t)
}

// TestUploadHugeHeaderBlock (U1): a request whose header block is 10 MiB, as one header or as
// 100,000, is answered by net/http itself with 431 Request Header Fields Too Large (the server
// reads at most 1 MiB of headers) or, when the client is still writing as the server hangs up,
// with the connection closed. 431 is a transport answer outside echo, so neither spec declares
// it, and its body is net/http's plain text. The server lives on and its memory does not take
// in the block.
func TestUploadHugeHeaderBlock(t *testing.T) {
	t.Parallel()
	u := startUploadServer(t)
	const block = 10 << 20
	oneHeader := "X-Pad: " + strings.Repeat("a", block) + "\r\n"
	var many strings.Builder
	for i := 0; many.Len() < block; i++ {
		fmt.Fprintf(&many, "X-Pad-%06d: %s\r\n", i, strings.Repeat("b", 86))
	}
	// The first round makes the server touch code and buffers it had not used yet; the memory is
	// measured in the second, request by request: a server that took a block in whole would grow
	// by its 10 MiB.
	var maxGrowth int64
	for round := range 2 {
		for _, a := range u.apis(t) {
			for _, tc := range []struct{ name, headers string }{
				{"one 10 MiB header", oneHeader}, {"100,000 headers of 100 bytes", many.String()},
			} {
				t.Run(fmt.Sprintf("%s: %s (run %d)", a.name, tc.name, round+1), func(t *testing.T) {
					_, hwmBefore := u.memKiB(t)
					conn, err := net.Dial("tcp", strings.TrimPrefix(a.base, "http://"))
					require.NoError(t, err)
					defer conn.Close()
					require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
					head := "POST /api/v1/jobs HTTP/1.1\r\nHost: statementd\r\nAuthorization: Bearer " + a.cred +
						"\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n" + tc.headers + "\r\n"
					written := make(chan int64, 1)
					go func() {
						n, _ := io.Copy(conn, strings.NewReader(head))
						written <- n
					}()
					start := time.Now()
					resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
					took := time.Since(start)
					if err != nil {
						// The server hung up while the request was still being written.
						require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "no answer within 30 s: %v", err)
						t.Logf("connection closed after %v without an answer: %v", took.Round(time.Millisecond), err)
					} else {
						body, _ := io.ReadAll(resp.Body)
						require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode, "body: %s", body)
						require.True(t, resp.Close, "the server closes the connection")
						t.Logf("431 after %v: %q", took.Round(time.Millisecond), body)
					}
					_ = conn.Close()
					n := <-written
					require.Less(t, n, int64(len(head)), "the server stopped reading: the block was not sent whole")
					_, hwmAfter := u.memKiB(t)
					t.Logf("%d of %d bytes sent; the high-water mark of the server's memory grew by %d KiB", n, len(head), hwmAfter-hwmBefore)
					if round == 1 {
						maxGrowth = max(maxGrowth, hwmAfter-hwmBefore)
					}
				})
			}
		}
	}
	t.Logf("the high-water mark grew by at most %d KiB for one request after the first round", maxGrowth)
	// net/http reads at most 1 MiB of headers (MaxHeaderBytes), in a line buffer that grows by
	// doubling: a few MiB of garbage per request, not the block.
	require.Less(t, maxGrowth, int64(block>>10), "no header block was taken into memory")
	u.requireAlive(t)
}

// TestUploadSlowLoris (U1): with the read timeouts set short (STATEMENTD_READ_HEADER_TIMEOUT=1s,
// STATEMENTD_READ_TIMEOUT=2s, STATEMENTD_IDLE_TIMEOUT=1s), a client that sends the headers of a
// valid upload and then its body at one byte a second has its connection closed when the read
// timeout ends, and no job is created; so does a client that sends its headers at one byte a
// second (the header timeout), one that connects and sends nothing, and an idle keep-alive
// connection. An answer sent before the close must be in the API's error body (a 400 for the
// body cut short), except net/http's own plain 400 for headers cut short, which never reaches
// the API.
func TestUploadSlowLoris(t *testing.T) {
	t.Parallel()
	const headerTimeout, readTimeout, idleTimeout = time.Second, 2 * time.Second, time.Second
	u := startUploadServer(t, "STATEMENTD_READ_HEADER_TIMEOUT=1s", "STATEMENTD_READ_TIMEOUT=2s", "STATEMENTD_IDLE_TIMEOUT=1s")

	type slowClient struct {
		name        string
		a           uploadAPI
		first, rest string
		timeout     time.Duration // the one that must close the connection
		check       func(t *testing.T, a uploadAPI, r trickled)
	}
	var clients []slowClient
	for _, a := range u.apis(t) {
		var ct string
		var data []byte
		if a.parsing {
			ct, data = fileUpload(t, "slow.csv", bankCSV(reconBankLines))
		} else {
			ct, data = jobUpload(t, "slow.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
		}
		host := strings.TrimPrefix(a.base, "http://")
		headers := fmt.Sprintf("POST /api/v1/jobs HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
			host, a.cred, ct, len(data))
		clients = append(clients,
			slowClient{name: "a body sent at one byte a second meets the read timeout", a: a, first: headers, rest: string(data), timeout: readTimeout,
				check: func(t *testing.T, a uploadAPI, r trickled) {
					if r.resp == nil {
						return
					}
					require.NoError(t, a.spec.validate(a.request(t, ct, http.NoBody), r.resp, r.body), "the answer follows the spec: %s", r.body)
					require.Equal(t, http.StatusBadRequest, r.resp.StatusCode, "body: %s", r.body)
					code, msg := errorOf(t, a.parsing, r.body)
					require.Equal(t, "INVALID_REQUEST", code)
					t.Logf("answered %d: %s", r.resp.StatusCode, msg)
				}},
			slowClient{name: "headers sent at one byte a second meet the header timeout", a: a,
				first: "POST /api/v1/jobs HTTP/1.1\r\nHost: " + host + "\r\n", rest: headers, timeout: headerTimeout,
				check: func(t *testing.T, _ uploadAPI, r trickled) {
					if r.resp == nil {
						return
					}
					// net/http's own answer, outside echo and the specs: at the timeout the part of
					// a header line already read reaches its parser as a whole line, malformed.
					require.Equal(t, http.StatusBadRequest, r.resp.StatusCode, "body: %s", r.body)
					require.True(t, r.resp.Close)
					t.Logf("net/http answered %q before closing", r.resp.Status)
				}},
			slowClient{name: "a connection that sends nothing meets the header timeout", a: a, timeout: headerTimeout,
				check: func(t *testing.T, _ uploadAPI, r trickled) { require.Nil(t, r.resp) }},
			slowClient{name: "an idle keep-alive connection meets the idle timeout", a: a,
				first: "GET /healthz HTTP/1.1\r\nHost: " + host + "\r\n\r\n", timeout: idleTimeout,
				check: func(t *testing.T, _ uploadAPI, r trickled) {
					require.NotNil(t, r.resp)
					require.Equal(t, http.StatusOK, r.resp.StatusCode)
					require.False(t, r.resp.Close, "the connection was kept alive")
				}},
		)
	}
	// The clients run side by side, then each one's outcome is checked.
	results := make([]trickled, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { results[i] = trickle(c.a.base, c.first, c.rest) })
	}
	wg.Wait()
	for i, c := range clients {
		t.Run(c.a.name+": "+c.name, func(t *testing.T) {
			r := results[i]
			require.NoError(t, r.err)
			t.Logf("closed after %v", r.took.Round(time.Millisecond))
			require.GreaterOrEqual(t, r.took, c.timeout-100*time.Millisecond)
			require.Less(t, r.took, c.timeout+1500*time.Millisecond)
			c.check(t, c.a, r)
		})
	}
	parsing, reconciliation := u.jobCounts(t)
	require.Zero(t, parsing, "no parsing job was created")
	require.Zero(t, reconciliation, "no reconciliation job was created")
	require.Empty(t, tempEntries(t, u.tmp), "nothing is left in the temporary folder")
	u.requireAlive(t)
}

// trickled is what a slow client saw: how long after its start the server closed the
// connection, and the answer it read before (nil when none came).
type trickled struct {
	took time.Duration
	resp *http.Response
	body []byte
	err  error
}

// trickle opens a connection to base, writes first at once and then rest a byte a second (the
// first of them after half a second), and returns when the server closes the connection.
func trickle(base, first, rest string) (r trickled) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return trickled{err: err}
	}
	defer conn.Close()
	if err := conn.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return trickled{err: err}
	}
	start := time.Now()
	if _, err := io.WriteString(conn, first); err != nil {
		return trickled{err: err}
	}
	closed := make(chan struct{})
	defer close(closed)
	go func() {
		// Half a second out of step with the whole-second timeouts, so that no byte is sent
		// just as the server closes the connection.
		wait := 500 * time.Millisecond
		for i := range len(rest) {
			select {
			case <-closed:
				return
			case <-time.After(wait):
			}
			if _, err := conn.Write([]byte{rest[i]}); err != nil {
				return
			}
			wait = time.Second
		}
	}()
	// A reset is the server's close too: the client may have sent another byte after it, and
	// then the kernel drops what was not read yet, the end of an answer included.
	reset := func(err error) bool { return errors.Is(err, syscall.ECONNRESET) }
	br := bufio.NewReader(conn)
	if _, err := br.Peek(1); err == nil {
		r.resp, err = http.ReadResponse(br, nil)
		if err != nil && !reset(err) {
			return trickled{err: fmt.Errorf("reading the answer: %w", err)}
		}
		if r.resp != nil {
			if r.body, err = io.ReadAll(r.resp.Body); err != nil && !reset(err) {
				return trickled{err: fmt.Errorf("reading the answer's body: %w", err)}
			}
		}
	}
	// Then the server closes the connection.
	if _, err := io.Copy(io.Discard, br); errors.Is(err, os.ErrDeadlineExceeded) {
		return trickled{err: errors.New("the connection is still open after 30 s")}
	}
	r.took = time.Since(start)
	return r
}

// typedPart is one file part of a hand-made multipart body: the Content-Disposition parameters
// are written as given (a quoted filename="..." or an RFC 2231 filename*=...), so a test can send
// names that multipart.Writer would escape.
type typedPart struct {
	field       string
	disposition string // after `form-data; name="field"; `
	contentType string
	content     []byte
}

func typedUpload(t *testing.T, parts ...typedPart) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; %s`, p.field, p.disposition))
		h.Set("Content-Type", p.contentType)
		pw, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = pw.Write(p.content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return w.FormDataContentType(), buf.Bytes()
}

// clientNameWatch looks through folders over and over while uploads run, and remembers every
// path in them whose name holds the marker that every hostile file name of TestUploadTypeConfusion
// carries: the deep folders with all they hold, the shallow ones without their subfolders. It
// also counts the upload files it sees, to show it looks often enough to see files that live only
// while an upload is being read.
type clientNameWatch struct {
	marker  string
	deep    []string
	shallow []string
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	found   map[string]bool
	spooled map[string]bool
	walks   int
}

func watchForClientNames(marker string, deep, shallow []string) *clientNameWatch {
	w := &clientNameWatch{marker: strings.ToLower(marker), deep: deep, shallow: shallow, stop: make(chan struct{}), done: make(chan struct{}),
		found: map[string]bool{}, spooled: map[string]bool{}}
	go func() {
		defer close(w.done)
		for {
			w.walk()
			select {
			case <-w.stop:
				w.walk()
				return
			default:
			}
		}
	}()
	return w
}

func (w *clientNameWatch) walk() {
	see := func(path string, deep bool) {
		name := strings.ToLower(filepath.Base(path))
		w.mu.Lock()
		defer w.mu.Unlock()
		if strings.Contains(name, w.marker) {
			w.found[path] = true
		}
		// Only in the deep folders: other servers' upload files may pass through a shared /tmp.
		if deep && strings.HasPrefix(name, "statementd-upload-") {
			w.spooled[name] = true
		}
	}
	for _, dir := range w.deep {
		_ = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
			if err == nil { // else a file removed while walking, or an unreadable folder
				see(path, true)
			}
			return nil
		})
	}
	for _, dir := range w.shallow {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			see(filepath.Join(dir, e.Name()), false)
		}
	}
	w.mu.Lock()
	w.walks++
	w.mu.Unlock()
}

// finish stops the walks and returns what they found.
func (w *clientNameWatch) finish() (found []string, spooled, walks int) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	for p := range w.found {
		found = append(found, p)
	}
	return found, len(w.spooled), w.walks
}

// TestUploadTypeConfusion (U3): the format is found from the content, never from the name or the
// part's Content-Type: a real PDF statement sent as statement.csv with Content-Type text/csv is
// read as a PDF, a workbook sent with a PDF's or a CSV's media type as a workbook, and a CSV
// named .xlsx as CSV; on both APIs the jobs complete. Hostile file names (directory parts with
// slashes or backslashes, a NUL, 300 characters) are accepted with the name cleaned as the specs
// say (base name, no control characters, at most 255 characters) and given back so; a raw NUL
// breaks the part's header and is refused with 400 INVALID_REQUEST. No file named after the
// client's name ever appears in the server's temporary folder, its data dir, its working folder
// or the folders the ../ of the names point at, while the uploads and jobs run or afterwards.
func TestUploadTypeConfusion(t *testing.T) {
	t.Parallel()
	u := startUploadServer(t)
	pc, rc := u.callers(t)
	cwd, err := os.Getwd()
	require.NoError(t, err)
	const marker = "pwned"
	// The server spools to TMPDIR and keeps state in its data dir; a name's ../ would lead from
	// those or from its working folder (the test's) to the folders above them, and /etc/cron.d/
	// is where one of the names points.
	up := func(dir string) []string { return []string{dir, filepath.Dir(dir), filepath.Dir(filepath.Dir(dir))} }
	shallow := append(append(append(up(u.tmp), up(u.DataDir)...), up(cwd)...), "/etc/cron.d")
	watch := watchForClientNames(marker, []string{u.tmp, u.DataDir}, shallow)
	statementPDF, statementXLSX, statementCSV := bankPDF(t, reconBankLines), bankXLSX(t, reconBankLines), bankCSV(reconBankLines)
	const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

	t.Run("the format comes from the content", func(t *testing.T) {
		for _, tc := range []struct {
			name, fileName, contentType string
			content                     []byte
			format                      parseclient.StatementFormat
		}{
			{"a PDF named .csv sent as text/csv", "statement.csv", "text/csv", statementPDF, parseclient.StatementFormatPdf},
			{"a workbook named .pdf sent as application/pdf", "statement.pdf", "application/pdf", statementXLSX, parseclient.StatementFormatXlsx},
			{"a workbook sent as text/csv", "statement.xlsx", "text/csv", statementXLSX, parseclient.StatementFormatXlsx},
			{"a CSV named .xlsx sent as a workbook", "statement.xlsx", xlsxType, statementCSV, parseclient.StatementFormatCsv},
		} {
			t.Run("parsing: "+tc.name, func(t *testing.T) {
				ct, body := typedUpload(t, typedPart{field: "file", disposition: fmt.Sprintf("filename=%q", tc.fileName), contentType: tc.contentType, content: tc.content})
				r := pc.post(t, "", ct, body)
				require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
				require.Equal(t, tc.format, r.JSON202.Data.Format, "the format detected at upload")
				job := pc.wait(t, r.JSON202.Data.JobId)
				require.Equal(t, parseclient.JobStatusCompleted, job.Status, "job error: %+v, review: %+v", job.Error, job.ReviewReasons)
				require.Equal(t, tc.format, job.Format)
				require.Equal(t, tc.fileName, job.FileName)
				require.Equal(t, len(reconBankLines), job.TransactionsCount)
			})
			t.Run("reconciliation: "+tc.name, func(t *testing.T) {
				ct, body := typedUpload(t,
					typedPart{field: "bank", disposition: fmt.Sprintf("filename=%q", tc.fileName), contentType: tc.contentType, content: tc.content},
					typedPart{field: "expected", disposition: `filename="expected.pdf"`, contentType: "application/pdf", content: []byte(reconExpectedCSV)})
				r := rc.create(t, "", ct, body)
				require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
				job := rc.wait(t, r.JSON202.JobId)
				require.Equal(t, reconclient.JobStatusCompleted, job.Status, "job error: %+v", job.Error)
				require.Equal(t, tc.fileName, job.BankFile)
				res := rc.results(t, r.JSON202.JobId)
				require.Equal(t, http.StatusOK, res.StatusCode(), string(res.Body))
				require.Len(t, res.JSON200.Matched, 2, "the statement was read: %s", res.Body)
			})
		}
	})

	long := marker + "-f6-" + strings.Repeat("x", 300-len(marker)-len("-f6-.csv")) + ".csv"
	require.Len(t, long, 300)
	names := []struct {
		name        string
		disposition string
		want        string // the cleaned name; "" when the upload is refused
	}{
		{"directory parts going up", `filename="../../` + marker + `-a1.csv"`, marker + "-a1.csv"},
		{"Windows directory parts going up", `filename="..\\..\\` + marker + `-b2.csv"`, marker + "-b2.csv"},
		{"an absolute path", `filename="/etc/cron.d/` + marker + `-c3"`, marker + "-c3"},
		{"a slash and a NUL, encoded as RFC 2231 allows", `filename*=UTF-8''..%2F..%2F` + marker + `-d4%00.csv`, marker + "-d4.csv"},
		{"a backslash", `filename="c:\\` + marker + `-e5.csv"`, marker + "-e5.csv"},
		{"control characters, encoded as RFC 2231 allows", `filename*=UTF-8''` + marker + `-h8%09%1B%7F.csv`, marker + "-h8.csv"},
		{"300 characters", fmt.Sprintf("filename=%q", long), long[:255]},
		{"a raw NUL, which breaks the part's header", "filename=\"" + marker + "-g7\x00.csv\"", ""},
	}
	t.Run("hostile file names", func(t *testing.T) {
		for _, tc := range names {
			t.Run("parsing: "+tc.name, func(t *testing.T) {
				ct, body := typedUpload(t, typedPart{field: "file", disposition: tc.disposition, contentType: "text/csv", content: statementCSV})
				r := pc.post(t, "", ct, body)
				if tc.want == "" {
					requireParseError(t, r.HTTPResponse, r.Body, http.StatusBadRequest, parseclient.ErrorCodeInvalidRequest)
					return
				}
				require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
				require.Equal(t, tc.want, r.JSON202.Data.FileName)
				job := pc.wait(t, r.JSON202.Data.JobId)
				require.Equal(t, parseclient.JobStatusCompleted, job.Status, "job error: %+v", job.Error)
				require.Equal(t, tc.want, job.FileName, "the stored name is the cleaned one")
				require.LessOrEqual(t, utf8.RuneCountInString(job.FileName), 255)
			})
			t.Run("reconciliation: "+tc.name, func(t *testing.T) {
				ct, body := typedUpload(t,
					typedPart{field: "bank", disposition: tc.disposition, contentType: "text/csv", content: statementCSV},
					typedPart{field: "expected", disposition: tc.disposition, contentType: "text/csv", content: []byte(reconExpectedCSV)})
				r := rc.create(t, "", ct, body)
				if tc.want == "" {
					require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
					require.Equal(t, reconclient.ErrorCodeInvalidRequest, r.JSON400.Error)
					return
				}
				require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
				job := rc.wait(t, r.JSON202.JobId)
				require.Equal(t, reconclient.JobStatusCompleted, job.Status, "job error: %+v", job.Error)
				require.Equal(t, tc.want, job.BankFile, "the stored name is the cleaned one")
				require.Equal(t, tc.want, job.ExpectedFile)
			})
		}
	})

	found, spooled, walks := watch.finish()
	t.Logf("%d looks through %d folders saw %d of the server's upload files come and go", walks, len(watch.deep)+len(watch.shallow), spooled)
	require.NotZero(t, spooled, "the looks were frequent enough to see upload files")
	require.Empty(t, found, "files named after the client's file names")
	require.Empty(t, tempEntries(t, u.tmp), "nothing is left in the temporary folder")
}

// splitServers is an API process and a separate worker process sharing one database and data
// dir: uploads are checked by the one, jobs worked by the other, so each one's memory and
// survival can be measured.
type splitServers struct {
	api    *uploadServer
	worker *server
	// workerPid is the worker's process id at the start, for checking that it never died.
	workerPid int
}

func startSplitRoles(t *testing.T) *splitServers {
	t.Helper()
	api := startUploadServer(t, "STATEMENTD_ROLE=api", "STATEMENTD_MAX_UPLOAD_BYTES=26214400")
	worker := startServer(t, "STATEMENTD_ROLE=worker", "DATABASE_URL="+api.DatabaseURL, "STATEMENTD_DATA_DIR="+api.DataDir,
		"TMPDIR="+t.TempDir())
	return &splitServers{api: api, worker: worker, workerPid: worker.cmd.Process.Pid}
}

// outcome is how a hostile upload ended: refused at upload (status 400 and the error code), or a
// job that reached a final status (with its error code when it failed).
type outcome struct {
	refused bool
	status  string // the HTTP status when refused, else the job's final status
	code    string
	message string
	took    time.Duration // from the upload to the final answer
	// transactions is the job's transaction count (Parsing API) or the bank lines it matched or
	// left unmatched (Reconciliation API), when it completed.
	transactions int
}

func (o outcome) String() string {
	what := "job " + o.status
	if o.refused {
		what = "refused " + o.status
	}
	msg := o.message
	if len(msg) > 160 {
		msg = msg[:160] + "..."
	}
	if o.status == "completed" {
		msg = fmt.Sprintf("%d transactions", o.transactions)
	}
	return fmt.Sprintf("%s %s after %v: %s", what, o.code, o.took.Round(time.Millisecond), msg)
}

// hostileUpload sends content as the statement to the API (for the Reconciliation API with a
// good expected file beside it) and follows the job to its end, for at most 30 s.
func (p *splitServers) hostileUpload(t *testing.T, a uploadAPI, name string, content []byte) outcome {
	t.Helper()
	pc, rc := p.api.callers(t)
	start := time.Now()
	if a.parsing {
		r := pc.upload(t, "", name, content)
		if r.StatusCode() != http.StatusAccepted {
			require.Equal(t, http.StatusBadRequest, r.StatusCode(), "an upload is accepted or refused as invalid: %s", r.Body)
			e := requireParseError(t, r.HTTPResponse, r.Body, http.StatusBadRequest, parseclient.ErrorCodeFileInvalid)
			return outcome{refused: true, status: "400", code: string(e.Error), message: e.Detail, took: time.Since(start)}
		}
		job := pc.waitFor(t, r.JSON202.Data.JobId, 30*time.Second)
		o := outcome{status: string(job.Status), took: time.Since(start), transactions: job.TransactionsCount}
		if job.Error != nil {
			o.code, o.message = string(job.Error.Code), job.Error.Message
		}
		return o
	}
	ct, body := jobUpload(t, name, content, "expected.csv", []byte(reconExpectedCSV))
	r := rc.create(t, "", ct, body)
	if r.StatusCode() != http.StatusAccepted {
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), "an upload is accepted or refused as invalid: %s", r.Body)
		require.Equal(t, reconclient.ErrorCodeFileInvalid, r.JSON400.Error)
		return outcome{refused: true, status: "400", code: string(r.JSON400.Error), message: r.JSON400.Detail.Message, took: time.Since(start)}
	}
	job := rc.wait(t, r.JSON202.JobId) // 30 s at most
	o := outcome{status: string(job.Status), took: time.Since(start)}
	if job.Error != nil {
		o.code, o.message = string(job.Error.Code), job.Error.Message
	}
	if job.Status == reconclient.JobStatusCompleted {
		res := rc.results(t, r.JSON202.JobId)
		require.Equal(t, http.StatusOK, res.StatusCode(), string(res.Body))
		for _, m := range res.JSON200.Matched {
			o.transactions += len(m.BankEntries)
		}
		for _, m := range res.JSON200.Partial {
			o.transactions += len(m.BankEntries)
		}
		o.transactions += len(res.JSON200.UnmatchedBankEntries)
	}
	return o
}

// requireWorkerSurvived checks that the worker is the process started, still running, and logged
// no panic; and that both processes' memory stayed under limitKiB. It reports the peaks.
func (p *splitServers) requireWorkerSurvived(t *testing.T, limitKiB int64, apiPeak, workerPeak int64) {
	t.Helper()
	require.Equal(t, p.workerPid, p.worker.cmd.Process.Pid)
	require.Nil(t, p.worker.cmd.ProcessState, "the worker exited")
	require.NoError(t, p.worker.cmd.Process.Signal(syscall.Signal(0)), "the worker is running")
	select {
	case err := <-p.worker.done:
		p.worker.done <- err
		t.Fatalf("the worker exited: %v", err)
	default:
	}
	for _, s := range []*server{p.api.server, p.worker} {
		require.NotContains(t, s.logs.String(), "panic", "no panic was logged")
	}
	_, apiHWM := procMemKiB(t, p.api.cmd.Process.Pid)
	_, workerHWM := procMemKiB(t, p.workerPid)
	t.Logf("memory: API process VmHWM %d KiB (sampled RSS peak %d KiB); worker VmHWM %d KiB (sampled RSS peak %d KiB)",
		apiHWM, apiPeak, workerHWM, workerPeak)
	require.Less(t, workerHWM, limitKiB, "the worker's peak resident memory")
	require.Less(t, apiHWM, limitKiB, "the API process's peak resident memory")
}

const (
	sheetHead = `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`
	sheetTail = `</sheetData></worksheet>`
)

// bombSheet is a worksheet of rows each padded with a MiB of white space, which XML allows
// between elements and deflate compresses at close to its best ratio (about 1:1000).
func bombSheet(t *testing.T, target uint64) ([]byte, uint64, uint32) {
	t.Helper()
	row := []byte(`<row><c><v>1</v></c></row>`)
	chunk := append(row, bytes.Repeat([]byte(" "), 1<<20-len(row))...)
	return exceltest.DeflateRepeated([]byte(sheetHead), chunk, []byte(sheetTail), target)
}

// paddedStatementSheet is the statement of reconBankLines as a worksheet of inline strings and
// numbers, with empty rows 64 KiB of white space apart after its header row, up to target bytes:
// no text runs longer than the parser allows (1 MiB), and a reader must inflate and scan all of
// it to find the transactions, which come last.
func paddedStatementSheet(t *testing.T, target uint64) ([]byte, uint64, uint32) {
	t.Helper()
	str := func(s string) string { return fmt.Sprintf(`<c t="inlineStr"><is><t>%s</t></is></c>`, s) }
	head := sheetHead + `<row>` + str("Date") + str("Description") + str("Amount") + `</row>`
	var tail strings.Builder
	for _, l := range reconBankLines {
		fmt.Fprintf(&tail, `<row>%s%s<c><v>%s</v></c></row>`, str(l.date), str(l.text), l.amount)
	}
	chunk := append([]byte(`<row/>`), bytes.Repeat([]byte(" "), 64<<10-len(`<row/>`))...)
	return exceltest.DeflateRepeated([]byte(head), chunk, []byte(tail.String()+sheetTail), target)
}

// workbookWith is a real workbook (the statement of reconBankLines) whose first sheet is the raw
// deflate data, declared to expand to declared bytes, followed by extra empty entries.
func workbookWith(t *testing.T, deflated []byte, declared uint64, crc uint32, extra int) []byte {
	t.Helper()
	book, err := exceltest.ReplaceSheet(bankXLSX(t, reconBankLines), deflated, declared, crc, extra)
	require.NoError(t, err)
	return book
}

// TestChaosXLSXZipBomb (U2): workbooks built to exhaust memory, uploaded to both APIs of an API
// process whose jobs a separate worker process works: a sheet of about 500 KB that inflates to
// 512 MiB (its size declared honestly), a workbook of 20,000 entries, and the 512 MiB sheet
// declaring 4 KiB or 200 MiB (smaller than it is: the lie shows only while it is read). Each
// ends refused with 400 FILE_INVALID or as a failed job with a reason (resource_limit or
// file_corrupt; the Reconciliation API's FILE_TOO_LARGE or FILE_INVALID), within 30 s. A real
// statement whose rows are 250 MiB of white space apart, just under the 256 MiB limit, must be
// inflated and scanned whole by both processes: it ends completed, or refused or failed the
// same way. The worker process is the
// same one at the end and logged no panic, and the peak resident memory (VmHWM) of the worker
// and of the API process, which checks workbooks before accepting them, stays under 128 MiB.
func TestChaosXLSXZipBomb(t *testing.T) {
	chaos(t)
	p := startSplitRoles(t)
	apiStop, apiPeak := sampleRSS(p.api.cmd.Process.Pid, 5*time.Millisecond)
	workerStop, workerPeak := sampleRSS(p.workerPid, 5*time.Millisecond)

	bomb, size, crc := bombSheet(t, 512<<20)
	padded, paddedSize, paddedCRC := paddedStatementSheet(t, 250<<20)
	require.Less(t, paddedSize, uint64(256<<20), "under the default limit of what a workbook may expand to")
	books := []struct {
		name string
		data []byte
		// readable: the workbook is a real statement within the limits, so a completed job is
		// right too.
		readable bool
	}{
		{name: "a 512 MiB sheet, declared honestly", data: workbookWith(t, bomb, size, crc, 0)},
		{name: "20,000 entries", data: workbookWith(t, nil, 0, 0, 20000)},
		{name: "a 512 MiB sheet declaring 4 KiB", data: workbookWith(t, bomb, 4096, crc, 0)},
		{name: "a 512 MiB sheet declaring 200 MiB", data: workbookWith(t, bomb, 200<<20, crc, 0)},
		{name: "a statement padded to 250 MiB, under the 256 MiB limit", data: workbookWith(t, padded, paddedSize, paddedCRC, 0), readable: true},
	}
	for _, a := range p.api.apis(t) {
		for _, b := range books {
			t.Run(a.name+": "+b.name, func(t *testing.T) {
				o := p.hostileUpload(t, a, "bomb.xlsx", b.data)
				t.Logf("%d KiB upload: %s", len(b.data)>>10, o)
				require.Less(t, o.took, 30*time.Second)
				if o.refused {
					return // 400 FILE_INVALID, checked by hostileUpload
				}
				if b.readable && o.status == "completed" {
					require.Equal(t, len(reconBankLines), o.transactions, "the whole sheet was read")
					return
				}
				require.Equal(t, "failed", o.status, "a bomb is never read as a statement")
				if a.parsing {
					require.Contains(t, []string{"resource_limit", "file_corrupt"}, o.code)
				} else {
					require.Contains(t, []string{"FILE_TOO_LARGE", "FILE_INVALID"}, o.code)
				}
			})
		}
	}
	close(apiStop)
	close(workerStop)
	p.requireWorkerSurvived(t, 128<<10, <-apiPeak, <-workerPeak)
	require.Empty(t, tempEntries(t, p.api.tmp), "nothing is left in the API process's temporary folder")
	p.api.requireAlive(t)
}

// fuzzCorpusInputs reads the []byte inputs of a fuzz test's committed corpus (the crashers and
// seeds in testdata/fuzz), by file name.
func fuzzCorpusInputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	inputs := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		require.Equal(t, "go test fuzz v1", lines[0], e.Name())
		for _, l := range lines[1:] {
			quoted, ok := strings.CutPrefix(l, "[]byte(")
			if !ok {
				continue
			}
			s, err := strconv.Unquote(strings.TrimSuffix(quoted, ")"))
			require.NoError(t, err, e.Name())
			inputs[e.Name()] = []byte(s)
		}
	}
	return inputs
}

// TestChaosPDFCrashCorpus (U4): damaged and hostile PDFs uploaded to both APIs of an API process
// whose jobs a separate worker works: a real statement cut in half, its content stream's /Length
// lying upwards and downwards, its cross-reference table claiming 100 million entries, an xref
// stream claiming two billion, arrays nested 100,000 deep and dictionaries 50,000 deep, a page
// tree 3,000 levels deep, and the inputs committed to the PDF parser's fuzz corpus. Each upload
// is refused with 400 FILE_INVALID or its job ends within 30 s: failed with an error code, or,
// where the damage leaves the statement readable, completed with all its transactions. The
// worker process never dies (its pid is unchanged) and the peak resident memory of it and of the
// API process stays under 128 MiB.
func TestChaosPDFCrashCorpus(t *testing.T) {
	chaos(t)
	p := startSplitRoles(t)
	apiStop, apiPeak := sampleRSS(p.api.cmd.Process.Pid, 5*time.Millisecond)
	workerStop, workerPeak := sampleRSS(p.workerPid, 5*time.Millisecond)

	statement := bankPDF(t, reconBankLines)
	lengthRE := regexp.MustCompile(`/Length \d+`)
	require.True(t, lengthRE.Match(statement))
	withLength := func(n string) []byte {
		done := false
		return lengthRE.ReplaceAllFunc(statement, func(m []byte) []byte {
			if done {
				return m
			}
			done = true
			return []byte("/Length " + n)
		})
	}
	xrefRE := regexp.MustCompile(`xref\n0 \d+\n`)
	require.True(t, xrefRE.Match(statement))
	page := "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	text := "BT /F1 10 Tf 50 700 Td (Date) Tj 100 0 Td (Description) Tj 200 0 Td (Amount) Tj ET"
	content := fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(text), text)
	xrefStream := func() []byte {
		body := pdftest.Raw("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, content)
		i := bytes.Index(body, []byte("xref\n"))
		data := pdftest.Deflate(make([]byte, 70))
		out := append([]byte(nil), body[:i]...)
		start := len(out)
		out = fmt.Appendf(out, "6 0 obj\n<< /Type /XRef /Size 2147483647 /Index [0 2147483647] /W [1 4 2] /Root 1 0 R /Length %d /Filter /FlateDecode >>\nstream\n", len(data))
		out = append(out, data...)
		return fmt.Appendf(out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)
	}()
	deepTree := func() []byte {
		objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
		for i := 2; i < 3000; i++ {
			objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] >>", i+1))
		}
		return pdftest.Raw(objs...)
	}()
	files := []struct {
		name string
		data []byte
		// readable: the damage leaves the statement whole, so a completed job is right too.
		readable bool
	}{
		{name: "a statement cut in half", data: statement[:len(statement)/2]},
		{name: "a statement whose /Length points past the file", data: withLength("99999999"), readable: true},
		{name: "a statement whose /Length is too short", data: withLength("10"), readable: true},
		{name: "a statement whose xref claims 100 million entries", data: xrefRE.ReplaceAll(statement, []byte("xref\n0 100000000\n")), readable: true},
		{name: "an xref stream claiming two billion entries", data: xrefStream},
		{name: "arrays nested 100,000 deep", data: pdftest.Raw("<< /Type /Catalog /Pages 2 0 R /Deep "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+" >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, content)},
		{name: "dictionaries nested 50,000 deep", data: pdftest.Raw("<< /Type /Catalog /Pages 2 0 R /Deep "+strings.Repeat("<< /A ", 50000)+strings.Repeat(">> ", 50000)+" >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, content)},
		{name: "an unterminated array 100,000 deep", data: pdftest.Raw("<< /Type /Catalog /Pages 2 0 R /Deep "+strings.Repeat("[", 100000)+" >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, content)},
		{name: "a page tree 3,000 levels deep", data: deepTree},
	}
	corpus := fuzzCorpusInputs(t, filepath.Join("..", "internal", "statement", "pdf", "testdata", "fuzz", "FuzzPDFExtract"))
	require.NotEmpty(t, corpus, "the PDF parser's fuzz corpus")
	for name, data := range corpus {
		files = append(files, struct {
			name     string
			data     []byte
			readable bool
		}{name: "fuzz corpus " + name, data: data, readable: true})
	}
	for _, a := range p.api.apis(t) {
		for _, f := range files {
			t.Run(a.name+": "+f.name, func(t *testing.T) {
				o := p.hostileUpload(t, a, "statement.pdf", f.data)
				t.Logf("%d KiB upload: %s", (len(f.data)+1023)>>10, o)
				require.Less(t, o.took, 30*time.Second)
				switch {
				case o.refused:
					// 400 FILE_INVALID, checked by hostileUpload
				case o.status == "failed":
					require.NotEmpty(t, o.code, "a failed job says why")
					require.NotContains(t, []string{"internal_error", "SERVER_ERROR"}, o.code, "a damaged file is not the server's fault")
				default:
					require.True(t, f.readable, "a job of an unreadable file must fail, not end %s", o.status)
					require.Equal(t, "completed", o.status)
					if strings.HasPrefix(f.name, "a statement") {
						require.Equal(t, len(reconBankLines), o.transactions, "the statement was read whole")
					}
				}
			})
		}
	}
	close(apiStop)
	close(workerStop)
	p.requireWorkerSurvived(t, 128<<10, <-apiPeak, <-workerPeak)
	require.Empty(t, tempEntries(t, p.api.tmp), "nothing is left in the API process's temporary folder")
	p.api.requireAlive(t)
}
