package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/types"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

func TestExprType(t *testing.T) {
	tests := []struct {
		src  string
		want types.Type
	}{
		{"string", types.String},
		{"number", types.Float64},
		{"integer", types.Int},
		{"bool", types.Bool},
		{"any", types.Any},
		{"list(integer)", mapping.Array(types.Int)},
		{"set(string)", mapping.Array(types.String)},
		{"map(bool)", types.Map{types.Extra: types.Bool}},
		{"object({id = integer, tags = optional(list(string))})", types.Map{"id": types.Int, "tags": mapping.Array(types.String)}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			typ, diags := ParseType(parse(t, tt.src))
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got := typ.ExprType()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestExprTypeChecksPrograms(t *testing.T) {
	args := func(t *testing.T, src string) types.Type {
		typ, diags := ParseType(parse(t, src))
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return typ.ExprType()
	}
	tests := []struct {
		name    string
		args    string // the type of args
		program string
		wantErr string // a substring of the compile error; "" when it compiles
	}{
		{"field", "object({city = string, days = integer})", "args.city + '!'", ""},
		{"integer arithmetic", "object({days = integer})", "args.days * 2", ""},
		{"typo in a field", "object({city = string})", "args.ctiy", "ctiy"},
		{"typo deep down", "object({items = list(object({id = integer}))})", "args.items[0].di", "di"},
		{"optional field", "object({note = optional(string)})", "args.note ?? 'none'", ""},
		{"map allows any key", "object({labels = map(string)})", "args.labels.whatever + 'x'", ""},
		{"any allows anything", "object({raw = any})", "args.raw.a.b.c", ""},
		{"string is not a number", "object({city = string})", "args.city * 2", "mismatched types"},
		{"list builtins", "object({tags = list(string)})", "join(args.tags, ',')", ""},
		{"bool", "object({on = bool})", "args.on ? 1 : 2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := types.Map{"args": args(t, tt.args)}
			_, err := expr.Compile(tt.program, expr.Env(env))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("does not compile: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("compiles, want an error about %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("error %q does not mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestExprTypeRunsOnCoercedValues(t *testing.T) {
	typ, _ := ParseType(parse(t, "object({days = integer, temp = number, tags = list(string)})"))
	program, err := expr.Compile("args.days * 2 + len(args.tags) + int(args.temp)", expr.Env(types.Map{"args": typ.ExprType()}))
	if err != nil {
		t.Fatal(err)
	}
	value := decode(t, `{"days": 3, "temp": 21.5, "tags": ["a", "b"]}`)
	out, err := expr.Run(program, map[string]any{"args": Coerce(value, typ)})
	if err != nil {
		t.Fatal(err)
	}
	if out != 29 {
		t.Errorf("got %v (%T), want 29", out, out)
	}
}
