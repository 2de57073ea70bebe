package mapping

import (
	"fmt"
	"net/url"

	"github.com/expr-lang/expr"
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
