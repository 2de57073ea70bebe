package load

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/schema"
)

// Outline is what a configuration declares, read from its text alone: no
// expression is evaluated, no variable needs a value, nothing is opened.
// It is enough to check a test file against the configuration before any
// test runs.
type Outline struct {
	// Blocks are the names of the labelled top-level blocks, by type:
	// Blocks["http_api"] lists the http_api blocks.
	Blocks map[string][]string
	// Tools are the tool blocks, by name.
	Tools map[string]*ToolOutline
}

// ToolOutline is what a tool block declares of its arguments and outputs.
type ToolOutline struct {
	// Args is an object type with a field per arg block: its declared
	// type, any when it has a schema or a type that does not parse.
	Args *schema.Type
	// OpenArgs is set when the tool has an input_schema: arguments not
	// declared by arg blocks may be given.
	OpenArgs bool
	// Outputs is an object type with a field per output block, typed as
	// Args's are; nil when the tool has no output block.
	Outputs *schema.Type
}

// ReadOutline reads the outline of the configuration at paths, as [Load]
// would find it. It reports false when a file cannot be read or does not
// parse: the outline is then incomplete, and Load says why.
func ReadOutline(paths ...string) (*Outline, bool) {
	names, errs := ConfigFiles(paths)
	if len(errs) > 0 || len(names) == 0 {
		return nil, false
	}
	o := &Outline{Blocks: map[string][]string{}, Tools: map[string]*ToolOutline{}}
	for _, name := range names {
		if IsTestFile(name) {
			return nil, false
		}
		src, err := engine.ReadConfigFile(name)
		if err != nil {
			return nil, false
		}
		f, diags := ParseConfig(src, name)
		body, ok := f.Body.(*hclsyntax.Body)
		if diags.HasErrors() || !ok {
			return nil, false
		}
		for _, b := range body.Blocks {
			if len(b.Labels) == 0 {
				continue
			}
			o.Blocks[b.Type] = append(o.Blocks[b.Type], b.Labels[0])
			if _, dup := o.Tools[b.Labels[0]]; b.Type == "tool" && !dup {
				o.Tools[b.Labels[0]] = toolOutline(b.Body)
			}
		}
	}
	return o, true
}

// toolOutline reads the arguments and outputs of a tool block's body.
func toolOutline(body *hclsyntax.Body) *ToolOutline {
	t := &ToolOutline{Args: &schema.Type{Kind: schema.Object}}
	_, t.OpenArgs = body.Attributes["input_schema"]
	for _, b := range body.Blocks {
		if len(b.Labels) == 0 || (b.Type != "arg" && b.Type != "output") {
			continue
		}
		// An argument is a string unless it says otherwise; an output, any.
		typ := &schema.Type{Kind: schema.Any}
		if b.Type == "arg" {
			typ = &schema.Type{Kind: schema.String}
		}
		if a, ok := b.Body.Attributes["type"]; ok {
			typ = &schema.Type{Kind: schema.Any}
			if parsed, diags := schema.ParseType(a.Expr); !diags.HasErrors() && parsed != nil {
				typ = parsed
			}
		}
		if _, ok := b.Body.Attributes["schema"]; ok {
			typ = &schema.Type{Kind: schema.Any}
		}
		of := &t.Args
		if b.Type == "output" {
			if t.Outputs == nil {
				t.Outputs = &schema.Type{Kind: schema.Object}
			}
			of = &t.Outputs
		}
		(*of).Fields = append((*of).Fields, schema.Field{Name: b.Labels[0], Type: typ})
	}
	return t
}
