package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/server"
	gqlimport "github.com/mcpdecl/mcpdecl/importer/graphql"
	"github.com/mcpdecl/mcpdecl/importer/openapi"
	"github.com/mcpdecl/mcpdecl/internal/gqlschema"
)

// defaultTokenBudget is the estimated size of tools/list above which an
// import warns.
const defaultTokenBudget = 20000

func (a *app) importCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "import",
		Short: "Write configuration for a whole API from its description",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, rest []string) error {
			if len(rest) == 0 {
				return usageError{errors.New("import needs the kind of description to read: mcpdecl import openapi SPEC, or mcpdecl import graphql --schema SCHEMA OPERATION…")}
			}
			return usageError{fmt.Errorf("unknown command %q for \"mcpdecl import\": there are openapi (OpenAPI 3.0, 3.1 and Swagger 2.0) and graphql (a schema and operation files)", rest[0])}
		},
	}
	c.AddCommand(a.importOpenAPICmd(), a.importGraphQLCmd())
	return c
}

func (a *app) importOpenAPICmd() *cobra.Command {
	var (
		opts        openapi.Options
		out         string
		force       bool
		methods     string
		tokenBudget int
		overlays    []string
		refs        openapi.RefAccess
	)
	c := &cobra.Command{
		Use:   "openapi SPEC",
		Short: "Write one http_api and a tool per operation from an OpenAPI document",
		Long: `Import reads an OpenAPI 3.0 or 3.1 document, or Swagger 2.0, as JSON or YAML,
from a file or an http(s) URL, and writes configuration: variables for the
base URL and the credentials (read from the environment), one http_api, and a
tool per selected operation, with its arguments, request and typed outputs.

The configuration is loaded as serve would load it before anything is
written: an import writes files that validate, or nothing. Operations that
cannot be expressed are skipped, each with its reason, printed and written as
comments at the top of the main file.

-o names the file to write (default: <name>.hcl here); with --split-by-tag it
names a directory, which gets <name>.hcl and one <name>_<tag>.hcl per tag.
Existing files are not replaced without --force.

Patterns in the selection flags are globs (* also matches /); flags repeat or
take comma-separated lists. --resources makes the GET operations it names
resources, read by a URI such as pet-store://pets (the http_api's name, then
the path), or, with path parameters or a required query parameter, resource
templates such as pet-store://pets/{pet_id}{?fields}, instead of tools. An
operation's x-mcp-resource (true or false, in the document or an overlay)
decides over --resources. --overlay applies an OpenAPI Overlay (1.0) to the
document first, so that names and descriptions curated once survive a new
version of the document.

Credentials (parameters an apiKey scheme covers, api_key, access_token,
X-API-Key…) and transport switches (JSONP callbacks, Google's alt, fields,
prettyPrint, quotaUser, upload protocols…) are no tool's arguments: the
http_api's auth sends the credential, the API's defaults apply to the rest,
and the report lists what moved. A required parameter with one allowed
value (an enum of one, a const, Azure's api-version) is sent with it: by the
http_api's query when every operation takes it, else by the tool.
x-mcp-argument: true on a parameter, in an overlay, keeps one an argument.
Descriptions are written as plain text, cut at --description-budget (a
tool's), --field-description-budget (arguments') and
--output-description-budget (outputs'), which x-mcp-description-budget on an
operation, parameter or schema lifts.

A tool's input keeps its request's schema whole: the named schemas it
reaches are listed once under $defs of its input schema. A tool whose
request reaches more than --defs-budget bytes of them (in documents whose
schemas nearly all refer to each other, such as Microsoft Graph's) has its
named schemas cut two levels deep instead, as the report lists;
x-mcp-defs-budget on an operation (a number of bytes, -1 for no bound)
decides over the flag.

References ($ref) are followed to files under the document's directory and,
for a document read from a URL, to URLs of the same origin (scheme, host and
port). Anything else is refused, naming the reference, unless
--allow-external-files (any file) or --allow-remote-refs (any http(s) URL)
is given: a document you did not write cannot make import read your files
or send requests elsewhere.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			if methods != "" {
				opts.Select.Methods = strings.Split(methods, ",")
			}
			opts.Source = filepath.Base(rest[0])
			if strings.Contains(rest[0], "://") {
				opts.Source = rest[0]
			}
			return a.importOpenAPI(rest[0], out, force, tokenBudget, overlays, refs, opts)
		},
	}
	f := c.Flags()
	f.StringVarP(&out, "output", "o", "", "the file to write, or the directory with --split-by-tag")
	f.BoolVar(&force, "force", false, "replace files that exist")
	f.StringVar(&opts.Name, "name", "", "the http_api's name, and the prefix of its variables (default: from the document's title)")
	f.StringVar(&opts.BaseURL, "base-url", "", "the upstream's base URL, in place of the document's servers")
	f.StringSliceVar(&opts.Select.Tags, "tag", nil, "import only operations with one of these tags")
	f.StringSliceVar(&opts.Select.ExcludeTags, "exclude-tag", nil, "leave out operations with one of these tags")
	f.StringSliceVar(&opts.Select.Ops, "operation", nil, "import only these operations: operationIds or tool names")
	f.StringSliceVar(&opts.Select.ExcludeOps, "exclude-operation", nil, "leave out these operations")
	f.StringSliceVar(&opts.Select.Paths, "path", nil, "import only operations on these paths")
	f.StringSliceVar(&opts.Select.ExcludePaths, "exclude-path", nil, "leave out operations on these paths")
	f.StringVar(&methods, "method", "", "import only these methods, such as GET,HEAD")
	f.StringSliceVar(&opts.Resources, "resources", nil, "import these GET operations as resources or resource templates instead of tools: operationIds, tool names or paths ('*' for every one that can be)")
	f.IntVar(&opts.MaxTools, "max-tools", 0, "import at most this many tools; the rest are reported")
	f.IntVar(&opts.DescriptionBudget, "description-budget", 1200, "the longest tool description, in bytes")
	f.IntVar(&opts.FieldDescriptionBudget, "field-description-budget", 300, "the longest description of an argument or of a schema in one, in bytes (-1: no cap)")
	f.IntVar(&opts.OutputDescriptionBudget, "output-description-budget", 120, "the longest description of an output or of a schema in one, in bytes (-1: no cap)")
	f.IntVar(&opts.DefsBudget, "defs-budget", openapi.DefaultDefsBudget, "the most bytes of named schemas a tool's input lists under $defs; past it, they are cut two levels deep (-1: no bound)")
	f.BoolVar(&opts.SplitByTag, "split-by-tag", false, "write one file per tag into the directory -o names")
	f.BoolVar(&opts.Toolsets, "toolsets", false, "declare one toolset per tag")
	f.IntVar(&tokenBudget, "token-budget", defaultTokenBudget, "warn when the estimated size of tools/list passes this many tokens")
	f.StringArrayVar(&overlays, "overlay", nil, "apply this OpenAPI Overlay file to the document first (repeatable, in order)")
	f.BoolVar(&refs.RemoteRefs, "allow-remote-refs", false, "follow references to any http(s) URL (default: only the origin of a document read from a URL)")
	f.BoolVar(&refs.ExternalFiles, "allow-external-files", false, "follow references to files outside the document's directory")
	return c
}

// importOpenAPI reads, converts, validates and writes.
func (a *app) importOpenAPI(spec, out string, force bool, tokenBudget int, overlays []string, refs openapi.RefAccess, opts openapi.Options) error {
	data, err := openapi.ReadFile(spec)
	if err != nil {
		return fmt.Errorf("read %s: %w", spec, err)
	}
	doc, err := openapi.Parse(data, spec, refs.Reader(spec))
	if err != nil {
		return err
	}
	for _, o := range overlays {
		data, err := openapi.ReadFile(o)
		if err != nil {
			return fmt.Errorf("read the overlay %s: %w", o, err)
		}
		unmatched, err := doc.ApplyOverlay(data, o)
		if err != nil {
			return err
		}
		warnUnmatched(a.stderr, unmatched)
	}
	dir := "."
	switch {
	case opts.SplitByTag:
		if out != "" {
			dir = out
		}
	case out != "":
		dir, opts.File = filepath.Dir(out), filepath.Base(out)
		if !strings.HasSuffix(opts.File, ".hcl") {
			return usageError{fmt.Errorf("-o %s: the file to write must end with .hcl (with --split-by-tag, -o names a directory)", out)}
		}
	}
	opts.Language = load.FileSpec(registry())
	res, err := openapi.Import(doc, opts)
	if err != nil {
		return fmt.Errorf("import %s: %w", spec, err)
	}
	if len(res.Imported) == 0 {
		a.importReport(res, 0)
		return errors.New("no operation became a tool, so nothing was written")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	var targets []string
	for _, f := range res.Files {
		p := filepath.Join(dir, f.Name)
		if _, err := os.Stat(p); err == nil && !force {
			return fmt.Errorf("%s already exists, and import never replaces a file: give another -o, or add --force to replace it", p)
		}
		targets = append(targets, p)
	}

	// Load what would be written, as serve would, before writing it.
	tmp, err := os.MkdirTemp(dir, ".mcpdecl-import-")
	if err != nil {
		return fmt.Errorf("write into %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp)
	var staged []string
	for _, f := range res.Files {
		p := filepath.Join(tmp, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		staged = append(staged, p)
	}
	cfg, files, diags := load.Load(load.Options{Registry: registry(), LookupEnv: func(string) (string, bool) { return "", false }}, staged...)
	if diags.HasErrors() {
		a.report(files, diags, nil)
		return errors.New("the configuration made from this document does not load, so nothing was written; this is a bug in mcpdecl import: please report it with the document")
	}
	tokens := estimateTokens(cfg)
	_ = cfg.Close()
	for i, p := range staged {
		if err := os.Rename(p, targets[i]); err != nil {
			return fmt.Errorf("write %s: %w", targets[i], err)
		}
	}
	a.importReport(res, tokens)
	for _, t := range targets {
		fmt.Fprintf(a.stdout, "Wrote %s\n", t)
	}
	if tokens > tokenBudget {
		fmt.Fprintf(a.stderr, "Warning: tools/list would take some %d tokens, past the budget of %d: select fewer operations (--tag, --operation, --max-tools), serve toolsets (--toolsets), or serve with --discovery.\n", tokens, tokenBudget)
	}
	if len(res.Env) > 0 {
		fmt.Fprintf(a.stdout, "Set %s before calling its tools.\n", strings.Join(res.Env, " and "))
	}
	fmt.Fprintf(a.stdout, "Try: mcpdecl list %s\n", strings.Join(targets, " "))
	return nil
}

// maxShallowListed is how many of the tools cut shallow the report names.
const maxShallowListed = 20

// importReport prints the summary of an import to stderr.
func (a *app) importReport(res *openapi.Result, tokens int) {
	w := a.stderr
	fmt.Fprintf(w, "%d operations read: %d imported, %d skipped, %d not selected, %d past --max-tools.\n",
		res.Read, len(res.Imported), len(res.Skipped), res.Excluded, len(res.Capped))
	if len(res.Resources)+len(res.Templates) > 0 {
		fmt.Fprintf(w, "Imported as resources: %d; as resource templates: %d.\n", len(res.Resources), len(res.Templates))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Operation, s.Reason)
	}
	for _, s := range res.Capped {
		fmt.Fprintf(w, "  left out %s: %s\n", s.Operation, s.Reason)
	}
	if moved := res.MovedSummary(); len(moved) > 0 {
		fmt.Fprintln(w, "Not tool arguments, so that no model gives them (x-mcp-argument: true on a parameter, in an overlay, keeps one):")
		for _, m := range moved {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	if len(res.Shallow) > 0 {
		fmt.Fprintf(w, "Input schemas cut two named schemas deep, as their requests reach more than --defs-budget bytes of definitions (x-mcp-defs-budget on an operation lifts it): %d tools\n", len(res.Shallow))
		for i, s := range res.Shallow {
			if i == maxShallowListed {
				fmt.Fprintf(w, "  and %d more\n", len(res.Shallow)-i)
				break
			}
			fmt.Fprintf(w, "  %s (%d bytes or more)\n", s.Tool, s.Bytes)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "Note: %s.\n", n)
	}
	if tokens > 0 {
		fmt.Fprintf(w, "tools/list: about %d tokens (its JSON's bytes / 4).\n", tokens)
	}
}

// estimateTokens is the size of the tools' definitions in tools/list, in
// tokens, estimated as bytes of JSON / 4.
func estimateTokens(cfg *engine.Config) int {
	n := 0
	for _, t := range cfg.Tools {
		b, err := json.Marshal(server.Tool(t))
		if err == nil {
			n += len(b)
		}
	}
	return n / 4
}

func (a *app) importGraphQLCmd() *cobra.Command {
	var (
		opts     gqlimport.Options
		schema   string
		out      string
		force    bool
		overlays []string
	)
	c := &cobra.Command{
		Use:   "graphql --schema SCHEMA OPERATION…",
		Short: "Write one http_api and a tool per operation file from a GraphQL schema",
		Long: `Import reads a GraphQL schema (SDL, or the JSON result of an introspection
query) and operation files (.graphql or .gql; a directory gives every such
file in it, in name order), one operation per file, and writes configuration:
a variable for the endpoint's URL (read from the environment, --endpoint by
default), one http_api, and a tool per operation — its arguments are the
operation's variables (non-null ones required, enums and input objects as
JSON Schema), its outputs the fields it selects, typed from the schema, and
its description the comment lines that open the file. The tools read the
schema and the operation files with relative paths, so that an operation
edited later is checked again at load.

--overlay applies an OpenAPI Overlay (1.0) to the operations as the import
reads them, so that curation written once survives new operation files and
a new schema. Its targets name operations by their name (else their file's
name without extension): $.operations.getNode, whose fields are name (the
tool's), title, description, annotations (readOnlyHint, destructiveHint,
idempotentHint, openWorldHint) and variables; a variable's are description,
default, and value (a fixed value sent, no argument then). Removing an
operation leaves it out; removing a variable leaves it out of the request.

The configuration is loaded as serve would load it before anything is
written: an import writes a file that validates, or nothing. A file whose
operation does not validate against the schema is skipped, with its reason.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			if schema == "" {
				return usageError{errors.New("import graphql needs the API's schema: --schema schema.graphql (SDL) or --schema schema.json (an introspection result)")}
			}
			for _, o := range overlays {
				data, err := openapi.ReadFile(o)
				if err != nil {
					return fmt.Errorf("read the overlay %s: %w", o, err)
				}
				opts.Overlays = append(opts.Overlays, gqlimport.Overlay{Location: o, Data: data})
			}
			return a.importGraphQL(schema, rest, out, force, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&schema, "schema", "", "the API's schema: SDL, or the JSON result of an introspection query")
	f.StringVarP(&out, "output", "o", "", "the file to write (default: <name>.hcl here)")
	f.BoolVar(&force, "force", false, "replace the file if it exists")
	f.StringVar(&opts.Name, "name", "graphql", "the http_api's name, and the prefix of its variables")
	f.StringVar(&opts.Endpoint, "endpoint", "", "the endpoint's URL, the default of the variable <name>_url")
	f.StringVar(&opts.BearerEnv, "bearer-env", "", "the environment variable that holds a bearer token for the endpoint")
	f.StringArrayVar(&overlays, "overlay", nil, "apply this OpenAPI Overlay file to the operations first (repeatable, in order): targets such as $.operations.getNode")
	return c
}

// importGraphQL reads the schema and the operations, converts, validates
// and writes.
func (a *app) importGraphQL(schemaPath string, paths []string, out string, force bool, opts gqlimport.Options) error {
	if out == "" {
		out = opts.Name + ".hcl"
	}
	if !strings.HasSuffix(out, ".hcl") {
		return usageError{fmt.Errorf("-o %s: the file to write must end with .hcl", out)}
	}
	dir := filepath.Dir(out)
	data, err := engine.ReadConfigFile(schemaPath)
	if err != nil {
		return err
	}
	schema, err := gqlschema.Parse(schemaPath, data)
	if err != nil {
		return fmt.Errorf("the schema %s is invalid: %w", schemaPath, err)
	}
	if opts.Schema, err = relativeTo(dir, schemaPath); err != nil {
		return err
	}
	var ops []gqlimport.Operation
	for _, p := range paths {
		files, err := operationFiles(p)
		if err != nil {
			return err
		}
		for _, name := range files {
			text, err := engine.ReadConfigFile(name)
			if err != nil {
				return err
			}
			rel, err := relativeTo(dir, name)
			if err != nil {
				return err
			}
			ops = append(ops, gqlimport.Operation{Path: rel, Text: string(text)})
		}
	}
	opts.Language = load.FileSpec(registry())
	res, err := gqlimport.Import(schema, ops, opts)
	if err != nil {
		return usageError{err}
	}
	warnUnmatched(a.stderr, res.Unmatched)
	removed := ""
	if len(opts.Overlays) > 0 {
		removed = fmt.Sprintf(", %d removed by an overlay", len(res.Hidden))
	}
	fmt.Fprintf(a.stderr, "%d operation files read: %d imported, %d skipped%s.\n", len(ops), len(res.Imported), len(res.Skipped), removed)
	for _, s := range res.Skipped {
		fmt.Fprintf(a.stderr, "  skipped %s: %s\n", s.Path, s.Reason)
	}
	if len(res.Imported) == 0 {
		return errors.New("no operation became a tool, so nothing was written")
	}
	if _, err := os.Stat(out); err == nil && !force {
		return fmt.Errorf("%s already exists, and import never replaces a file: give another -o, or add --force to replace it", out)
	}
	// Load what would be written, as serve would, before writing it: next
	// to where it goes, so that its relative paths hold.
	staged, err := os.CreateTemp(dir, ".mcpdecl-import-*.hcl")
	if err != nil {
		return fmt.Errorf("write into %s: %w", dir, err)
	}
	defer os.Remove(staged.Name())
	if _, err := staged.Write(res.Data); err != nil {
		_ = staged.Close()
		return fmt.Errorf("write %s: %w", staged.Name(), err)
	}
	if err := staged.Close(); err != nil {
		return fmt.Errorf("write %s: %w", staged.Name(), err)
	}
	urlEnv := strings.ToUpper(opts.Name + "_url")
	lookup := func(name string) (string, bool) {
		if name == urlEnv && opts.Endpoint == "" {
			// Without --endpoint the URL is the user's to set, later:
			// the check stands in one so that the rest is checked.
			return "https://graphql.invalid/", true
		}
		return "", false
	}
	cfg, files, diags := load.Load(load.Options{Registry: registry(), LookupEnv: lookup}, staged.Name())
	if diags.HasErrors() {
		a.report(files, diags, nil)
		if len(opts.Overlays) > 0 {
			return errors.New("the configuration made from these operations and overlays does not load, so nothing was written: check the overlays' names, defaults and values against the errors above (and if they are right, report it with the schema, the operations and the overlays)")
		}
		return errors.New("the configuration made from these operations does not load, so nothing was written; this is a bug in mcpdecl import: please report it with the schema and the operations")
	}
	_ = cfg.Close()
	if err := os.Rename(staged.Name(), out); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Fprintf(a.stdout, "Wrote %s\n", out)
	env := res.Env
	if opts.Endpoint != "" {
		// The endpoint given is the URL variable's default: nothing to set.
		env = slices.DeleteFunc(slices.Clone(env), func(e string) bool { return e == urlEnv })
		fmt.Fprintf(a.stdout, "Its tools call %s (%s, when set, replaces it).\n", opts.Endpoint, urlEnv)
	}
	if len(env) > 0 {
		fmt.Fprintf(a.stdout, "Set %s before calling its tools.\n", strings.Join(env, " and "))
	}
	fmt.Fprintf(a.stdout, "Try: mcpdecl list %s\n", out)
	return nil
}

// operationFiles lists the operation files p names: p itself, or the
// .graphql and .gql files of the directory p, in name order.
func operationFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".graphql" || ext == ".gql") {
			out = append(out, filepath.Join(p, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no .graphql or .gql file", p)
	}
	return out, nil
}

// relativeTo is path relative to dir, with forward slashes, as a
// configuration in dir names it.
func relativeTo(dir, path string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// warnUnmatched warns of an overlay's actions whose target selects
// nothing: the document may have changed under the overlay.
func warnUnmatched(w io.Writer, unmatched []string) {
	for _, u := range unmatched {
		fmt.Fprintf(w, "warning: %s selects nothing; check it against the document\n", u)
	}
}
