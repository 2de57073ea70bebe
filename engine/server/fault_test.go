package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// faultModes are what the upstream does, by the share of calls in a
// thousand that ask for it.
var faultModes = []struct {
	mode   string
	perMil int
	want   string // the start of the tool error, "" for a success
}{
	{"ok", 700, ""},
	{"fail", 100, "HTTP 500"},
	{"garbage", 80, "GET "},
	{"huge", 100, "GET "},
	{"slow", 20, "the call timed out after 2s"}, // the tool "stall"
}

// faultUpstream fails, stalls, answers garbage or bodies far beyond the
// limit, as asked.
func faultUpstream(t *testing.T) *httptest.Server {
	huge := strings.Repeat("x", 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, "/") {
		case "ok":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"a": 1, "b": [true, null], "c": "x"}`)
		case "fail":
			http.Error(w, "upstream exploded", http.StatusInternalServerError)
		case "garbage":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"a": 1, "b": [tru`)
		case "huge":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, huge)
		case "slow":
			// Never answered: the call ends by its timeout alone.
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFaultsUnderLoad sends many concurrent calls through the whole server
// (streamable HTTP, the engine, the HTTP action) while the upstream fails,
// stalls, answers garbage and huge bodies. Every call must be answered as
// its mode says; nothing may crash or leak goroutines, and the heap must
// come back to its size before the load.
//
// Only the stalled calls are bounded by time, and their upstream never
// answers: on a busy machine a call that had to be answered (an error for a
// huge body, say) may take long, but it must not end as a timeout.
//
// MCPDECL_FAULT_CALLS sets the number of calls (default 20,000; 2,000 with
// -short or -race, under which each call costs many times more and the
// concurrency is what the race detector needs); the concurrency is 64.
func TestFaultsUnderLoad(t *testing.T) {
	calls := 20000
	if testing.Short() || raceDetector {
		calls = 2000
	}
	if s := os.Getenv("MCPDECL_FAULT_CALLS"); s != "" {
		calls, _ = strconv.Atoi(s)
	}
	const concurrency = 64
	// Known long-lived goroutines of the process, before the test starts.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	up := faultUpstream(t)
	dir := t.TempDir()
	src := fmt.Sprintf(`
http_api "up" {
  base_url           = %q
  max_response_bytes = 65536
}
tool "get" {
  description = "Asks the upstream to behave as mode says."
  # Long enough for any answered call on a busy machine.
  timeout = "5m"
  # Every caller at once: a slot held by a stalled call must not make
  # the others wait.
  max_concurrency = 64
  arg "mode" { type = string }
  http {
    api         = http_api.up
    path        = "/{mode}"
    path_params = { mode = expr("args.mode") }
  }
  output "a" {
    type  = integer
    value = expr("body.a")
  }
}
tool "stall" {
  description = "Calls an upstream that never answers."
  timeout     = "2s"
  max_concurrency = 64
  arg "mode" { type = string }
  http {
    api         = http_api.up
    path        = "/{mode}"
    path_params = { mode = expr("args.mode") }
  }
}
`, up.URL)
	path := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(httpaction.New())}, path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	live := server.NewLive(cfg, nil, server.Options{})
	front := httptest.NewServer(live.HTTPHandler())
	transport := &http.Transport{MaxIdleConnsPerHost: concurrency}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fault", Version: "0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: front.URL + server.Path, HTTPClient: &http.Client{Transport: transport}}, nil)
	if err != nil {
		t.Fatal(err)
	}

	run := func(n int) (failures []string) {
		var next atomic.Int64
		var mu sync.Mutex
		fail := func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			if len(failures) < 10 {
				failures = append(failures, fmt.Sprintf(format, args...))
			}
		}
		var wg sync.WaitGroup
		for range concurrency {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= n {
						return
					}
					m := faultModes[0]
					for slot, k := i%1000, 0; k < len(faultModes); k++ {
						if slot < faultModes[k].perMil {
							m = faultModes[k]
							break
						}
						slot -= faultModes[k].perMil
					}
					name := "get"
					if m.mode == "slow" {
						name = "stall"
					}
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"mode": m.mode}})
					switch {
					case err != nil:
						fail("call %d (%s): protocol error %v", i, m.mode, err)
					case m.want == "" && (res.IsError || fmt.Sprint(res.StructuredContent) != "map[a:1]"):
						fail("call %d (%s): %+v", i, m.mode, res)
					case m.want != "" && (!res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, m.want)):
						fail("call %d (%s): want an error starting %q, got %+v", i, m.mode, m.want, res.Content[0])
					}
				}
			})
		}
		wg.Wait()
		return failures
	}

	run(500) // warm up: pools, caches
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	start := time.Now()
	if failures := run(calls); len(failures) > 0 {
		t.Errorf("%d calls, failures:\n%s", calls, strings.Join(failures, "\n"))
	}
	elapsed := time.Since(start)
	after := heap()
	t.Logf("%d calls at concurrency %d in %s (%.0f calls/s); heap %d KiB before, %d KiB after", calls, concurrency, elapsed.Round(time.Millisecond), float64(calls)/elapsed.Seconds(), before>>10, after>>10)
	if after > before+8<<20 {
		t.Errorf("the heap grew from %d KiB to %d KiB under load and stayed there", before>>10, after>>10)
	}

	_ = cs.Close()
	front.Close()
	transport.CloseIdleConnections()
	_ = live.Close()
	up.CloseClientConnections()
	up.Close()
}
