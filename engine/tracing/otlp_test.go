package tracing

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpVars are the variables otlpFromEnv reads, cleared by each test.
var otlpVars = []string{
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
	"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
	"OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_TRACES_INSECURE",
	"OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_CLIENT_KEY", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY",
}

func setOTLPEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, name := range otlpVars {
		t.Setenv(name, env[name])
	}
}

// TestOTLPFromEnv checks where spans are sent, as the specification
// resolves the endpoint variables, and which settings are refused with an
// error that names the variable (and never shows a header's value).
func TestOTLPFromEnv(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		url  string // where spans go; "" when refused
		err  string // in the error
	}{
		{"default", nil, "http://localhost:4318/v1/traces", ""},
		{"base", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, "http://collector:4318/v1/traces", ""},
		{"base with a path", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example/prefix/"}, "https://otel.example/prefix/v1/traces", ""},
		{"traces endpoint as is", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://ignored:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://otel.example/custom"}, "https://otel.example/custom", ""},
		{"traces endpoint without a path", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318"}, "http://collector:4318/", ""},
		{"credentials dropped", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://user:pw@otel.example?token=abc"}, "https://otel.example/v1/traces", ""},
		{"insecure", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318", "OTEL_EXPORTER_OTLP_INSECURE": "true"}, "http://collector:4318/v1/traces", ""},
		{"not a URL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, "", "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{"grpc scheme", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://collector:4317"}, "", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{"insecure not a bool", map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "yes please"}, "", "OTEL_EXPORTER_OTLP_INSECURE"},
		{"bad headers", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key secret123"}, "", "OTEL_EXPORTER_OTLP_HEADERS"},
		{"bad traces headers", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=%zz"}, "", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},
		{"compression", map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, "", "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{"timeout", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "10s"}, "", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"},
		{"certificate missing", map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": filepath.Join(dir, "none.pem")}, "", "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{"certificate not PEM", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": notPEM}, "", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"},
		{"client certificate without key", map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": notPEM}, "", "OTEL_EXPORTER_OTLP_CLIENT_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setOTLPEnv(t, tt.env)
			e, err := otlpFromEnv()
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
			if e.url != tt.url {
				t.Errorf("url = %q, want %q", e.url, tt.url)
			}
		})
	}
}

// TestOTLPExport sends spans to a receiver the way a user configures it:
// headers, gzip, a receiver that asks to retry later, one that keeps some
// spans, one that refuses.
func TestOTLPExport(t *testing.T) {
	spans := testSpans(t)
	var attempts atomic.Int32
	var answer func(w http.ResponseWriter, attempt int32)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := attempts.Add(1)
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
		if err := proto.Unmarshal(b, &req); err != nil || len(req.ResourceSpans) != 2 {
			http.Error(w, "not the spans sent", http.StatusBadRequest)
			return
		}
		answer(w, n)
	}))
	defer receiver.Close()
	partial, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "too old"}})
	tests := []struct {
		name     string
		gzip     bool
		answer   func(w http.ResponseWriter, attempt int32)
		attempts int32
		err      string // in the error; "" for none
	}{
		{"accepted", false, func(w http.ResponseWriter, _ int32) {}, 1, ""},
		{"gzip", true, func(w http.ResponseWriter, _ int32) {}, 1, ""},
		{"retried after 503", false, func(w http.ResponseWriter, n int32) {
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		}, 2, ""},
		{"partly rejected", false, func(w http.ResponseWriter, _ int32) {
			w.Header().Set("Content-Type", "application/x-protobuf")
			_, _ = w.Write(partial)
		}, 1, "rejected 2 span(s): too old"},
		{"refused", false, func(w http.ResponseWriter, _ int32) {
			http.Error(w, "quota exceeded for tenant", http.StatusForbidden)
		}, 1, "403 Forbidden: quota exceeded for tenant"},
		{"429 until the time runs out", false, func(w http.ResponseWriter, _ int32) {
			w.WriteHeader(http.StatusTooManyRequests)
		}, 0, "context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.URL, "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b%2Cc, tenant=7"}
			if tt.gzip {
				env["OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"] = "gzip"
			}
			setOTLPEnv(t, env)
			e, err := otlpFromEnv()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = e.Shutdown(context.Background()) }()
			attempts.Store(0)
			answer = tt.answer
			ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
			defer cancel()
			err = e.ExportSpans(ctx, spans)
			if tt.err == "" && err != nil {
				t.Fatal(err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("got error %v, want one saying %q", err, tt.err)
			}
			if tt.attempts > 0 && attempts.Load() != tt.attempts {
				t.Errorf("%d attempts, want %d", attempts.Load(), tt.attempts)
			}
		})
	}
}

// TestOTLPReceiverDown checks that a receiver that is not there fails an
// export at once, without retrying, and names it.
func TestOTLPReceiverDown(t *testing.T) {
	receiver := httptest.NewServer(http.NotFoundHandler())
	url := receiver.URL
	receiver.Close()
	setOTLPEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url})
	e, err := otlpFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = e.ExportSpans(context.Background(), testSpans(t))
	if err == nil || !strings.Contains(err.Error(), url+"/v1/traces") {
		t.Fatalf("got error %v, want one naming the endpoint", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the export took %v", d)
	}
}
