package tabular

import (
	"strings"
)

// role is what a column holds.
type role uint8

const (
	roleNone role = iota
	// roleDate is the booking (posting) date.
	roleDate
	// roleTxDate is the date of the purchase or order (transaction, execution, receipt date):
	// the date when no booking date is given, else the value date when none is given.
	roleTxDate
	roleValueDate
	// roleAmount is one signed (or flag-signed) amount column.
	roleAmount
	roleDebit
	roleCredit
	// roleFlag is a debit/credit mark: D/C, DR/CR, S/H, Af/Bij, +/-.
	roleFlag
	roleCurrency
	roleDesc
	// roleType is a transaction type in words, a description of last resort.
	roleType
	rolePayee
	roleCPAccount
	// roleAccount is an account column that may be ours or the counterparty's; its content
	// decides.
	roleAccount
	// roleOwnAccount is explicitly the statement's own account ("Our account", "Наш рахунок").
	roleOwnAccount
	roleRef
	roleBalance
	// roleIgnore claims columns whose names contain other roles' words: "Exchange rate",
	// "Total fees", "Time".
	roleIgnore
	numRoles
)

var roleNames = [numRoles]string{"", "date", "txdate", "valuedate", "amount", "debit", "credit", "flag",
	"currency", "description", "type", "payee", "cpaccount", "account", "ownaccount", "reference", "balance", "ignore"}

func (r role) String() string { return roleNames[r] }

// vocabulary lists header names by role and language, with a score: an exact match of the
// whole (folded) header scores it, a match of some of its words scores 40 less. For references
// the score is also the priority when a row fills several reference columns.
var vocabulary = []struct {
	role    role
	score   int
	lang    string
	phrases string
}{
	// Booking date.
	{roleDate, 100, "en", "date|booking date|posting date|posted date|post date|date posted|entry date|book date|booked date|created|transaction posted date|settlement date"},
	{roleDate, 100, "de", "buchungsdatum|buchungstag|buchung|datum|buchungsdat|buchungs datum"},
	{roleDate, 100, "nl", "boekdatum|boekingsdatum|datum"},
	{roleDate, 100, "fr", "date de l operation|date operation|date d operation|date comptable|date de comptabilisation|date de l ecriture"},
	{roleDate, 100, "es", "fecha|fecha contable|fecha operacion|fecha de operacion|f operacion|fecha movimiento"},
	{roleDate, 100, "it", "data|data contabile|data operazione|data registrazione|data movimento"},
	{roleDate, 100, "ro", "data inregistrare|data inregistrarii|data contabila|data contabilizare|data"},
	{roleDate, 100, "pt", "data lancamento|data do lancamento|data movimento|data mov|data de lancamento"},
	{roleDate, 100, "pl", "data ksiegowania|data operacji|data zaksiegowania"},
	{roleDate, 100, "cs", "datum zauctovani|datum zuctovani|datum pohybu|datum operace"},
	{roleDate, 100, "sk", "datum zauctovania|datum spracovania|datum pohybu"},
	{roleDate, 100, "hu", "datum|konyvelesi datum|konyveles datuma|konyveles napja"},
	{roleDate, 100, "da", "dato|bogfort|bogforingsdato|bogfort dato|bogforingsdag"},
	{roleDate, 100, "sv", "bokforingsdag|bokforingsdatum|bokford|bokfort"},
	{roleDate, 100, "no", "bokforingsdato|bokfort dato|bokfort"},
	{roleDate, 100, "uk", "дата|дата проведення|дата операції|дата і час|дата i час операції|дата та час операції|дата i час|дата транзакції"},
	{roleDate, 100, "ru", "дата операции|дата проводки|дата и время|дата и время операции"},
	{roleDate, 100, "lt", "operacijos data|data|irasymo data"},
	// Transaction (purchase, order) date.
	{roleTxDate, 100, "en", "transaction date|trans date|purchase date|execution date|operation date|date of transaction|trade date|started date|receipt date"},
	{roleTxDate, 100, "de", "belegdatum|umsatzdatum|transaktionsdatum|kaufdatum|auftragsdatum"},
	{roleTxDate, 100, "nl", "transactiedatum|uitvoeringsdatum"},
	{roleTxDate, 100, "fr", "date de transaction|date d achat|date d execution"},
	{roleTxDate, 100, "es", "fecha transaccion|fecha de transaccion|fecha compra"},
	{roleTxDate, 100, "it", "data transazione|data acquisto"},
	{roleTxDate, 100, "ro", "data tranzactiei|data tranzactie|data operatiunii|data efectuarii"},
	{roleTxDate, 100, "pt", "data transacao|data da transacao|data compra"},
	{roleTxDate, 100, "pl", "data transakcji|data zlecenia"},
	{roleTxDate, 100, "cs", "datum provedeni|datum transakce"},
	{roleTxDate, 100, "sk", "datum transakcie|datum realizacie"},
	{roleTxDate, 100, "hu", "tranzakcio datuma|tranzakcio datum"},
	{roleTxDate, 100, "sv", "transaktionsdatum|transaktionsdag"},
	{roleTxDate, 100, "da", "transaktionsdato|kobsdato"},
	{roleTxDate, 100, "no", "transaksjonsdato|kjopsdato"},
	// Value date.
	{roleValueDate, 100, "en", "value date|valuedate|value dated|value dt|val dt"},
	{roleValueDate, 100, "de", "valuta|valutadatum|wertstellung|wertstellungsdatum|wertstellungstag|wert"},
	{roleValueDate, 100, "nl", "valutadatum|rentedatum|valuta"},
	{roleValueDate, 100, "fr", "date de valeur|date valeur|valeur"},
	{roleValueDate, 100, "es", "fecha valor|fecha de valor|f valor"},
	{roleValueDate, 100, "it", "data valuta|valuta"},
	{roleValueDate, 100, "ro", "data valutei|data valuta"},
	{roleValueDate, 100, "pt", "data valor|data valuta|data do balancete"},
	{roleValueDate, 100, "pl", "data waluty|data walutowania"},
	{roleValueDate, 100, "cs", "datum valuty|datum splatnosti"},
	{roleValueDate, 100, "sk", "datum valuty|datum splatnosti"},
	{roleValueDate, 100, "hu", "erteknap|ertek nap|erteknap datuma"},
	{roleValueDate, 100, "da", "rentedato|valor|valordato|valordag"},
	{roleValueDate, 100, "sv", "valutadag|valutadatum|rantedag"},
	{roleValueDate, 100, "no", "rentedato|valutadato"},
	{roleValueDate, 100, "uk", "дата валютування"},
	{roleValueDate, 100, "ru", "дата валютирования"},
	{roleValueDate, 100, "lt", "valiutavimo data"},
	// Signed amount.
	{roleAmount, 100, "en", "amount|transaction amount|amount in account currency|value|sum|net amount|money|billing amount|amount in local currency|booked amount|settled amount"},
	{roleAmount, 90, "en", "net"},
	{roleAmount, 80, "en", "gross"},
	{roleAmount, 100, "de", "betrag|umsatz|buchungsbetrag|umsatzbetrag|betrag in eur|soll/haben betrag"},
	{roleAmount, 100, "nl", "bedrag|transactiebedrag|bedrag eur"},
	{roleAmount, 100, "fr", "montant|montant de l operation|montant operation|somme"},
	{roleAmount, 100, "es", "importe|cantidad|monto|importe operacion"},
	{roleAmount, 100, "it", "importo|importo operazione"},
	{roleAmount, 100, "ro", "suma|valoare|suma tranzactiei|suma tranzactie"},
	{roleAmount, 100, "pt", "valor|montante|quantia|valor lancamento"},
	{roleAmount, 100, "pl", "kwota|kwota operacji|kwota transakcji|kwota w walucie rachunku"},
	{roleAmount, 100, "cs", "castka|zauctovana castka|objem|castka transakce"},
	{roleAmount, 100, "sk", "suma|ciastka|suma transakcie"},
	{roleAmount, 100, "hu", "osszeg|tranzakcio osszege|konyvelt osszeg|osszeg ft"},
	{roleAmount, 100, "da", "belob|bel b|belob dkk"},
	{roleAmount, 100, "sv", "belopp"},
	{roleAmount, 100, "no", "belop|belop nok"},
	{roleAmount, 100, "uk", "сума|сума операції|сума в валюті картки|сума у валюті картки|сума в валюті рахунку"},
	{roleAmount, 100, "ru", "сумма|сумма операции|сумма в валюте счета|сумма в валюте карты"},
	{roleAmount, 100, "lt", "suma|operacijos suma"},
	// Debit (money out) column.
	{roleDebit, 100, "en", "debit|debits|debit amount|withdrawal|withdrawals|paid out|money out|outflow|spent|out|amount debited|withdrawal amount|payments|charges|dr|dr amount|amount dr|withdrawal amt|withdrawals dr|debit dr|withdrawal dr|debit amt|withdrawn|withdrawals/debits|withdrawals debits|debits/withdrawals|checks/debits"},
	{roleDebit, 100, "de", "soll|belastung|ausgang|ausgabe|ausgaben|lastschriften|betrag soll"},
	{roleDebit, 100, "nl", "debet|af|afschrijving|bedrag af|af bedrag|afgeschreven|afschrijvingen"},
	{roleDebit, 100, "fr", "debit|debits|montant debit"},
	{roleDebit, 100, "es", "cargo|cargos|debe|debito|gastos|retiro|retiros|debitos"},
	{roleDebit, 100, "it", "addebiti|dare|uscite|addebito"},
	{roleDebit, 100, "ro", "suma debit|debit|debitare"},
	{roleDebit, 100, "pt", "debito|saida|saidas|debitos"},
	{roleDebit, 100, "pl", "obciazenia|wyplyw|winien|obciazenie"},
	{roleDebit, 100, "cs", "vydaj|vydaje|debet|odchozi|odchozi platba"},
	{roleDebit, 100, "sk", "vydaj|debet|odchadzajuce"},
	{roleDebit, 100, "hu", "terheles|kiadas|terhelesek"},
	{roleDebit, 100, "da", "udbetaling|haevet|ud"},
	{roleDebit, 100, "sv", "uttag"},
	{roleDebit, 100, "no", "ut|ut av konto|uttak|ut fra konto"},
	{roleDebit, 100, "uk", "дебет|списання|сума списання|витрата|видаток"},
	{roleDebit, 100, "ru", "дебет|расход|списание|сумма списания"},
	{roleDebit, 100, "lt", "debetas|isleista"},
	// Credit (money in) column.
	{roleCredit, 100, "en", "credit|credits|credit amount|deposit|deposits|paid in|money in|inflow|received|in|amount credited|deposit amount|cr|cr amount|amount cr|deposit amt|deposits cr|credit cr|deposit cr|credit amt|deposits/credits|deposits credits|credits/deposits"},
	{roleCredit, 100, "de", "haben|gutschrift|eingang|einnahme|einnahmen|gutschriften|betrag haben"},
	{roleCredit, 100, "nl", "credit|bij|bijschrijving|bedrag bij|bij bedrag|bijgeschreven|bijschrijvingen"},
	{roleCredit, 100, "fr", "credit|credits|montant credit"},
	{roleCredit, 100, "es", "abono|abonos|haber|credito|ingreso|ingresos|deposito|depositos|creditos"},
	{roleCredit, 100, "it", "accrediti|avere|entrate|accredito"},
	{roleCredit, 100, "ro", "suma credit|credit|creditare"},
	{roleCredit, 100, "pt", "credito|entrada|entradas|creditos"},
	{roleCredit, 100, "pl", "uznania|wplyw|ma|uznanie"},
	{roleCredit, 100, "cs", "prijem|prijmy|kredit|prichozi|prichozi platba"},
	{roleCredit, 100, "sk", "prijem|kredit|prichadzajuce"},
	{roleCredit, 100, "hu", "jovairas|bevetel|jovairasok"},
	{roleCredit, 100, "da", "indbetaling|indsat|ind"},
	{roleCredit, 100, "sv", "insattning"},
	{roleCredit, 100, "no", "inn|inn pa konto|innskudd"},
	{roleCredit, 100, "uk", "кредит|зарахування|сума зарахування|надходження"},
	{roleCredit, 100, "ru", "кредит|приход|зачисление|сумма зачисления"},
	{roleCredit, 100, "lt", "kreditas|gauta"},
	// Debit/credit mark.
	{roleFlag, 100, "en", "d/c|dr/cr|cr/dr|c/d|debit/credit|credit/debit|debit or credit|credit debit indicator|credit/debit indicator|balance impact|direction|transaction type|dc|d c|cd indicator"},
	{roleFlag, 60, "en", "type"},
	{roleFlag, 100, "de", "s/h|soll/haben|soll haben|h/s"},
	{roleFlag, 100, "nl", "af bij|af/bij|bij/af|credit/debet|debet/credit"},
	{roleFlag, 100, "es", "d/h|debe/haber"},
	{roleFlag, 100, "cs", "d/k|typ pohybu"},
	{roleFlag, 100, "hu", "bevetel/kiadas|t/j"},
	{roleFlag, 100, "pl", "wn/ma|typ operacji"},
	{roleFlag, 100, "uk", "операція|тип операції|дебет/кредит"},
	{roleFlag, 100, "lt", "d/k|debetas/kreditas"},
	{roleFlag, 100, "sv", "+/-"},
	// Currency.
	{roleCurrency, 100, "en", "currency|ccy|currency code|cur|curr"},
	{roleCurrency, 100, "de", "wahrung|waehrung|buchungswahrung|whg"},
	{roleCurrency, 100, "nl", "munt|valuta|valuta rekening|muntsoort"},
	{roleCurrency, 100, "fr", "devise|monnaie"},
	{roleCurrency, 100, "es", "divisa|moneda"},
	{roleCurrency, 100, "it", "divisa|valuta"},
	{roleCurrency, 100, "ro", "moneda|valuta"},
	{roleCurrency, 100, "pt", "moeda"},
	{roleCurrency, 100, "pl", "waluta|waluta rachunku|waluta operacji"},
	{roleCurrency, 100, "cs", "mena|mena uctu"},
	{roleCurrency, 100, "sk", "mena"},
	{roleCurrency, 100, "hu", "devizanem|penznem|deviza|tranzakcio devizaneme"},
	{roleCurrency, 100, "da", "valuta"},
	{roleCurrency, 100, "sv", "valuta"},
	{roleCurrency, 100, "no", "valuta"},
	{roleCurrency, 100, "uk", "валюта|валюта рахунку"},
	{roleCurrency, 100, "ru", "валюта|валюта счета"},
	{roleCurrency, 100, "lt", "valiuta"},
	// Description.
	{roleDesc, 100, "en", "description|details|detail|memo|narrative|narration|particulars|transaction details|transaction description|remarks|remittance information|purpose|payment details|transaction narrative|reference text"},
	{roleDesc, 70, "en", "notes|note|message|item|information|additional information"},
	{roleDesc, 100, "de", "verwendungszweck|buchungstext|beschreibung|text|umsatztext|transaktionsbeschreibung|vorgang|buchungsinformationen|zahlungsgrund"},
	{roleDesc, 80, "de", "transaktionsbeschreibung zusatz|zusatzinformation|notiz"},
	{roleDesc, 100, "nl", "omschrijving|mededelingen|vrije mededeling|naam omschrijving|beschrijving|omschrijving 1"},
	{roleDesc, 90, "nl", "omschrijving 2|omschrijving 3"},
	{roleDesc, 100, "fr", "libelle|detail|details|detail de l ecriture|description|motif|libelle operation|libelle de l operation|informations complementaires"},
	{roleDesc, 100, "es", "concepto|descripcion|detalle|observaciones|movimiento"},
	{roleDesc, 100, "it", "descrizione|causale|dettagli|descrizione operazione"},
	{roleDesc, 100, "ro", "descrierea tranzactiei|descriere tranzactie|descriere|detalii|detalii tranzactie|explicatii"},
	{roleDesc, 100, "pt", "historico|descricao|detalhes|descritivo|lancamento"},
	{roleDesc, 100, "pl", "opis|tytul|tytul operacji|szczegoly|opis operacji|szczegoly transakcji|tytulem"},
	{roleDesc, 100, "cs", "popis|zprava|zprava pro prijemce|zprava pro me|poznamka|popis transakce|detail"},
	{roleDesc, 70, "cs", "polozka|klientska poznamka"},
	{roleDesc, 100, "sk", "popis|sprava|poznamka|sprava pre prijemcu"},
	{roleDesc, 100, "hu", "kozlemeny|megjegyzes|leiras|reszletek"},
	{roleDesc, 100, "da", "tekst|beskrivelse|posteringstekst"},
	{roleDesc, 100, "sv", "text|beskrivning|meddelande|specifikation"},
	{roleDesc, 100, "no", "tekst|beskrivelse|forklaring"},
	{roleDesc, 100, "uk", "призначення платежу|деталі|деталі операції|опис|призначення|опис операції"},
	{roleDesc, 100, "ru", "назначение платежа|описание|детали|описание операции"},
	{roleDesc, 100, "lt", "paskirtis|aprasymas|mokejimo paskirtis|detales"},
	// Transaction type in words.
	{roleType, 100, "en", "transaction type|type of transaction|operation type"},
	{roleType, 70, "en", "type|transaction code"},
	{roleType, 100, "de", "buchungsart|umsatzart|transaktionsart|buchungsschlussel"},
	{roleType, 100, "nl", "mutatiesoort|type verrichting|transactiesoort"},
	{roleType, 100, "cs", "typ transakce|typ platby|kategorie transakce"},
	{roleType, 100, "hu", "tranzakcio tipusa"},
	{roleType, 100, "uk", "тип"},
	{roleType, 100, "pl", "typ transakcji"},
	// Counterparty name.
	{rolePayee, 100, "en", "payee|payee name|payer|payer name|counterparty|counterparty name|beneficiary|beneficiary name|merchant|merchant name|recipient|sender|originator|recipient name|sender name|payer/payee|payee/payer|counter party|other party"},
	{rolePayee, 70, "en", "name|partner"},
	{rolePayee, 100, "de", "empfanger|auftraggeber|zahlungsempfanger|begunstigter|beguenstigter|begunstigter/zahlungspflichtiger|auftraggeber/empfanger|gegenpartei|name zahlungsbeteiligter|zahlungspflichtiger|empfanger/auftraggeber"},
	{rolePayee, 70, "de", "name"},
	{rolePayee, 100, "nl", "naam tegenpartij|tegenpartij|naam begunstigde|naam tegenrekening"},
	{rolePayee, 70, "nl", "naam"},
	{rolePayee, 100, "fr", "beneficiaire|tiers|emetteur|donneur d ordre"},
	{rolePayee, 70, "fr", "nom"},
	{rolePayee, 100, "es", "beneficiario|ordenante"},
	{rolePayee, 70, "es", "nombre"},
	{rolePayee, 100, "it", "beneficiario|ordinante|controparte"},
	{rolePayee, 100, "ro", "nume/denumire ordonator/beneficiar|nume ordonator/beneficiar|ordonator/beneficiar|beneficiar|ordonator|nume beneficiar"},
	{rolePayee, 100, "pt", "favorecido|beneficiario|contraparte"},
	{rolePayee, 70, "pt", "nome"},
	{rolePayee, 100, "pl", "nazwa kontrahenta|kontrahent|odbiorca|nadawca|nadawca/odbiorca|nadawca odbiorca|odbiorca/nadawca|nazwa odbiorcy|nazwa nadawcy"},
	{rolePayee, 100, "cs", "nazev protiuctu|protistrana|nazev protistrany|nazev uctu protistrany|counteraccount name"},
	{rolePayee, 100, "sk", "nazov protiuctu|nazov protistrany|protistrana"},
	{rolePayee, 100, "hu", "partner neve|kedvezmenyezett|kedvezmenyezett neve|partner nev"},
	{rolePayee, 100, "da", "modtager|afsender|modtagernavn"},
	{rolePayee, 70, "da", "navn"},
	{rolePayee, 100, "sv", "mottagare|avsandare|betalningsmottagare"},
	{rolePayee, 70, "sv", "namn"},
	{rolePayee, 100, "no", "mottaker|betaler|mottakernavn"},
	{rolePayee, 100, "uk", "найменування контрагента|контрагент|отримувач|кореспондент|назва контрагента|платник"},
	{rolePayee, 100, "ru", "контрагент|получатель|наименование контрагента|плательщик|корреспондент"},
	{rolePayee, 100, "lt", "gavejas|moketojas|gavejas/moketojas|gavejo pavadinimas"},
	// Counterparty account.
	{roleCPAccount, 100, "en", "counterparty account|payee account|payee account number|beneficiary account|counter account|counterparty iban|to account|from account|beneficiary iban|payer account|account of counterparty|bank account details|other account"},
	{roleCPAccount, 100, "de", "gegenkonto|iban empfanger|iban auftraggeber|empfanger iban|kontonummer/iban|iban/kontonummer|iban zahlungsbeteiligter|gegenkonto iban|konto gegenpartei"},
	{roleCPAccount, 100, "nl", "tegenrekening|rekeningnummer tegenpartij|tegenrekening iban/bban|rekening tegenpartij|tegenrekeningnummer"},
	{roleCPAccount, 100, "fr", "compte contrepartie|iban beneficiaire|compte beneficiaire|compte tiers"},
	{roleCPAccount, 100, "es", "cuenta contrapartida|cuenta destino|cuenta beneficiario|cuenta ordenante"},
	{roleCPAccount, 100, "it", "conto controparte|iban controparte|iban beneficiario"},
	{roleCPAccount, 100, "ro", "nr cont in/din care se efectueaza tranzactiile|nr cont ordonator/beneficiar|cont ordonator/beneficiar|cont beneficiar|iban beneficiar|cont ordonator"},
	{roleCPAccount, 100, "pt", "conta contraparte|conta destino|conta favorecido"},
	{roleCPAccount, 100, "pl", "rachunek kontrahenta|numer rachunku kontrahenta|rachunek nadawcy/odbiorcy|rachunek odbiorcy|rachunek nadawcy|konto kontrahenta"},
	{roleCPAccount, 100, "cs", "cislo protiuctu|protiucet|bankovni spojeni|ucet protistrany|cislo uctu protistrany"},
	{roleCPAccount, 100, "sk", "cislo protiuctu|protiucet|ucet protistrany"},
	{roleCPAccount, 100, "hu", "partner szamlaszama|partner szamlaszam|ellenoldali szamlaszam"},
	{roleCPAccount, 100, "da", "modtagerkonto|modkonto"},
	{roleCPAccount, 100, "sv", "motkonto|mottagarkonto"},
	{roleCPAccount, 100, "no", "motkonto|mottakerkonto"},
	{roleCPAccount, 100, "uk", "рахунок кореспондента|рахунок контрагента|iban контрагента|рахунок отримувача"},
	{roleCPAccount, 100, "ru", "счет контрагента|счет получателя|счет корреспондента"},
	{roleCPAccount, 100, "lt", "gavejo saskaita|moketojo saskaita"},
	// Account (ours or theirs, by content).
	{roleAccount, 70, "en", "account|account number|account no|account nr|iban|account iban|card number|card no"},
	{roleAccount, 70, "de", "konto|kontonummer|iban|konto iban"},
	{roleAccount, 70, "nl", "rekeningnummer|rekening|iban|iban/bban"},
	{roleAccount, 70, "fr", "compte|numero de compte|iban"},
	{roleAccount, 70, "es", "cuenta|numero de cuenta"},
	{roleAccount, 70, "it", "conto|numero conto"},
	{roleAccount, 70, "pt", "conta|numero da conta"},
	{roleAccount, 70, "pl", "rachunek|numer rachunku|numer konta"},
	{roleAccount, 70, "cs", "cislo uctu|ucet"},
	{roleAccount, 70, "sk", "cislo uctu|ucet"},
	{roleAccount, 70, "hu", "szamlaszam"},
	{roleAccount, 70, "da", "kontonummer|konto"},
	{roleAccount, 70, "sv", "kontonummer|konto"},
	{roleAccount, 70, "uk", "рахунок|номер рахунку"},
	{roleAccount, 70, "ru", "счет|номер счета"},
	{roleAccount, 70, "lt", "saskaita|saskaitos nr|saskaitos numeris"},
	{roleOwnAccount, 100, "en", "our account|own account|my account|our iban|account holder iban"},
	{roleOwnAccount, 100, "de", "auftragskonto|eigenes konto|auftraggeberkonto"},
	{roleOwnAccount, 100, "uk", "наш рахунок|наш iban|власний рахунок"},
	{roleOwnAccount, 100, "ru", "наш счет|собственный счет"},
	// References, by priority.
	{roleRef, 100, "en", "end to end id|end to end reference|end to end|endtoend id|e2e id|eref"},
	{roleRef, 100, "de", "ende zu ende referenz|end to end referenz"},
	{roleRef, 95, "en", "payment reference|remittance reference|customer reference"},
	{roleRef, 95, "cs", "reference platby"},
	{roleRef, 95, "nl", "betalingskenmerk|gestructureerde mededeling|betalingsreferentie"},
	{roleRef, 95, "de", "kundenreferenz|zahlungsreferenz"},
	{roleRef, 90, "cs", "vs|variabilni symbol|variable symbol|variabilni symbol 1|variable symbol 1"},
	{roleRef, 90, "sk", "variabilny symbol"},
	{roleRef, 85, "en", "reference|ref|reference no|reference number|ref no|your reference"},
	{roleRef, 85, "de", "referenz|mandatsreferenz|buchungsreferenz"},
	{roleRef, 85, "nl", "referentie|kenmerk"},
	{roleRef, 85, "fr", "reference|ref|numero de reference"},
	{roleRef, 85, "es", "referencia|referencia 1"},
	{roleRef, 85, "it", "riferimento|numero riferimento|cro|trn"},
	{roleRef, 85, "ro", "nr op|numar op|referinta|numar referinta"},
	{roleRef, 85, "pt", "referencia"},
	{roleRef, 85, "pl", "numer referencyjny|nr referencyjny|referencje"},
	{roleRef, 85, "hu", "megbizas azonosito|tranzakcio azonosito|azonosito"},
	{roleRef, 85, "da", "reference|referencenummer"},
	{roleRef, 85, "sv", "referens|referensnummer"},
	{roleRef, 85, "no", "referanse|arkivreferanse"},
	{roleRef, 85, "lt", "nuoroda|imokos kodas"},
	{roleRef, 80, "en", "check number|check no|cheque number|cheque no|chq no|check|cheque|check #"},
	{roleRef, 80, "fr", "numero de cheque|no cheque"},
	{roleRef, 70, "en", "transaction reference|transaction reference number|bank reference|transaction id|transferwise id|receipt id|record id|reference id"},
	{roleRef, 70, "cs", "referencni cislo transakce|id transakce"},
	{roleRef, 70, "nl", "transactiereferentie"},
	{roleRef, 60, "en", "id|doc no|document number|document no|number"},
	{roleRef, 60, "pt", "numero do documento|documento|n documento|num documento"},
	{roleRef, 60, "es", "num documento|numero documento"},
	{roleRef, 60, "de", "belegnummer|beleg"},
	{roleRef, 60, "uk", "номер документа|номер операції"},
	{roleRef, 60, "ru", "номер документа"},
	{roleRef, 60, "lt", "dokumento nr|dok nr"},
	{roleRef, 30, "cs", "ks|konstantni symbol|constant symbol|ss|specificky symbol|specific symbol"},
	{roleRef, 30, "sk", "konstantny symbol|specificky symbol"},
	// Running balance.
	{roleBalance, 100, "en", "balance|running balance|balance after|account balance|balance after transaction|running total|available balance after"},
	{roleBalance, 100, "de", "saldo|kontostand|saldo nach buchung|kontostand nach buchung"},
	{roleBalance, 100, "nl", "saldo|saldo na mutatie|saldo na trn|saldo na transactie"},
	{roleBalance, 100, "fr", "solde|solde apres operation"},
	{roleBalance, 100, "es", "saldo|saldo disponible|saldo contable"},
	{roleBalance, 100, "it", "saldo|saldo contabile"},
	{roleBalance, 100, "ro", "sold|sold curent"},
	{roleBalance, 100, "pt", "saldo"},
	{roleBalance, 100, "pl", "saldo|saldo po operacji|saldo po transakcji"},
	{roleBalance, 100, "cs", "zustatek|zustatek po transakci|zustatek po pohybu"},
	{roleBalance, 100, "sk", "zostatok|zostatok po transakcii"},
	{roleBalance, 100, "hu", "egyenleg|konyvelt egyenleg"},
	{roleBalance, 100, "da", "saldo"},
	{roleBalance, 100, "sv", "saldo|behallning"},
	{roleBalance, 100, "no", "saldo"},
	{roleBalance, 100, "uk", "залишок|залишок після операції|баланс"},
	{roleBalance, 100, "ru", "остаток|остаток после операции|баланс"},
	{roleBalance, 100, "lt", "likutis|likutis po operacijos"},
	// Names that contain other roles' words but are none of them.
	// Statements seen in PDFs: M-Pesa's only date is its completion time, receipts and
	// cheques are references, fees charged beside the amount are not amounts.
	{roleDate, 100, "en", "completion time|transaction time|tran date|trans dt|txn dt"},
	{roleRef, 90, "en", "receipt no|receipt number|chq ref no|chq/ref no|ref no/cheque no|ref no cheque no|cheque no|chq no|check no|ref no|reference no"},
	{roleRef, 90, "es", "comprobante|nro comprobante|numero de comprobante|referencia"},
	{roleIgnore, 90, "en", "accrued bank charges|accrued charges|service fee|service fees|bank charges|s no|sl no|sr no|serial no|init br|branch|transaction status"},
	{roleIgnore, 90, "es", "origen|sucursal|suc"},
	// Persian and Arabic statements, read right to left.
	{roleDate, 100, "fa", "تاریخ|تاریخ تراکنش|تاريخ"},
	{roleDesc, 100, "fa", "شرح|شرح تراکنش|توضیحات"},
	{roleDebit, 100, "fa", "برداشت|بدهکار"},
	{roleAmount, 100, "fa", "مبلغ|مبلغ تراکنش|المبلغ"},
	{roleFlag, 100, "en", "dr / cr|cr / dr|dr cr|cr dr|debit / credit"},
	{roleDesc, 100, "en", "description/narration|narration/description|transaction particulars|details of transaction"},
	{roleCredit, 100, "fa", "واریز|بستانکار"},
	{roleBalance, 100, "fa", "مانده|موجودی"},
	{roleRef, 90, "fa", "شماره سند|سند|شماره پیگیری|پیگیری"},
	{roleDate, 100, "ar", "التاريخ|تاريخ العملية"},
	{roleDesc, 100, "ar", "البيان|الوصف|التفاصيل"},
	{roleDebit, 100, "ar", "مدين|سحب|سحوبات"},
	{roleCredit, 100, "ar", "دائن|إيداع|ايداع|إيداعات"},
	{roleBalance, 100, "ar", "الرصيد|رصيد"},
	{roleIgnore, 100, "en", "time|date time|timezone|time zone|exchange rate|rate|fee|fees|total fees|mcc|category|status|card last four digits|card holder full name|attachment|bic|swift|local currency|original currency|exchange from|exchange to|exchange to amount|tax|emoji|address|receipt|cashback|commission|card|cardholder|merchant category|item id|item title|quantity|shipping address"},
	{roleIgnore, 100, "de", "uhrzeit|kurs|umrechnungskurs|originalbetrag|originalwahrung|gebuhr|gebuhren|kategorie|blz|bankleitzahl|lander kennzeichen|landerkennzeichen|gebuhrenschlussel|abrechnungskennzeichen"},
	{roleIgnore, 100, "ro", "cod fiscal beneficiar|cod fiscal|cui|ordonator final|beneficiar final|denumire banca ordonator/ beneficiar|denumire banca ordonator/beneficiar|banca"},
	{roleIgnore, 100, "nl", "koers|oorspr bedrag|oorspr munt|bic tegenpartij|rubrieknaam|afschriftnummer|volgnr|code|adres tegenpartij"},
	{roleIgnore, 100, "cs", "cas|kurz|poplatek|storno|puvodni castka a mena|duvod neprovedeni|kategorie"},
	{roleIgnore, 100, "uk", "час|час проведення|курс|mcc|сума комісій|сума кешбеку|статус|адреса|мфо|мфо банку|мфо банку контрагента|код контрагента|ід код|єдрпоу|єдрпоу кореспондента|код id нбу|код операції|мфо банка|назва банка|дата документа|дата архівування|гривневе покриття|сума в валюті операції"},
	{roleIgnore, 100, "pt", "dependencia origem|agencia"},
	{roleIgnore, 100, "lt", "kodas|kliento kodas|code in payer is|client code"},
}

// penaltyWords mark a column as a secondary amount or currency (the original, the exchanged,
// the fee) rather than the booked one.
var penaltyWords = map[string]bool{
	"original": true, "orig": true, "oorspr": true, "exchange": true, "fx": true, "rate": true,
	"kurs": true, "koers": true, "fee": true, "fees": true, "gebuhr": true, "commission": true,
	"cashback": true, "local": true, "tax": true, "vat": true, "foreign": true, "operacji": false,
	"originalbetrag": true, "originalwahrung": true, "комісій": true, "кешбеку": true, "операції": false,
	"blocked": true, "available": true, "pending": true, "reserved": true, "limit": true,
}

// headerMatch is one role a header name may stand for.
type headerMatch struct {
	role  role
	score int
	lang  string
}

// phrases maps each folded vocabulary phrase to what it may mean.
var phrases = func() map[string][]headerMatch {
	m := map[string][]headerMatch{}
	for _, v := range vocabulary {
		for _, p := range strings.Split(v.phrases, "|") {
			p = fold(p)
			if p == "" {
				continue
			}
			dup := false
			for _, h := range m[p] {
				if h.role == v.role {
					dup = true
				}
			}
			if !dup {
				m[p] = append(m[p], headerMatch{v.role, v.score, v.lang})
			}
		}
	}
	return m
}()

// headerInfo is what one header cell says.
type headerInfo struct {
	folded   string
	matches  []headerMatch
	currency string
}

// matchHeader reads a header cell: the roles its name may stand for, best first, and a
// currency code it names ("Withdrawals (SGD)", "Částka CZK").
func matchHeader(cell string) headerInfo {
	h := headerInfo{folded: fold(cell)}
	if h.folded == "" || len(h.folded) > 120 {
		return h
	}
	words := strings.Fields(h.folded)
	if len(words) > 1 {
		kept := words[:0:0]
		for _, w := range words {
			if up := strings.ToUpper(w); len(w) == 3 && commonCurrencies[up] && h.currency == "" {
				h.currency = up
				continue
			}
			kept = append(kept, w)
		}
		if len(kept) > 0 {
			words = kept
		}
	}
	whole := strings.Join(words, " ")
	penalty := 0
	for _, w := range words {
		if penaltyWords[w] {
			penalty = 40
		}
	}
	best := map[role]headerMatch{}
	add := func(ms []headerMatch, less int) {
		for _, m := range ms {
			s := m.score - less
			if m.role == roleAmount || m.role == roleCurrency || m.role == roleDebit || m.role == roleCredit ||
				m.role == roleBalance || m.role == roleDate {
				s -= penalty
			}
			if old, ok := best[m.role]; !ok || s > old.score {
				best[m.role] = headerMatch{m.role, s, m.lang}
			}
		}
	}
	add(phrases[whole], 0)
	if len(words) > 1 && len(words) <= 8 {
		for n := len(words) - 1; n >= 1; n-- {
			for i := 0; i+n <= len(words); i++ {
				p := strings.Join(words[i:i+n], " ")
				if n == 1 && len(p) < 4 && p != "iban" {
					continue // "in", "af", "ma" name roles only as whole headers
				}
				add(phrases[p], 40)
			}
		}
	}
	for _, m := range best {
		if m.score >= 40 {
			h.matches = append(h.matches, m)
		}
	}
	sortMatches(h.matches)
	return h
}

func sortMatches(ms []headerMatch) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && (ms[j].score > ms[j-1].score || ms[j].score == ms[j-1].score && ms[j].role < ms[j-1].role); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// HeaderMatches counts the cells that are column names a statement uses (in any of the
// languages this package reads). Readers use it to tell a header row from data, and the CSV
// reader to choose the character set under which the header reads as words.
func HeaderMatches(cells []string) int {
	n := 0
	for i, c := range cells {
		if i >= maxColumns {
			break
		}
		if len(c) > 80 {
			continue
		}
		h := matchHeader(c)
		if len(h.matches) > 0 && h.matches[0].score >= 60 {
			n++
		}
	}
	return n
}

// HeaderRole returns the role a column name stands for ("date", "valuedate", "amount",
// "debit", "credit", "flag", "description", "reference", "balance", ...), or "" when it names
// none clearly. The PDF reader uses it to line up the columns of a statement's several tables.
func HeaderRole(cell string) string {
	if len(cell) > 80 {
		return ""
	}
	h := matchHeader(cell)
	if len(h.matches) == 0 || h.matches[0].score < 60 {
		return ""
	}
	return h.matches[0].role.String()
}

// HeaderRoles returns every role a column name may stand for, best first: "Valor" is an
// amount in Portuguese and a value date in Danish, and the column's values decide.
func HeaderRoles(cell string) []string {
	if len(cell) > 80 {
		return nil
	}
	var out []string
	for _, m := range matchHeader(cell).matches {
		if m.score >= 60 {
			out = append(out, m.role.String())
		}
	}
	return out
}
