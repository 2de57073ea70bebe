package server_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/adapters/exec"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// loggingTools has a tool whose program writes three lines to stderr, one
// with a secret, the last without a newline, and one that logs nothing.
const loggingTools = `
variable "token" {
  default   = "tok-9f8e7d"
  sensitive = true
}

tool "noisy" {
  description = "Logs as it works."
  exec {
    command    = ["sh", "-c", "echo started >&2; echo \"using $T\" >&2; printf 'done\\033[31m' >&2; echo ok"]
    env        = { T = var.token }
    log_stderr = "info"
  }
}

tool "greet" {
  description = "Greets, and says so."
  arg "name" { type = string }
  arg "pin" {
    type      = string
    sensitive = true
  }
  log {
    message = expr("'greeting ' + args.name + ' (pin ' + args.pin + ')'")
  }
  log {
    level   = "debug"
    message = "details"
  }
  text = expr("'hi ' + args.name")
}

tool "quiet" {
  description = "Logs nothing."
  exec {
    command = ["sh", "-c", "echo to-stderr >&2; echo ok"]
  }
}
`

// logClient collects the log messages a session receives.
type logClient struct {
	mu  sync.Mutex
	got []string
}

func (c *logClient) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

// await returns the messages once there are n of them, or after
// enginetest.Patience with those there are: the client handles
// notifications apart from the results, so the last may come just after its
// call's result.
func (c *logClient) await(n int) []string {
	deadline := time.Now().Add(enginetest.Patience)
	for {
		got := c.messages()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *logClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.got = append(c.got, string(req.Params.Level)+" "+req.Params.Logger+": "+req.Params.Data.(string))
	}}
}

func loggingConfig(t *testing.T, more ...string) *engine.Config {
	t.Helper()
	return loadTools(t, loggingTools+strings.Join(more, ""), execaction.New())
}

var wantLogs = []string{"info noisy: started", "info noisy: using " + text.Mask, "info noisy: done"}

// TestLogStderrOverStdio: the lines of log_stderr reach a client that set
// a level at or below the tool's (logging/setLevel, or on 2026-07-28 the
// request's own level), redacted and cleaned of terminal controls; none
// reach one that set none or a higher one; a tool without log_stderr sends
// none; and the server declares logging.
func TestLogStderrOverStdio(t *testing.T) {
	cfg := loggingConfig(t)
	connect := func(t *testing.T, version string) (*mcp.ClientSession, *logClient) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.New(cfg, nil).Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		lc := &logClient{}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, lc.options()).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		if cs.InitializeResult().Capabilities.Logging == nil {
			t.Error("the logging capability is not declared")
		}
		return cs, lc
	}
	call := func(t *testing.T, cs *mcp.ClientSession, name string, meta mcp.Meta) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Meta: meta})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, res)
		}
	}
	t.Run("2025-11-25, level set", func(t *testing.T) {
		cs, lc := connect(t, "2025-11-25")
		call(t, cs, "noisy", nil) // no level yet: nothing
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		call(t, cs, "quiet", nil)
		call(t, cs, "noisy", nil)
		if got := lc.await(len(wantLogs)); !slices.Equal(got, wantLogs) {
			t.Errorf("log messages %q, want %q", got, wantLogs)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada", "pin": "4321"}})
		if err != nil || res.IsError {
			t.Fatalf("greet: %v %v", err, res)
		}
		declared := []string{"info greet: greeting Ada (pin " + text.Mask + ")", "debug greet: details"}
		if got := lc.await(len(wantLogs) + 2); !slices.Equal(got[len(wantLogs):], declared) {
			t.Errorf("declared log messages %q, want %q", got[len(wantLogs):], declared)
		}
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
			t.Fatal(err)
		}
		call(t, cs, "noisy", nil)
		call(t, cs, "quiet", nil) // after noisy's messages, had there been any
		if got := lc.messages(); len(got) != len(wantLogs)+2 {
			t.Errorf("at level warning the info lines were sent: %q", got[len(wantLogs)+2:])
		}
	})
	t.Run("2026-07-28, level per request", func(t *testing.T) {
		cs, lc := connect(t, "")
		call(t, cs, "noisy", nil)
		if got := lc.messages(); len(got) != 0 {
			t.Errorf("log messages without a level: %q", got)
		}
		call(t, cs, "noisy", mcp.Meta{mcp.MetaKeyLogLevel: "info"})
		if got := lc.await(len(wantLogs)); !slices.Equal(got, wantLogs) {
			t.Errorf("log messages %q, want %q", got, wantLogs)
		}
	})
}

// TestLogStderrOverHTTP: a 2026-07-28 client of the streamable HTTP
// endpoint gets the log messages of a call that asks for them, on the
// call's own stream; in discovery mode too, through call_tool (whose
// Mcp-Name is call_tool: the front reads which tool it calls in the body).
func TestLogStderrOverHTTP(t *testing.T) {
	for _, discovery := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "discovery"}[discovery], func(t *testing.T) {
			live := server.NewLive(loggingConfig(t), nil, server.Options{HTTP: true, Discovery: discovery})
			defer live.Close()
			ts := httptest.NewServer(live.HTTPHandler())
			defer ts.Close()
			lc := &logClient{}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, lc.options()).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, name := range []string{"quiet", "noisy"} {
				params := &mcp.CallToolParams{Name: name, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "debug"}}
				if discovery {
					params.Name, params.Arguments = "call_tool", map[string]any{"name": name}
				}
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %v", name, err, res)
				}
				if tc, ok := res.Content[0].(*mcp.TextContent); !ok || strings.TrimSpace(tc.Text) != "ok" {
					t.Errorf("%s answered %v", name, res.Content)
				}
			}
			if got := lc.await(len(wantLogs)); !slices.Equal(got, wantLogs) {
				t.Errorf("log messages %q, want %q", got, wantLogs)
			}
		})
	}
}

// TestDefaultLogLevel: with the server's log_level, a client of a revision
// before 2026-07-28 that set no level gets the messages at or above it,
// over stdio and over stateless HTTP (where its logging/setLevel would not
// outlast its request); one that set a level gets that level's; a
// 2026-07-28 request without a level still gets none.
func TestDefaultLogLevel(t *testing.T) {
	cfg := loggingConfig(t, "server {\n  log_level = \"info\"\n}\n")
	live := server.NewLive(cfg, nil, server.Options{HTTP: true})
	defer live.Close()
	ts := httptest.NewServer(live.HTTPHandler())
	defer ts.Close()
	connect := func(t *testing.T, version string, overHTTP bool) (*mcp.ClientSession, *logClient) {
		lc := &logClient{}
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, lc.options())
		var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}
		if !overHTTP {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := live.Server().Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ss.Close() })
			tr = ct
		}
		cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs, lc
	}
	call := func(t *testing.T, cs *mcp.ClientSession, name string) {
		t.Helper()
		var args map[string]any
		if name == "greet" {
			args = map[string]any{"name": "Bo", "pin": "8642"}
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, res)
		}
	}
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{true: "http", false: "stdio"}[overHTTP], func(t *testing.T) {
			cs, lc := connect(t, "2025-11-25", overHTTP)
			call(t, cs, "noisy")
			call(t, cs, "greet") // its debug message is below log_level
			want := append(slices.Clone(wantLogs), "info greet: greeting Bo (pin "+text.Mask+")")
			if got := lc.await(len(want)); !slices.Equal(got, want) {
				t.Errorf("log messages %q, want %q", got, want)
			}
			if !overHTTP {
				if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
					t.Fatal(err)
				}
				call(t, cs, "greet")
				want = append(want, "info greet: greeting Bo (pin "+text.Mask+")", "debug greet: details")
				if got := lc.await(len(want)); !slices.Equal(got, want) {
					t.Errorf("after logging/setLevel debug: %q, want %q", got, want)
				}
			}
			modern, lc2 := connect(t, "", overHTTP)
			call(t, modern, "noisy")
			call(t, modern, "quiet")
			if got := lc2.messages(); len(got) != 0 {
				t.Errorf("a 2026-07-28 request without a level got %q", got)
			}
		})
	}
}
