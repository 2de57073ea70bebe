package httpaction

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// describeSpan gives a traced request's span its attributes, as the
// OpenTelemetry conventions for HTTP client spans name them, and puts the
// trace context in the request's headers (traceparent, tracestate), so
// that an upstream that traces continues the call's trace. where is the
// URL without its query string, which may hold secrets (an api_key in the
// query): the query never goes into a span, and the rest is redacted like
// everything else the call reports.
func (a *action) describeSpan(ctx context.Context, x *engine.UpstreamCall, h http.Header, where string) {
	x.SetAttributes(
		attribute.String("http.request.method", a.method),
		attribute.String("url.full", text.Redacted(ctx, where)),
		attribute.String("mcpdecl.http_api", a.api.label()),
	)
	if a.dynURL == nil {
		// The URL is under the http_api's base URL: its origin was read
		// at load.
		x.SetAttributes(a.api.origin...)
	} else if u, err := url.Parse(where); err == nil {
		x.SetAttributes(originAttributes(u)...)
	}
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(h))
}

// originAttributes are the attributes of a request's span that the origin
// of its URL u gives: server.address, url.scheme and server.port (the
// scheme's default when the URL names none).
func originAttributes(u *url.URL) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.String("server.address", u.Hostname()), attribute.String("url.scheme", u.Scheme)}
	port := u.Port()
	if port == "" && u.Scheme == "https" {
		port = "443"
	} else if port == "" {
		port = "80"
	}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attribute.Int("server.port", n))
	}
	return attrs
}

// endUpstreamCall ends the upstream call of a request answered with status: its
// class for the metrics, and for its span the status, an error from 400 on
// (error.type is the status code, as the conventions say).
func endUpstreamCall(x *engine.UpstreamCall, status int) {
	if x.Traced() {
		x.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= 400 {
			x.End(statusClass(status), strconv.Itoa(status), http.StatusText(status))
			return
		}
	}
	x.End(statusClass(status), "", "")
}

// transportErrorType is the error.type of a request that got no response:
// timeout when its time ran out, else the failure's kind.
func transportErrorType(ctx context.Context, err error) string {
	var tooLarge *tooLargeError
	switch {
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &tooLarge):
		return "response_too_large"
	}
	return "transport_error"
}
