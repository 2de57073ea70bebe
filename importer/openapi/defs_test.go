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
		f.check(res, inputSchemas(loadResult(t, res)))
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

// TestPointerDefs: a reference that points into a named schema (as the
// documents of APIs.guru's directory bundled from several files do, such
// as Azure's network-applicationGateway.json) is a definition of the
// tool's input, written once: met in place too, it is a reference to the
// same definition, and where it recurs its schema refers to itself, not to
// a copy cut by depth.
func TestPointerDefs(t *testing.T) {
	_, res, err := importPath(filepath.Join("testdata", "nested-pointers.json"), Options{Source: "nested-pointers.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Shallow) != 0 {
		t.Fatalf("cut shallow: %v", res.Shallow)
	}
	tl, ok := loadResult(t, res).Tool("gateways_create_or_update")
	if !ok {
		t.Fatalf("no tool gateways_create_or_update among %v", res.Imported)
	}
	in := tl.InputSchema()
	defs := obj(in["$defs"])
	at := func(s any, path ...string) map[string]any {
		for _, k := range path {
			m := obj(s)
			if ref, ok := m["$ref"].(string); ok {
				m = obj(defs[strings.TrimPrefix(ref, "#/$defs/")])
			}
			s = m[k]
		}
		return obj(s)
	}
	// properties → BackendAddressPool → its ip configurations' items.
	pool := at(in, "properties", "properties", "properties", "backendAddressPools", "items")
	ipRef := at(pool, "properties", "properties", "properties", "backendIPConfigurations", "items")["$ref"]
	ip := strings.TrimPrefix(str(ipRef), "#/$defs/")
	if defs[ip] == nil {
		t.Fatalf("the pointer to ipConfiguration is not a definition: %v", ipRef)
	}
	again := at(defs[ip], "properties", "properties", "properties", "applicationGatewayBackendAddressPools", "items",
		"properties", "properties", "properties", "backendIPConfigurations", "items")
	if again["$ref"] != ipRef {
		t.Errorf("where ipConfiguration recurs, its schema is %v, not a reference to %s", again, ipRef)
	}
	js := string(tl.InputSchemaJSON())
	for _, once := range []string{`"Static","Dynamic"`, `"id":{"type":"string"}`, `"Allow","Deny"`} {
		if n := strings.Count(js, once); n != 1 {
			t.Errorf("%s is written %d times in the tool's input schema, not once: %s", once, n, js)
		}
	}
}
