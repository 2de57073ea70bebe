package mapping

import (
	"testing"

	"github.com/expr-lang/expr/types"
)

// TestScopesShare checks that Envs of the same types share their compiled
// programs, and that Envs of other types do not.
func TestScopesShare(t *testing.T) {
	var scopes Scopes
	a := scopes.Scope(types.Map{"args": types.Map{"city": types.String}})
	b := scopes.Scope(types.Map{"args": types.Map{"city": types.String}})
	c := scopes.Scope(types.Map{"args": types.Map{"city": types.String, "n": types.Int}})
	pa, err := a.program("args.city")
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := b.program("args.city")
	pc, _ := c.program("args.city")
	if pa != pb {
		t.Error("two Envs of the same types compiled the same program twice")
	}
	if pa == pc {
		t.Error("Envs of different types share a program")
	}

	// Lists of objects: shared when made by Array, whose item type Scopes
	// can read; not shared when made by types.Array, whose they cannot.
	rows := func() types.Map { return types.Map{"id": types.Int} }
	d := scopes.Scope(types.Map{"rows": Array(rows())})
	e := scopes.Scope(types.Map{"rows": Array(rows())})
	f := scopes.Scope(types.Map{"rows": Array(types.Map{"id": types.String})})
	if d.shape != e.shape || d.shape == f.shape {
		t.Error("lists made by Array are not told apart by their item types")
	}
	g := scopes.Scope(types.Map{"rows": types.Array(rows())})
	h := scopes.Scope(types.Map{"rows": types.Array(rows())})
	if g.shape == h.shape {
		t.Error("lists made by types.Array share a shape")
	}
}
