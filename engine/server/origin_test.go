package server_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`

// TestOrigin: requests at /mcp from a browser page of another origin are
// refused (MCP requires the check, against DNS rebinding), with or without
// an auth block, unless allowed_origins lists the origin; requests without
// Origin, from the server's own origin, or from a listed one are served.
func TestOrigin(t *testing.T) {
	alice := tokens{"good": &sdkauth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}}
	tests := []struct {
		name    string
		allowed []string
		auth    bool
		origin  []string
		host    string // the Host header, when not the server's address
		status  int
	}{
		{name: "no origin", status: http.StatusOK},
		{name: "foreign origin", origin: []string{"https://evil.example"}, status: http.StatusForbidden},
		{name: "foreign origin with a valid token", auth: true, origin: []string{"https://evil.example"}, status: http.StatusForbidden},
		{name: "null origin", origin: []string{"null"}, status: http.StatusForbidden},
		{name: "two origins", origin: []string{"SELF", "https://evil.example"}, status: http.StatusForbidden},
		{name: "own origin", origin: []string{"SELF"}, status: http.StatusOK},
		{name: "own origin with a valid token", auth: true, origin: []string{"SELF"}, status: http.StatusOK},
		{name: "own origin on localhost", origin: []string{"http://localhost:PORT"}, host: "localhost:PORT", status: http.StatusOK},
		{name: "own port on another address", origin: []string{"http://127.0.0.2:PORT"}, status: http.StatusForbidden},
		{name: "rebound name", origin: []string{"http://rebind.example:PORT"}, host: "rebind.example:PORT", status: http.StatusForbidden},
		{name: "listed origin", allowed: []string{"https://app.example.com"}, origin: []string{"https://App.example.com"}, status: http.StatusOK},
		{name: "unlisted origin", allowed: []string{"https://app.example.com"}, origin: []string{"https://evil.example"}, status: http.StatusForbidden},
		{name: "any origin", allowed: []string{"*"}, origin: []string{"null"}, status: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg = frontConfig(t, nil, nil)
			if tt.auth {
				cfg = frontConfig(t, nil, nil, alice)
			}
			cfg.Settings.AllowedOrigins = tt.allowed
			ts := serveFront(t, cfg)
			u, _ := url.Parse(ts.URL)
			fill := func(s string) string {
				s = strings.ReplaceAll(s, "SELF", ts.URL)
				return strings.ReplaceAll(s, "PORT", u.Port())
			}
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(initializeRequest))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for _, o := range tt.origin {
				req.Header.Add("Origin", fill(o))
			}
			if tt.host != "" {
				req.Host = fill(tt.host)
			}
			if tt.auth {
				req.Header.Set("Authorization", "Bearer good")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("got %d %q, want %d", resp.StatusCode, body, tt.status)
			}
			if tt.status == http.StatusForbidden && !strings.Contains(string(body), "allowed_origins") {
				t.Errorf("the refusal does not say what to do: %q", body)
			}
			if tt.status == http.StatusOK && !strings.Contains(string(body), `"serverInfo"`) {
				t.Errorf("not served: %q", body)
			}
		})
	}
}
