package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStepsExample serves examples/steps.hcl over stdio against real
// counterparts: go-httpbin, a SQLite copy of the shop, and the countries
// GraphQL server; its multi-step tools chain SQL → HTTP and GraphQL → HTTP.
func TestStepsExample(t *testing.T) {
	upstream := httptest.NewServer(httpbin.New())
	t.Cleanup(upstream.Close)
	countries := countriesServer(t)
	db := filepath.Join(t.TempDir(), "shop.db")
	cmd := exec.Command(binary(t), "serve", "../../examples/steps.hcl",
		"--var", "base_url="+upstream.URL, "--var", "countries_url="+countries.URL+"/graphql", "--var", "shop_db="+db)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "0"}, nil)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting over stdio: %v\nstderr: %s", err, stderr.String())
	}
	defer session.Close()

	tools, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "country_postcard" && (tool.Annotations == nil || tool.Annotations.ReadOnlyHint) {
			t.Errorf("a tool with a POST step is not read-only: %+v", tool.Annotations)
		}
	}
	for _, tt := range []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"restock_requests", map[string]any{"below": 8}, false, `{"requested":[{"quantity":15,"sku":"GRD-020"},{"quantity":13,"sku":"KET-010"},{"quantity":20,"sku":"TEA-202"}]}`},
		{"country_postcard", map[string]any{"code": "ke"}, false, `{"postcard":"Greetings from Nairobi, Kenya! People speak English and Swahili."}`},
		{"country_postcard", map[string]any{"code": "aq"}, false, `{"postcard":"Greetings from somewhere, Antarctica! People speak ."}`},
		{"country_postcard", map[string]any{"code": "zz"}, true, `step "country" failed`},
	} {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(res.StructuredContent)
		if tt.isError && len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				got = []byte(tc.Text)
			}
		}
		if res.IsError != tt.isError || (!tt.isError && string(got) != tt.want) || (tt.isError && !strings.Contains(string(got), tt.want)) {
			t.Errorf("%s %v: error %v, got %s, want %s", tt.tool, tt.args, res.IsError, got, tt.want)
		}
	}
}
