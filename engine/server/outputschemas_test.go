package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// forecastSrc declares a tool whose outputs have descriptions, a title,
// examples, a format, an enum and a field named description, under the
// server's output_schemas (%s).
const forecastSrc = `
server {
  output_schemas = "%s"
}
tool "forecast" {
  description = "A forecast."
  arg "v" {
    type        = any
    description = "What temp becomes."
  }
  output "temp" {
    type        = number
    description = "Temperature in degrees"
    value       = expr("args.v")
  }
  output "sky" {
    schema = {
      type     = "string"
      title    = "Sky"
      enum     = ["clear", "cloudy"]
      examples = ["clear"]
    }
    description = "The sky"
    value       = expr("'clear'")
  }
  output "place" {
    type  = object({description = string, at = string})
    value = expr("{'description': 'Paris', 'at': '2025-01-01T00:00:00Z'}")
  }
}
%s`

// compactForecast is the outputSchema of forecast in compact mode: its
// types, required fields and enum, without descriptions, title,
// examples, $schema or additionalProperties false. The field named
// description stays.
const compactForecast = `{"properties":{"place":{"properties":{"at":{"type":"string"},"description":{"type":"string"}},"required":["description","at"],"type":"object"},"sky":{"enum":["clear","cloudy"],"type":"string"},"temp":{"type":"number"}},"required":["temp","sky","place"],"type":"object"}`

func loadForecast(t *testing.T, mode, more string) *engine.Config {
	t.Helper()
	return loadTools(t, fmt.Sprintf(forecastSrc, mode, more))
}

// listedOutput is the outputSchema of the one tool cs lists, as JSON,
// "" when it has none.
func listedOutput(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 {
		t.Fatalf("tools/list has %d tools, want 1", len(list.Tools))
	}
	if list.Tools[0].OutputSchema == nil {
		return ""
	}
	b, err := json.Marshal(list.Tools[0].OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOutputSchemasListed: what outputSchema carries in tools/list
// under each output_schemas of the server block, and that the results
// are the same whatever is listed: the structured content comes back,
// and an output that breaks the (whole) schema is a tool error.
func TestOutputSchemasListed(t *testing.T) {
	for _, mode := range []string{"full", "compact", "none"} {
		t.Run(mode, func(t *testing.T) {
			live := server.NewLive(loadForecast(t, mode, ""), nil, server.Options{})
			defer live.Close()
			cs := connectLive(t, live, "", nil)
			got := listedOutput(t, cs)
			switch mode {
			case "full":
				for _, want := range []string{`"description":"Temperature in degrees"`, `"title":"Sky"`, `"examples":["clear"]`} {
					if !strings.Contains(got, want) {
						t.Errorf("outputSchema lacks %s:\n%s", want, got)
					}
				}
				// 2020-12 is MCP's default, and a client that knows only
				// draft-07 refuses a schema that names it.
				if strings.Contains(got, `"$schema"`) {
					t.Errorf("outputSchema names its dialect:\n%s", got)
				}
				list, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if in, _ := json.Marshal(list.Tools[0].InputSchema); strings.Contains(string(in), `"$schema"`) {
					t.Errorf("inputSchema names its dialect: %s", in)
				}
			case "compact":
				if got != compactForecast {
					t.Errorf("outputSchema\ngot  %s\nwant %s", got, compactForecast)
				}
			case "none":
				if got != "" {
					t.Errorf("outputSchema listed: %s", got)
				}
			}

			ctx := context.Background()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"v": 21.5}})
			if err != nil {
				t.Fatal(err)
			}
			structured, _ := json.Marshal(res.StructuredContent)
			if res.IsError || string(structured) != `{"place":{"at":"2025-01-01T00:00:00Z","description":"Paris"},"sky":"clear","temp":21.5}` {
				t.Errorf("call: isError %v, structuredContent %s", res.IsError, structured)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"v": "warm"}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || res.StructuredContent != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "temp") {
				t.Errorf("an output that breaks the schema: isError %v, structuredContent %v, content %+v", res.IsError, res.StructuredContent, res.Content[0])
			}
		})
	}
}

// TestOutputSchemasDescribed: in discovery mode, describe_tool shows the
// outputSchema as tools/list would.
func TestOutputSchemasDescribed(t *testing.T) {
	for mode, want := range map[string]string{"compact": compactForecast, "none": ""} {
		live := server.NewLive(loadForecast(t, mode, ""), nil, server.Options{Discovery: true})
		cs := connectLive(t, live, "", nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "describe_tool", Arguments: map[string]any{"name": "forecast"}})
		if err != nil || res.IsError {
			t.Fatalf("describe_tool: %v %+v", err, res)
		}
		var d struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		if string(d.OutputSchema) != want {
			t.Errorf("%s: describe_tool's outputSchema\ngot  %s\nwant %s", mode, d.OutputSchema, want)
		}
		live.Close()
	}
}

// TestOutputSchemasToolset: a toolset's output_schemas wins over the
// server's for its clients, over HTTP (/mcp/<name>) and stdio, for a
// client of 2025-06-18 too; /mcp keeps the server's.
func TestOutputSchemasToolset(t *testing.T) {
	cfg := loadForecast(t, "full", `
toolset "lean" {
  tools          = ["forecast"]
  output_schemas = "none"
}
toolset "small" {
  tools          = ["forecast"]
  output_schemas = "compact"
}
toolset "same" {
  tools = ["forecast"]
}
`)
	live := server.NewLive(cfg, nil, server.Options{HTTP: true})
	defer live.Close()
	ts := httptest.NewServer(live.HTTPHandler())
	defer ts.Close()
	connect := func(path string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	if got := listedOutput(t, connect(server.Path)); !strings.Contains(got, "Temperature in degrees") {
		t.Errorf("/mcp lists %s, want the whole schema", got)
	}
	if got := listedOutput(t, connect(server.Path+"/same")); !strings.Contains(got, "Temperature in degrees") {
		t.Errorf("/mcp/same lists %s, want the whole schema", got)
	}
	if got := listedOutput(t, connect(server.Path+"/lean")); got != "" {
		t.Errorf("/mcp/lean lists %s, want no outputSchema", got)
	}
	if got := listedOutput(t, connect(server.Path+"/small")); got != compactForecast {
		t.Errorf("/mcp/small lists %s, want the compact schema", got)
	}

	stdio := server.NewLive(cfg, nil, server.Options{Toolset: "small"})
	defer stdio.Close()
	for _, version := range []string{"", "2025-06-18"} {
		if got := listedOutput(t, connectLive(t, stdio, version, nil)); got != compactForecast {
			t.Errorf("over stdio, toolset small, version %q: lists %s, want the compact schema", version, got)
		}
	}
	res, err := connectLive(t, stdio, "", nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"v": "warm"}})
	if err != nil || !res.IsError {
		t.Errorf("an output that breaks the schema, in a toolset: %v %+v", err, res)
	}
}

// TestOutputSchemasOfATool: a tool's own output_schemas wins over the
// server's, on /mcp and in a toolset that sets none; a toolset that sets
// one decides over the tool's.
func TestOutputSchemasOfATool(t *testing.T) {
	src := strings.Replace(fmt.Sprintf(forecastSrc, "full", `
toolset "same" {
  tools = ["forecast"]
}
toolset "whole" {
  tools          = ["forecast"]
  output_schemas = "full"
}
`), `description = "A forecast."`, `description    = "A forecast."
  output_schemas = "compact"`, 1)
	_, ts := serveOverHTTP(t, loadTools(t, src), server.Options{})
	for path, want := range map[string]string{"": compactForecast, "/same": compactForecast, "/whole": "Temperature in degrees"} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path + path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := listedOutput(t, cs); got != want && !(want != compactForecast && strings.Contains(got, want)) {
			t.Errorf("%s lists %s, want %s", server.Path+path, got, want)
		}
		_ = cs.Close()
	}
}

// TestOutputSchemaShared: in full mode, an output schema that repeats a
// subschema lists it once, under $defs, to clients of 2025-11-25 and
// later; a client of an earlier revision, which may not follow
// references, gets the whole schema written out.
func TestOutputSchemaShared(t *testing.T) {
	src := `
locals {
  person = {
    type        = "object"
    description = "A person who signed the change, with the name and address given."
    required    = ["name"]
    properties = {
      name  = { type = "string", minLength = 1 }
      email = { type = "string", format = "email" }
    }
  }
}
tool "commit" {
  description = "A commit."
  output "author" {
    schema = local.person
    value  = expr("{'name': 'Ann'}")
  }
  output "committer" {
    schema = local.person
    value  = expr("{'name': 'Bob'}")
  }
}`
	live := newLive(t, loadTools(t, src), server.Options{})
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		got := listedOutput(t, connectLive(t, live, version, nil))
		n, refs := strings.Count(got, "A person who signed"), strings.Count(got, `"$ref"`)
		if version < "2025-11-25" && (n != 2 || refs != 0) || version >= "2025-11-25" && (n != 1 || refs != 2) {
			t.Errorf("%s: the person is written %d times, referred to %d times:\n%s", version, n, refs, got)
		}
	}
}
