package httpkit

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDisplayText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Production ERP import":          "Production ERP import",
		"\u202egpj.csv":                  "gpj.csv",
		"\u2066left\u2069 \u202dright":   "left right",
		"a\u200fb\u200ec\u061cd":         "abcd",
		"line\nbreak\ttab\x00nul\x7fdel": "linebreaktabnuldel",
		"  padded  ":                     "padded",
		"bad \xff byte":                  "bad  byte",
		"Zahlungseingänge – 東京":          "Zahlungseingänge – 東京",
		"":                               "",
	} {
		require.Equal(t, want, DisplayText(in), "%q", in)
	}
}
