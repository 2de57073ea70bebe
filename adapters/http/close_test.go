package httpaction_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// TestCloseURLAction checks that closing a configuration (as a reload does
// once its calls are over) closes the idle connections of a tool with a
// url of its own, as it does those of an http_api.
func TestCloseURLAction(t *testing.T) {
	closed := make(chan struct{}, 1)
	upstream := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	upstream.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			select {
			case closed <- struct{}{}:
			default:
			}
		}
	}
	upstream.Start()
	t.Cleanup(upstream.Close)

	path := filepath.Join(t.TempDir(), "tools.hcl")
	src := `
tool "get" {
  description = "Gets."
  http {
    url = "` + upstream.URL + `/x"
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(httpaction.New())}, path)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tool, _ := cfg.Tool("get")
	if res := tool.Call(context.Background(), nil); res.IsError {
		t.Fatal(res.Text())
	}
	select {
	case <-closed:
		t.Fatal("the connection closed before the configuration was")
	case <-time.After(50 * time.Millisecond):
	}
	if err := cfg.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the idle connection to the upstream is still open after the configuration was closed")
	}
}
