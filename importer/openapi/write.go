package openapi

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	lang "github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/importer/internal/write"
)

// maxFileBytes bounds each file written, under the 10 MiB that mcpdecl
// reads from one configuration file: past it, tools go on in another file.
const maxFileBytes = 8 << 20

// write renders the files. Each tool is rendered on its own (formatting
// small pieces is fast) and the pieces are packed into files. Blocks and
// attributes are named through the language's specs: a name they do not
// declare is an error.
func (b *builder) write(api *apiDecl, tools []*tool, res *Result) ([]File, error) {
	main := hclwrite.NewEmptyFile()
	body := lang.NewWriter(b.opts.Language, main.Body())
	b.header(body, api, res)
	b.apiBlocks(body, api)

	// group is a file's worth of tools: all of them, or those of one tag.
	type group struct {
		key, intro string
		pieces     [][]byte
	}
	mainFile := b.opts.File
	if mainFile == "" {
		mainFile = api.name + ".hcl"
	}
	stem := strings.TrimSuffix(mainFile, ".hcl")
	groups := map[string]*group{}
	var keys []string
	byTag := map[string][]string{}
	pieces, err := b.render(api, tools)
	for i, t := range tools {
		tag := ""
		if len(t.op.Tags) > 0 {
			tag = t.op.Tags[0]
		}
		for _, tg := range t.op.Tags {
			if b.resources.served[t] == nil { // toolsets are of tools
				byTag[tg] = append(byTag[tg], t.name)
			}
		}
		key := ""
		if b.opts.SplitByTag {
			key = "other"
			if tag != "" {
				key = identifier(tag, "other")
			}
		}
		g, ok := groups[key]
		if !ok {
			g = &group{key: key}
			switch {
			case key == "":
			case tag == "":
				g.intro = fmt.Sprintf("Tools of %s with no tag, imported by mcpdecl import openapi; the http_api is in %s.", api.title, mainFile)
			default:
				g.intro = fmt.Sprintf("Tools of %s tagged %q, imported by mcpdecl import openapi; the http_api is in %s.", api.title, tag, mainFile)
			}
			groups[key] = g
			keys = append(keys, key)
		}
		g.pieces = append(g.pieces, pieces[i])
	}
	if b.opts.Toolsets {
		taken := names{}
		for _, tag := range sortTags(byTag) {
			name := taken.unique(identifier(tag, "tag"), 64)
			body.AppendNewline()
			blk := body.Block("toolset", name)
			blk.Value("description", cty.StringVal(fmt.Sprintf("The tools of %s tagged %q.", api.title, tag)))
			blk.Value("tags", cty.TupleVal([]cty.Value{cty.StringVal(tag)}))
		}
	}
	locals := hclwrite.NewEmptyFile()
	lw := lang.NewWriter(b.opts.Language, locals.Body())
	b.localBlock(lw, api)
	if err := errors.Join(body.Err(), lw.Err(), err); err != nil {
		return nil, err
	}
	head := hclwrite.Format(main.Bytes())
	schemas := hclwrite.Format(locals.Bytes())

	var files []File
	cur := 0 // the file being filled
	start := func(name string, data []byte) {
		files = append(files, File{Name: name, Data: data})
		cur = len(files) - 1
	}
	start(mainFile, head)
	if len(head)+len(schemas) > maxFileBytes/2 {
		start(stem+"_schemas.hcl", append([]byte("# The schemas of "+api.title+", used by the tools of the other files.\n"), schemas...))
	} else {
		files[0].Data = append(files[0].Data, schemas...)
	}
	sort.Strings(keys)
	for _, key := range keys {
		g := groups[key]
		base := stem
		if key != "" {
			base += "_" + key
			start(base+".hcl", []byte("# "+g.intro+"\n"))
		} else {
			cur = 0
		}
		n := 1
		for _, p := range g.pieces {
			if len(files[cur].Data)+len(p)+1 > maxFileBytes {
				n++
				start(fmt.Sprintf("%s_%d.hcl", base, n), []byte(fmt.Sprintf("# More tools of %s; the http_api is in %s.\n", api.title, mainFile)))
			}
			files[cur].Data = append(files[cur].Data, '\n')
			files[cur].Data = append(files[cur].Data, p...)
		}
	}
	return files, nil
}

// emptyBlock is an arg block with nothing in it, as hclwrite writes one.
var emptyBlock = regexp.MustCompile(`(?m)^( *arg "[^"\n]*") \{\n *\}$`)

// render writes each tool as formatted HCL, the tools spread over the
// processors: formatting is most of the time an import takes.
func (b *builder) render(api *apiDecl, tools []*tool) ([][]byte, error) {
	pieces := make([][]byte, len(tools))
	errs := make([]error, len(tools))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(tools)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(tools); i = int(next.Add(1) - 1) {
				f := hclwrite.NewEmptyFile()
				w := lang.NewWriter(b.opts.Language, f.Body())
				if s := b.resources.served[tools[i]]; s != nil {
					b.resourceBlock(w, api, tools[i], s)
				} else {
					b.toolBlock(w, api, tools[i])
				}
				pieces[i], errs[i] = tidy(hclwrite.Format(f.Bytes())), w.Err()
			}
		})
	}
	wg.Wait()
	return pieces, errors.Join(errs...)
}

// tidy writes empty arg blocks on one line.
func tidy(src []byte) []byte {
	return emptyBlock.ReplaceAll(src, []byte("$1 {}"))
}

// localBlock writes the named schemas the tools use, as one locals block.
// Only the locals in use are written: the tools were rendered first, and
// a local comes after those it refers to in order, so walking it backwards
// renders each after all its users.
func (b *builder) localBlock(body *lang.Writer, api *apiDecl) {
	// The definitions the tools reach, and those they reach in turn.
	reached := map[string]bool{}
	var queue []string
	for n := range b.locals.defsUsed {
		reached[n] = true
		queue = append(queue, n)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, d := range defRefs(b.locals.defs[n], nil) {
			if !reached[d] {
				reached[d] = true
				queue = append(queue, d)
			}
		}
	}
	var defs []hclwrite.ObjectAttrTokens
	for _, n := range slices.Sorted(maps.Keys(reached)) {
		defs = append(defs, hclwrite.ObjectAttrTokens{Name: write.KeyTokens(n), Value: b.value(b.locals.defs[n])})
	}
	rendered := map[string]hclwrite.Tokens{}
	for i := len(b.locals.order) - 1; i >= 0; i-- {
		n := b.locals.order[i]
		if b.locals.used[n] {
			rendered[n] = b.value(b.locals.values[n])
		}
	}
	if len(rendered) == 0 && len(defs) == 0 {
		return
	}
	body.AppendNewline()
	switch {
	case len(defs) == 0:
		body.AppendComment("The schemas of the document, written once and used by the tools' outputs.")
	case len(rendered) == 0:
		body.AppendComment("The schemas of the document's requests, written once: each tool lists, under $defs of its input\n" +
			"schema, those its arguments refer to ({\"$ref\": \"#/$defs/Name\"}).")
	default:
		body.AppendComment("The schemas of the document, written once. " + defsLocal(api) + " are those of the requests: each tool lists,\n" +
			"under $defs of its input schema, those its arguments refer to ({\"$ref\": \"#/$defs/Name\"}). The others are\n" +
			"the outputs'.")
	}
	blk := body.Block("locals")
	if len(defs) > 0 {
		blk.Raw(defsLocal(api), hclwrite.TokensForObject(defs))
	}
	for _, n := range b.locals.order {
		if toks, ok := rendered[n]; ok {
			blk.Raw(n, toks)
		}
	}
}

// defsLocal is the name of the local holding the definitions of an API's
// tools' inputs.
func defsLocal(api *apiDecl) string { return api.name + "_defs" }

// defRefs appends to out the definitions a converted schema refers to.
func defRefs(v any, out []string) []string {
	switch x := v.(type) {
	case defRef:
		out = append(out, string(x))
	case map[string]any:
		for _, e := range x {
			out = defRefs(e, out)
		}
	case []any:
		for _, e := range x {
			out = defRefs(e, out)
		}
	}
	return out
}

// header is the comment that opens the main file: where it came from and
// what was left out.
func (b *builder) header(body *lang.Writer, api *apiDecl, res *Result) {
	info := obj(b.spec.Root["info"])
	lines := []string{fmt.Sprintf("%s %s, imported by mcpdecl import openapi from %s.", api.title, str(info["version"]), b.opts.Source)}
	lines = append(lines, fmt.Sprintf("%d operations read, %d imported, %d skipped, %d not selected, %d past the cap.",
		res.Read, len(res.Imported), len(res.Skipped), res.Excluded, len(res.Capped)))
	for _, n := range res.Notes {
		lines = append(lines, "Note: "+n+".")
	}
	if moved := res.MovedSummary(); len(moved) > 0 {
		lines = append(lines, "Not tool arguments (x-mcp-argument: true on a parameter keeps it one):")
		for _, m := range moved {
			lines = append(lines, "  "+m)
		}
	}
	if len(res.Skipped) > 0 {
		lines = append(lines, "Skipped:")
		for _, s := range res.Skipped {
			lines = append(lines, "  "+s.Operation+": "+s.Reason)
		}
	}
	if len(res.Capped) > 0 {
		lines = append(lines, "Past the cap:")
		for _, s := range res.Capped {
			lines = append(lines, "  "+s.Operation)
		}
	}
	body.AppendComment(strings.Join(lines, "\n"))
}

// apiBlocks writes the variables and the http_api.
func (b *builder) apiBlocks(body *lang.Writer, api *apiDecl) {
	body.AppendNewline()
	baseVar := api.name + "_base_url"
	v := body.Block("variable", baseVar)
	v.Raw("type", hclwrite.TokensForIdentifier("string"))
	desc := "The base URL of " + api.title + "."
	if api.baseNote != "" {
		desc += " Set it: " + api.baseNote + "."
	}
	v.Value("description", cty.StringVal(desc))
	v.Value("default", cty.StringVal(api.baseURL))

	secretVar := func(name, env, what string, sensitive bool) {
		body.AppendNewline()
		v := body.Block("variable", name)
		v.Raw("type", hclwrite.TokensForIdentifier("string"))
		v.Value("description", cty.StringVal(fmt.Sprintf("%s, read from the environment variable %s.", what, env)))
		if sensitive {
			v.Value("sensitive", cty.True)
		}
		v.Raw("default", hclwrite.TokensForFunctionCall("env", hclwrite.TokensForValue(cty.StringVal(env))))
	}
	a := api.auth
	if a != nil {
		switch a.kind {
		case "bearer":
			secretVar(api.name+"_token", a.env[0], fmt.Sprintf("The bearer token of %s (security scheme %q)", api.title, a.scheme), true)
		case "basic":
			secretVar(api.name+"_username", a.env[0], fmt.Sprintf("The user name of %s (security scheme %q)", api.title, a.scheme), false)
			secretVar(api.name+"_password", a.env[1], fmt.Sprintf("The password of %s", api.title), true)
		case "api_key":
			what := fmt.Sprintf("The API key of %s (security scheme %q, the %s %s)", api.title, a.scheme, a.in, a.param)
			if a.synthetic {
				what = fmt.Sprintf("The API key of %s (the %s parameter %s of its operations)", api.title, a.in, a.param)
			}
			secretVar(api.name+"_api_key", a.env[0], what, true)
		case "oauth2":
			secretVar(api.name+"_client_id", a.env[0], fmt.Sprintf("The OAuth2 client id for %s (security scheme %q)", api.title, a.scheme), false)
			secretVar(api.name+"_client_secret", a.env[1], fmt.Sprintf("The OAuth2 client secret for %s", api.title), true)
		}
		for _, k := range a.keys {
			secretVar(k.variable, k.env, fmt.Sprintf("The API key of %s in the header %s (security scheme %q, required with %q)", api.title, k.header, k.scheme, a.scheme), true)
		}
	}

	body.AppendNewline()
	h := body.Block("http_api", api.name)
	h.Traversal("base_url", lang.Ref("var", baseVar))
	var headers, query []hclwrite.ObjectAttrTokens
	if a != nil {
		for _, k := range a.keys {
			headers = append(headers, hclwrite.ObjectAttrTokens{Name: hclwrite.TokensForValue(cty.StringVal(k.header)), Value: hclwrite.TokensForTraversal(lang.Ref("var", k.variable))})
		}
	}
	for _, f := range api.fixed {
		kv := hclwrite.ObjectAttrTokens{Name: hclwrite.TokensForValue(cty.StringVal(f.Name)), Value: hclwrite.TokensForValue(cty.StringVal(f.Value))}
		if f.In == "header" {
			headers = append(headers, kv)
		} else {
			query = append(query, kv)
		}
	}
	if len(headers) > 0 {
		h.Raw("headers", hclwrite.TokensForObject(headers))
	}
	if len(query) > 0 {
		h.Raw("query", hclwrite.TokensForObject(query))
	}
	if a != nil {
		auth := h.Block("auth")
		switch a.kind {
		case "bearer":
			auth.Traversal("bearer", lang.Ref("var", api.name+"_token"))
		case "basic":
			basic := auth.Block("basic")
			basic.Traversal("username", lang.Ref("var", api.name+"_username"))
			basic.Traversal("password", lang.Ref("var", api.name+"_password"))
		case "api_key":
			key := auth.Block("api_key")
			key.Value(a.in, cty.StringVal(a.param))
			key.Traversal("value", lang.Ref("var", api.name+"_api_key"))
		case "oauth2":
			o := auth.Block("oauth2")
			o.Value("token_url", cty.StringVal(a.tokenURL))
			o.Traversal("client_id", lang.Ref("var", api.name+"_client_id"))
			o.Traversal("client_secret", lang.Ref("var", api.name+"_client_secret"))
			if len(a.scopes) > 0 {
				scopes := make([]cty.Value, len(a.scopes))
				for i, sc := range a.scopes {
					scopes[i] = cty.StringVal(sc)
				}
				o.Value("scopes", cty.TupleVal(scopes))
			}
		}
	}
}

// toolBlock writes one tool.
func (b *builder) toolBlock(body *lang.Writer, api *apiDecl, t *tool) *lang.Writer {
	if len(t.notes) > 0 {
		notes := make([]string, len(t.notes))
		for i, n := range t.notes {
			notes[i] = "Note: " + n + "."
		}
		body.AppendComment(strings.Join(notes, "\n"))
	}
	blk := body.Block("tool", t.name)
	if t.title != "" {
		blk.Value("title", cty.StringVal(t.title))
	}
	blk.Value("description", cty.StringVal(t.description))
	if len(t.outputs) > 0 {
		// A response's whole schema costs a model more tokens on every
		// turn than its shape tells it; results are checked against the
		// whole schema all the same.
		blk.Value("output_schemas", cty.StringVal("compact"))
	}
	if len(t.op.Tags) > 0 {
		tags := make([]cty.Value, len(t.op.Tags))
		for i, tag := range t.op.Tags {
			tags[i] = cty.StringVal(tag)
		}
		blk.Value("tags", cty.TupleVal(tags))
	}
	for _, a := range t.args {
		if len(defRefs(a.Schema, nil)) > 0 {
			blk.Traversal("defs", lang.Ref("local", defsLocal(api)))
			break
		}
	}
	an := blk.Block("annotations")
	for i, h := range t.hints {
		if h != nil {
			an.Value(hintAttrs[i], cty.BoolVal(*h))
		}
	}
	for _, a := range t.args {
		a.Write(blk, b.value)
	}

	h := blk.Block("http")
	h.Traversal("api", lang.Ref("http_api", api.name))
	h.Value("method", cty.StringVal(t.op.Method))
	h.Value("path", cty.StringVal(t.pathTemplate))
	for _, m := range []struct {
		name   string
		fields []field
	}{{"path_params", t.pathParams}, {"query", t.query}, {"headers", t.headers}} {
		if len(m.fields) > 0 {
			h.Raw(m.name, fieldsTokens(m.fields))
		}
	}
	if bm := t.body; bm != nil {
		switch {
		case bm.kind == "raw":
			h.Raw("raw_body", lang.ExprTokens(bm.program))
			h.Value("content_type", cty.StringVal(bm.contentType))
		case bm.kind == "multipart" && bm.program != "":
			h.Raw("multipart", lang.ExprTokens(bm.program))
		case bm.kind == "multipart":
			h.Raw("multipart", fieldsTokens(bm.fields))
		case bm.kind == "form" && bm.program != "":
			h.Raw("form", lang.ExprTokens(bm.program))
		case bm.kind == "form":
			if len(bm.fields) > 0 {
				h.Raw("form", fieldsTokens(bm.fields))
			}
		case bm.program != "":
			h.Raw("body", lang.ExprTokens(bm.program))
		case bm.compact:
			parts := make([]string, len(bm.fields))
			for i, f := range bm.fields {
				parts[i] = write.Quote(f.key) + ": " + f.program
			}
			program := "compact({" + strings.Join(parts, ", ") + "})"
			if bm.optional {
				// An optional body with nothing in it is not sent: its
				// schema's required fields apply only to a body.
				program = "let body = " + program + "; len(body) > 0 ? body : nil"
			}
			h.Raw("body", lang.ExprTokens(program))
		default:
			h.Raw("body", fieldsTokens(bm.fields))
		}
		if bm.kind == "json" && bm.contentType != "" {
			h.Value("content_type", cty.StringVal(bm.contentType))
		}
	}

	for _, o := range t.outputs {
		o.Description = trimText(o.Description, 600)
		o.Write(blk, b.value)
	}
	return blk
}

// fieldsTokens writes a map of programs: { key = expr("…") }.
func fieldsTokens(fields []field) hclwrite.Tokens {
	attrs := make([]hclwrite.ObjectAttrTokens, len(fields))
	for i, f := range fields {
		v := lang.ExprTokens(f.program)
		if f.literal {
			v = hclwrite.TokensForValue(cty.StringVal(f.program))
		}
		attrs[i] = hclwrite.ObjectAttrTokens{Name: write.KeyTokens(f.key), Value: v}
	}
	return hclwrite.TokensForObject(attrs)
}

// value writes a plain value (a schema, a default) as HCL, a reference to
// a local or a definition as such.
func (b *builder) value(v any) hclwrite.Tokens {
	return write.ValueTokens(v, b.ref)
}

// ref writes a reference to a local or a definition, and notes its use.
func (b *builder) ref(v any) (hclwrite.Tokens, bool) {
	switch x := v.(type) {
	case localRef:
		b.locals.use(string(x))
		return hclwrite.TokensForTraversal(lang.Ref("local", string(x))), true
	case defRef:
		b.locals.useDef(string(x))
		return hclwrite.TokensForObject([]hclwrite.ObjectAttrTokens{{
			Name: write.KeyTokens("$ref"), Value: hclwrite.TokensForValue(cty.StringVal("#/$defs/" + string(x)))}}), true
	}
	return nil, false
}
