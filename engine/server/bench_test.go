package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/metrics"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
)

// BenchmarkHTTPCall measures the server's side of one tools/call over
// streamable HTTP, as a client sends it after initialization: the SDK's
// decoding, the tool (a constant text, so that the protocol layer shows)
// and the JSON answer. A 2026-07-28 client sends the _meta triple (its
// protocol version, capabilities and info) with every request, as the
// go-sdk client does. With metrics, the server also counts the call
// (serve --metrics); with traces, it makes and exports a span of each call
// (OTEL_EXPORTER_OTLP_ENDPOINT set, to a sink that drops the spans), to
// compare side by side.
func BenchmarkHTTPCall(b *testing.B) {
	for _, rev := range []struct{ name, version, meta string }{
		{"2025-11-25", "2025-11-25", ``},
		{"2025-11-25/metrics", "2025-11-25", ``},
		{"2025-11-25/traces", "2025-11-25", ``},
		{"2026-07-28", "2026-07-28", `,"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`},
	} {
		b.Run(rev.name, func(b *testing.B) {
			opts := server.Options{}
			if strings.HasSuffix(rev.name, "/metrics") {
				opts.Metrics = metrics.New()
			}
			if strings.HasSuffix(rev.name, "/traces") {
				opts.Tracing = benchTracing(b)
			}
			live := server.NewLive(newConfig(b, 100, "plain", "typed"), nil, opts)
			defer live.Close()
			h := live.HTTPHandler()
			body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"typed","arguments":{"n":3}` + rev.meta + `}}`)
			b.ReportAllocs()
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest(http.MethodPost, server.Path, bytes.NewReader(body))
					setCallHeaders(req.Header, rev.version, "typed")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != 200 || !bytes.Contains(w.Body.Bytes(), []byte(`"structuredContent":{"n":3}`)) {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
					_, _ = io.Copy(io.Discard, w.Body)
				}
			})
		})
	}
}

// BenchmarkStdioCall measures the server's side of tools/call over stdio
// (a pipe here), eight calls in flight as a busy client keeps them: the
// SDK's reading, its handler goroutines, the tool (a constant text) and
// the answer's line; with traces, also the call's span, exported.
func BenchmarkStdioCall(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchmarkStdioCall(b, server.Options{}) })
	b.Run("traces", func(b *testing.B) { benchmarkStdioCall(b, server.Options{Tracing: benchTracing(b)}) })
}

// benchTracing is tracing that samples every call (a root span,
// parentbased_always_on) and sends its spans over OTLP/HTTP to a sink
// that drops them; both stop at the end of the benchmark.
func benchTracing(b *testing.B) *tracing.Tracing {
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	b.Cleanup(sink.Close)
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", sink.URL)
	tr, err := tracing.FromEnv(tracing.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	return tr
}

func benchmarkStdioCall(b *testing.B, opts server.Options) {
	live := server.NewLive(newConfig(b, 100, "plain", "typed"), nil, opts)
	defer live.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- live.ServeIO(ctx, inR, outW) }()
	defer func() {
		cancel()
		_ = inW.Close()
		<-served
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	write := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if !lines.Scan() {
		b.Fatal("no answer to initialize")
	}
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	const inFlight = 8
	slots := make(chan struct{}, inFlight)
	answered := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	go func() {
		for range b.N {
			if !lines.Scan() {
				answered <- fmt.Errorf("the server stopped answering: %v", lines.Err())
				return
			}
			if !bytes.Contains(lines.Bytes(), []byte(`"structuredContent":{"n":3}`)) {
				answered <- fmt.Errorf("unexpected answer: %s", lines.Bytes())
				return
			}
			<-slots
		}
		answered <- nil
	}()
	for i := range b.N {
		slots <- struct{}{}
		write(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"typed","arguments":{"n":3}}}`)
	}
	if err := <-answered; err != nil {
		b.Fatal(err)
	}
}
