package excel

import "github.com/statementmatch/service/internal/statement/excel/exceltest"

// xlsFile is a workbook stream in a compound file.
func xlsFile(stream []byte) []byte {
	return exceltest.CFBFile(map[string][]byte{"Workbook": stream}, []string{"Workbook"})
}
