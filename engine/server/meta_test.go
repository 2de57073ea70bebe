package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

// TestRequestMeta posts tools/call requests of the 2026-07-28 protocol, whose
// _meta carries the protocol version, the client's capabilities and its
// info, and checks which the server serves and which it refuses as invalid
// params (third_party/go-sdk reads that _meta without maps).
func TestRequestMeta(t *testing.T) {
	ts := serveFront(t, newConfig(t, 0, "one"))
	const (
		version = `"io.modelcontextprotocol/protocolVersion": "2026-07-28"`
		caps    = `"io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": true}}`
		info    = `"io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}`
	)
	tests := []struct {
		name, meta string
		refused    string // the start of the error's message; "" when served
	}{
		{"the whole triple", version + ", " + caps + ", " + info, ""},
		{"no client info", version + ", " + caps, ""},
		{"a log level too", version + ", " + caps + `, "io.modelcontextprotocol/logLevel": "debug"`, ""},
		{"other keys beside", version + ", " + caps + `, "x.example/trace": {"deep": [1, {"a": null}]}`, ""},
		{"no capabilities", version + ", " + info, `missing or invalid _meta field "io.modelcontextprotocol/clientCapabilities"`},
		{"null capabilities", version + `, "io.modelcontextprotocol/clientCapabilities": null`, `missing or invalid _meta field "io.modelcontextprotocol/clientCapabilities"`},
		{"capabilities not an object", version + `, "io.modelcontextprotocol/clientCapabilities": "all"`, `missing or invalid _meta field "io.modelcontextprotocol/clientCapabilities"`},
		{"capabilities under a key of other case", version + `, "io.modelcontextprotocol/ClientCapabilities": {}`, `missing or invalid _meta field "io.modelcontextprotocol/clientCapabilities"`},
		{"null client info", version + ", " + caps + `, "io.modelcontextprotocol/clientInfo": null`, `invalid _meta field "io.modelcontextprotocol/clientInfo"`},
		{"client info not an object", version + ", " + caps + `, "io.modelcontextprotocol/clientInfo": 7`, `invalid _meta field "io.modelcontextprotocol/clientInfo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "one", "_meta": {` + tt.meta + `}}}`
			req, err := http.NewRequest(http.MethodPost, ts.URL+server.Path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			setCallHeaders(req.Header, "2026-07-28", "one")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var msg struct {
				Result *struct {
					Content []struct{ Text string }
					IsError bool
				}
				Error *struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(raw, &msg); err != nil {
				t.Fatalf("%d %s: not a JSON-RPC answer: %v", resp.StatusCode, raw, err)
			}
			if tt.refused == "" {
				if msg.Result == nil || msg.Result.IsError || len(msg.Result.Content) != 1 || msg.Result.Content[0].Text != "hi from one" {
					t.Fatalf("want the tool's result, got %d %s", resp.StatusCode, raw)
				}
				return
			}
			if msg.Error == nil || msg.Error.Code != -32602 || !strings.HasPrefix(msg.Error.Message, tt.refused) {
				t.Fatalf("want invalid params %q, got %d %s", tt.refused, resp.StatusCode, raw)
			}
		})
	}
}

// setCallHeaders sets the headers a client of revision version sends with
// a tools/call of tool over stateless HTTP.
func setCallHeaders(h http.Header, version, tool string) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", version)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", tool)
}
