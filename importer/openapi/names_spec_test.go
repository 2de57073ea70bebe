package openapi

import (
	"strings"
	"testing"

	lang "github.com/mcpdecl/mcpdecl/engine/spec"
)

// renamed is a copy of the language in which the attribute from of the
// block at path is called to, from being its former name, as a rename in
// a spec is written.
func renamed(b *lang.Block, path []string, from, to string) *lang.Block {
	c := &lang.Block{Name: b.Name, In: b.In, Labels: b.Labels, Attrs: b.Attrs, Blocks: b.Blocks, Open: b.Open}
	if len(path) == 0 {
		c.Attrs = nil
		for _, a := range b.Attrs {
			if a.Name == from {
				r := *a
				r.Name, r.Aliases = to, append([]string{from}, a.Aliases...)
				a = &r
			}
			c.Attrs = append(c.Attrs, a)
		}
		return c
	}
	c.Blocks = nil
	for _, n := range b.Blocks {
		if n.Block.Name == path[0] {
			n.Block = renamed(n.Block, path[1:], from, to)
		}
		c.Blocks = append(c.Blocks, n)
	}
	return c
}

// TestImportFollowsTheSpecs: the import names blocks and attributes
// through the specs, so an attribute renamed in its spec is not written
// under its former name: the import fails, saying which and where.
func TestImportFollowsTheSpecs(t *testing.T) {
	for _, tt := range []struct {
		path     []string
		from, to string
		want     string
	}{
		{[]string{"http_api"}, "base_url", "base_uri", `cannot write the attribute "base_url" in http_api: it is a former name of base_uri; write that`},
		{[]string{"tool", "http"}, "path_params", "params", `cannot write the attribute "path_params" in tool › http: it is a former name of params`},
		{[]string{"tool", "arg"}, "max_length", "longest", `cannot write the attribute "max_length" in tool › arg`},
		{[]string{"http_api", "auth", "api_key"}, "header", "in_header", `cannot write the attribute "header" in http_api › auth › api_key`},
	} {
		t.Run(tt.from, func(t *testing.T) {
			_, _, err := importPath("testdata/petstore.yaml", Options{Language: renamed(language, tt.path, tt.from, tt.to)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	data, err := ReadFile("testdata/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(data, "petstore.yaml", RefAccess{}.Reader("testdata/petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Import(doc, Options{}); err == nil || !strings.Contains(err.Error(), "set Options.Language") {
		t.Errorf("without a language: err = %v", err)
	}
}
