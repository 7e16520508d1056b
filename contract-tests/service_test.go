package contracttests

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/openapi"
)

func reconClient(t testing.TB, base string) *reconclient.ClientWithResponses {
	t.Helper()
	c, err := reconclient.NewClientWithResponses(base, reconclient.WithHTTPClient(recon(t).client(t)))
	require.NoError(t, err)
	return c
}

func parseClient(t testing.TB, base string) *parseclient.ClientWithResponses {
	t.Helper()
	c, err := parseclient.NewClientWithResponses(base, parseclient.WithHTTPClient(parse(t).client(t)))
	require.NoError(t, err)
	return c
}

// TestServiceEndpoints checks health, readiness, the published spec and the docs page of every
// API listener; each response is validated against its spec by the client's transport.
func TestServiceEndpoints(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := context.Background()

	for _, base := range []string{s.ReconURL, s.SandboxURL} {
		c := reconClient(t, base)
		health, err := c.GetHealthWithResponse(ctx)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, health.StatusCode())
		require.Equal(t, reconclient.HealthStatusOk, health.JSON200.Status)

		ready, err := c.GetReadinessWithResponse(ctx)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, ready.StatusCode())
		require.Equal(t, reconclient.ReadinessStatusReady, ready.JSON200.Status)
		require.Equal(t, reconclient.DatabaseStatusOk, ready.JSON200.Database)

		spec, err := c.GetOpenAPISpecWithResponse(ctx)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, spec.StatusCode())
		require.Equal(t, openapi.Reconciliation, spec.Body, "the listener serves its spec as written")

		docs, err := c.GetDocsWithResponse(ctx)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, docs.StatusCode())
		requireDocsPage(t, docs.Body, "Reconciliation API")
	}

	c := parseClient(t, s.ParseURL)
	health, err := c.GetHealthWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, health.StatusCode())
	require.True(t, bool(health.JSON200.Ok))
	require.Equal(t, health.HTTPResponse.Header.Get("X-Request-Id"), health.JSON200.Meta.RequestId,
		"the envelope's request id is the header's")

	ready, err := c.GetReadinessWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, ready.StatusCode())
	require.Equal(t, parseclient.ReadinessStatusReady, ready.JSON200.Data.Status)

	spec, err := c.GetOpenAPISpecWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, openapi.Parsing, spec.Body)

	docs, err := c.GetDocsWithResponse(ctx)
	require.NoError(t, err)
	requireDocsPage(t, docs.Body, "Parsing API")

	// The operator listener is plain: it is for load balancers, not partners.
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(s.OpsURL + path)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
}

func requireDocsPage(t *testing.T, page []byte, title string) {
	t.Helper()
	html := string(page)
	require.Contains(t, html, "<html")
	require.Contains(t, html, title)
	require.Equal(t, 1, strings.Count(html, "<script"), "the docs page runs its search script alone")
	require.Contains(t, html, `<input id="nav-search"`, "the docs page has a search box")
	require.Contains(t, html, `<div class="samples">`, "the docs page shows code samples")
	require.Contains(t, html, "/api/v1/jobs", "the docs page lists the operations")
}

// TestRequestIDs checks that a sane client id is kept and anything else replaced.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tests := []struct {
		name, sent string
		kept       bool
	}{
		{name: "a sane id is kept", sent: "trace-42.a:b_c", kept: true},
		{name: "an id with spaces is replaced", sent: "hello world"},
		{name: "an id longer than 128 characters is replaced", sent: strings.Repeat("a", 129)},
		{name: "no id gets a new one", sent: ""},
	}
	for _, tt := range tests {
		for _, base := range []string{s.ReconURL, s.ParseURL} {
			req, err := http.NewRequest(http.MethodGet, base+"/healthz", nil)
			require.NoError(t, err)
			if tt.sent != "" {
				req.Header.Set("X-Request-Id", tt.sent)
			}
			api := recon(t)
			if base == s.ParseURL {
				api = parse(t)
			}
			resp, err := api.client(t).Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			got := resp.Header.Get("X-Request-Id")
			if tt.kept {
				require.Equal(t, tt.sent, got, tt.name)
			} else {
				_, err := uuid.Parse(got)
				require.NoError(t, err, "%s: a new id is a UUID, got %q", tt.name, got)
			}
		}
	}
}
