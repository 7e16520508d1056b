// Package apidocs renders an OpenAPI 3.0 document as one self-contained HTML
// page for GET /docs: no CDN and no external assets. A navigation of every
// operation stays in view beside the text, with a search box (the page's one
// small inline script, allowed by its hash: ScriptSource), and every operation
// shows its code samples in tabs. The page template, stylesheet and script are
// embedded in the binary, descriptions are rendered from a small, safe Markdown
// subset, and the output is deterministic, so a service renders the page once
// at start-up and serves the same bytes on every listener.
package apidocs

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed" // for the page template and stylesheet
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed page.html.tmpl
var pageSource string

//go:embed style.css
var styleCSS string

//go:embed search.js
var searchJS string

// ScriptSource is the Content-Security-Policy source that allows the page's one
// script (the navigation's search) and nothing else: its SHA-256 hash.
var ScriptSource = func() string {
	sum := sha256.Sum256([]byte(searchJS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// maxCallbackDepth bounds how deeply callbacks of callbacks are rendered.
const maxCallbackDepth = 3

// methodOrder is the order in which the operations of a path are listed.
var methodOrder = []string{"GET", "PUT", "POST", "PATCH", "DELETE", "QUERY", "HEAD", "OPTIONS", "TRACE", "CONNECT"}

// Render returns the HTML page for doc, with samples shown for their
// operations (nil: none). The page is a complete UTF-8 HTML document that loads
// no external resources and runs no script but its search (ScriptSource); links
// appear only where the document itself has them (contact, licence, external
// docs, OAuth URLs and Markdown links with http, https, mailto or relative
// URLs). The output is deterministic for a given document, so callers render
// it once and serve the bytes as "text/html; charset=utf-8".
func Render(doc *openapi3.T, samples Samples) ([]byte, error) {
	if doc == nil {
		return nil, errors.New("apidocs: nil OpenAPI document")
	}
	b := newBuilder(doc)
	b.samples = samples
	tmpl, err := template.New("page").Funcs(b.funcs()).Parse(pageSource)
	if err != nil {
		return nil, fmt.Errorf("apidocs: parse page template: %w", err)
	}
	ops := b.operations(doc.Paths.Map(), "op", 0)
	data := page{Doc: doc, CSS: template.CSS(styleCSS), Script: template.JS(searchJS), ScriptSource: ScriptSource,
		Ops: ops, Groups: b.groups(ops)}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("apidocs: render page: %w", err)
	}
	return buf.Bytes(), nil
}

type page struct {
	Doc          *openapi3.T
	CSS          template.CSS
	Script       template.JS
	ScriptSource string
	Ops          []*opView
	Groups       []tagGroup
}

// opView is an operation with everything the template cannot work out itself:
// its anchor, merged parameters, effective security and nested callbacks.
type opView struct {
	Anchor, Method, Path, Summary string
	Description                   template.HTML
	Op                            *openapi3.Operation
	Params                        []*openapi3.Parameter
	Security                      openapi3.SecurityRequirements
	InheritsSecurity              bool
	RequiredScopes                []string
	Callbacks                     []callbackView
	Samples                       []Sample
}

type callbackView struct {
	Name string
	Ops  []*opView
}

type tagGroup struct {
	Name, Anchor string
	Tag          *openapi3.Tag // nil when the tag is not declared
	Ops          []*opView
}

type exampleView struct{ Name, Summary, Value string }

// builder assigns page-unique anchors and builds the view model.
type builder struct {
	doc     *openapi3.T
	samples Samples
	ids     map[string]bool   // element ids in use
	named   map[string]string // kind + "\x00" + name -> id
}

func newBuilder(doc *openapi3.T) *builder {
	b := &builder{doc: doc, ids: map[string]bool{}, named: map[string]string{}}
	for _, id := range []string{"top", "toc", "servers", "security", "operations", "schemas"} {
		b.ids[id] = true
	}
	if c := doc.Components; c != nil {
		for _, name := range sortedKeys(c.Schemas) {
			b.named["schema\x00"+name] = b.anchor("schema-" + slug(name))
		}
		for _, name := range sortedKeys(c.SecuritySchemes) {
			b.named["security\x00"+name] = b.anchor("security-" + slug(name))
		}
	}
	return b
}

func (b *builder) funcs() template.FuncMap {
	return template.FuncMap{
		"md":       markdown,
		"link":     link,
		"lower":    strings.ToLower,
		"anchor":   b.anchorFor,
		"examples": examples,
		"schema":   func(r *openapi3.SchemaRef) *schemaBlock { return b.block(r, 0, map[*openapi3.Schema]bool{}) },
		"typeOf":   func(r *openapi3.SchemaRef) template.HTML { return b.typeHTML(r, 0, true) },
	}
}

// anchor reserves a page-unique element id derived from base.
func (b *builder) anchor(base string) string {
	id := base
	for n := 2; b.ids[id]; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	b.ids[id] = true
	return id
}

// anchorFor returns the id of a declared schema or security scheme ("" when
// it is not declared) or of a tag group (allocated on first use).
func (b *builder) anchorFor(kind, name string) string {
	key := kind + "\x00" + name
	if id, ok := b.named[key]; ok || kind != "tag" {
		return id
	}
	b.named[key] = b.anchor("tag-" + slug(name))
	return b.named[key]
}

// operations lists the operations of paths (or of callback expressions) in
// path order, then method order.
func (b *builder) operations(paths map[string]*openapi3.PathItem, prefix string, depth int) []*opView {
	var out []*opView
	for _, path := range sortedKeys(paths) {
		item := paths[path]
		if item == nil {
			continue
		}
		ops := item.Operations()
		extra := slices.DeleteFunc(sortedKeys(ops), func(m string) bool { return slices.Contains(methodOrder, m) })
		for _, method := range append(slices.Clone(methodOrder), extra...) {
			if op := ops[method]; op != nil {
				out = append(out, b.operation(prefix, path, method, item, op, depth))
			}
		}
	}
	return out
}

func (b *builder) operation(prefix, path, method string, item *openapi3.PathItem, op *openapi3.Operation, depth int) *opView {
	id := slug(strings.ToLower(method) + "-" + path)
	if op.OperationID != "" {
		id = slug(op.OperationID)
	}
	v := &opView{
		Anchor:           b.anchor(prefix + "-" + id),
		Method:           strings.ToUpper(method),
		Path:             path,
		Summary:          cmp.Or(op.Summary, item.Summary),
		Description:      markdown(cmp.Or(op.Description, item.Description)),
		Op:               op,
		Params:           mergeParams(item.Parameters, op.Parameters),
		Security:         b.doc.Security,
		InheritsSecurity: true,
		RequiredScopes:   stringList(op.Extensions["x-required-scopes"]),
		Samples:          b.samples[op.OperationID],
	}
	if op.Security != nil {
		v.Security, v.InheritsSecurity = *op.Security, false
	}
	for _, name := range sortedKeys(op.Callbacks) {
		if cb := op.Callbacks[name]; cb != nil && cb.Value != nil && depth < maxCallbackDepth {
			ops := b.operations(cb.Value.Map(), v.Anchor+"-cb-"+slug(name), depth+1)
			v.Callbacks = append(v.Callbacks, callbackView{Name: name, Ops: ops})
		}
	}
	return v
}

// mergeParams merges path-level and operation-level parameters (the latter
// win) and orders them path, query, header, cookie, keeping declaration order.
func mergeParams(pathLevel, opLevel openapi3.Parameters) []*openapi3.Parameter {
	seen := map[[2]string]bool{}
	var out []*openapi3.Parameter
	for _, ref := range slices.Concat(opLevel, pathLevel) {
		if ref != nil && ref.Value != nil && !seen[[2]string{ref.Value.Name, ref.Value.In}] {
			seen[[2]string{ref.Value.Name, ref.Value.In}] = true
			out = append(out, ref.Value)
		}
	}
	rank := map[string]int{"path": 0, "query": 1, "header": 2, "cookie": 3}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].In] < rank[out[j].In] })
	return out
}

// groups builds the table of contents: declared tags in declaration order,
// then undeclared tags alphabetically, then untagged operations.
func (b *builder) groups(ops []*opView) []tagGroup {
	var out []tagGroup
	index := map[string]int{}
	add := func(name string, tag *openapi3.Tag) {
		if _, ok := index[name]; !ok {
			index[name] = len(out)
			out = append(out, tagGroup{Name: name, Anchor: b.anchorFor("tag", name), Tag: tag})
		}
	}
	for _, t := range b.doc.Tags {
		if t != nil {
			add(t.Name, t)
		}
	}
	var untagged []*opView
	var undeclared []string
	for _, op := range ops {
		for _, t := range op.Op.Tags {
			if _, ok := index[t]; !ok && !slices.Contains(undeclared, t) {
				undeclared = append(undeclared, t)
			}
		}
		if len(op.Op.Tags) == 0 {
			untagged = append(untagged, op)
		}
	}
	slices.Sort(undeclared)
	for _, name := range undeclared {
		add(name, nil)
	}
	for _, op := range ops {
		for _, t := range op.Op.Tags {
			if g := &out[index[t]]; !slices.Contains(g.Ops, op) {
				g.Ops = append(g.Ops, op)
			}
		}
	}
	if len(untagged) > 0 {
		name := "Other operations"
		if len(out) == 0 {
			name = "Operations"
		}
		out = append(out, tagGroup{Name: name, Anchor: b.anchor("tag-untagged"), Ops: untagged})
	}
	return out
}

// examples lists a media type's example and named examples, falling back to
// the schema's example.
func examples(mediaType string, mt *openapi3.MediaType) []exampleView {
	var out []exampleView
	if mt.Example != nil {
		out = append(out, exampleView{Value: pretty(mt.Example, mediaType)})
	}
	for _, name := range sortedKeys(mt.Examples) {
		if ex := mt.Examples[name]; ex != nil && ex.Value != nil {
			v := exampleView{Name: name, Summary: ex.Value.Summary, Value: pretty(ex.Value.Value, mediaType)}
			if ex.Value.Value == nil {
				v.Value = "external: " + ex.Value.ExternalValue
			}
			out = append(out, v)
		}
	}
	if len(out) == 0 && mt.Schema != nil && mt.Schema.Value != nil && mt.Schema.Value.Example != nil {
		out = append(out, exampleView{Summary: "from the schema", Value: pretty(mt.Schema.Value.Example, mediaType)})
	}
	return out
}

// stringList reads a list-valued extension such as x-required-scopes.
func stringList(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, plainValue(e))
		}
		return out
	}
	return []string{plainValue(v)}
}

func sortedKeys[M ~map[string]V, V any](m M) []string { return slices.Sorted(maps.Keys(m)) }
