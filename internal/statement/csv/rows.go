package csv

import (
	"iter"
	"strings"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// This file lends the decoding and record splitting of statement CSV files to other delimited
// files, such as the expected-references files of package expected, so that every CSV file the
// service accepts is read in the same character sets, delimiters and quoting.

// Text returns the file's text as UTF-8 and the name of the character set it was read in
// ("utf-8", "utf-8-bom", "utf-16le", "windows-1252", "iso-8859-1", ...), with classic Mac OS line
// endings (a lone CR) turned into LF. A file that is empty or not text fails with an error of
// kind statement.ErrNotAStatement.
func Text(data []byte) (text, charset string, err error) {
	if len(data) == 0 {
		return "", "", statement.Errorf(statement.FormatCSV, statement.ErrNotAStatement, statement.Position{}, "the file is empty")
	}
	text, charset = decode(data)
	if isBinary(text) {
		return "", "", statement.Errorf(statement.FormatCSV, statement.ErrNotAStatement, statement.Position{},
			"the file is not text: it holds control characters")
	}
	if !strings.Contains(text, "\n") && strings.Contains(text, "\r") {
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	return text, charset, nil
}

// Delimiters returns the field separators the reader knows, in its order of preference:
// semicolon, comma, tab and pipe.
func Delimiters() []byte { return append([]byte(nil), delimiters...) }

// SniffDelimiter returns the delimiter Parse would split text at: the one that splits a leading
// record into known statement column names, else the one that splits the leading records most
// consistently.
func SniffDelimiter(text string) byte { return sniffDelimiter(text) }

// DelimiterName names a delimiter for a Dialect: "semicolon", "comma", "tab" or "pipe".
func DelimiterName(delim byte) string { return delimName(delim) }

// Records yields the records of text split at delim, from the first each time it is ranged
// over, as Parse reads them: quoted fields may hold delimiters and line breaks, Pos.Line is the
// record's first line, and Raw its text. The Cells slice is reused from record to record; the
// strings are slices of text. At most 1024 fields of a record are kept.
func Records(text string, delim byte) iter.Seq[tabular.Row] { return records(text, delim) }

// Rows decodes a delimited file and yields its records as Parse reads them, with the dialect
// found, e.g. "csv;charset=utf-8;delim=semicolon". It fails as Text does.
func Rows(data []byte) (iter.Seq[tabular.Row], string, error) {
	text, charset, err := Text(data)
	if err != nil {
		return nil, "", err
	}
	delim := sniffDelimiter(text)
	return records(text, delim), "csv;charset=" + charset + ";delim=" + delimName(delim), nil
}
