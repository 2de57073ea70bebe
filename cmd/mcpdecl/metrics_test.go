package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scrapeMetrics reads url with token as its bearer token (when not empty),
// as Prometheus would, and returns the status and body.
func scrapeMetrics(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeMetrics runs serve --http --metrics with MCPDECL_METRICS_TOKEN
// set, as an operator would: /metrics answers only with the token, and
// counts the calls by tool and outcome.
func TestServeMetrics(t *testing.T) {
	url, _ := e2eUpstream(t)
	const token = "metrics-token-0123456789"
	endpoint, _, _ := startHTTPEnv(t, []string{"MCPDECL_METRICS_TOKEN=" + token}, writeConfig(t), "--var", "base_url="+url, "--metrics")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "metrics-test", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, args := range []map[string]any{{"name": "Bo"}, {"name": "Al"}, {"name": ""}} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	metricsURL := strings.TrimSuffix(endpoint, "/mcp") + "/metrics"
	if code, _ := scrapeMetrics(t, metricsURL, ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401", code)
	}
	code, body := scrapeMetrics(t, metricsURL, token)
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`mcpdecl_tool_calls_total{outcome="ok",tool="greet"} 2`,
		`mcpdecl_tool_calls_total{outcome="invalid_arguments",tool="greet"} 1`,
		`mcpdecl_config_generation 1`,
		`mcpdecl_upstream_duration_seconds_count{class="2xx",kind="http",upstream="up"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestServeMetricsAddr runs serve over stdio with --metrics-addr: the
// metrics have a listener of their own.
func TestServeMetricsAddr(t *testing.T) {
	url, _ := e2eUpstream(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(binary(t), "serve", writeConfig(t), "--var", "base_url="+url, "--metrics-addr", addr)
	cmd.Env = os.Environ()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "metrics-test", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Bo"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(enginetest.Patience)
	for {
		code, body := scrapeMetrics(t, "http://"+addr+"/metrics", "")
		if code == http.StatusOK && strings.Contains(body, `mcpdecl_tool_calls_total{outcome="ok",tool="greet"} 1`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics at %s: %d\n%s", addr, code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
