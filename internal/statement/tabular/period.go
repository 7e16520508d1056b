package tabular

import (
	"strings"
	"time"
	"unicode"

	"github.com/statementmatch/service/internal/statement"
)

// Statements that print rows without a year (07/02, 2nd Mar, 05-Dec) state their period in a
// header instead: "July 1, 2022 through July 31, 2022", "Statement Period February 1 - April
// 30, 2022", "12th Feb 2022 to 11th Mar 2022", "01.07.2022 - 31.07.2022". The period gives
// each row its year, across a December-January turn too.

// periodMention is a date found in running text; year is 0 when the text gives none.
type periodMention struct {
	year, month, day int
	at               int // token index, to keep mentions in reading order
}

// findPeriod returns the statement period named in lines: the first line with a period word
// (period, through, from, to, bis, au, a dash, ...) that names two dates in order, no more
// than about a year apart, a year missing from the first taken from the second ("February 1 -
// April 30, 2022"). order reads numeric dates.
func findPeriod(lines []string, order dateOrder) (start, end statement.Date, ok bool) {
	for _, l := range lines {
		if len(l) > 400 {
			l = l[:400]
		}
		ms := dateMentions(l, order)
		for i := 0; i+1 < len(ms); i++ {
			a, b := ms[i], ms[i+1]
			if b.year == 0 {
				continue
			}
			if a.year == 0 {
				a.year = b.year
				if a.month > b.month {
					a.year--
				}
			}
			s, ok1 := statement.NewDate(a.year, time.Month(a.month), a.day)
			e, ok2 := statement.NewDate(b.year, time.Month(b.month), b.day)
			if !ok1 || !ok2 || s.Compare(e) > 0 || e.Time().Sub(s.Time()) > 400*24*time.Hour {
				continue
			}
			if periodWords(l) {
				return s, e, true
			}
			break
		}
	}
	return start, end, false
}

// periodWords reports a line that speaks of a period or a span between dates.
func periodWords(l string) bool {
	if strings.Contains(l, " - ") || strings.Contains(l, "–") || strings.Contains(l, " to ") {
		return true
	}
	f := fold(l)
	for _, w := range []string{"period", "through", "thru", " to ", "from", "statement", "zeitraum", " bis ",
		"periode", "van ", " tot ", "du ", " au ", "del ", " al ", "periodo", " a ", " até ", "desde", "hasta",
		"afschrift", "auszug", "extrato", "extracto", "releve", " - ", "–"} {
		if strings.Contains(f, w) {
			return true
		}
	}
	return false
}

// dateMentions finds the dates written in free text, in order: numeric dates with a year
// (01.07.2022, 2022-07-01, 7/1/22), and dates with a month name with or without a year
// (July 1, 2022; 12th Feb 2022; 1 July; February 1).
func dateMentions(l string, order dateOrder) []periodMention {
	toks := strings.FieldsFunc(l, func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == '(' || r == ')' || r == ':' || r == ';' || r == '–' || r == '—'
	})
	var out []periodMention
	for i := 0; i < len(toks); i++ {
		t := strings.Trim(toks[i], ".")
		if t == "" {
			continue
		}
		// A whole token that is a date with a year (numeric, or 05-Dec-2022).
		if rd, ok := scanDate(t); ok && !rd.noYear {
			if d, ok := rd.resolve(order); ok {
				out = append(out, periodMention{d.Year(), int(d.Month()), d.Day(), i})
				continue
			}
		}
		// Day then month name: "12th Feb 2022", "1 July", "1. Juli 2022".
		if day, ok := dayToken(t); ok && i+1 < len(toks) {
			if m := monthByName(strings.Trim(toks[i+1], ".")); m > 0 {
				y := 0
				if i+2 < len(toks) {
					y = yearToken(toks[i+2])
				}
				out = append(out, periodMention{y, m, day, i})
				i++
				if y > 0 {
					i++
				}
				continue
			}
		}
		// Month name then day: "July 1, 2022", "February 1".
		if m := monthByName(t); m > 0 && i+1 < len(toks) {
			if day, ok := dayToken(toks[i+1]); ok {
				y := 0
				if i+2 < len(toks) {
					y = yearToken(toks[i+2])
				}
				out = append(out, periodMention{y, m, day, i})
				i++
				if y > 0 {
					i++
				}
				continue
			}
		}
	}
	return out
}

// dayToken reads a day of the month, with an English ordinal ending or a dot: 1, 01, 2nd, 3.
func dayToken(t string) (int, bool) {
	t = strings.TrimSuffix(t, ".")
	if len(t) > 2 && ordinalSuffix(t[len(t)-2:]) {
		t = t[:len(t)-2]
	}
	if len(t) == 0 || len(t) > 2 {
		return 0, false
	}
	d := 0
	for i := 0; i < len(t); i++ {
		if !isDigit(t[i]) {
			return 0, false
		}
		d = d*10 + int(t[i]-'0')
	}
	return d, d >= 1 && d <= 31
}

// yearToken reads a four-digit year in the range statements have, or 0.
func yearToken(t string) int {
	t = strings.Trim(t, ".")
	if len(t) != 4 {
		return 0
	}
	y := 0
	for i := 0; i < 4; i++ {
		if !isDigit(t[i]) {
			return 0
		}
		y = y*10 + int(t[i]-'0')
	}
	if y < 1900 || y > 2100 {
		return 0
	}
	return y
}

// yearFor returns the year of a day and month printed without one: the year of the statement
// period in which the day falls, the start's year for the months of a period that crosses
// 31 December, and else the year that puts the day nearest the period. false when the
// statement states no period.
func (x *extractor) yearFor(month time.Month, day int) (int, bool) {
	s, e := x.mined.periodStart, x.mined.periodEnd
	if (s.IsZero() || e.IsZero()) && !x.mined.yearRef.IsZero() {
		// No period, but a statement date: the rows are of the year up to it.
		e = x.mined.yearRef
		s = statement.DateOf(e.Time().AddDate(0, 0, -364))
	}
	if s.IsZero() || e.IsZero() {
		return 0, false
	}
	best, bestDist := 0, time.Duration(1<<62)
	for y := s.Year() - 1; y <= e.Year()+1; y++ {
		d, ok := statement.NewDate(y, month, day)
		if !ok {
			continue
		}
		t := d.Time()
		var dist time.Duration
		switch {
		case t.Before(s.Time()):
			dist = s.Time().Sub(t)
		case t.After(e.Time()):
			dist = t.Sub(e.Time())
		}
		if dist < bestDist {
			best, bestDist = y, dist
		}
	}
	return best, best != 0
}

// latestMention returns the latest date with a year that lines mention, or the zero Date.
func latestMention(lines []string, order dateOrder) statement.Date {
	var latest statement.Date
	for _, l := range lines {
		if len(l) > 400 {
			l = l[:400]
		}
		for _, m := range dateMentions(l, order) {
			if m.year == 0 {
				continue
			}
			if d, ok := statement.NewDate(m.year, time.Month(m.month), m.day); ok && (latest.IsZero() || d.Compare(latest) > 0) {
				latest = d
			}
		}
	}
	return latest
}
