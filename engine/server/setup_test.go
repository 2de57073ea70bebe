package server_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// loadTools loads src with the given adapters and an empty environment,
// and fails the test with the diagnostics when it does not load.
func loadTools(t testing.TB, src string, adapters ...engine.Adapter) *engine.Config {
	t.Helper()
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(adapters...), src, enginetest.Options{LookupEnv: enginetest.MapEnv(nil)})
	if diags.HasErrors() {
		t.Fatal(enginetest.Describe(diags))
	}
	return cfg
}

// newLive serves cfg with opts, closed when the test ends.
func newLive(t testing.TB, cfg *engine.Config, opts server.Options) *server.Live {
	t.Helper()
	live := server.NewLive(cfg, nil, opts)
	t.Cleanup(func() { _ = live.Close() })
	return live
}

// serveOverHTTP serves cfg with opts as an HTTP front on a test server;
// both close when the test ends.
func serveOverHTTP(t *testing.T, cfg *engine.Config, opts server.Options) (*server.Live, *httptest.Server) {
	t.Helper()
	opts.HTTP = true
	live := newLive(t, cfg, opts)
	ts := httptest.NewServer(live.HTTPHandler())
	t.Cleanup(ts.Close)
	return live, ts
}

// withSessions is src with a server block that turns http_sessions on
// when kind is "sessions" (an HTTP server that keeps sessions), src as it
// is otherwise.
func withSessions(kind, src string) string {
	if kind != "sessions" {
		return src
	}
	return "server {\n  http_sessions = true\n}\n" + src
}

// connectSession connects a client of version to the HTTP front at url.
func connectSession(t *testing.T, url, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, opts).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + server.Path}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// sessionServer serves cfg over HTTP on a test server and connects a
// client of version with opts to it, failing the test when it cannot.
// The server is returned for requests the client does not make.
func sessionServer(t *testing.T, cfg *engine.Config, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *httptest.Server) {
	t.Helper()
	_, ts := serveOverHTTP(t, cfg, server.Options{})
	cs, err := connectSession(t, ts.URL, version, opts)
	if err != nil {
		t.Fatal(err)
	}
	return cs, ts
}

// connectOver connects a client of version with opts to cfg served over
// kind: "stdio" in memory, as over stdio; "http" or "sessions" over HTTP.
func connectOver(t *testing.T, cfg *engine.Config, kind, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if kind == "stdio" {
		return connectLive(t, newLive(t, cfg, server.Options{}), version, opts)
	}
	cs, _ := sessionServer(t, cfg, version, opts)
	return cs
}
