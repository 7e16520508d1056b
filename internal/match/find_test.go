package match

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// decoys are references put in the same finder as the one under test, so that the checks also
// cover several references per text, shared prefixes and the maxLen bound.
var decoys = []string{"a", "1", "ab", "inv", "inv1", "inv10", "2024", "x9y", "réf", "über1", "strasse"}

// fastFound runs the finder over text with ref and the decoys as references, and reports for
// each of the references (ref first) whether it was found. A reference without token is never
// put in the finder, as Reconcile does.
func fastFound(text, ref string) (refs []string, found []bool) {
	var norms []string
	var group []int // index in norms of each of refs, or -1
	for _, r := range append([]string{ref}, decoys...) {
		n := string(normalize(nil, r))
		switch {
		case n == "":
			group = append(group, -1)
		case slices.Contains(norms, n):
			continue // a decoy equal to ref, which comes first
		default:
			group = append(group, len(norms))
			norms = append(norms, n)
		}
		refs = append(refs, r)
	}
	hit := make([]bool, len(norms))
	for _, g := range finderOf(norms...).find(text) {
		hit[g] = true
	}
	found = make([]bool, len(refs))
	for i, g := range group {
		found[i] = g >= 0 && hit[g]
	}
	return refs, found
}

// finderOf returns a sealed finder of the distinct, non-empty normalised references norms,
// group i being norms[i].
func finderOf(norms ...string) *finder {
	f := newFinder(len(norms))
	for _, n := range norms {
		if n != "" {
			f.add([]byte(n))
		}
	}
	f.seal()
	return f
}

// checkFind cross-checks the finder against naiveFound for ref and the decoys in text.
func checkFind(t testing.TB, text, ref string) {
	t.Helper()
	refs, found := fastFound(text, ref)
	for i, r := range refs {
		if want := naiveFound(text, r); found[i] != want {
			t.Fatalf("reference %q in %q: finder says %v, naive matcher %v", r, text, found[i], want)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		name, text, ref string
		want            bool
	}{
		{"the reference as written is found", "PAYMENT INV-2024-001 THANKS", "INV-2024-001", true},
		{"spaces may separate its tokens", "INV 2024 001", "INV-2024-001", true},
		{"its tokens may be run together", "INV2024001", "INV-2024-001", true},
		{"slashes may separate its tokens", "inv/2024/001", "INV-2024-001", true},
		{"dots and underscores may separate its tokens", "INV.2024_001", "INV-2024-001", true},
		{"runs of separators are fine", "INV - 2024 -- 001", "INV-2024-001", true},
		{"a reference written run together is found split", "INV 2024 001", "INV2024001", true},
		{"INV-1 is not found in INV-10", "INV-10", "INV-1", false},
		{"INV-10 is not found in XINV-10", "XINV-10", "INV-10", false},
		{"a reference is not found inside a token", "INV2024001X", "INV-2024-001", false},
		{"a comma breaks the chain", "INV,2024,001", "INV-2024-001", false},
		{"a colon breaks the chain", "INV:2024", "INV-2024", false},
		{"a hash breaks the chain", "INV#2024", "INV2024", false},
		{"tokens beside a break still match on their own", "REF:INV-1,X", "INV-1", true},
		{"a chain may start after a break", "(INV 1)", "inv1", true},
		{"case does not matter", "payment Inv-2024-001", "INV-2024-001", true},
		{"non-ASCII letters are tokens", "Überweisung RÉF-12", "réf 12", true},
		{"non-ASCII letters are not separators", "RÉF12", "R-F12", false},
		{"special case folds match", "STRAſSE", "strasse", true},
		{"a no-break space links tokens", "INV\u00a02024", "INV-2024", true},
		{"a reference without letter or digit is never found", "-- --", "--", false},
		{"an empty text holds nothing", "", "INV-1", false},
		{"invalid UTF-8 breaks the chain", "INV\xff1", "INV1", false},
		{"a digit reference needs whole tokens", "12345", "234", false},
		{"the longest reference is found at the end of a text", "X Y INV 2024 001", "INV2024001", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, naiveFound(tc.text, tc.ref), "naive matcher")
			_, found := fastFound(tc.text, tc.ref)
			require.Equal(t, tc.want, found[0], "finder")
			checkFind(t, tc.text, tc.ref)
		})
	}
}

func TestFindRepeatedReferenceIsReportedOnce(t *testing.T) {
	f := finderOf("inv1", "inv2")
	require.Equal(t, []int32{0, 1}, f.find("INV-1 INV 1 inv1 INV-2 INV/1"))
	require.Equal(t, []int32{1}, f.find("INV-2"))
	require.Empty(t, f.find("INV-3"))
}

func TestNormalize(t *testing.T) {
	require.Equal(t, "inv2024001", string(normalize(nil, " INV-2024/001 ")))
	// Non-ASCII runes fold to the smallest of their case orbit, here the upper case.
	require.Equal(t, "rÉf12", string(normalize(nil, "réf#12")))
	require.Equal(t, string(normalize(nil, "RÉF#12")), string(normalize(nil, "réf#12")))
	require.Equal(t, "", string(normalize(nil, "-/ ,")))
}

// FuzzFind cross-checks the finder against the naive matcher on arbitrary texts and references.
func FuzzFind(f *testing.F) {
	seeds := [][2]string{
		{"INV 2024 001", "INV-2024-001"}, {"INV-10", "INV-1"}, {"XINV-10", "INV-10"},
		{"Überweisung RÉF-12", "réf-12"}, {"INV,2024", "INV-2024"}, {"a b c d e f", "cde"},
		{"INV\xff1", "INV1"}, {"ǅ ǆ Ǆ", "ǆǆ"}, {"Kelvin \u212a", "k"}, {"ΣΑΣ σας", "σασ"},
		{"१२३ 123", "१२३"}, {"", ""}, {"inv1 inv10", "inv10"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, ref string) {
		checkFind(t, text, ref)
	})
}

// TestFold checks, for every rune, the two properties the scanner relies on: a rune folds to
// one strings.EqualFold deems equal to it (so two runes fold alike exactly when they are equal
// ignoring case), and its folded encoding is no longer than its own.
func TestFold(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		f := fold(r)
		if !strings.EqualFold(string(r), string(f)) || utf8.RuneLen(f) > utf8.RuneLen(r) {
			t.Fatalf("fold(%U) = %U", r, f)
		}
		if fold(f) != f {
			t.Fatalf("fold(fold(%U)) != fold(%U)", r, r)
		}
	}
}
