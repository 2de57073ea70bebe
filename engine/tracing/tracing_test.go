package tracing

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/testwait"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otelVars are the variables the tests set, cleared by each.
var otelVars = []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
	"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
	"OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_TRACES_INSECURE",
}

func setEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, name := range otelVars {
		t.Setenv(name, env[name])
	}
}

// TestFromEnv checks which environments ask for traces, where they go, and
// which settings are refused with an error that names the variable (and
// never shows a header's value).
func TestFromEnv(t *testing.T) {
	const on = "http://127.0.0.1:1"
	tests := []struct {
		name string
		env  map[string]string
		url  string // where spans go; "" when tracing is off
		err  string // in the error; "" for none
	}{
		{"nothing set", nil, "", ""},
		{"an endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, "http://collector:4318/v1/traces", ""},
		{"an endpoint with a path", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example/prefix/"}, "https://otel.example/prefix/v1/traces", ""},
		{"a traces endpoint, as it is", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://ignored:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://otel.example/custom"}, "https://otel.example/custom", ""},
		{"credentials not shown", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://user:pw@otel.example?token=abc"}, "https://otel.example/v1/traces", ""},
		{"insecure", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318", "OTEL_EXPORTER_OTLP_INSECURE": "true"}, "http://collector:4318/v1/traces", ""},
		{"the exporter named", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, "http://localhost:4318/v1/traces", ""},
		{"exporter none", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": on}, "", ""},
		{"SDK disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": on}, "", ""},
		{"http/protobuf", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, on + "/v1/traces", ""},
		{"http/json", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, on + "/v1/traces", ""},
		{"ratio", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"}, on + "/v1/traces", ""},

		{"another exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "", `OTEL_TRACES_EXPORTER="zipkin"`},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "", `OTEL_EXPORTER_OTLP_PROTOCOL="grpc"`},
		{"unknown sampler", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_TRACES_SAMPLER": "sometimes"}, "", `OTEL_TRACES_SAMPLER="sometimes"`},
		{"ratio out of range", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, "", `OTEL_TRACES_SAMPLER_ARG="2"`},
		{"queue size", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_BSP_MAX_QUEUE_SIZE": "-3"}, "", `OTEL_BSP_MAX_QUEUE_SIZE="-3"`},
		{"delay", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_BSP_SCHEDULE_DELAY": "5s"}, "", "milliseconds"},
		{"not a URL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, "", "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{"grpc scheme", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://collector:4317"}, "", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{"insecure not a bool", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_INSECURE": "yes please"}, "", "OTEL_EXPORTER_OTLP_INSECURE"},
		{"bad headers", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_HEADERS": "api-key secret123"}, "", "OTEL_EXPORTER_OTLP_HEADERS"},
		{"bad traces headers", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=secret123%zz"}, "", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},
		{"compression", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, "", "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{"timeout", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": on, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "10s"}, "", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setEnv(t, tt.env)
			tr, err := FromEnv(Options{Version: "test"})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want one naming %s", err, tt.err)
				}
				if strings.Contains(err.Error(), "secret123") {
					t.Errorf("the error shows a header's value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tr == nil {
				if tt.url != "" {
					t.Fatalf("tracing is off, want it sending to %s", tt.url)
				}
				return
			}
			defer func() { _ = tr.Shutdown(context.Background()) }()
			if tr.Endpoint() != tt.url {
				t.Errorf("traces go to %q, want %q", tr.Endpoint(), tt.url)
			}
		})
	}
}

// TestSpansReachTheEndpoint serves an OTLP/HTTP receiver and sends a span
// to it as a user configures it: the headers, gzip, the service name.
func TestSpansReachTheEndpoint(t *testing.T) {
	var mu sync.Mutex
	var got []*coltracepb.ExportTraceServiceRequest
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Api-Key") != "a b,c" || r.Header.Get("Tenant") != "7" {
			http.Error(w, "unexpected request "+r.URL.Path+" "+r.Header.Get("Content-Type"), http.StatusBadRequest)
			return
		}
		body := io.Reader(r.Body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, &req)
		mu.Unlock()
	}))
	defer receiver.Close()
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.URL, "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b%2Cc, tenant=7",
		"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip", "OTEL_SERVICE_NAME": "tools"})
	tr, err := FromEnv(Options{Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tr.Shutdown(context.Background()) }()
	_, span := tr.Provider().Tracer("test").Start(context.Background(), "tools/call greet")
	span.End()
	if err := tr.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || len(got[0].ResourceSpans) != 1 {
		t.Fatalf("the receiver got %d requests, want one with the span", len(got))
	}
	rs := got[0].ResourceSpans[0]
	attrs := map[string]string{}
	for _, kv := range rs.Resource.Attributes {
		attrs[kv.Key] = kv.Value.GetStringValue()
	}
	if attrs["service.name"] != "tools" || attrs["service.version"] != "1.2.3" {
		t.Errorf("resource %v, want service.name tools (OTEL_SERVICE_NAME) and service.version 1.2.3", attrs)
	}
	if len(rs.ScopeSpans) != 1 || len(rs.ScopeSpans[0].Spans) != 1 || rs.ScopeSpans[0].Spans[0].Name != "tools/call greet" {
		t.Errorf("spans %v, want tools/call greet", rs.ScopeSpans)
	}
	if full, failed := tr.Dropped(); full+failed != 0 {
		t.Errorf("dropped %d+%d spans, want none", full, failed)
	}
}

// stuckExporter never finishes an export until its context ends, like an
// OTLP endpoint that accepts the connection and never answers.
type stuckExporter struct{ calls atomic.Int64 }

func (e *stuckExporter) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	e.calls.Add(1)
	<-ctx.Done()
	return ctx.Err()
}

func (e *stuckExporter) Shutdown(context.Context) error { return nil }

// failingExporter refuses every batch, like an endpoint that is down.
type failingExporter struct{}

func (failingExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	return errors.New("connection refused")
}
func (failingExporter) Shutdown(context.Context) error { return nil }

// endSpans ends n sampled spans.
func endSpans(tr *Tracing, n int) {
	tracer := tr.Provider().Tracer("test")
	for range n {
		_, s := tracer.Start(context.Background(), "call")
		s.End()
	}
}

// TestNeverWaitsForAStuckEndpoint ends many more spans than the queue
// holds while the exporter is stuck: every span ends at once (none waits
// for the exporter), and those that did not fit are counted as dropped.
func TestNeverWaitsForAStuckEndpoint(t *testing.T) {
	setEnv(t, map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "16", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4", "OTEL_BSP_SCHEDULE_DELAY": "1", "OTEL_BSP_EXPORT_TIMEOUT": "3600000"})
	exp := &stuckExporter{}
	tr, err := FromEnv(Options{Exporter: exp})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		endSpans(tr, 10_000)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testwait.Patience):
		t.Fatal("ending spans waited on a stuck exporter")
	}
	full, failed := tr.Dropped()
	// At most the queue's 16 spans were let in.
	if full < 10_000-16 {
		t.Errorf("dropped %d spans for a full queue, want at least %d", full, 10_000-16)
	}
	if failed != 0 {
		t.Errorf("counted %d failed, want 0 while the export is still under way", failed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := tr.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a stuck exporter: %v, want the deadline of its context", err)
	}
}

// TestCountsFailedExports has every export fail: the spans of each batch
// are counted as failed, and the failure is logged.
func TestCountsFailedExports(t *testing.T) {
	setEnv(t, map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "100", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "10", "OTEL_BSP_SCHEDULE_DELAY": "1"})
	var log strings.Builder
	var logMu sync.Mutex
	tr, err := FromEnv(Options{Exporter: failingExporter{}, Logger: slogTo(&log, &logMu)})
	if err != nil {
		t.Fatal(err)
	}
	endSpans(tr, 25)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if full, failed := tr.Dropped(); failed != 25 || full != 0 {
		t.Errorf("counted %d spans whose export failed and %d for a full queue, want 25 and 0", failed, full)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(log.String(), "traces could not be exported") || !strings.Contains(log.String(), "connection refused") {
		t.Errorf("the failed exports were not logged: %q", log.String())
	}
}

// slogTo is a logger that writes to w, under mu.
func slogTo(w io.Writer, mu *sync.Mutex) *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{w, mu}, nil))
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestUnreadableCertificateLogged sets a certificate file that does not
// exist: the exporter, which reads it, says so in the server's log.
func TestUnreadableCertificateLogged(t *testing.T) {
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://127.0.0.1:1"})
	t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem")
	var log strings.Builder
	var logMu sync.Mutex
	tr, err := FromEnv(Options{Logger: slogTo(&log, &logMu)})
	if err != nil {
		t.Fatal(err)
	}
	_ = tr.Shutdown(context.Background())
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(log.String(), "/nonexistent/ca.pem") || !strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the log does not say the certificate could not be read: %q", log.String())
	}
}
