package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDetect feeds arbitrary bytes, seeded with the shared corpus, to format detection: it must
// never panic, and it either names a format or says why the bytes are not a statement.
func FuzzDetect(f *testing.F) {
	dirs, _ := os.ReadDir(sharedCorpus)
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(sharedCorpus, d.Name()))
		for _, file := range files {
			if data, err := os.ReadFile(filepath.Join(sharedCorpus, d.Name(), file.Name())); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\">"))
	f.Add([]byte("<?xml version=\"1.0\"?><html><body><table><tr><td>Date</td><td>Amount</td></tr></table></body></html>"))
	f.Add([]byte(`<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet><Table/></Worksheet></Workbook>`))
	f.Add([]byte("# comment\n### more\n!Type:Bank\nD01/02/2026\nT1\n^\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Detect(data)
		if (format == "") == (err == nil) {
			t.Fatalf("Detect gave format %q and error %v: exactly one is expected", format, err)
		}
	})
}
