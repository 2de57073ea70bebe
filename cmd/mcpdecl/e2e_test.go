package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The end-to-end tests run the real binary, `mcpdecl serve`, and talk to it
// with the SDK's client, over stdio and over HTTP, as an MCP client would.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds mcpdecl once for the test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpdecl-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mcpdecl")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building mcpdecl: %v", buildErr)
	}
	return binPath
}

// slowCalls reports on the requests to e2eUpstream's /slow: each arrival on
// started, each cancellation on cancelled.
type slowCalls struct {
	started, cancelled <-chan struct{}
}

// e2eUpstream serves the endpoints of e2eConfig: /greet echoes a name, and
// /slow blocks until its request is cancelled, reporting on slow.
func e2eUpstream(t *testing.T) (url string, slow slowCalls) {
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/greet/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"greeting": "hello, " + r.PathValue("name")})
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
			cancelled <- struct{}{}
		case <-time.After(enginetest.Patience):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, slowCalls{started: started, cancelled: cancelled}
}

const e2eConfig = `
server {
  name    = "e2e"
  version = "1.2.3"
}
variable "base_url" {
  type = string
}
http_api "up" {
  base_url = var.base_url
}
tool "greet" {
  description = "Greets someone."
  arg "name" {
    type       = string
    min_length = 1
  }
  http {
    api         = http_api.up
    path        = "/greet/{name}"
    path_params = { name = expr("args.name") }
  }
  output "greeting" {
    type  = string
    value = expr("body.greeting")
  }
}
tool "slow" {
  description = "Waits for an upstream that never answers."
  timeout     = "60s"
  http {
    api  = http_api.up
    path = "/slow"
  }
}
`

func writeConfig(t *testing.T) string {
	name := filepath.Join(t.TempDir(), "tools.hcl")
	write(t, name, e2eConfig)
	return name
}

// exercise lists and calls the tools of e2eConfig through session.
func exercise(t *testing.T, session *mcp.ClientSession, slow slowCalls) {
	ctx := context.Background()
	init := session.InitializeResult()
	if init.ServerInfo.Name != "e2e" || init.ServerInfo.Version != "1.2.3" {
		t.Errorf("server info = %+v, want e2e 1.2.3", init.ServerInfo)
	}
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "greet,slow" {
		t.Errorf("tools = %v, want greet,slow", names)
	}
	if list.Tools[0].OutputSchema == nil {
		t.Errorf("greet has no outputSchema")
	}

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		t.Fatalf("tools/call greet: %v", err)
	}
	if res.IsError {
		t.Fatalf("greet failed: %v", res.Content)
	}
	got, _ := json.Marshal(res.StructuredContent)
	if string(got) != `{"greeting":"hello, Ada"}` {
		t.Errorf("structuredContent = %s", got)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != `{"greeting":"hello, Ada"}` {
		t.Errorf("content = %v, want one text block with the JSON", res.Content)
	}

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": ""}})
	if err != nil {
		t.Fatalf("tools/call greet with bad arguments: %v", err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "/name") {
		t.Errorf("bad arguments: want a tool error naming /name, got %v", res.Content)
	}

	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: err = %v, want JSON-RPC error -32602", err)
	}

	// Cancelling the call cancels the upstream request.
	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := session.CallTool(callCtx, &mcp.CallToolParams{Name: "slow"})
		done <- err
	}()
	select {
	case <-slow.started:
	case err := <-done:
		t.Fatalf("the slow call ended before reaching the upstream: %v", err)
	case <-time.After(enginetest.Patience):
		t.Fatalf("the slow call did not reach the upstream within %s", enginetest.Patience)
	}
	cancel()
	select {
	case <-slow.cancelled:
	case <-time.After(enginetest.Patience):
		t.Errorf("the upstream request was not cancelled after the client's cancellation")
	}
	<-done
}

func TestServeStdio(t *testing.T) {
	bin := binary(t)
	url, slow := e2eUpstream(t)
	cmd := exec.Command(bin, "serve", writeConfig(t), "--var", "base_url="+url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "0"}, nil)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting over stdio: %v\nstderr: %s", err, stderr.String())
	}
	exercise(t, session, slow)
	if err := session.Close(); err != nil {
		t.Errorf("closing: %v", err)
	}
	if !strings.Contains(stderr.String(), "serving on stdio") {
		t.Errorf("logs on stderr = %q, want the start-up line", stderr.String())
	}
}

// startHTTP starts `mcpdecl serve --http` on a free port and returns the
// endpoint's URL and the process.
func startHTTP(t *testing.T, args ...string) (string, *exec.Cmd) {
	endpoint, cmd, _ := startHTTPEnv(t, nil, args...)
	return endpoint, cmd
}

// startHTTPEnv starts serve --http with env added to the environment, and
// returns its endpoint and the lines it logs after the one with its URL.
func startHTTPEnv(t *testing.T, env []string, args ...string) (string, *exec.Cmd, <-chan string) {
	bin := binary(t)
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	lines := make(chan string, 1000)
	go func() {
		re := regexp.MustCompile(`url"?[=:]"?(http://[^\s"]+/mcp)`) // text or JSON logs
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				continue
			}
			select {
			case lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case endpoint := <-found:
		return endpoint, cmd, lines
	case <-time.After(enginetest.Patience):
		t.Fatal("mcpdecl serve --http did not log its URL")
	}
	return "", nil, nil
}

func TestServeHTTP(t *testing.T) {
	url, slow := e2eUpstream(t)
	endpoint, cmd := startHTTP(t, writeConfig(t), "--var", "base_url="+url)

	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "0"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connecting over HTTP: %v", err)
	}
	exercise(t, session, slow)
	_ = session.Close()

	// Clients of every revision are served.
	for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
		got := post(t, endpoint, version, body)
		if !strings.Contains(got, `"protocolVersion":"`+version+`"`) {
			t.Errorf("initialize with %s: %s", version, got)
		}
		got = post(t, endpoint, version, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Bo"}}}`)
		if !strings.Contains(got, `hello, Bo`) {
			t.Errorf("tools/call with %s: %s", version, got)
		}
	}

	// SIGTERM stops the server cleanly.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v, want exit code 0", err)
		}
	case <-time.After(enginetest.Patience):
		t.Errorf("the server did not stop after SIGTERM")
	}
}

// post sends one JSON-RPC message over plain HTTP, as an old client would.
func post(t *testing.T, endpoint, version, body string) string {
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
