package apidocs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

const testSpec = `
openapi: 3.0.3
info:
  title: Statement <Match> API
  version: 1.2.3
  description: |
    Matches **bank statements** against ledgers.

    - see [the guide](https://docs.example.com/guide)
    - never [this](javascript:alert(1))

    <script>alert("info")</script>
  contact:
    name: API team
    url: https://support.example.com
    email: api@example.com
  license:
    name: Apache 2.0
    url: https://www.apache.org/licenses/LICENSE-2.0.html
servers:
  - url: https://api.example.com/v1
    description: Production
tags:
  - name: statements
    description: Statement **uploads** and matching.
  - name: unused
security:
  - oauth: [statements:read]
paths:
  /statements/{id}:
    parameters:
      - name: id
        in: path
        required: true
        description: Statement identifier.
        schema: {type: string, format: uuid}
    get:
      operationId: getStatement
      tags: [statements]
      summary: Fetch a statement
      x-required-scopes: [statements:read, ledger:read]
      parameters:
        - name: view
          in: query
          schema:
            type: string
            enum: [summary, full]
      responses:
        "200":
          description: The statement.
          headers:
            X-Rate-Limit:
              required: true
              description: Requests left.
              schema: {type: integer, format: int32}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Statement'}
              example: {id: "a1", status: matched, lines: [{amount: 12.5}]}
        default:
          description: Error.
          content:
            application/problem+json:
              schema: {$ref: '#/components/schemas/Problem'}
  /statements:
    post:
      operationId: createStatement
      tags: [statements]
      security:
        - oauth: [statements:write]
        - apiKey: []
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [callbackUrl]
              properties:
                callbackUrl: {type: string, format: uri}
                node: {$ref: '#/components/schemas/Node'}
      callbacks:
        matched:
          '{$request.body#/callbackUrl}':
            post:
              operationId: statementMatched
              requestBody:
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Statement'}
              responses:
                "204": {description: Acknowledged.}
      responses:
        "201": {description: Created.}
  /health:
    get:
      security: []
      responses:
        "200":
          description: OK
          content:
            text/plain:
              example: ok
components:
  securitySchemes:
    oauth:
      type: oauth2
      description: OAuth 2.0 client credentials.
      flows:
        clientCredentials:
          tokenUrl: https://auth.example.com/token
          scopes:
            statements:read: Read statements.
            statements:write: Write statements.
    apiKey:
      type: apiKey
      in: header
      name: X-API-Key
  schemas:
    Node:
      type: object
      description: A recursive tree node.
      properties:
        value: {type: string, nullable: true}
        children:
          type: array
          items: {$ref: '#/components/schemas/Node'}
        parent: {$ref: '#/components/schemas/Node'}
    Statement:
      type: object
      required: [id, status]
      properties:
        id: {type: string}
        status: {$ref: '#/components/schemas/Status'}
        lines:
          type: array
          items:
            type: object
            properties:
              amount: {type: number, format: double}
    Status:
      type: string
      enum: [pending, matched, rejected]
    Problem:
      oneOf:
        - $ref: '#/components/schemas/Status'
        - type: object
          properties:
            detail: {type: string}
`

func loadTestSpec(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData([]byte(testSpec))
	if err != nil {
		t.Fatalf("load spec: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate spec: %v", err)
	}
	return doc
}

func renderWithTimeout(t *testing.T, doc *openapi3.T) string {
	t.Helper()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := Render(doc, testSamples)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("Render: %v", r.err)
		}
		return string(r.out)
	case <-time.After(10 * time.Second):
		t.Fatal("Render did not terminate")
	}
	return ""
}

func TestRender(t *testing.T) {
	doc := loadTestSpec(t)
	out := renderWithTimeout(t, doc)

	tests := []struct {
		name string
		want string
	}{
		{"doctype", "<!DOCTYPE html>"},
		{"title escaped", "<h1>Statement &lt;Match&gt; API</h1>"},
		{"version", "version 1.2.3"},
		{"info markdown", "<strong>bank statements</strong>"},
		{"info link", `<a href="https://docs.example.com/guide">the guide</a>`},
		{"contact", `<a href="mailto:api@example.com">api@example.com</a>`},
		{"license", `<a href="https://www.apache.org/licenses/LICENSE-2.0.html">Apache 2.0</a>`},
		{"server", "<code>https://api.example.com/v1</code>"},
		{"security scheme anchor", `id="security-oauth"`},
		{"oauth scope", "<code>statements:write</code>"},
		{"token url", `<a href="https://auth.example.com/token">`},
		{"tag group", `id="tag-statements"`},
		{"tag description", "Statement <strong>uploads</strong> and matching."},
		{"toc link", `<a href="#op-getStatement">`},
		{"operation anchor", `<article class="op" id="op-getStatement">`},
		{"operation id", "<code>getStatement</code>"},
		{"operation path", `<code class="path">/statements/{id}</code>`},
		{"untagged anchor", `id="op-get-health"`},
		{"method badge", `<span class="method m-post">POST</span>`},
		{"path parameter inherited", "<code>id</code> <span class=\"req\">required</span></td><td>path</td>"},
		{"parameter enum", "enum: <code>summary</code> <code>full</code>"},
		{"x-required-scopes", "<code>statements:read</code>, <code>ledger:read</code>"},
		{"security alternatives", "Any one of:"},
		{"no auth", "None: no authentication required."},
		{"inherited security", "(document default)"},
		{"response header", "<code>X-Rate-Limit</code> <span class=\"req\">required</span>"},
		{"header type", `<span class="type">integer</span> <span class="fmt">(int32)</span>`},
		{"ref link", `<a class="ref" href="#schema-Statement"><code>Statement</code></a>`},
		{"example pretty JSON", "{\n  &#34;id&#34;: &#34;a1&#34;,"},
		{"plain text example", "<pre><code>ok</code></pre>"},
		{"callback name", "Callback <code>matched</code>"},
		{"callback operation", `id="op-createStatement-cb-matched-statementMatched"`},
		{"callback expression", "{$request.body#/callbackUrl}"},
		{"schema anchor", `<article class="schema-def" id="schema-Node">`},
		{"recursive items link", `<span class="type">array</span> of <a class="ref" href="#schema-Node"><code>Node</code></a>`},
		{"nullable", `<span class="badge">nullable</span>`},
		{"enum schema", "enum: <code>pending</code> <code>matched</code> <code>rejected</code>"},
		{"inline array items flattened", "<code>lines[].amount</code>"},
		{"required mark", "<code>status</code> <span class=\"req\">required</span>"},
		{"oneOf member", `<span class="kw">oneOf</span>`},
		{"oneOf inline member props", "<code>detail</code>"},
		{"inline request schema", "<code>callbackUrl</code> <span class=\"req\">required</span>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q", tc.want)
			}
		})
	}

	t.Run("only the search script, allowed by its hash", func(t *testing.T) {
		scripts := regexp.MustCompile(`(?is)<script[^>]*>(.*?)</script>`).FindAllStringSubmatch(out, -1)
		if len(scripts) != 1 || scripts[0][1] != searchJS {
			t.Fatalf("want the search script alone, got %d scripts", len(scripts))
		}
		sum := sha256.Sum256([]byte(scripts[0][1]))
		if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; ScriptSource != want || !strings.Contains(html.UnescapeString(out), "script-src "+want+";") {
			t.Errorf("ScriptSource %s, want %s in the page's policy", ScriptSource, want)
		}
		if strings.Contains(out, "javascript:") {
			t.Error("output contains javascript: URL")
		}
	})

	t.Run("navigation and samples", func(t *testing.T) {
		for _, want := range []string{
			`<input id="nav-search" type="search"`,
			`<li class="nav-op" data-search="get /statements/{id} fetch a statement getstatement"><a href="#op-getStatement">`,
			`<label for="op-getStatement-sample-0">curl</label>`,
			`<label for="op-getStatement-sample-1">Go</label>`,
			`<pre class="sample"><code class="language-shell">curl &#34;$BASE_URL/statements/$ID&#34; -H &#39;Accept: &lt;json&gt;&#39;</code></pre>`,
			`<code class="language-go">s, err := c.GetStatement(ctx, id)`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q", want)
			}
		}
	})

	t.Run("only spec URLs", func(t *testing.T) {
		for _, u := range regexp.MustCompile(`https?://[^\s"'<>)]*`).FindAllString(out, -1) {
			if !strings.Contains(testSpec, u) {
				t.Errorf("output contains URL %q that is not in the spec", u)
			}
		}
	})

	t.Run("anchors resolve", func(t *testing.T) {
		ids := map[string]bool{}
		for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(out, -1) {
			if ids[m[1]] {
				t.Errorf("duplicate id %q", m[1])
			}
			ids[m[1]] = true
		}
		for _, m := range regexp.MustCompile(`href="#([^"]*)"`).FindAllStringSubmatch(out, -1) {
			if !ids[m[1]] {
				t.Errorf("link to missing anchor #%s", m[1])
			}
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		again, err := Render(loadTestSpec(t), testSamples)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, []byte(out)) {
			t.Error("two renders of the same spec differ")
		}
	})

	t.Run("operations in path order", func(t *testing.T) {
		ops := regexp.MustCompile(`<article class="op" id="([^"]+)"`).FindAllStringSubmatch(out, -1)
		var got []string
		for _, m := range ops {
			got = append(got, m[1])
		}
		want := "op-get-health op-createStatement op-createStatement-cb-matched-statementMatched op-getStatement"
		if strings.Join(got, " ") != want {
			t.Errorf("operation order = %v, want %s", got, want)
		}
	})
}

func TestRenderEdgeCases(t *testing.T) {
	if _, err := Render(nil, nil); err == nil {
		t.Error("Render(nil) returned no error")
	}

	minimal := &openapi3.T{OpenAPI: "3.0.3"}
	if _, err := Render(minimal, nil); err != nil {
		t.Errorf("Render(minimal) = %v", err)
	}

	// A cycle built in Go without $ref must still terminate.
	cyclic := &openapi3.Schema{Type: &openapi3.Types{"object"}}
	cyclic.Properties = openapi3.Schemas{"self": {Value: cyclic}}
	cyclic.Items = &openapi3.SchemaRef{Value: cyclic}
	cyclic.AllOf = openapi3.SchemaRefs{{Value: cyclic}}
	doc := &openapi3.T{OpenAPI: "3.0.3", Info: &openapi3.Info{Title: "cyclic", Version: "1"},
		Components: &openapi3.Components{Schemas: openapi3.Schemas{"Loop": {Value: cyclic}}}}
	out := renderWithTimeout(t, doc)
	if !strings.Contains(out, `id="schema-Loop"`) {
		t.Error("cyclic schema not rendered")
	}
}
