package httpaction_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// TestThroughTheLoader loads a configuration the way mcpdecl does and calls
// its tools: the adapter's blocks, results and failures as the engine sees
// them.
func TestThroughTheLoader(t *testing.T) {
	upstream := httptest.NewServer(httpbin.New())
	t.Cleanup(upstream.Close)
	echoAuth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Like some real APIs, echo the credential in the error.
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte("bad credential: " + r.Header.Get("Authorization")))
	}))
	t.Cleanup(echoAuth.Close)

	dir := t.TempDir()
	path := filepath.Join(dir, "tools.hcl")
	src := `
server {
  name    = "test"
  version = "1.0.0"
}
variable "base" {
  type = string
}
variable "denier" {
  type = string
}
variable "password" {
  type      = string
  sensitive = true
}
http_api "bin" {
  base_url = var.base
  headers  = { "User-Agent" = "loader-test" }
}
http_api "denier" {
  base_url = var.denier
  auth {
    basic {
      username = "ann"
      password = var.password
    }
  }
}
tool "echo" {
  description = "Echoes a message."
  arg "message" {
    type = string
  }
  arg "n" {
    type    = integer
    default = 2
  }
  http {
    api         = http_api.bin
    method      = "POST"
    path        = "/anything/{message}"
    path_params = { message = expr("args.message") }
    query       = { n = expr("args.n") }
    body        = { message = expr("args.message"), n = expr("args.n") }
  }
  output "message" {
    type  = string
    value = expr("body.json.message")
  }
  output "n" {
    type  = integer
    value = expr("body.json.n")
  }
  output "status" {
    type  = integer
    value = expr("status")
  }
  output "content_type" {
    type  = string
    value = expr("content_type")
  }
  output "length" {
    type  = string
    value = expr("headers['content-length']")
  }
}
tool "denied" {
  description = "Is refused."
  http {
    api  = http_api.denier
    path = "/"
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{
		Registry: engine.NewRegistry(httpaction.New()),
		Vars:     map[string]string{"base": upstream.URL, "denier": echoAuth.URL, "password": "hunter2-secret"},
	}, path)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	t.Cleanup(func() { _ = cfg.Close() })

	echo, _ := cfg.Tool("echo")
	res := echo.Call(context.Background(), json.RawMessage(`{"message": "a/b ../c"}`))
	if res.IsError {
		t.Fatal(res.Text())
	}
	want := map[string]any{"message": "a/b ../c", "n": 2, "status": 200, "content_type": "application/json"}
	for k, v := range want {
		if res.Structured[k] != v {
			t.Errorf("%s = %#v, want %#v", k, res.Structured[k], v)
		}
	}
	if res.Structured["length"] == "" {
		t.Error("no content-length header")
	}

	denied, _ := cfg.Tool("denied")
	res = denied.Call(context.Background(), nil)
	text := res.Text()
	if !res.IsError || !strings.HasPrefix(text, "HTTP 403 Forbidden from GET "+echoAuth.URL+"/: bad credential: Basic (sensitive)") {
		t.Errorf("result: %v %q", res.IsError, text)
	}
	if strings.Contains(text, "hunter2") {
		t.Errorf("the password leaked: %s", text)
	}
}
