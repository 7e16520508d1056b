package statement

import "strings"

// bicBanks names banks by the first six characters of their BIC (bank code and country), the
// part that identifies the institution. Only banks we can name with certainty are listed (not
// shared prefixes such as GENODE or SOLADE, which many banks use):
// an unknown BIC gives no name rather than a guess.
var bicBanks = map[string]string{
	"ABNANL": "ABN AMRO",
	"BARCGB": "Barclays",
	"BBVAES": "BBVA",
	"BNPAFR": "BNP Paribas",
	"BPHKPL": "Bank BPH",
	"BREXPL": "mBank",
	"CITIUS": "Citibank",
	"COBADE": "Commerzbank",
	"CRESCH": "Credit Suisse",
	"DABAIE": "Danske Bank",
	"DEUTDE": "Deutsche Bank",
	"DRESDE": "Dresdner Bank",
	"HSBCGB": "HSBC",
	"HSBCHK": "HSBC",
	"INGBNL": "ING",
	"KNABNL": "Knab",
	"KOBSMK": "Komercijalna Banka Skopje",
	"KREDBE": "KBC",
	"NDEAFI": "Nordea",
	"NDEADK": "Nordea",
	"NDEASE": "Nordea",
	"OLBODE": "Oldenburgische Landesbank",
	"POFICH": "PostFinance",
	"RABONL": "Rabobank",
	"SNSBNL": "SNS Bank",
	"SWEDSE": "Swedbank",
	"TRIONL": "Triodos Bank",
	"UBSWCH": "UBS",
	"ZEIBNG": "Zenith Bank",
}

// BankByBIC returns the name of the bank a BIC (8 or 11 characters) belongs to, or "" when it is
// not known.
func BankByBIC(bic string) string {
	bic = strings.ToUpper(strings.TrimSpace(bic))
	if len(bic) != 8 && len(bic) != 11 {
		return ""
	}
	return bicBanks[bic[:6]]
}
