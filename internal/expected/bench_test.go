package expected

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// csvOf returns an expected-references CSV file of n rows, with every column in use.
func csvOf(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Invoice Number;Amount;Currency;Due Date;Name;Notes\n")
	for i := range n {
		fmt.Fprintf(&b, "INV-%07d;%d.%03d,%02d;EUR;%02d.%02d.2024;Customer %d GmbH;\"note, with; delimiters\"\n",
			i, i%999+1, i%997, i%100, i%28+1, i%12+1, i)
	}
	return b.Bytes()
}

// bigCSV returns a CSV file of at least size bytes under the given header.
func bigCSV(header string, size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 100)
	b.WriteString(header)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "INV-%08d,%d.%02d,EUR,2024-03-05,Customer %d\n", i, i%100000, i%100, i)
	}
	return b.Bytes()
}

func TestCheckOfA25MiBFile(t *testing.T) {
	t.Run("Check accepts a 25 MiB file with a good header", func(t *testing.T) {
		data := bigCSV("reference,amount,currency,due_date,name\n", 25<<20)
		require.NoError(t, Check(data, statement.Options{}))
	})
	t.Run("Check refuses a 25 MiB file without an amount column", func(t *testing.T) {
		data := bigCSV("reference,value,currency,due_date,name\n", 25<<20)
		err := Check(data, statement.Options{})
		require.ErrorIs(t, err, ErrInvalid)
		require.Contains(t, err.Error(), "no amount column: the header row (row 1)")
	})
	t.Run("Read reads every row of a large file", func(t *testing.T) {
		rows, err := Read(csvOf(20000), statement.Options{})
		require.NoError(t, err)
		require.Len(t, rows, 20000)
		require.Equal(t, []string{"2|INV-0000000|1000|EUR|2024-01-01|Customer 0 GmbH"}, brief(rows[:1]))
		require.Equal(t, []string{"20001|INV-0019999|20059.99|EUR|2024-08-08|Customer 19999 GmbH"}, brief(rows[19999:]))
	})
}

func BenchmarkRead100kRowsCSV(b *testing.B) {
	data := csvOf(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rows, err := Read(data, statement.Options{})
		if err != nil || len(rows) != 100_000 {
			b.Fatal(err, len(rows))
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkCheck25MiBCSV(b *testing.B) {
	data := bigCSV("reference,amount,currency,due_date,name\n", 25<<20)
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(data, statement.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheck25MiBXLSX(b *testing.B) {
	rows := [][]any{{"reference", "amount", "currency", "due_date", "name"}}
	for i := range 400_000 {
		rows = append(rows, []any{fmt.Sprintf("INV-%08d", i), float64(i%100000) + 0.25, "EUR", "2024-03-05", fmt.Sprintf("Customer %d", i)})
	}
	data := xlsxOf(b, []string{"S"}, map[string][][]any{"S": rows})
	b.Logf("workbook of %d MiB", len(data)>>20)
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(data, statement.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
