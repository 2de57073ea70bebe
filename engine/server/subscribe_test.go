package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// subscribedSrc serves a resource whose text a reload changes (version),
// one it leaves alone, a template, and one polled resource whose text
// changes every second.
const subscribedSrc = `
tool "t" {
  description = "A tool."
  text        = "t"
}
resource "news" {
  uri  = "x://news"
  text = "news %s"
}
resource "still" {
  uri  = "x://still"
  text = "still"
}
resource_template "doc" {
  uri_template = "x://docs/{name}"
  arg "name" { type = string }
  text = expr("'doc ' + args.name")
}
resource "clock" {
  uri           = "x://clock"
  poll_interval = "1s"
  text          = expr("string(now().Unix())")
}
`

func subscribedConfig(t *testing.T, version string) *engine.Config {
	t.Helper()
	return loadTools(t, strings.Replace(subscribedSrc, "%s", version, 1))
}

// updates collects the URIs of the resource-updated notifications a
// client receives.
type updates chan string

func (u updates) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		u <- req.Params.URI
	}}
}

// next returns the next URI updated, "" when none comes within wait.
func (u updates) next(wait time.Duration) string {
	select {
	case uri := <-u:
		return uri
	case <-time.After(wait):
		return ""
	}
}

// TestResourceSubscriptions: a client subscribed to a resource is told
// when a reload changes its contents, or a poll finds new ones, and not
// for resources it did not subscribe to, nor after it unsubscribed; over
// stdio (resources/subscribe, 2025-11-25) and over stateless HTTP (a
// 2026-07-28 subscriptions/listen stream, where the notification carries
// the stream's ID).
func TestResourceSubscriptions(t *testing.T) {
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{true: "http 2026-07-28", false: "stdio 2025-11-25"}[overHTTP], func(t *testing.T) {
			live := server.NewLive(subscribedConfig(t, "1"), nil, server.Options{Watch: true, HTTP: overHTTP})
			t.Cleanup(func() { _ = live.Close() })
			got := updates(make(chan string, 16))
			var cs *mcp.ClientSession
			if overHTTP {
				ts := httptest.NewServer(live.HTTPHandler())
				t.Cleanup(ts.Close)
				var err error
				cs, err = mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, got.options()).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cs.Close() })
			} else {
				cs = connectLive(t, live, "2025-11-25", got.options())
			}
			if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
				t.Fatalf("resources capability %+v, want subscribe declared", caps.Resources)
			}
			ctx := context.Background()
			for _, uri := range []string{"x://news", "x://docs/a"} {
				if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
					t.Fatalf("subscribe %s: %v", uri, err)
				}
			}
			live.Swap(subscribedConfig(t, "2"))
			if uri := got.next(enginetest.Patience); uri != "x://news" {
				t.Fatalf("after a reload that changed x://news: told of %q", uri)
			}
			if uri := got.next(300 * time.Millisecond); uri != "" {
				t.Errorf("told of %s, whose contents did not change", uri)
			}

			if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "x://news"}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			live.Swap(subscribedConfig(t, "3"))
			if uri := got.next(time.Second); uri != "" {
				t.Errorf("told of %s after unsubscribing", uri)
			}

			// A polled resource is read again each second.
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://clock"}); err != nil {
				t.Fatal(err)
			}
			if uri := got.next(enginetest.Patience); uri != "x://clock" {
				t.Errorf("polled resource: told of %q", uri)
			}
		})
	}
}

// TestReloadDuringTheFirstRead: a reload that comes while the first read
// of a subscribed resource, which learns its contents, is still running is
// told to the subscriber when it changed the contents: the first read is
// of the configuration served when the client subscribed, and the reload's
// read waits for it, so that what the server holds after is the reload's.
func TestReloadDuringTheFirstRead(t *testing.T) {
	gate := make(chan struct{})
	var reads atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reads.Add(1) == 1 {
			<-gate // the first read waits until the reload has begun
		}
		fmt.Fprint(w, r.URL.Query().Get("v"))
	}))
	t.Cleanup(up.Close)
	config := func(v string) *engine.Config {
		return loadTools(t, `
resource "slow" {
  uri  = "x://slow"
  http {
    url   = "`+up.URL+`"
    query = { v = "`+v+`" }
  }
  text = expr("body")
}
`, httpaction.New())
	}
	live := server.NewLive(config("1"), nil, server.Options{Watch: true})
	t.Cleanup(func() { _ = live.Close() })
	got := updates(make(chan string, 16))
	cs := connectLive(t, live, "2025-11-25", got.options())
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "x://slow"}); err != nil {
		t.Fatal(err)
	}
	live.Swap(config("2"))
	close(gate)
	if uri := got.next(enginetest.Patience); uri != "x://slow" {
		t.Fatalf("a reload during the first read changed x://slow: told of %q", uri)
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("the resource was read %d times, want 2 (the first read, then the reload's)", n)
	}
	// What the server holds now is the contents of the reload: another
	// reload to the same contents changes nothing.
	live.Swap(config("2"))
	if uri := got.next(time.Second); uri != "" {
		t.Errorf("a reload that left the contents alone: told of %s", uri)
	}
}

// TestSubscribedContentsOfTheCaller: contents that read caller differ
// from one client to another, so the server never reads them for all its
// subscribers (it would read them as nobody's): after a reload, each
// subscriber is told they may have changed, and reads them as itself.
func TestSubscribedContentsOfTheCaller(t *testing.T) {
	src := `
auth {
  token "ann" {
    value = "ann-token-0123456789abcdef"
  }
}
resource "mine" {
  uri  = "x://mine"
  text = expr("caller.authenticated ? 'for ' + caller.sub + ' %s' : 'nothing for nobody'")
}
`
	load := func(version string) *engine.Config {
		return loadTools(t, strings.Replace(src, "%s", version, 1))
	}
	live, ts := serveOverHTTP(t, load("1"), server.Options{Watch: true})
	got := updates(make(chan string, 16))
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path, HTTPClient: &http.Client{Transport: bearer{"ann-token-0123456789abcdef"}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, got.options()).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	ctx := context.Background()
	read := func() string {
		t.Helper()
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "x://mine"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Contents[0].Text
	}
	if text := read(); text != "for ann 1" {
		t.Fatalf("read as ann: %q", text)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://mine"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	live.Swap(load("2"))
	if uri := got.next(enginetest.Patience); uri != "x://mine" {
		t.Fatalf("after a reload that changed what ann reads: told of %q", uri)
	}
	if text := read(); text != "for ann 2" {
		t.Errorf("read as ann after the reload: %q", text)
	}
}

// TestSubscribeRefused: a URI nothing serves is refused; over stateless
// HTTP a client before 2026-07-28 is not offered subscriptions (it has no
// session to be told on) and its resources/subscribe is refused, saying
// why; a server whose resources never change offers none either.
func TestSubscribeRefused(t *testing.T) {
	ctx := context.Background()
	live := server.NewLive(subscribedConfig(t, "1"), nil, server.Options{Watch: true})
	t.Cleanup(func() { _ = live.Close() })
	cs := connectLive(t, live, "2025-11-25", nil)
	err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://nothing"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound {
		t.Errorf("subscribe to an unknown URI: %v, want resource not found", err)
	}

	// At most 1,000 URIs are watched at once, whoever subscribed: each is
	// read again at every reload or poll.
	for i := range 999 {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("x://docs/%d", i)}); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://news"}); err != nil {
		t.Fatalf("subscription 1000: %v", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://docs/0"}); err != nil {
		t.Errorf("a second subscription to a watched URI: %v", err)
	}
	err = cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://still"})
	if !errors.As(err, &je) || !strings.Contains(je.Message, "already watches 1000 resources") {
		t.Errorf("subscription 1001: %v, want a refusal saying why", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "x://news"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://still"}); err != nil {
		t.Errorf("a subscription after another ended: %v", err)
	}

	httpLive := server.NewLive(subscribedConfig(t, "1"), nil, server.Options{Watch: true, HTTP: true})
	t.Cleanup(func() { _ = httpLive.Close() })
	ts := httptest.NewServer(httpLive.HTTPHandler())
	t.Cleanup(ts.Close)
	old, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = old.Close() })
	if caps := old.InitializeResult().Capabilities; caps.Resources == nil || caps.Resources.Subscribe || caps.Resources.ListChanged {
		t.Errorf("2025-11-25 over HTTP: resources capability %+v, want neither subscribe nor listChanged", caps.Resources)
	}
	err = old.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://news"})
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(je.Message, "subscriptions/listen") {
		t.Errorf("2025-11-25 subscribe over HTTP: %v, want method not found pointing to subscriptions/listen", err)
	}

	fixed := loadTools(t, `
resource "r" {
  uri  = "x://r"
  text = "fixed"
}`)
	still := server.NewLive(fixed, nil, server.Options{})
	t.Cleanup(func() { _ = still.Close() })
	cs = connectLive(t, still, "2025-11-25", nil)
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || caps.Resources.Subscribe {
		t.Errorf("resources that never change: capability %+v, want no subscribe", caps.Resources)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "x://r"}); !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("subscribe to resources that never change: %v, want method not found", err)
	}
}

// TestListChangedOnListenStream: a 2026-07-28 client over stateless HTTP
// that asks for tools/list_changed (the SDK's client opens its
// subscriptions/listen stream when it connects) is told when a reload
// changes the tools.
func TestListChangedOnListenStream(t *testing.T) {
	live := server.NewLive(newConfig(t, 0, "one"), nil, server.Options{Watch: true, HTTP: true})
	t.Cleanup(func() { _ = live.Close() })
	ts := httptest.NewServer(live.HTTPHandler())
	t.Cleanup(ts.Close)
	changed := make(chan struct{}, 4)
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, opts).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	live.Swap(newConfig(t, 0, "one", "two"))
	select {
	case <-changed:
	case <-time.After(enginetest.Patience):
		t.Fatal("no notifications/tools/list_changed on the listen stream after a reload")
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) != 2 {
		t.Errorf("tools after the reload: %v %v", list, err)
	}
}
