package lsp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/lsp"
)

// A message that is not JSON-RPC is skipped and the server answers the
// next; a header it cannot read ends the connection, and Serve returns.
func TestMalformedMessages(t *testing.T) {
	serverEnd, clientEnd := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = lsp.Serve(context.Background(), serverEnd, lsp.Options{Registry: registry()})
		serverEnd.Close()
	}()
	r := bufio.NewReader(clientEnd)
	send := func(body string) {
		if _, err := fmt.Fprintf(clientEnd, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatal(err)
		}
	}
	send("hello")
	send("[]")
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	if got := readBody(t, r); !strings.Contains(got, `"id":1`) || !strings.Contains(got, `"capabilities"`) {
		t.Fatalf("after malformed messages, initialize answered %s", got)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":"not an object"}`)
	if got := readBody(t, r); !strings.Contains(got, `"id":2`) || !strings.Contains(got, `"error"`) {
		t.Fatalf("hover with bad parameters answered %s", got)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere/x.hcl"},"position":{"line":0,"character":0}}}`)
	if got := readBody(t, r); !strings.Contains(got, `"id":3`) || !strings.Contains(got, "is not open") {
		t.Fatalf("hover on a document not open answered %s", got)
	}
	if _, err := io.WriteString(clientEnd, "Garbage without a header\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-done
}

func readBody(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var length int
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		fmt.Sscanf(line, "Content-Length: %d", &length)
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Hostile buffers and files: each gets a diagnostic, and the server goes on.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	c := start(t, dir)
	open := func(name, text string) protocol.DocumentUri {
		u := uri(filepath.Join(dir, name))
		c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "hcl", Version: 1, Text: text}})
		return u
	}
	close := func(u protocol.DocumentUri) {
		c.notify(protocol.MethodTextDocumentDidClose, protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}

	// A binary file.
	bin := open("binary.hcl", "\x00\x01\x02\xff\xfe\x7fELF\x00")
	c.waitDiagnostics(bin, func(d []protocol.Diagnostic) bool { return len(d) > 0 })
	close(bin)

	// file() of a device: refused at once.
	dev := open("dev.hcl", "variable \"x\" {\n  default = file(\"/dev/zero\")\n}\n")
	c.waitDiagnostics(dev, messageContaining("not a regular file"))
	close(dev)

	// A file outside the workspace: its own directory is its configuration.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "variables.hcl"), []byte("variable \"region\" {\n  default = \"eu\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := uri(filepath.Join(other, "tool.hcl"))
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: outside, Version: 1, Text: "variable \"region\" {\n  default = \"us\"\n}\n"}})
	// The file on disk is told of the buffer's duplicate.
	c.waitDiagnostics(uri(filepath.Join(other, "variables.hcl")), messageContaining(`A variable named "region" is already declared at`))

	// The server still answers.
	var symbols []protocol.DocumentSymbol
	c.call(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: outside}}, &symbols)
}

// The server loads a configuration as validate does: it connects to no
// upstream, no database, no identity provider and no Redis, and shows no
// password.
func TestNeverConnects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			conn.Close()
		}
	}()
	addr := ln.Addr().String()
	dir := t.TempDir()
	c := start(t, dir)
	u := uri(filepath.Join(dir, "tools.hcl"))
	text := fmt.Sprintf(`http_api "up" {
  base_url = "http://%[1]s"
}

database "pg" {
  driver = "postgres"
  dsn    = "postgres://user:pa55word-secret@%[1]s/db"
}

database "my" {
  driver = "mysql"
  dsn    = "user:pa55word-secret@tcp(%[1]s)/db"
}

auth {
  oauth {
    jwks_url = "http://%[1]s/jwks.json"
    issuer   = "http://%[1]s"
    audience = "http://%[1]s/mcp"
  }
}

rate_limit {
  requests  = 60
  per       = "1m"
  store     = "redis"
  redis_url = "redis://:pa55word-secret@%[1]s/0"
}

tool "get" {
  description = "Get."
  http {
    api  = http_api.up
    path = "/x"
  }
}

tool "rows" {
  description = "Rows."
  sql {
    database = database.pg
    query    = "SELECT 1"
  }
  timout = "1s"
}
`, addr)
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	diags := c.waitDiagnostics(u, messageContaining("timout"))
	for _, d := range diags {
		if strings.Contains(d.Message, "pa55word") {
			t.Errorf("a diagnostic shows the password: %s", d.Message)
		}
	}
	select {
	case <-accepted:
		t.Error("the server connected to the upstream or the database")
	default:
	}
}

// In a directory of examples, where several files declare a server block,
// each file is a configuration of its own, as mcpdecl validate FILE reads
// it: no "duplicate server" error, and another file's variables are not
// offered.
func TestDirectoryOfConfigurations(t *testing.T) {
	dir := t.TempDir()
	other := "server {\n  name = \"other\"\n}\n\nvariable \"elsewhere\" {\n  default = \"x\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "other.hcl"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, dir)
	u := uri(filepath.Join(dir, "mine.hcl"))
	text := "server {\n  nme = \"mine\"\n}\n\nvariable \"here\" {\n  default = var.here\n}\n"
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	diags := c.waitDiagnostics(u, messageContaining(`"nme"`))
	if messageContaining("server")(diags) && messageContaining("Duplicate")(diags) {
		t.Errorf("the other example's server block is reported: %+v", diags)
	}
	if got := labels(t, c, u, at(t, text, "var.here", 4)); !slices.Equal(got, []string{"here"}) {
		t.Errorf("completion after var.: %v", got)
	}
}
