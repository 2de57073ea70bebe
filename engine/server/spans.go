package server

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
)

// maxRequestValue caps, in bytes, each value a request's span takes from
// the request (a name, a URI, the JSON-RPC id): whatever a client sends,
// a span stays small.
const maxRequestValue = 256

// traceContext reads W3C trace context (traceparent, tracestate).
var traceContext propagation.TraceContext

// traceRequests is the receiving middleware that makes a span for each
// MCP request, as the OpenTelemetry conventions for MCP servers say: named
// after the method and its target (a tool or a prompt, when the server
// serves one of that name: the method alone otherwise, so that clients
// cannot make span names without end), of kind server, with the method,
// the request's id, the protocol revision, the session and the transport,
// each value taken from the request cut at maxRequestValue. Its parent is
// the trace context of the request's _meta (traceparent, tracestate),
// else that of its HTTP headers; with both, the HTTP one is a link. A
// malformed traceparent is ignored.
func (l *Live) traceRequests(next mcp.MethodHandler) mcp.MethodHandler {
	tracer := l.opts.Tracing.Provider().Tracer(engine.Instrumentation)
	// The transport's attributes are the same for every request.
	transport := []attribute.KeyValue{attribute.String("network.transport", "pipe")}
	if l.opts.HTTP {
		transport = []attribute.KeyValue{attribute.String("network.transport", "tcp"), attribute.String("network.protocol.name", "http")}
	}
	executeTool := attribute.String("gen_ai.operation.name", "execute_tool")
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		name := method
		// What the request names (a tool, a prompt, a resource) and, for
		// a tool, the operation.
		var target, operation attribute.KeyValue
		switch p := req.GetParams().(type) {
		case *mcp.CallToolParamsRaw:
			if p != nil {
				if l.servesTool(p.Name) {
					name += " " + p.Name
				}
				target, operation = attribute.String("gen_ai.tool.name", tracing.Cap(p.Name, maxRequestValue)), executeTool
			}
		case *mcp.GetPromptParams:
			if p != nil {
				if _, ok := l.generation().cfg.Prompt(p.Name); ok {
					name += " " + p.Name
				}
				target = attribute.String("gen_ai.prompt.name", tracing.Cap(p.Name, maxRequestValue))
			}
		case *mcp.ReadResourceParams:
			if p != nil {
				target = attribute.String("mcp.resource.uri", tracing.Cap(p.URI, maxRequestValue))
			}
		}
		parent, link := parentContext(ctx, req)
		kind := engine.SpanKindOption(trace.SpanKindServer)
		var span trace.Span
		if link.IsValid() {
			ctx, span = tracer.Start(parent, name, kind, trace.WithLinks(trace.Link{SpanContext: link}))
		} else {
			ctx, span = tracer.Start(parent, name, kind)
		}
		engine.SetSpanAttributes(span, func(attrs []attribute.KeyValue) []attribute.KeyValue {
			attrs = append(append(attrs, attribute.String("mcp.method.name", method)), transport...)
			if id, ok := mcp.RequestID(ctx); ok {
				attrs = append(attrs, attribute.String("jsonrpc.request.id", tracing.Cap(idText(id), maxRequestValue)))
			}
			if r, ok := req.(interface{ ProtocolVersion() string }); ok {
				if v := r.ProtocolVersion(); v != "" {
					attrs = append(attrs, attribute.String("mcp.protocol.version", tracing.Cap(v, maxRequestValue)))
				}
			}
			if s := req.GetSession(); s != nil && !isNil(s) {
				if id := s.ID(); id != "" {
					attrs = append(attrs, attribute.String("mcp.session.id", tracing.Cap(id, maxRequestValue)))
				}
			}
			for _, kv := range [...]attribute.KeyValue{target, operation} {
				if kv.Key != "" {
					attrs = append(attrs, kv)
				}
			}
			return attrs
		})
		defer span.End()
		res, err := next(ctx, method, req)
		if err != nil {
			code := int64(jsonrpc.CodeInternalError)
			var werr *jsonrpc.Error
			if errors.As(err, &werr) {
				code = werr.Code
			}
			c := strconv.FormatInt(code, 10)
			span.SetAttributes(attribute.String("error.type", c), attribute.String("rpc.response.status_code", c))
			span.SetStatus(codes.Error, tracing.Cap(err.Error(), tracing.MaxValue))
		}
		return res, err
	}
}

// parentContext is ctx with the trace context the request carries: that of
// its _meta, else that of its HTTP headers. link is the HTTP headers' span
// when both carry one.
func parentContext(ctx context.Context, req mcp.Request) (context.Context, trace.SpanContext) {
	var fromHeader trace.SpanContext
	if extra := req.GetExtra(); extra != nil && extra.Header != nil && extra.Header.Get("Traceparent") != "" {
		fromHeader = trace.SpanContextFromContext(traceContext.Extract(ctx, propagation.HeaderCarrier(extra.Header)))
	}
	if p := req.GetParams(); p != nil && !isNil(p) {
		if meta := p.GetMeta(); meta != nil {
			if tp, _ := meta["traceparent"].(string); tp != "" {
				carrier := propagation.MapCarrier{"traceparent": tp}
				if ts, _ := meta["tracestate"].(string); ts != "" {
					carrier["tracestate"] = ts
				}
				if sc := trace.SpanContextFromContext(traceContext.Extract(ctx, carrier)); sc.IsValid() {
					if fromHeader.Equal(sc) {
						fromHeader = trace.SpanContext{}
					}
					return trace.ContextWithRemoteSpanContext(ctx, sc), fromHeader
				}
			}
		}
	}
	if fromHeader.IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, fromHeader), trace.SpanContext{}
	}
	return ctx, trace.SpanContext{}
}

// servesTool reports whether a tool called name is served, so that a span
// may be named after it: one of the configuration's, or in discovery mode
// one of discovery's three.
func (l *Live) servesTool(name string) bool {
	if l.opts.Discovery {
		return name == searchTool || name == describeTool || name == callTool
	}
	_, ok := l.generation().cfg.Tool(name)
	return ok
}

// idText is a JSON-RPC id as the conventions record it: a string, or a
// number written in decimal.
func idText(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	}
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// isNil reports whether v holds a nil pointer (a request's params or
// session may be a typed nil).
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil()
}
