package csv

import (
	"strings"

	"github.com/statementmatch/service/internal/statement/tabular"
)

// tokenizer splits CSV text into records as RFC 4180 does, with the tolerance bank exports
// need: quoted fields may span lines and follow spaces after the delimiter (", "); a quote
// inside an unquoted field is a character; text after a closing quote belongs to the field; a
// quote that never closes is a character too, not the start of a field swallowing the rest of
// the file. Records may have any number of fields.
type tokenizer struct {
	s     string
	delim byte
	pos   int
	line  int
}

// maxFields bounds the fields kept per record: a hostile record of millions of empty fields
// would otherwise cost sixteen bytes of memory per byte of input. Fields past it stay in the
// record's raw text only; the table reader gives roles to fewer columns than this anyway.
const maxFields = 1024

func newTokenizer(s string, delim byte) *tokenizer {
	return &tokenizer{s: s, delim: delim, line: 1}
}

// next appends the next record's fields to cells and returns them with the record's text
// (without its line ending) and its first line number; ok is false at the end.
func (z *tokenizer) next(cells []string) (_ []string, raw string, line int, ok bool) {
	s, n := z.s, len(z.s)
	if z.pos >= n {
		return cells, "", 0, false
	}
	start, line := z.pos, z.line
	for {
		// One field.
		p := z.pos
		q := p
		for q < n && s[q] == ' ' && z.delim != ' ' {
			q++
		}
		done := false
		if q < n && s[q] == '"' {
			if val, end, nl, ok := z.quoted(q); ok {
				z.line += nl
				// Text between the closing quote and the delimiter is kept ("abc"def).
				k := end
				for k < n && s[k] != z.delim && s[k] != '\n' {
					k++
				}
				if tail := strings.TrimRight(s[end:k], "\r"); strings.TrimSpace(tail) != "" {
					val += tail
				}
				if len(cells) < maxFields {
					cells = append(cells, val)
				}
				z.pos = k
				done = true
			}
		}
		if !done {
			k := p
			for k < n && s[k] != z.delim && s[k] != '\n' {
				k++
			}
			val := s[p:k]
			if k == n || s[k] == '\n' {
				val = strings.TrimSuffix(val, "\r")
			}
			if len(cells) < maxFields {
				cells = append(cells, val)
			}
			z.pos = k
		}
		if z.pos < n && s[z.pos] == z.delim {
			z.pos++
			if z.pos == n {
				// A delimiter ending the file ends its last record with an empty field.
				if len(cells) < maxFields {
					cells = append(cells, "")
				}
				return cells, strings.TrimSuffix(s[start:n], "\r"), line, true
			}
			continue
		}
		end := z.pos
		if z.pos < n { // '\n'
			z.pos++
			z.line++
		}
		return cells, strings.TrimSuffix(s[start:end], "\r"), line, true
	}
}

// quoted reads a quoted field whose opening quote is at q: its value (with "" unescaped), the
// index after the closing quote and the line breaks inside. ok is false when the quote never
// closes.
func (z *tokenizer) quoted(q int) (val string, end, newlines int, ok bool) {
	s := z.s
	i := q + 1
	escaped := false
	for {
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			return "", 0, 0, false
		}
		k := i + j
		if k+1 < len(s) && s[k+1] == '"' {
			escaped = true
			i = k + 2
			continue
		}
		val = s[q+1 : k]
		newlines = strings.Count(val, "\n")
		if escaped {
			val = strings.ReplaceAll(val, `""`, `"`)
		}
		return val, k + 1, newlines, true
	}
}

// delimiters are the field separators bank exports use.
var delimiters = []byte{';', ',', '\t', '|'}

func delimName(d byte) string {
	switch d {
	case ';':
		return "semicolon"
	case '\t':
		return "tab"
	case '|':
		return "pipe"
	}
	return "comma"
}

// sniffDelimiter chooses the delimiter. A delimiter that splits a leading record into known
// column names wins: the header is the surest sign, since decimal commas and semicolons in
// text can make a wrong delimiter split rows evenly. Otherwise the delimiter that splits the
// leading records into the most consistent number of fields wins: the share of records with
// the most common field count (of at least two), then that count. Preamble lines with another
// count weigh little.
func sniffDelimiter(text string) byte {
	sample := text
	if len(sample) > 256<<10 {
		sample = sample[:256<<10]
	}
	best, bestShare, bestCount, bestHeader := byte(','), 0.0, 0, 0
	for _, d := range delimiters {
		z := newTokenizer(sample, d)
		counts := map[int]int{}
		records, header := 0, 0
		var cells []string
		for records < 60 {
			var ok bool
			var raw string
			cells, raw, _, ok = z.next(cells[:0])
			if !ok {
				break
			}
			if strings.TrimSpace(raw) == "" {
				continue
			}
			records++
			counts[len(cells)]++
			if records <= 30 && len(cells) >= 2 {
				header = max(header, tabular.HeaderMatches(cells))
			}
		}
		mode, modeN := 0, 0
		for c, k := range counts {
			if c >= 2 && (k > modeN || k == modeN && c > mode) {
				mode, modeN = c, k
			}
		}
		if records == 0 || mode == 0 {
			continue
		}
		share := float64(modeN) / float64(records)
		if header < 2 {
			header = 0
		}
		switch {
		case header > bestHeader,
			header == bestHeader && share > bestShare+1e-9,
			header == bestHeader && share > bestShare-1e-9 && mode > bestCount:
			best, bestShare, bestCount, bestHeader = d, share, mode, header
		}
	}
	return best
}
