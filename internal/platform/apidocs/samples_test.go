package apidocs

import (
	"reflect"
	"strings"
	"testing"
)

// testSamples are shown for the test spec's getStatement.
var testSamples = Samples{"getStatement": {
	{Lang: "shell", Label: "curl", Code: `curl "$BASE_URL/statements/$ID" -H 'Accept: <json>'`},
	{Lang: "go", Label: "Go", Code: "s, err := c.GetStatement(ctx, id)"},
}}

func TestSamplesAdd(t *testing.T) {
	t.Parallel()
	src := strings.Join([]string{
		"package x",
		"func a() {",
		"	x := 1",
		"	// sample:start demo getThing",
		"	c := New()",
		"	if err != nil {",
		"		return err",
		"	}",
		"",
		"	// sample:end",
		"}",
		"# sample:start other getThing",
		"ignored",
		"# sample:end",
		"# sample:start demo listThings",
		"curl x",
		"# sample:end",
	}, "\n")
	got := Samples{}
	if err := got.Add("demo", "go", "Go", []byte(src)); err != nil {
		t.Fatal(err)
	}
	want := Samples{
		"getThing":   {{Lang: "go", Label: "Go", Code: "c := New()\nif err != nil {\n    return err\n}"}},
		"listThings": {{Lang: "go", Label: "Go", Code: "curl x"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}

	for name, bad := range map[string]string{
		"unclosed":       "// sample:start demo a\nx",
		"nested":         "// sample:start demo a\n// sample:start demo b\n// sample:end",
		"stray end":      "// sample:end",
		"two of one op":  "// sample:start demo a\n// sample:end\n// sample:start demo a\n// sample:end",
		"missing fields": "// sample:start demo\n// sample:end",
	} {
		if err := (Samples{}).Add("demo", "go", "Go", []byte(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
