package exceltest

import (
	"github.com/xuri/excelize/v2"
)

// XLSX writes rows into the first sheet of a new .xlsx workbook, one value a cell: strings,
// numbers and time.Time values become the cells excelize makes of them.
func XLSX(rows [][]any) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	for r, row := range rows {
		for c, v := range row {
			cell, err := excelize.CoordinatesToCellName(c+1, r+1)
			if err != nil {
				return nil, err
			}
			if err := f.SetCellValue("Sheet1", cell, v); err != nil {
				return nil, err
			}
		}
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
