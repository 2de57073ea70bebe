package httpaction_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestEchoedSecretsAreRedacted sends secrets the ways a configuration can
// (a sensitive argument in the query, the path and a JSON body, a
// sensitive map variable as headers, a bearer token) to an upstream that
// refuses the request and echoes all of it, and checks that neither the
// tool error a client gets nor the server's log line holds any of them, in
// whatever encoding the server sent them.
func TestEchoedSecretsAreRedacted(t *testing.T) {
	// The upstream quotes the request after enough padding that the
	// credential straddles the end of the 512-byte excerpt.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		pad := strings.Repeat(".", 450-len(r.URL.RequestURI()))
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, "denied "+r.URL.RequestURI()+" "+pad+" body="+string(body)+
			" x-key="+r.Header.Get("X-Key")+" authorization="+r.Header.Get("Authorization"))
	}))
	t.Cleanup(echo.Close)
	// Another that quotes the Authorization header first, straddling the
	// excerpt's end.
	edge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, strings.Repeat("x", 470)+" Authorization: "+r.Header.Get("Authorization"))
	}))
	t.Cleanup(edge.Close)

	const (
		token    = "tok_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
		mapValue = "map-secret-value-42"
		argValue = `hunter2!@ pa"ss/w&rd=é`
	)
	src := `
variable "base" { type = string }
variable "edge" { type = string }
variable "token" {
  type      = string
  sensitive = true
}
variable "headers" {
  type      = map(string)
  default   = { X-Key = "` + mapValue + `" }
  sensitive = true
}
http_api "echo" {
  base_url = var.base
  headers  = var.headers
}
http_api "edge" {
  base_url = var.edge
  auth { bearer = var.token }
}
tool "query" {
  description = "d"
  arg "pw" { sensitive = true }
  http {
    api   = http_api.echo
    path  = "/q"
    query = { pw = expr("args.pw") }
  }
}
tool "path" {
  description = "d"
  arg "pw" { sensitive = true }
  http {
    api         = http_api.echo
    path        = "/p/{pw}"
    path_params = { pw = expr("args.pw") }
  }
}
tool "body" {
  description = "d"
  arg "pw" { sensitive = true }
  http {
    api    = http_api.echo
    method = "POST"
    path   = "/b"
    body   = { pw = expr("args.pw") }
  }
}
tool "form" {
  description = "d"
  arg "pw" { sensitive = true }
  http {
    api    = http_api.echo
    method = "POST"
    path   = "/f"
    form   = { pw = expr("args.pw") }
  }
}
tool "edge" {
  description = "d"
  http {
    api  = http_api.edge
    path = "/"
  }
}
`
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{
		Registry: engine.NewRegistry(httpaction.New()),
		Vars:     map[string]string{"base": echo.URL, "edge": edge.URL, "token": token},
	}, path)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	t.Cleanup(func() { _ = cfg.Close() })

	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.New(cfg, logger).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })

	// Distinctive parts of each secret: any of them in clear, or
	// encoded, is a leak.
	leaks := []string{"hunter2", "pa%22ss", `pa\"ss`, "aHVudGVy", "tok_0123", "map-secret"}
	for _, tool := range []string{"query", "path", "body", "form", "edge"} {
		t.Run(tool, func(t *testing.T) {
			before := len(logs.String())
			params := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"pw": argValue}}
			if tool == "edge" {
				params.Arguments = nil
			}
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(res.Content)
			got := string(raw)
			if !res.IsError || !strings.Contains(got, "HTTP 401") {
				t.Fatalf("want an HTTP 401 tool error, got %s", got)
			}
			if !strings.Contains(got, text.Mask) {
				t.Errorf("nothing was redacted: %s", got)
			}
			logLine := logs.String()[before:]
			if !strings.Contains(logLine, "tool call failed") {
				t.Fatalf("no log line for the failed call: %q", logLine)
			}
			for _, leak := range leaks {
				if strings.Contains(got, leak) {
					t.Errorf("the tool error holds %q: %s", leak, got)
				}
				if strings.Contains(logLine, leak) {
					t.Errorf("the log line holds %q: %s", leak, logLine)
				}
			}
		})
	}
}

// TestDoublyEscapedSecretsAreRedacted sends a sensitive argument every way
// a request can carry it to go-httpbin's /anything, which echoes the
// request as JSON: a JSON body comes back JSON-encoded again, as the
// string "data", so the argument's JSON-escaped form is escaped a second
// time; the URL comes back with its query or path escaping inside a JSON
// string. No form of the argument may be left in the result.
func TestDoublyEscapedSecretsAreRedacted(t *testing.T) {
	bin := httptest.NewServer(httpbin.New())
	t.Cleanup(bin.Close)
	src := ""
	for name, block := range map[string]string{
		"body":   `method = "POST"` + "\n    body = { pw = expr(\"args.pw\"), list = [expr(\"args.pw\")] }",
		"raw":    `method = "POST"` + "\n    raw_body = expr(\"'pw=' + args.pw\")",
		"form":   `method = "POST"` + "\n    form = { pw = expr(\"args.pw\") }",
		"query":  `query = { pw = expr("args.pw") }`,
		"path":   "path = \"/anything/{pw}\"\n    path_params = { pw = expr(\"args.pw\") }",
		"header": `headers = { X-Pw = expr("args.pw") }`,
	} {
		if !strings.HasPrefix(block, "path") {
			block = "path = \"/anything\"\n    " + block
		}
		src += fmt.Sprintf(`
tool %q {
  description = "d"
  arg "pw" { sensitive = true }
  http {
    api = http_api.bin
    %s
  }
}
`, name, block)
	}
	cfg, diags := loadSource(t, `http_api "bin" { base_url = "`+bin.URL+`" }`+src, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	// The distinctive part of each secret, in any of its forms: plain,
	// query- or path-escaped, JSON-escaped once or twice.
	leak := regexp.MustCompile(`w(o|ö|\\*u00f6|%C3%B6)rd`)
	for _, pw := range []string{`pa"ss<word>123`, `pä"ss&wörd>456`} {
		for _, tool := range []string{"body", "raw", "form", "query", "path", "header"} {
			args, _ := json.Marshal(map[string]string{"pw": pw})
			res := enginetest.Call(t.Context(), t, cfg, tool, string(args))
			got := res.Text()
			if res.IsError || !strings.Contains(got, text.Mask) {
				t.Errorf("%s, %s: want the echo with the argument redacted, got %s", tool, pw, got)
				continue
			}
			if m := leak.FindString(got); m != "" {
				t.Errorf("%s, %s: the result holds %q: %s", tool, pw, m, got)
			}
		}
	}
}
