package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// TestCachedReplicasShareRedis runs examples/cached.hcl as two servers on
// one Redis, as two replicas behind a load balancer: a result one keeps is
// the other's answer to the same call, marked as cached, and a call with
// other arguments reaches httpbin.
func TestCachedReplicasShareRedis(t *testing.T) {
	addr := testservice.Redis(t)
	upstream := httptest.NewServer(httpbin.New())
	t.Cleanup(upstream.Close)
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "cached.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"CACHE_REDIS_URL=redis://" + addr, fmt.Sprintf("CACHE_PREFIX=mcpdecl-test-%d", time.Now().UnixNano())}
	a, _, _ := startHTTPEnv(t, env, example, "--var", "base_url="+upstream.URL)
	b, _, _ := startHTTPEnv(t, env, example, "--var", "base_url="+upstream.URL)

	call := func(endpoint, label string) (uuid string, cached bool) {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "cache-test", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "new_uuid", Arguments: map[string]any{"label": label}})
		if err != nil || res.IsError {
			t.Fatalf("new_uuid: %v %v", err, res)
		}
		out, _ := res.StructuredContent.(map[string]any)
		uuid, _ = out["uuid"].(string)
		_, cached = res.Meta["mcpdecl/cache"]
		return uuid, cached
	}
	first, cached := call(a, "x")
	if first == "" || cached {
		t.Fatalf("the first call: uuid %q, cached %v", first, cached)
	}
	second, cached := call(b, "x")
	if second != first || !cached {
		t.Errorf("the other replica answered %q (cached %v), want the first's %q from the cache", second, cached, first)
	}
	if other, cached := call(b, "y"); other == first || cached {
		t.Errorf("other arguments: %q (cached %v)", other, cached)
	}
}
