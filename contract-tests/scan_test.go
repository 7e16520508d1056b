package contracttests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/internal/statement/corpus"
)

// scanDir holds the scans of the development corpus: pictures and image-only PDFs of corpus
// statements, each with its answer key.
var scanDir = filepath.Join(corpusDir, "scans")

// readScan returns a scan of the corpus with its key.
func readScan(t *testing.T, name string) ([]byte, corpus.Key) {
	t.Helper()
	path := filepath.Join(scanDir, name)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	key, err := corpus.ReadKey(path)
	require.NoError(t, err)
	return data, key
}

// waitSlowly polls a parsing job twice a second until it is finished: OCR takes seconds a
// page, and pc.wait's quick polls would run into the plan's rate limit.
func waitSlowly(t *testing.T, pc parseCaller, id uuid.UUID) parseclient.Job {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		j := pc.job(t, id)
		if j.Status != parseclient.JobStatusQueued && j.Status != parseclient.JobStatusProcessing {
			return j
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("job %s not finished after 2 minutes", id)
	return parseclient.Job{}
}

// TestScannedStatements: pictures of statements (a multi-page TIFF from a scanner, a phone
// photo) and a PDF of scanned pages are accepted by both APIs and read with OCR by the worker:
// a scan whose balances confirm every amount completes, one that they do not (a photo of the
// first page) goes to review, both with the review reason ocr; a picture that does not decode
// is refused before the 202.
func TestScannedStatements(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "Scans")
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}

	for _, tc := range []struct {
		name, file string
		format     parseclient.StatementFormat
		status     parseclient.JobStatus
	}{
		{"a scanner's multi-page TIFF whose balances confirm it completes", "us-checking-chromium-scan-300.tif",
			parseclient.StatementFormatTiff, parseclient.JobStatusCompleted},
		{"a phone photo of a statement's first page goes to review", "us-checking-chromium-photo.jpg",
			parseclient.StatementFormatJpeg, parseclient.JobStatusReview},
		{"a PDF of scanned pages is read too", "mobile-money-pdflatex-scan-150.pdf",
			parseclient.StatementFormatPdf, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, key := readScan(t, tc.file)
			j := pc.create(t, tc.file, data)
			require.Equal(t, tc.format, j.Format)
			done := waitSlowly(t, pc, j.JobId)
			if tc.status != "" {
				require.Equal(t, tc.status, done.Status, "%+v %+v", done.Error, done.ReviewReasons)
			} else {
				require.Contains(t, []parseclient.JobStatus{parseclient.JobStatusCompleted, parseclient.JobStatusReview}, done.Status,
					"%+v", done.Error)
			}
			var codes []parseclient.ReviewReasonCode
			for _, r := range done.ReviewReasons {
				codes = append(codes, r.Code)
			}
			require.Contains(t, codes, parseclient.ReviewReasonCodeOcr)
			if done.Status == parseclient.JobStatusCompleted {
				require.Equal(t, len(key.Transactions), done.TransactionsCount)
			}
		})
	}

	t.Run("a picture that does not decode is refused before the 202", func(t *testing.T) {
		r := pc.upload(t, "", "broken.png", []byte("\x89PNG\r\n\x1a\nnot a picture at all"))
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
		require.Equal(t, parseclient.ErrorCodeFileInvalid, r.JSON400.Error)
	})

	t.Run("the Reconciliation API reads a photographed bank statement", func(t *testing.T) {
		rc := s.reconCaller(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
		data, key := readScan(t, "mobile-money-pdflatex-photo.jpg")
		ct, body := jobUpload(t, "statement.jpg", data, "invoices.csv", []byte(reconExpectedCSV))
		r := rc.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
		deadline := time.Now().Add(2 * time.Minute)
		j := rc.wait(t, r.JSON202.JobId)
		for j.Status == reconclient.JobStatusProcessing && time.Now().Before(deadline) {
			j = rc.wait(t, r.JSON202.JobId)
		}
		require.Equal(t, reconclient.JobStatusCompleted, j.Status, "%+v", j.Error)
		res := rc.results(t, j.JobId)
		require.Equal(t, len(key.Transactions), res.JSON200.Summary.UnmatchedBankEntriesCount+res.JSON200.Summary.MatchedCount,
			"every line of the photographed statement was read")
	})
}
