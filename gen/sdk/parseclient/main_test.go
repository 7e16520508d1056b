package parseclient_test

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// serverExamples are the examples that call the API.
const serverExamples = `^Example(|Client_.*|APIError)$`

// TestMain skips the examples that call the API when STATEMENT_PARSE_BASE_URL names no service, unless
// -skip is given; `make test` sets it (contract-tests/sdk_examples_test.go).
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("STATEMENT_PARSE_BASE_URL") == "" && flag.Lookup("test.skip").Value.String() == "" {
		_ = flag.Set("test.skip", serverExamples)
		fmt.Fprintln(os.Stderr, "STATEMENT_PARSE_BASE_URL is not set: the examples that call the API are skipped")
	}
	os.Exit(m.Run())
}
