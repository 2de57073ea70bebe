package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

const catalogSrc = `
tool "issues_create" {
  title       = "Create an issue"
  description = "Creates an issue in a repository. Needs a title."
  arg "repository" { type = string }
  arg "title" { type = string }
  output "number" {
    type  = integer
    value = expr("len(args.title)")
  }
}
tool "issues_list" {
  description = "Lists the issues of a repository."
  arg "repository" { type = string }
  text = expr("'issues of ' + args.repository")
}
tool "users_get" {
  description = "Gets a user by login."
  arg "login" { type = string }
  text = expr("'user ' + args.login")
}
`

func discoverySession(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connectLive(t, newLive(t, loadTools(t, catalogSrc), server.Options{Discovery: true}), "", nil)
}

func callJSON(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return res, out
}

// TestDiscovery: the catalog is searched, described and called through
// three tools, and tools/list shows those three alone, small.
func TestDiscovery(t *testing.T) {
	cs := discoverySession(t)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "call_tool,describe_tool,search_tools" {
		t.Fatalf("tools/list = %v", names)
	}
	if b, _ := json.Marshal(list); len(b)/4 > 2000 {
		t.Errorf("tools/list is %d bytes, about %d tokens; want under 2,000", len(b), len(b)/4)
	}

	_, found := callJSON(t, cs, "search_tools", map[string]any{"query": "create issue"})
	tools, _ := found["tools"].([]any)
	if len(tools) < 2 || tools[0].(map[string]any)["name"] != "issues_create" {
		t.Errorf("search create issue = %v, want issues_create first", found)
	}
	for _, tool := range tools {
		if tool.(map[string]any)["name"] == "users_get" {
			t.Errorf("search create issue found users_get, which shares no word")
		}
	}
	if d := tools[0].(map[string]any)["description"]; d != "Creates an issue in a repository." {
		t.Errorf("summary = %q, want the first sentence", d)
	}

	_, described := callJSON(t, cs, "describe_tool", map[string]any{"name": "issues_create"})
	if described["title"] != "Create an issue" || described["inputSchema"] == nil || described["outputSchema"] == nil {
		t.Errorf("describe = %v", described)
	}
	res, _ := callJSON(t, cs, "describe_tool", map[string]any{"name": "issue_create"})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `did you mean "issues_create"?`) {
		t.Errorf("describe of a typo = %+v", res.Content[0])
	}

	res, called := callJSON(t, cs, "call_tool", map[string]any{"name": "issues_create", "arguments": map[string]any{"repository": "r", "title": "four"}})
	if res.IsError || called["number"] != float64(4) {
		t.Errorf("call_tool = %+v %v", res.Content, called)
	}
	res, _ = callJSON(t, cs, "call_tool", map[string]any{"name": "issues_create", "arguments": map[string]any{"repository": "r"}})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "title") {
		t.Errorf("call_tool with a missing argument = %+v, want the tool's own validation error", res.Content[0])
	}
}
