package openapi

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A parameter that carries a credential, or that switches how the API
// answers or receives (a response format, a JSONP callback, an upload
// protocol, a field mask), is the http_api's business, never the model's:
// a model asked for an access token may well make one up or paste one it
// has seen, and one that sets alt=proto or callback=f breaks the outputs.
// Such parameters are taken out of the operations before their tools are
// built: the http_api's auth sends the credential, and the API's defaults
// apply to the rest (a fixed value goes in the base URL's query string).
// The import report lists what moved and why; x-mcp-argument: true on a
// parameter (in the document or an overlay) keeps it an argument, and
// x-mcp-argument: false moves any other.
//
// A required query parameter or header that can take one value only (an
// enum of one, a const; Azure's api-version, which is the version of the
// API the document describes) is no argument either: the tool sends that
// value, or, when every imported operation takes it with the same value,
// the http_api's query (or headers) does, once for all.

// Moved is a parameter that is not a tool argument, and why.
type Moved struct {
	Operation string // "GET /pets (listPets)"
	In, Name  string // where the parameter goes (query, header, cookie) and its name
	Reason    string
	Value     string // the value it is sent with, when it has one
}

// Reasons a parameter is not an argument, as the import report says them.
const (
	movedAuth       = "a credential, which the http_api's auth sends"
	movedAltAuth    = "a credential the http_api's auth replaces"
	movedOverlay    = "x-mcp-argument is false"
	movedFormat     = "a switch of the response's format or layout: the API's default (JSON) is what the outputs read"
	movedJSONP      = "a JSONP callback, which would wrap the JSON the outputs read"
	movedUpload     = "a switch of the upload protocol: a tool sends its body as the document describes it"
	movedFieldMask  = "a field mask: the output schema describes the whole response"
	movedQuotaUser  = "a quota attribution of Google APIs, the same for every call when set: put it in the base URL's query string"
	movedNotPlainly = "x-mcp-argument is neither true nor false, and was ignored"
	movedFixed      = "required, with one value the document allows: the tool sends it"
	movedFixedAPI   = "required by every operation, with one value the document allows: the http_api sends it"
)

// googleParams are the standard query parameters of Google's APIs
// (https://cloud.google.com/apis/docs/system-parameters), by name, and
// why each is not an argument. fields stays one when the operation
// answers with a body that has no schema, which a field mask keeps small.
var googleParams = map[string]string{
	"access_token":    movedAltAuth,
	"oauth_token":     movedAltAuth,
	"key":             movedAltAuth,
	"alt":             movedFormat,
	"prettyPrint":     movedFormat,
	"$.xgafv":         movedFormat,
	"callback":        movedJSONP,
	"upload_protocol": movedUpload,
	"uploadType":      movedUpload,
	"quotaUser":       movedQuotaUser,
	"fields":          movedFieldMask,
}

// paramRules decide which parameters of a document are not arguments.
type paramRules struct {
	// schemes are the document's apiKey schemes by where their key goes
	// and its name ("query\x00api_key"; a header's name in lower case),
	// with the scheme's name.
	schemes map[string]string
	// auth is the http_api's auth, nil without one; its keys are the
	// headers it sends besides.
	auth *authDecl
	// google is set for a document of Google's APIs.
	google bool
	// spec is the document, whose references parameters' schemas follow.
	spec *Spec
	// version is the document's info.version.
	version string
}

// paramKey is the key of schemes for a parameter.
func paramKey(in, name string) string {
	if in == "header" {
		name = strings.ToLower(name)
	}
	return in + "\x00" + name
}

// paramRules reads what decides: the security schemes, the auth and the
// family of the API.
func (b *builder) paramRules(api *apiDecl) *paramRules {
	r := &paramRules{schemes: map[string]string{}, auth: api.auth, spec: b.spec}
	schemes := b.schemes()
	for _, name := range sortedKeys(schemes) {
		v, _, _, err := b.spec.deref(schemes[name], b.spec.Location)
		s := obj(v)
		if err != nil || !strings.EqualFold(str(s["type"]), "apiKey") || str(s["name"]) == "" {
			continue
		}
		if k := paramKey(str(s["in"]), str(s["name"])); r.schemes[k] == "" {
			r.schemes[k] = name
		}
	}
	info := obj(b.spec.Root["info"])
	r.version = str(info["version"])
	host := ""
	if u, err := url.Parse(api.baseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	r.google = str(info["x-providerName"]) == "googleapis.com" || host == "googleapis.com" || strings.HasSuffix(host, ".googleapis.com")
	return r
}

// why says why p is not an argument of op's tool, or "" when it is one.
func (r *paramRules) why(op *Operation, p Param) string {
	switch v := p.Argument.(type) {
	case nil:
	case bool:
		if v {
			return ""
		}
		return movedOverlay
	}
	if p.In != "query" && p.In != "header" {
		return "" // a path parameter names what is acted on; a cookie is never an argument
	}
	if scheme := r.schemes[paramKey(p.In, p.Name)]; scheme != "" {
		if r.auth != nil && r.auth.scheme == scheme {
			return movedAuth
		}
		return fmt.Sprintf("a credential of the security scheme %q, which the http_api's auth replaces", scheme)
	}
	if p.In == "header" && r.auth != nil {
		for _, k := range r.auth.keys {
			if strings.EqualFold(k.header, p.Name) {
				return movedAuth
			}
		}
	}
	if r.auth != nil && r.auth.synthetic && p.In == r.auth.in && (p.In == "query" && p.Name == r.auth.param || p.In == "header" && strings.EqualFold(p.Name, r.auth.param)) {
		return movedAuth
	}
	if credentialName(p.In, p.Name) {
		return movedAltAuth
	}
	if p.In != "query" {
		return ""
	}
	if r.google {
		why := googleParams[p.Name]
		if why == movedFieldMask && op.Response == nil && op.MediaType != "" {
			return "" // a body without a schema: a field mask keeps a large one small
		}
		return why
	}
	switch strings.ToLower(p.Name) {
	case "callback", "jsonp", "jsonp_callback", "jsonpcallback":
		if strings.Contains(strings.ToLower(p.Description), "jsonp") {
			return movedJSONP
		}
	case "upload_protocol", "uploadtype", "$.xgafv":
		return googleParams[p.Name]
	}
	return ""
}

// credentialName reports whether a parameter is a credential by its name
// alone, in any API: an API key in the query or a header (api_key,
// apiKey, X-API-Key, X-ListenAPI-Key), an API or auth token, an API or
// client secret, or an OAuth access token (RFC 6750's access_token).
func credentialName(in, name string) bool {
	n := strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(name))
	if in != "query" && in != "header" {
		return false
	}
	n = strings.TrimPrefix(n, "x")
	switch n {
	case "accesstoken", "apitoken", "authtoken", "apisecret", "clientsecret":
		return true
	}
	return strings.HasSuffix(n, "apikey")
}

// credentialAuth is, for a document whose security schemes give the
// http_api no auth, an api_key auth made from the credential parameter
// (see credentialName) that most operations take: without it, taking
// that parameter out of the tools would leave no way to send the key.
func credentialAuth(ops []*Operation) *authDecl {
	counts := map[string]int{}
	for _, op := range ops {
		seen := map[string]bool{}
		for _, p := range op.Params {
			if p.Argument == true || !credentialName(p.In, p.Name) || p.In == "header" && !headerToken(p.Name) {
				continue
			}
			if k := p.In + "\x00" + p.Name; !seen[k] {
				seen[k] = true
				counts[k]++
			}
		}
	}
	if len(counts) == 0 {
		return nil
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ci, cj := counts[keys[i]], counts[keys[j]]
		return ci > cj || ci == cj && keys[i] < keys[j]
	})
	in, name, _ := strings.Cut(keys[0], "\x00")
	return &authDecl{kind: "api_key", in: in, param: name, synthetic: true}
}

// moveParams takes the parameters that are not arguments out of op, and
// returns them.
func (r *paramRules) moveParams(op *Operation) []Moved {
	var moved []Moved
	kept := op.Params[:0:0]
	for _, p := range op.Params {
		if _, ok := p.Argument.(bool); !ok && p.Argument != nil {
			op.Notes = append(op.Notes, fmt.Sprintf("the parameter %q: %s", p.Name, movedNotPlainly))
		}
		if why := r.why(op, p); why != "" {
			moved = append(moved, Moved{Operation: describeOp(op), In: p.In, Name: p.Name, Reason: why})
			continue
		}
		if v, ok := r.fixedValue(p); ok {
			op.Fixed = append(op.Fixed, Fixed{In: p.In, Name: p.Name, Value: v})
			moved = append(moved, Moved{Operation: describeOp(op), In: p.In, Name: p.Name, Reason: movedFixed, Value: v})
			continue
		}
		kept = append(kept, p)
	}
	op.Params = kept
	return moved
}

// azureVersion is how Azure writes an API version: 2022-11-01, or
// 2023-04-01-preview.
var azureVersion = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-preview)?$`)

// fixedValue is the one value a required query parameter or header p
// can take, as sent; ok is false when it can take others or is not
// required. That is the value of an enum of one (not an x-ms-enum with
// modelAsString, which lists the values known so far) or of a const. Azure's
// api-version takes the value of its enum of one, open or not; without
// one, the one value its default and examples agree on, else the
// document's version when it is a date: a document of Azure Resource
// Manager describes one version.
func (r *paramRules) fixedValue(p Param) (string, bool) {
	if !p.Required || p.Argument != nil || p.In != "query" && p.In != "header" ||
		p.In == "header" && implicitHeaders[strings.ToLower(p.Name)] {
		return "", false // a header the HTTP client sets, such as Transfer-Encoding, is left out
	}
	v, _, _, err := r.spec.deref(p.Schema, p.Doc)
	if err != nil {
		return "", false
	}
	s := obj(v)
	apiVersion := p.In == "query" && strings.EqualFold(p.Name, "api-version")
	var values []any
	if e, ok := s["enum"].([]any); ok {
		if len(e) != 1 || (p.OpenEnum || openEnum(s)) && !apiVersion {
			return "", false // others allowed, or may come
		}
		values = e
	}
	if c, ok := s["const"]; ok {
		values = append(values, c)
	}
	if len(values) == 0 && apiVersion {
		if d, ok := s["default"]; ok {
			values = append(values, d)
		}
		values = append(values, p.Examples...)
		if len(values) == 0 && azureVersion.MatchString(r.version) {
			values = append(values, r.version)
		}
	}
	if len(values) == 0 {
		return "", false
	}
	text, ok := scalarText(values[0])
	for _, v := range values[1:] {
		if t, same := scalarText(v); !same || t != text {
			return "", false
		}
	}
	return text, ok
}

// scalarText is a string, number or boolean of JSON as a query string or
// a header carries it.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

// MovedSummary sums up Moved: one line per reason, with the parameters
// and the number of tools they were taken from.
func (r *Result) MovedSummary() []string {
	type group struct {
		params, ops map[string]bool
	}
	groups := map[string]*group{}
	var reasons []string
	for _, m := range r.Moved {
		g := groups[m.Reason]
		if g == nil {
			g = &group{params: map[string]bool{}, ops: map[string]bool{}}
			groups[m.Reason] = g
			reasons = append(reasons, m.Reason)
		}
		param := fmt.Sprintf("%s %q", m.In, m.Name)
		if m.Value != "" {
			param += fmt.Sprintf(" = %q", m.Value)
		}
		g.params[param] = true
		g.ops[m.Operation] = true
	}
	out := make([]string, len(reasons))
	for i, why := range reasons {
		g := groups[why]
		tools := "tools"
		if len(g.ops) == 1 {
			tools = "tool"
		}
		out[i] = fmt.Sprintf("%s (%d %s): %s", strings.Join(sortedKeys(g.params), ", "), len(g.ops), tools, why)
	}
	sort.Strings(out)
	return out
}
