package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
)

// scrape reads the series as Prometheus would, with token as its bearer
// token when not empty, and returns the status and the body.
func scrape(t *testing.T, h http.Handler, token string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, Path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// TestSeries checks the series a scrape reads after calls of each outcome
// and reloads, and that a token, when given, is required.
func TestSeries(t *testing.T) {
	m := New()
	m.Started("get_weather").Done(engine.OutcomeOK, time.Millisecond)
	m.Started("get_weather").Done(engine.OutcomeOK, time.Millisecond)
	m.Started("get_weather").Done(engine.OutcomeRateLimited, time.Millisecond)
	running := m.Started("slow") // still in flight
	m.Reloaded(true)
	m.Reloaded(false)
	code, body := scrape(t, m.Handler(""), "")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{
		`mcpdecl_tool_calls_total{outcome="ok",tool="get_weather"} 2`,
		`mcpdecl_tool_calls_total{outcome="rate_limited",tool="get_weather"} 1`,
		`mcpdecl_tool_call_duration_seconds_count{tool="get_weather"} 3`,
		`mcpdecl_tool_calls_in_flight 1`,
		`mcpdecl_config_reloads_total{outcome="ok"} 1`,
		`mcpdecl_config_reloads_total{outcome="error"} 1`,
		`mcpdecl_config_generation 2`,
		`go_goroutines `,
		`process_cpu_seconds_total `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %q", want)
		}
	}
	running.Done(engine.OutcomeTimeout, time.Second)
	if _, body := scrape(t, m.Handler(""), ""); !strings.Contains(body, `mcpdecl_tool_calls_in_flight 0`) || !strings.Contains(body, `mcpdecl_tool_calls_total{outcome="timeout",tool="slow"} 1`) {
		t.Error("a call that ended is still in flight, or not counted")
	}

	h := m.Handler("metrics-token-0123")
	if code, _ := scrape(t, h, ""); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", code)
	}
	if code, _ := scrape(t, h, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("with a wrong token: %d, want 401", code)
	}
	if code, body := scrape(t, h, "metrics-token-0123"); code != http.StatusOK || !strings.Contains(body, "mcpdecl_tool_calls_total") {
		t.Errorf("with the token: %d", code)
	}
	var none *Metrics
	none.Started("x").Done(engine.OutcomeOK, time.Millisecond) // a nil Metrics records nothing, and does not fail
	none.Reloaded(true)
}
