package csv

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/statementmatch/service/internal/statement"
)

// germanStatement uses only letters that Windows-1252, ISO-8859-2 and CP852 all have.
const germanStatement = "Buchungstag;Valuta;Auftraggeber/Empfänger;Verwendungszweck;Betrag;Währung\n" +
	"01.03.2024;01.03.2024;Müller Bäckerei;Brötchen für Jürgen;-4,50;EUR\n" +
	"02.03.2024;04.03.2024;Überweisung Straße;Gebühr Öl Äpfel;-1.234,56;EUR\n" +
	"05.03.2024;05.03.2024;Arbeitgeber GmbH;Gehalt März;3.000,00;EUR\n"

// czechStatement uses letters that Windows-1252 lacks.
const czechStatement = "Datum zaúčtování;Název protiúčtu;Zpráva;Částka;Měna\n" +
	"01.02.2024;Řeznictví Šťastný;Nákup žluťoučkého koně;-125,50;CZK\n" +
	"02.02.2024;Čedok;Zájezd ěščřžýáíé;-9 999,00;CZK\n"

func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	require.NoError(t, err)
	return b
}

// TestEncodings parses one statement written in each character set a bank may use, and
// expects the same transactions from each.
func TestEncodings(t *testing.T) {
	t.Parallel()
	utf16le := xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM)
	utf16be := xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM)
	for _, tc := range []struct {
		name, text string
		data       func(t *testing.T, s string) []byte
		charset    string
	}{
		{"german in UTF-8", germanStatement, func(t *testing.T, s string) []byte { return []byte(s) }, "utf-8"},
		{"german in UTF-8 with BOM", germanStatement, func(t *testing.T, s string) []byte { return append([]byte{0xEF, 0xBB, 0xBF}, s...) }, "utf-8-bom"},
		{"german in UTF-16LE with BOM", germanStatement, func(t *testing.T, s string) []byte { return append([]byte{0xFF, 0xFE}, encode(t, utf16le, s)...) }, "utf-16le"},
		{"german in UTF-16BE with BOM", germanStatement, func(t *testing.T, s string) []byte { return append([]byte{0xFE, 0xFF}, encode(t, utf16be, s)...) }, "utf-16be"},
		{"german in UTF-16LE without BOM", germanStatement, func(t *testing.T, s string) []byte { return encode(t, utf16le, s) }, "utf-16le"},
		{"german in UTF-16BE without BOM", germanStatement, func(t *testing.T, s string) []byte { return encode(t, utf16be, s) }, "utf-16be"},
		{"german in Windows-1252", germanStatement, func(t *testing.T, s string) []byte { return encode(t, charmap.Windows1252, s) }, "iso-8859-1"},
		{"german in ISO-8859-2", germanStatement, func(t *testing.T, s string) []byte { return encode(t, charmap.ISO8859_2, s) }, ""},
		{"german in CP852", germanStatement, func(t *testing.T, s string) []byte { return encode(t, charmap.CodePage852, s) }, "cp852"},
		{"czech in UTF-8", czechStatement, func(t *testing.T, s string) []byte { return []byte(s) }, "utf-8"},
		{"czech in Windows-1250", czechStatement, func(t *testing.T, s string) []byte { return encode(t, charmap.Windows1250, s) }, "windows-1250"},
		{"czech in ISO-8859-2", czechStatement, func(t *testing.T, s string) []byte { return encode(t, charmap.ISO8859_2, s) }, "iso-8859-2"},
		{"czech in CP852", czechStatement, func(t *testing.T, s string) []byte { return encode(t, charmap.CodePage852, s) }, "cp852"},
		{"czech in UTF-16LE", czechStatement, func(t *testing.T, s string) []byte { return append([]byte{0xFF, 0xFE}, encode(t, utf16le, s)...) }, "utf-16le"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ref, err := Parse([]byte(tc.text), statement.Options{})
			require.NoError(t, err)
			st, err := Parse(tc.data(t, tc.text), statement.Options{})
			require.NoError(t, err)
			if tc.charset != "" {
				require.Contains(t, st.Dialect, "charset="+tc.charset+";")
			}
			require.Len(t, st.Transactions, len(ref.Transactions))
			for i, want := range ref.Transactions {
				got := st.Transactions[i]
				require.Equal(t, want.Date, got.Date)
				require.Equal(t, want.ValueDate, got.ValueDate)
				require.True(t, want.Amount.Equal(got.Amount), "%s != %s", want.Amount, got.Amount)
				require.Equal(t, want.Description, got.Description)
				require.Equal(t, want.CounterpartyName, got.CounterpartyName)
				require.Equal(t, want.Currency, got.Currency)
			}
			// The decoded text is the original, letter for letter.
			require.Equal(t, strings.Split(tc.text, "\n")[1], st.Transactions[0].Raw)
		})
	}
}

func TestGermanStatementReadsAsWritten(t *testing.T) {
	t.Parallel()
	st, err := Parse([]byte(germanStatement), statement.Options{})
	require.NoError(t, err)
	require.Len(t, st.Transactions, 3)
	require.Equal(t, "-1234.56", st.Transactions[1].Amount.String())
	require.Equal(t, "Gebühr Öl Äpfel", st.Transactions[1].Description)
	require.Equal(t, "Überweisung Straße", st.Transactions[1].CounterpartyName)
	require.Equal(t, "2024-03-04", st.Transactions[1].ValueDate.String())
}
