package engine

import (
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/bai2"
	"github.com/statementmatch/service/internal/statement/camt"
	"github.com/statementmatch/service/internal/statement/csv"
	"github.com/statementmatch/service/internal/statement/excel"
	"github.com/statementmatch/service/internal/statement/mt940"
	"github.com/statementmatch/service/internal/statement/ofx"
	"github.com/statementmatch/service/internal/statement/pdf"
	"github.com/statementmatch/service/internal/statement/qif"
	"github.com/statementmatch/service/internal/statement/scan"
)

// parsers maps each detected format to its parser. Detection reports MT942 as MT940 (one parser
// reads both and tells them apart); a format missing here is recognised but not yet read.
var parsers = map[statement.Format]parseFunc{
	statement.FormatBAI2:          bai2.Parse,
	statement.FormatCAMT052:       camt.Parse,
	statement.FormatCAMT053:       camt.Parse,
	statement.FormatCAMT054:       camt.Parse,
	statement.FormatCSV:           csv.Parse,
	statement.FormatMT940:         mt940.Parse,
	statement.FormatXLSX:          excel.Parse,
	statement.FormatXLS:           excel.Parse,
	statement.FormatHTML:          excel.Parse,
	statement.FormatSpreadsheetML: excel.Parse,
	statement.FormatOFX:           ofx.Parse,
	statement.FormatPDF:           pdf.Parse,
	statement.FormatPNG:           scan.Parse,
	statement.FormatJPEG:          scan.Parse,
	statement.FormatTIFF:          scan.Parse,
	statement.FormatQIF:           qif.Parse,
}

// streamFunc is what a format package that can stream exports as Stream.
type streamFunc func(data []byte, opts statement.Options) (*statement.Stream, error)

// streamers maps the formats whose parsers stream (see Stream) to them: the tables that can be
// read again row by row from text the parser holds anyway, a PDF's rebuilt table, and the
// record formats, read again holding a statement's transactions at a time (or none: BAI2, QIF).
var streamers = map[statement.Format]streamFunc{
	statement.FormatPDF:           pdf.Stream,
	statement.FormatMT940:         mt940.Stream,
	statement.FormatCAMT052:       camt.Stream,
	statement.FormatCAMT053:       camt.Stream,
	statement.FormatCAMT054:       camt.Stream,
	statement.FormatOFX:           ofx.Stream,
	statement.FormatBAI2:          bai2.Stream,
	statement.FormatQIF:           qif.Stream,
	statement.FormatCSV:           csv.Stream,
	statement.FormatXLSX:          excel.Stream,
	statement.FormatXLS:           excel.Stream,
	statement.FormatHTML:          excel.Stream,
	statement.FormatSpreadsheetML: excel.Stream,
}
