package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

const toolsetSrc = `
tool "issues_list" {
  description = "d"
  text        = "issues"
}
tool "issues_get" {
  description = "d"
  text        = "one issue"
}
tool "admin_purge" {
  description = "d"
  text        = "purged"
}
toolset "issues" {
  description = "Reading issues."
  tools       = ["issues_*"]
}
`

// header adds a header to every request.
type header struct{ name, value string }

func (h header) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

func names(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range list.Tools {
		out = append(out, tool.Name)
	}
	return strings.Join(out, ",")
}

// TestToolsetOverHTTP: /mcp/<toolset> lists and calls the toolset's tools
// alone; /mcp serves them all, whatever a client claims in the internal
// header; an unknown toolset is 404.
func TestToolsetOverHTTP(t *testing.T) {
	_, ts := serveOverHTTP(t, loadTools(t, toolsetSrc), server.Options{})
	ctx := context.Background()

	connect := func(path string, rt http.RoundTripper) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + path}
		if rt != nil {
			tr.HTTPClient = &http.Client{Transport: rt}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}

	sub := connect(server.Path+"/issues", nil)
	if got := names(t, sub); got != "issues_get,issues_list" {
		t.Errorf("tools/list at /mcp/issues = %s", got)
	}
	res, err := sub.CallTool(ctx, &mcp.CallToolParams{Name: "admin_purge"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "not in the toolset served here (issues)") {
		t.Errorf("calling a tool outside the toolset = %+v", res.Content[0])
	}
	res, err = sub.CallTool(ctx, &mcp.CallToolParams{Name: "issues_get"})
	if err != nil || res.IsError {
		t.Errorf("calling a tool of the toolset: %v %+v", err, res)
	}

	all := connect(server.Path, header{"Mcpdecl-Toolset", "issues"})
	if got := names(t, all); got != "admin_purge,issues_get,issues_list" {
		t.Errorf("tools/list at /mcp with a forged toolset header = %s", got)
	}

	resp, err := http.Post(ts.URL+server.Path+"/nope", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /mcp/nope = %d, want 404", resp.StatusCode)
	}
}

// TestToolsetOverStdio: a server started with a toolset serves its tools
// alone.
func TestToolsetOverStdio(t *testing.T) {
	cs := connectLive(t, newLive(t, loadTools(t, toolsetSrc), server.Options{Toolset: "issues"}), "", nil)
	ctx := context.Background()
	if got := names(t, cs); got != "issues_get,issues_list" {
		t.Errorf("tools/list = %s", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "admin_purge"})
	if err != nil || !res.IsError {
		t.Errorf("calling a tool outside the toolset: %v %+v", err, res)
	}
}
