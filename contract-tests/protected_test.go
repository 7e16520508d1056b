package contracttests

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	pdfapi "github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/internal/statement/corpus"
)

// protect encrypts the corpus statement name with a user password (AES-256), as banks send
// statements, and returns it with its answer key.
func protect(t *testing.T, name, password string) ([]byte, corpus.Key) {
	t.Helper()
	path := filepath.Join(corpusDir, name+".pdf")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	key, err := corpus.ReadKey(path)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, pdfapi.Encrypt(bytes.NewReader(data), &out, model.NewAESConfiguration(password, password+"-owner", 256)))
	return out.Bytes(), key
}

// secretWord is a random password that nothing else in a test could contain by chance.
func secretWord(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 12)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return prefix + hex.EncodeToString(b)
}

// TestProtectedStatements: a PDF protected by a password is read through both APIs when the
// password comes in the password field, and refused before the 202, saying why, without one or
// with a wrong one. The password is part of what an Idempotency-Key identifies. It is then
// forgotten: no log line, answer, database row or temporary file of the server holds it, nor
// the wrong one tried; the statement is stored decrypted but sealed.
func TestProtectedStatements(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	s := startServer(t, "TMPDIR="+tmp)
	ten := s.newTenant(t, "Protected")
	password, wrong := secretWord(t, "pw-"), secretWord(t, "wrong-")
	data, key := protect(t, "us-checking-chromium", password)

	var answers []string // every answer body, searched for the passwords at the end
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	parseUpload := func(idemKey string, fields ...string) *parseclient.CreateJobResponse {
		parts := []uploadPart{{field: "file", fileName: "statement.pdf", content: data}}
		for i := 0; i+1 < len(fields); i += 2 {
			parts = append(parts, uploadPart{field: fields[i], content: []byte(fields[i+1])})
		}
		ct, body := multipartUpload(t, parts...)
		r := pc.post(t, idemKey, ct, body)
		answers = append(answers, string(r.Body))
		return r
	}

	t.Run("the Parsing API asks for the password", func(t *testing.T) {
		r := parseUpload("")
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
		require.Equal(t, parseclient.ErrorCodeFileInvalid, r.JSON400.Error)
		require.Contains(t, r.JSON400.Detail, "protected by a password: send it in the `password` field")
	})
	t.Run("the Parsing API says a wrong password is wrong", func(t *testing.T) {
		r := parseUpload("", "password", wrong)
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
		require.Contains(t, r.JSON400.Detail, "the password does not open this PDF")
	})
	idemKey := secretWord(t, "key-")
	var parsed parseclient.Job
	t.Run("the Parsing API reads the statement with its password", func(t *testing.T) {
		r := parseUpload(idemKey, "password", password)
		require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
		parsed = pc.wait(t, r.JSON202.Data.JobId)
		require.Equal(t, parseclient.JobStatusCompleted, parsed.Status, "%+v %+v", parsed.Error, parsed.ReviewReasons)
		require.Equal(t, len(key.Transactions), parsed.TransactionsCount)
	})
	t.Run("the password is part of the idempotent request", func(t *testing.T) {
		r := parseUpload(idemKey, "password", wrong)
		require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode(), string(r.Body))
		r = parseUpload(idemKey, "password", password)
		require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
		require.Equal(t, "true", r.HTTPResponse.Header.Get("Idempotent-Replayed"))
		require.Equal(t, parsed.JobId, r.JSON202.Data.JobId)
	})

	rc := s.reconCaller(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
	reconUpload := func(fields ...string) *reconclient.CreateJobResponse {
		ct, body := jobUpload(t, "statement.pdf", data, "invoices.csv", []byte(reconExpectedCSV), fields...)
		r := rc.create(t, "", ct, body)
		answers = append(answers, string(r.Body))
		return r
	}
	t.Run("the Reconciliation API asks for the bank statement's password", func(t *testing.T) {
		r := reconUpload()
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
		require.Equal(t, reconclient.ErrorCodeFileInvalid, r.JSON400.Error)
		require.Contains(t, r.JSON400.Detail.Message, "bank: ")
		require.Contains(t, r.JSON400.Detail.Message, "send it in the `password` field")
		r = reconUpload("password", wrong)
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
		require.Contains(t, r.JSON400.Detail.Message, "the password does not open this PDF")
	})
	t.Run("the Reconciliation API reads the bank statement with its password", func(t *testing.T) {
		r := reconUpload("password", password)
		require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
		j := rc.wait(t, r.JSON202.JobId)
		require.Equal(t, reconclient.JobStatusCompleted, j.Status, "%+v", j.Error)
		res := rc.results(t, j.JobId)
		require.Equal(t, http.StatusOK, res.StatusCode())
		require.Positive(t, res.JSON200.Summary.UnmatchedBankEntriesCount, "the statement's lines were read")
	})

	t.Run("the password is kept nowhere", func(t *testing.T) {
		needles := []string{password, wrong, hex.EncodeToString([]byte(password)), hex.EncodeToString([]byte(wrong))}
		logs := s.logs.String()
		require.NotEmpty(t, logs)
		for _, n := range needles {
			require.NotContains(t, logs, n, "the server's log")
			for _, a := range answers {
				require.NotContains(t, a, n, "an answer")
			}
		}

		db, err := sqlx.Open("pgx", s.DatabaseURL)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		var tables []string
		require.NoError(t, db.SelectContext(t.Context(), &tables, `SELECT table_name FROM information_schema.tables
			WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`))
		require.Contains(t, tables, "upload_chunks")
		var dump strings.Builder
		for _, table := range tables {
			var rows []string
			require.NoError(t, db.SelectContext(t.Context(), &rows, `SELECT row_to_json(t)::text FROM "`+table+`" t`))
			for _, r := range rows {
				dump.WriteString(r)
			}
		}
		all := strings.ToLower(dump.String())
		require.Contains(t, all, strings.ToLower(idemKey), "the dump holds the rows the test wrote")
		for _, n := range needles {
			require.NotContains(t, all, strings.ToLower(n), "the database")
		}
		var sealed int
		require.NoError(t, db.GetContext(t.Context(), &sealed, `SELECT count(*) FROM uploads WHERE sealed`))
		require.Equal(t, 2, sealed, "both protected statements are stored sealed")

		require.NoError(t, filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil // a file removed while the walk ran
			}
			for _, n := range needles[:2] {
				require.False(t, bytes.Contains(b, []byte(n)), "temporary file %s holds the password", path)
			}
			return nil
		}))
	})
}
