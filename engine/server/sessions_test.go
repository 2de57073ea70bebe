package server_test

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// TestSubscriptionsOnHTTPSession: with http_sessions, a client of
// 2025-11-25 over HTTP gets a session (Mcp-Session-Id), sees subscribe
// declared, subscribes, and is told on its session's stream when a reload
// changes the resource; without, subscribe is neither declared nor
// answered.
func TestSubscriptionsOnHTTPSession(t *testing.T) {
	src := strings.Replace(subscribedSrc, "%s", "1", 1)
	for _, kind := range []string{"sessions", "http"} {
		t.Run(kind, func(t *testing.T) {
			live, ts := serveOverHTTP(t, loadTools(t, withSessions(kind, src)), server.Options{Watch: true})
			got := updates(make(chan string, 16))
			cs, err := connectSession(t, ts.URL, "2025-11-25", got.options())
			if err != nil {
				t.Fatal(err)
			}
			caps := cs.InitializeResult().Capabilities
			err = cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "x://news"})
			if kind == "http" {
				if caps.Resources != nil && caps.Resources.Subscribe || err == nil || !strings.Contains(err.Error(), "http_sessions") {
					t.Fatalf("stateless: subscribe declared %+v, answered %v; want neither, and a refusal that names http_sessions", caps.Resources, err)
				}
				return
			}
			if cs.ID() == "" {
				t.Error("the client has no session ID")
			}
			if caps.Resources == nil || !caps.Resources.Subscribe || err != nil {
				t.Fatalf("subscribe declared %+v, answered %v", caps.Resources, err)
			}
			// The first read, that learns the contents, runs in the background.
			time.Sleep(200 * time.Millisecond)
			live.Swap(loadTools(t, withSessions(kind, strings.Replace(subscribedSrc, "%s", "2", 1))))
			if uri := got.next(enginetest.Patience); uri != "x://news" {
				t.Fatalf("after a reload that changed x://news: told of %q", uri)
			}
			if err := cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: "x://news"}); err != nil {
				t.Errorf("unsubscribe: %v", err)
			}
		})
	}
}

// TestHTTPSessionsBounded: a process keeps at most max_http_sessions
// sessions: one initialize more is refused with 503 and a message that
// names the attribute, and a client of 2026-07-28, which needs none, is
// still served; once a client ends its session (DELETE), another one
// opens. A session idle for http_session_idle_timeout is closed: its ID
// is then unknown (404), and a new client gets the room it took.
func TestHTTPSessionsBounded(t *testing.T) {
	src := `
server {
  http_sessions             = true
  max_http_sessions         = 2
  http_session_idle_timeout = "1s"
}
tool "t" {
  description = "A tool."
  text        = "t"
}
`
	first, ts := sessionServer(t, loadTools(t, src), "2025-11-25", nil)
	second, err := connectSession(t, ts.URL, "2025-11-25", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := initializeHTTP(t, ts.URL); status != http.StatusServiceUnavailable || !strings.Contains(body, "max_http_sessions") {
		t.Fatalf("a third session: %d %q, want 503 and a message that names max_http_sessions", status, body)
	}
	if cs, err := connectSession(t, ts.URL, "2026-07-28", nil); err != nil {
		t.Errorf("a client of 2026-07-28: %v", err)
	} else if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Errorf("a client of 2026-07-28 calls: %v", err)
	}
	id := first.ID()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	third, err := connectSession(t, ts.URL, "2025-11-25", nil)
	if err != nil {
		t.Fatalf("a session once another ended: %v", err)
	}
	if status := postInSession(t, ts.URL, id); status != http.StatusNotFound {
		t.Errorf("a request in an ended session: %d, want 404", status)
	}

	// Idle sessions are closed (asking in one would keep it open): an
	// initialize is refused while the two are open, and accepted once the
	// idle timeout closed one, within a few timeouts on a busy machine too.
	for i := 0; ; i++ {
		if status, _ := initializeHTTP(t, ts.URL); status == http.StatusOK {
			break
		}
		if i == 600 {
			t.Fatal("no idle session was closed within a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if postInSession(t, ts.URL, second.ID()) != http.StatusNotFound && postInSession(t, ts.URL, third.ID()) != http.StatusNotFound {
		t.Error("a new session opened, yet both idle ones still answer")
	}
}

// initializeHTTP posts the initialize of a client of 2025-11-25, and returns
// the status and the body.
func initializeHTTP(t *testing.T, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+server.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// postInSession posts a ping in the session id, and returns the status.
func postInSession(t *testing.T, url, id string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+server.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// choicesTools asks with every kind of choice elicitation has (sep1330).
const choicesTools = `
server {
  http_sessions = true
}
tool "notify" {
  description = "Sends a notice, on the channels the person picks."
  confirm {
    message = "How?"
    field "plain" {
      enum = ["a", "b"]
    }
    field "titled" {
      enum        = ["r", "g"]
      enum_titles = ["Red", "Green"]
    }
    field "legacy" {
      enum           = ["s", "l"]
      enum_titles    = ["Small", "Large"]
      enum_titles_as = "enum_names"
    }
    field "channels" {
      type = set(string)
      enum = ["email", "sms", "push"]
    }
    field "titled_channels" {
      type        = list(string)
      enum        = ["email", "sms"]
      enum_titles = ["E-mail", "Text message"]
      default     = ["email"]
    }
  }
  text = expr("confirm.titled + ' ' + confirm.legacy + ' ' + join(confirm.channels, ',') + ' ' + join(confirm.titled_channels, ',')")
}
`

// TestChoicesOnHTTPSession: a client of 2025-11-25 on an HTTP session is
// asked with every choice of sep1330 as the spec has it (an enum; a oneOf
// of const and title; enum and enumNames; an array of an enum; an array
// of an anyOf of const and title), which the go-sdk client checks too; its
// choices, several in a list, reach the programs; a choice outside the
// enum is refused.
func TestChoicesOnHTTPSession(t *testing.T) {
	ans := &answering{}
	cs, _ := sessionServer(t, loadTools(t, choicesTools), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: ans.handle})
	call := func() (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "notify"})
	}
	ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"plain": "a", "titled": "g", "legacy": "l", "channels": []any{"sms", "push"}}})
	res, err := call()
	if err != nil || res.IsError || firstText(res) != "g l sms,push email" {
		t.Fatalf("accepted: %v %q, want the choices and the default of titled_channels", err, firstText(res))
	}
	if len(ans.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(ans.asked))
	}
	props := ans.asked[0].RequestedSchema.(map[string]any)["properties"].(map[string]any)
	want := map[string]string{
		"plain":           `{"enum":["a","b"],"type":"string"}`,
		"titled":          `{"oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"type":"string"}`,
		"legacy":          `{"enum":["s","l"],"enumNames":["Small","Large"],"type":"string"}`,
		"channels":        `{"items":{"enum":["email","sms","push"],"type":"string"},"type":"array","uniqueItems":true}`,
		"titled_channels": `{"default":["email"],"items":{"anyOf":[{"const":"email","title":"E-mail"},{"const":"sms","title":"Text message"}]},"type":"array"}`,
	}
	for name, w := range want {
		if got, _ := json.Marshal(props[name]); string(got) != w {
			t.Errorf("%s: the form has %s, want %s", name, got, w)
		}
	}
	for _, content := range []map[string]any{
		{"plain": "a", "titled": "b", "legacy": "l", "channels": []any{"sms"}},
		{"plain": "a", "titled": "g", "legacy": "l", "channels": []any{"fax"}},
		{"plain": "a", "titled": "g", "legacy": "l", "channels": []any{"sms", "sms"}},
	} {
		ans.set(&mcp.ElicitResult{Action: "accept", Content: content})
		if res, err := call(); err == nil && !res.IsError {
			t.Errorf("an answer outside the choices was taken: %v → %q", content, firstText(res))
		}
	}
}

// TestShutdownEndsSessions: a server that keeps sessions stops at once
// when asked, though a client keeps its session's GET stream open: the
// sessions end, the stream with them, and the shutdown does not wait
// for it until its timeout (which would fail it).
func TestShutdownEndsSessions(t *testing.T) {
	cfg := loadTools(t, withSessions("sessions", `
tool "t" {
  description = "A tool."
  text        = "t"
}
`))
	live := newLive(t, cfg, server.Options{HTTP: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- server.ServeHTTP(ctx, ln, live.HTTPHandler(), server.DefaultLimits(cfg.Settings, 0), slog.New(slog.DiscardHandler))
	}()
	url := "http://" + ln.Addr().String()
	if status, body := initializeHTTP(t, url); status != http.StatusOK {
		t.Fatalf("initialize: %d %s", status, body)
	}
	stream, err := http.NewRequest(http.MethodGet, url+server.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for ss := range live.Server().Sessions() {
		id = cmp.Or(ss.ID(), id)
	}
	stream.Header.Set("Mcp-Session-Id", id)
	stream.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(stream)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	defer resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the shutdown: %v, want none", err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Errorf("the stream did not end cleanly: %v", err)
	}
}

// askChoicesTools ask for a titled choice and for a multiple choice.
const askChoicesTools = `
server {
  http_sessions = true
}
tool "order" {
  description = "Orders a pizza."
  arg "size" {
    type        = string
    enum        = ["s", "l"]
    enum_titles = ["Small", "Large"]
    ask         = "Which size?"
  }
  arg "toppings" {
    schema = jsonencode({ type = "array", items = { anyOf = [{ const = "ham", title = "Ham" }, { const = "olive", title = "Olives" }] } })
    ask    = "Which toppings?"
  }
  text = expr("args.size + ': ' + join(args.toppings, ',')")
}
`

// TestAskChoicesOnHTTPSession: arguments asked for on an HTTP session
// (2025-11-25) are asked as titled and multiple choices (sep1330): an
// enum with enum_titles as a oneOf of const and title, a schema of an
// array of an anyOf as it is; the answers are validated as arguments.
func TestAskChoicesOnHTTPSession(t *testing.T) {
	ans := &answering{}
	cs, _ := sessionServer(t, loadTools(t, askChoicesTools), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: ans.handle})
	call := func() (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "order", Arguments: map[string]any{}})
	}
	ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"size": "l", "toppings": []any{"ham", "olive"}}})
	res, err := call()
	if err != nil || res.IsError || firstText(res) != "l: ham,olive" {
		t.Fatalf("accepted: %v %q", err, firstText(res))
	}
	if len(ans.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(ans.asked))
	}
	props := ans.asked[0].RequestedSchema.(map[string]any)["properties"].(map[string]any)
	for name, w := range map[string]string{
		"size":     `{"oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}],"type":"string"}`,
		"toppings": `{"items":{"anyOf":[{"const":"ham","title":"Ham"},{"const":"olive","title":"Olives"}]},"type":"array"}`,
	} {
		if got, _ := json.Marshal(props[name]); string(got) != w {
			t.Errorf("%s: the form has %s, want %s", name, got, w)
		}
	}
	ans.set(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"size": "l", "toppings": []any{"pineapple"}}})
	if res, err := call(); err == nil && !res.IsError {
		t.Errorf("a topping outside the choices was taken: %q", firstText(res))
	}
}

// TestHTTPSessionOfItsCaller: behind the auth block, a session belongs to
// the caller who opened it: another caller's token with its ID is
// refused (403), its own goes on.
func TestHTTPSessionOfItsCaller(t *testing.T) {
	cfg := frontConfig(t, nil, nil, tokens{
		"ada-token":  {UserID: "static:ada", Expiration: time.Now().Add(time.Hour)},
		"alan-token": {UserID: "static:alan", Expiration: time.Now().Add(time.Hour)},
	})
	cfg.Settings.HTTPSessions = true
	ts := serveFront(t, cfg)
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path, HTTPClient: &http.Client{Transport: bearer{"ada-token"}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if cs.ID() == "" {
		t.Fatal("no session")
	}
	for token, want := range map[string]int{"alan-token": http.StatusForbidden, "ada-token": http.StatusOK} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+server.Path, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s in ada's session: %d, want %d", token, resp.StatusCode, want)
		}
	}
}

// slowAnswer is an elicitation handler that answers yes after wait: a
// person who reads the question first.
func slowAnswer(wait time.Duration) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		time.Sleep(wait)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}
}

// TestHTTPSessionWaitsForThePerson: a call on an HTTP session that asks
// the person waits for the answer however long past the read timeout it
// comes (as a listen stream does): the read deadline of its request, once
// read, does not cancel it.
func TestHTTPSessionWaitsForThePerson(t *testing.T) {
	cfg := loadTools(t, withSessions("sessions", `
tool "drop" {
  description = "Drops a table."
  confirm {
    message = "Drop it?"
  }
  text = "dropped"
}
`))
	addr := serveLimited(t, cfg, quickLimits())
	cs, err := connectSession(t, "http://"+addr, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: slowAnswer(4 * quickLimits().ReadTimeout)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "drop"})
	if err != nil || res.IsError || firstText(res) != "dropped" {
		t.Fatalf("a slow answer: %v %q", err, firstText(res))
	}
}

// TestHTTPSessionStreamResumes: a session's POST stream (2025-11-25)
// begins with a priming event with an ID, and a client whose stream broke
// gets what followed it again with a GET that names it in Last-Event-ID.
func TestHTTPSessionStreamResumes(t *testing.T) {
	cs, ts := sessionServer(t, loadTools(t, withSessions("sessions", `
tool "t" {
  description = "A tool."
  text        = "t"
}
`)), "2025-11-25", nil)
	send := func(method, body, lastEventID string) string {
		req, _ := http.NewRequest(method, ts.URL+server.Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if lastEventID != "" {
			req.Header.Set("Last-Event-ID", lastEventID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	stream := send(http.MethodPost, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"t"}}`, "")
	first, _, _ := strings.Cut(stream, "\n\n")
	id, found := strings.CutPrefix(strings.Split(first, "\n")[1], "id: ")
	if !strings.HasPrefix(first, "event: prime\n") || !found || !strings.Contains(stream, `"id":41`) {
		t.Fatalf("the POST stream: %q, want a priming event with an ID, then the result", stream)
	}
	if again := send(http.MethodGet, "", id); !strings.Contains(again, `"id":41`) || !strings.Contains(again, `"text":"t"`) {
		t.Errorf("resumed after %s: %q, want the result again", id, again)
	}
}
