package tabular

import "strings"

// signature is a bank export layout known by its exact header: the column names it starts
// with, in order. Only exports whose header no other bank uses name a bank; a layout that
// several banks share (the German savings banks' credit-card export) names the layout only.
type signature struct {
	layout string
	bank   string
	header []string
}

var signatures = func() []signature {
	list := []struct{ layout, bank, header string }{
		{"monzo", "Monzo", "id,created,amount,currency,local_amount,local_currency,category,emoji,description,address,notes,receipt"},
		{"monzo", "Monzo", "Transaction ID,Date,Time,Type,Name,Emoji,Category,Amount,Currency,Local amount,Local currency"},
		{"wise", "Wise", "TransferWise ID,Date,Amount,Currency,Description,Payment Reference,Running Balance"},
		{"wise", "Wise", "TransferWise ID,Date,Date Time,Amount,Currency,Description,Payment Reference,Running Balance"},
		{"paypal", "PayPal", "Date,Time,TimeZone,Name,Type,Status,Currency,Gross,Fee,Net"},
		{"kbc", "KBC", "Rekeningnummer,Rubrieknaam,Naam,Munt,Afschriftnummer,Datum,Omschrijving,Valuta,Bedrag,Saldo,credit,debet"},
		{"raiffeisenbank-cz", "Raiffeisenbank", "Datum provedení,Datum zaúčtování,Číslo účtu,Název účtu,Kategorie transakce,Číslo protiúčtu,Název protiúčtu,Typ transakce,Zpráva,Poznámka,VS,KS,SS,Zaúčtovaná částka,Měna účtu"},
		{"ceska-sporitelna", "Česká spořitelna", "Položka,Datum zaúčtování,Částka CZK,Bankovní spojení,Datum provedení,Variabilní symbol 1,Storno"},
		{"ceska-sporitelna", "Česká spořitelna", "Item,Posting date,Amount CZK,Bank account details,Execution date,Variable symbol 1,Cancellation"},
		{"ocbc", "OCBC Bank", "Transaction date,Value date,Description,Withdrawals (SGD),Deposits (SGD)"},
		{"erste-hu", "Erste Bank Hungary", "Tranzakció dátuma,Partner neve,Partner számlaszáma,Számla neve,Számlaszám,Tranzakció típusa,Tranzakció összege,Tranzakció devizaneme,Bevétel/Kiadás"},
		{"swedbank", "Swedbank", "Account No,,Date,Beneficiary,Details,Amount,Currency,D/K,Record ID,Code,Reference No,Doc. No"},
		{"banco-do-brasil", "Banco do Brasil", "Data,Dependencia Origem,Histórico,Data do Balancete,Número do documento,Valor"},
		{"monobank", "monobank", "Дата i час операції,Деталі операції,MCC,Сума в валюті картки (UAH),Сума в валюті операції,Валюта,Курс"},
		// Sense Bank was Alfa-Bank Ukraine until 2022; both exports are its.
		{"sensebank", "Sense Bank", "Дата і час,Статус,Тип,Деталі,Адреса,MCC,Cума списання,Cума зарахування"},
		{"sensebank-business", "Sense Bank", "Наш рахунок,Наш IBAN,Операція,Рахунок,IBAN,МФО банку контрагента,Найменування контрагента,Код контрагента,Призначення платежу"},
		{"procredit-ua", "ProCredit Bank", "ЄДРПОУ,Код ID НБУ,Рахунок,Валюта,Дата операції,Код операції,МФО банка,Назва банка,Рахунок кореспондента"},
		{"sparkasse-creditcard", "", "Umsatz getätigt von,Belegdatum,Buchungsdatum,Originalbetrag,Originalwährung,Umrechnungskurs,Buchungsbetrag,Buchungswährung"},
	}
	out := make([]signature, 0, len(list))
	for _, l := range list {
		cells := strings.Split(l.header, ",")
		for i := range cells {
			cells[i] = fold(cells[i])
		}
		out = append(out, signature{l.layout, l.bank, cells})
	}
	return out
}()

// matchSignature returns the known layout whose header the folded header cells start with.
func matchSignature(folded []string) *signature {
	for i := range signatures {
		s := &signatures[i]
		if len(folded) < len(s.header) {
			continue
		}
		ok := true
		for k, h := range s.header {
			if folded[k] != h {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
	}
	return nil
}
