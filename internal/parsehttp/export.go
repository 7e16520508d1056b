package parsehttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/sheet"
)

// exportFlushEvery is how many transactions are written between flushes to the client, so a
// large download arrives steadily instead of in the buffer's rhythm only.
const exportFlushEvery = 1000

// exportColumns is the CSV export's header row (see the exportJob operation).
var exportColumns = []string{"id", "date", "value_date", "amount", "currency", "description", "reference",
	"counterparty_name", "counterparty_account", "balance", "type", "raw"}

// exportResponse is the 200 answer of GET /api/v1/jobs/{id}/export: the job's transactions,
// streamed from the store one batch at a time (httpkit.Download), so memory stays flat whatever
// the job's size. The generated response types would need the whole file in memory (JSON) or a
// reader (CSV).
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
	each := func(fn func(parsejob.Transaction) error) error {
		return r.jobs.EachTransaction(r.ctx, r.job.ID, fn)
	}
	d := httpkit.Download{Ctx: r.ctx, Logger: r.logger, ContentType: "text/csv; charset=utf-8", Filename: r.job.ID.String() + ".csv",
		LogAttrs: []any{slog.String("job_id", r.job.ID.String()), slog.String("format", string(r.format))},
		Write:    func(w io.Writer, flush func() error) error { return writeCSVExport(w, each, flush) }}
	if r.format == parseapi.ExportFormatJson {
		d.ContentType, d.Filename = "application/json", r.job.ID.String()+".json"
		d.Write = func(w io.Writer, flush func() error) error { return writeJSONExport(w, r.job, each, flush) }
	}
	return d.Serve(w)
}

// ServeExport writes the export of job j (readable: see parsejob.Service.Export) as
// GET /api/v1/jobs/{id}/export answers it, in JSON when json is set and CSV otherwise; the
// dashboard offers the same downloads without knowing the API's types.
func ServeExport(ctx context.Context, w http.ResponseWriter, jobs Jobs, j parsejob.Job, json bool, logger *slog.Logger) error {
	format := parseapi.ExportFormatCsv
	if json {
		format = parseapi.ExportFormatJson
	}
	return exportResponse{ctx: ctx, jobs: jobs, job: j, format: format, logger: logger}.VisitExportJobResponse(w)
}

// eachFunc calls fn with every transaction of a job, in statement order, until fn or the store
// fails.
type eachFunc func(fn func(parsejob.Transaction) error) error

// writeCSVExport writes the CSV export: RFC 4180 with CRLF line ends, the header row, then one
// row per transaction. Null values are empty cells; amounts are the stored decimals as they are;
// text cells are neutralised against spreadsheet formulas (sheet.Text). flush is called every
// exportFlushEvery rows.
func writeCSVExport(w io.Writer, each eachFunc, flush func() error) error {
	cw := &sheet.CSVWriter{W: w}
	cw.Record(exportColumns)
	n := 0
	row := make([]string, len(exportColumns))
	err := each(func(t parsejob.Transaction) error {
		row[0] = t.ID.String()
		row[1] = t.Date.String()
		row[2] = t.ValueDate.String()
		row[3] = t.Amount.String()
		row[4] = sheet.Text(t.Currency)
		row[5] = sheet.Text(t.Description)
		row[6] = sheet.Text(t.Reference)
		row[7] = sheet.Text(t.CounterpartyName)
		row[8] = sheet.Text(t.CounterpartyAccount)
		row[9] = ""
		if t.Balance != nil {
			row[9] = t.Balance.String()
		}
		row[10] = string(t.Type)
		row[11] = sheet.Text(t.Raw)
		if err := cw.Record(row); err != nil {
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
	return cw.Err()
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
