package contracttests

import (
	"io"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

// TestPublishedSpecsNameServersByVariable fetches each listener's published spec and requires
// its servers to be server variables ({base_url}, {sandbox_base_url}, {public_base_url}) with a
// default URL and a description, so that a client generator or a docs tool asks for the
// deployment's address instead of baking in localhost.
func TestPublishedSpecsNameServersByVariable(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, tc := range []struct {
		base string
		want []string
	}{
		{s.ReconURL, []string{"base_url", "sandbox_base_url"}},
		{s.SandboxURL, []string{"base_url", "sandbox_base_url"}},
		{s.ParseURL, []string{"public_base_url"}},
	} {
		resp, err := http.Get(tc.base + "/api/v1/openapi.yaml")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		doc, err := openapi3.NewLoader().LoadFromData(body)
		require.NoError(t, err)
		var names []string
		for _, server := range doc.Servers {
			m := regexp.MustCompile(`^\{([a-z_]+)\}$`).FindStringSubmatch(server.URL)
			require.NotNil(t, m, "%s: server %q is one variable", tc.base, server.URL)
			v := server.Variables[m[1]]
			require.NotNil(t, v, "%s: variable %s is defined", tc.base, m[1])
			require.Regexp(t, `^https?://[^/]+$`, v.Default, "%s: %s defaults to a base URL", tc.base, m[1])
			require.NotEmpty(t, v.Description)
			require.NotEmpty(t, server.Description)
			names = append(names, m[1])
		}
		require.Equal(t, tc.want, names, tc.base)
	}
}

// TestErrorCodeConventionsAreTheDocumentedOnes keeps what both specs say about their codes true:
// request error codes are UPPER_CASE in both APIs; the Reconciliation API's job error codes are
// some of its request error codes, its only 429 code is LIMIT_EXCEEDED; the Parsing API's job
// error and review reason codes are lower_case, and its 429s are LIMIT_EXCEEDED and
// RATE_LIMITED. (The 429 answers themselves are checked in ratelimit_test.go.)
func TestErrorCodeConventionsAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	enum := func(a *api, schema string) []string {
		ref := a.spec.Components.Schemas[schema]
		require.NotNil(t, ref, "%s has schema %s", a.name, schema)
		var values []string
		for _, v := range ref.Value.Enum {
			values = append(values, v.(string))
		}
		require.NotEmpty(t, values)
		return values
	}
	upper, lower := regexp.MustCompile(`^[A-Z][A-Z_]*$`), regexp.MustCompile(`^[a-z][a-z_]*$`)
	for _, a := range []*api{recon(t), parse(t)} {
		for _, code := range enum(a, "ErrorCode") {
			require.Regexp(t, upper, code, "%s request error codes are upper case", a.name)
		}
	}
	reconCodes := enum(recon(t), "ErrorCode")
	for _, code := range enum(recon(t), "JobErrorCode") {
		require.Contains(t, reconCodes, code, "a reconciliation job error code is one of the API's codes")
	}
	require.Contains(t, reconCodes, "LIMIT_EXCEEDED")
	require.NotContains(t, reconCodes, "RATE_LIMITED", "the Reconciliation API answers every 429 with LIMIT_EXCEEDED")
	for _, schema := range []string{"JobErrorCode", "ReviewReasonCode"} {
		for _, code := range enum(parse(t), schema) {
			require.Regexp(t, lower, code, "parsing %s values are lower case", schema)
		}
	}
	parseCodes := enum(parse(t), "ErrorCode")
	require.True(t, slices.Contains(parseCodes, "LIMIT_EXCEEDED") && slices.Contains(parseCodes, "RATE_LIMITED"))
}
