package httpaction

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// flaky answers 503 (with Retry-After when given) until it has failed
// fails times, then 200.
func flaky(t *testing.T, fails int32, retryAfter string) (*recorder, *atomic.Int32) {
	var n atomic.Int32
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= fails {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("try again"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"attempt": %d}`, n.Load())
	})
	return rec, &n
}

func TestRetry(t *testing.T) {
	t.Run("succeeds on the third attempt", func(t *testing.T) {
		rec, n := flaky(t, 2, "")
		act := newFixture(t).action(api(rec.URL, `  retry {
    attempts  = 3
    on_status = [503]
    min_wait  = "1ms"
    max_wait  = "5ms"
  }`) + "http {\n  api = http_api.x\n  method = \"POST\"\n  path = \"/\"\n  body = { a = expr(\"args.a\") }\n}")
		ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
		defer cancel()
		resp, err := act.Run(ctx, map[string]any{"a": "x"})
		if err != nil {
			t.Fatal(err)
		}
		if n.Load() != 3 || resp.Failure != "" || resp.Vars["body"].(map[string]any)["attempt"] != 3 {
			t.Errorf("%d attempts, failure %q", n.Load(), resp.Failure)
		}
		// Every attempt carried the whole body.
		rec.mu.Lock()
		for i, b := range rec.body {
			if string(b) != `{"a":"x"}` {
				t.Errorf("attempt %d sent %q", i+1, b)
			}
		}
		rec.mu.Unlock()
	})
	t.Run("gives up", func(t *testing.T) {
		rec, n := flaky(t, 10, "")
		act := newFixture(t).action(api(rec.URL, `  retry {
    attempts = 2
    min_wait = "1ms"
    max_wait = "1ms"
  }`) + "http {\n  api = http_api.x\n  path = \"/\"\n}")
		resp, err := act.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if n.Load() != 2 || resp.Failure != "HTTP 503 Service Unavailable from GET "+rec.URL+"/: try again" {
			t.Errorf("%d attempts, failure %q", n.Load(), resp.Failure)
		}
	})
	t.Run("Retry-After capped by max_wait", func(t *testing.T) {
		rec, n := flaky(t, 2, "3600")
		act := newFixture(t).action(api(rec.URL, `  retry {
    min_wait = "1ms"
    max_wait = "20ms"
  }`) + "http {\n  api = http_api.x\n  path = \"/\"\n}")
		// Honouring an hour would blow this deadline.
		ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
		defer cancel()
		resp, err := act.Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n.Load() != 3 || resp.Vars["status"] != 200 {
			t.Errorf("%d attempts, status %v", n.Load(), resp.Vars["status"])
		}
	})
	t.Run("Retry-After is waited for", func(t *testing.T) {
		rec, _ := flaky(t, 1, "1")
		act := newFixture(t).action(api(rec.URL, `  retry {
    min_wait = "1ms"
    max_wait = "10s"
  }`) + "http {\n  api = http_api.x\n  path = \"/\"\n}")
		// A second is asked for: a call that must end within half of one
		// is cut short while it waits.
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, err := act.Run(ctx, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the deadline while waiting", err)
		}
	})
	t.Run("not without a retry block", func(t *testing.T) {
		rec, n := flaky(t, 1, "")
		resp, err := newFixture(t).run(api(rec.URL)+"http {\n  api = http_api.x\n  path = \"/\"\n}", nil)
		if err != nil || n.Load() != 1 || resp.Vars["status"] != 503 {
			t.Errorf("%d attempts: %v", n.Load(), err)
		}
	})
	t.Run("connection errors", func(t *testing.T) {
		// A port nothing listens on.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		act := newFixture(t).action(api("http://"+addr, `  retry {
    attempts = 3
    min_wait = "1ms"
    max_wait = "1ms"
  }`) + "http {\n  api = http_api.x\n  path = \"/p\"\n  query = { secret = \"hidden\" }\n}").(*action)
		var attempts atomic.Int32
		act.api.client.AddRetryHook(func(*resty.Response, error) { attempts.Add(1) })
		_, err = act.Run(context.Background(), nil)
		want := "GET http://" + addr + "/p failed: the connection was refused"
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "hidden") {
			t.Errorf("err = %v, want %s…", err, want)
		}
		// resty runs its retry hooks after every attempt that its
		// conditions retry, the last one included.
		if attempts.Load() != 3 {
			t.Errorf("%d attempts, want 3", attempts.Load())
		}
	})
}

func TestRetryableError(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	read := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset")}
	tests := []struct {
		method string
		err    error
		want   bool
	}{
		{"GET", read, true},
		{"PUT", read, true},
		{"DELETE", dial, true},
		{"POST", dial, true},
		{"POST", read, false},
		{"PATCH", errors.New("EOF"), false},
		{"GET", &originError{}, false},
		{"GET", &url.Error{Op: "Get", URL: "http://x/", Err: &redirectError{to: &url.URL{Scheme: "http", Host: "y"}, why: otherHost}}, false},
	}
	for _, tt := range tests {
		if got := retryableError(tt.method, tt.err); got != tt.want {
			t.Errorf("%s %v: %v, want %v", tt.method, tt.err, got, tt.want)
		}
	}
}

// slow answers after enginetest.Patience, or when the request is cancelled,
// which it reports on done.
func slow(t *testing.T) (*recorder, <-chan struct{}, <-chan struct{}) {
	started := make(chan struct{}, 10)
	done := make(chan struct{}, 10)
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			done <- struct{}{}
		case <-time.After(enginetest.Patience):
		}
	})
	return rec, started, done
}

func TestTimeout(t *testing.T) {
	rec, _, done := slow(t)
	act := newFixture(t).action(api(rec.URL, `  timeout = "10s"`) + `
http {
  api     = http_api.x
  path    = "/slow"
  timeout = "100ms"
}`)
	// The action's timeout, not the api's or this deadline, must end the call.
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
	defer cancel()
	_, err := act.Run(ctx, nil)
	if ctx.Err() != nil {
		t.Fatal("the call outlived its timeout")
	}
	want := "GET " + rec.URL + "/slow: no complete response within 100ms (timeout)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Error("the server never saw the request end")
	}

	// The api's timeout applies when the action gives none.
	act = newFixture(t).action(api(rec.URL, `  timeout = "50ms"`) + "http {\n  api = http_api.x\n  path = \"/slow\"\n}")
	if _, err := act.Run(ctx, nil); err == nil || !strings.Contains(err.Error(), "within 50ms") || ctx.Err() != nil {
		t.Errorf("api timeout: err = %v", err)
	}
}

func TestCancel(t *testing.T) {
	rec, started, done := slow(t)
	act := newFixture(t).action(api(rec.URL) + "http {\n  api = http_api.x\n  path = \"/slow\"\n}")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := act.Run(ctx, nil)
		errc <- err
	}()
	deadline := time.After(enginetest.Patience)
	select {
	case <-started:
	case <-deadline:
		t.Fatal("the request never arrived")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-deadline:
		t.Fatal("Run did not return after the cancellation")
	}
	select {
	case <-done:
	case <-deadline:
		t.Fatal("the server never saw the request cancelled")
	}
}

// TestRetryRefusedRedirect checks that a redirect the action may not follow
// is not retried: it would be refused every time.
func TestRetryRefusedRedirect(t *testing.T) {
	other := newRecorder(t, nil)
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	})
	act := newFixture(t).action(api(rec.URL, `  retry {
    attempts = 3
    min_wait = "1ms"
    max_wait = "1ms"
  }`) + "http {\n  api = http_api.x\n  path = \"/\"\n}")
	_, err := act.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "on another host") {
		t.Errorf("err = %v", err)
	}
	if rec.count() != 1 || other.count() != 0 {
		t.Errorf("the upstream received %d requests and the other host %d; want 1 and 0", rec.count(), other.count())
	}
}

func TestConnectionsAreReused(t *testing.T) {
	var dials atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	act := newFixture(t).action(api(srv.URL) + "http {\n  api = http_api.x\n  path = \"/\"\n}")
	const workers = 16
	round := func() {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range 20 {
					if _, err := act.Run(context.Background(), nil); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	// The first round opens a connection per caller, or a few more when
	// requests race for them; the second must find them all idle.
	round()
	first := dials.Load()
	round()
	if again := dials.Load() - first; again > 4 {
		t.Errorf("%d connections dialled again for a second round of %d concurrent callers (%d in the first): idle connections were closed", again, workers, first)
	}
}
