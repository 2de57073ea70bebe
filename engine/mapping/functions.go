package mapping

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/builtin"
)

// functions are what programs may call besides expr-lang's built-ins:
// urlencode (a query value: spaces as +) and pathescape (one path
// segment: "/" as %2F), for programs that build URLs, and compact (a map
// without its null entries), for bodies whose optional fields are left
// out rather than sent as null.
func functions() []expr.Option {
	str := func(name string, f func(string) string) expr.Option {
		return expr.Function(name, func(params ...any) (any, error) {
			s, ok := params[0].(string)
			if !ok {
				return nil, fmt.Errorf("%s takes a string, not %T", name, params[0])
			}
			return f(s), nil
		}, new(func(string) string))
	}
	compact := expr.Function("compact", func(params ...any) (any, error) {
		m, ok := params[0].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("compact takes a map, not %T", params[0])
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			if v != nil {
				out[k] = v
			}
		}
		return out, nil
	}, new(func(map[string]any) map[string]any))
	return []expr.Option{str("urlencode", url.QueryEscape), str("pathescape", url.PathEscape), compact}
}

// A Callable is a function that programs may call: one of expr-lang's builtins
// or one of ours, with its signature when it has a single one.
type Callable struct {
	Name      string
	Signature string // such as "func(string) string"; "" when it takes several forms
	Builtin   bool   // expr-lang's, not mcpdecl's
}

// Callables lists what programs may call, by name: the same table every
// program is compiled with.
func Callables() []Callable {
	c := baseConfig()
	var out []Callable
	add := func(table map[string]*builtin.Function, isBuiltin bool) {
		for name, f := range table {
			if c.Disabled[name] {
				continue
			}
			fn := Callable{Name: name, Builtin: isBuiltin}
			if len(f.Types) == 1 {
				fn.Signature = f.Types[0].String()
			}
			out = append(out, fn)
		}
	}
	add(c.Builtins, true)
	add(c.Functions, false)
	slices.SortFunc(out, func(a, b Callable) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(out, func(a, b Callable) bool { return a.Name == b.Name })
}
