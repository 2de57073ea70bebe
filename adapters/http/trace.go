package httpaction

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// credentialHeaders are the headers whose values a trace never shows but
// for their scheme (Bearer, Basic), whatever the redactor knows.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}

// traceHeaders returns h as a trace shows it: one string per header, the
// values of several joined by ", ", credentials masked.
func traceHeaders(h http.Header) map[string]any {
	out := make(map[string]any, len(h))
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		for _, c := range credentialHeaders {
			if k == c {
				v = maskCredential(v)
			}
		}
		out[k] = v
	}
	return out
}

// maskCredential keeps the scheme of an Authorization value (the word
// before a space, such as Bearer) and masks the rest.
func maskCredential(v string) string {
	if scheme, _, ok := strings.Cut(v, " "); ok && scheme != "" && !strings.ContainsAny(scheme, "=;") {
		return scheme + " " + text.Mask
	}
	return text.Mask
}

// traceRequest records the request of a call as it is sent.
func (a *action) traceRequest(tr calltrace.Tracer, took time.Duration, target string, req *resty.Request, body []byte) {
	fields := []calltrace.Field{
		{Name: "method", Value: a.method},
		{Name: "url", Value: target},
		{Name: "headers", Value: traceHeaders(req.Header)},
	}
	if body != nil {
		fields = append(fields, calltrace.Field{Name: "body", Value: string(body)})
	}
	tr.Stage("http request", took, fields...)
}

// traceResponse records the response of a call: its status, headers and
// body (as text, or what kind of binary body it is), and how many
// attempts it took.
func (a *action) traceResponse(tr calltrace.Tracer, took time.Duration, resp *resty.Response, out *engine.Response) {
	raw := resp.RawResponse
	fields := []calltrace.Field{
		{Name: "status", Value: raw.Status},
		{Name: "headers", Value: traceHeaders(raw.Header)},
	}
	if len(out.Content) > 0 {
		switch c := out.Content[0]; c.Type {
		case engine.TextContent:
			fields = append(fields, calltrace.Field{Name: "body", Value: c.Text})
		default:
			fields = append(fields, calltrace.Field{Name: "body", Value: fmt.Sprintf("(%d bytes of %s)", len(c.Data), c.MIMEType)})
		}
	}
	if resp.Request != nil && resp.Request.Attempt > 1 {
		fields = append(fields, calltrace.Field{Name: "attempts", Value: resp.Request.Attempt})
	}
	tr.Stage("http response", took, fields...)
}
