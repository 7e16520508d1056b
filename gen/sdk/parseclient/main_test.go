package parseclient_test

import (
	"os"
	"testing"

	"github.com/statementmatch/service/gen/sdk/internal/check"
)

// serverExamples are the examples that call the API.
const serverExamples = `^Example(|Client_.*|APIError)$`

// TestMain skips the examples that call the API when STATEMENT_PARSE_BASE_URL names no service, unless -skip is
// given; make test sets it (contract-tests/sdk_module_test.go, TestSDKTestsAndExamplesPassAgainstAServer).
func TestMain(m *testing.M) {
	os.Exit(check.SkipServerExamples(m, "STATEMENT_PARSE_BASE_URL", serverExamples))
}
