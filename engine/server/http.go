package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/metrics"
)

// Authenticator checks the bearer tokens of HTTP requests; the auth block
// decodes into one (package engine/auth), found among the configuration's
// resources.
type Authenticator interface {
	// Wrap returns next behind the token check: a request without a valid
	// token is answered 401 with a WWW-Authenticate challenge, one with a
	// valid token reaches next with its sdkauth.TokenInfo in its context.
	Wrap(next http.Handler) http.Handler
	// MetadataPath is where the protected-resource metadata document (RFC
	// 9728) is served, "" when there is none.
	MetadataPath() string
	// MetadataHandler serves that document.
	MetadataHandler() http.Handler
}

// The paths of the health endpoints.
const (
	HealthPath = "/healthz"
	ReadyPath  = "/readyz"
)

// refusalGrace is how long a refused request's connection may go on
// receiving the body the client had sent along, before it is closed (see
// closeAfterRefusal).
const refusalGrace = 100 * time.Millisecond

// maxEchoedOrigin caps how much of a refused Origin is logged and sent back.
const maxEchoedOrigin = 256

// remoteHeader carries the client's address from the HTTP front to the tool
// handlers, which see only headers; a client cannot set it.
const remoteHeader = "Mcpdecl-Remote-Addr"

// toolsetHeader carries, from the HTTP front to the handlers, the toolset
// whose endpoint a request came to; the front removes what a client sent
// in it.
const toolsetHeader = "Mcpdecl-Toolset"

// readyTimeout bounds one readiness check; readyCache is how long its
// answer is reused, so that probes cannot flood the databases.
const (
	readyTimeout = 3 * time.Second
	readyCache   = time.Second
)

// listenMethod is the 2026-07-28 request that opens a stream of
// notifications, named in its Mcp-Method header.
const listenMethod = "subscriptions/listen"

// HTTPHandler returns the HTTP front of the server: streamable HTTP at
// [Path] in stateless mode with plain JSON answers (and, with the server
// block's http_sessions, sessions for the clients of earlier revisions
// that initialize one: see httpSessions), behind the auth block's
// token check when there is one; the auth block's metadata document; and
// the unauthenticated health endpoints [HealthPath] (the process is alive)
// and [ReadyPath] (the configuration is loaded and what it connects to
// answers). Requests to [Path] from a browser page of another origin are
// refused with 403 (see allowedOrigin), before the token check. Request
// bodies larger than what the current settings allow are refused with 413,
// at once when their length is announced. A refusal (401, 403, 413) closes
// the connection once written, without reading what remains of the body.
// A client that goes away cancels its call. [ServeHTTP] bounds the
// connections.
func (l *Live) HTTPHandler() http.Handler {
	l.mu.Lock()
	settings := l.current.cfg.Settings
	l.mu.Unlock()
	maxBody := MaxRequestBody(settings)
	var sessions *httpSessions
	if settings.HTTPSessions {
		sessions = l.newHTTPSessions(settings, maxBody)
	}
	sdkHandler := func(jsonResponse bool) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return l.srv }, &mcp.StreamableHTTPOptions{
			Stateless:                    true,
			JSONResponse:                 jsonResponse,
			Logger:                       sdkLogger(l.logger),
			MaxRequestBodyBytes:          maxBody,
			PropagateRequestCancellation: true,
		})
	}
	plainJSON, stream := sdkHandler(true), sdkHandler(false)
	serveMCP := l.mcpFront(sessions != nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBody {
			closeAfterRefusal(w)
			plain(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the body announces %d bytes; this server takes at most %d (the server block's max_argument_bytes, plus 64 KiB for the JSON-RPC envelope).\n", r.ContentLength, maxBody))
			return
		}
		if sessions != nil && sessions.serves(w, r) {
			return
		}
		if l.streams(r) {
			stream.ServeHTTP(w, r)
			return
		}
		plainJSON.ServeHTTP(w, r)
	}))
	ready := &readiness{live: l}
	mux := http.NewServeMux()
	mux.HandleFunc(HealthPath, func(w http.ResponseWriter, r *http.Request) {
		plain(w, http.StatusOK, "ok\n")
	})
	mux.Handle(ReadyPath, ready)
	if l.opts.Metrics != nil && l.opts.MetricsOnHTTP {
		mux.Handle(metrics.Path, l.opts.Metrics.Handler(l.opts.MetricsToken))
	}
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		serveMCP(w, r, "")
	})
	mux.HandleFunc(Path+"/{toolset}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("toolset")
		if _, ok := l.generation().cfg.Toolset(name); !ok {
			plain(w, http.StatusNotFound, fmt.Sprintf("Not found: the configuration declares no toolset %q; its tools are served at %s%s.\n", name, Path, toolsetList(l.generation().cfg)))
			return
		}
		serveMCP(w, r, name)
	})
	mux.HandleFunc("/.well-known/", func(w http.ResponseWriter, r *http.Request) {
		g := l.generation()
		if g.auth != nil && g.auth.MetadataPath() != "" && r.URL.Path == g.auth.MetadataPath() {
			g.auth.MetadataHandler().ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
	if sessions != nil {
		return &sessionFront{Handler: mux, sessions: sessions}
	}
	return mux
}

// streams reports whether r is answered as an event stream rather than
// plain JSON: a 2026-07-28 subscriptions/listen, whose notifications go on
// its stream for as long as the client keeps it; a tools/call of a tool
// that may send log messages, from a client that accepts a stream, whose
// log messages go on that stream before the result; likewise a tools/call
// of a tool whose action reports its progress (see
// engine.ProgressEmitter), whose notifications go on the stream when the
// call carries a progress token. Every other request
// is answered with plain JSON. A 2026-07-28 request names its method and
// tool in its Mcp-Method and Mcp-Name headers (which the SDK checks
// against the body). An earlier revision sets its log level for a
// session, which stateless HTTP does not keep: its clients are sent
// messages at the server's log_level, if set, and their calls are found in
// the body, as is the tool that discovery's call_tool calls.
func (l *Live) streams(r *http.Request) bool {
	method, name := r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name")
	if r.Method != http.MethodPost || !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		return false
	}
	if method == listenMethod {
		return true
	}
	if method != "" && method != "tools/call" {
		return false
	}
	g := l.generation()
	if !g.declared.logging && !g.declared.progress {
		return false
	}
	if method == "" && (g.cfg.Settings.LogLevel != "" || g.declared.progress) || l.opts.Discovery && name == callTool {
		// A client of an earlier revision, sent log messages at the
		// server's log_level or progress, or a call through discovery's
		// call_tool: the request's body says what it calls.
		var called string
		method, name, called = peekCall(r, MaxRequestBody(g.cfg.Settings))
		if l.opts.Discovery && name == callTool {
			name = called
		}
	}
	if method != "tools/call" || name == "" {
		return false
	}
	t, ok := g.cfg.Tool(name)
	return ok && (t.EmitsLogs() || t.EmitsProgress())
}

// peekCall reads the method and, for tools/call, the tool's name from the
// JSON-RPC request in r's body, which it puts back for the SDK to read;
// called is the name among the call's arguments (the tool that
// discovery's call_tool calls). A body larger than limit, or not one
// request, gives nothing (the SDK then answers it as it would).
func peekCall(r *http.Request, limit int64) (method, name, called string) {
	b := peekBody(r, limit)
	if b == nil {
		return "", "", ""
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Name string `json:"name"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &req) != nil {
		return "", "", ""
	}
	return req.Method, req.Params.Name, req.Params.Arguments.Name
}

// peekBody reads r's body, which it puts back for the SDK to read: nil
// when it is larger than limit or cannot be read.
func peekBody(r *http.Request, limit int64) []byte {
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil || int64(len(b)) > limit {
		return nil
	}
	return b
}

// toolsetList names the endpoints of cfg's toolsets, for a message: ""
// when it has none.
func toolsetList(cfg *engine.Config) string {
	if len(cfg.Toolsets) == 0 {
		return ""
	}
	var paths []string
	for _, t := range cfg.Toolsets {
		paths = append(paths, Path+"/"+t.Name)
	}
	return ", and its toolsets' at " + strings.Join(paths, ", ")
}

// mcpFront serves the MCP endpoint: at Path, or with toolset not "" at
// that toolset's. What the client sent in the internal headers is
// replaced by what the front knows. keepsSessions is true when the
// server keeps HTTP sessions (http_sessions).
func (l *Live) mcpFront(keepsSessions bool, mcpHandler http.Handler) func(w http.ResponseWriter, r *http.Request, toolset string) {
	return func(w http.ResponseWriter, r *http.Request, toolset string) {
		r.Header.Del(remoteHeader)
		r.Header.Set(remoteHeader, r.RemoteAddr)
		r.Header.Del(toolsetHeader)
		if toolset != "" {
			r.Header.Set(toolsetHeader, toolset)
		}
		g := l.generation()
		if origin, ok := allowedOrigin(r, g.cfg.Settings.AllowedOrigins); !ok {
			if len(origin) > maxEchoedOrigin {
				origin = origin[:maxEchoedOrigin] + "…"
			}
			l.logger.Debug("cross-origin request refused", "origin", origin, "remote", r.RemoteAddr)
			closeAfterRefusal(w)
			plain(w, http.StatusForbidden, fmt.Sprintf("Forbidden: the Origin %q is neither this server's own nor listed in the server block's allowed_origins.\n", origin))
			return
		}
		rc := http.NewResponseController(w)
		if keepsSessions && r.Header.Get(sessionHeader) != "" {
			// A session's GET stream lasts as long as its client keeps
			// it, like a listen stream; a POST in a session may wait
			// for the person's answer (elicitation) or the client's
			// model (sampling), sent on its stream, for as long as they
			// take. The connection cap bounds how many are open.
			_ = rc.SetWriteDeadline(time.Time{})
			if r.Method == http.MethodGet {
				_ = rc.SetReadDeadline(time.Time{})
			} else {
				r.Body = &onEOF{ReadCloser: r.Body, f: func() { _ = rc.SetReadDeadline(time.Time{}) }}
			}
		} else if r.Header.Get("Mcp-Method") == listenMethod {
			// A listen stream lasts as long as its client keeps it: no
			// deadline ends it, once its request is read (a read
			// deadline passing then would cancel it). The connection
			// cap bounds how many are open.
			_ = rc.SetWriteDeadline(time.Time{})
			r.Body = &onEOF{ReadCloser: r.Body, f: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		} else {
			// A call may run for the current timeout once its request
			// is read.
			_ = rc.SetWriteDeadline(time.Now().Add(callWriteTimeout(g.cfg.Settings)))
		}
		switch {
		case g.auth != nil:
			g.front(mcpHandler).ServeHTTP(&closeOnRefusal{ResponseWriter: w}, r)
		case r.ContentLength < 0:
			// A body of unknown length may pass the limit, and be
			// refused once read that far.
			mcpHandler.ServeHTTP(&closeOnRefusal{ResponseWriter: w}, r)
		default:
			mcpHandler.ServeHTTP(w, r)
		}
	}
}

// front returns the MCP handler behind g's token check, built once.
func (g *generation) front(h http.Handler) http.Handler {
	g.frontOnce.Do(func() { g.wrapped = g.auth.Wrap(h) })
	return g.wrapped
}

// onEOF calls f once, when the body has been read to its end.
type onEOF struct {
	io.ReadCloser
	f    func()
	done bool
}

func (o *onEOF) Read(p []byte) (int, error) {
	n, err := o.ReadCloser.Read(p)
	if err == io.EOF && !o.done {
		o.done = true
		o.f()
	}
	return n, err
}

// closeOnRefusal closes the connection after a refusal written before the
// request's body was read whole: the token check's 401 and 403, the SDK's
// 413 (see closeAfterRefusal).
type closeOnRefusal struct {
	http.ResponseWriter
}

func (c *closeOnRefusal) WriteHeader(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusRequestEntityTooLarge {
		closeAfterRefusal(c.ResponseWriter)
	}
	c.ResponseWriter.WriteHeader(code)
}

// closeAfterRefusal makes the answer being written to a refused request
// the last of its connection, and bounds what is read of the body the
// request announced. Connection: close alone is not enough: once the
// handler returns, net/http still reads out up to 256 KiB of an unread
// body, at whatever pace the client sends it, up to the read timeout, and
// meanwhile the connection counts against max_connections. A read
// deadline refusalGrace away ends that: what the client sent along with
// its request is read (closing a socket with unread data would reset it,
// and some clients then lose the answer), a client that stalls is cut.
// Over HTTP/2 the deadline ends the stream's body, and the stream is reset
// when the handler returns.
func closeAfterRefusal(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusalGrace))
}

// Unwrap lets [http.ResponseController] reach the connection's writer.
func (c *closeOnRefusal) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Flush sends what was written so far, when the writer can.
func (c *closeOnRefusal) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// allowedOrigin reports whether the Origin of r, returned, may be served
// (MCP requires servers to check it against DNS rebinding): a request
// without one (not sent by a browser) may; one whose origin is listed in
// allowed, or allowed holds "*", may; one from the server's own origin may,
// that is an origin whose host and port are the request's Host and name an
// IP address or localhost. Any other name is refused unless listed: this
// server serves no pages, so a page on another name that reaches it is
// either a deployment that must say so, or an attacker's name rebound to
// this address.
func allowedOrigin(r *http.Request, allowed []string) (string, bool) {
	values := r.Header.Values("Origin")
	if len(values) == 0 {
		return "", true
	}
	origin := values[0]
	if len(values) > 1 {
		return strings.Join(values, ", "), false
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, origin) {
			return origin, true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.User != nil {
		return origin, false
	}
	if !strings.EqualFold(u.Host, r.Host) {
		return origin, false
	}
	host := u.Hostname()
	return origin, strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil
}

// plain writes a short text answer.
func plain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text))
}

// readiness answers /readyz: 200 when the current configuration's
// resources answer, 503 otherwise. The reason is logged, never sent: the
// endpoint is unauthenticated.
type readiness struct {
	live    *Live
	mu      sync.Mutex
	checked time.Time
	cfg     *engine.Config
	err     error
}

func (rd *readiness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cfg := rd.live.generation().cfg
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.cfg != cfg || time.Since(rd.checked) > readyCache {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		rd.err = cfg.Check(ctx)
		cancel()
		rd.cfg, rd.checked = cfg, time.Now()
		if rd.err != nil {
			rd.live.logger.Warn("not ready", "error", cfg.Redactor.Redact(rd.err.Error()))
		}
	}
	if rd.err != nil {
		plain(w, http.StatusServiceUnavailable, "not ready\n")
		return
	}
	plain(w, http.StatusOK, "ready\n")
}

// callerOf is who sent req: the subject of its token when one was checked,
// else the address it came from over HTTP, else the local user.
func callerOf(extra *mcp.RequestExtra) engine.Caller {
	if extra == nil {
		return engine.Caller{ID: engine.LocalID}
	}
	if info := extra.TokenInfo; info != nil {
		return callerFromToken(info)
	}
	if addr := extra.Header.Get(remoteHeader); addr != "" {
		return engine.Caller{ID: hostOf(addr)}
	}
	return engine.Caller{ID: engine.LocalID}
}

func callerFromToken(info *sdkauth.TokenInfo) engine.Caller {
	c := engine.Caller{ID: info.UserID, Authenticated: true, Scopes: info.Scopes}
	_, c.Subject, _ = strings.Cut(info.UserID, ":") // after "jwt:" or "token:"
	c.Claims, _ = info.Extra[engine.ClaimsKey].(map[string]any)
	c.Token, _ = info.Extra[engine.TokenKey].(string)
	c.Audience, _ = info.Extra[engine.AudienceKey].([]string)
	return c
}

// hostOf is the host of a host:port address: a client's port changes with
// each connection, and must not split its rate limit.
func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// authenticator finds the auth block's authenticator among cfg's resources.
func authenticator(cfg *engine.Config) Authenticator {
	for _, r := range cfg.Blocks() {
		if a, ok := r.(Authenticator); ok {
			return a
		}
	}
	return nil
}
