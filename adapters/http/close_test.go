package httpaction_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
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

	src := `
tool "get" {
  description = "Gets."
  http {
    url = "` + upstream.URL + `/x"
  }
}
`
	cfg, diags := loadSource(t, src, nil)
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
	case <-time.After(enginetest.Patience):
		t.Fatal("the idle connection to the upstream is still open after the configuration was closed")
	}
}
