package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/adapters/exec"
	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// progressTools report their progress: a program's lines "n of m" (with a
// secret in one), a program's percentages written as fast as it can, an
// upstream's pages, and a slow upstream that reports nothing itself.
// %[1]s is the upstream's URL.
const progressTools = `
server {
  progress_heartbeat = "20ms"
}

variable "token" {
  default   = "tok-5a4b3c"
  sensitive = true
}

tool "steps" {
  description = "Three steps, one by one."
  exec {
    command  = ["sh", "-c", "echo '1 of 3 with '$T >&2; sleep 0.3; echo 'noise'; echo '2 of 3' >&2; sleep 0.3; echo '3 of 3'; echo done"]
    env      = { T = var.token }
    progress = "(\\d+) of (\\d+)"
  }
}

tool "fast" {
  description = "A hundred percentages at once."
  exec {
    command  = ["sh", "-c", "i=1; while [ $i -le 100 ]; do echo \"$i%%\"; i=$((i+1)); done"]
    progress = "(\\d+)%%"
  }
}

tool "pages" {
  description = "Three pages."
  http {
    url = "%[1]s/pages"
    paginate {
      items     = expr("body.data")
      next      = expr("body.next == nil ? nil : {page: body.next}")
      max_pages = 3
    }
  }
}

tool "three" {
  description = "Three steps, each an upstream's page."
  step "first" {
    http { url = "%[1]s/pages" }
  }
  step "second" {
    http {
      url   = "%[1]s/pages"
      query = { page = expr("steps.first.body.next") }
    }
  }
  step "third" {
    http {
      url   = "%[1]s/pages"
      query = { page = expr("steps.second.body.next") }
    }
  }
}

tool "slow" {
  description = "Waits for its upstream."
  http {
    url = "%[1]s/slow"
  }
}
`

// progressClient collects the progress notifications a session receives.
type progressClient struct {
	mu     sync.Mutex
	got    []mcp.ProgressNotificationParams
	second chan struct{} // closed when the second comes
}

func newProgressClient() *progressClient {
	return &progressClient{second: make(chan struct{})}
}

func (c *progressClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.got = append(c.got, *req.Params)
		if len(c.got) == 2 {
			close(c.second)
		}
	}}
}

// await returns the notifications once the last has a progress of last,
// or after enginetest.Patience with those there are: the client handles
// notifications apart from the results.
func (c *progressClient) await(last float64) []mcp.ProgressNotificationParams {
	deadline := time.Now().Add(enginetest.Patience)
	for {
		c.mu.Lock()
		got := slices.Clone(c.got)
		c.mu.Unlock()
		if len(got) > 0 && got[len(got)-1].Progress == last || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *progressClient) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = nil
	c.second = make(chan struct{})
}

// notes writes notifications as "token progress/total message".
func notes(ps []mcp.ProgressNotificationParams) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%v %v/%v %s", p.ProgressToken, p.Progress, p.Total, p.Message)
	}
	return out
}

// progressServer serves progressTools with an upstream whose /slow
// answers once the client has received two notifications.
func progressServer(t *testing.T, opts server.Options, pc *progressClient) *server.Live {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/pages":
			p, _ := strconv.Atoi(r.URL.Query().Get("page"))
			p = max(p, 1)
			next := any(p + 1)
			if p == 3 {
				next = nil
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"data": []int{p}, "next": next})
		case "/slow":
			pc.mu.Lock()
			second := pc.second
			pc.mu.Unlock()
			select {
			case <-second:
			case <-time.After(enginetest.Patience):
			}
			fmt.Fprint(w, `{"ok": true}`)
		}
	}))
	t.Cleanup(up.Close)
	return newLive(t, loadTools(t, fmt.Sprintf(progressTools, up.URL), httpaction.New(), execaction.New()), opts)
}

// TestProgress: a call that carries a progress token is sent
// notifications/progress with that token: the lines of a program that
// match its progress pattern (redacted), at most one per
// MinProgressInterval but always the last; an upstream's pages out of
// max_pages; a multi-step tool's steps, one notification as each starts;
// and, for a slow upstream, a heartbeat whose progress is the
// seconds the call has run (over stdio). A call without a token is sent
// none. Over stdio, and over stateless HTTP on both revisions.
func TestProgress(t *testing.T) {
	for _, transport := range []string{"stdio", "http 2025-11-25", "http 2026-07-28"} {
		t.Run(transport, func(t *testing.T) {
			pc := newProgressClient()
			live := progressServer(t, server.Options{HTTP: transport != "stdio"}, pc)
			var tr mcp.Transport
			version := ""
			if transport == "stdio" {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := live.Server().Connect(context.Background(), st, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = ss.Close() })
				tr = ct
			} else {
				ts := httptest.NewServer(live.HTTPHandler())
				t.Cleanup(ts.Close)
				tr = &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}
				version = strings.TrimPrefix(transport, "http ")
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, pc.options()).Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			call := func(name string, token any) {
				t.Helper()
				params := &mcp.CallToolParams{Name: name}
				if token != nil {
					params.SetProgressToken(token)
				}
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %v", name, err, res)
				}
			}

			call("steps", nil)
			call("fast", nil)
			call("three", nil)
			time.Sleep(50 * time.Millisecond) // time for a stray notification to arrive
			pc.mu.Lock()
			if len(pc.got) > 0 {
				t.Errorf("calls without a progress token were sent %v", notes(pc.got))
			}
			pc.mu.Unlock()

			call("steps", "tok-steps")
			got := pc.await(3)
			want := []string{"tok-steps 1/3 1 of 3 with " + text.Mask, "tok-steps 2/3 2 of 3", "tok-steps 3/3 3 of 3"}
			if got := notes(got); !slices.Equal(got, want) {
				t.Errorf("steps: got %+v, want %+v", got, want)
			}

			pc.reset()
			call("fast", 7)
			got = pc.await(100)
			if len(got) == 0 || len(got) >= 100 || got[len(got)-1].Progress != 100 || got[len(got)-1].Total != 100 {
				t.Errorf("fast: %d notifications, want fewer than 100 ending at 100 of 100: %+v", len(got), got)
			}
			for i := range got {
				if got[i].ProgressToken != float64(7) || i > 0 && got[i].Progress <= got[i-1].Progress {
					t.Errorf("fast: notification %d is %+v after %+v: want the token 7 and increasing values", i, got[i], got[max(i-1, 0)])
				}
			}

			pc.reset()
			call("pages", "tok-pages")
			got = pc.await(3)
			if len(got) < 2 || got[0].Progress != 1 || got[len(got)-1].Progress != 3 || got[0].Total != 3 || got[0].Message != "page 1 read, 1 items so far" {
				t.Errorf("pages: got %+v, want page 1 of 3 first and page 3 of 3 last", got)
			}

			// A multi-step tool: a notification as each step starts,
			// however soon after the one before.
			pc.reset()
			call("three", "tok-three")
			got = pc.await(2)
			want = []string{"tok-three 0/3 step first", "tok-three 1/3 step second", "tok-three 2/3 step third"}
			if got := notes(got); !slices.Equal(got, want) {
				t.Errorf("three: got %+v, want %+v", got, want)
			}

			if transport != "stdio" {
				// Over HTTP, a call is answered as a stream only when its
				// tool may log or report progress of its own: finding a
				// progress token in every call's body would cost every
				// call. A plain JSON answer carries no heartbeat.
				return
			}
			pc.reset()
			call("slow", "tok-slow")
			pc.mu.Lock()
			got = slices.Clone(pc.got)
			pc.mu.Unlock()
			if len(got) < 2 {
				t.Fatalf("slow: %d heartbeats before the result, want 2", len(got))
			}
			for i, n := range got {
				if n.ProgressToken != "tok-slow" || n.Total != 0 || !strings.HasPrefix(n.Message, "still running after ") || i > 0 && n.Progress <= got[i-1].Progress {
					t.Errorf("slow: heartbeat %d is %+v", i, n)
				}
			}
		})
	}
}
