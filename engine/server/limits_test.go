package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// closedWithin is how long a test waits for the server to act on a bound:
// enginetest.Patience, of which the bounds themselves are a small fraction.
const closedWithin = enginetest.Patience

// quickLimits are limits small enough for tests.
func quickLimits() server.Limits {
	return server.Limits{
		ReadHeaderTimeout: 500 * time.Millisecond,
		ReadTimeout:       500 * time.Millisecond,
		WriteTimeout:      time.Minute,
		IdleTimeout:       500 * time.Millisecond,
	}
}

// serveLimited serves cfg's HTTP front with ServeHTTP on a real listener,
// within limits, and returns its address.
func serveLimited(t *testing.T, cfg *engine.Config, limits server.Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	live := server.NewLive(cfg, nil, server.Options{HTTP: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.ServeHTTP(ctx, ln, live.HTTPHandler(), limits, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
		_ = live.Close()
	})
	return ln.Addr().String()
}

// dial opens a raw connection to addr, closed with the test.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// waitClosed reads conn until the server closes it, and fails the test
// when it is still open after closedWithin. It returns what was read.
func waitClosed(t *testing.T, conn net.Conn) string {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(closedWithin))
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection is still open after %s; read %q", closedWithin, got)
	}
	return string(got)
}

const slowHead = "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n%s\r\n"

// TestSlowBodyIsCut: a client that announces a large body and sends it a
// byte at a time loses its connection once the read timeout has passed,
// without a token as with one.
func TestSlowBodyIsCut(t *testing.T) {
	addr := serveLimited(t, frontConfig(t, nil, nil), quickLimits())
	conn := dial(t, addr)
	if _, err := fmt.Fprintf(conn, slowHead, addr, ""); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := conn.Write([]byte("{")); err != nil {
					return
				}
			}
		}
	}()
	waitClosed(t, conn)
}

// TestIdleConnectionIsClosed: a kept-alive connection that sends no next
// request is closed once the idle timeout has passed.
func TestIdleConnectionIsClosed(t *testing.T) {
	addr := serveLimited(t, frontConfig(t, nil, nil), quickLimits())
	conn := dial(t, addr)
	if _, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("healthz: %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	_ = conn.SetReadDeadline(time.Now().Add(closedWithin))
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("the server sent more than its answer")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the idle connection is still open after %s", closedWithin)
	}
}

// TestRefusedBeforeBody: a request without a valid token, from another
// origin, or announcing a body larger than the server takes, is answered at
// once, without waiting for the body it announced and never sends, and its
// connection is closed: the client reads the end of the stream, where it
// would otherwise wait for the read timeout.
func TestRefusedBeforeBody(t *testing.T) {
	limits := quickLimits()
	limits.ReadTimeout = time.Hour // only the refusal may end these requests
	limits.ReadHeaderTimeout = time.Hour
	cfg := frontConfig(t, nil, nil, tokens{"good": {UserID: "alice", Expiration: time.Now().Add(time.Hour)}})
	addr := serveLimited(t, cfg, limits)
	tooLarge := strings.Replace(slowHead, "Content-Length: 100000", "Content-Length: 100000000", 1)
	tests := []struct {
		name    string
		head    string
		headers string
		status  int
		body    string
	}{
		{"no token", slowHead, "", http.StatusUnauthorized, ""},
		{"wrong token", slowHead, "Authorization: Bearer bad\r\n", http.StatusUnauthorized, ""},
		{"foreign origin", slowHead, "Authorization: Bearer good\r\nOrigin: https://evil.example\r\n", http.StatusForbidden, "allowed_origins"},
		{"body too large", tooLarge, "Authorization: Bearer good\r\n", http.StatusRequestEntityTooLarge, "max_argument_bytes"},
		{"too large, no token", tooLarge, "", http.StatusUnauthorized, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := dial(t, addr)
			if _, err := fmt.Fprintf(conn, tt.head, addr, tt.headers); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(closedWithin))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer before the body was sent: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.body) {
				t.Errorf("got %d %q, want %d with %q", resp.StatusCode, body, tt.status, tt.body)
			}
			if !resp.Close {
				t.Error("the answer does not say Connection: close")
			}
			if _, err := br.ReadByte(); err == nil {
				t.Error("the server sent more than its answer")
			} else if !errors.Is(err, io.EOF) {
				t.Errorf("the refused connection is still open after %s (%v): the server waits for the body", closedWithin, err)
			}
		})
	}
}

// TestRefusedWithBody: a client that sends its whole body without a token
// is answered 401 (where the auth block's challenge tells it how to get a
// token), whatever the size of its body.
func TestRefusedWithBody(t *testing.T) {
	cfg := frontConfig(t, nil, nil, tokens{"good": {UserID: "alice", Expiration: time.Now().Add(time.Hour)}})
	addr := serveLimited(t, cfg, quickLimits())
	for _, size := range []int{200, 100000, 1 << 20} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", size) + `"}}`
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+server.Path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := (&http.Client{Timeout: closedWithin}).Do(req)
		if err != nil {
			t.Fatalf("a body of %d bytes: %v", size, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a body of %d bytes: %d, want 401", size, resp.StatusCode)
		}
	}
}

// TestRefusedChunkedBody: a request whose chunked body passes the limit is
// answered 413 and its connection closed, however the client goes on.
func TestRefusedChunkedBody(t *testing.T) {
	limits := quickLimits()
	limits.ReadTimeout = time.Hour
	limits.ReadHeaderTimeout = time.Hour
	cfg := frontConfig(t, nil, nil)
	addr := serveLimited(t, cfg, limits)
	conn := dial(t, addr)
	chunk := int(server.MaxRequestBody(cfg.Settings)) + 1
	head := "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n"
	if _, err := fmt.Fprintf(conn, head, addr, chunk); err != nil {
		t.Fatal(err)
	}
	// The chunk is sent whole, and then the client stalls.
	go func() { _, _ = conn.Write([]byte(strings.Repeat(" ", chunk) + "\r\n")) }()
	_ = conn.SetReadDeadline(time.Now().Add(closedWithin))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("got %d, want 413", resp.StatusCode)
	}
	if _, err := br.ReadByte(); err == nil {
		t.Error("the server sent more than its answer")
	} else if !errors.Is(err, io.EOF) {
		t.Errorf("the refused connection is still open after %s, or was reset (%v)", closedWithin, err)
	}
}

// TestRefusedClientsDoNotHoldConnections: clients refused for want of a
// token, each keeping its connection and never sending the body it
// announced, do not take the connections an authenticated client needs.
func TestRefusedClientsDoNotHoldConnections(t *testing.T) {
	limits := quickLimits()
	limits.ReadHeaderTimeout, limits.ReadTimeout, limits.IdleTimeout = time.Hour, time.Hour, time.Hour
	limits.MaxConnections = 2
	cfg := frontConfig(t, nil, nil, tokens{"good": {UserID: "alice", Expiration: time.Now().Add(time.Hour)}})
	addr := serveLimited(t, cfg, limits)
	for i := range 3 * limits.MaxConnections {
		conn := dial(t, addr) // closed only when the test ends
		if _, err := fmt.Fprintf(conn, slowHead, addr, ""); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(closedWithin))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("refused client %d of %d was not answered (max_connections %d): %v", i+1, 3*limits.MaxConnections, limits.MaxConnections, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("refused client %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + server.Path, HTTPClient: &http.Client{Transport: bearer{"good"}, Timeout: closedWithin}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("an authenticated client could not connect: %v", err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) == 0 {
		t.Fatalf("tools/list of an authenticated client: %v %v", list, err)
	}
}

// TestMaxConnections: beyond the cap, a client waits until a connection
// closes, then is served.
func TestMaxConnections(t *testing.T) {
	limits := quickLimits()
	limits.ReadHeaderTimeout, limits.ReadTimeout, limits.IdleTimeout = time.Hour, time.Hour, time.Hour
	limits.MaxConnections = 2
	addr := serveLimited(t, frontConfig(t, nil, nil), limits)
	held := []net.Conn{dial(t, addr), dial(t, addr)}
	for _, c := range held { // make sure both were accepted
		if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	third := dial(t, addr)
	if _, err := fmt.Fprintf(third, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
		t.Fatal(err)
	}
	_ = third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := third.Read(make([]byte, 1)); err == nil {
		t.Fatal("a third connection was served beyond max_connections 2")
	}
	_ = held[0].Close()
	_ = third.SetReadDeadline(time.Now().Add(closedWithin))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil {
		t.Fatalf("the waiting client was not served once a connection closed: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
}

// TestLongCallOutlivesReadTimeout: the read timeout bounds reading the
// request, not the call it carries.
func TestLongCallOutlivesReadTimeout(t *testing.T) {
	limits := quickLimits()
	limits.ReadTimeout = 200 * time.Millisecond
	limits.WriteTimeout = 200 * time.Millisecond
	settings := engine.DefaultSettings()
	tool, err := engine.NewTool(engine.ToolSpec{Name: "sleep", Description: "d", Action: sleeper(time.Second)}, settings, &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.NewConfig(engine.ServerInfo{Name: "test", Version: "1"}, settings, []*engine.Tool{tool}, &text.Redactor{}, nil)
	addr := serveLimited(t, cfg, limits)
	cs, err := connectHTTP(t, "http://"+addr, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "slept" {
		t.Errorf("call: %+v", res)
	}
}

// TestDefaultLimits: the connection cap leaves half the open files to what
// the tools connect to.
func TestDefaultLimits(t *testing.T) {
	settings := engine.DefaultSettings()
	tests := []struct {
		maxConns  int
		openFiles uint64
		want      int
	}{
		{1024, 0, 1024},
		{1024, 1 << 20, 1024},
		{1024, 128, 64},
		{10, 128, 10},
		{1024, 1, 1},
	}
	for _, tt := range tests {
		settings.MaxConnections = tt.maxConns
		l := server.DefaultLimits(settings, tt.openFiles)
		if l.MaxConnections != tt.want {
			t.Errorf("max_connections %d, %d open files: cap %d, want %d", tt.maxConns, tt.openFiles, l.MaxConnections, tt.want)
		}
		if l.ReadTimeout <= 0 || l.IdleTimeout <= 0 || l.ReadHeaderTimeout <= 0 || l.WriteTimeout <= settings.Timeout {
			t.Errorf("a timeout is unbounded or shorter than a call: %+v", l)
		}
	}
}

// sleeper is an action that takes its time, then answers "slept".
type sleeper time.Duration

func (s sleeper) Run(ctx context.Context, _ map[string]any) (*engine.Response, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(time.Duration(s)):
	}
	return &engine.Response{Content: []engine.Content{{Type: engine.TextContent, Text: "slept"}}}, nil
}
