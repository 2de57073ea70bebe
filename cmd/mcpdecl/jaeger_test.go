package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// jaegerBinary is the Jaeger v2 of the test, named by $MCPDECL_TEST_JAEGER
// (.ci/run builds it and sets it): the test fails in CI without it, and is
// skipped elsewhere.
func jaegerBinary(t *testing.T) string {
	t.Helper()
	return testservice.FromEnv(t, "MCPDECL_TEST_JAEGER", "set it to a Jaeger v2 binary (go build github.com/jaegertracing/jaeger/cmd/jaeger@v1.76.0); .ci/run builds one")
}

// startJaeger starts Jaeger with an OTLP/HTTP receiver and its query API,
// spans kept in memory, on free ports. It returns the receiver's and the
// query API's addresses once the API answers.
func startJaeger(t *testing.T) (otlp, query string) {
	t.Helper()
	bin := jaegerBinary(t)
	otlp, query, queryGRPC := freeAddr(t), freeAddr(t), freeAddr(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "jaeger.yaml")
	write(t, config, fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memory
    http:
      endpoint: %s
    grpc:
      endpoint: %s
  jaeger_storage:
    backends:
      memory:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  jaeger_storage_exporter:
    trace_storage: memory
`, query, queryGRPC, otlp))
	cmd := exec.Command(bin, "--config=file:"+config)
	log, _ := os.Create(filepath.Join(dir, "jaeger.log"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(enginetest.Patience)
	for {
		resp, err := http.Get("http://" + query + "/api/services")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return otlp, query
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "jaeger.log"))
			t.Fatalf("Jaeger's query API does not answer after %s; its log:\n%s", enginetest.Patience, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// jaegerTrace is a trace as Jaeger's query API gives it.
type jaegerTrace struct {
	Spans []struct {
		SpanID        string `json:"spanID"`
		OperationName string `json:"operationName"`
		References    []struct {
			RefType string `json:"refType"`
			SpanID  string `json:"spanID"`
		} `json:"references"`
		Tags []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"tags"`
		ProcessID string `json:"processID"`
	} `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

// tracingUpstream serves /greet/{name} like e2eUpstream, and records the
// traceparent header of each request.
func tracingUpstream(t *testing.T) (string, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Traceparent"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"greeting": "hello, " + strings.TrimPrefix(r.URL.Path, "/greet/")})
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestJaegerReceivesTrace serves with traces sent over OTLP to a real
// Jaeger, calls a tool with a traceparent in _meta, and reads the trace
// back from Jaeger's query API as an operator would: the server's span of
// tools/call, child of the client's span, and the upstream request's span
// below it, whose context the upstream received. The spans are sent in
// each protocol OTLP/HTTP has: protobuf and JSON.
func TestJaegerReceivesTrace(t *testing.T) {
	otlp, query := startJaeger(t)
	for _, protocol := range []string{"http/protobuf", "http/json"} {
		t.Run(protocol, func(t *testing.T) { jaegerReceivesTrace(t, otlp, query, protocol) })
	}
}

func jaegerReceivesTrace(t *testing.T, otlp, query, protocol string) {
	up, seen := tracingUpstream(t)
	cmd := exec.Command(binary(t), "serve", writeConfig(t), "--var", "base_url="+up)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+otlp, "OTEL_EXPORTER_OTLP_PROTOCOL="+protocol,
		"OTEL_SERVICE_NAME=mcpdecl-e2e", "OTEL_BSP_SCHEDULE_DELAY=100")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "jaeger-test", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	traceID, parent := randomHex(t), randomHex(t)[:16]
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"},
		Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parent + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call greet: %v %v", err, res)
	}

	var tr jaegerTrace
	deadline := time.Now().Add(enginetest.Patience)
	for {
		if resp, err := http.Get("http://" + query + "/api/traces/" + traceID); err == nil {
			var out struct{ Data []jaegerTrace }
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if json.Unmarshal(body, &out) == nil && len(out.Data) == 1 && len(out.Data[0].Spans) >= 2 {
				tr = out.Data[0]
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger has no trace %s with two spans after %s", traceID, enginetest.Patience)
		}
		time.Sleep(250 * time.Millisecond)
	}
	byName := map[string]int{}
	for i, s := range tr.Spans {
		byName[s.OperationName] = i
	}
	si, ok := byName["tools/call greet"]
	ui, ok2 := byName["GET"]
	if !ok || !ok2 {
		t.Fatalf("want spans tools/call greet and GET, got %v", byName)
	}
	srv, upSpan := tr.Spans[si], tr.Spans[ui]
	if len(srv.References) != 1 || srv.References[0].RefType != "CHILD_OF" || srv.References[0].SpanID != parent {
		t.Errorf("the server span's references are %+v, want CHILD_OF the client's span %s", srv.References, parent)
	}
	if len(upSpan.References) != 1 || upSpan.References[0].SpanID != srv.SpanID {
		t.Errorf("the upstream span's references are %+v, want CHILD_OF the server span %s", upSpan.References, srv.SpanID)
	}
	if got := tr.Processes[srv.ProcessID].ServiceName; got != "mcpdecl-e2e" {
		t.Errorf("service name %q, want OTEL_SERVICE_NAME's mcpdecl-e2e", got)
	}
	tags := map[string]any{}
	for _, tag := range srv.Tags {
		tags[tag.Key] = tag.Value
	}
	if tags["mcp.method.name"] != "tools/call" || tags["gen_ai.tool.name"] != "greet" || tags["network.transport"] != "pipe" {
		t.Errorf("server span tags: %v", tags)
	}
	if got := seen(); len(got) != 1 || got[0] != "00-"+traceID+"-"+upSpan.SpanID+"-01" {
		t.Errorf("the upstream received traceparent %v, want the upstream span's context", got)
	}
}

// TestTracingEndpointDownOrSlow sends traces to an OTLP endpoint that
// refuses connections, and to one that accepts them and never answers:
// every call succeeds as without traces, and the spans that cannot be sent
// are counted in mcpdecl_trace_spans_dropped_total.
func TestTracingEndpointDownOrSlow(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	for _, tt := range []struct {
		name, endpoint, reason string
		env                    []string
	}{
		{"down", "http://" + freeAddr(t), "export_failed", []string{"OTEL_BSP_EXPORT_TIMEOUT=300", "OTEL_EXPORTER_OTLP_TIMEOUT=300"}},
		{"never answers", "http://" + silent.Addr().String(), "queue_full", []string{"OTEL_BSP_MAX_QUEUE_SIZE=4", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			up, _ := tracingUpstream(t)
			metricsAddr := freeAddr(t)
			cmd := exec.Command(binary(t), "serve", writeConfig(t), "--var", "base_url="+up, "--metrics-addr", metricsAddr)
			cmd.Env = append(append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+tt.endpoint, "OTEL_BSP_SCHEDULE_DELAY=50"), tt.env...)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "otlp-down", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for i := range 40 {
				ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": fmt.Sprint("n", i)}})
				cancel()
				if err != nil || res.IsError {
					t.Fatalf("call %d with the OTLP endpoint %s: %v %v", i, tt.name, err, res)
				}
			}
			want := `mcpdecl_trace_spans_dropped_total{reason="` + tt.reason + `"} `
			deadline := time.Now().Add(enginetest.Patience)
			for {
				resp, err := http.Get("http://" + metricsAddr + "/metrics")
				if err == nil {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					for _, line := range strings.Split(string(body), "\n") {
						if strings.HasPrefix(line, want) && strings.TrimPrefix(line, want) != "0" {
							return
						}
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("no spans counted as dropped (%s) after %s", tt.reason, enginetest.Patience)
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}
