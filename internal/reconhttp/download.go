package reconhttp

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/sheet"
)

// resultsDownload is the 200 answer of GET /api/v1/jobs/{job_id}/results?format=csv|xlsx: the
// stored results document, read a part at a time and decoded an item at a time, written as
// spreadsheet rows as it goes (httpkit.Download), so memory stays flat whatever the job's size.
type resultsDownload struct {
	ctx    context.Context
	job    reconjob.Job
	doc    io.Reader
	format reconapi.ResultsFormat
	logger *slog.Logger
}

var _ reconapi.GetJobResultsResponseObject = resultsDownload{}

// VisitGetJobResultsResponse writes the download.
func (r resultsDownload) VisitGetJobResultsResponse(w http.ResponseWriter) error {
	d := httpkit.Download{Ctx: r.ctx, Logger: r.logger, ContentType: "text/csv; charset=utf-8",
		Filename: "results-" + r.job.ID.String() + ".csv",
		LogAttrs: []any{slog.String("job_id", r.job.ID.String()), slog.String("format", string(r.format))},
		Write: func(w io.Writer, flush func() error) error {
			t, err := sheet.NewCSV(w, reconjob.ResultsColumns)
			if err != nil {
				return err
			}
			return reconjob.WriteResults(r.doc, t, flush)
		}}
	if r.format == reconapi.ResultsFormatXlsx {
		d.ContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		d.Filename = "results-" + r.job.ID.String() + ".xlsx"
		d.Write = func(w io.Writer, _ func() error) error {
			// A workbook is a zip archive written whole at the end (Close): rows gather in
			// the stream writer, spilling to a temporary file, until then.
			t, err := sheet.NewXLSX(w, "Results", reconjob.ResultsColumns)
			if err != nil {
				return err
			}
			return reconjob.WriteResults(r.doc, t, func() error { return r.ctx.Err() })
		}
	}
	return d.Serve(w)
}
