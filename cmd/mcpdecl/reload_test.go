package main

import (
	"bytes"
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a bytes.Buffer safe to write from a process and read here.
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

// servedSession is `mcpdecl serve` run over stdio, with a client
// connected that notes each tools/list_changed notification.
type servedSession struct {
	t       *testing.T
	cmd     *exec.Cmd
	session *mcp.ClientSession
	stderr  *syncBuffer
	changed chan struct{}
}

// serveSession runs cmd, an `mcpdecl serve` over stdio, and connects a
// client to it, which the test's end closes.
func serveSession(t *testing.T, cmd *exec.Cmd) *servedSession {
	t.Helper()
	s := &servedSession{t: t, cmd: cmd, stderr: &syncBuffer{}, changed: make(chan struct{}, 10)}
	cmd.Stderr = s.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default: // ten unread already: the test does not count them
			}
		},
	})
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.stderr.String())
	}
	t.Cleanup(func() { _ = session.Close() })
	s.session = session
	return s
}

// tools lists the tools served, each written by show.
func (s *servedSession) tools(show func(*mcp.Tool) string) []string {
	s.t.Helper()
	res, err := s.session.ListTools(context.Background(), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, show(tool))
	}
	return out
}

// names are the names of the tools served.
func (s *servedSession) names() []string {
	return s.tools(func(tool *mcp.Tool) string { return tool.Name })
}

// descriptions are the tools served, each as "name: description".
func (s *servedSession) descriptions() []string {
	return s.tools(func(tool *mcp.Tool) string { return tool.Name + ": " + tool.Description })
}

// waitChanged waits for a tools/list_changed notification after what.
func (s *servedSession) waitChanged(what string) {
	s.t.Helper()
	select {
	case <-s.changed:
	case <-time.After(enginetest.Patience):
		s.t.Fatalf("no tools/list_changed notification after %s\nlogs:\n%s", what, s.stderr.String())
	}
}

// waitLog waits for the n-th line of the log that holds msg, after what.
func (s *servedSession) waitLog(msg string, n int, after string) {
	s.t.Helper()
	for deadline := time.Now().Add(enginetest.Patience); strings.Count(s.stderr.String(), msg) < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("no %q (%d) after %s\nlogs:\n%s", msg, n, after, s.stderr.String())
		}
	}
}

const reloadBase = `
variable "upstream" {
  type = string
}
tool "held" {
  description = "Waits for the upstream to be released."
  http {
    url = "${var.upstream}/held"
  }
  output "answer" {
    type  = string
    value = expr("body.answer")
  }
}
tool "a" {
  description = "A."
  text        = "a"
}
`

// TestServeWatch edits the configuration of a running `mcpdecl serve
// --watch` and checks what a connected client sees.
func TestServeWatch(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"answer":"done"}`))
	}))
	defer up.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	dir := t.TempDir()
	file := filepath.Join(dir, "tools.hcl")
	write(t, file, reloadBase+`tool "b" {
  description = "B."
  text        = "b"
}
`)
	s := serveSession(t, exec.Command(binary(t), "serve", "--watch", dir, "--var", "upstream="+up.URL))
	session, ctx := s.session, context.Background()
	if caps := session.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
		t.Errorf("tools.listChanged is not declared with --watch: %+v", caps.Tools)
	}
	if got := s.names(); !slices.Equal(got, []string{"a", "b", "held"}) {
		t.Fatalf("tools = %v", got)
	}

	// A call in flight when the configuration changes finishes on the
	// configuration it started with.
	inflight := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "held"})
		if err != nil {
			t.Errorf("held: %v", err)
		}
		inflight <- res
	}()
	select {
	case <-arrived:
	case <-time.After(enginetest.Patience):
		t.Fatal("the held call never reached its upstream")
	}

	// A good edit: b goes, c comes.
	write(t, file, reloadBase+`tool "c" {
  description = "C."
  text        = "c"
}
`)
	s.waitChanged("a good edit")
	if got := s.names(); !slices.Equal(got, []string{"a", "c", "held"}) {
		t.Errorf("after the edit, tools = %v, want a, c, held", got)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "b"})
	if err == nil && !res.IsError {
		t.Errorf("the removed tool b can still be called")
	}
	close(release)
	select {
	case res := <-inflight:
		if res == nil || res.IsError {
			t.Errorf("the call in flight failed across the reload: %+v", res)
		}
	case <-time.After(enginetest.Patience):
		t.Fatal("the call in flight never finished")
	}

	// A broken edit is logged, and the old tools keep serving.
	write(t, file, reloadBase+`tool "broken" {
  description = expr("args.nope")
`)
	s.waitLog("reload failed", 1, "a broken edit")
	// One error: the block is not closed. What HCL recovers of a file with
	// a syntax error reports nothing more (here, that description cannot
	// be a program), as it may follow from the syntax error.
	if !strings.Contains(s.stderr.String(), "reload failed: 1 error; the previous configuration keeps serving") {
		t.Fatalf("the broken edit was not reported\nlogs:\n%s", s.stderr.String())
	}
	if got := s.names(); !slices.Equal(got, []string{"a", "c", "held"}) {
		t.Errorf("after a broken edit, tools = %v, want them unchanged", got)
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "c"})
	if err != nil || res.IsError {
		t.Errorf("c after a broken edit: %v %+v", err, res)
	}

	// SIGHUP reloads too: deleting a file's tools by fixing it back.
	write(t, file, reloadBase)
	s.waitChanged("fixing the file")
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitChanged("SIGHUP")
	if got := s.names(); !slices.Equal(got, []string{"a", "held"}) {
		t.Errorf("after SIGHUP, tools = %v, want a, held", got)
	}
	_ = os.Remove(file)
}

// TestServeWatchFileFunction checks that `serve --watch` reloads when a
// file read with file() changes, even one outside the configuration's
// directory, and follows a file() that a reload adds.
func TestServeWatchFileFunction(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir() // file() may reach outside the configuration's directory
	file := filepath.Join(dir, "tools.hcl")
	desc := filepath.Join(other, "desc.txt")
	second := filepath.Join(other, "second.txt")
	write(t, desc, "first description")
	write(t, second, "second tool")
	write(t, file, `tool "t" {
  description = file("`+desc+`")
  text        = "t"
}
`)
	s := serveSession(t, exec.Command(binary(t), "serve", "--watch", file))

	write(t, desc, "edited description")
	s.waitChanged("editing a file() read")
	if got := s.descriptions(); !slices.Equal(got, []string{"t: edited description"}) {
		t.Errorf("after editing desc.txt, tools = %q", got)
	}

	// An edit that reads one more file: that file is watched from then on.
	write(t, file, `tool "t" {
  description = file("`+desc+`")
  text        = "t"
}
tool "u" {
  description = file("`+second+`")
  text        = "u"
}
`)
	s.waitChanged("adding a file()")
	write(t, second, "second tool, edited")
	s.waitChanged("editing the file() an edit added")
	if got := s.descriptions(); !slices.Equal(got, []string{"t: edited description", "u: second tool, edited"}) {
		t.Errorf("after editing second.txt, tools = %q", got)
	}
}

// TestServeWatchReadFiles checks that `serve --watch` reloads when any
// file a load read, or tried to read, changes: an --env-file; a ca_file
// rotated as Kubernetes rotates a mounted secret (its directory's ..data
// link swapped for one to a new directory, the file itself untouched); and
// a file() and a ca_file that a failed reload could not read, once each
// appears.
func TestServeWatchReadFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.hcl")
	envFile := filepath.Join(dir, "app.env")
	later := filepath.Join(dir, "later.txt")
	certs := filepath.Join(dir, "certs")
	tlsUp := httptest.NewTLSServer(http.NotFoundHandler())
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsUp.Certificate().Raw}))
	tlsUp.Close()
	if err := os.MkdirAll(filepath.Join(certs, "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(certs, "v1", "ca.pem"), ca+"# v1\n")
	for link, target := range map[string]string{"..data": "v1", "ca.pem": "..data/ca.pem"} {
		if err := os.Symlink(target, filepath.Join(certs, link)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, envFile, "DESC=from the env file\n")
	base := `http_api "secure" {
  base_url = "https://127.0.0.1:1"
  tls {
    ca_file = "certs/ca.pem"
  }
}
tool "t" {
  description = env("DESC")
  http {
    api  = http_api.secure
    path = "/"
  }
}
`
	write(t, file, base)
	s := serveSession(t, exec.Command(binary(t), "serve", "--watch", "--env-file", envFile, file))

	write(t, envFile, "DESC=edited in the env file\n")
	s.waitLog("configuration reloaded", 1, "editing the --env-file")
	if got := s.descriptions(); !slices.Equal(got, []string{"t: edited in the env file"}) {
		t.Errorf("after editing the env file, tools = %q", got)
	}

	if err := os.MkdirAll(filepath.Join(certs, "v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(certs, "v2", "ca.pem"), ca+"# v2\n")
	if err := os.Symlink("v2", filepath.Join(certs, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(certs, "..data_tmp"), filepath.Join(certs, "..data")); err != nil {
		t.Fatal(err)
	}
	s.waitLog("configuration reloaded", 2, "rotating the ca_file's directory")

	// Two files not there yet: a reload for the first still fails.
	write(t, file, base+`http_api "later" {
  base_url = "https://127.0.0.1:1"
  tls {
    ca_file = "later.pem"
  }
}
tool "u" {
  description = file("later.txt")
  text        = "u"
}
`)
	s.waitLog("reload failed", 1, "reading files that are not there")
	write(t, later, "a file that came later")
	s.waitLog("reload failed", 2, "creating the file() a failed reload could not read")
	write(t, filepath.Join(dir, "later.pem"), ca)
	s.waitLog("configuration reloaded", 3, "creating the ca_file a failed reload could not read")
	if got := s.descriptions(); !slices.Equal(got, []string{"t: edited in the env file", "u: a file that came later"}) {
		t.Errorf("after creating later.txt, tools = %q", got)
	}
}
