package graphqlaction

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/gqlschema"
	"github.com/mcpdecl/mcpdecl/internal/words"
)

// schemaCache keeps the schemas read lately, by content, so that the tools
// of a large API that share one schema parse it once per load, and a
// reload parses only a schema that changed. It keeps a few at most.
type schemaCache struct {
	mu      sync.Mutex
	entries []cached // most recent last
}

type cached struct {
	sum    [sha256.Size]byte
	schema *ast.Schema
	err    error
}

// maxCachedSchemas bounds the schemas a cache keeps.
const maxCachedSchemas = 8

func newSchemaCache() *schemaCache { return &schemaCache{} }

// load reads the schema at path (relative to the file being decoded): SDL,
// or the JSON result of an introspection query. rng is where the path is
// written, for errors that are not inside the schema.
func (c *schemaCache) load(ctx *engine.DecodeContext, path string, rng hcl.Range) (*ast.Schema, hcl.Diagnostics) {
	data, resolved, err := ctx.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the GraphQL schema",
			Detail: words.UpperFirst(err.Error()) + ".", Subject: rng.Ptr()}}
	}
	sum := sha256.Sum256(data)
	c.mu.Lock()
	for i, e := range c.entries {
		if e.sum == sum {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			return e.schema, schemaError(e.err, resolved, rng)
		}
	}
	c.mu.Unlock()

	schema, err := gqlschema.Parse(resolved, data)
	c.mu.Lock()
	c.entries = append(c.entries, cached{sum: sum, schema: schema, err: err})
	if len(c.entries) > maxCachedSchemas {
		c.entries = c.entries[1:]
	}
	c.mu.Unlock()
	return schema, schemaError(err, resolved, rng)
}

// schemaError describes an error of the schema at path: at its place in
// the file when the parser gives one.
func schemaError(err error, path string, rng hcl.Range) hcl.Diagnostics {
	if err == nil {
		return nil
	}
	var ge *gqlerror.Error
	if errors.As(err, &ge) && len(ge.Locations) > 0 && ge.Locations[0].Line > 0 {
		loc := ge.Locations[0]
		at := hcl.Range{Filename: path, Start: hcl.Pos{Line: loc.Line, Column: loc.Column}, End: hcl.Pos{Line: loc.Line, Column: loc.Column + 1}}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid GraphQL schema",
			Detail: fmt.Sprintf("The schema %s is invalid: %s. It is named at %s.", path, strings.TrimSuffix(ge.Message, "."), rng), Subject: at.Ptr()}}
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid GraphQL schema",
		Detail: fmt.Sprintf("The schema %s is invalid: %s.", path, strings.TrimSuffix(err.Error(), ".")), Subject: rng.Ptr()}}
}
