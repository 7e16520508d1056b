package tabular

import (
	"github.com/statementmatch/service/internal/statement"
	"strings"
	"unicode/utf8"
)

// labelKind is what a label in a preamble, footer or summary row announces.
type labelKind uint8

const (
	labelNone labelKind = iota
	labelOpening
	labelClosing
	// labelTurnover is a row of turnover per direction (Swedbank's code 82 rows).
	labelTurnover
	// labelTotal is a totals row, skipped.
	labelTotal
	labelAccount
	labelCurrency
	labelPeriod
	// labelCredits and labelDebits are a summary's totals of money in and money out, checked
	// against the transactions.
	labelCredits
	labelDebits
)

var labelLists = []struct {
	kind  labelKind
	names string
}{
	{labelOpening, "opening balance|opening bal|opening|opening book balance|balance brought forward|brought forward|previous balance|start balance|starting balance|" +
		"beginning balance|balance at start|initial balance|balance at the beginning|" +
		"anfangssaldo|alter kontostand|alter saldo|saldo alt|vorheriger kontostand|startsaldo|anfangsbestand|kontostand alt|" +
		"beginsaldo|begin saldo|saldo begin|oud saldo|vorig saldo|" +
		"solde initial|solde precedent|solde de debut|ancien solde|solde debut de periode|solde au debut|" +
		"saldo inicial|saldo anterior|saldo iniziale|saldo precedente|saldo di apertura|" +
		"saldo poczatkowe|saldo otwarcia|saldo na poczatek|" +
		"pocatecni zustatek|pocatecni stav|zustatek na zacatku|pociatocny zostatok|pociatocny stav|" +
		"nyito egyenleg|nyitoegyenleg|" +
		"ingaende saldo|ingaende balans|primo saldo|primosaldo|inngaende saldo|saldo primo|" +
		"початковий залишок|вхідний залишок|залишок на початок|залишок на початок періоду|вхідне сальдо|" +
		"входящий остаток|остаток на начало|остаток на начало периода|входящее сальдо|" +
		"pradinis likutis|likutis pradziai|pradinis balansas|" +
		"sold initial|sold anterior|sold la inceputul perioadei"},
	{labelClosing, "closing balance|closing bal|closing|closing book balance|ending balance|end balance|final balance|balance carried forward|carried forward|" +
		"new balance|balance at end|balance at the end|" +
		"endsaldo|schlusssaldo|neuer kontostand|neuer saldo|saldo neu|endbestand|kontostand neu|" +
		"eindsaldo|nieuw saldo|" +
		"solde final|nouveau solde|solde fin de periode|solde a la fin|" +
		"saldo final|saldo finale|saldo di chiusura|saldo atual|" +
		"saldo koncowe|saldo zamkniecia|saldo na koniec|" +
		"konecny zustatek|konecny stav|zustatek na konci|konecny zostatok|" +
		"zaro egyenleg|zaroegyenleg|" +
		"utgaende saldo|ultimo saldo|ultimosaldo|saldo ultimo|" +
		"кінцевий залишок|вихідний залишок|залишок на кінець|залишок на кінець періоду|вихідне сальдо|" +
		"исходящий остаток|остаток на конец|остаток на конец периода|исходящее сальдо|" +
		"galutinis likutis|likutis pabaigai|galutinis balansas|s a l d o|" +
		"sold final|sold la sfarsitul perioadei"},
	{labelTurnover, "turnover|turnovers|obrat|obraty|obroty|umsatze|apyvarta|оборот|обороти|обороты|rulaj|rulaj debitor|rulaj creditor"},
	{labelTotal, "total|totals|sum|summe|gesamt|gesamtsumme|celkem|spolu|osszesen|razem|suma|i alt|totalt|totaal|totale|" +
		"итого|всього|разом|is viso|total amount|totaal bedrag|gesamtbetrag"},
	{labelAccount, "account|account number|account no|account nr|account details for|iban|account iban|" +
		"konto|kontonummer|konto iban|rekening|rekeningnummer|compte|numero de compte|n de compte|cuenta|numero de cuenta|" +
		"conto|numero conto|conta|numero da conta|rachunek|numer rachunku|cislo uctu|ucet|szamlaszam|" +
		"рахунок|номер рахунку|счет|номер счета|saskaita|saskaitos nr|kontonr|bankkonto|cod iban|numar cont|cont"},
	{labelCurrency, "currency|account currency|wahrung|kontowahrung|devise|moneda|divisa|valuta|waluta|mena|mena uctu|" +
		"deviza|devizanem|валюта|валюта рахунку|valiuta|munt|moneda contului"},
	{labelCredits, "credits|total credits|total credit|total deposits|total deposits and credits|total money in|money in|total paid in|paid in|" +
		"deposits/credits|total deposits/credits|sum of credits|credits total|" +
		"summe gutschriften|summe haben|gutschriften gesamt|totaal bij|totaal bijschrijvingen|total des credits|" +
		"total creditos|total de creditos|total de abonos|total abonos|total entradas|total de entradas|" +
		"total creditos r$|total de depositos|total depositos|entradas|creditos|abonos|ingresos"},
	{labelDebits, "debits|total debits|total debit|total withdrawals|total withdrawals and debits|total money out|money out|total paid out|paid out|" +
		"withdrawals/debits|total withdrawals/debits|sum of debits|debits total|" +
		"summe lastschriften|summe soll|lastschriften gesamt|totaal af|totaal afschrijvingen|total des debits|" +
		"total debitos|total de debitos|total de cargos|total cargos|total saidas|total de saidas|total de retiros|total retiros|saidas|debitos|cargos|retiros"},
	{labelPeriod, "period|statement period|zeitraum|periode|periodo|okres|obdobi|idoszak|periode|період|за період|период|laikotarpis|perioada"},
}

var labels = func() map[string]labelKind {
	m := map[string]labelKind{}
	for _, l := range labelLists {
		for _, n := range strings.Split(l.names, "|") {
			if f := fold(n); f != "" {
				if _, dup := m[f]; !dup {
					m[f] = l.kind
				}
			}
		}
	}
	return m
}()

// labelOf returns what a cell announces: the whole cell is a label ("Opening balance",
// "Saldo Anterior"), or begins with one followed by a colon, whose value then follows in the
// same cell ("Account: 123"). The value is returned as written.
func labelOf(cell string) (kind labelKind, value string) {
	cell = statement.TrimSpace(cell)
	if cell == "" || len(cell) > 160 {
		return labelNone, ""
	}
	if len(cell) <= 64 {
		if k := lookupLabel(cell); k != labelNone {
			return k, ""
		}
	}
	if i := strings.IndexByte(cell, ':'); i > 0 && i <= 64 {
		if k := lookupLabel(cell[:i]); k != labelNone {
			return k, statement.TrimSpace(cell[i+1:])
		}
		// "Деталізація операцій за рахунком: UA..." names the account in its last words.
		f := fold(cell[:i])
		for _, w := range []string{"рахунком", "рахунку", "счету", "account", "konto", "rekening"} {
			if strings.HasSuffix(f, " "+w) {
				return labelAccount, statement.TrimSpace(cell[i+1:])
			}
		}
	}
	return labelNone, ""
}

// lookupLabel folds s and looks it up, skipping the fold's allocation for short ASCII text.
func lookupLabel(s string) labelKind {
	var buf [64]byte
	n := 0
	ascii := true
	space := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= '0' && c <= '9':
			return labelNone // no label has digits; most descriptions do
		case c >= 'a' && c <= 'z', c == '/', c == '+':
		default:
			if !space && n < len(buf) {
				buf[n] = ' '
				n++
				space = true
			}
			continue
		}
		if n >= len(buf) {
			return labelNone
		}
		buf[n] = c
		n++
		space = false
	}
	if ascii {
		for n > 0 && buf[n-1] == ' ' {
			n--
		}
		return labels[string(buf[:n])]
	}
	return labels[fold(s)]
}
