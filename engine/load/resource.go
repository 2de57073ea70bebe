package load

import (
	"cmp"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// resourceSpec and resourceTemplateSpec are the resource and
// resource_template blocks: attributes of their own, and a tool's that
// computes their contents — the same arg blocks, action blocks and
// programs as a tool, without what only a tool has. The load adds the
// action blocks from the registry (loader.withActions).
var (
	resourceSpec = &spec.Block{
		Name:    "resource",
		Labels:  []string{"name"},
		Summary: "An MCP resource, read by its URI: fixed contents (text, a file) or contents computed by an action, as a tool computes its result.",
		Doc: "A resource's contents come from file, or from text, content blocks or an action block (http, exec, sql) with text; not both. " +
			"Text is served as text, text/plain unless mime_type says otherwise; an image or audio block, as a blob with its type. A resource takes a tool's title, description, timeout, text, error_if, error_message, max_result_bytes, sanitize and content blocks.",
		Example: `resource "readme" {
  uri         = "docs://readme"
  description = "The project's readme."
  text        = "Read me first."
}`,
		Attrs: slices.Concat([]*spec.Attr{
			spec.String("uri", "is the resource's URI, unique among resources, such as docs://readme").Mandatory().Shown(),
			spec.String("file", "is a file whose contents the resource serves, read when the configuration loads, relative to this file, at most max_result_bytes: served as text when its type is textual (text/*, JSON, XML, YAML, CSV), else as a blob").Shown(),
		}, resourceAttrs, resourceToolAttrs),
		Blocks: []spec.Nested{{Block: contentAnnotationsSpec, Max: 1}, {Block: contentSpec}},
	}
	resourceTemplateSpec = &spec.Block{
		Name:    "resource_template",
		Labels:  []string{"name"},
		Summary: "MCP resources read by URIs that match a template (RFC 6570), whose variables are its arguments.",
		Doc: "The contents are computed from the variables, as a tool computes its result from its arguments: text = expr(…), content blocks, or an action block with text. " +
			"Each variable of uri_template is an arg block (no more, no fewer): the values taken from the URI are checked like a tool's arguments " +
			"(a number or true in the URI becomes one for an integer, number or bool argument); an arg may have a complete block.",
		Example: `resource_template "user" {
  uri_template = "users://{id}"
  arg "id" {
    type = string
  }
  text = expr("'user ' + args.id")
}`,
		Attrs: slices.Concat([]*spec.Attr{
			spec.String("uri_template", "is the URI template (RFC 6570), such as users://{id}").Mandatory().Shown(),
		}, resourceAttrs, resourceToolAttrs, redocument(pickToolAttrs("defs"), map[string]string{
			"defs": `are named JSON Schemas that the arguments' schemas refer to as { "$ref" = "#/$defs/Name" }, such as defs = local.defs shared with tools: the values taken from the URI are checked against them`,
		})),
		Blocks: []spec.Nested{{Block: contentAnnotationsSpec, Max: 1}, {Block: contentSpec}, {Block: argSpec}},
	}
)

// resourceAttrs are the attributes of a resource and a resource template
// besides their URI, and besides a tool's.
var resourceAttrs = []*spec.Attr{
	spec.String("mime_type", "is the media type of the contents").DefaultIs("text/plain for text").Shown(),
	spec.Duration("poll_interval", "is how often a subscribed resource is read again, to tell its subscribers when it changed (contents computed by an action only)").AtLeast(int64(minPollInterval)),
}

// resourceToolAttrs are the attributes of a tool that a resource block has,
// documented for what they do there.
var resourceToolAttrs = redocument(pickToolAttrs("description", "title", "icons", "text", "error_if", "error_message", "timeout", "max_result_bytes", "sanitize"), map[string]string{
	"description":      "is what the contents are, for the model",
	"text":             "is the contents' text",
	"error_if":         "yields a bool: whether the read fails",
	"timeout":          "bounds one read",
	"max_result_bytes": "is the largest contents of a read",
	"sanitize":         "cleans terminal escape sequences and control characters out of the contents; false leaves them",
})

// redocument returns copies of attrs whose Doc is docs[name] where docs
// has one, so that a tool's attribute reused by another block reads right
// in the reference.
func redocument(attrs []*spec.Attr, docs map[string]string) []*spec.Attr {
	out := make([]*spec.Attr, len(attrs))
	for i, a := range attrs {
		if d, ok := docs[a.Name]; ok {
			c := *a
			c.Doc = d
			a = &c
		}
		out[i] = a
	}
	return out
}

// resources decodes the resource and resource_template blocks.
func (l *loader) resources() ([]*engine.Resource, []*engine.ResourceTemplate) {
	var resources []*engine.Resource
	seenURI := map[string]*hcl.Block{}
	bodySpec := l.withActions(resourceSpec)
	for _, b := range l.checkUnique(l.blocks["resource"], "resource") {
		if r := l.resource(b, bodySpec, seenURI); r != nil {
			resources = append(resources, r)
		}
	}
	var templates []*engine.ResourceTemplate
	bodySpec = l.withActions(resourceTemplateSpec)
	for _, b := range l.checkUnique(l.blocks["resource_template"], "resource_template") {
		if t := l.resourceTemplate(b, bodySpec); t != nil {
			templates = append(templates, t)
		}
	}
	slices.SortFunc(resources, func(a, b *engine.Resource) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(templates, func(a, b *engine.ResourceTemplate) int { return cmp.Compare(a.Name, b.Name) })
	return resources, templates
}

func (l *loader) resource(b *hcl.Block, bodySpec *spec.Block, seenURI map[string]*hcl.Block) *engine.Resource {
	before := len(l.diags)
	t, v := l.toolFor(b, bodySpec, toolUse{})
	ctx := l.decodeContext(b.DefRange.Filename)
	r := &engine.Resource{Name: b.Labels[0], Range: b.DefRange, URI: v.String("uri"), MIMEType: v.String("mime_type")}
	if ab := v.Blocks("annotations"); len(ab) > 0 {
		r.Annotations = l.contentAnnotations(ctx, ab[0])
	}
	if a := v.Attr("uri"); a != nil {
		if prev, dup := seenURI[r.URI]; dup && r.URI != "" {
			l.error(a.Expr.Range(), "Duplicate resource URI", "The resource at %s already has the URI %q; each resource has its own.", prev.DefRange, r.URI)
		}
		seenURI[r.URI] = b
	}
	if t == nil || l.diags[before:].HasErrors() {
		return nil
	}
	r.Title, r.Description, r.Icons = t.Title(), t.Description(), t.Icons()
	a := v.Attr("file")
	computed := t.HasAction() || t.HasResultPrograms()
	switch {
	case a != nil && computed:
		l.error(a.NameRange, "Both file and computed contents", "A resource's contents come from file, or from an action, text or content blocks; not both.")
		return nil
	case a != nil:
		if pa := v.Attr("poll_interval"); pa != nil {
			l.error(pa.NameRange, "Nothing to poll", "A file resource is read when the configuration loads; it changes for subscribers when the configuration reloads (serve --watch). poll_interval is for contents computed by an action; remove it.")
		}
		path := v.String("file")
		if path == "" {
			return nil
		}
		data, full, err := ctx.ReadFile(path)
		if err != nil {
			hint := "Give the path of a regular file this process can read."
			if !filepath.IsAbs(path) {
				hint = "The path is relative to the directory of this file."
			}
			l.error(a.Expr.Range(), "Cannot read the resource's file", "%s. %s", err, hint)
			return nil
		}
		if max := l.settings.MaxResultBytes; max > 0 && int64(len(data)) > max {
			l.error(a.Expr.Range(), "Resource file too large", "%s holds %d bytes, more than a result may (max_result_bytes, %d). Serve a smaller file, or raise max_result_bytes in the server block.", full, len(data), max)
			return nil
		}
		r.Data = data
	case computed:
		r.Tool = t
		r.PollInterval = l.pollInterval(v, t)
	default:
		l.error(b.DefRange, "Resource without contents", "A resource needs contents: text = \"…\" (or an expr()), file = \"path\", content blocks, or an action block such as http { … } with text.")
		return nil
	}
	// Text is text/plain unless said otherwise, as it is read.
	if r.MIMEType == "" && (r.Tool == nil && engine.IsTextual("", r.Data) || r.Tool != nil && !r.Tool.HasContentBlocks()) {
		r.MIMEType = "text/plain"
	}
	return r
}

func (l *loader) resourceTemplate(b *hcl.Block, bodySpec *spec.Block) *engine.ResourceTemplate {
	before := len(l.diags)
	completes := map[string]*hcl.Block{}
	t, v := l.toolFor(b, bodySpec, toolUse{completes: completes})
	ctx := l.decodeContext(b.DefRange.Filename)
	spec := engine.ResourceTemplate{Name: b.Labels[0], Range: b.DefRange, URITemplate: v.String("uri_template"), MIMEType: v.String("mime_type")}
	if ab := v.Blocks("annotations"); len(ab) > 0 {
		spec.Annotations = l.contentAnnotations(ctx, ab[0])
	}
	for arg, cb := range completes {
		c := l.completer(b.Labels[0]+"."+arg, cb)
		if c == nil {
			continue
		}
		if spec.Completers == nil {
			spec.Completers = map[string]*engine.Completer{}
		}
		spec.Completers[arg] = c
	}
	if t == nil || l.diags[before:].HasErrors() {
		return nil
	}
	if !t.HasAction() && !t.HasResultPrograms() {
		l.error(b.DefRange, "Resource template without contents", "A resource template computes its contents from its variables: text = expr(\"…\"), content blocks, or an action block such as sql { … } with text.")
		return nil
	}
	spec.Title, spec.Description, spec.Icons, spec.Tool = t.Title(), t.Description(), t.Icons(), t
	spec.PollInterval = l.pollInterval(v, t)
	if spec.MIMEType == "" && !t.HasContentBlocks() {
		spec.MIMEType = "text/plain" // as its text is read
	}
	rt, err := engine.NewResourceTemplate(spec)
	if err != nil {
		l.error(v.Attr("uri_template").Expr.Range(), "Invalid uri_template", "%s.", text.UpperFirst(err.Error()))
		return nil
	}
	return rt
}

// minPollInterval is the shortest poll_interval: a subscribed resource
// is read again at most once a second.
const minPollInterval = time.Second

// pollInterval reads the poll_interval of a resource or template whose
// contents t computes: how often they are read again while a client is
// subscribed (resources/subscribe), to tell it when they changed.
// Contents that depend on who reads them cannot be polled for all.
func (l *loader) pollInterval(v *spec.Values, t *engine.Tool) time.Duration {
	a := v.Attr("poll_interval")
	if a == nil || !v.Has("poll_interval") {
		return 0
	}
	if t.ReadsCaller() {
		l.error(a.Expr.Range(), "Polled contents read the caller", "These contents read caller, so they differ from one client to another, and one read cannot tell every subscriber whether they changed. Remove poll_interval, or the use of caller.")
		return 0
	}
	return v.Duration("poll_interval")
}
