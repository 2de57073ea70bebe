package load_test

import (
	"encoding/json"
	"testing"
)

// TestSchemaLocalsShared checks the schemas that tools read from the same
// locals, as an imported API writes them: each tool gets the local's
// schema whole, alone or inside its own, and what one tool adds (its
// output's description) does not reach the other.
func TestSchemaLocalsShared(t *testing.T) {
	cfg, diags := loadString(t, `
locals {
  item  = { type = "object", properties = { id = { type = "integer", minimum = -1 } } }
  items = jsonencode({ type = "array", items = { type = "string" } })
}
tool "one" {
  description = "d"
  output "it" {
    description = "The first tool's item."
    schema      = local.item
    value       = expr("{id: 1}")
  }
}
tool "many" {
  description = "d"
  output "them" {
    schema = { type = "array", items = local.item }
    value  = expr("[{id: 2}]")
  }
  output "names" {
    description = "Names."
    schema      = local.items
    value       = expr("['a']")
  }
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	schemaOf := func(tool string) string {
		tl, _ := cfg.Tool(tool)
		b, err := json.Marshal(tl.OutputSchema()["properties"])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := schemaOf("one"), `{"it":{"description":"The first tool's item.","properties":{"id":{"minimum":-1,"type":"integer"}},"type":"object"}}`; got != want {
		t.Errorf("one:\n%s\nwant\n%s", got, want)
	}
	if got, want := schemaOf("many"), `{"names":{"description":"Names.","items":{"type":"string"},"type":"array"},"them":{"items":{"properties":{"id":{"minimum":-1,"type":"integer"}},"type":"object"},"type":"array"}}`; got != want {
		t.Errorf("many:\n%s\nwant\n%s", got, want)
	}
	many, _ := cfg.Tool("many")
	if res := many.Call(t.Context(), nil); res.IsError {
		t.Errorf("many: %s", res.Text())
	}
}
