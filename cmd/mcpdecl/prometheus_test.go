package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// prometheusBinary is the Prometheus server of the test, named by
// $MCPDECL_TEST_PROMETHEUS (.ci/run installs Debian's and sets it): the
// test fails in CI without it, and is skipped elsewhere.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	return testservice.FromEnv(t, "MCPDECL_TEST_PROMETHEUS", "set it to a prometheus binary (apt-get install prometheus: /usr/bin/prometheus); .ci/run does")
}

// freeAddr is a loopback address nothing listens on, for a server started
// by the test.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestPrometheusScrapesServe has a real Prometheus scrape a running
// mcpdecl serve, and reads the series back from Prometheus's HTTP API, as
// an operator's dashboard would: the calls, by tool and outcome.
func TestPrometheusScrapesServe(t *testing.T) {
	prom := prometheusBinary(t)
	up, _ := e2eUpstream(t)
	metricsAddr, promAddr := freeAddr(t), freeAddr(t)
	const token = "metrics-token-0123456789"
	cmd := exec.Command(binary(t), "serve", writeConfig(t), "--var", "base_url="+up, "--metrics-addr", metricsAddr)
	cmd.Env = append(os.Environ(), "MCPDECL_METRICS_TOKEN="+token)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "prometheus-test", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, name := range []string{"Bo", "Al", "Cy", ""} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": name}}); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: mcpdecl
    authorization:
      credentials: %s
    static_configs:
      - targets: ["%s"]
`, token, metricsAddr)), 0o600); err != nil {
		t.Fatal(err)
	}
	server := exec.Command(prom, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	log, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	server.Stdout, server.Stderr = log, log
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })

	query := func(q string) (string, bool) {
		resp, err := http.Get("http://" + promAddr + "/api/v1/query?" + url.Values{"query": {q}}.Encode())
		if err != nil {
			return "", false
		}
		defer resp.Body.Close()
		var out struct {
			Data struct {
				Result []struct {
					Value []any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&out) != nil || len(out.Data.Result) != 1 || len(out.Data.Result[0].Value) != 2 {
			return "", false
		}
		v, _ := out.Data.Result[0].Value[1].(string)
		return v, true
	}
	deadline := time.Now().Add(enginetest.Patience)
	for {
		ok, _ := query(`mcpdecl_tool_calls_total{job="mcpdecl",tool="greet",outcome="ok"}`)
		invalid, _ := query(`mcpdecl_tool_calls_total{job="mcpdecl",tool="greet",outcome="invalid_arguments"}`)
		if ok == "3" && invalid == "1" {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("Prometheus has ok=%q invalid_arguments=%q after %s, want 3 and 1; its log:\n%s", ok, invalid, enginetest.Patience, b)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
