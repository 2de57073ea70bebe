package httpaction

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// action is a decoded http block: everything a call needs, compiled.
type action struct {
	api    *API // the upstream; for a url without api, one of the action's own
	ownAPI bool // api is the action's own, closed with it
	method string

	prefix string        // scheme://host and the base path
	path   pathTemplate  // the path after prefix
	params []pathParam   // the values of the placeholders, by index
	query  pairs         // the query string, the fixed part first
	header http.Header   // headers fixed at load, by canonical name
	fields []field       // headers computed per call
	dynHdr mapping.Value // one program yielding every header, or nil

	bodyKind  bodyKind
	bodyFixed []byte        // the body, when fixed at load
	bodyValue mapping.Value // the body's value, when computed per call
	form      pairs         // the form, when computed per call

	contentType string // of the body

	timeout  time.Duration
	maxBytes int64
	dynamic  bool // some value runs a program, so programs need an env

	dynURL  mapping.Value // url = expr(…): the whole URL, computed per call
	allowed hostList      // allowed_hosts of an action without api

	pages *paginate // the paginate block, or nil
}

var (
	_ engine.Action = (*action)(nil)
	_ io.Closer     = (*action)(nil)
)

// Close releases the idle connections of an action's own client (a url
// without api); an http_api's is closed with the http_api.
func (a *action) Close() error {
	if a.ownAPI && a.api != nil {
		return a.api.Close()
	}
	return nil
}

// bodyKind says how a body computed per call is encoded.
type bodyKind int

const (
	noBody bodyKind = iota
	jsonBody
	formBody
	rawBody
	multipartBody
)

// pathParam is the value of a placeholder.
type pathParam struct {
	name  string
	value mapping.Value // nil when fixed
	fixed string        // the escaped value, when fixed at load
}

// field is a query parameter, form field or header computed per call.
type field struct {
	name  string // as written; for headers, the canonical name
	key   string // the escaped name, for query and form
	value mapping.Value
}

// pairs is a query string or form: a part fixed at load, already encoded,
// then fields computed per call, then at most one program yielding a whole
// map.
type pairs struct {
	fixed   string
	fields  []field
	dynamic mapping.Value
}

func (p *pairs) isFixed() bool { return len(p.fields) == 0 && p.dynamic == nil }

// methods lists the methods an http block may use.
var methods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions,
}

// ActionSpec is the http block of a tool.
var ActionSpec = &spec.Block{
	Name:    "http",
	In:      "tool",
	Summary: "Sends one HTTP request per call: to a path under an http_api, or to a url.",
	Doc: "The values of path_params, query, headers, body, form, multipart and raw_body may be, or contain, expr(…) programs over args; " +
		"query, headers and form may also be one program yielding a whole map. Every placeholder needs a path_params entry and every entry must be used. " +
		"Arguments never change the scheme, host or port of a request: the final URL is checked before it is sent. " +
		"A computed url loses its fragment and has its query string escaped where it must be; build it with pathescape() and urlencode(). " +
		"Names and values of query and form are always escaped. " +
		"After the request, programs see status, headers (by lower-case name), body (decoded JSON, else text) and content_type; " +
		"a status of 400 or more is a tool error unless error_if decides otherwise.",
	Example: `http {
  api         = http_api.weather
  method      = "GET"
  path        = "/forecast/{city}"
  path_params = { city = "Paris" }
  query       = { units = expr("args.units") }
  timeout     = "5s"
}`,
	Attrs: []*spec.Attr{
		spec.String("api", "is the http_api the request goes to, as http_api.name").Unevaluated(),
		spec.String("method", "is the request's method: GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS").WithDefault("GET"),
		spec.String("path", "is, with api, the path under its base_url, with {name} placeholders").Unevaluated(),
		spec.Expr("url", "is, instead of api and path, an absolute URL with {name} placeholders in its path (its own client, no retries); "+
			"or expr(…) yielding the whole URL of each call, which requires allowed_hosts").Unevaluated(),
		spec.List("allowed_hosts", spec.KindString, "are, with url, the hosts a computed URL may reach and redirects may lead to (with a fixed url, only the latter; with api, put it on the http_api). "+
			"Entries are names (api.example.com), wildcards for subdomains (*.example.com: a.example.com, a.b.example.com, not example.com itself) or IP literals (10.0.0.1, [::1]), "+
			"each with an optional port from 1 to 65535; an entry without a port allows the scheme's default port only. "+
			"Names compare without regard to case or a final dot, and international names as punycode. "+
			"An IP address is reached only when listed as that address: wildcards never match one, and localhost is not 127.0.0.1. "+
			"A listed name is also checked at the addresses it resolves to, when the connection is opened: one resolving to a loopback, private, shared (100.64.0.0/10), "+
			"link-local or unspecified address is refused unless that address is listed too, which defeats DNS rebinding (behind a proxy set by HTTP_PROXY/HTTPS_PROXY the proxy resolves names and the check cannot apply). "+
			"A computed URL that is not absolute http(s), holds user:pass@ or names an unlisted host fails the call before anything is sent").Unevaluated(),
		spec.Map("path_params", spec.KindExpr, "fills the placeholders; every value is path-escaped, so it stays one path segment").Unevaluated(),
		spec.Map("query", spec.KindExpr, "are the query parameters; a list repeats the parameter, null leaves it out").Unevaluated(),
		spec.Map("headers", spec.KindExpr, "are the request's headers; null leaves one out, a list repeats it. "+
			"A value holding a control character (CR, LF, NUL…; tab is fine) fails the call before anything is sent, "+
			"and so does an invalid or reserved (Host, Content-Length, Transfer-Encoding) name yielded by a program").Unevaluated(),
		spec.Expr("body", "is any value, sent as JSON; a program yielding null sends no body").Unevaluated(),
		spec.Map("form", spec.KindExpr, "is sent as application/x-www-form-urlencoded").Unevaluated(),
		spec.Map("multipart", spec.KindExpr, "is sent as multipart/form-data: a part per field (a list repeats the field, null leaves it out), strings, numbers and booleans as text, objects as JSON parts. Parts are text fields: a file's content is sent as text, with no file name").Unevaluated(),
		spec.Expr("raw_body", "is a string sent as is").Unevaluated(),
		spec.String("content_type", "is the type of raw_body, body or form").DefaultIs("text/plain; charset=utf-8 for raw_body").Unevaluated(),
		spec.Duration("timeout", "bounds this request").DefaultIs("the http_api's timeout"),
		spec.Int("max_response_bytes", "is the largest body read").AtLeast(1).DefaultIs("the http_api's"),
	},
	Blocks: []spec.Nested{{Block: PaginateSpec, Max: 1}},
}

// decodeAction decodes an http block. It returns nil when the block, or the
// http_api it refers to, has errors; it reports all of its own.
func decodeAction(ctx *engine.DecodeContext, block *hcl.Block) (*action, hcl.Diagnostics) {
	v, diags := ActionSpec.Decode(block.Body, ctx)
	a := &action{method: strings.ToUpper(v.String("method")), timeout: v.Duration("timeout"), maxBytes: v.Int("max_response_bytes")}
	broken := false // the http_api referred to has errors of its own
	if attr := v.Attr("api"); attr != nil {
		r, more := ctx.Upstream(attr.Expr, "http_api")
		diags = append(diags, more...)
		a.api, _ = r.(*API)
		broken = a.api == nil
	}
	if attr := v.Attr("method"); v.Has("method") && !slices.Contains(methods, a.method) {
		diags = append(diags, errorf(attr.Expr.Range(), "Invalid HTTP method",
			"%q is not a method an http block can send; use one of %s.", v.String("method"), strings.Join(methods, ", ")))
	}
	diags = append(diags, a.decodeTarget(ctx, block, v)...)

	if attr := v.Attr("query"); attr != nil {
		query, more := decodePairs(ctx, attr, "query parameter")
		diags = append(diags, more...)
		a.query.fixed = joinQuery(a.query.fixed, query.fixed)
		a.query.fields, a.query.dynamic = query.fields, query.dynamic
	}
	diags = append(diags, a.decodeBody(ctx, v)...)
	var hdr http.Header
	if attr := v.Attr("headers"); attr != nil {
		var more hcl.Diagnostics
		hdr, more = a.decodeHeaders(ctx, attr)
		diags = append(diags, more...)
	}
	for _, b := range v.Blocks("paginate") {
		var more hcl.Diagnostics
		a.pages, more = decodePaginate(ctx, b)
		diags = append(diags, more...)
	}
	if broken || a.api == nil || diags.HasErrors() {
		return nil, diags
	}
	a.inherit(hdr)
	return a, diags
}

// decodeTarget reads where the request goes: path under the api, or url
// without one, the placeholders' values, and allowed_hosts.
func (a *action) decodeTarget(ctx *engine.DecodeContext, block *hcl.Block, v *spec.Values) hcl.Diagnostics {
	var diags hcl.Diagnostics
	target := v.Attr("url")
	if api := v.Attr("api"); api != nil {
		if target != nil {
			diags = append(diags, errorf(target.NameRange, "Unexpected url",
				"With api, the request goes to path, relative to the api's base_url; url is for requests without an api."))
		}
		if attr := v.Attr("allowed_hosts"); attr != nil {
			diags = append(diags, errorf(attr.NameRange, "Unexpected allowed_hosts",
				"The hosts an api's requests may be redirected to are the api's: move allowed_hosts to its http_api block."))
		}
		target = v.Attr("path")
		if target == nil && v.Attr("url") == nil {
			diags = append(diags, errorf(block.DefRange, "Missing path",
				`An http block with api needs path, relative to the api's base_url, such as path = "/users/{id}".`))
		}
	} else {
		if attr := v.Attr("path"); attr != nil {
			diags = append(diags, errorf(attr.NameRange, "Missing api",
				`path is relative to the base_url of an http_api: add api = http_api.<name>, or give an absolute url instead.`))
		}
		if target == nil && v.Attr("path") == nil {
			diags = append(diags, errorf(block.DefRange, "Missing url",
				`An http block needs api = http_api.<name> and path = "…", or an absolute url = "https://…".`))
		}
		if attr := v.Attr("allowed_hosts"); attr != nil {
			var more hcl.Diagnostics
			a.allowed, more = decodeHosts(ctx, attr)
			diags = append(diags, more...)
		}
	}
	if target != nil && target.Name == "url" {
		if m, more := ctx.Value(target.Expr); !more.HasErrors() && !isConst(m) {
			return append(diags, a.decodeDynamicURL(ctx, target, v)...)
		}
	}
	var text string
	var phs []placeholder
	if target != nil {
		var more hcl.Diagnostics
		text, phs, more = readTarget(ctx, target)
		diags = append(diags, more...)
		if more.HasErrors() {
			target = nil
		}
	}

	// The placeholders' values.
	index := map[string]int{}
	named := map[string]bool{} // every key of path_params, even one with errors
	if attr := v.Attr("path_params"); attr != nil {
		var more hcl.Diagnostics
		a.params, named, more = decodePathParams(ctx, attr, phs, target != nil)
		diags = append(diags, more...)
		for i, p := range a.params {
			index[p.name] = i
		}
	}
	if target == nil || named == nil {
		return diags // named is nil when path_params could not be read at all
	}
	for _, ph := range phs {
		if !named[ph.name] {
			diags = append(diags, errorf(textRange(target.Expr, text, ph.start, ph.end), "Missing path parameter",
				"The %s uses {%s}, but path_params has no %q entry: add path_params = { %s = expr(\"args.%s\") }, or the value it should have.",
				target.Name, ph.name, ph.name, ph.name, ph.name))
		}
	}
	if target.Name == "url" {
		api, more := a.decodeURL(ctx, target, text, phs, index)
		a.api, a.ownAPI = api, true
		return append(diags, more...)
	}
	if a.api != nil {
		diags = append(diags, a.decodePath(target, text, phs, index, a.api.prefix, 0)...)
	}
	return diags
}

// readTarget reads a fixed url or path and its placeholders, and reports
// those outside the path.
func readTarget(ctx *engine.DecodeContext, target *hcl.Attribute) (string, []placeholder, hcl.Diagnostics) {
	written, diags := ctx.String(target.Expr)
	if diags.HasErrors() {
		return "", nil, diags
	}
	phs, err := scanPlaceholders(written)
	if err != nil {
		return "", nil, append(diags, errorf(textRange(target.Expr, written, err.start, err.end), "Invalid "+target.Name, "%s.", text.UpperFirst(err.msg)))
	}
	// A placeholder outside the path gets the one error that says so, and
	// no advice to give it a path parameter.
	phs, outside := placeholdersOutsidePath(target, written, phs)
	return written, phs, append(diags, outside...)
}

// inherit completes a decoded action with what its upstream says: headers
// (User-Agent, headers, auth), the body's type, the action's own headers
// hdr, the query, the bounds.
func (a *action) inherit(hdr http.Header) {
	a.header = a.api.header.Clone()
	if a.contentType != "" {
		a.header["Content-Type"] = []string{a.contentType}
	}
	for k, v := range hdr {
		a.header[k] = v
	}
	a.query.fixed = a.api.queryFor(&a.query)
	if a.timeout == 0 {
		a.timeout = a.api.timeout
	}
	if a.maxBytes == 0 {
		a.maxBytes = a.api.maxBytes
	}
	if a.maxBytes <= 0 {
		a.maxBytes = engine.DefaultSettings().MaxResponseBytes
	}
	a.dynamic = len(a.fields) > 0 || a.dynHdr != nil || !a.query.isFixed() || a.bodyKind != noBody || a.dynURL != nil || a.pages != nil
	for _, p := range a.params {
		if p.value != nil {
			a.dynamic = true
		}
	}
}

// placeholdersOutsidePath reports the placeholders of a url or path that
// stand outside its path (in the scheme, host or port of a url, or in the
// query string), and returns the others.
func placeholdersOutsidePath(target *hcl.Attribute, text string, phs []placeholder) ([]placeholder, hcl.Diagnostics) {
	start := 0
	if target.Name == "url" {
		if scheme, rest, ok := strings.Cut(text, "://"); ok {
			start = len(scheme) + 3 + len(rest)
			if i := strings.IndexAny(rest, "/?#"); i >= 0 {
				start = len(scheme) + 3 + i
			}
		}
	}
	end := len(text)
	if i := strings.IndexAny(text[start:], "?#"); i >= 0 {
		end = start + i
	}
	var diags hcl.Diagnostics
	var in []placeholder
	for _, ph := range phs {
		switch {
		case ph.start < start:
			diags = append(diags, errorf(textRange(target.Expr, text, ph.start, ph.end), "Placeholder outside the path",
				"Placeholders may only stand in the path of a url: the scheme, host and port of a request are fixed."))
		case ph.start >= end:
			diags = append(diags, errorf(textRange(target.Expr, text, ph.start, ph.end), "Placeholder in the query string",
				"Placeholders may only stand in the path; give query parameters with query = { %s = expr(\"…\") }.", ph.name))
		default:
			in = append(in, ph)
		}
	}
	return in, diags
}

// decodePath compiles the path of a request, written in text at offset off
// (a url's path starts after its host), under prefix.
func (a *action) decodePath(target *hcl.Attribute, text string, phs []placeholder, index map[string]int, prefix string, off int) hcl.Diagnostics {
	var diags hcl.Diagnostics
	rest := text[off:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		return append(diags, errorf(textRange(target.Expr, text, off+i, len(text)), "Invalid "+target.Name,
			"A fragment (#…) is never sent to a server; remove it."))
	}
	path, q, hasQuery := strings.Cut(rest, "?")
	// phs stand in the path: placeholdersOutsidePath set the others apart.
	inPath := make([]placeholder, len(phs))
	for i, ph := range phs {
		ph.start -= off
		ph.end -= off
		inPath[i] = ph
	}
	if diags.HasErrors() {
		return diags
	}
	if path != "" && path[0] != '/' {
		path = "/" + path
		for i := range inPath {
			inPath[i].start++
			inPath[i].end++
		}
	}
	a.prefix = prefix
	a.path = compilePath(path, inPath, func(name string) int {
		if i, ok := index[name]; ok {
			return i
		}
		return 0
	})
	if hasQuery {
		a.query.fixed = escapeLiteral(q, true)
	}
	return diags
}

// decodeURL reads the url of an action without api, and makes the action's
// own upstream for it.
func (a *action) decodeURL(ctx *engine.DecodeContext, target *hcl.Attribute, rawURL string, phs []placeholder, index map[string]int) (*API, hcl.Diagnostics) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return nil, hcl.Diagnostics{errorf(target.Expr.Range(), "Invalid url",
			"%q is not an absolute URL: write it like https://api.example.com/users/{id}, or use api and path.", rawURL)}
	}
	hostEnd := len(scheme) + 3 + len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		hostEnd = len(scheme) + 3 + i
	}
	for _, ph := range phs {
		if ph.start < hostEnd {
			return nil, hcl.Diagnostics{errorf(textRange(target.Expr, rawURL, ph.start, ph.end), "Placeholder outside the path",
				"Placeholders may only stand in the path of a url: the scheme, host and port of a request are fixed.")}
		}
	}
	origin := rawURL[:hostEnd]
	u, err := url.Parse(origin)
	if err == nil {
		err = checkOrigin(origin, u)
	}
	if err != nil {
		return nil, hcl.Diagnostics{errorf(textRange(target.Expr, rawURL, 0, hostEnd), "Invalid url", "%s.", text.UpperFirst(text.UnwrapURLError(err).Error()))}
	}
	api := &API{
		header:   http.Header{"User-Agent": {userAgent}},
		timeout:  ctx.Settings.Timeout,
		maxBytes: ctx.Settings.MaxResponseBytes,
	}
	api.setOrigin(u)
	diags := a.decodePath(target, rawURL, phs, index, api.prefix, hostEnd)
	if diags.HasErrors() {
		return nil, diags
	}
	api.client = newClient(&reach{scheme: api.scheme, host: api.host, allowed: a.allowed}, nil, nil)
	return api, diags
}

func isConst(v mapping.Value) bool {
	_, ok := mapping.IsConst(v)
	return ok
}

// decodeDynamicURL reads url = expr(…): a program yielding the whole URL of
// each request, which may only reach the hosts of allowed_hosts.
func (a *action) decodeDynamicURL(ctx *engine.DecodeContext, target *hcl.Attribute, v *spec.Values) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if a.allowed == nil && v.Attr("allowed_hosts") == nil {
		diags = append(diags, errorf(target.Expr.Range(), "Missing allowed_hosts",
			`A url computed per call could reach any host, the server's own network included: add allowed_hosts = ["api.example.com"] with the hosts it may reach.`))
	}
	if attr := v.Attr("path_params"); attr != nil {
		diags = append(diags, errorf(attr.NameRange, "Unexpected path_params",
			"A url computed by a program has no placeholders: build the whole URL in the program, escaping values with urlencode()."))
	}
	m, more := ctx.Value(target.Expr)
	diags = append(diags, more...)
	if rt := mapping.ResultType(m); !more.HasErrors() && rt != nil && rt.Kind() != reflect.String && rt.Kind() != reflect.Interface {
		diags = append(diags, errorf(target.Expr.Range(), "Invalid url", "url must yield a string, the whole URL, but this program yields %s.", rt))
	}
	if diags.HasErrors() {
		return diags
	}
	a.dynURL = m
	a.ownAPI = true
	a.api = &API{
		header:   http.Header{"User-Agent": {userAgent}},
		timeout:  ctx.Settings.Timeout,
		maxBytes: ctx.Settings.MaxResponseBytes,
		client:   newClient(&reach{allowed: a.allowed}, nil, nil),
	}
	return diags
}

// decodePathParams reads path_params and checks it against the
// placeholders; check is false when the path itself could not be read.
// It returns the names of all its entries, valid or not, or nil when they
// cannot be known.
func decodePathParams(ctx *engine.DecodeContext, attr *hcl.Attribute, phs []placeholder, check bool) ([]pathParam, map[string]bool, hcl.Diagnostics) {
	used := map[string]bool{}
	for _, ph := range phs {
		used[ph.name] = true
	}
	var params []pathParam
	var diags hcl.Diagnostics
	named := map[string]bool{}
	add := func(name string, keyRange, valueRange hcl.Range, v mapping.Value) {
		if check && !used[name] {
			diags = append(diags, errorf(keyRange, "Unused path parameter",
				"path_params has %q, but the path has no {%s} placeholder; use it in the path or remove it.", name, name))
			return
		}
		p := pathParam{name: name, value: v}
		if c, ok := mapping.IsConst(v); ok {
			s, ok := mapping.Scalar(c)
			switch {
			case !ok || c == nil:
				diags = append(diags, errorf(valueRange, "Invalid path parameter", "The value of %q must be a string or a number; got %s.", name, mapping.Describe(c)))
				return
			case s == "":
				diags = append(diags, errorf(valueRange, "Invalid path parameter", "The value of %q is empty, which would change the path.", name))
				return
			}
			p.value, p.fixed = nil, escapeParam(s)
		} else if rt := mapping.ResultType(v); rt != nil && !mapping.ScalarKind(rt.Kind()) {
			diags = append(diags, errorf(valueRange, "Invalid path parameter", "The value of %q must be a string or a number, but this program yields %s.", name, rt))
			return
		}
		params = append(params, p)
	}
	entries, ok, more := objectEntries(ctx, attr.Expr)
	diags = append(diags, more...)
	if ok {
		for _, e := range entries {
			named[e.name] = true
			v, more := ctx.Value(e.expr)
			diags = append(diags, more...)
			if !more.HasErrors() {
				add(e.name, e.keyRange, e.expr.Range(), v)
			}
		}
		return params, named, diags
	}
	v, more := ctx.Value(attr.Expr)
	diags = append(diags, more...)
	if more.HasErrors() {
		return nil, nil, diags
	}
	keys, values, ok := mapping.Fields(v)
	if !ok {
		if c, isConst := mapping.IsConst(v); isConst && c == nil {
			return nil, named, diags
		}
		return nil, nil, append(diags, errorf(attr.Expr.Range(), "Invalid path_params",
			`path_params must be a map written in the configuration, such as { id = expr("args.id") }: each placeholder's value is checked when it loads.`))
	}
	for i, k := range keys {
		named[k] = true
		add(k, attr.Expr.Range(), attr.Expr.Range(), values[i])
	}
	return params, named, diags
}

// decodePairs reads query or form: a map whose values may be programs, or
// one program yielding a map. Fixed entries are encoded at load.
func decodePairs(ctx *engine.DecodeContext, attr *hcl.Attribute, what string) (pairs, hcl.Diagnostics) {
	var p pairs
	var fixed strings.Builder
	w := pairWriter{b: &fixed}
	var diags hcl.Diagnostics
	add := func(name string, rng hcl.Range, v mapping.Value) {
		if c, ok := mapping.IsConst(v); ok {
			if err := w.write(url.QueryEscape(name), name, c, what); err != nil {
				diags = append(diags, errorf(rng, "Invalid "+attr.Name, "%s.", text.UpperFirst(err.Error())))
			}
			return
		}
		p.fields = append(p.fields, field{name: name, key: url.QueryEscape(name), value: v})
	}
	var more hcl.Diagnostics
	p.dynamic, more = decodeMap(ctx, attr, true, func(name string, _, valueRange hcl.Range, v mapping.Value) { add(name, valueRange, v) })
	p.fixed = fixed.String()
	return p, append(diags, more...)
}

// decodeMap reads attr, a map of names to values: written as an object,
// each entry is given to add in source order (sorted by name with sorted);
// a value known at load is given entry by entry too, with the attribute's
// range; one program that yields the whole map per call is returned.
func decodeMap(ctx *engine.DecodeContext, attr *hcl.Attribute, sorted bool, add func(name string, keyRange, valueRange hcl.Range, v mapping.Value)) (mapping.Value, hcl.Diagnostics) {
	entries, ok, diags := objectEntries(ctx, attr.Expr)
	if ok {
		if sorted {
			slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
		}
		for _, e := range entries {
			v, more := ctx.Value(e.expr)
			diags = append(diags, more...)
			if !more.HasErrors() {
				add(e.name, e.keyRange, e.expr.Range(), v)
			}
		}
		return nil, diags
	}
	v, more := ctx.Value(attr.Expr)
	diags = append(diags, more...)
	if more.HasErrors() {
		return nil, diags
	}
	if keys, values, ok := mapping.Fields(v); ok {
		for i, k := range keys {
			add(k, attr.Expr.Range(), attr.Expr.Range(), values[i])
		}
		return nil, diags
	}
	if c, ok := mapping.IsConst(v); ok {
		if c != nil {
			diags = append(diags, errorf(attr.Expr.Range(), "Invalid "+attr.Name, "%s must be a map of names to values; got %s.", attr.Name, mapping.Describe(c)))
		}
		return nil, diags
	}
	if rt := mapping.ResultType(v); rt != nil && rt.Kind() != reflect.Map {
		return nil, append(diags, errorf(attr.Expr.Range(), "Invalid "+attr.Name, "%s must be a map of names to values, but this program yields %s.", attr.Name, rt))
	}
	return v, diags
}

// decodeHeaders reads the action's headers: the fixed ones are returned,
// the computed ones kept in a.
func (a *action) decodeHeaders(ctx *engine.DecodeContext, attr *hcl.Attribute) (http.Header, hcl.Diagnostics) {
	h := http.Header{}
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	add := func(name string, keyRange, valueRange hcl.Range, v mapping.Value) {
		if d := checkHeaderName(name, keyRange); d != nil {
			diags = append(diags, d)
			return
		}
		canon := http.CanonicalHeaderKey(name)
		if prev, dup := seen[canon]; dup && keyRange != attr.Expr.Range() {
			diags = append(diags, errorf(keyRange, "Duplicate header", "The header %q is already set at %s; header names ignore case.", name, prev))
			return
		}
		seen[canon] = keyRange
		c, ok := mapping.IsConst(v)
		if !ok {
			a.fields = append(a.fields, field{name: canon, value: v})
			return
		}
		values, err := headerValues(canon, c)
		if err != nil {
			diags = append(diags, errorf(valueRange, "Invalid header value", "%s.", text.UpperFirst(err.Error())))
			return
		}
		if values != nil {
			h[canon] = values
		}
	}
	var more hcl.Diagnostics
	a.dynHdr, more = decodeMap(ctx, attr, false, add)
	return h, append(diags, more...)
}

// decodeBody reads body, form or raw_body, at most one of them.
func (a *action) decodeBody(ctx *engine.DecodeContext, v *spec.Values) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var given []*hcl.Attribute
	for _, name := range []string{"body", "form", "multipart", "raw_body"} {
		if attr := v.Attr(name); attr != nil {
			given = append(given, attr)
		}
	}
	if len(given) > 1 {
		slices.SortFunc(given, func(x, y *hcl.Attribute) int { return x.Range.Start.Byte - y.Range.Start.Byte })
		return append(diags, errorf(given[1].NameRange, "Conflicting request bodies",
			"%q and %q cannot both be set: a request has one body. Keep one of body (sent as JSON), form, multipart and raw_body.", given[0].Name, given[1].Name))
	}
	ct := v.Attr("content_type")
	if ct != nil && len(given) == 0 {
		diags = append(diags, errorf(ct.NameRange, "Unexpected content_type",
			"content_type is the type of the request body, but this block sends none: add body, form, multipart or raw_body, or remove content_type."))
	}
	if len(given) == 0 {
		return diags
	}
	attr := given[0]
	a.contentType = map[string]string{
		"body":     "application/json",
		"form":     "application/x-www-form-urlencoded",
		"raw_body": "text/plain; charset=utf-8",
	}[attr.Name]
	if ct != nil && attr.Name == "multipart" {
		diags = append(diags, errorf(ct.NameRange, "Unexpected content_type",
			"A multipart body's type is multipart/form-data with a boundary of its own: remove content_type."))
	} else if ct != nil {
		s, more := ctx.String(ct.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() {
			if s == "" || !validHeaderValue(s) {
				diags = append(diags, errorf(ct.Expr.Range(), "Invalid content_type", "content_type must be a media type such as application/xml, on one line."))
			}
			a.contentType = s
		}
	}
	if a.method == http.MethodHead || a.method == http.MethodOptions {
		return append(diags, errorf(attr.NameRange, "Unexpected "+attr.Name, "A %s request carries no body.", a.method))
	}
	switch attr.Name {
	case "body":
		v, more := ctx.Value(attr.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return diags
		}
		if c, ok := mapping.IsConst(v); ok {
			b, err := json.Marshal(c)
			if err != nil {
				return append(diags, errorf(attr.Expr.Range(), "Invalid body", "The body cannot be written as JSON: %s.", err))
			}
			a.bodyFixed = b
			return diags
		}
		a.bodyKind, a.bodyValue = jsonBody, v
	case "form":
		p, more := decodePairs(ctx, attr, "form field")
		diags = append(diags, more...)
		if p.isFixed() {
			a.bodyFixed = []byte(p.fixed)
			return diags
		}
		a.bodyKind, a.form = formBody, p
	case "multipart":
		v, more := ctx.Value(attr.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return diags
		}
		if c, ok := mapping.IsConst(v); ok {
			if _, isMap := c.(map[string]any); !isMap {
				return append(diags, errorf(attr.Expr.Range(), "Invalid multipart", "multipart must be a map of field names to values; got %s.", mapping.Describe(c)))
			}
		}
		a.bodyKind, a.bodyValue = multipartBody, v
	case "raw_body":
		v, more := ctx.Value(attr.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return diags
		}
		if c, ok := mapping.IsConst(v); ok {
			s, isString := c.(string)
			if !isString {
				return append(diags, errorf(attr.Expr.Range(), "Invalid raw_body", "raw_body must be a string; got %s. To send JSON, use body.", mapping.Describe(c)))
			}
			a.bodyFixed = []byte(s)
			return diags
		}
		if rt := mapping.ResultType(v); rt != nil && rt.Kind() != reflect.String {
			return append(diags, errorf(attr.Expr.Range(), "Invalid raw_body", "raw_body must be a string, but this program yields %s. To send JSON, use body.", rt))
		}
		a.bodyKind, a.bodyValue = rawBody, v
	}
	return diags
}
