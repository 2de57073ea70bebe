package openapi

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	lang "github.com/mcpdecl/mcpdecl/engine/spec"
)

// Options steer an import.
type Options struct {
	// Name is the http_api's name and the prefix of the variables and
	// environment variables; by default, made from the document's title.
	Name string
	// BaseURL replaces the document's server URL as the default of the
	// base URL variable.
	BaseURL string
	// Select chooses the operations.
	Select Selection
	// MaxTools, when above zero, caps the number of tools: the operations
	// past it are left out and reported.
	MaxTools int
	// DescriptionBudget is the longest tool description, in bytes
	// (default 1200); a longer one is cut at a sentence or a word.
	DescriptionBudget int
	// FieldDescriptionBudget is the longest description of an argument
	// or of a schema in one, in bytes (default 300; -1 for no cap). An
	// operation, parameter or schema's x-mcp-description-budget decides
	// over any of the three budgets (see texts.go).
	FieldDescriptionBudget int
	// OutputDescriptionBudget is the longest description of an output or
	// of a schema in one, in bytes (default 120, about a sentence; -1 for
	// no cap): a model reads the values a call returns, and every byte of
	// an output schema is read on every turn.
	OutputDescriptionBudget int
	// SplitByTag writes one file per tag (of the operation's first tag),
	// besides the main file that holds the http_api.
	SplitByTag bool
	// Toolsets adds one toolset per tag.
	Toolsets bool
	// Source names the document in the header comment, such as the path
	// given on the command line.
	Source string
	// Resources are the GET operations to import as resources or
	// resource templates instead of tools: operationIds, tool names or
	// paths, or patterns of them. An operation's x-mcp-resource (true or
	// false) decides over them.
	Resources []string
	// File is the name of the main file, such as github.hcl (default: the
	// http_api's name and .hcl); the names of the others start with its
	// stem (github_issues.hcl, github_2.hcl).
	File string
	// DefsBudget bounds the named schemas a tool's input lists under
	// $defs, in bytes of JSON (default DefaultDefsBudget; -1 for no
	// bound). A tool whose request reaches more is written as before
	// definitions, with named schemas cut two levels deep, and reported in
	// Result.Shallow. An operation's x-mcp-defs-budget decides over it.
	DefsBudget int
	// Language is the spec of a configuration file, whose blocks and
	// attributes the import writes by their names (load.FileSpec of a
	// registry with the http adapter); required.
	Language *lang.Block
}

// DefaultDefsBudget is the default Options.DefsBudget, 96 KiB: the bound
// that a tool's input schema is held to when written in place for clients
// of revisions before 2025-11-25 (engine.MaxInlinedSchemaBytes), so that
// a tool lists about as much whichever revision its client speaks. It is
// past what any tool of the documents the tests use reaches (GitHub's
// largest, 22 KB; Zuora's, 80 KB), and in Microsoft Graph's, whose
// schemas nearly all refer to each other, the 133 tools it cuts reach 400
// to 500 KB each, the same 133 from 64 KB to 256 KB.
const DefaultDefsBudget = 96 << 10

// Result is what an import made.
type Result struct {
	// Files are the files to write, the main one first; names are bare
	// file names.
	Files []File
	// Read is the number of operations in the document.
	Read int
	// Imported are the names of the tools, resources and resource
	// templates written.
	Imported []string
	// Resources and Templates are those of Imported written as resource
	// and resource_template blocks.
	Resources, Templates []string
	// Skipped are the operations that could not become tools.
	Skipped []Skipped
	// Excluded is the number of operations the selection left out.
	Excluded int
	// Capped are the operations left out by MaxTools.
	Capped []Skipped
	// Notes are things about the whole import a user should know, such as
	// a base URL to set.
	Notes []string
	// Env are the environment variables that hold the credentials.
	Env []string
	// Moved are the parameters of the imported operations that are not
	// tool arguments: credentials the http_api's auth sends, switches of
	// the API's transport (see credentials.go).
	Moved []Moved
	// Shallow are the tools whose input schemas are cut two named schemas
	// deep, as their requests reach more definitions than
	// Options.DefsBudget.
	Shallow []Shallow
	// built are the tools written (resources included), which tests
	// compare with the document.
	built []*tool
}

// File is one file to write.
type File struct {
	Name string
	Data []byte
}

// Shallow is a tool whose input schema is cut two named schemas deep.
type Shallow struct {
	Tool  string
	Bytes int // the bytes of definitions its request reaches, at least
}

// Skipped is an operation that did not become a tool, and why.
type Skipped struct {
	Operation string // "GET /pets (listPets)"
	Reason    string
}

// builder holds what an import shares.
type builder struct {
	spec      *Spec
	opts      Options
	locals    *locals
	resources resources
}

// Import turns the document into configuration.
func Import(spec *Spec, opts Options) (*Result, error) {
	if opts.DescriptionBudget == 0 {
		opts.DescriptionBudget = 1200
	}
	if opts.FieldDescriptionBudget == 0 {
		opts.FieldDescriptionBudget = 300
	}
	if opts.OutputDescriptionBudget == 0 {
		opts.OutputDescriptionBudget = 120
	}
	if opts.DefsBudget == 0 {
		opts.DefsBudget = DefaultDefsBudget
	}
	if opts.Language == nil {
		return nil, errors.New("no language to write in: set Options.Language to the spec of a configuration file")
	}
	b := &builder{spec: spec, opts: opts, locals: newLocals()}
	ops, err := spec.Operations()
	if err != nil {
		return nil, err
	}
	api, err := b.api()
	if err != nil {
		return nil, err
	}
	if api.auth == nil {
		api.auth = credentialAuth(ops)
		api.setEnv()
	}
	rules := b.paramRules(api)
	res := &Result{Read: len(ops)}
	if api.auth != nil {
		res.Env = api.auth.env
	}
	if api.baseNote != "" {
		res.Notes = append(res.Notes, api.baseNote)
	}
	if api.authNote != "" {
		res.Notes = append(res.Notes, "left out "+api.authNote)
	}
	b.resources = resources{scheme: strings.ReplaceAll(api.name, "_", "-"), served: map[*tool]*served{}, uris: map[string]bool{}}
	taken := names{}
	var tools []*tool
	for _, op := range ops {
		label := describeOp(op)
		base := toolName(op)
		if !opts.Select.selects(op, base) {
			res.Excluded++
			continue
		}
		if op.Skip != "" {
			res.Skipped = append(res.Skipped, Skipped{label, op.Skip})
			continue
		}
		moved := rules.moveParams(op)
		r, err := b.resource(op, base, taken)
		if err != nil {
			return nil, err
		}
		if r != nil {
			res.Moved = append(res.Moved, moved...)
			tools = append(tools, r)
			res.Imported = append(res.Imported, r.name)
			if b.resources.served[r].template {
				res.Templates = append(res.Templates, r.name)
			} else {
				res.Resources = append(res.Resources, r.name)
			}
			continue
		}
		if opts.MaxTools > 0 && len(tools)-len(b.resources.served) >= opts.MaxTools {
			res.Capped = append(res.Capped, Skipped{label, fmt.Sprintf("past --max-tools %d", opts.MaxTools)})
			continue
		}
		name := taken.unique(base, maxToolName)
		t, err := b.build(op, name)
		var broken *BrokenRef
		if errors.As(err, &broken) {
			return nil, err
		}
		if err != nil {
			delete(taken, name)
			res.Skipped = append(res.Skipped, Skipped{label, err.Error()})
			continue
		}
		res.Moved = append(res.Moved, moved...)
		tools = append(tools, t)
		res.Imported = append(res.Imported, name)
	}
	liftFixed(api, tools, res)
	for _, t := range tools {
		if t.shallow > 0 {
			res.Shallow = append(res.Shallow, Shallow{t.name, t.shallow})
		}
	}
	if res.Files, err = b.write(api, tools, res); err != nil {
		return nil, fmt.Errorf("write the configuration: %w", err)
	}
	res.built = tools
	return res, nil
}

// liftFixed moves the fixed parameters that every tool sends with the
// same value (Azure's api-version) to the http_api: written once, and
// changed in one place for another version of the API.
func liftFixed(api *apiDecl, tools []*tool, res *Result) {
	if len(tools) == 0 {
		return
	}
	for _, f := range tools[0].op.Fixed {
		shared := true
		for _, t := range tools[1:] {
			shared = shared && slices.Contains(t.op.Fixed, f)
		}
		if !shared {
			continue
		}
		api.fixed = append(api.fixed, f)
		for _, t := range tools {
			fields := &t.query
			if f.In == "header" {
				fields = &t.headers
			}
			*fields = slices.DeleteFunc(*fields, func(g field) bool { return g.literal && g.key == f.Name && g.program == f.Value })
		}
		for i, m := range res.Moved {
			if m.Reason == movedFixed && m.In == f.In && m.Name == f.Name {
				res.Moved[i].Reason = movedFixedAPI
			}
		}
	}
}

// describeOp names an operation in reports.
func describeOp(op *Operation) string {
	s := op.Method + " " + op.Path
	if op.ID != "" {
		s += " (" + op.ID + ")"
	}
	return s
}
