package load

import (
	"net/url"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// serverSpec is the server block.
var serverSpec = &spec.Block{
	Name:    "server",
	Summary: "What the server says of itself to clients, and the server-wide defaults: timeouts, sizes, origins.",
	Example: `server {
  name         = "weather"
  version      = "1.0.0"
  instructions = "Current weather and forecasts."
  timeout      = "10s"
}`,
	Attrs: []*spec.Attr{
		spec.String("name", "is the server's name, in initialize").WithDefault(DefaultServerName).Shown(),
		spec.String("version", "is the server's version, in initialize").WithDefault(DefaultServerVersion).Shown(),
		spec.String("title", "is the server's name for people").Shown(),
		spec.String("instructions", "tells clients and models how to use the server").Shown(),
		spec.Duration("timeout", "bounds one tool call").WithDefault(engine.DefaultSettings().Timeout),
		spec.Int("max_response_bytes", "is the largest upstream body read").AtLeast(1).WithDefault(engine.DefaultSettings().MaxResponseBytes),
		spec.Int("max_argument_bytes", "is the largest JSON arguments of one call").AtLeast(1).WithDefault(engine.DefaultSettings().MaxArgumentBytes),
		spec.Int("max_result_bytes", "is the largest result of one call: text, data and structured content (a tool may set its own)").AtLeast(1).WithDefault(engine.DefaultSettings().MaxResultBytes),
		spec.Int("page_size", "is how many tools one page of tools/list holds").AtLeast(1).WithDefault(engine.DefaultSettings().PageSize),
		spec.List("allowed_origins", spec.KindString, `are the browser origins served over HTTP besides the server's own, such as ["https://app.example.com"]; ["*"] allows any`),
		spec.Int("max_connections", "bounds the HTTP connections open at once, read at start (at most half the open-file limit)").AtLeast(1).WithDefault(engine.DefaultSettings().MaxConnections),
		spec.Enum("log_level", "is the level of the log messages sent to clients that set none", spec.Choices(engine.LogLevels...)...),
		spec.Bool("coerce_arguments", "takes a string that is exactly a JSON number or true/false for one where an argument wants a number, an integer or a boolean; false: arguments must have their schema's JSON types exactly").WithDefault(true),
		spec.Duration("progress_heartbeat", "is how often a call whose client asked for progress, and whose action reports none of its own (a slow upstream), is sent a progress notification that says it still runs").WithDefault(engine.DefaultSettings().ProgressHeartbeat),
		spec.List("request_state_keys", spec.KindString, "sign the request states of confirmations, so that any replica holding them resumes a call: the first signs, each verifies (list the new key first and keep the old one while replicas change); at least 32 characters each, from a sensitive variable").MaySecret().DefaultIs("a random key of this process"),
		spec.Bool("http_sessions", "keeps a session over HTTP (serve --http) for each client of a revision before 2026-07-28 that initializes one, so that it can be asked (confirm, ask, sample, roots) and told of resource updates; sessions live in the memory of one process, so a load balancer in front of replicas must send each Mcp-Session-Id to the replica that created it; false: HTTP is stateless for every client; read at start").WithDefault(false),
		spec.Int("max_http_sessions", "bounds the HTTP sessions one process keeps at once (with http_sessions); an initialize beyond them is refused with 503; read at start").Range(1, 1<<20).WithDefault(int64(engine.DefaultSettings().MaxHTTPSessions)),
		spec.Duration("http_session_idle_timeout", "closes an HTTP session that received no request for that long (with http_sessions); its client then initializes a new one; read at start").Range(int64(time.Second), int64(24*time.Hour)).WithDefault(engine.DefaultSettings().HTTPSessionIdleTimeout),
		spec.Enum("output_schemas", outputSchemasDoc, spec.Choices(engine.OutputSchemaModes...)...).WithDefault(engine.OutputSchemasFull),
	},
}

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
	ctx := l.decodeContext(b.DefRange.Filename)
	v, diags := serverSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	l.shown(ctx, serverSpec, v, "the %s of the server", false)
	info.Name, info.Version = v.String("name"), v.String("version")
	info.Title, info.Instructions = v.String("title"), v.String("instructions")
	s := &l.settings
	s.Timeout = v.Duration("timeout")
	s.MaxResponseBytes, s.MaxArgumentBytes, s.MaxResultBytes = v.Int("max_response_bytes"), v.Int("max_argument_bytes"), v.Int("max_result_bytes")
	s.PageSize = int(v.Int("page_size"))
	s.MaxConnections = int(min(v.Int("max_connections"), 1<<30))
	if v.Written("allowed_origins") {
		s.AllowedOrigins = l.origins(v)
	}
	s.LogLevel = v.String("log_level")
	s.ProgressHeartbeat = v.Duration("progress_heartbeat")
	s.HTTPSessions = v.Bool("http_sessions")
	s.MaxHTTPSessions = int(v.Int("max_http_sessions"))
	s.HTTPSessionIdleTimeout = v.Duration("http_session_idle_timeout")
	for i, k := range v.Strings("request_state_keys") {
		if len(k) < 32 {
			l.error(v.Ranges("request_state_keys")[i], "Short request state key", "A key that signs request states needs at least 32 characters (this one has %d): make one with openssl rand -base64 32, and give it from a sensitive variable.", len(k))
			continue
		}
		s.RequestStateKeys = append(s.RequestStateKeys, []byte(k))
	}
	if v.Has("coerce_arguments") {
		s.ExactArguments = !v.Bool("coerce_arguments")
	}
	if v.Has("output_schemas") {
		s.OutputSchemas = v.String("output_schemas")
	}
	if v.Has("name") && info.Name == "" {
		l.error(v.Attr("name").Expr.Range(), "Invalid server name", "The server's name must not be empty.")
	}
	return info
}

// outputSchemasDoc describes output_schemas, of the server block and of
// a toolset.
const outputSchemasDoc = "says what each tool's outputSchema carries in tools/list"

// origins checks allowed_origins: "*" or origins such as
// "https://app.example.com", each scheme, host and port with no path.
func (l *loader) origins(v *spec.Values) []string {
	list := []string{}
	for i, s := range v.Strings("allowed_origins") {
		if s == "*" {
			list = append(list, s)
			continue
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			l.error(v.Ranges("allowed_origins")[i], "Invalid origin", "%q is not an origin: write the scheme, host and port a browser sends in its Origin header, such as \"https://app.example.com\" or \"http://localhost:3000\", or \"*\" to allow any.", s)
			continue
		}
		list = append(list, u.Scheme+"://"+strings.ToLower(u.Host))
	}
	return list
}
