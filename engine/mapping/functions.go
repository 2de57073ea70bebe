package mapping

import (
	"fmt"
	"net/url"

	"github.com/expr-lang/expr"
)

// functions are what programs may call besides expr-lang's built-ins:
// urlencode (a query value: spaces as +) and pathescape (one path
// segment: "/" as %2F), for programs that build URLs.
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
	return []expr.Option{str("urlencode", url.QueryEscape), str("pathescape", url.PathEscape)}
}
