package load_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// coerceConfig declares arguments of every scalar type, at the top and
// nested, and echoes them back typed: a string that is exactly a JSON
// number or boolean is taken for one where the schema wants one.
const coerceConfig = `
tool "typed" {
  description = "d"
  arg "n" {
    type     = integer
    optional = true
  }
  arg "x" {
    type     = number
    optional = true
  }
  arg "b" {
    type     = bool
    optional = true
  }
  arg "s" {
    type     = string
    optional = true
  }
  arg "size" {
    type     = integer
    enum     = [1, 2, 3]
    optional = true
  }
  arg "mode" {
    type     = string
    enum     = ["1", "2"]
    optional = true
  }
  arg "ids" {
    type     = list(integer)
    optional = true
  }
  arg "flags" {
    type     = map(bool)
    optional = true
  }
  arg "item" {
    type     = object({ price = number, qty = optional(integer), tags = optional(list(string)) })
    optional = true
  }
  arg "raw" {
    schema   = jsonencode({ type = "object", properties = { limit = { type = "integer" } } })
    optional = true
  }
  text = expr("toJSON(args)")
}

tool "raw" {
  description = "d"
  input_schema = jsonencode({
    type       = "object"
    properties = {
      page  = { "$ref" = "#/$defs/page" }
      items = { type = "array", items = { type = "boolean" } }
    }
    "$defs" = { page = { type = "integer", minimum = 1 } }
  })
  text = expr("toJSON(args)")
}
`

func TestCoerceNumbersSentAsStrings(t *testing.T) {
	cfg, diags := loadString(t, coerceConfig, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tests := []struct {
		tool, args string
		want       string   // the arguments the programs read, as JSON
		errs       []string // else substrings of the tool error
	}{
		{tool: "typed", args: `{"n": "3", "x": "2.5", "b": "true"}`, want: `{"b":true,"n":3,"x":2.5}`},
		{tool: "typed", args: `{"n": "-7", "x": "1e3", "b": "false"}`, want: `{"b":false,"n":-7,"x":1000}`},
		// JSON Schema takes 3.0 for an integer, written as a number or not.
		{tool: "typed", args: `{"n": "3.0"}`, want: `{"n":3}`},
		{tool: "typed", args: `{"n": "1e2"}`, want: `{"n":100}`},
		// Well-typed arguments are left as they are.
		{tool: "typed", args: `{"n": 3, "s": "4"}`, want: `{"n":3,"s":"4"}`},
		// A string stays a string, and a string enum stays exact.
		{tool: "typed", args: `{"s": "5", "mode": "1"}`, want: `{"mode":"1","s":"5"}`},
		{tool: "typed", args: `{"size": "2"}`, want: `{"size":2}`},
		// Nested, where the schema says number, integer or boolean.
		{tool: "typed", args: `{"ids": ["1", 2, "3"], "flags": {"a": "true", "b": false}}`, want: `{"flags":{"a":true,"b":false},"ids":[1,2,3]}`},
		{tool: "typed", args: `{"item": {"price": "9.5", "qty": "2", "tags": ["7"]}}`, want: `{"item":{"price":9.5,"qty":2,"tags":["7"]}}`},
		{tool: "typed", args: `{"raw": {"limit": "10"}}`, want: `{"raw":{"limit":10}}`},
		{tool: "raw", args: `{"page": "2", "items": ["true", "false"]}`, want: `{"items":[true,false],"page":2}`},

		// Not exactly a JSON number: the error of a string, as without coercion.
		{tool: "typed", args: `{"n": "3.5"}`, errs: []string{"/n: must be an integer, but got a string"}},
		{tool: "typed", args: `{"n": " 3"}`, errs: []string{"/n: must be an integer, but got a string"}},
		{tool: "typed", args: `{"n": "3 "}`, errs: []string{"/n: must be an integer, but got a string"}},
		{tool: "typed", args: `{"n": "+3"}`, errs: []string{"/n: must be an integer, but got a string"}},
		{tool: "typed", args: `{"n": "0x10"}`, errs: []string{"/n: must be an integer, but got a string"}},
		{tool: "typed", args: `{"n": "07"}`, errs: []string{"/n: must be an integer, but got a string"}},
		{tool: "typed", args: `{"n": "1_000"}`, errs: []string{"/n: must be an integer, but got a string"}},
		{tool: "typed", args: `{"x": "NaN"}`, errs: []string{"/x: must be a number, but got a string"}},
		{tool: "typed", args: `{"x": "Infinity"}`, errs: []string{"/x: must be a number, but got a string"}},
		{tool: "typed", args: `{"x": ".5"}`, errs: []string{"/x: must be a number, but got a string"}},
		{tool: "typed", args: `{"x": ""}`, errs: []string{"/x: must be a number, but got a string"}},
		{tool: "typed", args: `{"b": "True"}`, errs: []string{"/b: must be a boolean, but got a string"}},
		{tool: "typed", args: `{"b": "1"}`, errs: []string{"/b: must be a boolean, but got a string"}},
		{tool: "typed", args: `{"n": "ten"}`, errs: []string{"/n: must be an integer, but got a string"}},
		// A coerced value is still checked against the rest of the schema.
		{tool: "typed", args: `{"size": "4"}`, errs: []string{"/size: must be one of"}},
		{tool: "raw", args: `{"page": "0"}`, errs: []string{"/page: must be at least 1, but got 0"}},
		// Every violation still comes at once, the coerced ones left out.
		{tool: "typed", args: `{"n": "3", "x": "wide", "ids": ["1", "a"]}`, errs: []string{"/ids/1: must be an integer, but got a string", "/x: must be a number, but got a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			tool, _ := cfg.Tool(tt.tool)
			res := tool.Call(context.Background(), json.RawMessage(tt.args))
			if tt.errs != nil {
				if !res.IsError {
					t.Fatalf("accepted, want an error: %s", res.Text())
				}
				for _, e := range tt.errs {
					if !strings.Contains(res.Text(), e) {
						t.Errorf("the error does not say %q:\n%s", e, res.Text())
					}
				}
				if strings.Contains(tt.args, `"n": "3"`) && strings.Contains(res.Text(), "/n") {
					t.Errorf("the coerced argument is still reported:\n%s", res.Text())
				}
				return
			}
			if res.IsError {
				t.Fatalf("refused: %s", res.Text())
			}
			if got := compactJSON(t, res.Text()); got != tt.want {
				t.Errorf("args = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestCoerceArgumentsOff checks that coerce_arguments = false in the server
// block makes arguments exact again.
func TestCoerceArgumentsOff(t *testing.T) {
	cfg, diags := loadString(t, "server {\n  coerce_arguments = false\n}\n"+coerceConfig, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("typed")
	res := tool.Call(context.Background(), json.RawMessage(`{"n": "3", "ids": ["1"]}`))
	if !res.IsError || !strings.Contains(res.Text(), "/n: must be an integer, but got a string") || !strings.Contains(res.Text(), "/ids/0: must be an integer, but got a string") {
		t.Errorf("with coerce_arguments = false, %q was not refused as a string: %s", "3", res.Text())
	}
	res = tool.Call(context.Background(), json.RawMessage(`{"n": 3}`))
	if res.IsError || compactJSON(t, res.Text()) != `{"n":3}` {
		t.Errorf("a well-typed call: %s", res.Text())
	}

	_, diags = loadString(t, "server {\n  coerce_arguments = \"no\"\n}\n", nil, nil)
	if !strings.Contains(describe(diags), "2:22-2:26: Incorrect value type: This must be true or false") {
		t.Errorf("a coerce_arguments that is not a bool: %s", describe(diags))
	}
}

// compactJSON is the text of a JSON value without spaces.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("not JSON: %s", s)
	}
	return b.String()
}
