package bai2

import (
	"strings"

	"github.com/statementmatch/service/internal/statement"
)

// direction says whether a BAI2 type code books money in (+1) or out (-1), or neither (0), by
// the ranges of the BAI2 specification (Cash Management Balance Reporting Specifications
// Version 2, Appendix A):
//
//	001-099  account status (balances)            neither
//	100-399  activity summary and detail          credit
//	400-699  activity summary and detail          debit
//	700-799  loans: 720-728 (loan payment and     credit
//	         its parts)
//	         760 (loan disbursement)              debit
//	         the rest (701-709 are loan status)   neither
//	890      non-monetary information             neither
//	900-919  custom account status                neither
//	920-959  custom activity                      credit
//	960-999  custom activity                      debit
//
// So a custom 9xx code is a credit below 960 and a debit from 960 on.
func direction(code int) int {
	switch {
	case code >= 100 && code <= 399:
		return 1
	case code >= 400 && code <= 699:
		return -1
	case code >= 720 && code <= 728:
		return 1
	case code == 760:
		return -1
	case code >= 920 && code <= 959:
		return 1
	case code >= 960 && code <= 999:
		return -1
	}
	return 0
}

// nonMonetary is type code 890, "Contains Non-monetary Information": a 16 record that carries
// a message, not money, so it is no transaction.
const nonMonetary = 890

// decimalsOf returns the implied decimals of an ISO 4217 currency code, which BAI2 amounts
// leave out.
func decimalsOf(currency string) int { return statement.MinorUnits(currency) }

// isCurrencyCode reports whether c looks like an ISO 4217 code: three letters A-Z.
func isCurrencyCode(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}

// isKeyedField reports the keys of the "KEY: value" 88 continuations of Goldman Sachs Transaction Banking (and
// banks that copy it): one field per 88 record after the 16 record's free text. They are read
// into the transaction's fields, not its description; the Raw record keeps them all.
//
//	EREF  end-to-end reference            -> Reference
//	CREF  clearing/client reference       (Raw only)
//	DBNM  debtor name                     -> CounterpartyName of a credit
//	CRNM  creditor name                   -> CounterpartyName of a debit
//	DACT  debtor account                  -> CounterpartyAccount of a credit
//	CACT  creditor account                -> CounterpartyAccount of a debit
//	DABA  debtor bank routing number      (Raw only)
//	CABA  creditor bank routing number    (Raw only)
//	DBIC  debtor bank BIC                 (Raw only)
//	CBIC  creditor bank BIC               (Raw only)
//	REMI  remittance information          -> Description (when the text lacks it)
//	IDNM  identification number           (Raw only)
//	CHKN  check number                    (Raw only)
func isKeyedField(key string) bool {
	switch key {
	case "EREF", "CREF", "DBNM", "CRNM", "DACT", "CACT", "DABA", "CABA", "DBIC", "CBIC", "REMI", "IDNM", "CHKN":
		return true
	}
	return false
}

// keyed splits an 88 body of the form "EREF: value" into key and value; ok is false for any
// other body, which is then text or fields.
func keyed(body string) (key, value string, ok bool) {
	if len(body) < 5 || body[4] != ':' || !isKeyedField(body[:4]) {
		return "", "", false
	}
	return body[:4], strings.TrimSpace(body[5:]), true
}
