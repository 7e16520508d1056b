package expected

import (
	"errors"
	"testing"

	"github.com/statementmatch/service/internal/statement"
)

// FuzzRead feeds Read and Check arbitrary bytes: neither may panic (the recover of the public
// functions is off), every error is an *Error of kind ErrInvalid or ErrTooLarge, and Check
// agrees with Read: it accepts what Read accepts, and what it refuses Read refuses alike.
func FuzzRead(f *testing.F) {
	for _, tt := range refusals {
		f.Add(tt.data)
	}
	for _, s := range []string{
		"reference;amount;currency;due_date;name\nINV-1;1.250,50;EUR;05.03.2024;Acme\n",
		"Invoice Number,Sum\n\"A,1\",\"(1,250.00)\"\n\"B\nC\",€ 3\n",
		"ref\tamount\tdue_date\nA\t1\t03/05/2024\nB\t2\t12/31/2024\n",
		"ref|total|currency\nA|12.50 USD|usd\n",
		"\n\nref,amount\n\n=\"007\",0\n",
	} {
		f.Add([]byte(s))
	}
	f.Add(utf16LEWithBOM("reference;amount\r\nA;1,5\r\n"))
	f.Add(xlsxOf(f, []string{"S"}, map[string][][]any{"S": {{"ref", "amount", "due_date"}, {"A", 1.5, "2024-01-02"}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		recoverPanics = false
		defer func() { recoverPanics = true }()
		opts := statement.Options{MaxRows: 1000, MaxDecompressedBytes: 8 << 20}
		rows, err := Read(data, opts)
		checkErr := Check(data, opts)
		for _, err := range []error{err, checkErr} {
			if err == nil {
				continue
			}
			var e *Error
			if !errors.As(err, &e) || !(errors.Is(err, ErrInvalid) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error %v (%T) is not an *Error of a known kind", err, err)
			}
		}
		if err == nil {
			if checkErr != nil {
				t.Fatalf("Read accepts the file, but Check refuses it: %v", checkErr)
			}
			if rows == nil {
				t.Fatal("Read returned no error and a nil slice")
			}
			for _, r := range rows {
				if r.Amount.Sign() < 0 || r.Reference == "" || r.Row <= 0 {
					t.Fatalf("bad row %+v", r)
				}
			}
		}
		if checkErr != nil && (err == nil || err.Error() != checkErr.Error()) {
			t.Fatalf("Check refuses with %q, Read with %v", checkErr, err)
		}
	})
}
