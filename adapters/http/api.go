package httpaction

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/hashicorp/hcl/v2"
	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// API is a decoded http_api block: an upstream's base URL, what every
// request to it carries, and the one client, with its pool of connections,
// that all the actions referring to it share. It is safe for concurrent use.
type API struct {
	name     string
	scheme   string               // "http" or "https"
	host     string               // host[:port], as written in base_url
	prefix   string               // scheme://host and the base path, without a trailing slash
	origin   []attribute.KeyValue // of a request's span: server.address, url.scheme, server.port
	query    string               // encoded query sent with every request, without "?"
	common   []queryPair          // the query attribute's parameters, which an action's query may replace
	header   http.Header          // User-Agent, headers and auth, by canonical name
	timeout  time.Duration
	maxBytes int64
	client   *resty.Client

	// keyParam and key are the query parameter and value of an api_key
	// sent in the query string, kept from redirects to other hosts.
	keyParam, key string

	// breaker, when not nil, stops calls to an upstream that keeps failing.
	breaker *breaker

	// oauth, when not nil, gets the bearer token of each request: auth {
	// oauth2 { … } }.
	oauth *tokenSource

	// callerAudience, when not empty, sends the caller's own token,
	// which must name it in its audience: auth { caller_token { … } }.
	callerAudience string

	// unset, when not empty, is why every call fails: a credential of auth
	// is empty, such as a token read from an environment variable that is
	// not set. It says what to set.
	unset string
}

// Name is the label of the http_api block.
func (a *API) Name() string { return a.name }

// label names the API in metrics: the http_api's name, or for the client
// of a url without api, the host the configuration gives.
func (a *API) label() string {
	if a.name != "" {
		return a.name
	}
	return a.host
}

// BaseURL is the base URL that paths are relative to, without a trailing
// slash or query string.
func (a *API) BaseURL() string { return a.prefix }

// Close releases the idle connections of the API's client.
func (a *API) Close() error {
	a.client.GetClient().CloseIdleConnections()
	if a.oauth != nil {
		a.oauth.client.CloseIdleConnections()
	}
	return nil
}

// userAgent is sent unless the configuration names another.
const userAgent = "mcpdecl"

// APISpec is the http_api block.
var APISpec = &spec.Block{
	Name:    "http_api",
	Labels:  []string{"name"},
	Summary: "A reusable HTTP upstream, referred to as http_api.name: its base URL, what every request carries, and one client shared by its actions.",
	Doc: "The credentials of auth are secrets: they are redacted from everything that leaves the server, and so are the access tokens oauth2 gets. " +
		"An empty credential, such as bearer = var.token whose default env(\"GITHUB_TOKEN\") finds nothing set, is a warning at load time; " +
		"every call through the API then fails before anything is sent, saying what to set (the bearer token of http_api \"github\" is empty: set the environment variable GITHUB_TOKEN). " +
		"Redirects (at most 10) are followed within the same scheme, host and port, and from http to https on the same host. " +
		"A redirect to another host fails the call with an error naming the entry of allowed_hosts to add; to an allowed host it is followed without any header but User-Agent, Accept, Accept-Language and Content-Type " +
		"(so no Authorization, api_key header or Referer), and with the api_key query parameter removed from the target; if the key still appears elsewhere in that URL, the call fails. " +
		"A redirect from https to http, to a scheme other than http and https, or to a URL holding user:pass@ always fails, allowed or not. Cookies are never kept.",
	Example: `http_api "weather" {
  base_url = "https://api.example.com/v1"
  headers  = { Accept = "application/json" }
  timeout  = "10s"
}`,
	Attrs: []*spec.Attr{
		spec.String("base_url", "is the absolute http or https URL that paths are relative to").Mandatory(),
		spec.Map("headers", spec.KindString, "are headers sent with every request").Unevaluated(),
		spec.Map("query", spec.KindString, `are query parameters sent with every request, such as { "api-version" = "2022-11-01" }; an action's query parameter of the same name, written in its path or query, is sent instead`).Unevaluated(),
		spec.Duration("timeout", "bounds one request, retries and reading the body included").DefaultIs("the server's timeout"),
		spec.Int("max_response_bytes", "is the largest body read").AtLeast(1).DefaultIs("the server's"),
		spec.List("allowed_hosts", spec.KindString, `are other hosts that redirects may lead to, such as ["cdn.example.com", "*.example.org"], written as for the http action's allowed_hosts`).Unevaluated(),
	},
	Blocks: []spec.Nested{{Block: AuthSpec, Max: 1}, {Block: RetrySpec, Max: 1}, {Block: TLSSpec, Max: 1}, {Block: BreakerSpec, Max: 1}},
}

// decodeAPI decodes an http_api block. It returns nil when the block has
// errors.
func decodeAPI(ctx *engine.DecodeContext, block *hcl.Block) (*API, hcl.Diagnostics) {
	v, diags := APISpec.Decode(block.Body, ctx)
	api := &API{
		name:     block.Labels[0],
		header:   http.Header{"User-Agent": {userAgent}},
		timeout:  ctx.Settings.Timeout,
		maxBytes: ctx.Settings.MaxResponseBytes,
	}
	if v.Has("base_url") {
		if err := api.setBase(v.String("base_url")); err != nil {
			detail := err.Error() + "."
			if v.String("base_url") == "" && ctx.HowToSet != nil {
				if how := ctx.HowToSet(v.Attr("base_url").Expr); how != "" {
					detail = "base_url is empty: " + how + "."
				}
			}
			diags = append(diags, errorf(v.Attr("base_url").Expr.Range(), "Invalid base_url", "%s", detail))
		}
	}
	if attr := v.Attr("headers"); attr != nil {
		diags = append(diags, api.staticHeaders(ctx, attr)...)
	}
	if attr := v.Attr("query"); attr != nil {
		diags = append(diags, api.staticQuery(ctx, attr)...)
	}
	if v.Has("timeout") {
		api.timeout = v.Duration("timeout")
	}
	if v.Has("max_response_bytes") {
		api.maxBytes = v.Int("max_response_bytes")
	}
	for _, b := range v.Blocks("auth") {
		diags = append(diags, api.decodeAuth(ctx, b)...)
	}
	var retry *retryPolicy
	for _, b := range v.Blocks("retry") {
		var more hcl.Diagnostics
		retry, more = decodeRetry(ctx, b)
		diags = append(diags, more...)
	}
	for _, b := range v.Blocks("circuit_breaker") {
		var more hcl.Diagnostics
		api.breaker, more = decodeBreaker(ctx, b, api.name)
		diags = append(diags, more...)
	}
	var tlsConfig *tls.Config
	for _, b := range v.Blocks("tls") {
		var more hcl.Diagnostics
		tlsConfig, more = decodeTLS(ctx, b)
		diags = append(diags, more...)
	}
	var allowed hostList
	if attr := v.Attr("allowed_hosts"); attr != nil {
		var more hcl.Diagnostics
		allowed, more = decodeHosts(ctx, attr)
		diags = append(diags, more...)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if api.oauth != nil {
		api.oauth.client = newTokenClient(tlsConfig, api.timeout)
	}
	api.client = newClient(&reach{scheme: api.scheme, host: api.host, allowed: allowed, keyParam: api.keyParam, key: api.key}, tlsConfig, retry)
	return api, diags
}

// setBase checks and records the base URL.
func (a *API) setBase(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", s, text.UnwrapURLError(err))
	}
	if err := checkOrigin(s, u); err != nil {
		return err
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return fmt.Errorf("%q has a fragment (#…), which is never sent to a server", s)
	}
	a.setOrigin(u)
	a.prefix += strings.TrimRight(u.EscapedPath(), "/")
	a.query = escapeLiteral(u.RawQuery, true)
	return nil
}

// setOrigin records the origin of u (checked by checkOrigin) as the API's:
// its scheme and host, the prefix of its URLs, and their span attributes.
func (a *API) setOrigin(u *url.URL) {
	a.scheme, a.host = u.Scheme, u.Host
	a.prefix = u.Scheme + "://" + u.Host
	a.origin = originAttributes(u)
}

// checkOrigin checks that u, parsed from s, is an absolute http or https URL
// with a host and without credentials.
func checkOrigin(s string, u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q must be an absolute URL starting with http:// or https://", s)
	case u.Opaque != "" || u.Host == "":
		return fmt.Errorf("%q has no host; write it like https://api.example.com/v1", s)
	case u.User != nil:
		return fmt.Errorf("%q holds credentials; give them in an auth block instead", s)
	}
	return nil
}

// staticHeaders adds the load-time headers of attr to the API's. An empty
// one that comes from a sensitive value is an empty credential (see
// checkSet).
func (a *API) staticHeaders(ctx *engine.DecodeContext, attr *hcl.Attribute) hcl.Diagnostics {
	h := a.header
	entries, ok, diags := objectEntries(ctx, attr.Expr)
	if !ok {
		// Not written as { … }: a variable or a function call.
		v, more := ctx.Eval(attr.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return diags
		}
		m, err := stringMap(v)
		if err != nil {
			return append(diags, errorf(attr.Expr.Range(), "Invalid headers", "headers must be a map of header names to strings: %s.", err))
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			diags = append(diags, addStaticHeader(h, k, m[k], attr.Expr.Range(), attr.Expr.Range())...)
		}
		return diags
	}
	seen := map[string]hcl.Range{}
	for _, e := range entries {
		if prev, dup := seen[http.CanonicalHeaderKey(e.name)]; dup {
			diags = append(diags, errorf(e.keyRange, "Duplicate header", "The header %q is already set at %s; header names ignore case.", e.name, prev))
			continue
		}
		seen[http.CanonicalHeaderKey(e.name)] = e.keyRange
		s, more := ctx.String(e.expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			continue
		}
		if v, _ := ctx.Eval(e.expr); s == "" && v.ContainsMarked() {
			// A secret header (an API key required along with auth, say)
			// that is empty: like an empty credential of auth.
			diags = append(diags, a.checkSet(ctx, e.expr, "header "+e.name, "")...)
		}
		diags = append(diags, addStaticHeader(h, e.name, s, e.keyRange, e.expr.Range())...)
	}
	return diags
}

// queryPair is a query parameter of the http_api's query attribute: its
// name and the pair as sent, escaped.
type queryPair struct {
	name, pair string
}

// staticQuery reads the load-time query parameters of attr. A secret
// value is refused: a query string ends up in logs and traces, and an API
// key in the query is auth's (api_key { query = … }), which keeps it out.
func (a *API) staticQuery(ctx *engine.DecodeContext, attr *hcl.Attribute) hcl.Diagnostics {
	var diags hcl.Diagnostics
	add := func(name, value string, rng hcl.Range, secret bool) {
		switch {
		case name == "":
			diags = append(diags, errorf(rng, "Invalid query", "The name of a query parameter cannot be empty."))
		case secret:
			diags = append(diags, errorf(rng, "Secret in the query string",
				"The query parameter %q of http_api %q takes a sensitive value; send a key with auth { api_key { query = %q, value = … } }, which keeps it out of logs and traces.", name, a.name, name))
		default:
			a.common = append(a.common, queryPair{name: name, pair: url.QueryEscape(name) + "=" + url.QueryEscape(value)})
		}
	}
	entries, ok, more := objectEntries(ctx, attr.Expr)
	diags = append(diags, more...)
	if !ok {
		// Not written as { … }: a variable or a function call.
		v, more := ctx.Eval(attr.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return diags
		}
		m, err := stringMap(v)
		if err != nil {
			return append(diags, errorf(attr.Expr.Range(), "Invalid query", "query must be a map of parameter names to strings: %s.", err))
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			add(k, m[k], attr.Expr.Range(), v.ContainsMarked())
		}
		return diags
	}
	for _, e := range entries {
		s, more := ctx.String(e.expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			continue
		}
		v, _ := ctx.Eval(e.expr)
		add(e.name, s, e.keyRange, v.ContainsMarked())
	}
	return diags
}

// queryFor is the fixed query of an action whose own query is q: the
// API's, less the parameters of its query attribute that q names, then
// q's fixed part.
func (a *API) queryFor(q *pairs) string {
	s := a.query
	if len(a.common) > 0 {
		own := map[string]bool{}
		for pair := range strings.SplitSeq(q.fixed, "&") {
			k, _, _ := strings.Cut(pair, "=")
			if name, err := url.QueryUnescape(k); err == nil && k != "" {
				own[name] = true
			}
		}
		for _, f := range q.fields {
			own[f.name] = true
		}
		for _, p := range a.common {
			if !own[p.name] {
				s = joinQuery(s, p.pair)
			}
		}
	}
	return joinQuery(s, q.fixed)
}

// addStaticHeader checks a load-time header and sets it in h.
func addStaticHeader(h http.Header, name, value string, nameRange, valueRange hcl.Range) hcl.Diagnostics {
	if d := checkHeaderName(name, nameRange); d != nil {
		return hcl.Diagnostics{d}
	}
	if !validHeaderValue(value) {
		return hcl.Diagnostics{errorf(valueRange, "Invalid header value", "The value of header %q holds a line break, a NUL byte or another control character, which a header value cannot hold.", name)}
	}
	h[http.CanonicalHeaderKey(name)] = []string{value}
	return nil
}

// checkHeaderName reports a header name that cannot be sent or set.
func checkHeaderName(name string, rng hcl.Range) *hcl.Diagnostic {
	if !validHeaderName(name) {
		return errorf(rng, "Invalid header name", "%q is not a valid header name: use letters, digits and -, such as X-Api-Version.", name)
	}
	if reservedHeader(name) {
		return errorf(rng, "Header not allowed", "The %s header is set by the HTTP client from the URL and the body; it cannot be configured.", http.CanonicalHeaderKey(name))
	}
	return nil
}

// authIn is where the auth block's schemes are nested.
const authIn = "http_api › auth"

// AuthSpec is the auth block of an http_api: exactly one scheme.
var AuthSpec = &spec.Block{
	Name:    "auth",
	In:      "http_api",
	Summary: "How every request to the http_api proves who sends it: exactly one of bearer, basic, api_key, oauth2, token_exchange and caller_token.",
	Example: `auth {
  bearer = "a-token"
}`,
	Attrs: []*spec.Attr{
		spec.String("bearer", "is a token sent as Authorization: Bearer …").MaySecret(),
	},
	Blocks: []spec.Nested{{Block: basicSpec, Max: 1}, {Block: apiKeySpec, Max: 1}, {Block: oauth2Spec, Max: 1}, {Block: tokenExchangeSpec, Max: 1}, {Block: callerTokenSpec, Max: 1}},
}

var basicSpec = &spec.Block{
	Name:    "basic",
	In:      authIn,
	Summary: "HTTP basic auth.",
	Example: `basic {
  username = "app"
  password = "a-password"
}`,
	Attrs: []*spec.Attr{
		spec.String("username", "is the user's name, without a colon").Mandatory(),
		spec.String("password", "is the user's password").Mandatory().MaySecret(),
	},
}

var apiKeySpec = &spec.Block{
	Name:    "api_key",
	In:      authIn,
	Summary: "A key sent in a header, or as a query parameter.",
	Example: `api_key {
  header = "X-Api-Key"
  value  = "a-key"
}`,
	Attrs: []*spec.Attr{
		spec.String("header", "is the header that carries the key, such as X-Api-Key; or give query").Unevaluated(),
		spec.String("query", "is the query parameter that carries the key, such as api_key; or give header").Unevaluated(),
		spec.String("value", "is the key").Mandatory().MaySecret(),
	},
}

var callerTokenSpec = &spec.Block{
	Name:    "caller_token",
	In:      authIn,
	Summary: "The caller's own JWT, as the server's auth block verified it, sent as a bearer token when its aud names audience.",
	Doc: "A call without such a token (over stdio, with a static token, or a JWT meant only for this server) fails before anything is sent, saying why. " +
		"The weaker option: the upstream gets a token that also opens this server, so ask the identity provider for tokens scoped to both, or prefer a service credential (oauth2). " +
		"The token is redacted from the results of every tool that sends it, and never given to programs.",
	Example: `caller_token {
  audience = "https://orders.example.com"
}`,
	Attrs: []*spec.Attr{
		spec.String("audience", "is what a caller's token must name in its aud claim to be sent to this API, such as its base URL").Mandatory(),
	},
}

// decodeAuth decodes the auth block, which holds exactly one scheme.
func (a *API) decodeAuth(ctx *engine.DecodeContext, block *hcl.Block) hcl.Diagnostics {
	v, diags := AuthSpec.Decode(block.Body, ctx)
	var ranges []hcl.Range
	if attr := v.Attr("bearer"); attr != nil {
		ranges = append(ranges, attr.NameRange)
	}
	var scheme *hcl.Block
	for _, n := range AuthSpec.Blocks {
		for _, b := range v.Blocks(n.Block.Name) {
			ranges = append(ranges, b.DefRange)
			scheme = b
		}
	}
	switch {
	case len(ranges) == 0:
		return append(diags, errorf(block.DefRange, "Empty auth block",
			`An auth block needs exactly one of bearer = "…", basic { username = …, password = … }, api_key { header = "…", value = … }, oauth2 { token_url = "…", client_id = …, client_secret = … }, token_exchange { token_url = "…", client_id = …, client_secret = …, audience = "…" } or caller_token { audience = "…" }.`))
	case len(ranges) > 1:
		sortRanges(ranges)
		return append(diags, errorf(ranges[1], "Conflicting auth schemes",
			"An auth block takes exactly one of bearer, basic, api_key, oauth2, token_exchange and caller_token; another one is already given at %s.", ranges[0]))
	}
	if attr := v.Attr("bearer"); attr != nil {
		token := v.String("bearer")
		diags = append(diags, a.checkSet(ctx, attr.Expr, "bearer token", token)...)
		if v.Has("bearer") {
			diags = append(diags, a.setCredential(ctx, attr.Expr.Range(), "bearer", "Bearer "+token, token)...)
		}
		return diags
	}
	switch scheme.Type {
	case "oauth2", "token_exchange":
		return append(diags, a.decodeOAuth2(ctx, scheme)...)
	case "caller_token":
		return append(diags, a.decodeCallerToken(ctx, scheme)...)
	case "basic":
		return append(diags, a.decodeBasic(ctx, scheme)...)
	}
	return append(diags, a.decodeAPIKey(ctx, scheme)...)
}

// decodeCallerToken decodes auth { caller_token { … } }.
func (a *API) decodeCallerToken(ctx *engine.DecodeContext, b *hcl.Block) hcl.Diagnostics {
	v, diags := callerTokenSpec.Decode(b.Body, ctx)
	if diags.HasErrors() {
		return diags
	}
	if strings.TrimSpace(v.String("audience")) == "" {
		diags = append(diags, errorf(v.Attr("audience").Expr.Range(), "Empty audience",
			"audience is what a caller's token must name in its aud claim to be sent to this API, such as its base URL; it cannot be empty."))
	}
	a.callerAudience = v.String("audience")
	return diags
}

// decodeBasic decodes auth { basic { … } }.
func (a *API) decodeBasic(ctx *engine.DecodeContext, b *hcl.Block) hcl.Diagnostics {
	v, diags := basicSpec.Decode(b.Body, ctx)
	if diags.HasErrors() {
		return diags
	}
	user, pass := v.String("username"), v.String("password")
	diags = append(diags, a.checkSet(ctx, v.Attr("password").Expr, "password", user+pass)...)
	if strings.Contains(user, ":") {
		return append(diags, errorf(v.Attr("username").Expr.Range(), "Invalid username", "A basic auth username cannot contain a colon."))
	}
	encoded := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	return append(diags, a.setCredential(ctx, v.Attr("password").Expr.Range(), "password", "Basic "+encoded, pass, encoded)...)
}

// decodeAPIKey decodes auth { api_key { … } }.
func (a *API) decodeAPIKey(ctx *engine.DecodeContext, b *hcl.Block) hcl.Diagnostics {
	v, diags := apiKeySpec.Decode(b.Body, ctx)
	if diags.HasErrors() {
		return diags
	}
	value := v.String("value")
	diags = append(diags, a.checkSet(ctx, v.Attr("value").Expr, "API key", value)...)
	header, query := v.Attr("header"), v.Attr("query")
	switch {
	case header != nil && query != nil:
		r := []hcl.Range{header.NameRange, query.NameRange}
		sortRanges(r)
		return append(diags, errorf(r[1], "Conflicting api_key placement",
			"An api_key goes either in a header or in a query parameter, not both; the other is given at %s.", r[0]))
	case header == nil && query == nil:
		return append(diags, errorf(b.DefRange, "Missing api_key placement",
			`An api_key needs header = "X-Api-Key" to send the key in a header, or query = "api_key" to send it as a query parameter.`))
	}
	if header != nil {
		name, more := ctx.String(header.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return diags
		}
		if d := checkHeaderName(name, header.Expr.Range()); d != nil {
			return append(diags, d)
		}
		if !validHeaderValue(value) {
			return append(diags, errorf(v.Attr("value").Expr.Range(), "Invalid api_key value", "The key holds a line break, a NUL byte or another control character, which a header value cannot hold."))
		}
		a.header[http.CanonicalHeaderKey(name)] = []string{value}
	} else {
		name, more := ctx.String(query.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return diags
		}
		if name == "" {
			return append(diags, errorf(query.Expr.Range(), "Invalid api_key query", "The name of the query parameter cannot be empty."))
		}
		a.query = joinQuery(a.query, url.QueryEscape(name)+"="+url.QueryEscape(value))
		a.keyParam, a.key = name, value
		if ctx.Redactor != nil {
			ctx.Redactor.Add(url.QueryEscape(value))
		}
	}
	if ctx.Redactor != nil {
		ctx.Redactor.Add(value)
	}
	return diags
}

// checkSet notes a credential that is empty: the configuration still loads
// (so that a user can validate and list it before any secret is set), with
// a warning, and every call through the API fails saying what to set.
func (a *API) checkSet(ctx *engine.DecodeContext, e hcl.Expression, what, value string) hcl.Diagnostics {
	if value != "" {
		return nil
	}
	how := "give it a value"
	if ctx.HowToSet != nil {
		if h := ctx.HowToSet(e); h != "" {
			how = h
		}
	}
	a.unset = fmt.Sprintf("the %s of http_api %q is empty: %s", what, a.name, how)
	return hcl.Diagnostics{warnf(e.Range(), "Empty credential",
		"The %s of http_api %q is empty, so every call through it will fail until it is set: %s.", what, a.name, how)}
}

// setCredential sets the Authorization header and records its secrets.
func (a *API) setCredential(ctx *engine.DecodeContext, rng hcl.Range, what, header string, secrets ...string) hcl.Diagnostics {
	if !validHeaderValue(header) {
		return hcl.Diagnostics{errorf(rng, "Invalid "+what, "The %s holds a line break, a NUL byte or another control character, which a header value cannot hold.", what)}
	}
	a.header["Authorization"] = []string{header}
	if ctx.Redactor != nil {
		for _, s := range secrets {
			ctx.Redactor.Add(s)
		}
	}
	return nil
}
