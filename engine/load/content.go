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
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// contentSpec is the content block of a tool (and of a resource or a
// prompt message). Which attributes a block takes depends on its type,
// its label: contentFields, checked after decoding.
var contentSpec = &spec.Block{
	Name:    "content",
	In:      "tool",
	Labels:  []string{"type"},
	Summary: "One block of the result's content, in order: text, image, audio, resource_link or an embedded resource.",
	Doc: "With content blocks, the content of a result is exactly those blocks, in order, instead of text. " +
		"text takes text; image and audio take data (base64) and mime_type; resource_link takes uri and name (and title, description, mime_type); " +
		"resource, an embedded resource, takes uri and exactly one of text or blob (base64), and optionally mime_type. " +
		"Each value may be a literal or an expr(…) program, run per call.",
	Example: `content "text" {
  text = expr("'Done: ' + string(len(args))")
}`,
	Attrs: []*spec.Attr{
		spec.Expr("when", "yields a bool: whether the block is in this result").DefaultIs("always").Unevaluated(),
		spec.Expr("text", "is the text (text, resource)").Unevaluated().Shown(),
		spec.Expr("data", `is base64, such as filebase64(…) gives (image, audio)`).Unevaluated().Shown(),
		spec.Expr("mime_type", "is the media type of the data (image, audio; optional for resource_link, resource)").Unevaluated().Shown(),
		spec.Expr("uri", "is the resource's URI (resource_link, resource)").Unevaluated().Shown(),
		spec.Expr("name", "is the linked resource's name (resource_link)").Unevaluated().Shown(),
		spec.Expr("title", "is the linked resource's name for people (resource_link)").Unevaluated().Shown(),
		spec.Expr("description", "says what the linked resource holds (resource_link)").Unevaluated().Shown(),
		spec.Expr("blob", "is the embedded resource's contents, base64 (resource)").Unevaluated().Shown(),
	},
	Blocks: []spec.Nested{{Block: contentAnnotationsSpec, Max: 1}},
}

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
		l.error(b.LabelRanges[0], "Invalid content type", "%q is not a content type; use %s.", typ, text.Or(text.Quoted(kinds)))
		return engine.ContentSpec{}, false
	}
	before := len(l.diags)
	v, diags := contentSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	for _, a := range contentSpec.Attrs[1:] { // all but when
		takes := slices.Contains(fields.all, a.Name)
		if at := v.Attr(a.Name); at != nil && !takes {
			l.error(at.NameRange, "Unsupported argument", "%s content block takes no %s; its attributes are: %s.", text.UpperFirst(text.WithArticle(string(typ))), a.Name, strings.Join(fields.all, ", "))
		} else if at == nil && slices.Contains(fields.required, a.Name) {
			l.error(b.Body.MissingItemRange(), "Missing required argument", "%s content block needs %s.", text.UpperFirst(text.WithArticle(string(typ))), a.Name)
		}
	}
	if l.diags[before:].HasErrors() {
		return engine.ContentSpec{}, false
	}
	c := engine.ContentSpec{Type: typ}
	value := func(name string) mapping.Value {
		a := v.Attr(name)
		if a == nil {
			return nil
		}
		// Every field but when reaches the client: a secret spliced in,
		// even into a program's text, could come out in any form, so
		// redacting the result cannot be relied on to hide it.
		if name != "when" && !l.public(ctx, a.Expr, "the "+name+" of "+text.WithArticle(string(typ))+" content block") {
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
	if typ == engine.ResourceContent && v.Written("text") == v.Written("blob") {
		l.error(b.DefRange, "Invalid resource content", "An embedded resource takes exactly one of text or blob (base64).")
	}
	if ab := v.Blocks("annotations"); len(ab) > 0 {
		c.Annotations = l.contentAnnotations(ctx, ab[0])
	}
	return c, !l.diags[before:].HasErrors()
}

// contentAnnotationsSpec is the annotations block of a content block, and
// of a resource or a resource template.
var contentAnnotationsSpec = &spec.Block{
	Name:    "annotations",
	In:      "content",
	Summary: "Who the content is for, how important it is, and when it last changed.",
	Example: `annotations {
  audience = ["user"]
  priority = 0.5
}`,
	Attrs: []*spec.Attr{
		spec.List("audience", spec.KindString, `is who the content is for: a list of "user" and "assistant"`).Unevaluated().Shown(),
		spec.Any("priority", "is a number from 0 (least important) to 1 (most)").Unevaluated().Shown(),
		spec.String("last_modified", `is when the content last changed, an ISO 8601 time such as "2025-01-12T15:00:58Z"`).Unevaluated().Shown(),
	},
}

// contentAnnotations decodes the load-time annotations of a content block.
func (l *loader) contentAnnotations(ctx *engine.DecodeContext, b *hcl.Block) *engine.ContentAnnotations {
	v, diags := contentAnnotationsSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	a := &engine.ContentAnnotations{}
	attr := func(name string) *hcl.Attribute {
		// Checked no further when it holds a secret: reported.
		if at := v.Attr(name); at != nil && l.public(ctx, at.Expr, "the "+name+" of an annotations block") {
			return at
		}
		return nil
	}
	if at := attr("audience"); at != nil {
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
	if at := attr("priority"); at != nil {
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
	if at := attr("last_modified"); at != nil {
		s, diags := ctx.String(at.Expr)
		l.diags = append(l.diags, diags...)
		a.LastModified = s
		if _, err := time.Parse(time.RFC3339, a.LastModified); err != nil && !strings.Contains(a.LastModified, "$") {
			l.error(at.Expr.Range(), "Invalid last_modified", "last_modified must be an ISO 8601 time such as \"2025-01-12T15:00:58Z\".")
		}
	}
	return a
}
