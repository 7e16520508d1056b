package sheet

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTextNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "equals sign", in: "=1+2 CASH WITHDRAWAL", want: "'=1+2 CASH WITHDRAWAL"},
		{name: "plus sign", in: "+49 30 1234", want: "'+49 30 1234"},
		{name: "minus sign", in: "-89.90", want: "'-89.90"},
		{name: "at sign", in: "@SUM(A1:A9)", want: "'@SUM(A1:A9)"},
		{name: "tab", in: "\t=cmd", want: "'\t=cmd"},
		{name: "carriage return", in: "\r=cmd", want: "'\r=cmd"},
		{name: "a leading quote is quoted too, so one quote less is always the original", in: "'quoted", want: "''quoted"},
		{name: "safe text", in: "SEPA CREDIT TRANSFER", want: "SEPA CREDIT TRANSFER"},
		{name: "a trigger later in the text", in: "A=B+C-D@E", want: "A=B+C-D@E"},
		{name: "a leading space is not a trigger", in: " =1", want: " =1"},
		{name: "empty is a null cell", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, Text(tt.in))
		})
	}
}

func TestCSVWriterRoundTrips(t *testing.T) {
	t.Parallel()
	rows := [][]string{
		{"status", "text"},
		{"plain", "SEPA CREDIT"},
		{"comma", "A, B"},
		{"quote", `say "hi"`},
		{"lone line feed", "one\ntwo"},
		{"bare carriage return", "one\rtwo"},
		{"leading space", " x"},
		{"", ""},
	}
	var buf bytes.Buffer
	w := &CSVWriter{W: &buf}
	for _, r := range rows {
		require.NoError(t, w.Record(r))
	}
	require.Contains(t, buf.String(), "plain,SEPA CREDIT\r\n", "records end in CRLF")
	got, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Equal(t, rows, got)
}
