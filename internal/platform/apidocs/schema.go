package apidocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxSchemaDepth bounds how deeply inline (non-$ref) schemas are expanded.
// $ref'd schemas are never expanded in place: they render as links, so
// recursion through references always stops.
const maxSchemaDepth = 6

// schemaBlock describes one schema: a one-line type summary, its description,
// allOf/oneOf/anyOf members and a flattened properties table.
type schemaBlock struct {
	Type, Description template.HTML
	Groups            []compositionView
	Props             []propRow
}

type compositionView struct {
	Kind    string
	Members []*schemaBlock
}

type propRow struct {
	Name              string
	Required          bool
	Type, Description template.HTML
}

type composition struct {
	kind string
	refs openapi3.SchemaRefs
}

func compositions(s *openapi3.Schema) []composition {
	var out []composition
	for _, c := range []composition{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		if len(c.refs) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// block describes ref. A $ref becomes a link to its #schema-Name anchor; an
// inline schema is expanded. onPath holds the inline schemas being expanded,
// so that cyclic graphs built in Go without $ref still terminate.
func (b *builder) block(ref *openapi3.SchemaRef, depth int, onPath map[*openapi3.Schema]bool) *schemaBlock {
	if ref == nil {
		return nil
	}
	s := ref.Value
	if ref.Ref != "" || s == nil || depth >= maxSchemaDepth || onPath[s] {
		return &schemaBlock{Type: b.typeHTML(ref, depth, true)}
	}
	onPath[s] = true
	defer delete(onPath, s)
	blk := &schemaBlock{Type: b.typeHTML(ref, depth, false), Description: markdown(s.Description)}
	for _, c := range compositions(s) {
		cv := compositionView{Kind: c.kind}
		for _, m := range c.refs {
			if m != nil {
				cv.Members = append(cv.Members, b.block(m, depth+1, onPath))
			}
		}
		blk.Groups = append(blk.Groups, cv)
	}
	b.props(&blk.Props, s, "", depth, onPath)
	return blk
}

// props appends a row per property of s, sorted by name, flattening inline
// nested objects ("address.street") and array items ("lines[].amount").
func (b *builder) props(rows *[]propRow, s *openapi3.Schema, prefix string, depth int, onPath map[*openapi3.Schema]bool) {
	nested := func(ref *openapi3.SchemaRef, prefix string) {
		if ref != nil && ref.Ref == "" && ref.Value != nil && !onPath[ref.Value] && depth+1 < maxSchemaDepth {
			onPath[ref.Value] = true
			b.props(rows, ref.Value, prefix, depth+1, onPath)
			delete(onPath, ref.Value)
		}
	}
	nested(s.Items, strings.TrimSuffix(prefix, ".")+"[].")
	for _, name := range sortedKeys(s.Properties) {
		if p := s.Properties[name]; p != nil {
			row := propRow{Name: prefix + name, Required: slices.Contains(s.Required, name), Type: b.typeHTML(p, depth+1, true)}
			if p.Ref == "" && p.Value != nil {
				row.Description = markdown(p.Value.Description)
			}
			*rows = append(*rows, row)
			nested(p, prefix+name+".")
		}
	}
}

// typeHTML summarises a schema on one line: type and format, array item and
// map value types, $ref links, composition members (unless the caller lists
// them itself), flags and enum values.
func (b *builder) typeHTML(ref *openapi3.SchemaRef, depth int, withComposition bool) template.HTML {
	var sb strings.Builder
	b.writeType(&sb, ref, depth, withComposition)
	return template.HTML(sb.String())
}

func (b *builder) writeType(sb *strings.Builder, ref *openapi3.SchemaRef, depth int, withComposition bool) {
	switch {
	case ref == nil || (ref.Ref == "" && ref.Value == nil):
		sb.WriteString(`<span class="type">any</span>`)
		return
	case ref.Ref != "":
		sb.WriteString(b.refLink(ref.Ref))
		return
	case depth > maxSchemaDepth:
		sb.WriteString(`<span class="type">…</span>`)
		return
	}
	s := ref.Value
	types := s.Type.Slice()
	if len(types) == 0 && (len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil) {
		types = []string{"object"}
	} else if len(types) == 0 && s.Items != nil {
		types = []string{"array"}
	}
	for i, t := range types {
		if i > 0 {
			sb.WriteString(" | ")
		}
		sb.WriteString(`<span class="type">` + template.HTMLEscapeString(t) + `</span>`)
		if t == "array" {
			sb.WriteString(" of ")
			b.writeType(sb, s.Items, depth+1, true)
		}
	}
	if s.Format != "" {
		sb.WriteString(` <span class="fmt">(` + template.HTMLEscapeString(s.Format) + `)</span>`)
	}
	if ap := s.AdditionalProperties.Schema; ap != nil {
		sb.WriteString(" of ")
		b.writeType(sb, ap, depth+1, true)
		sb.WriteString(" values")
	}
	comps := compositions(s)
	for _, c := range comps {
		if withComposition {
			sb.WriteString(` <span class="kw">` + c.kind + `</span>:`)
			for i, m := range c.refs {
				if i > 0 {
					sb.WriteString(",")
				}
				sb.WriteString(" ")
				b.writeType(sb, m, depth+1, true)
			}
		}
	}
	if len(types) == 0 && len(comps) == 0 {
		sb.WriteString(`<span class="type">any</span>`)
	}
	for _, flag := range []struct {
		on   bool
		name string
	}{{s.Nullable, "nullable"}, {s.ReadOnly, "read-only"}, {s.WriteOnly, "write-only"}, {s.Deprecated, "deprecated"}} {
		if flag.on {
			sb.WriteString(` <span class="badge">` + flag.name + `</span>`)
		}
	}
	if len(s.Enum) > 0 {
		sb.WriteString(`<span class="enum">enum:`)
		for _, v := range s.Enum {
			sb.WriteString(" <code>" + template.HTMLEscapeString(plainValue(v)) + "</code>")
		}
		sb.WriteString("</span>")
	}
}

// refLink renders a $ref as an in-page link when it names a component schema
// and as its bare name otherwise.
func (b *builder) refLink(ref string) string {
	name := strings.NewReplacer("~1", "/", "~0", "~").Replace(ref[strings.LastIndex(ref, "/")+1:])
	code := "<code>" + template.HTMLEscapeString(name) + "</code>"
	if a := b.anchorFor("schema", name); a != "" && strings.HasPrefix(ref, "#/components/schemas/") {
		return `<a class="ref" href="#` + a + `">` + code + `</a>`
	}
	return code
}

// slug reduces s to an HTML id fragment made of [A-Za-z0-9_.-].
func slug(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	if out := strings.TrimSuffix(b.String(), "-"); out != "" {
		return out
	}
	return "x"
}

// link renders text as a link to href when href is a safe URL and as plain
// text otherwise.
func link(href, text string) template.HTML {
	if u, ok := safeURL(href); ok && text != "" {
		return template.HTML(`<a href="` + template.HTMLEscapeString(u) + `">` + template.HTMLEscapeString(text) + `</a>`)
	}
	return template.HTML(template.HTMLEscapeString(text))
}

// pretty formats an example: JSON values indented, strings for non-JSON media
// types verbatim.
func pretty(v any, mediaType string) string {
	if s, ok := v.(string); ok && !strings.Contains(mediaType, "json") {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(buf.String(), "\n")
}

// plainValue formats a scalar for display: strings verbatim, anything else
// as compact JSON.
func plainValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if out, err := json.Marshal(v); err == nil {
		return string(out)
	}
	return fmt.Sprint(v)
}
