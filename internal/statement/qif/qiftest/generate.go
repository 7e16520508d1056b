// Package qiftest generates QIF files for the benchmarks of the QIF reader and of a parsing
// job's memory: the same bytes for both.
package qiftest

import (
	"bytes"
	"fmt"
)

// Generate writes a bank register of about size bytes, as Quicken exports it: month-first
// dates, amounts with thousands separators, a check number, a payee, a memo and a category
// each. It returns the file and the number of transactions in it.
func Generate(size int) ([]byte, int) {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString("!Type:Bank\n")
	n := 0
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "D%d/%d/2023\nT%s%d,%03d.%02d\nN%d\nPMERCHANT %d LTD\nMCard payment %d London\nLGroceries\n^\n",
			i%12+1, i%28+1, []string{"-", ""}[i%2], i%90+1, i%1000, i%100, 100000+i, i%977, i)
		n++
	}
	return b.Bytes(), n
}
