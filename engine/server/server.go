package server

import (
	"bytes"
	"encoding/json"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
)

// ProtocolVersions are the MCP revisions the server speaks, newest first.
func ProtocolVersions() []string { return mcp.SupportedProtocolVersions() }

// New builds an MCP server that serves the tools of cfg. Calls are logged to
// logger: tool errors at Info, successes at Debug, with secrets redacted.
func New(cfg *engine.Config, logger *slog.Logger) *mcp.Server {
	return NewLive(cfg, logger, Options{}).Server()
}

// Tool describes t as the MCP tool that tools/list shows, its
// outputSchema as the server's output_schemas says.
func Tool(t *engine.Tool) *mcp.Tool { return ToolAs(t, "") }

// ToolAs is [Tool] with its outputSchema as mode says (one of
// engine.OutputSchemaModes; "" for the server's setting), as a toolset
// that sets output_schemas lists it.
func ToolAs(t *engine.Tool, mode string) *mcp.Tool {
	mt := &mcp.Tool{
		Name:         t.Name(),
		Title:        t.Title(),
		Description:  t.Description(),
		InputSchema:  t.InputSchemaJSON(),
		Annotations:  annotations(t.Annotations()),
		OutputSchema: nil,
	}
	if out := t.ListedOutputSchemaJSON(mode); out != nil {
		mt.OutputSchema = out
	}
	mt.Icons = icons(t.Icons())
	if m := t.Meta(); m != nil {
		mt.Meta = m
	}
	return mt
}

// icons are the icons of a tool, resource or template as MCP lists them.
func icons(in []engine.Icon) []mcp.Icon {
	var out []mcp.Icon
	for _, i := range in {
		out = append(out, mcp.Icon{Source: i.Src, MIMEType: i.MIMEType, Sizes: i.Sizes, Theme: mcp.IconTheme(i.Theme)})
	}
	return out
}

func annotations(a *engine.Annotations) *mcp.ToolAnnotations {
	if a == nil {
		return nil
	}
	deref := func(b *bool) bool { return b != nil && *b }
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    deref(a.ReadOnlyHint),
		DestructiveHint: a.DestructiveHint,
		IdempotentHint:  deref(a.IdempotentHint),
		OpenWorldHint:   a.OpenWorldHint,
	}
}

// Result converts an engine result into the MCP one.
func Result(r *engine.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Content))}
	if r.Structured != nil {
		// Written by the writer the rest of mcpdecl uses (the cache
		// keeps these bytes too), and handed to the SDK as is.
		if b := r.StructuredJSON(); b != nil {
			out.StructuredContent = b
		} else {
			out.StructuredContent = r.Structured
		}
	}
	for _, c := range r.Content {
		out.Content = append(out.Content, content(c))
	}
	if r.Meta != nil {
		out.Meta = r.Meta
	}
	return out
}

// content converts one engine content block into the MCP one.
func content(c engine.Content) mcp.Content {
	a := contentAnnotations(c.Annotations)
	switch c.Type {
	case engine.ImageContent:
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType, Annotations: a}
	case engine.AudioContent:
		return &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType, Annotations: a}
	case engine.ResourceLinkContent:
		return &mcp.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType, Annotations: a}
	case engine.ResourceContent:
		rc := &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Data}
		return &mcp.EmbeddedResource{Resource: rc, Annotations: a}
	default:
		return &mcp.TextContent{Text: c.Text, Annotations: a}
	}
}

func contentAnnotations(a *engine.ContentAnnotations) *mcp.Annotations {
	if a == nil {
		return nil
	}
	out := &mcp.Annotations{LastModified: a.LastModified}
	if a.Priority != nil {
		out.Priority = *a.Priority
	}
	for _, r := range a.Audience {
		out.Audience = append(out.Audience, mcp.Role(r))
	}
	return out
}

// ListJSON is the tools/list payload for all the tools of cfg, as JSON, in
// one page, as the server sends it; then, when cfg has some, its
// resources, resource templates and prompts as the members resources,
// resourceTemplates and prompts (the lists of resources/list,
// resources/templates/list and prompts/list).
func ListJSON(cfg *engine.Config) ([]byte, error) {
	res := &mcp.ListToolsResult{Tools: make([]*mcp.Tool, len(cfg.Tools))}
	res.CacheScope = cacheScope(cfg) // as the server labels every list
	for i, t := range cfg.Tools {
		res.Tools[i] = Tool(t)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	// The other lists, as members after the tools/list payload's own.
	type member struct {
		name string
		list any
	}
	var more []member
	if len(cfg.Resources) > 0 {
		more = append(more, member{"resources", mapList(cfg.Resources, Resource)})
	}
	if len(cfg.Templates) > 0 {
		more = append(more, member{"resourceTemplates", mapList(cfg.Templates, ResourceTemplate)})
	}
	if len(cfg.Prompts) > 0 {
		more = append(more, member{"prompts", mapList(cfg.Prompts, Prompt)})
	}
	for _, m := range more {
		v, err := json.Marshal(m.list)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b[:len(b)-1], `,"`+m.name+`":`...), v...), '}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	return unescapeHTML(out.Bytes()), nil
}

// mapList is f of each element of in.
func mapList[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// cacheScope is the cacheScope of cfg's tools/list results: "private" when
// the list depends on the caller, that is when an auth block checks tokens
// and some tool declares scopes (a caller sees only the tools its token's
// scopes grant), "public" otherwise. A shared cache must not serve one
// caller's list to another.
func cacheScope(cfg *engine.Config) string {
	if authenticator(cfg) != nil {
		for _, t := range cfg.Tools {
			if len(t.Scopes()) > 0 {
				return "private"
			}
		}
	}
	return "public"
}

// ResultJSON is the tools/call result r, as JSON.
func ResultJSON(r *engine.Result) ([]byte, error) {
	return indentJSON(Result(r))
}

// indentJSON is v as indented JSON for people to read: "&", "<" and ">"
// as themselves, not the \u0026, \u003c and \u003e that encoding/json
// writes to keep JSON safe inside HTML. The SDK's types marshal their
// parts with json.Marshal, so the escapes are undone after encoding.
func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return unescapeHTML(b), nil
}

// unescapeHTML replaces the escapes \u0026, \u003c and \u003e in the JSON
// text b by the characters they stand for. Other escapes, and an escaped
// backslash followed by "u0026", are kept as they are: outside strings,
// JSON has no backslashes, and inside one a backslash always starts an
// escape.
func unescapeHTML(b []byte) []byte {
	out := b[:0:0]
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "0026":
				out = append(out, '&')
				i += 5
				continue
			case "003c":
				out = append(out, '<')
				i += 5
				continue
			case "003e":
				out = append(out, '>')
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1]) // the escape's first two bytes
		i++
	}
	return out
}
