package statement

import "github.com/shopspring/decimal"

// minorUnits lists the ISO 4217 currencies whose minor unit is not 2 (ISO 4217 list one, the
// "minor unit" column). Every other active code has 2.
var minorUnits = map[string]int{
	// 0 decimals
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
	"RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	// 3 decimals
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	// 4 decimals
	"CLF": 4, "UYW": 4,
}

// MinorUnits returns the decimals of an ISO 4217 currency code: 2 unless the code is one of the
// few with 0, 3 or 4, and 2 for an unknown or empty code.
func MinorUnits(currency string) int {
	if d, ok := minorUnits[currency]; ok {
		return d
	}
	return 2
}

// WithCurrencyDecimals returns d written with at least the currency's decimals (1250.5 EUR
// becomes 1250.50), for display. It never rounds: an amount with more decimals than the
// currency has keeps them, since dropping them would change the money.
func WithCurrencyDecimals(d decimal.Decimal, currency string) decimal.Decimal {
	places := int32(MinorUnits(currency))
	if -d.Exponent() >= places {
		return d
	}
	return d.Round(places) // exact: adds zeros only
}
