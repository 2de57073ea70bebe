package openapi

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDefsBudget: a tool whose request reaches more bytes of definitions
// than the budget is written with named schemas cut two levels deep, and
// the result says which; an operation's x-mcp-defs-budget, added by an
// overlay, lifts the budget for it, and -1 lifts it for all.
func TestDefsBudget(t *testing.T) {
	path := filepath.Join("testdata", "ynab.json")
	imp := func(opts Options, overlay string) (*Result, *fidelity) {
		t.Helper()
		data, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := Parse(data, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if overlay != "" {
			if _, err := spec.ApplyOverlay([]byte(overlay), "lift.yaml"); err != nil {
				t.Fatal(err)
			}
		}
		opts.Source = "ynab.json"
		res, err := importChecked(spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		f := &fidelity{spec: spec}
		f.check(res, loadResult(t, res))
		return res, f
	}
	shallow := func(res *Result) []string {
		var names []string
		for _, s := range res.Shallow {
			if s.Bytes <= 400 {
				t.Errorf("%s is reported at %d bytes, within the budget", s.Tool, s.Bytes)
			}
			names = append(names, s.Tool)
		}
		return names
	}

	res, f := imp(Options{}, "")
	if len(res.Shallow) != 0 || len(f.losses) != 0 {
		t.Errorf("by default: cut %v; lost %v", res.Shallow, f.losses)
	}
	res, f = imp(Options{DefsBudget: 400}, "")
	cut := shallow(res)
	if !slices.Contains(cut, "create_transaction") || f.shallow != len(cut) {
		t.Fatalf("with a budget of 400 bytes, cut %v (%d tools)", cut, f.shallow)
	}
	if len(f.losses) != 0 {
		t.Errorf("the tools within the budget lost %v", f.losses)
	}
	cfg := loadResult(t, res)
	ct, _ := cfg.Tool("create_transaction")
	if _, ok := ct.InputSchema()["$defs"]; ok || !strings.Contains(string(ct.InputSchemaJSON()), `"type":"object"`) {
		t.Errorf("a tool cut shallow lists definitions, or no schema: %s", ct.InputSchemaJSON())
	}

	lift := `overlay: 1.0.0
info: {title: lift, version: "1"}
actions:
  - target: $.paths['/budgets/{budget_id}/transactions'].post
    update: {x-mcp-defs-budget: -1}
`
	res, f = imp(Options{DefsBudget: 400}, lift)
	if got := shallow(res); slices.Contains(got, "create_transaction") || len(got) != len(cut)-1 || len(f.losses) != 0 {
		t.Errorf("with create_transaction's budget lifted, cut %v; lost %v", got, f.losses)
	}
	res, _ = imp(Options{DefsBudget: -1}, "")
	if len(res.Shallow) != 0 {
		t.Errorf("with no budget, cut %v", res.Shallow)
	}
}
