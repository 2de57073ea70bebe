package server_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	sampleaction "github.com/mcpdecl/mcpdecl/adapters/sample"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// rootsTools read a file within the client's roots, and ask in rounds:
// the name a call lacks, then the confirmation and the client's model
// together.
const rootsTools = `
tool "read_file" {
  description = "Reads a file within the client's roots."
  arg "path" {
    type         = string
    within_roots = true
  }
  exec {
    command = ["cat", expr("args.path")]
  }
}

tool "greet" {
  description = "Greets someone, once the person agrees, in the model's words."
  arg "name" {
    type = string
    ask  = "Whom do I greet?"
  }
  confirm {
    message = expr("'Greet ' + args.name + '?'")
    field "tone" {
      type = string
      enum = ["warm", "dry"]
    }
  }
  sample {
    messages   = ["Say hello."]
    max_tokens = 20
  }
  text = expr("text + ' ' + args.name + ' (' + confirm.tone + ')'")
}
`

// rootsFixture is a root folder holding a file, a file outside it, and
// a link inside it that leads out.
func rootsFixture(t *testing.T) (root, inside, outside, link string) {
	t.Helper()
	root, other := t.TempDir(), t.TempDir()
	inside, outside = filepath.Join(root, "notes.txt"), filepath.Join(other, "secret.txt")
	link = filepath.Join(root, "escape")
	if err := os.WriteFile(inside, []byte("inside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	return root, inside, outside, link
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// connectRoots connects a go-sdk client that shares root (none when
// empty, with caps declared as given) over transport ("stdio VERSION" is
// a session, "http VERSION" stateless HTTP).
func connectRoots(t *testing.T, transport string, root string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	kind, version, _ := strings.Cut(transport, " ")
	cfg := loadTools(t, withSessions(kind, rootsTools), execaction.New(), sampleaction.New())
	live := server.NewLive(cfg, nil, server.Options{HTTP: kind != "stdio"})
	t.Cleanup(func() { _ = live.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, opts)
	if root != "" {
		client.AddRoots(&mcp.Root{URI: fileURI(root), Name: "project"})
	}
	if kind == "stdio" {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := live.Server().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	ts := httptest.NewServer(live.HTTPHandler())
	t.Cleanup(ts.Close)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestWithinRoots: an argument within_roots is checked against the roots
// the client answers (roots/list on a session, an input request over
// stateless HTTP): a file within them is read; a path outside, through a
// link that leads out, with .., or relative is refused with a tool error
// that says why, and nothing runs.
func TestWithinRoots(t *testing.T) {
	for _, transport := range []string{"stdio 2025-11-25", "stdio 2026-07-28", "http 2026-07-28", "sessions 2025-11-25"} {
		t.Run(transport, func(t *testing.T) {
			root, inside, outside, link := rootsFixture(t)
			cs := connectRoots(t, transport, root, nil)
			read := func(path string) (*mcp.CallToolResult, error) {
				return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": path}})
			}
			if res, err := read(inside); err != nil || res.IsError || firstText(res) != "inside" {
				t.Fatalf("a file within the roots: %v %+v", err, res)
			}
			if res, err := read(fileURI(inside)); err != nil || res.IsError {
				// cat gets the URI as given, and fails; the check let it through.
				if res == nil || strings.Contains(firstText(res), "roots") {
					t.Errorf("a file:// URI within the roots: %v %+v", err, res)
				}
			}
			for _, c := range []struct{ path, says string }{
				{outside, "is not within the client's roots"},
				{filepath.Join(link, "secret.txt"), "leads to"},
				{root + "/../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt", "has a .. in it"},
				{"notes.txt", "is not an absolute path"},
				{"https://example.com/x", "is not an absolute path"},
			} {
				res, err := read(c.path)
				if err != nil || !res.IsError || !strings.Contains(firstText(res), c.says) || !strings.Contains(firstText(res), "nothing was done") || strings.Contains(firstText(res), "secret") && !strings.Contains(c.path, "secret") {
					t.Errorf("%s: %v %q, want a tool error that says %q", c.path, err, firstText(res), c.says)
				}
				if res != nil && strings.Contains(firstText(res), "\nsecret") {
					t.Errorf("%s: the file outside was read", c.path)
				}
			}
		})
	}
}

// TestWithinRootsRefused: a client that shares no roots, or did not
// declare the capability, is refused with a message that says so; over
// 2026-07-28 an undeclared capability is the protocol error -32021 that
// names roots.
func TestWithinRootsRefused(t *testing.T) {
	for _, transport := range []string{"stdio 2025-11-25", "http 2026-07-28"} {
		t.Run(transport, func(t *testing.T) {
			_, inside, _, _ := rootsFixture(t)
			cs := connectRoots(t, transport, "", nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": inside}})
			if err != nil || !res.IsError || !strings.Contains(firstText(res), "the client shares no roots") {
				t.Errorf("no roots: %v %q", err, firstText(res))
			}

			cs = connectRoots(t, transport, "", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": inside}})
			if strings.HasPrefix(transport, "http") {
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(werr.Data), `"roots"`) {
					t.Errorf("undeclared roots: %v, want the error %d naming roots", err, mcp.CodeMissingRequiredClientCapabilities)
				}
			} else if err != nil || !res.IsError || !strings.Contains(firstText(res), "did not declare the roots capability") {
				t.Errorf("undeclared roots: %v %q", err, firstText(res))
			}
		})
	}
}

// TestRounds: one call asks in successive rounds (the name it lacks,
// then the confirmation, then, once the person said yes, the client's
// model), and the go-sdk client
// answers each; over a session of 2025-11-25 the server asks on the
// session, round after round (the client's own handling of input
// requests is turned off there, as a client of that revision has none).
func TestRounds(t *testing.T) {
	for _, transport := range []string{"stdio 2025-11-25", "stdio 2026-07-28", "http 2026-07-28"} {
		t.Run(transport, func(t *testing.T) {
			var asked []string
			opts := &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					if strings.Contains(req.Params.Message, "Whom") {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"tone": "warm"}}, nil
				},
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					asked = append(asked, "(the model)")
					return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "Hello"}}, nil
				},
			}
			if strings.Contains(transport, "2025-11-25") {
				opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
			}
			cs := connectRoots(t, transport, "", opts)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
			if err != nil || res.IsError || firstText(res) != "Hello Ada (warm)" {
				t.Fatalf("greet: %v %+v", err, res)
			}
			if strings.Join(asked, "|") != "Whom do I greet?|Greet Ada?|(the model)" {
				t.Errorf("asked %q, want the name, then the confirmation, then the model", asked)
			}
		})
	}
}

// TestRoundStates: over stateless HTTP on 2026-07-28, by hand, the second
// round's state carries the first answer (the client answers only the
// confirmation), the third's the first two (the client answers only the
// model, asked once the person said yes); a state changed, or answered
// twice, is refused with invalid params, and nothing runs.
func TestRoundStates(t *testing.T) {
	cs := connectRoots(t, "http 2026-07-28", "", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}, Sampling: &mcp.SamplingCapabilities{}}})
	call := func(state string, answers mcp.InputResponseMap) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, RequestState: state, InputResponses: answers})
	}
	r1, err := call("", nil)
	if err != nil || r1.InputRequests["arguments"] == nil || len(r1.InputRequests) != 1 {
		t.Fatalf("round 1: %v %+v, want the name asked alone", err, r1)
	}
	r2, err := call(r1.RequestState, mcp.InputResponseMap{"arguments": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}})
	if err != nil || r2.InputRequests["confirm"] == nil || len(r2.InputRequests) != 1 || r2.RequestState == r1.RequestState {
		t.Fatalf("round 2: %v %+v, want the confirmation asked alone (nothing, the model included, before the person says yes), with a new state", err, r2)
	}
	r3, err := call(r2.RequestState, mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"tone": "dry"}}})
	if err != nil || r3.InputRequests["sample"] == nil || len(r3.InputRequests) != 1 || r3.RequestState == r2.RequestState {
		t.Fatalf("round 3: %v %+v, want the model asked, with a new state", err, r3)
	}
	final := mcp.InputResponseMap{
		"sample": &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "Hi"}},
	}
	refused := func(name string, res *mcp.CallToolResult, err error) {
		t.Helper()
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "request state is refused") {
			t.Errorf("%s: %v %+v, want the state refused", name, err, res)
		}
	}
	payload, sig, _ := strings.Cut(r3.RequestState, ".")
	b, _ := base64.RawURLEncoding.DecodeString(payload)
	forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(b), "Ada", "Bob", 1))) + "." + sig
	res, err := call(forged, final)
	refused("a state whose carried answer was changed", res, err)
	res, err = call(r1.RequestState, final)
	refused("the first round's state again", res, err)
	res, err = call(r3.RequestState, final)
	if err != nil || res.IsError || firstText(res) != "Hi Ada (dry)" {
		t.Fatalf("round 4: %v %+v", err, res)
	}
	res, err = call(r3.RequestState, final)
	refused("the third round's state again", res, err)

	// A decline ends the call: the model is never asked.
	r1, _ = call("", nil)
	r2, _ = call(r1.RequestState, mcp.InputResponseMap{"arguments": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}})
	res, err = call(r2.RequestState, mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "decline"}})
	if err != nil || !res.IsError || res.InputRequests != nil {
		t.Errorf("declined: %v %+v, want a tool error and no question to the model", err, res)
	}
}
