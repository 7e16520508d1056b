package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// deGiro is a German current account (Girokonto) as cooperative banks print it: dd.mm. dates
// with no year, a two-line header (Buchungs- / tag, Wert- / stellung), amounts 1.234,56 with S
// (Soll, debit) or H (Haben, credit), SEPA details on lines 2 to 4, and the old and new
// balance (alter / neuer Kontostand) around the table.
func deGiro(r *rand.Rand, layout string, start, end time.Time, n int) *stmt {
	kinds := []kind{
		{"gehalt", 1, 280000, 460000, true, func(r *rand.Rand, t *txn) {
			ref := "LOHN" + t.date.Format("2006-01") + "-" + digits(r, 5)
			t.desc = []string{"Lohn, Gehalt, Rente", "Isar Maschinenbau GmbH", "EREF: " + ref, "IBAN: DE12 7002 0270 00" + digits(r, 2) + " " + digits(r, 4) + " " + digits(r, 2)}
			t.ref = ref
		}},
		{"lastschrift", 3, 1200, 95000, false, func(r *rand.Rand, t *txn) {
			ref := digits(r, 4) + "-" + alnum(r, 8)
			c := pick(r, []string{"Stadtwerke München GmbH", "Allianz Versicherungs-AG", "Telekom Deutschland GmbH", "Rundfunk ARD, ZDF, DRadio"})
			t.desc = []string{"Lastschrift", c, "Mandat: M" + digits(r, 7) + " Gläubiger-ID: DE98ZZZ0" + digits(r, 10), "EREF: " + ref}
			t.ref = ref
		}},
		{"karte", 5, 250, 15000, false, func(r *rand.Rand, t *txn) {
			t.desc = []string{"Kartenzahlung girocard", pick(r, []string{"REWE Markt GmbH//München/DE", "dm-drogerie markt//München/DE", "ARAL Station//Garching/DE", "Edeka Center//München/DE"}),
				fmt.Sprintf("%sT%02d:%02d Debitk.1 2026-12", t.date.Format("2006-01-02"), 8+r.IntN(12), r.IntN(60))}
		}},
		{"eingang", 1, 2000, 60000, true, func(r *rand.Rand, t *txn) {
			ref := "NOTPROVIDED"
			if r.IntN(2) == 0 {
				ref = "RE-" + digits(r, 6)
			}
			t.desc = []string{"Gutschrift Überweisung", "Anna Becker", "Rückzahlung Urlaub", "EREF: " + ref}
			t.ref = ref
		}},
	}
	opening := decimal.New(120000+r.Int64N(400000), -2)
	s := &stmt{layout: layout, account: "DE89370400440532013000", currency: "EUR", start: start, end: end}
	s.txns = genTxns(r, start, end, n, opening, -2, kinds)
	s.finish(opening)
	sh := func(d decimal.Decimal) string {
		if d.IsNegative() {
			return eu(d) + " S"
		}
		return eu(d) + " H"
	}
	df := func(t time.Time) string { return t.Format("02.01.2006") }
	d := &Doc{Lang: "de", Font: "DejaVu Sans", Footer: "Volks- und Raiffeisenbank Isartal eG. Bitte prüfen Sie die Buchungen; Einwendungen sind innerhalb von sechs Wochen zu erheben."}
	d.Blocks = append(d.Blocks, Title{"VR Bank Isartal eG"},
		Columns{[]string{"Herrn", "Thomas Müller", "Leopoldstraße 21", "80802 München"},
			[]string{fmt.Sprintf("Kontoauszug Nr. %d/%d", int(start.Month()), start.Year()), "Girokonto IBAN DE89 3704 0044 0532 0130 00", "BIC GENODEF1ISV", "Zeitraum " + df(start) + " - " + df(end), "Blatt 1"}},
		Para{"alter Kontostand vom " + df(start.AddDate(0, 0, -1)) + "    " + sh(opening), false})
	t := Table{Head: [][]string{{"Buchungs-", "Wert-", "Vorgang", "Betrag EUR"}, {"tag", "stellung", "", ""}}, Align: "llLr"}
	for _, x := range s.txns {
		t.Rows = append(t.Rows, []string{x.date.Format("02.01."), x.date.Format("02.01."), strings.Join(x.desc, "\n"), sh(x.amount)})
	}
	d.Blocks = append(d.Blocks, t,
		Para{"neuer Kontostand vom " + df(end) + "    " + sh(*s.closing), false},
		Box{Rows: [][2]string{{"Summe Soll", eu(sumOf(s.txns, false)) + " S"}, {"Summe Haben", eu(sumOf(s.txns, true)) + " H"}},
			Side: []string{"Jetzt neu: Bezahlen mit dem Smartphone.", "Fragen Sie Ihre Beraterin."}},
		Para{"Rechnungsabschluss: Der Saldo gilt als anerkannt, wenn Sie nicht innerhalb von sechs Wochen nach Zugang widersprechen. Guthaben sind als Einlagen nach Maßgabe des Einlagensicherungsgesetzes entschädigungsfähig.", true})
	s.doc = d
	return s
}
