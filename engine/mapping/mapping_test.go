package mapping_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

var env = mapping.Env{
	"args": types.Map{"city": types.String, "n": types.Int, "tags": types.Array(types.String)},
	"body": types.Any,
}

// compile parses src as an HCL expression, evaluates it with expr() and a
// variable, and compiles the result.
func compile(t *testing.T, src string) (mapping.Value, hcl.Diagnostics) {
	t.Helper()
	e, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx := &hcl.EvalContext{
		Functions: map[string]function.Function{"expr": mapping.Function()},
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"lang": cty.StringVal("en")})},
	}
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return mapping.Compile(v, e, env)
}

func TestEval(t *testing.T) {
	vars := map[string]any{
		"args": map[string]any{"city": "Paris", "n": 3, "tags": []any{"a", "b"}},
		"body": map[string]any{"main": map[string]any{"temp": 18.5}},
	}
	tests := []struct {
		src      string
		want     string // JSON of the result
		constant bool
	}{
		{`"plain"`, `"plain"`, true},
		{`42`, `42`, true},
		{`1.5`, `1.5`, true},
		{`{ a = 1, b = [true, null] }`, `{"a":1,"b":[true,null]}`, true},
		{`"${var.lang}-x"`, `"en-x"`, true},
		{`expr("args.city")`, `"Paris"`, false},
		{`expr("args.n * 2")`, `6`, false},
		{`expr("body.main.temp")`, `18.5`, false},
		{`{ q = expr("args.city"), lang = var.lang, n = [expr("args.n"), 0] }`, `{"lang":"en","n":[3,0],"q":"Paris"}`, false},
		{`expr("join(args.tags, ',')")`, `"a,b"`, false},
		{`expr("body.missing")`, `null`, false},
		{`expr("urlencode('a b&c=d/é')")`, `"a+b%26c%3Dd%2F%C3%A9"`, false},
		{`expr("compact({'a': 1, 'b': nil, 'c': [nil]})")`, `{"a":1,"c":[null]}`, false},
		{`expr("pathescape('../a b?')")`, `"..%2Fa%20b%3F"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			v, diags := compile(t, tt.src)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if _, isConst := mapping.IsConst(v); isConst != tt.constant {
				t.Errorf("IsConst = %v, want %v", isConst, tt.constant)
			}
			got, err := v.Eval(vars)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string
		rng  string // start-end columns of the diagnostic's subject
	}{
		{`expr("args.ctiy")`, `The program "args.ctiy" does not compile: unknown field ctiy`, "12-13"},
		{`{ a = expr("args.city * 2") }`, `mismatched types string and int`, "23-24"},
		{`expr("nope")`, `unknown name nope`, "7-8"},
		{`expr("args.city +")`, `does not compile`, ""},
		{`expr("a\tb.c")`, `does not compile`, "6-14"}, // escapes: the whole string
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, diags := compile(t, tt.src)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			d := diags[0]
			if !strings.Contains(d.Detail, tt.want) {
				t.Errorf("detail = %q, want it to contain %q", d.Detail, tt.want)
			}
			if tt.rng != "" {
				got := strconv.Itoa(d.Subject.Start.Column) + "-" + strconv.Itoa(d.Subject.End.Column)
				if got != tt.rng {
					t.Errorf("subject columns = %s, want %s", got, tt.rng)
				}
			}
		})
	}
}

func TestRunError(t *testing.T) {
	v, diags := compile(t, `expr("body.a.b")`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, err := v.Eval(map[string]any{"args": map[string]any{}, "body": "text"})
	if err == nil {
		t.Fatal("no error")
	}
	var me *mapping.Error
	if !errors.As(err, &me) || !strings.HasPrefix(err.Error(), `test.hcl:1: expr("body.a.b") failed: `) {
		t.Errorf("error = %v", err)
	}
}

func TestResultType(t *testing.T) {
	tests := []struct {
		src  string
		want reflect.Kind
	}{
		{`expr("args.city")`, reflect.String},
		{`expr("args.n + 1")`, reflect.Int},
		{`expr("body.x")`, reflect.Invalid},
		{`"text"`, reflect.String},
	}
	for _, tt := range tests {
		v, diags := compile(t, tt.src)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := reflect.Invalid
		if rt := mapping.ResultType(v); rt != nil {
			got = rt.Kind()
		}
		if got != tt.want {
			t.Errorf("%s: kind %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestFromCtyRefusesPrograms(t *testing.T) {
	v, err := mapping.Function().Call([]cty.Value{cty.StringVal("args")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mapping.FromCty(cty.ObjectVal(map[string]cty.Value{"a": v})); err == nil || !strings.Contains(err.Error(), "expr(…) is not allowed here") {
		t.Errorf("err = %v", err)
	}
	if !mapping.IsProgram(cty.ListVal([]cty.Value{v})) {
		t.Errorf("IsProgram did not find the program in a list")
	}
}

func BenchmarkEval(b *testing.B) {
	e, _ := hclsyntax.ParseExpression([]byte(`{ q = expr("args.city"), units = expr("args.n > 2 ? 'metric' : 'imperial'"), lang = "en" }`), "b.hcl", hcl.InitialPos)
	v, _ := e.Value(&hcl.EvalContext{Functions: map[string]function.Function{"expr": mapping.Function()}})
	m, diags := mapping.Compile(v, e, env)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	vars := map[string]any{"args": map[string]any{"city": "Paris", "n": 3}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Eval(vars); err != nil {
			b.Fatal(err)
		}
	}
}
