package httpaction

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// Run sends the request of one call and reads its response. It is safe for
// concurrent use.
func (a *action) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	if a.api.unset != "" {
		return nil, errors.New(a.api.unset)
	}
	var env map[string]any
	if a.dynamic {
		env = engine.ProgramEnv(ctx, args)
	}
	target, mark, err := a.url(env)
	if err != nil {
		return nil, err
	}
	if a.pages != nil {
		return a.paginated(ctx, env, target, mark)
	}
	return a.exchange(ctx, env, target, mark)
}

// exchange sends one request to target, whose query string starts at mark,
// and reads its response.
func (a *action) exchange(ctx context.Context, env map[string]any, target string, mark int) (*engine.Response, error) {
	tr := calltrace.From(ctx)
	var began time.Time
	if tr != nil {
		began = time.Now()
	}
	where := target[:mark] // for messages: the query string may hold secrets

	req := a.api.client.R()
	for k, v := range a.header {
		req.Header[k] = v
	}
	var err error
	var token string // an OAuth2 access token, got for this call
	if a.api.oauth != nil {
		if token, err = a.api.oauth.accessToken(ctx, ""); err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if a.api.callerAudience != "" {
		token, err := callerToken(ctx, a.api)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if err := a.headers(req.Header, env); err != nil {
		return nil, err
	}
	body, err := a.payload(env)
	if err != nil {
		return nil, err
	}
	if body == nil && a.bodyKind == jsonBody {
		req.Header.Del("Content-Type")
	}
	if a.bodyKind == multipartBody {
		var ct string
		if body, ct, err = a.multipart(env); err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", ct)
	}
	if body != nil {
		req.SetBody(body)
	}

	parent := ctx
	if a.timeout > 0 {
		// The engine bounds every call: when its deadline comes first, a
		// timer of our own would never fire.
		if deadline, ok := ctx.Deadline(); !ok || time.Until(deadline) > a.timeout {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, a.timeout)
			defer cancel()
		}
	}
	req.SetContext(ctx)

	if tr != nil {
		a.traceRequest(tr, time.Since(began), target, req, body)
		began = time.Now()
	}
	var done func(error) // reports the call's outcome to the breaker
	if a.api.breaker != nil {
		if done, err = a.api.breaker.allow(); err != nil {
			return nil, err
		}
	}
	ctx, x := engine.BeginUpstreamCall(ctx, "http", a.api.label(), a.method, trace.SpanKindClient)
	if x.Traced() {
		a.describeSpan(ctx, &x, req.Header, where)
		req.SetContext(ctx)
	}
	resp, err := req.Execute(a.method, target)
	if err == nil && token != "" && resp.StatusCode() == http.StatusUnauthorized && req.Header.Get("Authorization") == "Bearer "+token {
		// The upstream refused the token (revoked, or expired early): get
		// a new one and try once more.
		discard(resp.RawResponse)
		var fresh string
		if fresh, err = a.api.oauth.accessToken(ctx, token); err != nil {
			if done != nil {
				done(errNotCounted)
			}
			x.End("error", "token_refused", "the upstream refused the access token and no new one could be got")
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+fresh)
		resp, err = req.Execute(a.method, target)
	}
	if done != nil {
		status := 0
		if err == nil {
			status = resp.StatusCode()
		}
		done(outcome(parent, status, err))
	}
	if err != nil {
		if resp != nil && resp.RawResponse != nil {
			discard(resp.RawResponse)
		}
		failure := a.failure(parent, ctx, where, err)
		x.End("error", transportErrorType(ctx, err), failure.Error())
		return nil, failure
	}
	endUpstreamCall(&x, resp.StatusCode())
	raw := resp.RawResponse
	defer raw.Body.Close()
	out, err := a.response(parent, raw, where)
	if err != nil {
		return nil, a.failure(parent, ctx, where, err)
	}
	if tr != nil {
		a.traceResponse(tr, time.Since(began), resp, out)
	}
	return out, nil
}

// url builds the request's URL: the prefix, the path with its parameters
// escaped, the query string. mark is where the query string starts.
func (a *action) url(env map[string]any) (target string, mark int, err error) {
	if a.dynURL != nil {
		return a.computedURL(env)
	}
	var buf [8]string
	values := buf[:0]
	n := len(a.prefix) + a.path.size + len(a.query.fixed) + 1
	for i := range a.params {
		p := &a.params[i]
		s := p.fixed
		if p.value != nil {
			if s, err = p.eval(env); err != nil {
				return "", 0, err
			}
		}
		values = append(values, s)
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n + 16*len(a.query.fields))
	b.WriteString(a.prefix)
	for _, seg := range a.path.segments {
		if seg.param < 0 {
			b.WriteString(seg.literal)
		} else {
			b.WriteString(values[seg.param])
		}
	}
	mark = b.Len()
	w := pairWriter{b: &b, first: '?'}
	if a.query.fixed != "" {
		b.WriteByte('?')
		b.WriteString(a.query.fixed)
		w.wrote = true
	}
	if err := a.query.write(&w, env, "query parameter"); err != nil {
		return "", 0, err
	}
	return b.String(), mark, nil
}

// computedURL runs the program of url = expr(…) and checks its URL against
// allowed_hosts before anything is sent; the query parameters follow.
func (a *action) computedURL(env map[string]any) (string, int, error) {
	v, err := a.dynURL.Eval(env)
	if err != nil {
		return "", 0, err
	}
	s, ok := v.(string)
	if !ok {
		return "", 0, fmt.Errorf("url must yield a string; got %s", mapping.Describe(v))
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return "", 0, errors.New("url yielded something that is not an absolute http or https URL; the request was not sent")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", 0, fmt.Errorf("url yielded a %s: URL; only http and https are sent, and the request was not", u.Scheme)
	case u.User != nil:
		return "", 0, errors.New("url yielded a URL with credentials (user:password@), which are never sent; the request was not sent")
	case !a.allowed.allows(u):
		return "", 0, fmt.Errorf("url yielded a URL on %s, which is not in allowed_hosts; the request was not sent (to allow it, add %q to allowed_hosts)", u.Host, entryFor(u))
	}
	u.Fragment, u.RawFragment = "", ""
	var b strings.Builder
	b.WriteString(u.Scheme + "://" + u.Host + u.EscapedPath())
	mark := b.Len()
	w := pairWriter{b: &b, first: '?'}
	if u.RawQuery != "" {
		// A space or a stray "%" would break the request line: escape
		// them, keeping what is already escaped.
		b.WriteByte('?')
		b.WriteString(escapeLiteral(u.RawQuery, true))
		w.wrote = true
	}
	if a.query.fixed != "" {
		b.WriteByte("?&"[boolIndex(w.wrote)])
		b.WriteString(a.query.fixed)
		w.wrote = true
	}
	if err := a.query.write(&w, env, "query parameter"); err != nil {
		return "", 0, err
	}
	return b.String(), mark, nil
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// eval computes and escapes the value of a path parameter.
func (p *pathParam) eval(env map[string]any) (string, error) {
	v, err := p.value.Eval(env)
	if err != nil {
		return "", err
	}
	s, ok := mapping.Scalar(v)
	switch {
	case !ok:
		return "", fmt.Errorf("path parameter %q must be a string or a number; got %s", p.name, mapping.Describe(v))
	case s == "":
		return "", fmt.Errorf("path parameter %q is empty, which would change the path; the request was not sent", p.name)
	}
	return escapeParam(s), nil
}

// write writes the pairs computed per call.
func (p *pairs) write(w *pairWriter, env map[string]any, what string) error {
	for _, f := range p.fields {
		v, err := f.value.Eval(env)
		if err != nil {
			return err
		}
		if err := w.write(f.key, f.name, v, what); err != nil {
			return err
		}
	}
	if p.dynamic == nil {
		return nil
	}
	m, err := evalMap(p.dynamic, env, "the "+what+"s")
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if err := w.write(url.QueryEscape(k), k, m[k], what); err != nil {
			return err
		}
	}
	return nil
}

// evalMap runs a program that yields a map of names to values, what (as
// "the headers"); null is an empty map.
func evalMap(p mapping.Value, env map[string]any, what string) (map[string]any, error) {
	v, err := p.Eval(env)
	if err != nil || v == nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a map of names to values; got %s", what, mapping.Describe(v))
	}
	return m, nil
}

// headers sets the headers computed per call.
func (a *action) headers(h http.Header, env map[string]any) error {
	for _, f := range a.fields {
		v, err := f.value.Eval(env)
		if err != nil {
			return err
		}
		values, err := headerValues(f.name, v)
		if err != nil {
			return err
		}
		if values == nil {
			delete(h, f.name)
			continue
		}
		h[f.name] = values
	}
	if a.dynHdr == nil {
		return nil
	}
	m, err := evalMap(a.dynHdr, env, "the headers")
	if err != nil {
		return err
	}
	for name, v := range m {
		if !validHeaderName(name) {
			return fmt.Errorf("%q is not a valid header name; the request was not sent", name)
		}
		if reservedHeader(name) {
			return fmt.Errorf("the %s header cannot be set; the request was not sent", http.CanonicalHeaderKey(name))
		}
		canon := http.CanonicalHeaderKey(name)
		values, err := headerValues(canon, v)
		if err != nil {
			return err
		}
		if values == nil {
			delete(h, canon)
			continue
		}
		h[canon] = values
	}
	return nil
}

// payload returns the request body, or nil for none.
func (a *action) payload(env map[string]any) ([]byte, error) {
	switch a.bodyKind {
	case jsonBody:
		v, err := a.bodyValue.Eval(env)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, nil // null sends no body, as null leaves out a field
		}
		b, err := jsonenc.Append(nil, v)
		if err != nil {
			return nil, fmt.Errorf("the body cannot be written as JSON: %v", err)
		}
		return b, nil
	case formBody:
		var b strings.Builder
		b.WriteString(a.form.fixed)
		w := pairWriter{b: &b, wrote: a.form.fixed != ""}
		if err := a.form.write(&w, env, "form field"); err != nil {
			return nil, err
		}
		return []byte(b.String()), nil
	case multipartBody:
		return nil, nil // see multipart
	case rawBody:
		v, err := a.bodyValue.Eval(env)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("raw_body must yield a string; got %s", mapping.Describe(v))
		}
		return []byte(s), nil
	}
	return a.bodyFixed, nil
}

// failure words an error of a request to where.
func (a *action) failure(parent, ctx context.Context, where string, err error) error {
	var tooLarge *tooLargeError
	var invalid *invalidJSONError
	switch {
	case errors.As(err, &tooLarge), errors.As(err, &invalid):
		return fmt.Errorf("%s %s: %w", a.method, where, err)
	case parent.Err() != nil:
		// The call was cancelled or ran out of time: the engine says so.
		return fmt.Errorf("%s %s: %w", a.method, where, parent.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("%s %s: no complete response within %s (timeout): %w", a.method, where, a.timeout, ctx.Err())
	}
	return fmt.Errorf("%s %s failed: %s", a.method, where, describeTransportError(err))
}

// multipart writes a multipart/form-data body from the map multipart
// yields: a part per field (a list repeats the field, null leaves it out);
// strings, numbers and booleans as text, objects and lists inside lists as
// JSON. It returns the body and its content type, boundary included.
func (a *action) multipart(env map[string]any) ([]byte, string, error) {
	v, err := a.bodyValue.Eval(env)
	if err != nil {
		return nil, "", err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("multipart must yield a map of field names to values; got %s", mapping.Describe(v))
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	part := func(name string, v any) error {
		switch x := v.(type) {
		case nil:
			return nil
		case string:
			return w.WriteField(name, x)
		case map[string]any, []any:
			b, err := jsonenc.Append(nil, x)
			if err != nil {
				return fmt.Errorf("multipart field %q cannot be written as JSON: %v", name, err)
			}
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"`, escapeQuotes(name)))
			h.Set("Content-Type", "application/json")
			pw, err := w.CreatePart(h)
			if err != nil {
				return err
			}
			_, err = pw.Write(b)
			return err
		default:
			b, err := jsonenc.Append(nil, x)
			if err != nil {
				return fmt.Errorf("multipart field %q: %v", name, err)
			}
			return w.WriteField(name, string(b))
		}
	}
	for _, name := range names {
		if l, ok := m[name].([]any); ok {
			for _, e := range l {
				if err := part(name, e); err != nil {
					return nil, "", err
				}
			}
			continue
		}
		if err := part(name, m[name]); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// escapeQuotes escapes a field name for a Content-Disposition header, as
// mime/multipart does.
func escapeQuotes(s string) string {
	return strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "%0D", "\n", "%0A").Replace(s)
}

// callerToken is the token of the call's caller, to send to api: only a
// JWT that names api's audience is sent.
func callerToken(ctx context.Context, api *API) (string, error) {
	c := engine.CallerFrom(ctx)
	switch {
	case c.Token == "":
		return "", fmt.Errorf("http_api %q sends the caller's own token, and this call has none: it needs a client that signed in with a JWT (the server's auth block, over HTTP)", api.name)
	case !slices.Contains(c.Audience, api.callerAudience):
		return "", fmt.Errorf("http_api %q sends the caller's own token only when it is meant for %s, and this caller's token is not (its audience is %s)", api.name, api.callerAudience, strings.Join(c.Audience, ", "))
	}
	return c.Token, nil
}

var _ engine.CallerTokenUser = (*action)(nil)

// UsesCallerToken reports whether the action sends the caller's own token.
func (a *action) UsesCallerToken() bool { return a.api != nil && a.api.callerAudience != "" }

var _ engine.CallerActor = (*action)(nil)

// ActsAsCaller says how the action's request depends on the caller's
// token: it sends it, or exchanges it.
func (a *action) ActsAsCaller() string {
	switch {
	case a.api == nil:
		return ""
	case a.api.callerAudience != "":
		return fmt.Sprintf("http_api %q sends each caller's own token (auth { caller_token })", a.api.name)
	case a.api.oauth != nil && a.api.oauth.exchanged != nil:
		return fmt.Sprintf("http_api %q exchanges each caller's token for one of its own (auth { token_exchange })", a.api.name)
	}
	return ""
}

// statusClasses are the classes of HTTP statuses for metrics, by hundreds.
var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

// statusClass is the class of an HTTP status for metrics: "1xx" to "5xx",
// or "error" for a status outside them.
func statusClass(status int) string {
	if status < 100 || status > 599 {
		return "error"
	}
	return statusClasses[status/100-1]
}
