package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// InputFidelity is what CheckInput found: how many comparisons it made
// of the tools' input schemas with the document's requests, and what the
// tools lost.
type InputFidelity struct {
	// Checks counts the comparisons: each property, required name, enum,
	// bound and string format of a request, at any depth, and each
	// parameter or body property that should be an argument.
	Checks int
	// Lost counts the comparisons that found the tool's schema lacking.
	Lost int
	// Losses says what was lost, tool and path first: the first 200.
	Losses []string
	// Shallow counts the tools left uncompared: cut two named schemas
	// deep, past the budget of definitions, as the import reports.
	Shallow int
}

// CheckInput compares the input schema of each tool that res imported,
// as it loads (inputSchema gives a tool's, by name, from res's files
// loaded: engine.Config's Tool and its InputSchema), with the request of its
// operation in spec: every parameter and body property that became an
// argument must keep, at any depth, the document's properties, required
// names, enum values, bounds and string formats. A recursive schema is
// compared once where it recurs; resources and templates are not
// compared (their arguments are scalars).
func CheckInput(spec *Spec, res *Result, inputSchema func(tool string) (map[string]any, bool)) InputFidelity {
	f := &fidelity{spec: spec}
	f.check(res, inputSchema)
	return InputFidelity{Checks: f.checks, Lost: f.lost, Losses: f.losses, Shallow: f.shallow}
}

// fidelity compares the input schema of each imported tool, as it loads,
// with the request of its operation in the document: every parameter and
// body property that became an argument must keep, at any depth, the
// document's properties, required names, enum values, bounds and string
// formats (patterns Go cannot run are the one thing dropped, and said
// so). A recursive schema is compared once where it recurs.
type fidelity struct {
	spec   *Spec
	root   map[string]any // the tool's input schema, whose $defs references point into
	seen   map[string]bool
	checks int
	lost   int
	losses []string
	// shallow counts the tools left uncompared: cut two named schemas
	// deep, as the import reports (Result.Shallow).
	shallow int
}

var argProgram = regexp.MustCompile(`\bargs\.([A-Za-z_][A-Za-z0-9_]*)`)

// wholeArgProgram is argProgram where the program reads the argument
// itself, not one of its properties (an object exploded into the query).
var wholeArgProgram = regexp.MustCompile(`\bargs\.([A-Za-z_][A-Za-z0-9_]*)(?:[^A-Za-z0-9_.?]|$)`)

// check compares every tool of res, whose loaded input schemas
// inputSchema gives, with the document.
func (f *fidelity) check(res *Result, inputSchema func(tool string) (map[string]any, bool)) {
	for _, bt := range res.built {
		schema, ok := inputSchema(bt.name)
		if !ok {
			continue // a resource or a template: its arguments are scalars
		}
		if bt.shallow > 0 {
			f.shallow++
			continue
		}
		f.root = schema
		f.seen = map[string]bool{}
		props := obj(f.root["properties"])
		required := map[string]bool{}
		for _, r := range list(f.root["required"]) {
			required[str(r)] = true
		}
		where := bt.name
		requiredArg := func(x, what string) {
			f.checks++
			if !required[x] && obj(props[x])["default"] == nil {
				f.loss(where + ": " + what + " is required, argument " + x + " is not")
			}
		}
		// A parameter is sent by a field of its own place: biapi.pro's
		// logs take id_connection in the path and, another one, in the
		// query.
		fields := map[string][]field{"path": bt.pathParams, "query": bt.query, "header": bt.headers}
		for _, p := range bt.op.Params {
			x := ""
			for _, fl := range fields[p.In] {
				if m := wholeArgProgram.FindStringSubmatch(fl.program); !fl.literal && m != nil && (fl.key == p.Name || fl.key == identifier(p.Name, "p")) {
					x = m[1]
				}
			}
			if x == "" {
				continue // left out or fixed, as the tool's notes say
			}
			f.compare(p.Schema, p.Doc, props[x], where+": parameter "+p.Name, nil, 0)
			if p.Required {
				requiredArg(x, "parameter "+p.Name)
			}
		}
		body := bt.op.Body
		if body == nil || bt.body == nil {
			continue
		}
		if m := regexp.MustCompile(`^args\.([A-Za-z_][A-Za-z0-9_]*)$`).FindStringSubmatch(bt.body.program); m != nil {
			// A JSON body, or text whose schema is the text's (not that of
			// a JWT's claims, say); forms and files take another shape.
			if s, _, _, err := f.spec.deref(body.Schema, body.Doc); bt.body.kind == "json" || bt.body.kind == "raw" && err == nil && obj(s)["type"] == "string" {
				f.compare(body.Schema, body.Doc, props[m[1]], where+": body", nil, 0)
			}
			continue
		}
		if len(bt.body.fields) == 0 {
			continue
		}
		dm, ddoc, _, err := f.spec.deref(body.Schema, body.Doc)
		if err != nil {
			continue
		}
		dprops, dreq := f.docShape(dm, ddoc, 0)
		sent := map[string]bool{}
		for _, fl := range bt.body.fields {
			m := argProgram.FindStringSubmatch(fl.program)
			ds, ok := dprops[fl.key]
			if m == nil || !ok {
				continue
			}
			sent[fl.key] = true
			f.compare(ds.schema, ds.doc, props[m[1]], where+": body property "+fl.key, nil, 0)
			if body.Required && dreq[fl.key] {
				requiredArg(m[1], "body property "+fl.key)
			}
		}
		// A name the body requires and does not define (PocketSmith's
		// category_id) must still be sent.
		for r := range dreq {
			if _, defined := dprops[r]; !body.Required || defined {
				continue
			}
			i := slices.IndexFunc(bt.body.fields, func(fl field) bool { return fl.key == r })
			if i < 0 {
				f.checks++
				f.loss(where + ": body property " + r + " is required and not an argument")
			} else if m := argProgram.FindStringSubmatch(bt.body.fields[i].program); m != nil {
				requiredArg(m[1], "body property "+r)
			}
		}
		if bt.body.kind != "json" {
			continue // form fields that are objects or files are left out, as the notes say
		}
		for k, ds := range dprops {
			f.checks++
			if pm, _, _, err := f.spec.deref(ds.schema, ds.doc); !sent[k] && err == nil && obj(pm)["readOnly"] != true {
				f.loss(where + ": body property " + k + " is not an argument")
			}
		}
	}
}

func (f *fidelity) loss(s string) {
	f.lost++
	if len(f.losses) < 200 {
		f.losses = append(f.losses, s)
	}
}

// docSchema is a schema of the document and the document it is in.
type docSchema struct {
	schema any
	doc    string
}

// docShape merges the properties and required names of a document's
// schema and of the parts of its allOf, anyOf and oneOf.
func (f *fidelity) docShape(m any, doc string, depth int) (map[string]docSchema, map[string]bool) {
	props, required := map[string]docSchema{}, map[string]bool{}
	var merge func(v any, doc string, depth int)
	merge = func(v any, doc string, depth int) {
		m, d, _, err := f.spec.deref(v, doc)
		if err != nil || depth > 16 {
			return
		}
		for k, p := range obj(obj(m)["properties"]) {
			if _, ok := props[k]; !ok {
				props[k] = docSchema{p, d}
			}
		}
		for _, r := range list(obj(m)["required"]) {
			required[str(r)] = true
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			for _, part := range list(obj(m)[k]) {
				merge(part, d, depth+1)
			}
		}
	}
	merge(m, doc, depth)
	return props, required
}

// toolDeref follows a tool schema's references to its $defs.
func (f *fidelity) toolDeref(s any) (map[string]any, string) {
	name := ""
	for range 32 {
		m := obj(s)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, name
		}
		name = strings.TrimPrefix(ref, "#/$defs/")
		s = obj(f.root["$defs"])[name]
	}
	return nil, name
}

// toolShape is docShape for a tool's schema; items is the first items
// schema found.
func (f *fidelity) toolShape(s any) (props map[string]any, required map[string]bool, enum []any, items any) {
	props, required = map[string]any{}, map[string]bool{}
	var merge func(v any, depth int)
	merge = func(v any, depth int) {
		m, _ := f.toolDeref(v)
		if m == nil || depth > 16 {
			return
		}
		for k, p := range obj(m["properties"]) {
			if _, ok := props[k]; !ok {
				props[k] = p
			}
		}
		for _, r := range list(m["required"]) {
			required[str(r)] = true
		}
		enum = append(enum, list(m["enum"])...)
		if items == nil {
			items = m["items"]
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			for _, part := range list(m[k]) {
				merge(part, depth+1)
			}
		}
	}
	merge(s, 0)
	return props, required, enum, items
}

// compare checks the tool's schema ts against the document's d.
func (f *fidelity) compare(d any, ddoc string, ts any, path string, stack []string, depth int) {
	dm0, ddoc, dkey, err := f.spec.deref(d, ddoc)
	dm := obj(dm0)
	if err != nil || dm == nil || depth > 48 || dkey != "" && slices.Contains(stack, dkey) {
		return
	}
	tm, tname := f.toolDeref(ts)
	if dkey != "" {
		pair := dkey + "|" + tname
		if f.seen[pair] {
			return
		}
		f.seen[pair] = true
		stack = append(stack, dkey)
	}
	if ts == nil {
		f.checks++
		f.loss(path + ": no schema")
		return
	}
	dprops, dreq := f.docShape(dm, ddoc, 0)
	tprops, treq, tenum, titems := f.toolShape(ts)
	readOnly := func(k string) bool {
		pm, _, _, err := f.spec.deref(dprops[k].schema, dprops[k].doc)
		return err == nil && obj(pm)["readOnly"] == true
	}
	for _, k := range sortedKeys(dprops) {
		f.checks++
		tp, ok := tprops[k]
		if !ok && readOnly(k) {
			continue // a request leaves out what the server sets
		}
		if !ok {
			f.loss(path + "." + k + ": property missing")
			continue
		}
		f.compare(dprops[k].schema, dprops[k].doc, tp, path+"."+k, stack, depth+1)
	}
	for r := range dreq {
		f.checks++
		if !treq[r] && !readOnly(r) {
			f.loss(path + ": required " + r + " missing")
		}
	}
	if e := list(dm["enum"]); len(e) > 0 {
		f.checks++
		have := map[string]bool{}
		for _, v := range tenum {
			have[fmt.Sprint(v)] = true
		}
		for _, v := range e {
			if v != nil && !have[fmt.Sprint(v)] {
				f.loss(fmt.Sprintf("%s: enum value %v missing", path, v))
				break
			}
		}
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum"} {
		v, ok := dm[k]
		if !ok || !validKeyword(k, v) {
			continue
		}
		if k == "minimum" && dm["exclusiveMinimum"] == true || k == "maximum" && dm["exclusiveMaximum"] == true {
			continue // written as the exclusive bound
		}
		f.checks++
		if a, err := strconv.ParseFloat(fmt.Sprint(tm[k]), 64); err != nil || a != toFloat(v) {
			f.loss(fmt.Sprintf("%s: %s %v, the tool's %v", path, k, v, tm[k]))
		}
	}
	// An empty format (hhs.gov's parameters have "format": "") names none.
	if format, ok := dm["format"].(string); ok && format != "" && dm["type"] == "string" {
		f.checks++
		if tm["format"] != format {
			f.loss(fmt.Sprintf("%s: format %s, the tool's %v", path, format, tm["format"]))
		}
	}
	if di, ok := dm["items"].(map[string]any); ok {
		f.compare(di, ddoc, titems, path+"[]", stack, depth+1)
	}
}
