package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// The page images: this wide (a statement page's print stays legible on a laptop), drawn within
// pageTimeout.
const (
	pageWidth   = 1000
	pageTimeout = 20 * time.Second
)

// rowPage is one parsed transaction beside the page it was read from, its row outlined.
type rowPage struct {
	Job        jobRow
	Tx         txView
	Raw        string
	Page       int
	Box        *statement.Box
	Image      string
	Prev, Next string
	JobLink    string
}

// parseRowPage shows transaction n (from 1) of a parsing job, and for a PDF or a scan the page
// it stands on with its row outlined, so that a person checks a doubtful row against the
// original in one look.
func (s *Server) parseRowPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	id, ok := jobID(r)
	n, err := strconv.Atoi(r.PathValue("n"))
	if !ok || err != nil || n < 1 {
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such transaction.")
		return
	}
	j, t, err := s.cfg.Parse.Transaction(r.Context(), req.user.AccountID, id, n-1)
	if s.jobRefusal(w, r, err, "transaction", "transactions") {
		return
	}
	base := "/jobs/parsing/" + j.ID.String()
	page := rowPage{Job: parseRow(j), Tx: txRow(t, reviewsByLine(j), base), Raw: t.Raw, Page: t.Pos.Page, Box: padded(t.Pos.Box), JobLink: base}
	if t.Pos.Page > 0 {
		page.Image = base + "/pages/" + strconv.Itoa(t.Pos.Page)
	}
	if n > 1 {
		page.Prev = base + "/rows/" + strconv.Itoa(n-1)
	}
	if n < j.TransactionsCount {
		page.Next = base + "/rows/" + strconv.Itoa(n+1)
	}
	s.render(w, r, http.StatusOK, "parse_row", signedInView(req, "Transaction "+strconv.Itoa(n), "jobs", page))
}

// padded is the box with a little room around the print, so that the outline does not cross
// its letters; the corners of a row askew move out by as much.
func padded(b *statement.Box) *statement.Box {
	if b == nil {
		return nil
	}
	const padX, padY = 0.006, 0.003
	out := &statement.Box{Left: max(0, b.Left-padX), Top: max(0, b.Top-padY), Right: min(1, b.Right+padX), Bottom: min(1, b.Bottom+padY)}
	if b.Corners != nil {
		// Top left, top right, bottom right, bottom left, as the print reads.
		away := [4][2]float64{{-padX, -padY}, {padX, -padY}, {padX, padY}, {-padX, padY}}
		var c [4][2]float64
		for i, xy := range b.Corners {
			c[i] = [2]float64{min(1, max(0, xy[0]+away[i][0])), min(1, max(0, xy[1]+away[i][1]))}
		}
		out.Corners = &c
	}
	return out
}

// cornerPoints are the corners of a row askew as an SVG polygon's points.
func cornerPoints(b *statement.Box) string {
	if b == nil || b.Corners == nil {
		return ""
	}
	var s strings.Builder
	for i, xy := range b.Corners {
		if i > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(strconv.FormatFloat(xy[0], 'f', -1, 64) + "," + strconv.FormatFloat(xy[1], 'f', -1, 64))
	}
	return s.String()
}

// pageImage answers page n of a parsing job's file as a PNG (engine.RenderPage).
func (s *Server) pageImage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	id, ok := jobID(r)
	n, err := strconv.Atoi(r.PathValue("n"))
	if !ok || err != nil || n < 1 {
		http.Error(w, "no such page", http.StatusNotFound)
		return
	}
	data, err := s.cfg.Parse.File(r.Context(), req.user.AccountID, id)
	switch {
	case errors.Is(err, parsejob.ErrNotFound), errors.Is(err, parsejob.ErrGone):
		http.Error(w, "no such page", http.StatusNotFound)
		return
	case err != nil:
		s.unavailable(w, r, err)
		return
	}
	img, err := engine.RenderPage(r.Context(), data, n, pageWidth, pageTimeout, s.cfg.Parse.Limits)
	switch {
	case errors.Is(err, engine.ErrNoPage), errors.Is(err, engine.ErrNoPicture):
		http.Error(w, "no such page", http.StatusNotFound)
		return
	case err != nil:
		s.unavailable(w, r, err)
		return
	}
	// The page of a job never changes: the browser may keep it while the session lasts.
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(img)))
	_, _ = w.Write(img)
}
