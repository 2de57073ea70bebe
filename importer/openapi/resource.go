package openapi

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/yosida95/uritemplate/v3"
	"github.com/zclconf/go-cty/cty"

	lang "github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/importer/internal/write"
)

// A GET operation may be imported as a resource, read by URI, instead of
// a tool: when Options.Resources names it, or when its x-mcp-resource is
// true. Its URI is <scheme>://<path>, the scheme the http_api's name with
// dashes for underscores (pet-store://pets). Without path parameters or
// required query parameters it is a resource block, its optional query
// parameters left out (the upstream's defaults apply); else it is a
// resource_template block whose variables are its path parameters
// ({pet_id}) and its query parameters ({?q,limit}, RFC 6570's form-style
// query expansion). Either reads through the same http block as the tool
// would, the response body its contents, with the response's media type.
// An operation that a URI cannot carry (a required header, a list in a
// required query parameter…) stays a tool, noted.

// resources are the operations imported as resources, and their URIs.
type resources struct {
	scheme string // the URIs' scheme
	served map[*tool]*served
	uris   map[string]bool
}

// served is what makes a tool's block a resource or a resource template.
type served struct {
	uri      string // the resource's URI, or the template's
	template bool
	mimeType string
}

// resourceWanted reports whether op is asked to be a resource: its
// x-mcp-resource says so, else one of Options.Resources matches its
// operationId, tool name (name) or path. Only a GET can be one.
func (b *builder) resourceWanted(op *Operation, name string) bool {
	switch v := op.Resource.(type) {
	case nil:
	case bool:
		if v && op.Method != "GET" {
			op.Notes = append(op.Notes, fmt.Sprintf("x-mcp-resource is for GET operations; a %s stays a tool", op.Method))
			return false
		}
		return v
	default:
		op.Notes = append(op.Notes, "ignored x-mcp-resource: it is neither true nor false")
	}
	return op.Method == "GET" && anyMatch(b.opts.Resources, op.ID, name, op.Path)
}

// resource returns op as a resource or a resource template, named from
// base, when it is asked to be one and can be; else nil, and op's tool
// notes why it is not one. Only a broken reference is an error.
func (b *builder) resource(op *Operation, base string, taken names) (*tool, error) {
	if !b.resourceWanted(op, base) {
		return nil, nil
	}
	name := taken.unique(base, maxToolName)
	t, why, err := b.asResource(op, name, nil)
	if t == nil {
		delete(taken, name)
		if why != "" {
			op.Notes = append(op.Notes, "not a resource: "+why)
		}
	}
	return t, err
}

// asResource builds the resource of op, or says why op cannot be one ("",
// when it cannot be a tool either: the tool's import says why). drop names
// optional query parameters to leave out besides those whose schema says
// they are lists or objects.
func (b *builder) asResource(op *Operation, name string, drop map[string]bool) (*tool, string, error) {
	if op.Body != nil {
		return nil, "it has a request body", nil
	}
	mt := mediaOnly(op.MediaType)
	if mt == "" && op.Response != nil {
		mt = "application/json" // a JSON schema under */*
	}
	if binaryMedia(mt) && !strings.HasPrefix(mt, "image/") && !strings.HasPrefix(mt, "audio/") {
		return nil, fmt.Sprintf("its response is %s, which the http action returns as text only when it is an image or audio", mt), nil
	}
	template := false
	for _, p := range op.Params {
		template = template || p.In == "path" || p.In == "query" && p.Required
	}
	// The parameters a URI cannot carry are left out when optional: the
	// upstream's defaults apply. Required ones are kept, and then the
	// arguments made of them are refused below.
	c := *op
	c.Params, c.Notes = nil, slices.Clip(op.Notes)
	left := []struct{ what, why string }{
		{"query parameter", "a resource is read at one URI, so the upstream's defaults apply"},
		{"query parameter", "a variable of a URI template holds one plain value"},
		{"header", "a URI carries no headers"},
	}
	leftNames := make([][]string, len(left))
	for _, p := range op.Params {
		i := -1
		switch {
		case p.Required || p.In == "cookie":
		case p.In == "query" && !template:
			i = 0
		case p.In == "query" && (!b.scalarParam(p) || drop[p.Name]):
			i = 1
		case p.In == "header":
			i = 2
		}
		if i < 0 {
			c.Params = append(c.Params, p)
		} else if p.In == "query" || headerToken(p.Name) && !implicitHeaders[strings.ToLower(p.Name)] {
			leftNames[i] = append(leftNames[i], fmt.Sprintf("%q", p.Name))
		}
	}
	t, err := b.build(&c, name)
	var broken *BrokenRef
	if errors.As(err, &broken) {
		return nil, "", err
	}
	if err != nil {
		return nil, "", nil
	}
	// An optional query parameter whose argument is not plain after all
	// (a nullable integer, a oneOf) is left out too, and the rest built
	// again.
	if drop == nil {
		drop = map[string]bool{}
		for _, f := range t.query {
			n, ok := argRef(f)
			if ok && !b.scalarArg(argNamed(t.args, n)) && slices.ContainsFunc(c.Params, func(p Param) bool { return p.In == "query" && p.Name == f.key && !p.Required }) {
				drop[f.key] = true
			}
		}
		if len(drop) > 0 {
			return b.asResource(op, name, drop)
		}
	}
	for i, l := range left {
		if n := leftNames[i]; len(n) == 1 {
			t.notes = append(t.notes, fmt.Sprintf("left out the optional %s %s: %s", l.what, n[0], l.why))
		} else if len(n) > 1 {
			t.notes = append(t.notes, fmt.Sprintf("left out the optional %ss %s: %s", l.what, andList(n), l.why))
		}
	}

	// Each argument is a variable of the URI: a path parameter or a query
	// parameter sent as it is, of one plain type.
	vars := map[string]bool{}
	pathKeys := map[string]field{}
	for _, f := range t.pathParams {
		pathKeys[f.key] = f
	}
	var queryVars, fixed []string
	for _, f := range t.query {
		if n, ok := argRef(f); ok {
			queryVars = append(queryVars, n)
			vars[n] = true
		} else if f.literal {
			fixed = append(fixed, uriLiteral(url.QueryEscape(f.key)+"="+url.QueryEscape(f.program)))
		}
	}
	for _, f := range t.pathParams {
		if n, ok := argRef(f); ok {
			vars[n] = true
		}
	}
	for _, a := range t.args {
		switch {
		case !vars[a.Name]:
			ref := regexp.MustCompile(`\bargs\.` + regexp.QuoteMeta(a.Name) + `\b`)
			for _, f := range t.headers {
				if !f.literal && ref.MatchString(f.program) {
					return nil, fmt.Sprintf("it needs the header %q, which a URI does not carry", f.key), nil
				}
			}
			return nil, fmt.Sprintf("its argument %q is a list or an object, which a URI template variable does not carry", a.Name), nil
		case !b.scalarArg(a):
			return nil, fmt.Sprintf("its argument %q is not a plain string, number or boolean, which a URI template variable carries", a.Name), nil
		}
	}

	// The URI: the path's text escaped where RFC 6570 wants it, its
	// placeholders the arguments' names or fixed values.
	var uri strings.Builder
	uri.WriteString(b.resources.scheme + "://")
	path, _, _ := strings.Cut(t.pathTemplate, "?")
	path = strings.TrimPrefix(path, "/")
	for path != "" {
		i := strings.IndexByte(path, '{')
		j := strings.IndexByte(path, '}')
		if i < 0 || j < i {
			uri.WriteString(uriLiteral(path))
			break
		}
		uri.WriteString(uriLiteral(path[:i]))
		f := pathKeys[path[i+1:j]]
		if f.literal {
			uri.WriteString(uriLiteral(url.PathEscape(f.program)))
		} else {
			n, _ := argRef(f)
			uri.WriteString("{" + n + "}")
		}
		path = path[j+1:]
	}
	// Fixed query parameters (/#Action=List, a required one with one
	// allowed value) tell resources on one path apart.
	expand := "?"
	if len(fixed) > 0 {
		uri.WriteString("?" + strings.Join(fixed, "&"))
		expand = "&"
	}
	s := &served{uri: uri.String(), template: len(t.args) > 0, mimeType: mt}
	if s.template && len(queryVars) > 0 {
		s.uri += "{" + expand + strings.Join(queryVars, ",") + "}"
	}
	if s.template {
		tmpl, err := uritemplate.New(s.uri)
		if err != nil || len(tmpl.Varnames()) != len(t.args) {
			return nil, fmt.Sprintf("its path makes %q, which is not a URI template of its arguments", s.uri), nil
		}
	} else if _, err := url.Parse(s.uri); err != nil || strings.ContainsAny(s.uri, "{}") {
		return nil, fmt.Sprintf("its path makes %q, which is not a URI", s.uri), nil
	}
	if b.resources.uris[s.uri] {
		return nil, fmt.Sprintf("its URI %s is already another resource's", s.uri), nil
	}
	b.resources.uris[s.uri] = true
	b.resources.served[t] = s
	return t, "", nil
}

// implicitHeaders are header parameters that never become arguments: the
// document describes them elsewhere, the http_api sends them, or the
// HTTP client does.
var implicitHeaders = map[string]bool{
	"accept": true, "content-type": true, "authorization": true, "content-length": true, "host": true,
	"transfer-encoding": true, "connection": true, "te": true, "trailer": true, "upgrade": true,
	"keep-alive": true, "expect": true,
}

// argRef is the argument a request field sends as it is (args.name).
func argRef(f field) (string, bool) {
	if f.literal || !strings.HasPrefix(f.program, "args.") || !write.IsName(f.program[len("args."):]) {
		return "", false
	}
	return f.program[len("args."):], true
}

// scalarParam reports whether a parameter's schema is of one plain type.
func (b *builder) scalarParam(p Param) bool {
	s, _, _, err := b.spec.deref(p.Schema, p.Doc)
	return err == nil && scalarType(obj(s)) != ""
}

// scalarArg reports whether an argument is of one plain type, which a URI
// template's variable carries as text: a string, a number or a boolean
// (the text of a variable is read as one), a nullable string, or an enum
// of strings.
func (b *builder) scalarArg(a arg) bool {
	switch a.Type {
	case "string", "integer", "number", "bool":
		return true
	case "":
		m := obj(b.locals.resolve(a.Schema))
		if scalarType(m) != "" {
			return true
		}
		switch t := m["type"].(type) {
		case []any:
			return len(t) == 2 && slices.Contains(t, "string") && slices.Contains(t, "null")
		case nil:
			e := list(m["enum"])
			return len(e) > 0 && !slices.ContainsFunc(e, func(v any) bool { _, ok := v.(string); return !ok })
		}
	}
	return false
}

// argNamed is the argument called name.
func argNamed(args []arg, name string) arg {
	for _, a := range args {
		if a.Name == name {
			return a
		}
	}
	return arg{}
}

// uriLiteral escapes what RFC 6570 does not take as a literal of a
// template (a space, a quote, a bracket…), and a % that starts no escape.
func uriLiteral(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		keep := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~:/?#[]@!$&()*+,;=", c) >= 0
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			keep = true
		}
		if keep {
			out.WriteByte(c)
		} else {
			fmt.Fprintf(&out, "%%%02X", c)
		}
	}
	return out.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// mediaOnly is a media type without its parameters, in lower case; ""
// for a wildcard.
func mediaOnly(mt string) string {
	mt = strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	if strings.Contains(mt, "*") || !strings.Contains(mt, "/") {
		return ""
	}
	return mt
}

// responseMedia is the media type of the success response's content
// (the first 2xx, else default): the JSON one when there are several,
// else the first; Swagger 2.0's produces likewise.
func (s *Spec) responseMedia(raw map[string]any, doc string) string {
	var types []string
	if s.Version[0] == '2' {
		produces := list(raw["produces"])
		if produces == nil {
			produces = list(s.Root["produces"])
		}
		for _, p := range produces {
			types = append(types, str(p))
		}
	} else {
		responses := obj(raw["responses"])
		pick := ""
		for _, c := range sortedKeys(responses) {
			if len(c) == 3 && c[0] == '2' {
				pick = c
				break
			}
		}
		if pick == "" {
			pick = "default"
		}
		v, _, _, err := s.deref(responses[pick], doc)
		if err != nil {
			return "" // response says where the reference is broken
		}
		types = sortedKeys(obj(obj(v)["content"]))
	}
	for _, t := range types {
		if jsonMedia(t) && mediaOnly(t) != "" {
			return t
		}
	}
	if len(types) > 0 {
		return types[0]
	}
	return ""
}

// resourceBlock writes a resource or a resource template: the tool's title,
// description, arguments and http block, under its URI.
func (b *builder) resourceBlock(body *lang.Writer, api *apiDecl, t *tool, s *served) {
	if len(t.notes) > 0 {
		notes := make([]string, len(t.notes))
		for i, n := range t.notes {
			notes[i] = "Note: " + n + "."
		}
		body.AppendComment(strings.Join(notes, "\n"))
	}
	scratch := body.Detached()
	bare := *t
	bare.notes = nil
	tb := b.toolBlock(scratch, api, &bare)
	kind, attr := "resource", "uri"
	if s.template {
		kind, attr = "resource_template", "uri_template"
	}
	blk := body.Block(kind, t.name)
	if t.title != "" {
		blk.Value("title", cty.StringVal(t.title))
	}
	blk.Value("description", cty.StringVal(t.description))
	blk.Value(attr, cty.StringVal(s.uri))
	if s.mimeType != "" {
		blk.Value("mime_type", cty.StringVal(s.mimeType))
	}
	if a := tb.Attribute("defs"); a != nil {
		blk.Raw("defs", a.Expr().BuildTokens(nil))
	}
	for _, inner := range tb.Blocks() {
		if inner.Name() == "arg" || inner.Name() == "http" {
			blk.Adopt(inner)
		}
	}
}
