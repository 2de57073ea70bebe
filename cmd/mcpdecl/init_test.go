package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/load"
)

// TestInitServes writes each starting configuration with init and serves
// it at once with the real binary, as an MCP client would see it: the tools
// are listed, and those that need no network answer a call.
func TestInitServes(t *testing.T) {
	bin := binary(t)
	tests := []struct {
		flag  string
		tools []string
		call  string // a tool to call, "" for none (the HTTP one needs the network)
		args  map[string]any
		want  string // in the structured content of the call
		// refused are arguments of call refused before the program runs
		refused []map[string]any
	}{
		{"", []string{"current_weather"}, "", nil, "", nil},
		{"--exec", []string{"current_time", "system_info"}, "current_time", map[string]any{"timezone": "UTC"}, `"time":"`,
			// A TZ naming a file (absolute, ../, or after ':') makes date
			// open it as a zone file: a FIFO hangs it, any file is read.
			[]map[string]any{{"timezone": "/etc/passwd"}, {"timezone": "../../../../etc/passwd"}, {"timezone": ":/etc/passwd"}, {"timezone": "Europe/../../etc/passwd"}}},
		{"--sql", []string{"add_note", "find_notes"}, "find_notes", map[string]any{"text": "welcome"}, `"title":"Welcome"`, nil},
	}
	for _, tt := range tests {
		t.Run("init"+tt.flag, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "tools.hcl")
			args := []string{"init", file}
			if tt.flag != "" {
				args = []string{"init", tt.flag, file}
			}
			var stderr bytes.Buffer
			if code := Main(args, nil, io.Discard, &stderr); code != exitOK {
				t.Fatalf("init exited with %d: %s", code, stderr.String())
			}
			cmd := exec.Command(bin, "serve", file)
			var logs bytes.Buffer
			cmd.Stderr = &logs
			client := mcp.NewClient(&mcp.Implementation{Name: "init-test", Version: "0"}, nil)
			ctx := context.Background()
			session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("serving the file init wrote: %v\nstderr: %s", err, logs.String())
			}
			defer session.Close()
			list, err := session.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.tools) {
				t.Errorf("tools = %v, want %v", names, tt.tools)
			}
			if tt.call == "" {
				return
			}
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tt.call, Arguments: tt.args})
			if err != nil {
				t.Fatalf("tools/call %s: %v", tt.call, err)
			}
			got, _ := json.Marshal(res.StructuredContent)
			if res.IsError || !strings.Contains(string(got), tt.want) {
				t.Errorf("tools/call %s = %s (error %v), want %s in it", tt.call, got, res.IsError, tt.want)
			}
			for _, args := range tt.refused {
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tt.call, Arguments: args})
				if err != nil {
					t.Fatalf("tools/call %s: %v", tt.call, err)
				}
				if text := resultText(res); !res.IsError || !strings.Contains(text, "invalid arguments") {
					t.Errorf("tools/call %s %v = %q (error %v), want the arguments refused", tt.call, args, text, res.IsError)
				}
			}
		})
	}
}

// TestInitNamesTheSpecs: every block and attribute of the starting
// configurations is one the language declares, by its current name (a
// former name only warns when the file loads): an attribute renamed in
// its spec fails this test until the scaffold follows.
func TestInitNamesTheSpecs(t *testing.T) {
	language := load.FileSpec(registry())
	files, err := fs.Glob(scaffolds, "scaffold/*.hcl")
	if err != nil || len(files) != 3 {
		t.Fatalf("scaffolds %v, err %v", files, err)
	}
	for _, name := range files {
		src, err := scaffolds.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, d := range language.CheckNames(f.Body.(*hclsyntax.Body)) {
			t.Errorf("%s: %s: %s", d.Subject, d.Summary, d.Detail)
		}
	}
}

// resultText is the text of a call's result: its text contents, joined.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
