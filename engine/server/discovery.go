package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// The tools of discovery mode, served in place of a catalog too large to
// list: search it, describe one tool, call one by name.
const (
	searchTool   = "search_tools"
	describeTool = "describe_tool"
	callTool     = "call_tool"
)

// Discovery bounds.
const (
	searchDefault = 10
	searchMax     = 25
	summaryChars  = 200 // of a description, in a search result
)

// discoveryTools are the three tools of discovery mode.
func discoveryTools() []*mcp.Tool {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	return []*mcp.Tool{
		{
			Name:        searchTool,
			Title:       "Search the tools",
			Description: "Searches this server's tools by words in their names, descriptions and argument names, best matches first. Then describe_tool gives a tool's arguments, and call_tool calls it.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"query": map[string]any{"type": "string", "description": "Words to look for, such as \"create issue\""},
					"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": searchMax, "default": searchDefault, "description": "How many tools to return at most"},
				},
				"required":             []any{"query"},
				"additionalProperties": false,
			},
			Annotations: readOnly,
		},
		{
			Name:        describeTool,
			Title:       "Describe a tool",
			Description: "Gives one tool's full description, input schema (its arguments) and output schema, to call it with call_tool.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name": map[string]any{"type": "string", "description": "The tool's name, as search_tools gives it"},
				},
				"required":             []any{"name"},
				"additionalProperties": false,
			},
			Annotations: readOnly,
		},
		{
			Name:        callTool,
			Title:       "Call a tool",
			Description: "Calls one of this server's tools by name with its arguments, as describe_tool gives them, and returns its result.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":      map[string]any{"type": "string", "description": "The tool's name"},
					"arguments": map[string]any{"type": "object", "description": "The tool's arguments"},
				},
				"required":             []any{"name"},
				"additionalProperties": false,
			},
		},
	}
}

// installDiscovery registers the tools of discovery mode, once.
func (l *Live) installDiscovery() {
	for _, t := range discoveryTools() {
		l.srv.AddTool(t, l.discoveryHandler(t.Name))
	}
}

// discoveryHandler answers one of the tools of discovery mode, on the
// configuration being served.
func (l *Live) discoveryHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Query     string          `json:"query"`
			Limit     int             `json:"limit"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if req.Params != nil && len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return toolError("invalid arguments: " + err.Error()), nil
			}
		}
		g, release := l.acquire()
		visible := l.visibleTools(g.cfg, req.GetExtra())
		switch name {
		case searchTool:
			release()
			if in.Limit <= 0 {
				in.Limit = searchDefault
			}
			return structured(map[string]any{"tools": search(visible, in.Query, min(in.Limit, searchMax))}), nil
		case describeTool:
			release()
			t := find(visible, in.Name)
			if t == nil {
				return toolError(noSuchTool(in.Name, visible)), nil
			}
			d := map[string]any{"name": t.Name(), "description": t.Description(), "inputSchema": t.InputSchema()}
			if t.Title() != "" {
				d["title"] = t.Title()
			}
			// The outputSchema as tools/list would show it here.
			mode := ""
			if ts, _ := l.toolsetOf(g.cfg, req.GetExtra()); ts != nil {
				mode = ts.OutputSchemas
			}
			if out := t.ListedOutputSchema(mode); out != nil {
				d["outputSchema"] = out
			}
			if a := annotations(t.Annotations()); a != nil {
				d["annotations"] = a
			}
			return structured(d), nil
		default: // callTool
			t := find(visible, in.Name)
			if t == nil {
				release()
				return toolError(noSuchTool(in.Name, visible)), nil
			}
			release()
			// The call goes the way of a direct one: the same validation,
			// limits, scopes, logs and audit (should a reload retire g
			// meanwhile, the handler calls the tool of that name in the
			// configuration that replaced it).
			params := &mcp.CallToolParamsRaw{Name: t.Name(), Arguments: in.Arguments}
			if req.Params != nil {
				// A confirmation's answer comes with the call of
				// call_tool, and goes to the tool it calls.
				params.Meta, params.InputResponses, params.RequestState = req.Params.Meta, req.Params.InputResponses, req.Params.RequestState
			}
			inner := &mcp.CallToolRequest{Session: req.Session, Params: params, Extra: req.Extra}
			if span := trace.SpanFromContext(ctx); span.IsRecording() {
				// The request's span is named after call_tool: say which
				// tool of the catalog it called.
				span.SetAttributes(attribute.String("mcpdecl.discovery.tool", t.Name()))
			}
			return l.handler(g, t)(ctx, inner)
		}
	}
}

// visibleTools are the tools a request may see: those of its toolset,
// and that its token's scopes grant.
func (l *Live) visibleTools(cfg *engine.Config, extra *mcp.RequestExtra) []*engine.Tool {
	caller := callerOf(extra)
	ts, inToolset := l.toolsetOf(cfg, extra)
	var out []*engine.Tool
	for _, t := range cfg.Tools {
		if inToolset && (ts == nil || !ts.Has(t.Name())) {
			continue
		}
		if caller.Authenticated && !caller.Grants(t.Scopes()) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func find(tools []*engine.Tool, name string) *engine.Tool {
	for _, t := range tools {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

func noSuchTool(name string, tools []*engine.Tool) string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name())
	}
	msg := fmt.Sprintf("there is no tool named %q", name)
	if best := engine.Closest(name, names); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	} else {
		msg += "; search_tools finds tools by words"
	}
	return msg
}

// search ranks tools by the words of query: a word found among a name's
// words weighs 3, among the arguments' names 2, in the title or the
// description 1 (for each time it appears, at most 3). Ties go by name.
// An empty query lists the first tools by name.
func search(tools []*engine.Tool, query string, limit int) []any {
	terms := words(query)
	type hit struct {
		t     *engine.Tool
		score int
	}
	var hits []hit
	for _, t := range tools {
		score := 0
		if len(terms) > 0 {
			name := words(t.Name())
			var args []string
			for _, a := range t.Args() {
				args = append(args, words(a.Name)...)
			}
			text := words(t.Title() + " " + t.Description())
			for _, term := range terms {
				if slices.Contains(name, term) {
					score += 3
				}
				if slices.Contains(args, term) {
					score += 2
				}
				n := 0
				for _, w := range text {
					if w == term || len(term) >= 4 && strings.HasPrefix(w, term) {
						n++
					}
				}
				score += min(n, 3)
			}
			if score == 0 {
				continue
			}
		}
		hits = append(hits, hit{t, score})
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	out := []any{}
	for _, h := range hits[:min(limit, len(hits))] {
		r := map[string]any{"name": h.t.Name(), "description": summary(h.t.Description())}
		if h.t.Title() != "" {
			r["title"] = h.t.Title()
		}
		out = append(out, r)
	}
	return out
}

// words splits s into lower-case words: at every character that is not a
// letter or a digit, and between a lower-case letter and an upper-case one
// (listIssues is list and issues).
func words(s string) []string {
	var out []string
	var cur strings.Builder
	var prev rune
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// summary is the start of a description: its first sentence, or its
// first summaryChars characters.
func summary(d string) string {
	if i := strings.Index(d, ". "); i >= 0 && i < summaryChars {
		return d[:i+1]
	}
	if r := []rune(d); len(r) > summaryChars {
		return string(r[:summaryChars]) + "…"
	}
	return d
}

// structured is a result whose structured content is v, with its JSON as
// text.
func structured(v map[string]any) *mcp.CallToolResult {
	b, _ := jsonenc.Append(nil, v)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
