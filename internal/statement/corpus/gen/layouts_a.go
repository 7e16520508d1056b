package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// usChecking is a US checking statement: sections DEPOSITS AND ADDITIONS, CHECKS PAID and
// ELECTRONIC WITHDRAWALS with MM/DD dates and no year, the period in words in the header, a
// checking summary, a daily ending balance table and the "balancing your checkbook" form.
func usChecking(r *rand.Rand, layout string, start, end time.Time, n int) *stmt {
	check := 1021 + r.IntN(400)
	merchants := []string{"Amazon Mktplace Amzn.Com/Bill WA", "Shell Oil 57444 Austin TX", "Heb #412 Austin TX", "Netflix.Com Netflix.Com CA", "Starbucks Store 0932 Austin TX", "Costco Whse #0681 Austin TX"}
	kinds := []kind{
		{"deposit", 3, 80000, 320000, true, func(r *rand.Rand, t *txn) {
			switch r.IntN(3) {
			case 0:
				id := digits(r, 10)
				t.desc = []string{"Payroll Deposit - Acme Widgets Inc PPD ID: " + id}
				t.ref = id
			case 1:
				id := digits(r, 9)
				t.desc = []string{"Remote Online Deposit " + id}
				t.ref = id
			default:
				id := "Jpm" + strings.ToLower(alnum(r, 9))
				t.desc = []string{"Zelle Payment From Maria Lopez " + id}
				t.ref = id
			}
		}},
		{"check", 2, 2500, 90000, false, func(r *rand.Rand, t *txn) {
			t.ref = fmt.Sprint(check)
			check += 1 + r.IntN(2)
		}},
		{"electronic", 6, 450, 45000, false, func(r *rand.Rand, t *txn) {
			switch r.IntN(3) {
			case 0:
				t.desc = []string{fmt.Sprintf("Card Purchase %s %s Card 4417", t.date.Format("01/02"), pick(r, merchants))}
			case 1:
				tr := digits(r, 15)
				t.desc = []string{"Orig CO Name:Comcast Orig ID:0000123456 Desc Date:" + t.date.Format("010206") + " CO Entry",
					"Descr:Payment Sec:Web Trace#:" + tr + " Eed:" + t.date.Format("060102") + " Ind ID:" + digits(r, 6)}
				t.ref = tr
			default:
				t.desc = []string{fmt.Sprintf("ATM Withdrawal %s 1201 S Congress Ave Austin TX Card 4417", t.date.Format("01/02"))}
			}
		}},
	}
	opening := decimal.New(250000+r.Int64N(600000), -2)
	all := genTxns(r, start, end, n, opening, -2, kinds)
	var deps, checks, elec []txn
	for _, t := range all {
		switch t.kind {
		case "deposit":
			deps = append(deps, t)
		case "check":
			checks = append(checks, t)
		default:
			elec = append(elec, t)
		}
	}
	// Checks are listed by number, so their dates paid are not in order.
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].ref < checks[j].ref })
	s := &stmt{layout: layout, account: "000000372615904", currency: "USD", start: start, end: end}
	s.txns = append(append(append(s.txns, deps...), checks...), elec...)
	s.finish(opening)
	money := func(d decimal.Decimal) string {
		if d.IsNegative() {
			return "-$" + us(d)
		}
		return "$" + us(d)
	}
	period := fmt.Sprintf("%s through %s", start.Format("January 2, 2006"), end.Format("January 2, 2006"))
	d := &Doc{Lang: "en-US", Letter: true, Font: "Liberation Sans",
		Footer: "Member FDIC. Equal Housing Lender. Page footer: statement of account " + s.account}
	d.Blocks = append(d.Blocks,
		Title{"FIRST CONTINENTAL BANK, N.A."},
		Columns{[]string{"P O Box 659754", "San Antonio, TX 78265-9754", "", "00012783 DRE 703 219 21322 NNNNNNNNNNN 1 000000000 64 0000", "JOHN Q SAMPLE", "4100 SPEEDWAY", "AUSTIN TX 78751-4401"},
			[]string{period, "Account Number: " + s.account, "", "CUSTOMER SERVICE INFORMATION", "Web site: www.firstcontinental.example", "Service Center: 1-800-555-0142", "Para Espanol: 1-888-555-0199"}},
		Heading{"CHECKING SUMMARY  Total Checking"},
		Box{Rows: [][2]string{
			{"Beginning Balance", money(opening)},
			{fmt.Sprintf("Deposits and Additions (%d)", len(deps)), us(sumOf(deps, true))},
			{fmt.Sprintf("Checks Paid (%d)", len(checks)), "-" + us(sumOf(checks, false))},
			{fmt.Sprintf("Electronic Withdrawals (%d)", len(elec)), "-" + us(sumOf(elec, false))},
			{"Ending Balance", money(*s.closing)},
		}, Side: []string{"Go paperless and see your statements", "online up to 7 years back.", "Ask a banker about overdraft assist:", "no fee if you are overdrawn by $50 or less", "at the end of the business day."}},
	)
	section := func(title string, rows []txn, total string) {
		t := Table{Head: [][]string{{"DATE", "DESCRIPTION", "AMOUNT"}}, Align: "lLr"}
		var sum decimal.Decimal
		for _, x := range rows {
			t.Rows = append(t.Rows, []string{x.date.Format("01/02"), strings.Join(x.desc, "\n"), "$" + us(x.amount)})
			sum = sum.Add(x.amount.Abs())
		}
		t.Rows = append(t.Rows, []string{"", total, "$" + us(sum)})
		d.Blocks = append(d.Blocks, Heading{title}, t)
	}
	section("DEPOSITS AND ADDITIONS", deps, "Total Deposits and Additions")
	ct := Table{Head: [][]string{{"CHECK NO.", "DESCRIPTION", "DATE PAID", "AMOUNT"}}, Align: "lLlr"}
	var csum decimal.Decimal
	for _, x := range checks {
		ct.Rows = append(ct.Rows, []string{x.ref, "", x.date.Format("01/02"), "$" + us(x.amount)})
		csum = csum.Add(x.amount.Abs())
	}
	ct.Rows = append(ct.Rows, []string{"", "Total Checks Paid", "", "$" + us(csum)})
	d.Blocks = append(d.Blocks, Heading{"CHECKS PAID"}, Para{"If you see a description in the Checks Paid section, it means that we received only electronic information about the check, not the original or an image of the check.", true}, ct)
	section("ELECTRONIC WITHDRAWALS", elec, "Total Electronic Withdrawals")
	// Daily ending balances, three pairs to a row.
	dt := Table{Head: [][]string{{"DATE", "AMOUNT", "DATE", "AMOUNT", "DATE", "AMOUNT"}}, Align: "lrlrlr"}
	byDay := map[time.Time]decimal.Decimal{}
	var dayList []time.Time
	bal := opening
	for _, t := range all {
		if _, ok := byDay[t.date]; !ok {
			dayList = append(dayList, t.date)
		}
		bal = bal.Add(t.amount)
		byDay[t.date] = bal
	}
	var row []string
	for _, dd := range dayList {
		row = append(row, dd.Format("01/02"), "$"+us(byDay[dd]))
		if len(row) == 6 {
			dt.Rows = append(dt.Rows, row)
			row = nil
		}
	}
	if row != nil {
		for len(row) < 6 {
			row = append(row, "")
		}
		dt.Rows = append(dt.Rows, row)
	}
	d.Blocks = append(d.Blocks, Heading{"DAILY ENDING BALANCE"}, dt,
		Heading{"BALANCING YOUR CHECKBOOK"},
		Para{"Note: Ensure your checkbook register is up to date with all transactions to date whether they are included on your statement or not. 1. Write in the Ending Balance shown on this statement. 2. List and total all deposits and additions not shown on this statement. 3. Subtotal by adding lines 1 and 2. 4. List and total all checks, ATM withdrawals, debit card purchases and other withdrawals not shown on this statement. 5. Subtract line 4 from 3: this adjusted balance should equal your checkbook balance.", false},
		Table{Head: [][]string{{"Date", "Amount", "Check Number", "Amount"}}, Align: "lrlr", Rows: [][]string{{"________", "________", "________", "________"}, {"________", "________", "________", "________"}, {"Total", "$ ______", "Total", "$ ______"}}},
		Para{"IN CASE OF ERRORS OR QUESTIONS ABOUT YOUR ELECTRONIC FUNDS TRANSFERS: Call us at 1-800-555-0142 or write us at the address on the front of this statement immediately if you think your statement or receipt is incorrect. We must hear from you no later than 60 days after we sent you the FIRST statement on which the problem or error appeared.", true},
	)
	s.doc = d
	return s
}

// ukCurrent is a UK current account: "2nd Mar" dates printed once per day, Paid in / Paid out /
// Balance columns, balance brought and carried forward, the period "12th Feb 2022 to 11th Mar
// 2022".
func ukCurrent(r *rand.Rand, layout string, start, end time.Time, n int) *stmt {
	shops := []string{"TESCO STORES 3021", "SAINSBURYS S/MKT", "TFL TRAVEL CH", "PRET A MANGER", "AMAZON.CO.UK*2K4", "BOOTS 1182"}
	kinds := []kind{
		{"in", 2, 5000, 180000, true, func(r *rand.Rand, t *txn) {
			if r.IntN(2) == 0 {
				ref := "SAL" + digits(r, 6)
				t.desc = []string{"BANK GIRO CREDIT REF " + ref, "NORTHWIND TRADERS LTD"}
				t.ref = ref
			} else {
				ref := alnum(r, 8)
				t.desc = []string{"FASTER PAYMENTS RECEIPT REF." + ref + " FROM J SMITH"}
				t.ref = ref
			}
		}},
		{"card", 6, 120, 9000, false, func(r *rand.Rand, t *txn) {
			t.desc = []string{"CARD PAYMENT TO " + pick(r, shops) + " ON " + t.date.Format("02-01-2006")}
		}},
		{"dd", 2, 2000, 25000, false, func(r *rand.Rand, t *txn) {
			ref := digits(r, 8)
			t.desc = []string{"DIRECT DEBIT PAYMENT TO " + pick(r, []string{"BRITISH GAS", "THAMES WATER", "COUNCIL TAX LBH", "VODAFONE LTD"}) + " REF " + ref + ",", "MANDATE NO 00" + digits(r, 2)}
			t.ref = ref
		}},
	}
	opening := decimal.New(80000+r.Int64N(300000), -2)
	s := &stmt{layout: layout, account: "40-12-34 71234567", currency: "GBP", start: start, end: end}
	s.txns = genTxns(r, start, end, n, opening, -2, kinds)
	s.finish(opening)
	ukDate := func(t time.Time) string { return ordinal(t.Day()) + " " + t.Format("Jan") }
	ukLong := func(t time.Time) string { return ordinal(t.Day()) + " " + t.Format("Jan 2006") }
	d := &Doc{Lang: "en-GB", Font: "DejaVu Sans", Footer: "Halbury Bank plc. Registered in England No. 2065. Authorised by the Prudential Regulation Authority. Calls may be recorded."}
	if n > 100 {
		// The long statement is a reprint, stamped across every page.
		d.Watermark = "DUPLICATE STATEMENT"
	}
	d.Blocks = append(d.Blocks,
		Title{"Halbury Bank"},
		Columns{[]string{"Mr Arthur Dent", "155 Country Lane", "Cottington", "CT2 9QQ"},
			[]string{"Your Current Account", "Sort code 40-12-34  Account number 71234567", ukLong(start) + " to " + ukLong(end), "Statement number 047"}},
		Box{Title: "Your account summary", Rows: [][2]string{
			{"Balance on " + ukLong(start), "£" + us(opening)},
			{"Total paid in", "£" + us(sumOf(s.txns, true))},
			{"Total paid out", "£" + us(sumOf(s.txns, false).Abs())},
			{"Balance on " + ukLong(end), "£" + us(*s.closing)},
		}, Side: []string{"Need a hand with money?", "Our app shows your spending by category", "and warns you before bills are due.", "Search Halbury app today."}},
		Heading{"Your transactions"},
	)
	t := Table{Head: [][]string{{"Date", "Payment type and details", "Paid in", "Paid out", "Balance"}}, Align: "lLrrr"}
	t.Rows = append(t.Rows, []string{ukDate(start), "Balance brought forward", "", "", us(opening)})
	var last time.Time
	for _, x := range s.txns {
		ds := ""
		if !x.date.Equal(last) {
			ds = ukDate(x.date)
		}
		last = x.date
		in, out := "", ""
		if x.amount.IsPositive() {
			in = us(x.amount)
		} else {
			out = us(x.amount)
		}
		t.Rows = append(t.Rows, []string{ds, strings.Join(x.desc, "\n"), in, out, us(x.bal)})
	}
	t.Rows = append(t.Rows, []string{ukDate(end), "Balance carried forward", "", "", us(*s.closing)})
	d.Blocks = append(d.Blocks, t,
		Para{"Your deposit is eligible for protection by the Financial Services Compensation Scheme. Overdraft interest is charged at 39.9% EAR (variable). If you have a question about a payment, call 0345 600 0000.", true})
	s.doc = d
	return s
}

// inSavings is an Indian savings account: Debit / Credit (or Withdrawal / Deposit) columns,
// lakh grouping, dd-mm-yyyy (or dd/mm/yy) dates, UPI and NEFT narrations over two lines.
func inSavings(r *rand.Rand, layout string, start, end time.Time, n int, hdfc bool) *stmt {
	kinds := []kind{
		{"upi-in", 2, 50000, 2500000, true, func(r *rand.Rand, t *txn) {
			ref := digits(r, 12)
			t.desc = []string{"UPI/CR/" + ref + "/RAHUL SHA/HDFC/", "rahul.sharma@okhdfcbank/UPI"}
			t.ref = ref
		}},
		{"salary", 1, 4500000, 9500000, true, func(r *rand.Rand, t *txn) {
			ref := "N" + digits(r, 9)
			t.desc = []string{"NEFT-" + ref + "-INFOSYNC TECHNOLOGIES PVT", "LTD-SALARY " + strings.ToUpper(t.date.Format("Jan")) + " 2023"}
			t.ref = ref
		}},
		{"upi-out", 6, 2000, 450000, false, func(r *rand.Rand, t *txn) {
			ref := digits(r, 12)
			m := pick(r, []string{"SWIGGY", "ZOMATO", "BIGBASKET", "IRCTC", "AMAZON PAY"})
			t.desc = []string{"UPI/DR/" + ref + "/" + m + "/YESB/", strings.ToLower(strings.ReplaceAll(m, " ", "")) + "@ybl/Payment"}
			t.ref = ref
		}},
		{"atm", 1, 100000, 1000000, false, func(r *rand.Rand, t *txn) {
			ref := digits(r, 6)
			t.desc = []string{"ATM WDL/" + ref + "/MUMBAI ANDHERI E"}
			t.ref = ref
		}},
	}
	opening := decimal.New(2000000+r.Int64N(30000000), -2)
	s := &stmt{layout: layout, account: "50100123456789", currency: "INR", start: start, end: end}
	s.txns = genTxns(r, start, end, n, opening, -2, kinds)
	s.finish(opening)
	d := &Doc{Lang: "en-IN", Font: "DejaVu Sans", Footer: "This is a computer generated statement and does not require a signature."}
	if hdfc {
		df := func(t time.Time) string { return t.Format("02/01/06") }
		d.Blocks = append(d.Blocks, Title{"Deccan Federal Bank Ltd"},
			Columns{[]string{"MR. VIKRAM ANAND MEHTA", "FLAT 1202, SEA BREEZE CHS", "ANDHERI EAST", "MUMBAI 400069", "MAHARASHTRA INDIA"},
				[]string{"Account Branch : ANDHERI EAST", "Account No : " + s.account, "A/C Open Date : 14/06/2017", "Account Status : Regular", "Currency : INR", "IFSC : DFBL0000123", "Statement From : " + start.Format("02/01/2006") + " To : " + end.Format("02/01/2006")}})
		t := Table{Head: [][]string{{"Date", "Narration", "Chq./Ref.No.", "Value Dt", "Withdrawal Amt.", "Deposit Amt.", "Closing Balance"}}, Align: "lLlrrrr"}
		for _, x := range s.txns {
			w, dep := "", ""
			if x.amount.IsNegative() {
				w = in(x.amount)
			} else {
				dep = in(x.amount)
			}
			ref := x.ref
			if len(ref) > 12 {
				ref = ref[:12]
			}
			t.Rows = append(t.Rows, []string{df(x.date), strings.Join(x.desc, "\n"), "000" + ref, df(x.date), w, dep, in(x.bal)})
		}
		nDr, nCr := 0, 0
		for _, x := range s.txns {
			if x.amount.IsNegative() {
				nDr++
			} else {
				nCr++
			}
		}
		d.Blocks = append(d.Blocks, t, Heading{"STATEMENT SUMMARY :-"},
			Table{Head: [][]string{{"Opening Balance", "Dr Count", "Cr Count", "Debits", "Credits", "Closing Bal"}}, Align: "rrrrrr",
				Rows: [][]string{{in(opening), fmt.Sprint(nDr), fmt.Sprint(nCr), in(sumOf(s.txns, false)), in(sumOf(s.txns, true)), in(*s.closing)}}},
			Para{"Generated On: " + end.AddDate(0, 0, 2).Format("02-Jan-2006") + " Generated By: NETBANKING. Contents of this statement will be considered correct if no error is reported within 30 days of receipt of statement.", true})
	} else {
		df := func(t time.Time) string { return t.Format("02-01-2006") }
		d.Blocks = append(d.Blocks, Title{"State Cooperative Bank of India"},
			Columns{[]string{"Account Name : Mrs. PRIYA RAMAN", "Address : 14 GANDHI NAGAR, 2ND STREET", "ADYAR, CHENNAI 600020", "Account Number : " + s.account, "Account Description : SAVINGS ACCOUNT", "Branch : ADYAR", "IFS Code : SCBI0004567"},
				[]string{"Balance as on " + df(start) + " : " + in(opening) + " Cr", "Statement from " + df(start) + " to " + df(end), "MICR Code : 600002017", "Interest Rate(% p.a.) : 2.7"}},
			Para{"Account Statement from " + df(start) + " to " + df(end), false})
		t := Table{Head: [][]string{{"Txn Date", "Value", "Description", "Ref No./Cheque", "Debit", "Credit", "Balance"}, {"", "Date", "", "No.", "", "", ""}}, Align: "llLlrrr"}
		for _, x := range s.txns {
			dr, cr := "", ""
			if x.amount.IsNegative() {
				dr = in(x.amount)
			} else {
				cr = in(x.amount)
			}
			t.Rows = append(t.Rows, []string{df(x.date), df(x.date), strings.Join(x.desc, "\n"), x.ref, dr, cr, in(x.bal) + " Cr"})
		}
		d.Blocks = append(d.Blocks, t, Box{Rows: [][2]string{{"Balance as on " + df(end), in(*s.closing) + " Cr"}}},
			Para{"**This is a computer generated statement and does not require a signature. Please do not share your OTP, PIN or password with anyone.", true})
	}
	s.doc = d
	return s
}
