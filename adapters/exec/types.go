package execaction

import (
	"github.com/expr-lang/expr/types"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

var _ engine.ResultTyper = (*action)(nil)

// ResultTypes declares stdout by the block's parse mode: a string for
// "text", a list of strings for "lines", so that a program reading a field
// of it (stdout.name) is a load error rather than a failure at call time.
// Decoded JSON may be anything.
func (a *action) ResultTypes() mapping.Env {
	switch a.parse {
	case parseText:
		return mapping.Env{"stdout": types.String}
	case parseLines:
		return mapping.Env{"stdout": mapping.Array(types.String)}
	}
	return nil
}
