package load

import (
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
)

var serverSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "name"},
	{Name: "version"},
	{Name: "title"},
	{Name: "instructions"},
	{Name: "timeout"},
	{Name: "max_response_bytes"},
	{Name: "max_argument_bytes"},
	{Name: "max_result_bytes"},
	{Name: "page_size"},
	{Name: "allowed_origins"},
	{Name: "max_connections"},
	{Name: "log_level"},
	{Name: "coerce_arguments"},
	{Name: "output_schemas"},
}}

// DefaultServerName and DefaultServerVersion describe the server when no
// server block names it.
const (
	DefaultServerName    = "mcpdecl"
	DefaultServerVersion = "0.0.0"
)

// server decodes the server block, if any, into the server's description
// and settings.
func (l *loader) server() engine.ServerInfo {
	info := engine.ServerInfo{Name: DefaultServerName, Version: DefaultServerVersion}
	b := l.single("server", "The server is already described")
	if b == nil {
		return info
	}
	content, diags := b.Body.Content(serverSchema)
	l.diags = append(l.diags, diags...)
	ctx := l.decodeContext(b.DefRange.Filename)
	l.publicAttrs(ctx, content.Attributes, func(name string) string { return "the " + name + " of the server" },
		"name", "version", "title", "instructions")
	str := func(name string, dst *string) {
		if attr, ok := content.Attributes[name]; ok {
			s, diags := ctx.String(attr.Expr)
			l.diags = append(l.diags, diags...)
			if !diags.HasErrors() {
				*dst = s
			}
		}
	}
	str("name", &info.Name)
	str("version", &info.Version)
	str("title", &info.Title)
	str("instructions", &info.Instructions)
	if attr, ok := content.Attributes["timeout"]; ok {
		d, diags := ctx.Duration(attr.Expr)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() {
			l.settings.Timeout = d
		}
	}
	positive := func(name string, set func(int64)) {
		if attr, ok := content.Attributes[name]; ok {
			n, diags := ctx.Int(attr.Expr)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				return
			}
			if n <= 0 {
				l.error(attr.Expr.Range(), "Invalid "+name, "%s must be a positive whole number.", name)
				return
			}
			set(n)
		}
	}
	positive("max_response_bytes", func(n int64) { l.settings.MaxResponseBytes = n })
	positive("max_argument_bytes", func(n int64) { l.settings.MaxArgumentBytes = n })
	positive("max_result_bytes", func(n int64) { l.settings.MaxResultBytes = n })
	positive("page_size", func(n int64) { l.settings.PageSize = int(n) })
	positive("max_connections", func(n int64) { l.settings.MaxConnections = int(min(n, 1<<30)) })
	if attr, ok := content.Attributes["allowed_origins"]; ok {
		l.settings.AllowedOrigins = l.origins(ctx, attr.Expr)
	}
	if attr, ok := content.Attributes["log_level"]; ok {
		s, diags := ctx.String(attr.Expr)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() && !engine.ValidLogLevel(s) {
			l.error(attr.Expr.Range(), "Invalid log_level", "log_level is the level of the log messages sent to clients that set none: one of %s.", strings.Join(engine.LogLevels, ", "))
		} else {
			l.settings.LogLevel = s
		}
	}
	if attr, ok := content.Attributes["coerce_arguments"]; ok {
		b, diags := ctx.Bool(attr.Expr)
		l.diags = append(l.diags, diags...)
		if v, _ := ctx.Eval(attr.Expr); !diags.HasErrors() && !v.IsNull() {
			l.settings.ExactArguments = !b
		}
	}
	if attr, ok := content.Attributes["output_schemas"]; ok {
		if mode, ok := l.outputSchemas(ctx, attr); ok {
			l.settings.OutputSchemas = mode
		}
	}
	if info.Name == "" {
		l.error(content.Attributes["name"].Expr.Range(), "Invalid server name", "The server's name must not be empty.")
	}
	return info
}

// outputSchemas decodes output_schemas, of the server block or a
// toolset: one of engine.OutputSchemaModes.
func (l *loader) outputSchemas(ctx *engine.DecodeContext, attr *hcl.Attribute) (string, bool) {
	s, diags := ctx.String(attr.Expr)
	if diags.HasErrors() || !slices.Contains(engine.OutputSchemaModes, s) {
		// Whatever was wrong, the values allowed say what to write.
		l.error(attr.Expr.Range(), "Invalid output_schemas", `output_schemas says what each tool's outputSchema carries in tools/list: one of "full", "compact" or "none".`)
		return "", false
	}
	return s, true
}

// origins decodes allowed_origins: a list of "*" or origins such as
// "https://app.example.com", each scheme, host and port with no path.
func (l *loader) origins(ctx *engine.DecodeContext, e hcl.Expression) []string {
	elems, diags := hcl.ExprList(e)
	if diags.HasErrors() {
		l.error(e.Range(), "Invalid allowed_origins", `allowed_origins must be a list of origins, such as ["https://app.example.com"], or ["*"] to allow any.`)
		return nil
	}
	list := []string{}
	for _, el := range elems {
		s, diags := ctx.String(el)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if s == "*" {
			list = append(list, s)
			continue
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			l.error(el.Range(), "Invalid origin", "%q is not an origin: write the scheme, host and port a browser sends in its Origin header, such as \"https://app.example.com\" or \"http://localhost:3000\", or \"*\" to allow any.", s)
			continue
		}
		list = append(list, u.Scheme+"://"+strings.ToLower(u.Host))
	}
	return list
}
