package openapi

import (
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// importPath reads, parses and imports the document at path, as mcpdecl
// import openapi does by default.
func importPath(path string, opts Options) (*Spec, *Result, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	spec, err := Parse(data, path, RefAccess{}.Reader(path))
	if err != nil {
		return nil, nil, err
	}
	res, err := importChecked(spec, opts)
	return spec, res, err
}

// importPathWith imports the document at path with references reaching
// what access allows.
func importPathWith(path string, access RefAccess, opts Options) (*Result, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	spec, err := Parse(data, path, access.Reader(path))
	if err != nil {
		return nil, err
	}
	return importChecked(spec, opts)
}

// language is the spec of a configuration file that serve reads.
var language = load.FileSpec(engine.NewRegistry(httpaction.New()))

// importChecked imports as mcpdecl import openapi does, in the language serve
// reads, and checks that every block and attribute of the files written is
// one the language declares by its current name.
func importChecked(spec *Spec, opts Options) (*Result, error) {
	if opts.Language == nil {
		opts.Language = language
	}
	res, err := Import(spec, opts)
	if err != nil {
		return nil, err
	}
	for _, f := range res.Files {
		file, diags := hclsyntax.ParseConfig(f.Data, f.Name, hcl.InitialPos)
		if diags.HasErrors() {
			return nil, diags
		}
		if diags := opts.Language.CheckNames(file.Body.(*hclsyntax.Body)); diags.HasErrors() {
			return nil, diags
		}
	}
	return res, nil
}

// writeFiles writes the files of an import into dir and returns their
// paths.
func writeFiles(dir string, files []File) ([]string, error) {
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// loadFiles loads configuration files as serve does, with lookup as the
// environment (nil: an empty one).
func loadFiles(paths []string, lookup func(string) (string, bool)) (*engine.Config, hcl.Diagnostics) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(httpaction.New()), LookupEnv: lookup}, paths...)
	return cfg, diags
}

// inputSchemas gives CheckInput the input schemas of cfg's tools.
func inputSchemas(cfg *engine.Config) func(string) (map[string]any, bool) {
	return func(name string) (map[string]any, bool) {
		if t, ok := cfg.Tool(name); ok {
			return t.InputSchema(), true
		}
		return nil, false
	}
}
