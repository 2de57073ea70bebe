package load

import (
	"encoding/base64"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// contentFields lists, for each type of content block, the attributes it
// takes and which of them are required.
var contentFields = map[engine.ContentType]struct{ all, required []string }{
	engine.TextContent:         {[]string{"text"}, []string{"text"}},
	engine.ImageContent:        {[]string{"data", "mime_type"}, []string{"data", "mime_type"}},
	engine.AudioContent:        {[]string{"data", "mime_type"}, []string{"data", "mime_type"}},
	engine.ResourceLinkContent: {[]string{"uri", "name", "title", "description", "mime_type"}, []string{"uri", "name"}},
	engine.ResourceContent:     {[]string{"uri", "mime_type", "text", "blob"}, []string{"uri"}},
}

// contents decodes the content blocks of a tool, in order.
func (l *loader) contents(ctx *engine.DecodeContext, blocks hcl.Blocks) []engine.ContentSpec {
	var out []engine.ContentSpec
	for _, b := range blocks {
		if b.Type != "content" {
			continue
		}
		if c, ok := l.content(ctx, b); ok {
			out = append(out, c)
		}
	}
	return out
}

func (l *loader) content(ctx *engine.DecodeContext, b *hcl.Block) (engine.ContentSpec, bool) {
	typ := engine.ContentType(b.Labels[0])
	fields, known := contentFields[typ]
	if !known {
		names := slices.Sorted(maps.Keys(contentFields))
		kinds := make([]string, len(names))
		for i, n := range names {
			kinds[i] = string(n)
		}
		l.error(b.LabelRanges[0], "Invalid content type", "%q is not a content type; use %s.", typ, quoteList(kinds))
		return engine.ContentSpec{}, false
	}
	schema := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "when"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "annotations"}},
	}
	for _, name := range fields.all {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: name, Required: slices.Contains(fields.required, name)})
	}
	content, diags := b.Body.Content(schema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return engine.ContentSpec{}, false
	}
	before := len(l.diags)
	c := engine.ContentSpec{Type: typ}
	value := func(name string) mapping.Value {
		a, ok := content.Attributes[name]
		if !ok {
			return nil
		}
		// Every field but when reaches the client: a secret spliced in,
		// even into a program's text, could come out in any form, so
		// redacting the result cannot be relied on to hide it.
		if name != "when" && !l.public(ctx, a.Expr, "the "+name+" of "+engine.WithArticle(string(typ))+" content block") {
			return nil
		}
		v, diags := ctx.Value(a.Expr)
		l.diags = append(l.diags, diags...)
		if s, isConst := mapping.IsConst(v); isConst && (name == "data" || name == "blob") {
			if str, ok := s.(string); !ok {
				l.error(a.Expr.Range(), "Invalid "+name, "%s must be base64, such as filebase64(…) would give, or an expr(…) yielding it.", name)
			} else if _, err := base64.StdEncoding.DecodeString(str); err != nil {
				l.error(a.Expr.Range(), "Invalid "+name, "%s is not valid base64: %s.", name, err)
			}
		}
		return v
	}
	c.When = value("when")
	c.Text, c.Data, c.Blob = value("text"), value("data"), value("blob")
	c.MIMEType, c.URI, c.Name = value("mime_type"), value("uri"), value("name")
	c.Title, c.Description = value("title"), value("description")
	if typ == engine.ResourceContent {
		_, hasText := content.Attributes["text"]
		_, hasBlob := content.Attributes["blob"]
		if hasText == hasBlob {
			l.error(b.DefRange, "Invalid resource content", "An embedded resource takes exactly one of text or blob (base64).")
		}
	}
	for i, ab := range content.Blocks {
		if i > 0 {
			l.error(ab.DefRange, "Duplicate annotations block", "A content block takes at most one annotations block.")
			continue
		}
		c.Annotations = l.contentAnnotations(ctx, ab)
	}
	return c, len(l.diags) == before || !l.diags[before:].HasErrors()
}

var contentAnnotationsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "audience"}, {Name: "priority"}, {Name: "last_modified"},
}}

// contentAnnotations decodes the load-time annotations of a content block.
func (l *loader) contentAnnotations(ctx *engine.DecodeContext, b *hcl.Block) *engine.ContentAnnotations {
	content, diags := b.Body.Content(contentAnnotationsSchema)
	l.diags = append(l.diags, diags...)
	a := &engine.ContentAnnotations{}
	for _, f := range contentAnnotationsSchema.Attributes {
		if at, ok := content.Attributes[f.Name]; ok && !l.public(ctx, at.Expr, "the "+f.Name+" of an annotations block") {
			delete(content.Attributes, f.Name) // checked no further: reported
		}
	}
	if at, ok := content.Attributes["audience"]; ok {
		list, _ := l.plain(ctx, at).([]any)
		for _, r := range list {
			if s, ok := r.(string); ok && (s == "user" || s == "assistant") {
				a.Audience = append(a.Audience, s)
				continue
			}
			l.error(at.Expr.Range(), "Invalid audience", `audience is a list of "user" and "assistant".`)
			break
		}
		if list == nil {
			l.error(at.Expr.Range(), "Invalid audience", `audience is a list of "user" and "assistant".`)
		}
	}
	if at, ok := content.Attributes["priority"]; ok {
		var p float64
		switch v := l.plain(ctx, at).(type) {
		case int:
			p = float64(v)
		case float64:
			p = v
		default:
			p = -1
		}
		if p < 0 || p > 1 {
			l.error(at.Expr.Range(), "Invalid priority", "priority is a number from 0 (least important) to 1 (most).")
		}
		a.Priority = &p
	}
	if at, ok := content.Attributes["last_modified"]; ok {
		a.LastModified = l.str(ctx, at)
		if _, err := time.Parse(time.RFC3339, a.LastModified); err != nil && !strings.Contains(a.LastModified, "$") {
			l.error(at.Expr.Range(), "Invalid last_modified", "last_modified must be an ISO 8601 time such as \"2025-01-12T15:00:58Z\".")
		}
	}
	return a
}
