package parsehttp

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/account"
)

// TestRequiredScopesFollowTheProductMapping checks the spec's x-required-scopes against the
// product's scope table, so a spec edit cannot silently open an operation.
func TestRequiredScopesFollowTheProductMapping(t *testing.T) {
	t.Parallel()
	spec, err := parseapi.GetSpec()
	require.NoError(t, err)
	got, err := requiredScopes(spec)
	require.NoError(t, err)
	// Keyed by operation id as the spec spells it (the embedded spec keeps their casing).
	want := map[string][]account.Scope{
		"createJob":             {account.ScopeJobsWrite},
		"listJobs":              {account.ScopeJobsRead},
		"getJob":                {account.ScopeJobsRead},
		"getJobResults":         {account.ScopeJobsRead},
		"exportJob":             {account.ScopeExportRead},
		"getUsage":              {account.ScopeUsageRead},
		"getStatus":             {},
		"createWebhook":         {account.ScopeWebhooksManage},
		"listWebhooks":          {account.ScopeWebhooksManage},
		"listWebhookDeliveries": {account.ScopeWebhooksManage},
		"deleteWebhook":         {account.ScopeWebhooksManage},
		"deleteJob":             {account.ScopeJobsWrite},
		"testWebhook":           {account.ScopeWebhooksManage},
	}
	require.Equal(t, want, got)
}

func TestRequiredScopesRefusesAnUndecidedOperation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ext     map[string]any
		wantErr string
	}{
		{name: "no extension", ext: nil, wantErr: "has no x-required-scopes"},
		{name: "an unknown scope", ext: map[string]any{"x-required-scopes": []any{"jobs:delete"}}, wantErr: "unknown scope"},
		{name: "not a list", ext: map[string]any{"x-required-scopes": "jobs:read"}, wantErr: "must be a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			op := &openapi3.Operation{OperationID: "x", Extensions: tt.ext, Responses: openapi3.NewResponses()}
			spec := &openapi3.T{
				Security: openapi3.SecurityRequirements{{schemeAPIKey: {}}},
				Paths:    openapi3.NewPaths(openapi3.WithPath("/x", &openapi3.PathItem{Get: op})),
			}
			_, err := requiredScopes(spec)
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
