package tabular

import (
	"unicode/utf8"

	"github.com/statementmatch/service/internal/statement"
)

// flagWords maps debit/credit marks, folded, to -1 (debit) or +1 (credit): D/C, DR/CR,
// S/H (Soll/Haben), Af/Bij, D/K (Lithuanian, Czech), Terhelés/Jóváírás, Дебет/Кредит, +/-.
var flagWords = func() map[string]int {
	m := map[string]int{}
	for _, w := range []string{"d", "dr", "db", "deb", "debit", "debet", "debetas", "dbit", "s", "soll", "af", "out",
		"outflow", "-", "minus", "w", "wn", "winien", "terheles", "kiadas", "дебет", "списання", "расход",
		"списание", "debito", "cargo", "addebito", "uscita", "withdrawal", "expense", "spent", "paid out",
		"money out", "ut", "uttag", "udbetaling", "vydaj", "odchozi", "obciazenie", "out of account"} {
		if f := fold(w); f != "" {
			m[f] = -1
		}
	}
	for _, w := range []string{"c", "cr", "crd", "credit", "kredit", "kreditas", "k", "h", "haben", "bij", "in",
		"inflow", "+", "plus", "ma", "jovairas", "bevetel", "кредит", "зарахування", "приход", "зачисление",
		"credito", "abono", "accredito", "entrata", "deposit", "income", "received", "paid in", "money in",
		"inn", "insattning", "indbetaling", "prijem", "prichozi", "uznanie", "crdt", "into account"} {
		if f := fold(w); f != "" {
			m[f] = +1
		}
	}
	return m
}()

// flagSign reads a debit/credit mark: -1 for debit, +1 for credit, 0 when the cell is no mark.
func flagSign(cell string) int {
	cell = statement.TrimSpace(cell)
	if cell == "" || len(cell) > 24 {
		return 0
	}
	if cell == "-" || cell == "+" {
		if cell == "-" {
			return -1
		}
		return 1
	}
	var buf [24]byte
	for i := 0; i < len(cell); i++ {
		c := cell[i]
		if c >= utf8.RuneSelf {
			return flagWords[fold(cell)]
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return flagWords[string(buf[:len(cell)])]
}
