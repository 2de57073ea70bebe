package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpdecl/mcpdecl/adapters"

	"github.com/mcpdecl/mcpdecl/engine/load"
	mcpserver "github.com/mcpdecl/mcpdecl/engine/server"
)

// slideshowBody is the body of go-httpbin's /json, the upstream of the
// harness's HTTP tool.
const slideshowBody = `{
  "slideshow": {
    "author": "Yours Truly",
    "date": "date of publication",
    "slides": [
      {
        "title": "Wake up to WonderWidgets!",
        "type": "all"
      },
      {
        "items": [
          "Why <em>WonderWidgets</em> are great",
          "Who <em>buys</em> WonderWidgets"
        ],
        "title": "Overview",
        "type": "all"
      }
    ],
    "title": "Sample Slide Show"
  }
}
`

// callRequest is a tools/call of the HTTP tool as the go-sdk client sends
// it over HTTP (2026-07-28: the _meta triple on every request).
const callRequest = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slideshow","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`

// BenchmarkParts measures one call of the harness's HTTP tool through
// mcpdecl over loopback HTTP (call), next to the parts that any server
// doing the same work pays for: an HTTP round trip of the same request and
// answer bytes to a server that does nothing else (server), the round
// trip to the upstream (upstream), and decoding the request and the
// upstream's body and encoding the answer with encoding/json (json). What
// the call costs beyond the sum of its parts is mcpdecl's own: the
// protocol layer, validation, mappings.
func BenchmarkParts(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, slideshowBody)
	}))
	defer up.Close()
	dir := b.TempDir()
	st := &setup{dir: dir, upstream: up.URL, db: filepath.Join(dir, "shop.db")}
	if err := seed(st.db); err != nil {
		b.Fatal(err)
	}
	file := st.config(10)
	if err := os.WriteFile(file, []byte(config(st, 10)), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: adapters.Registry()}, file)
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	defer cfg.Close()
	live := mcpserver.NewLive(cfg, nil, mcpserver.Options{HTTP: true})
	defer live.Close()
	mcpdecl := httptest.NewServer(live.HTTPHandler())
	defer mcpdecl.Close()
	client := &http.Client{}
	post := func(url string) []byte {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(callRequest)))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "slideshow")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: %s", resp.Status, body)
		}
		return body
	}
	answer := post(mcpdecl.URL + mcpserver.Path)
	if !bytes.Contains(answer, []byte(`"title":"Sample Slide Show"`)) {
		b.Fatalf("unexpected answer: %s", answer)
	}
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer echo.Close()

	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			post(mcpdecl.URL + mcpserver.Path)
		}
	})
	b.Run("server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			post(echo.URL)
		}
	})
	b.Run("upstream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Get(up.URL + "/json")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("json", func(b *testing.B) {
		var res map[string]any
		if err := json.Unmarshal(answer, &res); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			var req, body map[string]any
			if err := json.Unmarshal([]byte(callRequest), &req); err != nil {
				b.Fatal(err)
			}
			if err := json.Unmarshal([]byte(slideshowBody), &body); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
