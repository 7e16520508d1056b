package tabular

import (
	"strings"
	"time"

	"github.com/statementmatch/service/internal/statement"
)

// dateOrder is the order of day, month and year in a file's numeric dates.
type dateOrder uint8

const (
	orderUnknown dateOrder = iota
	orderDMY
	orderMDY
)

func (o dateOrder) String() string {
	switch o {
	case orderDMY:
		return "DMY"
	case orderMDY:
		return "MDY"
	}
	return "YMD"
}

// dateKind is the shape of a date cell, which says whether the day/month order matters.
type dateKind uint8

const (
	_ dateKind = iota
	// dkYearLast is a/b/y with numbers only (31.12.2024, 12/31/24): the file's order decides.
	dkYearLast
	// dkYearFirst is y-m-d (2024-12-31, 2019.04.19., 2024/12/31 10:00:00).
	dkYearFirst
	// dkCompact is yyyymmdd, optionally with hhmmss and an OFX zone (20091224120000[0:GMT]).
	dkCompact
	// dkMonthName spells the month (27 Feb 2018, 10-Nov-9, Nov 10, 2009, 3. März 2024).
	dkMonthName
)

// rawDate is a date cell read without deciding its order yet.
type rawDate struct {
	kind dateKind
	// For dkYearLast a and b are the first two fields; otherwise a is the month, b the day.
	a, b, year int
	sep        byte
	// noYear marks a day and month printed without a year (07/02, 2nd Mar, 05-Dec, Dec 5,
	// 14.10.): the statement's period supplies it (extractor.yearFor). year is 0 then.
	noYear bool
}

// leapYear stands in for a missing year while a day and month are checked, so that 29 February
// passes; the real year is chosen later.
const leapYear = 2000

// resolve returns the date under the file's order.
func (r rawDate) resolve(o dateOrder) (statement.Date, bool) {
	m, d := r.a, r.b
	if r.kind == dkYearLast && o != orderMDY {
		m, d = r.b, r.a
	}
	if r.noYear {
		return statement.NewDate(leapYear, time.Month(m), d)
	}
	if r.kind == dkYearFirst && r.year >= 1300 && r.year < 1500 {
		return jalali(r.year, m, d) // Iranian statements: 1401/07/03
	}
	return statement.NewDate(r.year, time.Month(m), d)
}

// plausible reports whether the cell is a date under some order.
func (r rawDate) plausible() bool {
	if _, ok := r.resolve(orderDMY); ok {
		return true
	}
	if r.kind == dkYearLast {
		_, ok := r.resolve(orderMDY)
		return ok
	}
	return false
}

// expandYear turns a one- or two-digit year into a full one: 00-69 are 2000-2069, 70-99 are
// 1970-1999 (the POSIX pivot, which fits statements).
func expandYear(y, digits int) int {
	if digits > 2 {
		return y
	}
	if y < 70 {
		return 2000 + y
	}
	return 1900 + y
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// digits reads a run of at most max digits at s[i:], returning the value, the count and the
// index after them.
func digits(s string, i, max int) (v, n, j int) {
	j = i
	for j < len(s) && isDigit(s[j]) && n < max+1 {
		v = v*10 + int(s[j]-'0')
		n++
		j++
	}
	return v, n, j
}

// scanDate reads a whole cell as a date. A time of day, a zone or a trailing dot may follow;
// anything else makes the cell no date.
func scanDate(s string) (rawDate, bool) {
	if (len(s) < 4 && !(len(s) == 3 && s[1] == '/')) || len(s) > 48 {
		return rawDate{}, false // "7/1" is the shortest date, as Wells Fargo prints it
	}
	if isDigit(s[0]) {
		return scanNumericDate(s)
	}
	if isASCIILetter(s[0]) || s[0] >= 0x80 {
		return scanMonthFirst(s)
	}
	return rawDate{}, false
}

// datePair reads a cell of two dates of one shape side by side ("03-04-2023 03-04-2023",
// "12 Mar 13 Mar" is not one: each side must be a date alone): a statement's booking and value
// dates, printed in two columns so close that a layout reader took them for one.
func datePair(s string) (first, second rawDate, ok bool) {
	a, b, found := strings.Cut(strings.TrimSpace(s), " ")
	if !found {
		return rawDate{}, rawDate{}, false
	}
	b = strings.TrimSpace(b)
	first, ok1 := scanDate(a)
	second, ok2 := scanDate(b)
	if !ok1 || !ok2 || first.kind != second.kind || first.sep != second.sep || first.noYear != second.noYear {
		return rawDate{}, rawDate{}, false
	}
	return first, second, true
}

func scanNumericDate(s string) (rawDate, bool) {
	v1, n1, i := digits(s, 0, 14)
	switch {
	case n1 == 8 || n1 == 14:
		y, m, d := v1/10000, v1/100%100, v1%100
		if n1 == 14 {
			y, m, d = v1/10000000000, v1/100000000%100, v1/1000000%100
			hh, mm, ss := v1/10000%100, v1/100%100, v1%100
			if hh > 23 || mm > 59 || ss > 60 {
				return rawDate{}, false
			}
		}
		// A run of eight digits is a date only in the years a statement can have: account and
		// reference numbers are runs of digits too.
		if y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31 {
			return rawDate{}, false
		}
		rest := s[i:]
		if rest != "" && rest[0] != '[' && rest[0] != '.' && rest[0] != ' ' && rest[0] != 'T' {
			return rawDate{}, false
		}
		if rest != "" && rest[0] == '.' && n1 == 14 {
			// Fractions of a second: 20091224120000.000.
			_, nf, j := digits(rest, 1, 9)
			if nf == 0 {
				return rawDate{}, false
			}
			rest = rest[j:]
		}
		if !timeSuffix(rest, n1 == 14) {
			return rawDate{}, false
		}
		return rawDate{kind: dkCompact, a: m, b: d, year: y}, true
	case n1 == 4:
		if i >= len(s) {
			return rawDate{}, false
		}
		sep := s[i]
		if sep != '-' && sep != '/' && sep != '.' {
			return rawDate{}, false
		}
		m, nm, j := digits(s, i+1, 2)
		if nm == 0 || nm > 2 || j >= len(s) || s[j] != sep {
			return rawDate{}, false
		}
		d, nd, k := digits(s, j+1, 2)
		if nd == 0 || nd > 2 {
			return rawDate{}, false
		}
		if k < len(s) && s[k] == '.' && sep == '.' {
			k++ // Hungarian dates end in a dot: 2019.04.19.
		}
		if !timeSuffix(s[k:], false) {
			return rawDate{}, false
		}
		return rawDate{kind: dkYearFirst, a: m, b: d, year: v1, sep: sep}, true
	case n1 == 1 || n1 == 2:
		if i+2 < len(s) && ordinalSuffix(s[i:i+2]) && (s[i+2] == ' ' || s[i+2] == '-') {
			i += 2 // 2nd Mar, 21st December 2022
		}
		if i >= len(s) {
			return rawDate{}, false
		}
		sep := s[i]
		j := i + 1
		if sep == '.' && j < len(s) && s[j] == ' ' {
			j++ // 3. März 2024
		}
		if j < len(s) && !isDigit(s[j]) && (sep == ' ' || sep == '-' || sep == '/' || sep == '.') {
			return scanDayMonthName(s, v1, j)
		}
		if sep != '-' && sep != '/' && sep != '.' {
			return rawDate{}, false
		}
		b, nb, k := digits(s, j, 2)
		if nb == 0 || nb > 2 {
			return rawDate{}, false
		}
		if k == len(s) || (k+1 == len(s) && s[k] == '.' && sep == '.') {
			// A day and month without a year: 07/02, 02-01, 14.10. (a dotted one only with its
			// closing dot, since 14.10 alone is as likely an amount).
			if sep == '.' && k == len(s) {
				return rawDate{}, false
			}
			return rawDate{kind: dkYearLast, a: v1, b: b, sep: sep, noYear: true}, true
		}
		if k >= len(s) || s[k] != sep {
			return rawDate{}, false
		}
		y, ny, l := digits(s, k+1, 4)
		if ny != 2 && ny != 4 {
			return rawDate{}, false
		}
		if l < len(s) && s[l] == '.' && sep == '.' && (l+1 == len(s) || s[l+1] == ' ') {
			l++
		}
		if !timeSuffix(s[l:], false) {
			return rawDate{}, false
		}
		return rawDate{kind: dkYearLast, a: v1, b: b, year: expandYear(y, ny), sep: sep}, true
	}
	return rawDate{}, false
}

// scanDayMonthName reads "27 Feb 2018", "10-Nov-9", "3. März 2024" from the month name at i.
func scanDayMonthName(s string, day, i int) (rawDate, bool) {
	j := i
	for j < len(s) && (isASCIILetter(s[j]) || s[j] >= 0x80) {
		j++
	}
	m := monthByName(s[i:j])
	if m == 0 {
		return rawDate{}, false
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	if j == len(s) {
		return rawDate{kind: dkMonthName, a: m, b: day, noYear: true}, true // 05-Dec, 2nd Mar
	}
	if j < len(s) && (s[j] == ' ' || s[j] == '-' || s[j] == '/' || s[j] == ',') {
		j++
		for j < len(s) && s[j] == ' ' {
			j++
		}
	} else {
		return rawDate{}, false
	}
	y, ny, k := digits(s, j, 4)
	if ny != 1 && ny != 2 && ny != 4 {
		return rawDate{}, false
	}
	if !timeSuffix(s[k:], false) {
		return rawDate{}, false
	}
	return rawDate{kind: dkMonthName, a: m, b: day, year: expandYear(y, ny)}, true
}

// ordinalSuffix reports the English ordinal endings of a day: 1st, 2nd, 3rd, 4th.
func ordinalSuffix(s string) bool {
	switch strings.ToLower(s) {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// scanMonthFirst reads "Nov 10, 2009" and "November 10 2009", and "Dec 5" without a year.
func scanMonthFirst(s string) (rawDate, bool) {
	j := 0
	for j < len(s) && (isASCIILetter(s[j]) || s[j] >= 0x80) {
		j++
	}
	m := monthByName(s[:j])
	if m == 0 {
		return rawDate{}, false
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	if j >= len(s) || (s[j] != ' ' && s[j] != '-') {
		return rawDate{}, false
	}
	j++
	d, nd, k := digits(s, j, 2)
	if nd == 0 || nd > 2 {
		return rawDate{}, false
	}
	if k+2 <= len(s) && ordinalSuffix(s[k:k+2]) {
		k += 2 // Mar 2nd
	}
	if k == len(s) {
		return rawDate{kind: dkMonthName, a: m, b: d, noYear: true}, true // Dec 5, MAR 02
	}
	if k < len(s) && s[k] == ',' {
		k++
	}
	if k >= len(s) || (s[k] != ' ' && s[k] != '-') {
		return rawDate{}, false
	}
	for k < len(s) && (s[k] == ' ' || s[k] == '-') {
		k++
	}
	y, ny, l := digits(s, k, 4)
	if ny != 4 && ny != 2 {
		return rawDate{}, false
	}
	if !timeSuffix(s[l:], false) {
		return rawDate{}, false
	}
	return rawDate{kind: dkMonthName, a: m, b: d, year: expandYear(y, ny)}, true
}

// timeSuffix accepts what may follow a date in one cell: nothing, or a time of day such as
// " 14:30:25.123", "T23:00:04Z", " 12:34:56 +0000", " 09:47 PM", or an OFX zone "[0:GMT]".
// compactTime says the time was already read (yyyymmddhhmmss), so only a zone may follow.
func timeSuffix(s string, compactTime bool) bool {
	if s == "" {
		return true
	}
	if s[0] == '[' {
		return s[len(s)-1] == ']' && len(s) <= 12
	}
	if compactTime {
		return false
	}
	if s[0] != ' ' && s[0] != 'T' {
		return false
	}
	i := 1
	for i < len(s) && s[i] == ' ' {
		i++
	}
	// A clock time: h:mm or hh:mm.
	_, nh, j := digits(s, i, 2)
	if nh == 0 || nh > 2 || j >= len(s) || s[j] != ':' {
		return false
	}
	_, nm, k := digits(s, j+1, 2)
	if nm != 2 {
		return false
	}
	// Then seconds, fractions, AM/PM and a zone: a small alphabet, a short tail.
	rest := s[k:]
	if len(rest) > 24 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case isDigit(c), c == ':', c == '.', c == ' ', c == '+', c == '-', c == '[', c == ']':
		case c == 'A', c == 'P', c == 'M', c == 'Z', c == 'U', c == 'T', c == 'C', c == 'G', c == 'E', c == 'S', c == 'D':
		case c == 'a', c == 'p', c == 'm':
		default:
			return false
		}
	}
	return true
}

// months maps folded month names and their usual abbreviations, in the languages whose
// statements spell months, to month numbers.
var months = func() map[string]int {
	names := [12]string{
		"jan january januar janvier janv enero ene gennaio gen janeiro januari leden ledna styczen stycznia " +
			"januari janvari januar januarja sausio sausis january sijecanj tammikuu " +
			"январь января янв січень січня січ",
		"feb february februar fevrier fev fevr febrero febbraio fevereiro februari unor unora luty lutego " +
			"februari februar vasario vasaris helmikuu " +
			"февраль февраля фев лютий лютого лют",
		"mar march marz maerz mars marzo marco maart mrt brezen brezna marzec marca marts " +
			"marts kovo kovas maaliskuu " +
			"март марта березень березня бер",
		"apr april avril avr abril aprile duben dubna kwiecien kwietnia balandzio balandis huhtikuu " +
			"апрель апреля квітень квітня кві",
		"may mai mayo maggio mag maio mei kveten kvetna maj maja geguzes geguze toukokuu " +
			"май мая травень травня тра",
		"jun june juni juin junio giugno giu junho cerven cervna czerwiec czerwca birzelio birzelis kesakuu " +
			"июнь июня червень червня чер",
		"jul july juli juillet juil julio luglio lug julho cervenec cervence lipiec lipca liepos liepa heinakuu " +
			"июль июля липень липня лип",
		"aug august aout agosto ago augustus srpen srpna sierpien sierpnia augusti rugpjucio rugpjutis elokuu " +
			"август августа серпень серпня сер",
		"sep sept september septembre septiembre setiembre settembre set setembro zari wrzesien wrzesnia " +
			"rugsejo rugsejis syyskuu " +
			"сентябрь сентября сен вересень вересня вер",
		"oct october oktober octobre octubre ottobre ott outubro out okt rijen rijna pazdziernik pazdziernika " +
			"spalio spalis lokakuu " +
			"октябрь октября окт жовтень жовтня жов",
		"nov november novembre noviembre novembro listopad listopadu listopada lapkricio lapkritis marraskuu " +
			"ноябрь ноября ноя листопад листопада лис",
		"dec december decembre dezember dez diciembre dic dicembre dezembro prosinec prosince grudzien " +
			"grudnia desember gruodzio gruodis joulukuu " +
			"декабрь декабря дек грудень грудня гру",
	}
	m := map[string]int{}
	for i, list := range names {
		start := 0
		for k := 0; k <= len(list); k++ {
			if k == len(list) || list[k] == ' ' {
				if k > start {
					m[fold(list[start:k])] = i + 1
				}
				start = k + 1
			}
		}
	}
	// Hungarian abbreviations that are not prefixes of other languages' names.
	for name, n := range map[string]int{"marc": 3, "marcius": 3, "aprilis": 4, "majus": 5, "junius": 6,
		"julius": 7, "augusztus": 8, "szept": 9, "szeptember": 9, "oktober": 10, "febr": 2, "januar": 1,
		"februar": 2, "jun": 6, "jul": 7} {
		m[name] = n
	}
	return m
}()

// monthByName returns the month a (possibly accented or Cyrillic) name stands for, or 0.
func monthByName(name string) int {
	if len(name) < 3 || len(name) > 24 {
		return 0
	}
	ascii := true
	var buf [24]byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 {
			ascii = false
			break
		}
		buf[i] = c | 0x20
	}
	if ascii {
		return months[string(buf[:len(name)])]
	}
	return months[fold(name)]
}

// MonthName reports a month's name or abbreviation in one of the languages statements use.
func MonthName(s string) bool { return monthByName(strings.TrimSuffix(s, ".")) > 0 }

// jalali converts a date of the Solar Hijri (Jalali) calendar, which Iranian statements use,
// to the Gregorian one: the arithmetic of Kazimierz M. Borkowski's algorithm as commonly
// implemented (jdf), exact for the years statements have. false for a day the month lacks.
func jalali(jy, jm, jd int) (statement.Date, bool) {
	if jm < 1 || jm > 12 || jd < 1 || jd > 31 || (jm > 6 && jd > 30) {
		return statement.Date{}, false
	}
	d, ok := jalaliToGregorian(jy, jm, jd)
	if ok && jm == 12 && jd == 30 {
		// Esfand has 30 days only in a leap year: else its "30th" is next year's first day.
		if next, _ := jalaliToGregorian(jy+1, 1, 1); next == d {
			return statement.Date{}, false
		}
	}
	return d, ok
}

func jalaliToGregorian(jy, jm, jd int) (statement.Date, bool) {
	jy += 1595
	days := -355668 + 365*jy + (jy/33)*8 + ((jy%33)+3)/4 + jd
	if jm < 7 {
		days += (jm - 1) * 31
	} else {
		days += (jm-7)*30 + 186
	}
	gy := 400 * (days / 146097)
	days %= 146097
	if days > 36524 {
		days--
		gy += 100 * (days / 36524)
		days %= 36524
		if days >= 365 {
			days++
		}
	}
	gy += 4 * (days / 1461)
	days %= 1461
	if days > 365 {
		gy += (days - 1) / 365
		days = (days - 1) % 365
	}
	gd := days + 1
	gm := 1
	for ; gm <= 12 && gd > statement.DaysIn(gy, time.Month(gm)); gm++ {
		gd -= statement.DaysIn(gy, time.Month(gm))
	}
	if gm > 12 {
		return statement.Date{}, false // Esfand 30 of a common year
	}
	return statement.NewDate(gy, time.Month(gm), gd)
}
