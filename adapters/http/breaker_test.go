package httpaction_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCircuitBreaker checks an http_api's circuit_breaker against an
// upstream that fails: after the declared run of 5xx answers, calls fail at
// once without reaching it, saying when the next try is; once open_for has
// passed one probe call is let through, and a probe that succeeds closes
// the breaker. Answers of 4xx are the caller's problem and never open it.
func TestCircuitBreaker(t *testing.T) {
	var status atomic.Int32
	var hits atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(status.Load()))
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	t.Cleanup(upstream.Close)

	src := `
http_api "inventory" {
  base_url = "` + upstream.URL + `"
  circuit_breaker {
    failures = 3
    open_for = "1s"
  }
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.inventory
    path = "/"
  }
}
`
	cfg, diags := loadSource(t, src, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tool, _ := cfg.Tool("get")
	call := func() string {
		res := tool.Call(context.Background(), nil)
		if !res.IsError {
			return "ok"
		}
		return res.Text()
	}

	for i := range 3 {
		if got := call(); !strings.Contains(got, "503") {
			t.Fatalf("call %d: %q, want the upstream's 503", i+1, got)
		}
	}
	open := "upstream inventory is failing (3 calls in a row failed); next try in 1s"
	if got := call(); got != open {
		t.Fatalf("after 3 failures: %q\nwant %q", got, open)
	}
	if hits.Load() != 3 {
		t.Errorf("the upstream was reached %d times; want 3 (not while the breaker is open)", hits.Load())
	}

	// A probe that fails opens it again.
	time.Sleep(1100 * time.Millisecond)
	if got := call(); !strings.Contains(got, "503") {
		t.Fatalf("the probe: %q, want the upstream's 503", got)
	}
	if got := call(); got != open {
		t.Fatalf("after a failed probe: %q\nwant %q", got, open)
	}

	// A probe that succeeds closes it.
	status.Store(http.StatusOK)
	time.Sleep(1100 * time.Millisecond)
	for i := range 3 {
		if got := call(); got != "ok" {
			t.Fatalf("call %d after the upstream came back: %q", i+1, got)
		}
	}

	// 4xx answers are not the upstream failing.
	status.Store(http.StatusNotFound)
	for range 5 {
		if got := call(); !strings.Contains(got, "404") {
			t.Fatalf("got %q, want the upstream's 404", got)
		}
	}
}

// TestCircuitBreakerConfig checks the load errors of a circuit_breaker.
func TestCircuitBreakerConfig(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`failures = 0`, "Invalid failures; failures is how many calls in a row the upstream must fail"},
		{`open_for = "10ms"`, `Invalid open_for; open_for is how long calls fail at once before a probe call is let through: from 1s to 1h0m0s, not 10ms.`},
		{`threshold = 3`, `Unsupported argument; An argument named "threshold" is not expected here.`},
	} {
		t.Run(tc.body, func(t *testing.T) {
			src := "http_api \"a\" {\n  base_url = \"https://a.example.com\"\n  circuit_breaker {\n    " + tc.body + "\n  }\n}\n"
			_, diags := loadSource(t, src, nil)
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
				t.Errorf("errors: %v\nwant one containing %q", diags, tc.want)
			}
		})
	}
}
