package openapi

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// methods are the HTTP methods of a path item, in the order tools are
// written for one path.
var methods = []string{"get", "head", "post", "put", "patch", "delete", "options"}

// Operation is one operation of a document, the same for every version.
type Operation struct {
	Method, Path string // Method upper-case
	ID           string // operationId, may be empty
	Summary      string
	Description  string
	Tags         []string
	Deprecated   bool
	Params       []Param
	Body         *Body     // nil without a request body
	Response     *Response // the success response with a JSON schema, or nil
	// Pointer is where the operation is in the document, for messages.
	Pointer string
	// Skip, when not empty, is why the operation cannot become a tool.
	Skip string
	// Notes are what the tool leaves out, such as an optional cookie.
	Notes []string
	// Annotations are the operation's x-mcp-annotations: MCP's tool
	// annotations by name (readOnlyHint…), replacing those the method
	// implies.
	Annotations map[string]any
	// Resource is the operation's x-mcp-resource: true to import it as a
	// resource (or a resource template), false to keep it a tool; nil
	// when it has none.
	Resource any
	// MediaType is the media type of the success response's content, the
	// JSON one when there are several; "" when the document gives none.
	MediaType string
	// Budget is the operation's x-mcp-description-budget (see texts.go),
	// -1 when it has none.
	Budget int
	// DefsBudget is the operation's x-mcp-defs-budget (see
	// Options.DefsBudget), 0 when it has none.
	DefsBudget int
	// Fixed are the parameters taken out of Params that are sent with the
	// one value the document allows (see credentials.go).
	Fixed []Fixed
}

// Fixed is a parameter sent with one value, never an argument.
type Fixed struct {
	In, Name, Value string
}

// Param is a path, query, header or cookie parameter.
type Param struct {
	Name, In    string
	Description string
	Required    bool
	Deprecated  bool
	Schema      any // resolved enough to inspect: references are followed lazily
	Doc         string
	Style       string
	Explode     bool
	// Argument is the parameter's x-mcp-argument: true keeps it an
	// argument, false makes it none (see credentials.go); nil when it has
	// none.
	Argument any
	// Budget is the parameter's x-mcp-description-budget (see texts.go),
	// -1 when it has none.
	Budget int
	// Examples are the values of its example, examples and x-example.
	Examples []any
	// OpenEnum is set when its x-ms-enum says modelAsString: its enum
	// lists the values known today, and others may come.
	OpenEnum bool
}

// Body is a request body.
type Body struct {
	MediaType string // application/json, application/x-www-form-urlencoded, text/plain…
	// JSONType is the document's own media type of a JSON body when it is
	// not plain application/json (text/json, application/vnd.x+json…),
	// sent as the body's Content-Type.
	JSONType    string
	Schema      any
	Doc         string
	Required    bool
	Description string
}

// Response is the schema of a successful response.
type Response struct {
	Status string
	Schema any
	Doc    string
}

// Operations lists the document's operations in path order, then method
// order. Operations it cannot read are returned with Skip set.
func (s *Spec) Operations() ([]*Operation, error) {
	paths := obj(s.Root["paths"])
	keys := make([]string, 0, len(paths))
	for k := range paths {
		if strings.HasPrefix(k, "/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var ops []*Operation
	for _, p := range keys {
		ptr := "#/paths/" + escapePointer(p)
		itemV, doc, _, err := s.deref(paths[p], s.Location)
		if err != nil {
			return nil, brokenAt(err, ptr)
		}
		item := obj(itemV)
		if item == nil {
			continue
		}
		for _, m := range methods {
			raw := obj(item[m])
			if raw == nil {
				continue
			}
			op, err := s.operation(strings.ToUpper(m), p, item, raw, doc, ptr+"/"+m)
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
	}
	return ops, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// brokenAt places a broken reference at ptr, when it has no place yet.
func brokenAt(err error, ptr string) error {
	var b *BrokenRef
	if errors.As(err, &b) && b.At == "" {
		b.At = ptr
	}
	return err
}

// operation reads one operation; a problem it cannot get past sets Skip,
// and a broken reference is an error.
func (s *Spec) operation(method, path string, item, raw map[string]any, doc, ptr string) (*Operation, error) {
	op := &Operation{
		Method: method, Path: path, Pointer: ptr,
		ID:          strings.TrimSpace(str(raw["operationId"])),
		Summary:     strings.TrimSpace(str(raw["summary"])),
		Description: strings.TrimSpace(str(raw["description"])),
		Deprecated:  raw["deprecated"] == true,
		Annotations: obj(raw["x-mcp-annotations"]),
		Resource:    raw["x-mcp-resource"],
		Budget:      budget(raw, -1),
		DefsBudget:  defsBudget(raw["x-mcp-defs-budget"]),
	}
	for _, t := range list(raw["tags"]) {
		// A tag becomes a tool's tag, which is at most 128 bytes with no
		// control character: others are trimmed or left out.
		if t, ok := t.(string); ok {
			t = strings.TrimSpace(strings.Map(func(r rune) rune {
				if unicode.IsControl(r) {
					return ' '
				}
				return r
			}, t))
			if t != "" && len(t) <= 128 && !slices.Contains(op.Tags, t) {
				op.Tags = append(op.Tags, t)
			}
		}
	}
	var b *BrokenRef
	if err := s.params(op, item, raw, doc); err != nil {
		if errors.As(err, &b) {
			return nil, brokenAt(err, ptr+"/parameters")
		}
		op.Skip = err.Error()
		return op, nil
	}
	var err error
	if s.Version[0] == '2' {
		err = s.body2(op, raw, doc)
	} else {
		err = s.body3(op, raw, doc)
	}
	if errors.As(err, &b) {
		return nil, brokenAt(err, ptr+"/requestBody")
	}
	if err != nil {
		op.Skip = err.Error()
		return op, nil
	}
	op.MediaType = s.responseMedia(raw, doc)
	if err := s.response(op, raw, doc); err != nil {
		if errors.As(err, &b) {
			return nil, brokenAt(err, ptr+"/responses")
		}
		op.Skip = err.Error()
	}
	return op, nil
}

// params gathers the parameters of the path item and of the operation,
// the latter winning on the same name and location.
func (s *Spec) params(op *Operation, item, raw map[string]any, doc string) error {
	var all []Param
	index := map[string]int{}
	for _, src := range [][]any{list(item["parameters"]), list(raw["parameters"])} {
		for _, pv := range src {
			v, pdoc, _, err := s.deref(pv, doc)
			if err != nil {
				return err
			}
			m := obj(v)
			if m == nil {
				continue
			}
			p := Param{
				Name: str(m["name"]), In: str(m["in"]),
				Description: strings.TrimSpace(str(m["description"])),
				Required:    m["required"] == true,
				Deprecated:  m["deprecated"] == true,
				Doc:         pdoc,
				Style:       str(m["style"]),
				Argument:    m["x-mcp-argument"],
				Budget:      budget(m, -1),
				Examples:    paramExamples(m),
				OpenEnum:    openEnum(m),
			}
			if p.Name == "" {
				continue
			}
			if p.In == "body" || p.In == "formData" { // Swagger 2.0, read by body2
				continue
			}
			if p.In == "path" {
				p.Required = true
			}
			if s.Version[0] == '2' {
				p.Schema = schema2(m)
				switch str(m["collectionFormat"]) {
				case "", "csv":
					p.Style, p.Explode = "form", false
				case "multi":
					p.Style, p.Explode = "form", true
				case "ssv":
					p.Style = "spaceDelimited"
				case "pipes":
					p.Style = "pipeDelimited"
				case "tsv":
					p.Style = "tabDelimited"
				}
				if p.In == "path" || p.In == "header" {
					p.Style = "simple"
				}
			} else {
				p.Schema = m["schema"]
				if p.Schema == nil {
					// content instead of schema: the first media type's.
					for _, mt := range sortedKeys(obj(m["content"])) {
						p.Schema = obj(obj(m["content"])[mt])["schema"]
						break
					}
				}
				if p.Style == "" {
					switch p.In {
					case "query", "cookie":
						p.Style = "form"
					default:
						p.Style = "simple"
					}
				}
				p.Explode = p.Style == "form"
				if e, ok := m["explode"].(bool); ok {
					p.Explode = e
				}
			}
			key := p.In + "\x00" + p.Name
			if i, ok := index[key]; ok {
				all[i] = p
				continue
			}
			index[key] = len(all)
			all = append(all, p)
		}
	}
	op.Params = all
	return nil
}

// openEnum reports whether the x-ms-enum of m says modelAsString: an
// enum of Azure's that other values may join.
func openEnum(m map[string]any) bool {
	return obj(m["x-ms-enum"])["modelAsString"] == true
}

// paramExamples are the example values a parameter m gives.
func paramExamples(m map[string]any) []any {
	var out []any
	for _, k := range []string{"example", "x-example"} {
		if v, ok := m[k]; ok {
			out = append(out, v)
		}
	}
	examples := obj(m["examples"])
	for _, k := range sortedKeys(examples) {
		if v, ok := obj(examples[k])["value"]; ok {
			out = append(out, v)
		}
	}
	return out
}

// schema2 is the JSON Schema of a Swagger 2.0 non-body parameter, whose
// type and constraints sit on the parameter itself.
func schema2(m map[string]any) map[string]any {
	s := map[string]any{}
	for _, k := range []string{"type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum",
		"exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf"} {
		if v, ok := m[k]; ok {
			s[k] = v
		}
	}
	if s["type"] == "file" {
		s["type"] = "string"
		s["format"] = "binary"
	}
	return s
}

// jsonMedia reports whether a media type carries JSON.
// (application/json, +json, */*, and misspellings such as applicationjson).
func jsonMedia(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	if strings.Contains(mt, "ndjson") || strings.Contains(mt, "jsonl") || strings.Contains(mt, "json-seq") {
		return false
	}
	return strings.Contains(mt, "json") || mt == "*/*" || mt == "application/*"
}

// body3 reads an OpenAPI 3 requestBody, choosing JSON, then a form, then
// text.
func (s *Spec) body3(op *Operation, raw map[string]any, doc string) error {
	if raw["requestBody"] == nil {
		return nil
	}
	v, bdoc, _, err := s.deref(raw["requestBody"], doc)
	if err != nil {
		return err
	}
	rb := obj(v)
	content := obj(rb["content"])
	if len(content) == 0 {
		return nil
	}
	mt := pickMedia(content)
	if mt == "" {
		return fmt.Errorf("its request body is %s, which a tool cannot send", mediaList(sortedKeys(content)))
	}
	op.Body = &Body{
		MediaType:   mt,
		Schema:      obj(content[mt])["schema"],
		Doc:         bdoc,
		Required:    rb["required"] == true,
		Description: strings.TrimSpace(str(rb["description"])),
	}
	if jsonMedia(mt) {
		op.Body.MediaType, op.Body.JSONType = "application/json", jsonType(mt)
	}
	return nil
}

// jsonType is a JSON media type worth sending as it is written: not
// application/json itself, nor a wildcard.
func jsonType(mt string) string {
	l := strings.ToLower(strings.TrimSpace(mt))
	if strings.Contains(l, "*") || strings.HasPrefix(l, "application/json") && !strings.Contains(l, ";") {
		return ""
	}
	return strings.TrimSpace(mt)
}

// pickMedia chooses the request media type a tool sends best.
func pickMedia(content map[string]any) string {
	keys := sortedKeys(content)
	for _, k := range keys {
		if jsonMedia(k) && !strings.Contains(k, "*") {
			return k
		}
	}
	for _, k := range keys {
		if strings.HasPrefix(strings.ToLower(k), "application/x-www-form-urlencoded") {
			return k
		}
	}
	for _, k := range keys {
		if jsonMedia(k) {
			return k
		}
	}
	for _, k := range keys {
		if l := strings.ToLower(k); strings.HasPrefix(l, "multipart/form-data") || strings.HasPrefix(l, "multipart/mixed") || strings.HasPrefix(l, "application/form-data") {
			return k
		}
	}
	for _, k := range keys {
		l := strings.ToLower(k)
		if strings.HasPrefix(l, "text/") || strings.HasSuffix(l, "/xml") || strings.HasSuffix(l, "+xml") {
			return k
		}
	}
	// Anything else but multipart is sent as a string, as given.
	for _, k := range keys {
		l := strings.ToLower(strings.TrimSpace(k))
		if l != "" && strings.Contains(l, "/") && !strings.HasPrefix(l, "multipart/") && !strings.Contains(l, "form-data") {
			return k
		}
	}
	return ""
}

// body2 reads the body or formData parameters of a Swagger 2.0 operation.
func (s *Spec) body2(op *Operation, raw map[string]any, doc string) error {
	consumes := list(raw["consumes"])
	if consumes == nil {
		consumes = list(s.Root["consumes"])
	}
	var form []map[string]any
	for _, pv := range list(raw["parameters"]) {
		v, pdoc, _, err := s.deref(pv, doc)
		if err != nil {
			return err
		}
		m := obj(v)
		switch str(m["in"]) {
		case "body":
			op.Body = &Body{MediaType: "application/json", Schema: m["schema"], Doc: pdoc, Required: m["required"] == true,
				Description: strings.TrimSpace(str(m["description"]))}
			if len(consumes) > 0 {
				mt := ""
				for _, c := range consumes {
					if jsonMedia(str(c)) {
						mt = "application/json"
						if str(c) != "application/json" && jsonType(str(c)) != "" && !slices.ContainsFunc(consumes, func(x any) bool { return x == "application/json" }) {
							op.Body.JSONType = jsonType(str(c))
						}
						break
					}
				}
				if mt == "" {
					c := str(consumes[0])
					l := strings.ToLower(c)
					if !strings.HasPrefix(l, "text/") && !strings.HasSuffix(l, "/xml") && !strings.HasSuffix(l, "+xml") && !binaryMedia(c) {
						return fmt.Errorf("its request body is %s, which a tool cannot send", mediaList([]string{c}))
					}
					mt = c
				}
				op.Body.MediaType = mt
			}
		case "formData":
			form = append(form, m)
		}
	}
	if len(form) == 0 {
		return nil
	}
	urlencoded := len(consumes) == 0
	for _, c := range consumes {
		if strings.HasPrefix(strings.ToLower(str(c)), "application/x-www-form-urlencoded") {
			urlencoded = true
		}
	}
	props := map[string]any{}
	var required []any
	mediaType := "application/x-www-form-urlencoded"
	for _, m := range form {
		if str(m["type"]) == "file" || !urlencoded {
			mediaType = "multipart/form-data"
		}
		ps := schema2(m)
		if d := str(m["description"]); d != "" {
			ps["description"] = d
		}
		props[str(m["name"])] = ps
		if m["required"] == true {
			required = append(required, str(m["name"]))
		}
	}
	sch := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sch["required"] = required
	}
	op.Body = &Body{MediaType: mediaType, Schema: sch, Doc: doc, Required: len(required) > 0}
	return nil
}

// response finds the success response with a JSON schema, if any.
func (s *Spec) response(op *Operation, raw map[string]any, doc string) error {
	responses := obj(raw["responses"])
	codes := sortedKeys(responses)
	var pick string
	for _, c := range codes {
		if len(c) == 3 && c[0] == '2' {
			pick = c
			break
		}
	}
	if pick == "" {
		if _, ok := responses["default"]; ok {
			pick = "default"
		} else {
			return nil
		}
	}
	v, rdoc, _, err := s.deref(responses[pick], doc)
	if err != nil {
		return err
	}
	r := obj(v)
	if s.Version[0] == '2' {
		produces := list(raw["produces"])
		if produces == nil {
			produces = list(s.Root["produces"])
		}
		isJSON := len(produces) == 0
		for _, p := range produces {
			if jsonMedia(str(p)) {
				isJSON = true
			}
		}
		if r["schema"] != nil && isJSON {
			op.Response = &Response{Status: pick, Schema: r["schema"], Doc: rdoc}
		}
		return nil
	}
	content := obj(r["content"])
	for _, mt := range sortedKeys(content) {
		if jsonMedia(mt) {
			if sch := obj(content[mt])["schema"]; sch != nil {
				op.Response = &Response{Status: pick, Schema: sch, Doc: rdoc}
			}
			return nil
		}
	}
	return nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// mediaList names media types in a skip reason, saying so when one is empty.
func mediaList(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = t
		if strings.TrimSpace(t) == "" {
			out[i] = "of no media type (\"\")"
		}
	}
	return strings.Join(out, ", ")
}

// defsBudget reads an x-mcp-defs-budget: a number of bytes, or -1 for no
// budget; 0 for anything else (none given).
func defsBudget(v any) int {
	var n float64
	switch x := v.(type) {
	case int64:
		n = float64(x)
	case float64:
		n = x
	default:
		return 0
	}
	if n != float64(int(n)) || n < -1 {
		return 0
	}
	return int(min(n, 1<<40))
}
