package tracing

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// testSpans are spans of every shape appendRequest writes: two resources,
// two scopes, each kind of attribute value, events, links, a remote
// parent, every status, dropped counts, a trace state.
func testSpans(t testing.TB) []sdktrace.ReadOnlySpan {
	t.Helper()
	res := resource.NewSchemaless(attribute.String("service.name", "mcpdecl"), attribute.String("service.version", "1.2.3"))
	other := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "other"))
	ts, err := trace.ParseTraceState("vendor=abc,other=x")
	if err != nil {
		t.Fatal(err)
	}
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8},
		TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true,
	})
	local := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, SpanID: trace.SpanID{8, 7, 6, 5, 4, 3, 2, 1},
		TraceFlags: trace.FlagsSampled,
	})
	start := time.Date(2026, 11, 26, 8, 0, 0, 123456789, time.UTC)
	attrs := []attribute.KeyValue{
		attribute.String("mcp.method.name", "tools/call"), attribute.String("empty", ""),
		attribute.Bool("yes", true), attribute.Bool("no", false),
		attribute.Int("n", 0), attribute.Int64("negative", -42), attribute.Int64("big", 1<<62),
		attribute.Float64("f", 2.5), attribute.Float64("zero", 0),
		attribute.StringSlice("ss", []string{"a", "", "é"}), attribute.BoolSlice("bs", []bool{true, false}),
		attribute.Int64Slice("is", []int64{1, -1}), attribute.Float64Slice("fs", []float64{0.5}),
		attribute.StringSlice("none", nil),
	}
	stubs := tracetest.SpanStubs{
		{
			Name: "tools/call weather", SpanContext: local, Parent: remote, SpanKind: trace.SpanKindServer,
			StartTime: start, EndTime: start.Add(1500 * time.Microsecond), Attributes: attrs,
			Events:            []sdktrace.Event{{Name: "exception", Time: start.Add(time.Millisecond), Attributes: []attribute.KeyValue{attribute.String("exception.message", "boom")}, DroppedAttributeCount: 2}},
			Links:             []sdktrace.Link{{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.Int("i", 1)}, DroppedAttributeCount: 1}},
			Status:            sdktrace.Status{Code: codes.Error, Description: "tool_error: it broke"},
			DroppedAttributes: 3, DroppedEvents: 4, DroppedLinks: 5,
			Resource: res, InstrumentationScope: instrumentation.Scope{Name: "github.com/mcpdecl/mcpdecl", Version: "v1"},
		},
		{
			Name: "GET", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: local.TraceID(), SpanID: trace.SpanID{9, 9, 9, 9, 9, 9, 9, 9}, TraceFlags: trace.FlagsSampled}),
			Parent: local, SpanKind: trace.SpanKindClient, StartTime: start, EndTime: start.Add(time.Millisecond),
			Attributes: []attribute.KeyValue{attribute.String("http.request.method", "GET"), attribute.Int("http.response.status_code", 200)},
			Status:     sdktrace.Status{Code: codes.Ok},
			Resource:   res, InstrumentationScope: instrumentation.Scope{Name: "github.com/mcpdecl/mcpdecl", Version: "v1"},
		},
		{
			Name: "root", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{7}}),
			SpanKind: trace.SpanKindInternal, StartTime: start, EndTime: start,
			Resource: res, InstrumentationScope: instrumentation.Scope{Name: "another/scope", SchemaURL: "https://opentelemetry.io/schemas/1.26.0", Attributes: attribute.NewSet(attribute.String("k", "v"))},
		},
		{
			Name: "elsewhere", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{8}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled}),
			SpanKind: trace.SpanKindProducer, StartTime: start, EndTime: start.Add(time.Second),
			Resource: other, InstrumentationScope: instrumentation.Scope{Name: "github.com/mcpdecl/mcpdecl", Version: "v1"},
		},
		{
			Name: "back to the first scope", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{9}, TraceFlags: trace.FlagsSampled}),
			SpanKind: trace.SpanKindConsumer, StartTime: start, EndTime: start.Add(2 * time.Second),
			Resource: res, InstrumentationScope: instrumentation.Scope{Name: "github.com/mcpdecl/mcpdecl", Version: "v1"},
		},
	}
	return stubs.Snapshots()
}

// TestAppendRequestMatchesTheOTLPExporter sends the same spans through the
// OpenTelemetry OTLP/HTTP exporter and through appendRequest, and checks
// that a receiver decodes the same request from both.
func TestAppendRequestMatchesTheOTLPExporter(t *testing.T) {
	spans := testSpans(t)
	got := make(chan []byte, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	defer receiver.Close()
	ref, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(receiver.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ref.Shutdown(context.Background()) }()
	if err := ref.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	var want, ours coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(<-got, &want); err != nil {
		t.Fatal(err)
	}
	b := appendRequest(nil, spans)
	if err := proto.Unmarshal(b, &ours); err != nil {
		t.Fatalf("our request does not decode: %v", err)
	}
	// The reference groups resources and scopes through maps: compare in
	// an order of their own.
	index := func(r *coltracepb.ExportTraceServiceRequest) map[string]proto.Message {
		m := map[string]proto.Message{}
		for _, rs := range r.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					m[sp.Name] = sp
				}
				m["scope "+ss.Scope.GetName()+" of "+rs.Resource.String()] = proto.Clone(ss.Scope)
			}
			m["resource "+rs.Resource.String()] = rs.Resource
			if rs.SchemaUrl != "" {
				m["schema "+rs.SchemaUrl] = rs.Resource
			}
		}
		return m
	}
	// The one difference: a link's trace state, which the reference
	// leaves out (tracetransform's links never set it) and the protocol
	// has a field for.
	for _, rs := range ours.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				for _, l := range sp.Links {
					if l.TraceState != "vendor=abc,other=x" {
						t.Errorf("span %s: link trace state %q", sp.Name, l.TraceState)
					}
					l.TraceState = ""
				}
			}
		}
	}
	w, o := index(&want), index(&ours)
	if len(w) != len(o) {
		t.Errorf("%d parts, the reference %d", len(o), len(w))
	}
	for k, wm := range w {
		if om, ok := o[k]; !ok {
			t.Errorf("missing %s", k)
		} else if !proto.Equal(wm, om) {
			t.Errorf("%s differs:\n ours %v\n want %v", k, om, wm)
		}
	}
	// A span's bytes are the reference's own: proto3 fields in order,
	// zero values left out.
	for _, rs := range want.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				wb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(sp)
				ob, _ := proto.MarshalOptions{Deterministic: true}.Marshal(o[sp.Name])
				if string(wb) != string(ob) {
					t.Errorf("span %s: bytes differ", sp.Name)
				}
			}
		}
	}
	// Reusing the buffer writes the same bytes.
	if again := appendRequest(b[:0], spans); string(again) != string(appendRequest(nil, spans)) {
		t.Error("a reused buffer gives other bytes")
	}
}

// TestEncoderLongMessages checks the lengths of messages that take more
// than one byte to say, up to three.
func TestEncoderLongMessages(t *testing.T) {
	for _, n := range []int{0, 1, 126, 127, 128, 129, 300, 16383, 16384, 70000} {
		e := encoder{}
		m := e.begin(5)
		e.str(1, string(make([]byte, n)))
		e.end(m)
		var want []byte
		if n > 0 {
			want = protoString(1, string(make([]byte, n)))
		}
		want = append(protoTag(5, 2, len(want)), want...)
		if string(e.buf) != string(want) {
			t.Errorf("n=%d: %d bytes, want %d", n, len(e.buf), len(want))
		}
	}
}

func protoTag(field, wire, n int) []byte {
	b := appendUvarint(nil, uint64(field<<3|wire))
	return appendUvarint(b, uint64(n))
}

func protoString(field int, s string) []byte { return append(protoTag(field, 2, len(s)), s...) }

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// BenchmarkExport compares the OTLP exporter of OpenTelemetry with ours on
// a batch of 512 spans like those of a call (a server span and its
// upstream's), sent to a receiver that reads and drops them.
func BenchmarkExport(b *testing.B) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer receiver.Close()
	base := testSpans(b)[:2]
	spans := make([]sdktrace.ReadOnlySpan, 512)
	for i := range spans {
		spans[i] = base[i%2]
	}
	ref, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(receiver.URL+"/v1/traces"))
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.URL)
	ours, err := otlpFromEnv()
	if err != nil {
		b.Fatal(err)
	}
	for _, x := range []struct {
		name string
		e    sdktrace.SpanExporter
	}{{"otlptracehttp", ref}, {"mcpdecl", ours}} {
		b.Run(x.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := x.e.ExportSpans(context.Background(), spans); err != nil && !errors.Is(err, context.Canceled) {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
		})
	}
}
