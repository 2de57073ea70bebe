package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpdecl/mcpdecl/engine/schema"
)

// ResourceContents is what reading a resource gives: a text, or the bytes
// of a blob.
type ResourceContents struct {
	URI, MIMEType string
	Text          string
	Blob          []byte
	IsBlob        bool
}

// Resource is a declared MCP resource (a resource block): fixed
// contents, or contents that a tool computes each time it is read. (What
// the tools' actions call, such as an http_api, is an upstream: see
// [UpstreamAdapter].)
type Resource struct {
	URI, Name, Title, Description, MIMEType string
	// Annotations and Icons are shown in resources/list.
	Annotations *ContentAnnotations
	Icons       []Icon
	// Data is the fixed contents, when Tool is nil.
	Data []byte
	// Tool, when not nil, computes the contents: the text of its result,
	// or the data of its image or audio block.
	Tool *Tool
	// PollInterval, when not zero, is how often computed contents are
	// read again while a client is subscribed, to tell it when they
	// changed.
	PollInterval time.Duration
	Range        hcl.Range
}

// Read returns the resource's contents. An error says, for the client,
// why they could not be read.
func (r *Resource) Read(ctx context.Context) ([]ResourceContents, error) {
	if r.Tool == nil {
		return []ResourceContents{fixedContents(r.URI, r.MIMEType, r.Data)}, nil
	}
	return readWith(ctx, r.Tool, r.URI, r.MIMEType, json.RawMessage("{}"))
}

// fixedContents is data served as text when it is text, else as a blob.
func fixedContents(uri, mimeType string, data []byte) ResourceContents {
	if IsTextual(mimeType, data) {
		return ResourceContents{URI: uri, MIMEType: mimeType, Text: string(data)}
	}
	return ResourceContents{URI: uri, MIMEType: mimeType, Blob: data, IsBlob: true}
}

// IsTextual reports whether contents of the MIME type are text: text/*,
// JSON, XML, YAML, JavaScript; or, without a type, valid UTF-8.
func IsTextual(mimeType string, data []byte) bool {
	if mimeType == "" {
		return utf8.Valid(data)
	}
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return false
	}
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	for _, s := range []string{"json", "xml", "yaml", "javascript", "toml", "csv"} {
		if strings.Contains(mt, s) {
			return true
		}
	}
	return false
}

// readWith runs tool with args for the resource at uri.
func readWith(ctx context.Context, tool *Tool, uri, mimeType string, args json.RawMessage) ([]ResourceContents, error) {
	res := tool.Call(ctx, args)
	if res.IsError {
		return nil, errors.New(res.Text())
	}
	var texts []string
	var out []ResourceContents
	for _, c := range res.Content {
		switch {
		case c.Type == TextContent:
			texts = append(texts, c.Text)
		case len(c.Data) > 0:
			mt := c.MIMEType
			if mt == "" {
				mt = mimeType
			}
			out = append(out, ResourceContents{URI: uri, MIMEType: mt, Blob: c.Data, IsBlob: true})
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if mimeType == "" {
		mimeType = "text/plain"
	}
	return []ResourceContents{{URI: uri, MIMEType: mimeType, Text: strings.Join(texts, "\n")}}, nil
}

// ResourceTemplate is a declared MCP resource template: the resources
// whose URIs match an RFC 6570 template, read by a tool whose arguments
// are the template's variables.
type ResourceTemplate struct {
	URITemplate, Name, Title, Description, MIMEType string
	Tool                                            *Tool
	Range                                           hcl.Range
	// Annotations and Icons are shown in resources/templates/list.
	Annotations *ContentAnnotations
	Icons       []Icon
	// Completers offer the completions of the variables that have a
	// complete block, by name.
	Completers map[string]*Completer
	// PollInterval, as for a [Resource], for each resource a
	// client subscribed to.
	PollInterval time.Duration

	template *uritemplate.Template
	// simple, for a template whose expressions are all {name} (level 1,
	// the common case), matches its URIs with one group per variable, in
	// the order of simpleNames: a regular expression, much cheaper than
	// the general matcher.
	simple      *regexp.Regexp
	simpleNames []string
	// types are the JSON types of the tool's arguments, and enums their
	// enums' values as text, by name.
	types map[string]string
	enums map[string][]string
}

// simpleExpression is a level-1 template expression, {name}, and its name.
var simpleExpression = regexp.MustCompile(`\{([^}]*)\}`)
var simpleName = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$`)

// NewResourceTemplate checks the template and that its variables are the
// tool's arguments.
func NewResourceTemplate(t ResourceTemplate) (*ResourceTemplate, error) {
	tmpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return nil, fmt.Errorf("%q is not an RFC 6570 URI template: %w", t.URITemplate, err)
	}
	vars := tmpl.Varnames()
	if len(vars) == 0 {
		return nil, fmt.Errorf("the template %q has no {variable}; a resource without one is a resource block", t.URITemplate)
	}
	var args []string
	for _, a := range t.Tool.Args() {
		args = append(args, a.Name)
		if !slices.Contains(vars, a.Name) {
			return nil, fmt.Errorf("the argument %q is not a variable of the template %q; its variables are %s", a.Name, t.URITemplate, strings.Join(vars, ", "))
		}
	}
	for _, v := range vars {
		if !slices.Contains(args, v) {
			return nil, fmt.Errorf("the template's variable {%s} has no arg block; declare arg %q { type = string } to say what it may be", v, v)
		}
	}
	t.template = tmpl
	t.types, t.enums = argTypes(t.Tool)
	t.simple, t.simpleNames = simpleMatcher(tmpl)
	return &t, nil
}

// simpleMatcher returns the regular expression that matches the URIs of
// tmpl with one group per variable, and the variables' names in order,
// when every expression of tmpl is a plain {name}; else nil.
func simpleMatcher(tmpl *uritemplate.Template) (*regexp.Regexp, []string) {
	var names []string
	for _, m := range simpleExpression.FindAllStringSubmatch(tmpl.Raw(), -1) {
		if !simpleName.MatchString(m[1]) {
			return nil, nil
		}
		names = append(names, m[1])
	}
	re := tmpl.Regexp()
	if re.NumSubexp() != len(names) {
		return nil, nil
	}
	return re, names
}

// match returns the values of the template's variables in uri, decoded;
// false when uri is not one of the template's.
func (t *ResourceTemplate) match(uri string) (map[string]string, bool) {
	if t.simple != nil {
		m := t.simple.FindStringSubmatchIndex(uri)
		if m == nil {
			return nil, false
		}
		values := make(map[string]string, len(t.simpleNames))
		for i, name := range t.simpleNames {
			start, end := m[2+2*i], m[3+2*i]
			if start < 0 {
				continue
			}
			raw := uri[start:end]
			if v, err := url.PathUnescape(raw); err == nil {
				raw = v
			}
			values[name] = raw
		}
		return values, true
	}
	matched := t.template.Match(uri)
	if matched == nil {
		return nil, false
	}
	values := map[string]string{}
	for _, name := range t.template.Varnames() {
		if v := matched.Get(name); v.Valid() {
			values[name] = v.String()
		}
	}
	return values, true
}

// Matches reports whether uri is one of the template's.
func (t *ResourceTemplate) Matches(uri string) bool {
	if t.simple != nil {
		return t.simple.MatchString(uri)
	}
	return t.template.Match(uri) != nil
}

// Variables are the names of the template's variables.
func (t *ResourceTemplate) Variables() []string { return t.template.Varnames() }

// Read returns the contents of the resource at uri, which the template
// must match; its variables are checked like a tool's arguments, and an
// *ArgumentError says what is wrong with them.
func (t *ResourceTemplate) Read(ctx context.Context, uri string) ([]ResourceContents, error) {
	values, ok := t.match(uri)
	if !ok {
		return nil, fmt.Errorf("the URI %q does not match the template %q", uri, t.URITemplate)
	}
	args := make(map[string]any, len(values))
	for name, s := range values {
		args[name] = typed(s, t.types[name])
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	contents, err := readWith(ctx, t.Tool, uri, t.MIMEType, raw)
	if err != nil {
		// Was it the variables? Checked again only on failure, so that a
		// read validates them once.
		if aerr := t.Tool.CheckArguments(raw); aerr != nil {
			return nil, aerr
		}
	}
	return contents, err
}

// argTypes are the JSON types of tool's arguments, and the values of
// their enums as text (what completions offer), by name.
func argTypes(tool *Tool) (types map[string]string, enums map[string][]string) {
	types, enums = map[string]string{}, map[string][]string{}
	in := tool.InputSchema()
	props, _ := in["properties"].(map[string]any)
	defs, _ := in["$defs"].(map[string]any)
	for name, p := range props {
		m, ok := p.(map[string]any)
		for range 8 { // an argument that refers to a definition is typed by it
			ref, _ := m["$ref"].(string)
			def, isDef := schema.DefName(ref)
			if !isDef || defs[def] == nil {
				break
			}
			m, ok = defs[def].(map[string]any)
		}
		if !ok {
			continue
		}
		types[name], _ = m["type"].(string)
		enum, _ := m["enum"].([]any)
		for _, e := range enum {
			enums[name] = append(enums[name], fmt.Sprint(e))
		}
	}
	return types, enums
}

// typed is a variable's text as the JSON value its argument's type wants,
// when it reads as one; else the text, for validation to refuse.
func typed(s, jsonType string) any {
	switch jsonType {
	case "integer", "number":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	return s
}
