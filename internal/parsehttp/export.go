package parsehttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/parsejob"
)

const (
	// exportBufferBytes is how much of a download is gathered before it goes to the client.
	exportBufferBytes = 32 << 10
	// exportFlushEvery is how many transactions are written between flushes to the client, so a
	// large download arrives steadily instead of in the buffer's rhythm only.
	exportFlushEvery = 1000
)

// exportColumns is the CSV export's header row (see the exportJob operation).
var exportColumns = []string{"id", "date", "value_date", "amount", "currency", "description", "reference",
	"counterparty_name", "counterparty_account", "balance", "type", "raw"}

// exportResponse is the 200 answer of GET /api/v1/jobs/{id}/export: the job's transactions,
// streamed from the store one batch at a time, so memory stays flat whatever the job's size. The
// generated response types would need the whole file in memory (JSON) or a reader (CSV).
//
// Nothing is sent until the first buffer is full or flushed: a failure before that (the store
// fails on the first batch, say) is an ordinary 500 envelope. After that the status line and
// part of the file are on their way, so a failure aborts the connection: the client sees a
// broken download rather than a file that looks complete but is cut short.
type exportResponse struct {
	// ctx is the request's: the store reads are cancelled when the client goes away.
	ctx    context.Context
	jobs   Jobs
	job    parsejob.Job
	format parseapi.ExportFormat
	logger *slog.Logger
}

var _ parseapi.ExportJobResponseObject = exportResponse{}

// VisitExportJobResponse writes the download.
func (r exportResponse) VisitExportJobResponse(w http.ResponseWriter) error {
	contentType, ext := "text/csv; charset=utf-8", "csv"
	if r.format == parseapi.ExportFormatJson {
		contentType, ext = "application/json", "json"
	}
	out := &commitWriter{w: w, commit: func() {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.%s"`, r.job.ID, ext))
		w.WriteHeader(http.StatusOK)
	}}
	buf := bufio.NewWriterSize(out, exportBufferBytes)
	rc := http.NewResponseController(w)
	flush := func() error {
		if err := buf.Flush(); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
	}
	each := func(fn func(parsejob.Transaction) error) error {
		return r.jobs.EachTransaction(r.ctx, r.job.ID, fn)
	}
	var err error
	if r.format == parseapi.ExportFormatJson {
		err = writeJSONExport(buf, r.job, each, flush)
	} else {
		err = writeCSVExport(buf, each, flush)
	}
	if err == nil {
		err = flush()
	}
	if err == nil {
		return nil
	}
	if !out.committed {
		// Nothing reached the client: the error handler answers with an envelope.
		return fmt.Errorf("export job %s: %w", r.job.ID, err)
	}
	attrs := []any{slog.String("request_id", httpkit.RequestID(r.ctx)), slog.String("job_id", r.job.ID.String()),
		slog.String("format", string(r.format)), slog.Int64("bytes_sent", out.written), slog.String("error", err.Error())}
	if r.ctx.Err() != nil {
		r.logger.WarnContext(r.ctx, "export aborted: the client went away", attrs...)
	} else {
		r.logger.ErrorContext(r.ctx, "export failed after the download started; aborting the connection", attrs...)
	}
	panic(http.ErrAbortHandler)
}

// commitWriter writes the status line and headers (commit) just before the first byte of the
// body, so that until then the answer can still be an error envelope.
type commitWriter struct {
	w         io.Writer
	commit    func()
	committed bool
	written   int64
}

func (c *commitWriter) Write(p []byte) (int, error) {
	if !c.committed {
		c.committed = true
		c.commit()
	}
	n, err := c.w.Write(p)
	c.written += int64(n)
	return n, err
}

// eachFunc calls fn with every transaction of a job, in statement order, until fn or the store
// fails.
type eachFunc func(fn func(parsejob.Transaction) error) error

// writeCSVExport writes the CSV export: RFC 4180 with CRLF line ends, the header row, then one
// row per transaction. Null values are empty cells; amounts are the stored decimals as they are;
// text cells are neutralised against spreadsheet formulas (csvText). flush is called every
// exportFlushEvery rows.
func writeCSVExport(w io.Writer, each eachFunc, flush func() error) error {
	cw := &csvWriter{w: w}
	cw.record(exportColumns)
	n := 0
	row := make([]string, len(exportColumns))
	err := each(func(t parsejob.Transaction) error {
		row[0] = t.ID.String()
		row[1] = t.Date.String()
		row[2] = t.ValueDate.String()
		row[3] = t.Amount.String()
		row[4] = csvText(t.Currency)
		row[5] = csvText(t.Description)
		row[6] = csvText(t.Reference)
		row[7] = csvText(t.CounterpartyName)
		row[8] = csvText(t.CounterpartyAccount)
		row[9] = ""
		if t.Balance != nil {
			row[9] = t.Balance.String()
		}
		row[10] = string(t.Type)
		row[11] = csvText(t.Raw)
		if err := cw.record(row); err != nil {
			return err
		}
		if n++; n%exportFlushEvery == 0 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return cw.err
}

// csvWriter writes RFC 4180 records with CRLF record ends. Unlike encoding/csv with UseCRLF, it
// writes a field's own line breaks as they are (inside quotes), so a cell that holds a bare
// carriage return or a lone line feed reads back unchanged.
type csvWriter struct {
	w   io.Writer
	err error
}

func (c *csvWriter) record(fields []string) error {
	for i, f := range fields {
		if i > 0 {
			c.write(",")
		}
		if f == "" || (!strings.ContainsAny(f, ",\"\r\n") && f[0] != ' ') {
			c.write(f)
			continue
		}
		c.write(`"`)
		c.write(strings.ReplaceAll(f, `"`, `""`))
		c.write(`"`)
	}
	c.write("\r\n")
	return c.err
}

func (c *csvWriter) write(s string) {
	if c.err == nil {
		_, c.err = io.WriteString(c.w, s)
	}
}

// csvText neutralises a CSV text cell that a spreadsheet would take for a formula: one that
// starts with =, +, -, @, a tab or a carriage return gets a leading single quote. So does one
// that already starts with a single quote, so that removing one leading quote from a text cell
// always gives back the original text.
func csvText(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r', '\'':
		return "'" + s
	}
	return s
}

// writeJSONExport writes the JSON export, one TransactionExport document
// {"job": ..., "transactions": [...]}, a transaction at a time, each exactly as the API's
// Transaction marshals. flush is called every exportFlushEvery transactions.
func writeJSONExport(w io.Writer, j parsejob.Job, each eachFunc, flush func() error) error {
	head, err := json.Marshal(apiJob(j))
	if err != nil {
		return fmt.Errorf("encode job: %w", err)
	}
	if err := writeAll(w, []byte(`{"job":`), head, []byte(`,"transactions":[`)); err != nil {
		return err
	}
	n := 0
	err = each(func(t parsejob.Transaction) error {
		b, err := json.Marshal(apiTransaction(t))
		if err != nil {
			return fmt.Errorf("encode transaction %s: %w", t.ID, err)
		}
		sep := []byte(",")
		if n == 0 {
			sep = nil
		}
		if err := writeAll(w, sep, b); err != nil {
			return err
		}
		if n++; n%exportFlushEvery == 0 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeAll(w, []byte("]}\n"))
}

func writeAll(w io.Writer, parts ...[]byte) error {
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}
