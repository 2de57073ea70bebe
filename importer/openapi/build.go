package openapi

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpdecl/mcpdecl/importer/internal/write"
	"github.com/mcpdecl/mcpdecl/importer/overlay"
)

// tool is one tool to write, built from an operation.
type tool struct {
	op                         *Operation
	name, title, description   string
	hints                      [len(hintNames)]*bool // by hintNames; nil: not written
	args                       []arg
	pathTemplate               string
	pathParams, query, headers []field
	body                       *bodyMapping
	outputs                    []outField
	notes                      []string
	// leftOut are the programs of fields add left out: the arguments
	// they alone read are dropped (see dropUnsent).
	leftOut []string
	// shallow, when above zero, is how many bytes of definitions the
	// tool's input would have listed, past the budget: its named schemas
	// are cut two levels deep instead (see Options.DefsBudget).
	shallow int
}

// arg is one arg block.
type arg = write.Arg

// field is one entry of a map of the request: a key and the program of its
// value, or a fixed value when literal is set.
type field struct {
	key, program string
	literal      bool
}

// add appends f unless its key is already there, which it notes.
func (t *tool) add(fields *[]field, f field, what string) {
	for _, g := range *fields {
		if g.key == f.key || what == "header" && strings.EqualFold(g.key, f.key) {
			t.notes = append(t.notes, fmt.Sprintf("left out a second %s %q", what, f.key))
			if !f.literal {
				t.leftOut = append(t.leftOut, f.program)
			}
			return
		}
	}
	*fields = append(*fields, f)
}

// bodyMapping is how the request body is made.
type bodyMapping struct {
	kind        string  // "json", "form", "multipart" or "raw"
	fields      []field // json and form objects built field by field
	compact     bool    // leave out null fields (json)
	optional    bool    // send no body when every field is left out (json)
	program     string  // the whole body, when fields is empty
	contentType string  // raw, and json when not application/json
}

// outField is one output block.
type outField = write.Output

// skipError is why an operation cannot become a tool.
type skipError string

func (e skipError) Error() string { return string(e) }

// build makes the tool of an operation, or says why it cannot. Its input
// refers to the document's named schemas as definitions, written whole;
// when those it reaches pass the budget of definitions (the operation's
// x-mcp-defs-budget, else Options.DefsBudget), it is made again with named
// schemas cut two levels deep, and says so in shallow.
func (b *builder) build(op *Operation, name string) (*tool, error) {
	t, err := b.buildTool(op, name, true)
	if err != nil {
		return nil, err
	}
	limit := b.opts.DefsBudget
	if op.DefsBudget != 0 {
		limit = op.DefsBudget
	}
	if limit < 0 {
		return t, nil
	}
	schemas := make([]any, len(t.args))
	for i, a := range t.args {
		schemas[i] = a.Schema
	}
	n := b.locals.reach(schemas, limit)
	if n <= limit {
		return t, nil
	}
	cut, err := b.buildTool(op, name, false)
	if err != nil {
		return nil, err
	}
	cut.shallow = n
	return cut, nil
}

// buildTool is build, with named schemas of the input as definitions
// (defs) or cut two levels deep.
func (b *builder) buildTool(op *Operation, name string, defs bool) (*tool, error) {
	t := &tool{op: op, name: name, notes: slices.Clip(op.Notes)}
	t.title, t.description = texts(op, b.opts.DescriptionBudget)
	if op.Budget >= 0 {
		t.title, t.description = texts(op, op.Budget)
	}
	t.annotate(op)
	// A path such as /#Action=Describe or /#X-Amz-Target=Service.Op tells
	// operations on one path apart by a query parameter or a header, sent
	// with that fixed value.
	path, fragment, _ := strings.Cut(op.Path, "#")
	fixedName, fixedValue, _ := strings.Cut(fragment, "=")
	fixedUsed := fixedName == ""
	taken := names{}
	in := &converter{spec: b.spec, locals: b.locals, textBudget: b.opts.FieldDescriptionBudget, defs: defs}
	// Path parameters first: they keep their names, others give way.
	ordered := make([]Param, 0, len(op.Params))
	for _, in := range []string{"path", "query", "header", "cookie"} {
		for _, p := range op.Params {
			if p.In == in {
				ordered = append(ordered, p)
			}
		}
	}
	t.pathTemplate = path
	for _, f := range op.Fixed {
		if f.In == "header" {
			t.add(&t.headers, field{key: f.Name, program: f.Value, literal: true}, "header")
		} else {
			t.add(&t.query, field{key: f.Name, program: f.Value, literal: true}, "query parameter")
		}
	}
	for _, p := range ordered {
		if !fixedUsed && (p.In == "header" && strings.EqualFold(p.Name, fixedName) || p.In == "query" && p.Name == fixedName) {
			fixedUsed = true
			if p.In == "header" {
				t.add(&t.headers, field{key: p.Name, program: fixedValue, literal: true}, "header")
			} else {
				t.add(&t.query, field{key: p.Name, program: fixedValue, literal: true}, "query parameter")
			}
			continue
		}
		if err := b.param(t, p, in, taken); err != nil {
			return nil, err
		}
	}
	if !fixedUsed {
		if strings.HasPrefix(strings.ToLower(fixedName), "x-") {
			t.add(&t.headers, field{key: fixedName, program: fixedValue, literal: true}, "header")
		} else {
			t.add(&t.query, field{key: fixedName, program: fixedValue, literal: true}, "query parameter")
		}
	}
	if err := b.requestBody(t, in, taken); err != nil {
		return nil, err
	}
	if err := queryInPath(t); err != nil {
		return nil, err
	}
	if err := checkPlaceholders(t); err != nil {
		return nil, err
	}
	if err := b.responseOutputs(t); err != nil {
		return nil, err
	}
	if in.broken != nil {
		return nil, brokenAt(in.broken, op.Pointer)
	}
	for _, d := range in.dropped {
		t.notes = append(t.notes, "dropped "+d)
	}
	t.dropUnsent()
	return t, nil
}

// dropUnsent removes the arguments that only left-out fields read: a
// second parameter of a name already sent (an object's exploded property
// and a parameter, say) never reaches the API, so the model is not offered
// it.
func (t *tool) dropUnsent() {
	if len(t.leftOut) == 0 {
		return
	}
	var sent []string
	for _, fs := range [][]field{t.pathParams, t.query, t.headers} {
		for _, f := range fs {
			sent = append(sent, f.program)
		}
	}
	if t.body != nil {
		sent = append(sent, t.body.program)
		for _, f := range t.body.fields {
			sent = append(sent, f.program)
		}
	}
	reads := func(programs []string, name string) bool {
		re := regexp.MustCompile(`\bargs\.` + regexp.QuoteMeta(name) + `\b`)
		return slices.ContainsFunc(programs, re.MatchString)
	}
	kept := t.args[:0]
	for _, a := range t.args {
		if reads(t.leftOut, a.Name) && !reads(sent, a.Name) {
			t.notes = append(t.notes, fmt.Sprintf("left out the argument %q: what it gives is not sent", a.Name))
			continue
		}
		kept = append(kept, a)
	}
	t.args = kept
}

// hintNames are the MCP annotations an imported tool gives, as
// x-mcp-annotations names them; hintAttrs are their attributes in HCL.
var (
	hintNames = overlay.HintNames
	hintAttrs = overlay.HintAttrs
)

// annotate sets a tool's annotations from what its method means in HTTP:
// GET, HEAD and OPTIONS only read, and are idempotent; PUT and DELETE are
// idempotent; DELETE, PUT and PATCH change or remove what exists
// (destructive); POST creates (not destructive, not idempotent). Every
// tool calls an API on the network (open world), which is what MCP
// assumes of a tool that does not say: open_world_hint is left out, and
// with it a few tokens of every tool in tools/list. The operation's
// x-mcp-annotations, which an overlay may add, overrides any of them.
func (t *tool) annotate(op *Operation) {
	tr, fa := true, false
	switch op.Method {
	case "GET", "HEAD", "OPTIONS":
		t.hints = [len(hintNames)]*bool{&tr, nil, &tr, nil}
	case "POST":
		t.hints = [len(hintNames)]*bool{&fa, &fa, &fa, nil}
	case "PATCH":
		t.hints = [len(hintNames)]*bool{&fa, &tr, &fa, nil}
	default: // PUT, DELETE
		t.hints = [len(hintNames)]*bool{&fa, &tr, &tr, nil}
	}
	for _, k := range sortedKeys(op.Annotations) {
		i := slices.Index(hintNames[:], k)
		v, ok := op.Annotations[k].(bool)
		switch {
		case i < 0:
			t.notes = append(t.notes, fmt.Sprintf("ignored %q in x-mcp-annotations, which takes %s", k, andList(hintNames[:])))
		case !ok:
			t.notes = append(t.notes, fmt.Sprintf("ignored %q in x-mcp-annotations: it is neither true nor false", k))
		default:
			t.hints[i] = &v
		}
	}
}

// queryInPath moves the placeholders of a query string written in the
// path (/files?name={name}) to query parameters; fixed pairs stay. A
// placeholder standing for a parameter's name cannot be sent.
func queryInPath(t *tool) error {
	path, query, ok := strings.Cut(t.pathTemplate, "?")
	if !ok || !strings.Contains(query, "{") {
		return nil
	}
	var kept []string
	for _, pair := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(pair, "=")
		if strings.ContainsAny(k, "{}") {
			return skipError(fmt.Sprintf("the query string of its path names a parameter by a placeholder (%s)", pair))
		}
		if !strings.HasPrefix(v, "{") || !strings.HasSuffix(v, "}") {
			kept = append(kept, pair)
			continue
		}
		// A placeholder of a path parameter becomes a query parameter; one
		// of a query parameter is already sent.
		name := v[1 : len(v)-1]
		for i, f := range t.pathParams {
			if f.key == name {
				t.add(&t.query, field{key: k, program: f.program}, "query parameter")
				t.pathParams = append(t.pathParams[:i], t.pathParams[i+1:]...)
				break
			}
		}
	}
	t.pathTemplate = path
	if len(kept) > 0 {
		t.pathTemplate += "?" + strings.Join(kept, "&")
	}
	return nil
}

// checkPlaceholders makes sure every placeholder of the path has a path
// parameter.
func checkPlaceholders(t *tool) error {
	have := map[string]bool{}
	for _, f := range t.pathParams {
		have[f.key] = true
	}
	s := t.pathTemplate
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return skipError("its path has a { that is not closed")
		}
		if !have[s[i+1:i+j]] {
			return skipError(fmt.Sprintf("its path parameter {%s} is not declared", s[i+1:i+j]))
		}
		s = s[i+j+1:]
	}
}

// argName is a unique argument name for a parameter or a property,
// prefixed with where it goes when the plain name is taken.
func argName(raw, where string, taken names) string {
	n := identifier(raw, "arg")
	if write.Reserved[n] {
		n += "_"
	}
	if taken[n] && where != "" {
		n = where + "_" + n
	}
	return taken.unique(n, 128)
}

// param adds the argument and the request mapping of one parameter.
func (b *builder) param(t *tool, p Param, c *converter, taken names) error {
	switch p.In {
	case "header":
		if implicitHeaders[strings.ToLower(p.Name)] {
			return nil // described by the document elsewhere, the http_api's, or the HTTP client's to set
		}
		if !headerToken(p.Name) {
			t.notes = append(t.notes, fmt.Sprintf("left out the header %q, whose name is not a valid header name", p.Name))
			return nil
		}
	case "cookie":
		if p.Required {
			return skipError(fmt.Sprintf("it needs the cookie %q, which a tool does not send", p.Name))
		}
		t.notes = append(t.notes, fmt.Sprintf("left out the optional cookie %q", p.Name))
		return nil
	case "path", "query":
	default:
		return nil
	}
	sch := c.convert(p.Schema, p.Doc)
	// A required parameter with one allowed value is that value: no
	// argument for the model to fill (query parameters and headers are
	// taken out before, and reported: see paramRules.fixedValue). An
	// x-ms-enum with modelAsString lists only the values known so far.
	if e := list(obj(b.locals.resolve(sch))["enum"]); p.Required && len(e) == 1 && e[0] != nil && !p.OpenEnum && schemaKind(b.locals.resolve(sch)) == "scalar" {
		f := field{key: p.Name, program: fmt.Sprint(e[0]), literal: true}
		switch p.In {
		case "path":
			if placeholderName(p.Name) && strings.Contains(t.pathTemplate, "{"+p.Name+"}") {
				t.add(&t.pathParams, f, "path parameter")
				return nil
			}
		case "header":
			t.add(&t.headers, f, "header")
			return nil
		case "query":
			t.add(&t.query, f, "query parameter")
			return nil
		}
	}
	where := map[string]string{"path": "", "query": "query", "header": "header"}[p.In]
	a := b.argFrom(argName(p.Name, where, taken), p.Description, sch, p.Required)
	if p.Budget >= 0 && p.Description != "" {
		a.Description = fitText(p.Description, p.Budget)
	}
	if p.Deprecated {
		a.Description = strings.TrimSpace("Deprecated. " + a.Description)
	}
	t.args = append(t.args, a)
	ref := "args." + a.Name
	kind := schemaKind(b.locals.resolve(sch))
	switch p.In {
	case "path":
		key := p.Name
		if !placeholderName(key) {
			key = identifier(p.Name, "p")
			t.pathTemplate = strings.ReplaceAll(t.pathTemplate, "{"+p.Name+"}", "{"+key+"}")
		}
		if !strings.Contains(t.pathTemplate, "{"+key+"}") {
			t.notes = append(t.notes, fmt.Sprintf("the path parameter %q is not in the path", p.Name))
			t.args = t.args[:len(t.args)-1]
			return nil
		}
		prog := ref
		switch {
		case p.Style != "" && p.Style != "simple":
			return skipError(fmt.Sprintf("its path parameter %q has style %s", p.Name, p.Style))
		case kind == "array":
			prog = joinProgram(ref, ",", false)
		case kind == "object":
			return skipError(fmt.Sprintf("its path parameter %q is an object", p.Name))
		}
		t.add(&t.pathParams, field{key: key, program: prog}, "path parameter")
	case "header":
		prog := ref
		switch kind {
		case "array":
			prog = joinProgram(ref, ",", !p.Required)
		case "object":
			if p.Required {
				return skipError(fmt.Sprintf("its header %q is an object", p.Name))
			}
			t.notes = append(t.notes, fmt.Sprintf("left out the header %q, an object", p.Name))
			t.args = t.args[:len(t.args)-1]
			return nil
		}
		t.add(&t.headers, field{key: p.Name, program: prog}, "header")
	case "query":
		return b.queryParam(t, p, sch, kind, ref)
	}
	return nil
}

// queryParam maps a query parameter by its style.
func (b *builder) queryParam(t *tool, p Param, sch any, kind, ref string) error {
	optional := !p.Required
	switch kind {
	case "array":
		sep := map[string]string{"spaceDelimited": " ", "pipeDelimited": "|", "tabDelimited": "\t"}[p.Style]
		switch {
		case p.Style == "form" && p.Explode, p.Style == "" && p.Explode:
			t.add(&t.query, field{key: p.Name, program: ref}, "query parameter") // a list repeats the parameter
		case sep != "":
			t.add(&t.query, field{key: p.Name, program: joinProgram(ref, sep, optional)}, "query parameter")
		default: // form, not exploded
			t.add(&t.query, field{key: p.Name, program: joinProgram(ref, ",", optional)}, "query parameter")
		}
		return nil
	case "object":
		props, _, ok := b.locals.objectShape(sch)
		if !ok || (p.Style != "deepObject" && !(p.Style == "form" && p.Explode)) {
			if p.Required {
				return skipError(fmt.Sprintf("its query parameter %q is an object of a shape or style (%s) a tool cannot send", p.Name, p.Style))
			}
			t.notes = append(t.notes, fmt.Sprintf("left out the query parameter %q, an object of a shape or style (%s) a tool cannot send", p.Name, p.Style))
			t.args = t.args[:len(t.args)-1]
			return nil
		}
		for _, k := range sortedKeys(props) {
			key := k
			if p.Style == "deepObject" {
				key = p.Name + "[" + k + "]"
			}
			t.add(&t.query, field{key: key, program: ref + "?." + write.Key(k)}, "query parameter")
		}
		return nil
	}
	t.add(&t.query, field{key: p.Name, program: ref}, "query parameter")
	return nil
}

// headerToken reports whether s is a valid header name.
func headerToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// joinProgram joins a list argument's elements with sep; null stays null
// when the argument is optional.
func joinProgram(ref, sep string, optional bool) string {
	j := fmt.Sprintf("join(map(%s, string(#)), %s)", ref, write.Quote(sep))
	if optional {
		return fmt.Sprintf("%s == nil ? nil : %s", ref, j)
	}
	return j
}

// requestBody adds the arguments and the mapping of the request body.
func (b *builder) requestBody(t *tool, c *converter, taken names) error {
	body := t.op.Body
	if body == nil {
		return nil
	}
	if t.op.Method == "HEAD" || t.op.Method == "OPTIONS" {
		t.notes = append(t.notes, "left out the request body: a "+t.op.Method+" request carries none")
		return nil
	}
	flat := func(sch any) bool { _, _, ok := b.locals.objectShape(sch); return ok }
	switch {
	case body.MediaType == "application/json":
		sch := b.bodySchema(c, body.Schema, body.Doc, flat)
		props, required, ok := b.locals.objectShape(sch)
		if !ok {
			a := b.argFrom(argName("body", "request", taken), body.Description, sch, body.Required)
			t.args = append(t.args, a)
			t.body = &bodyMapping{kind: "json", program: "args." + a.Name, contentType: body.JSONType}
			return nil
		}
		// A name the body requires and does not define (e-conomic's
		// Employee requires canApprove, PocketSmith's category rules
		// category_id) must still be sent: a property of any value.
		undefinedRequired(props, required, map[string]any{"description": undescribed})
		keys := b.writable(props)
		if !body.Required && slices.ContainsFunc(keys, func(k string) bool { return required[k] }) {
			b.optionalBody(t, sch, props, keys, required, taken)
			return nil
		}
		bm := &bodyMapping{kind: "json"}
		for _, k := range keys {
			a := b.argFrom(argName(k, "body", taken), "", props[k], required[k])
			t.args = append(t.args, a)
			bm.fields = append(bm.fields, field{key: k, program: "args." + a.Name})
			bm.compact = bm.compact || !required[k]
		}
		bm.optional = !body.Required && len(bm.fields) > 0
		bm.contentType = body.JSONType
		t.body = bm
	case isMultipart(body.MediaType):
		props, required, ok := b.locals.objectShape(b.bodySchema(c, body.Schema, body.Doc, flat))
		if !ok {
			a := b.argFrom(argName("form", "request", taken), "The fields of the form, sent as multipart/form-data.",
				map[string]any{"type": "object"}, body.Required)
			t.args = append(t.args, a)
			t.body = &bodyMapping{kind: "multipart", program: "args." + a.Name}
			return nil
		}
		// A form is always sent, so the fields it requires are required,
		// those it does not define as text.
		undefinedRequired(props, required, map[string]any{"type": "string", "description": undescribed})
		keys := b.writable(props)
		var files []string
		for _, k := range keys {
			if isFile(obj(b.locals.resolve(props[k]))) {
				files = append(files, k)
			}
		}
		for _, k := range files {
			if required[k] || len(files) == len(keys) {
				return skipError(fmt.Sprintf("its multipart field %q is a file (binary content), which a tool cannot send: the http action sends multipart fields as text, not as files", k))
			}
		}
		bm := &bodyMapping{kind: "multipart"}
		for _, k := range keys {
			if slices.Contains(files, k) {
				t.notes = append(t.notes, fmt.Sprintf("left out the multipart field %q, a file (binary content) a tool cannot send", k))
				continue
			}
			desc := ""
			if pm := obj(b.locals.resolve(props[k])); pm["format"] == "byte" {
				desc = sentences(str(pm["description"]), "Base64-encoded.")
			}
			a := b.argFrom(argName(k, "body", taken), desc, props[k], required[k])
			t.args = append(t.args, a)
			bm.fields = append(bm.fields, field{key: k, program: "args." + a.Name})
		}
		t.body = bm
	case strings.HasPrefix(body.MediaType, "application/x-www-form-urlencoded"):
		props, required, ok := b.locals.objectShape(b.bodySchema(c, body.Schema, body.Doc, flat))
		if !ok {
			// A free-form form: the fields as one map.
			a := b.argFrom(argName("form", "request", taken), "The fields of the form, sent as "+body.MediaType+".",
				map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "number", "integer", "boolean"}}}, body.Required)
			t.args = append(t.args, a)
			t.body = &bodyMapping{kind: "form", program: "args." + a.Name}
			return nil
		}
		// A form is always sent, so the fields it requires are required,
		// those it does not define as text.
		undefinedRequired(props, required, map[string]any{"type": "string", "description": undescribed})
		bm := &bodyMapping{kind: "form"}
		for _, k := range b.writable(props) {
			switch schemaKind(b.locals.resolve(props[k])) {
			case "object", "any":
				if required[k] {
					return skipError(fmt.Sprintf("its form field %q is an object", k))
				}
				t.notes = append(t.notes, fmt.Sprintf("left out the form field %q, an object", k))
				continue
			}
			a := b.argFrom(argName(k, "body", taken), "", props[k], required[k])
			t.args = append(t.args, a)
			bm.fields = append(bm.fields, field{key: k, program: "args." + a.Name})
		}
		t.body = bm
	case b.binaryBody(body):
		// Bytes a model cannot write: it gives them base64-encoded, and
		// they are decoded before they are sent.
		a := b.argFrom(argName("body", "request", taken),
			sentences(fitText(body.Description, 400), "The content, base64-encoded: it is decoded and sent as "+body.MediaType+"."),
			map[string]any{"type": "string", "contentEncoding": "base64", "pattern": base64Pattern}, true)
		t.args = append(t.args, a)
		t.body = &bodyMapping{kind: "raw", program: "fromBase64(args." + a.Name + ")", contentType: body.MediaType}
	default:
		// Text: its schema's constraints when it says it is a string
		// (JSON's, not the text's, when it describes the text's content).
		sch := map[string]any{"type": "string"}
		if m := obj(b.locals.resolve(c.convert(body.Schema, body.Doc))); m["type"] == "string" {
			sch = m
		}
		a := b.argFrom(argName("body", "request", taken), body.Description, sch, true)
		if a.Description == "" {
			a.Description = "The request body, sent as " + body.MediaType + "."
		}
		t.args = append(t.args, a)
		t.body = &bodyMapping{kind: "raw", program: "args." + a.Name, contentType: body.MediaType}
	}
	return nil
}

// undefinedRequired adds to props the names required that props does not
// define, each of schema sch.
func undefinedRequired(props map[string]any, required map[string]bool, sch map[string]any) {
	for r := range required {
		if _, defined := props[r]; !defined {
			props[r] = maps.Clone(sch)
		}
	}
}

// undescribed is the description of a body property the document
// requires without defining it.
const undescribed = "Required by the API's document, which does not describe it."

// base64Pattern is what base64's standard encoding writes, which
// fromBase64 reads (line breaks included).
const base64Pattern = `^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$`

// bodySchema converts the schema of a request body, flattened (see
// convertFlat) when flat accepts the result, else as a whole. (A response
// flattened into outputs still spends a level: its schemas, written a
// level deeper, would double the size of tools/list for documents such as
// YNAB's.)
func (b *builder) bodySchema(c *converter, v any, doc string, flat func(any) bool) any {
	// A list, a string… cannot flatten: converted once.
	if m, _, _, err := b.spec.deref(v, doc); err != nil || obj(m)["properties"] == nil && obj(m)["allOf"] == nil {
		return c.convert(v, doc)
	}
	n := len(c.dropped)
	if sch := c.convertFlat(v, doc); flat(sch) {
		return sch
	}
	c.dropped = c.dropped[:n]
	return c.convert(v, doc)
}

// writable are the names of a body's properties that a request may send,
// in order: not those the server sets (readOnly).
func (b *builder) writable(props map[string]any) []string {
	keys := make([]string, 0, len(props))
	for _, k := range sortedKeys(props) {
		if obj(b.locals.resolve(props[k]))["readOnly"] != true {
			keys = append(keys, k)
		}
	}
	return keys
}

// optionalBody makes an optional JSON body whose schema requires fields
// one optional argument, an object that requires them: left out, no body
// is sent; given, it must hold them. Flattened into arguments, the fields
// would be optional, and a call leaving one out would get the upstream's
// bare 400.
func (b *builder) optionalBody(t *tool, sch any, props map[string]any, keys []string, required map[string]bool, taken names) {
	ps := make(map[string]any, len(keys))
	var req []any
	var names []string
	for _, k := range keys {
		ps[k] = props[k]
		if required[k] {
			req = append(req, k)
			names = append(names, k)
		}
	}
	s := map[string]any{"type": "object", "properties": ps, "required": req}
	if m := obj(b.locals.resolve(sch)); m["allOf"] == nil && m["additionalProperties"] != nil {
		s["additionalProperties"] = m["additionalProperties"]
	}
	body := t.op.Body
	desc := sentences(fitText(body.Description, 300),
		"The request body: it may be left out, and then none is sent; when it is given, "+andList(names)+" "+
			map[bool]string{true: "is", false: "are"}[len(names) == 1]+" required.")
	a := b.argFrom(argName("body", "request", taken), desc, s, false)
	t.args = append(t.args, a)
	t.body = &bodyMapping{kind: "json", program: "args." + a.Name, contentType: body.JSONType}
}

// andList writes names as a list: a, b and c.
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// isFile reports whether a (converted) schema is the content of a file:
// format binary, such as Swagger's type file, or OpenAPI 3.1's
// contentMediaType without a contentEncoding; or a list of them.
func isFile(m map[string]any) bool {
	if m["type"] == "array" {
		m = obj(m["items"])
	}
	if m["format"] == "binary" {
		return true
	}
	mt, _ := m["contentMediaType"].(string)
	return mt != "" && m["contentEncoding"] == nil && binaryMedia(mt)
}

// binaryBody reports whether a raw body is bytes rather than text: its
// media type says so, or its schema's format binary does.
func (b *builder) binaryBody(body *Body) bool {
	if binaryMedia(body.MediaType) {
		return true
	}
	s, _, _, err := b.spec.deref(body.Schema, body.Doc)
	return err == nil && obj(s)["format"] == "binary"
}

// binaryMedia reports whether a media type is of bytes rather than text.
func binaryMedia(mt string) bool {
	l := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	for _, p := range []string{"image/", "audio/", "video/", "font/"} {
		if strings.HasPrefix(l, p) {
			return !strings.HasSuffix(l, "+xml") // image/svg+xml is text
		}
	}
	switch l {
	case "application/octet-stream", "application/pdf", "application/zip", "application/gzip", "application/x-gzip",
		"application/x-tar", "application/tar", "application/x-7z-compressed", "application/x-protobuf", "application/protobuf":
		return true
	}
	return false
}

// responseOutputs adds the outputs of the success response's schema.
func (b *builder) responseOutputs(t *tool) error {
	r := t.op.Response
	if r == nil || t.op.Method == "HEAD" {
		return nil
	}
	c := &converter{spec: b.spec, locals: b.locals, textBudget: b.opts.OutputDescriptionBudget, output: true}
	sch := c.convert(r.Schema, r.Doc)
	if c.broken != nil {
		return brokenAt(c.broken, t.op.Pointer+"/responses/"+r.Status)
	}
	for _, d := range c.dropped {
		t.notes = append(t.notes, "dropped from the output "+d)
	}
	if m := obj(sch); m != nil && len(m) == 0 {
		return nil // any value: the default text says it best
	}
	if props, required, ok := b.locals.objectShape(sch); ok && obj(b.locals.resolve(sch))["additionalProperties"] == nil {
		for _, k := range sortedKeys(props) {
			if k == "" || obj(b.locals.resolve(props[k]))["writeOnly"] == true {
				continue
			}
			o := outField{Name: k, Optional: !required[k], Program: "body" + write.Access(k)}
			ps := obj(props[k])
			if ps != nil {
				ps = copyMap(ps)
				o.Description = str(ps["description"])
				for _, k := range []string{"description", "title", "default", "deprecated", "readOnly"} {
					delete(ps, k) // documentation the description or the type says
				}
			}
			if t := simpleArgType(ps); t != "" && plainType(ps) {
				o.Type = t
			} else if ps != nil && len(ps) == 0 {
				o.Type = "any"
			} else if ps == nil {
				o.Schema = props[k]
			} else {
				o.Schema = ps
			}
			t.outputs = append(t.outputs, o)
		}
		return nil
	}
	t.outputs = append(t.outputs, outField{Name: "result", Schema: sch, Optional: true, Program: "body",
		Description: "The response body."})
	return nil
}

// argFrom is the argument for a value of schema sch (converted).
func (b *builder) argFrom(name, description string, sch any, required bool) arg {
	// A description given is the document's, fitted here; one of the
	// schema was fitted when it was converted (to a budget its schema may
	// set).
	a := arg{Name: name, Description: fitText(description, b.opts.FieldDescriptionBudget)}
	if _, ok := sch.(defRef); ok {
		// The definition's own description is listed with it, once.
		a.Schema = sch
		a.Optional = !required
		return a
	}
	if r, ok := sch.(localRef); ok {
		a.Schema = r
		if a.Description == "" {
			a.Description = str(obj(b.locals.resolve(r))["description"])
		}
		a.Optional = !required
		return a
	}
	m, isMap := sch.(map[string]any)
	if !isMap {
		m = map[string]any{} // true, or a document's mistake: any value
	}
	if a.Description == "" {
		a.Description = str(m["description"])
	}
	if t := simpleArgType(m); t != "" {
		a.Type = t
		// A default of a string with a format is left out: checking the
		// format is the loader's, and documents hold ones that fail it.
		if d, ok := m["default"]; ok && fitsType(d, m) && meets(d, m) && (m["type"] != "string" || m["format"] == nil) {
			a.Default, a.HasDefault = d, true
		}
		if e := list(m["enum"]); len(e) > 0 {
			a.Enum = e
		}
		a.Minimum, a.Maximum = m["minimum"], m["maximum"]
		a.MinLength, a.MaxLength = m["minLength"], m["maxLength"]
		a.Pattern = str(m["pattern"])
		if str(m["type"]) == "string" {
			a.Format = str(m["format"])
		}
		if str(m["type"]) == "array" {
			a.MinItems, a.MaxItems = m["minItems"], m["maxItems"]
		}
	} else {
		s := copyMap(m)
		if s == nil {
			s = map[string]any{}
		}
		delete(s, "description")
		a.Schema = s
	}
	a.Optional = !required && !a.HasDefault
	return a
}

// meets reports whether a default meets its schema's own constraints:
// documents hold defaults that do not, which the loader refuses.
func meets(v any, m map[string]any) bool {
	if e := list(m["enum"]); len(e) > 0 {
		found := false
		for _, x := range e {
			found = found || x == v || isNumber(x) && isNumber(v) && x != nil && v != nil && toFloat(x) == toFloat(v)
		}
		if !found {
			return false
		}
	}
	if isNumber(v) && v != nil {
		if m["minimum"] != nil && toFloat(v) < toFloat(m["minimum"]) || m["maximum"] != nil && toFloat(v) > toFloat(m["maximum"]) {
			return false
		}
	}
	if s, ok := v.(string); ok {
		n := float64(len([]rune(s)))
		if m["minLength"] != nil && n < toFloat(m["minLength"]) || m["maxLength"] != nil && n > toFloat(m["maxLength"]) {
			return false
		}
		if p := str(m["pattern"]); p != "" {
			re, err := regexp.Compile(p)
			if err != nil || !re.MatchString(s) {
				return false
			}
		}
	}
	if l, ok := v.([]any); ok {
		n := float64(len(l))
		if m["minItems"] != nil && n < toFloat(m["minItems"]) || m["maxItems"] != nil && n > toFloat(m["maxItems"]) {
			return false
		}
	}
	return true
}

// simpleKeys are what an arg block says without a schema.
var simpleKeys = map[string]bool{
	"type": true, "format": true, "description": true, "title": true, "default": true, "enum": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true, "pattern": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// simpleArgType is the HCL type of a schema that arg attributes can say
// whole, or "".
func simpleArgType(m map[string]any) string {
	if m == nil {
		return ""
	}
	if t := scalarType(m); t != "" {
		for k := range m {
			if !simpleKeys[k] {
				return ""
			}
		}
		for _, e := range list(m["enum"]) {
			if !fitsType(e, m) {
				return ""
			}
		}
		if m["type"] != "string" && (m["minLength"] != nil || m["maxLength"] != nil || m["pattern"] != nil) {
			return ""
		}
		if (m["type"] == "string" || m["type"] == "boolean") && (m["minimum"] != nil || m["maximum"] != nil) {
			return ""
		}
		if !isCount(m["minLength"]) || !isCount(m["maxLength"]) || !isNumber(m["minimum"]) || !isNumber(m["maximum"]) {
			return ""
		}
		if m["minimum"] != nil && m["maximum"] != nil && toFloat(m["minimum"]) > toFloat(m["maximum"]) ||
			m["minLength"] != nil && m["maxLength"] != nil && toFloat(m["minLength"]) > toFloat(m["maxLength"]) {
			return "" // contradictory bounds: the schema says it as written
		}
		return t
	}
	if m["type"] != "array" {
		return ""
	}
	for k := range m {
		switch k {
		case "type", "items", "description", "title", "minItems", "maxItems", "deprecated", "default":
		default:
			return ""
		}
	}
	if !isCount(m["minItems"]) || !isCount(m["maxItems"]) {
		return ""
	}
	items := obj(m["items"])
	et := scalarType(items)
	if et == "" {
		return ""
	}
	for k := range items {
		switch k {
		case "type", "description", "title":
		case "format":
			if items["type"] == "string" {
				return "" // a format the list type cannot say
			}
		default:
			return ""
		}
	}
	return "list(" + et + ")"
}

func isCount(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case int64:
		return x >= 0
	case float64:
		return x >= 0 && x == math.Trunc(x) && x < 1<<53
	}
	return false
}

func isNumber(v any) bool {
	switch v.(type) {
	case nil, int64, float64:
		return true
	}
	return false
}

// scalarType is the HCL type of a schema of one scalar type, or "".
func scalarType(m map[string]any) string {
	switch m["type"] {
	case "string":
		return "string"
	case "integer":
		return "integer"
	case "number":
		return "number"
	case "boolean":
		return "bool"
	}
	return ""
}

// fitsType reports whether v is a value of m's scalar type.
func fitsType(v any, m map[string]any) bool {
	switch m["type"] {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		return v != nil && isNumber(v)
	case "integer":
		switch x := v.(type) {
		case int64:
			return true
		case float64:
			return x == math.Trunc(x) && math.Abs(x) < 1<<53
		}
		return false
	case "array":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range l {
			if !fitsType(e, obj(m["items"])) {
				return false
			}
		}
		return true
	}
	return false
}

// schemaKind is "array", "object", "scalar" or "any" for a converted
// schema.
func schemaKind(s any) string {
	m := obj(s)
	switch t := m["type"].(type) {
	case string:
		switch t {
		case "array":
			return "array"
		case "object":
			return "object"
		}
		return "scalar"
	case []any:
		kind := ""
		for _, e := range t {
			switch e {
			case "null":
			case "array", "object":
				kind = e.(string)
			default:
				if kind == "" {
					kind = "scalar"
				}
			}
		}
		if kind != "" {
			return kind
		}
	}
	if m["properties"] != nil || m["allOf"] != nil {
		return "object"
	}
	if m["items"] != nil {
		return "array"
	}
	if m["enum"] != nil {
		return "scalar"
	}
	return "any"
}

// isMultipart reports whether a media type is a multipart form.
func isMultipart(mt string) bool {
	l := strings.ToLower(mt)
	return strings.HasPrefix(l, "multipart/") || strings.HasPrefix(l, "application/form-data")
}

// placeholderName reports whether the http action takes s as a
// placeholder's name.
func placeholderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// texts are the title and the description of an operation's tool. The
// summary is the title when it can be one (a line of at most 100 bytes),
// and then the description does not repeat it: it is the document's
// description, or the summary when there is none.
func texts(op *Operation, budget int) (title, description string) {
	summary, body := plainText(op.Summary), plainText(op.Description)
	if len(summary) <= 100 && !strings.Contains(summary, "\n") {
		title = strings.TrimSuffix(summary, ".")
	}
	switch {
	case body == "":
		description = summary
	case title != "" || strings.HasPrefix(body, summary):
		description = body
	default:
		description = summary
		if !endsSentence(description) {
			description += "."
		}
		description += "\n\n" + body
	}
	if repeats(title, description) {
		title = "" // the description says it first
	}
	if description == "" {
		description = op.Method + " " + op.Path
	}
	if op.Deprecated {
		description = "Deprecated. " + description
		if title != "" {
			title += " (deprecated)"
		}
	}
	return title, fitText(description, budget)
}

// trimText cuts s to at most max bytes at a word boundary, with an
// ellipsis.
func trimText(s string, max int) string {
	s = strings.TrimSpace(s)
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := s[:max-3]
	if i := strings.LastIndexAny(cut, " \n"); i > max/2 {
		cut = cut[:i]
	}
	for len(cut) > 0 && cut[len(cut)-1]&0xC0 == 0x80 { // not inside a rune
		cut = cut[:len(cut)-1]
	}
	if len(cut) > 0 && cut[len(cut)-1] >= 0xC0 {
		cut = cut[:len(cut)-1]
	}
	return strings.TrimSpace(cut) + "…"
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// sortTags orders tag names for files and toolsets.
func sortTags(tags map[string][]string) []string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// plainType reports whether a schema says no more than its HCL type (see
// simpleArgType) does: a type, and the type of a list's items.
func plainType(m map[string]any) bool {
	for k := range m {
		if k != "type" && k != "items" {
			return false
		}
	}
	items := obj(m["items"])
	for k := range items {
		if k != "type" {
			return false
		}
	}
	return true
}

// sentences joins texts as sentences: each but the last ends with a
// full stop (or what ends a sentence already), and one space parts them.
// Empty texts are left out.
func sentences(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			if !endsSentence(b.String()) {
				b.WriteByte('.')
			}
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// endsSentence reports whether s ends as a sentence does: with . ! ? or
// …, maybe inside a closing quote or bracket.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, "\"')]»”’")
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "…")
}
