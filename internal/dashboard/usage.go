package dashboard

import (
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/ratelimit"
)

// usageBlock is one quota on the usage page: an API (and environment), this month.
type usageBlock struct {
	Title, Plan  string
	Used, Limit  int
	ResetAt      time.Time
	RequestLimit int
	// Chart draws Days, the jobs of each day of the month so far; Total is their sum.
	Chart template.HTML
	Days  []int
	// Parsed counts the transactions parsed this month (parsing only).
	Parsed     *int64
	Thresholds []parsejob.Threshold
}

// Percent is the share of the quota used, for the meter: 0 to 100.
func (u usageBlock) Percent() float64 {
	if u.Limit <= 0 {
		return 0
	}
	return math.Min(100, math.Round(float64(u.Used)*1000/float64(u.Limit))/10)
}

type usagePage struct {
	Month  string
	Blocks []usageBlock
}

// usagePage shows this month's quotas of both APIs against the plans, jobs per day as charts,
// the transactions parsed, the rate limits and the usage thresholds announced. Everyone reads
// it.
func (s *Server) usagePage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	ctx := r.Context()
	id := req.user.AccountID
	page := usagePage{}
	for _, env := range []account.Environment{account.Production, account.Sandbox} {
		q, err := s.cfg.Recon.Quota(ctx, id, env)
		if err != nil {
			s.unavailable(w, r, err)
			return
		}
		days, err := s.cfg.Recon.JobsPerDay(ctx, id, env)
		if err != nil {
			s.unavailable(w, r, err)
			return
		}
		page.Month = q.ResetAt.AddDate(0, -1, 0).Format("January 2006")
		page.Blocks = append(page.Blocks, usageBlock{Title: "Reconciliation · " + string(env), Plan: string(q.Plan),
			Used: q.Used, Limit: q.Limit, ResetAt: q.ResetAt, Days: days, Chart: barChart(days, daysIn(q.ResetAt), "reconciliation jobs in "+string(env)),
			RequestLimit: ratelimit.LimitFor(ratelimit.Recon, ratelimit.Plans{Recon: q.Plan})})
	}
	u, err := s.cfg.Parse.Usage(ctx, id)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	st, err := s.cfg.Parse.Status(ctx, id)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	days, err := s.cfg.Parse.JobsPerDay(ctx, id)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	reached, err := s.cfg.Parse.ThresholdsReached(ctx, id)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	parsed := u.TransactionsParsed
	page.Blocks = append(page.Blocks, usageBlock{Title: "Parsing", Plan: string(u.Plan), Used: u.JobsCreated, Limit: u.JobsLimit,
		ResetAt: u.PeriodEnd, Days: days, Chart: barChart(days, daysIn(u.PeriodEnd), "parsing jobs"), RequestLimit: st.RateLimit, Parsed: &parsed,
		Thresholds: reached})
	s.render(w, r, http.StatusOK, "usage", signedInView(req, "Usage and quota", "usage", page))
}

// daysIn is the number of days of the month that ends at end (the quota's reset).
func daysIn(end time.Time) int { return end.AddDate(0, 0, -1).Day() }

// barChart draws counts, one a day from the 1st, in a month of slots days, as an SVG bar chart
// with a title per bar; the page lists the same numbers in a table for those who cannot see it.
// Only numbers and the escaped what reach the markup.
func barChart(counts []int, slots int, what string) template.HTML {
	const width, height, top, bottom = 620, 170, 16, 22
	busiest, total := 0, 0
	for _, n := range counts {
		busiest = max(busiest, n)
		total += n
	}
	peak := max(busiest, 1) // the scale
	slots = max(slots, len(counts), 1)
	slot := float64(width) / float64(slots)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%d %s this month, at most %d on one day" xmlns="http://www.w3.org/2000/svg">`,
		width, height, total, template.HTMLEscapeString(what), busiest)
	fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" class="axis"/>`, height-bottom, width, height-bottom)
	fmt.Fprintf(&b, `<text x="0" y="11" class="label">%d</text>`, peak)
	for i, n := range counts {
		h := float64(height-bottom-top) * float64(n) / float64(peak)
		x := float64(i)*slot + slot*0.15
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="bar"><title>day %d: %d</title></rect>`,
			x, float64(height-bottom)-h, slot*0.7, h, i+1, n)
		if day := i + 1; day == 1 || day%5 == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="label" text-anchor="middle">%d</text>`, x+slot*0.35, height-6, day)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and an escaped label only
}
