package httpkit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
)

// downloadBufferBytes is how much of a download is gathered before it goes to the client.
const downloadBufferBytes = 32 << 10

// Download is a file answer streamed as it is written, so that memory stays flat whatever the
// file's size.
//
// Nothing is sent until the first buffer is full or flushed: a failure before that is returned
// by Serve, for the error handler to answer with an ordinary error body. After that the status
// line and part of the file are on their way, so a failure aborts the connection: the client
// sees a broken download rather than a file that looks complete but is cut short.
type Download struct {
	// Ctx is the request's: Write should stop when the client goes away.
	Ctx    context.Context
	Logger *slog.Logger
	// ContentType and Filename make the Content-Type and Content-Disposition headers.
	ContentType, Filename string
	// Write writes the file to w, calling flush now and then so that a large file arrives
	// steadily rather than only as the buffer fills.
	Write func(w io.Writer, flush func() error) error
	// LogAttrs describe the download in the log line of a failure (a job id, a format).
	LogAttrs []any
}

// Serve writes the download to w: status 200 and the file, or an error before anything was
// sent, or an aborted connection (http.ErrAbortHandler) after.
func (d Download) Serve(w http.ResponseWriter) error {
	out := &commitWriter{w: w, commit: func() {
		h := w.Header()
		h.Set("Content-Type", d.ContentType)
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, d.Filename))
		w.WriteHeader(http.StatusOK)
	}}
	buf := bufio.NewWriterSize(out, downloadBufferBytes)
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
	err := d.Write(buf, flush)
	if err == nil {
		err = flush()
	}
	if err == nil {
		return nil
	}
	if !out.committed {
		// Nothing reached the client: the error handler answers with an error body.
		return fmt.Errorf("download %s: %w", d.Filename, err)
	}
	attrs := append([]any{slog.String("request_id", RequestID(d.Ctx)), slog.String("file", d.Filename),
		slog.Int64("bytes_sent", out.written), slog.String("error", err.Error())}, d.LogAttrs...)
	if d.Ctx.Err() != nil {
		d.Logger.WarnContext(d.Ctx, "download aborted: the client went away", attrs...)
	} else {
		d.Logger.ErrorContext(d.Ctx, "download failed after it started; aborting the connection", attrs...)
	}
	panic(http.ErrAbortHandler)
}

// commitWriter writes the status line and headers (commit) just before the first byte of the
// body, so that until then the answer can still be an error.
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
