package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/audit"
	"github.com/mcpdecl/mcpdecl/engine/metrics"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
)

// Live serves a configuration that can be replaced while it serves: Swap
// puts a new one in place atomically, clients are told that the list of
// tools changed, and a call in flight finishes on the configuration it
// started with, whose resources are released only after its last call.
type Live struct {
	srv     *mcp.Server
	logger  *slog.Logger
	stderr  io.Writer // where an audit log without a file goes
	mu      sync.Mutex
	current *generation
	opts    Options // as NewLive was given them: toolset, discovery, metrics…
	subs    *subscriptions
	runs    *taskRuns // the tasks of the tools with a task block
	// stopping is cancelled by Close: every request still being answered
	// is then cancelled (see cancelOnClose).
	stopping context.Context
	stop     context.CancelFunc
}

// errStopped is why a request still running when the server closes is
// cancelled.
var errStopped = errors.New("the server is stopping")

// cancelOnClose cancels the requests still running when Live closes: a
// call whose grace period after SIGTERM ran out (see ShutdownTimeout),
// and its program, are stopped then, not left running to their own
// timeout while the server waits for them.
func (l *Live) cancelOnClose(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(l.stopping, func() { cancel(errStopped) })
		defer stop()
		return next(ctx, method, req)
	}
}

// generation is one configuration being served, and the calls running on it.
type generation struct {
	cfg    *engine.Config
	mu     sync.RWMutex // held for reading by each call, for writing to close
	closed bool

	auth      Authenticator // nil: no auth block
	frontOnce sync.Once
	wrapped   http.Handler // the MCP handler behind auth
	audit     *audit.Log   // nil: no audit block
	scope     string       // the cacheScope of its tools/list results
	declared  declared     // what it serves besides tools
	// listedBy are the tools of each toolset that sets output_schemas,
	// by toolset and tool name, as its clients list them; made once,
	// with the generation.
	listedBy map[string]map[string]*mcp.Tool
}

// newGeneration prepares cfg to be served, and opens its audit log. An
// audit log that cannot be opened is logged, and calls go unaudited: serve
// checks it first (see CheckAudit).
func (l *Live) newGeneration(cfg *engine.Config) *generation {
	g := &generation{cfg: cfg, auth: authenticator(cfg), scope: cacheScope(cfg), declared: declaredBy(cfg), audit: audit.Of(cfg)}
	if !l.opts.Discovery {
		g.listedBy = listedBy(cfg)
	}
	if err := g.audit.Open(l.stderr, l.opts.TextAudit); err != nil {
		l.logger.Error("no audit log", "error", err)
	}
	return g
}

// CheckAudit reports whether the audit log of cfg, if any, can be written.
func CheckAudit(cfg *engine.Config) error { return audit.Of(cfg).Check() }

// listedBy are the tools of each toolset of cfg that sets output_schemas,
// as that toolset's clients list them: its setting decides over the
// tools' own and the server's.
func listedBy(cfg *engine.Config) map[string]map[string]*mcp.Tool {
	var out map[string]map[string]*mcp.Tool
	for _, ts := range cfg.Toolsets {
		if ts.OutputSchemas == "" {
			continue
		}
		tools := make(map[string]*mcp.Tool, len(ts.Tools))
		for _, name := range ts.Tools {
			if t, ok := cfg.Tool(name); ok {
				tools[name] = ToolAs(t, ts.OutputSchemas)
			}
		}
		if out == nil {
			out = map[string]map[string]*mcp.Tool{}
		}
		out[ts.Name] = tools
	}
	return out
}

// generation returns the configuration being served.
func (l *Live) generation() *generation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current
}

// Options says how a Live server is served.
type Options struct {
	// Watch is true when the configuration may be swapped while it serves.
	Watch bool
	// HTTP is true when the server is served over streamable HTTP, false
	// over stdio.
	HTTP bool
	// TextAudit writes an audit log that goes to standard error (no file)
	// as text lines like those of slog's text handler, with the same
	// fields, instead of JSON lines: set it when the logs on standard
	// error are text, so that the two do not interleave two formats. An
	// audit file always holds JSON lines.
	TextAudit bool
	// Toolset, when not "", serves that toolset's tools alone (over stdio;
	// over HTTP each toolset has its endpoint, /mcp/<name>).
	Toolset string
	// Discovery serves three tools in place of the catalog: search_tools,
	// describe_tool and call_tool (see discovery.go).
	Discovery bool
	// Metrics, when not nil, counts the calls; with MetricsOnHTTP, the
	// HTTP handler also serves them at metrics.Path, behind MetricsToken
	// when it is not empty (not behind the auth block).
	Metrics       *metrics.Metrics
	MetricsOnHTTP bool
	MetricsToken  string
	// Tracing, when not nil, makes a span of each request (see
	// spans.go), the parent of the spans of the actions' exchanges.
	Tracing *tracing.Tracing
}

// delivers reports whether notifications (list changes, resource updates)
// reach a client that negotiated the protocol version on session: over
// stdio and on an HTTP session (http_sessions) on that session; over
// stateless streamable HTTP only on a 2026-07-28 subscriptions/listen
// stream (an earlier client would need a session's GET stream, which a
// stateless server does not keep: GET on the endpoint is 405).
func (o Options) delivers(session mcp.Session, version string) bool {
	return !o.stateless(session) || version >= listenVersion
}

// stateless reports whether session is one of stateless HTTP, made for
// one request: over HTTP, one without an ID (an HTTP session that
// http_sessions keeps has one, a stdio session is not over HTTP).
func (o Options) stateless(session mcp.Session) bool {
	if !o.HTTP {
		return false
	}
	ss, ok := session.(*mcp.ServerSession)
	return !ok || ss == nil || ss.ID() == ""
}

// listenVersion is the first protocol version with subscriptions/listen.
const listenVersion = "2026-07-28"

// NewLive builds an MCP server for cfg, served as opts says.
func NewLive(cfg *engine.Config, logger *slog.Logger, opts Options) *Live {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	l := &Live{logger: logger, stderr: os.Stderr, opts: opts}
	l.stopping, l.stop = context.WithCancel(context.Background())
	l.subs = newSubscriptions(l)
	l.runs = newTaskRuns()
	l.srv = mcp.NewServer(&mcp.Implementation{
		Name:    cfg.Server.Name,
		Title:   cfg.Server.Title,
		Version: cfg.Server.Version,
	}, l.serverOptions(cfg, logger, opts))
	addTaskMethods(l.srv)
	l.srv.AddReceivingMiddleware(l.declareCapabilities, l.filterTools, l.taskMethods, l.cancelOnClose)
	if opts.Tracing != nil {
		// Added last, so outermost: refused requests have spans too.
		l.srv.AddReceivingMiddleware(l.traceRequests)
	}
	l.install(l.newGeneration(cfg), nil)
	return l
}

// serverOptions are the SDK's options for serving cfg: the capabilities
// of what it declares (resources, prompts and completions only when it
// has some; declareCapabilities keeps them true to the configuration served
// after a reload).
func (l *Live) serverOptions(cfg *engine.Config, logger *slog.Logger, opts Options) *mcp.ServerOptions {
	// The SDK's own capabilities say what it may send and what a listen
	// stream may ask for; declareCapabilities says, to each client, what it
	// will be sent.
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	declaredBy(cfg).apply(caps, opts.Watch, true)
	return &mcp.ServerOptions{
		Instructions: cfg.Server.Instructions,
		Logger:       sdkLogger(logger),
		PageSize:     cfg.Settings.PageSize,
		Capabilities: caps,
		// For clients that set no level (before 2026-07-28).
		DefaultLogLevel: mcp.LoggingLevel(cfg.Settings.LogLevel),
		// Always set, so that a reload may add the first prompt or
		// template; declareCapabilities says whether it is declared.
		CompletionHandler: l.complete,
		// Likewise: declareCapabilities says whether subscribe is declared.
		SubscribeHandler:   l.subs.subscribe,
		UnsubscribeHandler: l.subs.unsubscribe,
	}
}

// filterTools leaves out of tools/list the tools whose scopes the caller's
// token does not grant, and labels the list as cacheScope says. Calling
// them is refused by the tool itself.
func (l *Live) filterTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return res, err
		}
		g := l.generation()
		cfg := g.cfg
		list.CacheScope = g.scope
		caller := callerOf(req.GetExtra())
		ts, inToolset := l.toolsetOf(cfg, req.GetExtra())
		if !l.opts.Discovery && (caller.Authenticated || inToolset) {
			var listed map[string]*mcp.Tool // the toolset's own, if it lists otherwise
			if ts != nil {
				listed = g.listedBy[ts.Name]
			}
			kept := list.Tools[:0:0]
			for _, mt := range list.Tools {
				if t, ok := cfg.Tool(mt.Name); ok && caller.Grants(t.Scopes()) && (!inToolset || ts != nil && ts.Has(mt.Name)) {
					if own, ok := listed[mt.Name]; ok {
						mt = own
					}
					kept = append(kept, mt)
				}
			}
			list.Tools = kept
		}
		if r, ok := req.(*mcp.ListToolsRequest); ok {
			version := r.ProtocolVersion()
			for i, mt := range list.Tools {
				var inlined, output json.RawMessage
				if t, ok := cfg.Tool(mt.Name); ok && version != "" && version < "2025-11-25" {
					inlined, output = t.InlinedInputSchemaJSON(), t.UnsharedOutputSchemaJSON(mt.OutputSchema)
				}
				list.Tools[i] = toolForRevision(mt, version, inlined, output)
			}
		}
		return list, nil
	}
}

// toolsetOf returns the toolset a request is served by: the one of a
// stdio server started with one, or the one of the HTTP endpoint the
// request came to. in is false when the request may see every tool; ts
// is nil when its toolset is no longer declared (after a reload).
func (l *Live) toolsetOf(cfg *engine.Config, extra *mcp.RequestExtra) (ts *engine.Toolset, in bool) {
	name := l.toolsetName(extra)
	if name == "" {
		return nil, false
	}
	ts, _ = cfg.Toolset(name)
	return ts, true
}

// toolsetName is the name of the toolset a request is served by, "" for
// all the tools.
func (l *Live) toolsetName(extra *mcp.RequestExtra) string {
	if l.opts.Toolset != "" {
		return l.opts.Toolset
	}
	if extra != nil && extra.Header != nil {
		return extra.Header.Get(toolsetHeader)
	}
	return ""
}

// toolForRevision is mt as a client of the protocol revision version knows
// a tool: without the members its schema does not define (annotations came
// in 2025-03-26; title, outputSchema and _meta in 2025-06-18; icons in
// 2025-11-25), with inlined and output, when not nil, as its input and
// output schemas: the schemas without references to their own
// definitions, as revisions before 2025-11-25, which named no dialect, are
// read. mt is the server's own, never changed: a copy is returned when
// members are left out. An unknown version ("") gets every member.
func toolForRevision(mt *mcp.Tool, version string, inlined, output json.RawMessage) *mcp.Tool {
	if version == "" || version >= "2025-11-25" {
		return mt
	}
	t := *mt
	t.Icons = nil
	if inlined != nil {
		t.InputSchema = inlined
	}
	if output != nil {
		t.OutputSchema = output
	}
	if version < "2025-06-18" {
		t.Title, t.OutputSchema, t.Meta = "", nil, nil
	}
	if version < "2025-03-26" {
		t.Annotations = nil
	}
	return &t
}

// resultForRevision leaves out of a tools/call result what the client's
// revision does not define: structuredContent before 2025-06-18 (the text
// block carries the same JSON, unless the tool's text says otherwise), and
// blocks of a later revision (resource links before 2025-06-18, audio
// before 2025-03-26) become text that says what they were.
func resultForRevision(out *mcp.CallToolResult, version string) {
	if version == "" || version >= "2025-06-18" {
		return
	}
	out.StructuredContent = nil
	for i, c := range out.Content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			text := "Resource " + cmp.Or(c.Title, c.Name) + ": " + c.URI
			if c.MIMEType != "" {
				text += " (" + c.MIMEType + ")"
			}
			if c.Description != "" {
				text += "\n" + c.Description
			}
			out.Content[i] = &mcp.TextContent{Text: text, Annotations: c.Annotations}
		case *mcp.AudioContent:
			if version < "2025-03-26" {
				text := fmt.Sprintf("(%d bytes of %s audio, which protocol revision %s cannot carry)", len(c.Data), c.MIMEType, version)
				out.Content[i] = &mcp.TextContent{Text: text, Annotations: c.Annotations}
			}
		}
	}
}

// Server is the MCP server to run on a transport.
func (l *Live) Server() *mcp.Server { return l.srv }

// Swap serves cfg in place of the current configuration. The server's name,
// version and instructions are those it started with: clients learned them
// when they connected.
func (l *Live) Swap(cfg *engine.Config) {
	l.mu.Lock()
	old := l.current
	if cfg.Server != old.cfg.Server {
		l.logger.Warn("the server block changed; its name, version and instructions apply after a restart")
	}
	l.install(l.newGeneration(cfg), old)
	l.mu.Unlock()
	go l.retire(old)
	go l.subs.reloaded()
}

// install registers the tools of g, removing those of old that g lacks.
// The SDK debounces the list_changed notifications of these changes.
func (l *Live) install(g *generation, old *generation) {
	l.current = g
	l.installResources(g, old)
	if l.opts.Discovery {
		// Discovery mode serves its three tools whatever the catalog.
		if old == nil {
			l.installDiscovery()
		}
		return
	}
	if old != nil {
		var gone []string
		for _, t := range old.cfg.Tools {
			if _, ok := g.cfg.Tool(t.Name()); !ok {
				gone = append(gone, t.Name())
			}
		}
		l.srv.RemoveTools(gone...)
	}
	for _, t := range g.cfg.Tools {
		l.srv.AddTool(Tool(t), l.handler(g, t))
	}
}

// retire closes g once its calls in flight are done.
func (l *Live) retire(g *generation) {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	if err := errors.Join(g.cfg.Close(), g.audit.Close()); err != nil {
		l.logger.Warn("closing the previous configuration", "error", err)
	}
}

// Close cancels the requests still running, waits for their calls to
// end, and releases the current configuration.
func (l *Live) Close() error {
	l.stop() // the requests still running: Close waits for the calls to end
	l.subs.close()
	l.runs.stop() // the runs of tasks hold the generation
	l.mu.Lock()
	g := l.current
	l.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return errors.Join(g.cfg.Close(), g.audit.Close())
}

// handler runs t for each tools/call request. A call that reaches a
// generation already retired (it was looked up just before a swap) runs on
// the current one instead.
func (l *Live) handler(g *generation, t *engine.Tool) mcp.ToolHandler {
	name := t.Name()
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		g.mu.RLock()
		if g.closed {
			g.mu.RUnlock()
			l.mu.Lock()
			cur := l.current
			l.mu.Unlock()
			ct, ok := cur.cfg.Tool(name)
			if !ok {
				return Result(&engine.Result{IsError: true, Content: []engine.Content{{Type: engine.TextContent, Text: "the tool " + name + " was removed by a configuration reload"}}}), nil
			}
			return l.handler(cur, ct)(ctx, req)
		}
		defer g.mu.RUnlock()
		if ts, in := l.toolsetOf(g.cfg, req.GetExtra()); in && (ts == nil || !ts.Has(name)) {
			return Result(&engine.Result{IsError: true, Content: []engine.Content{{Type: engine.TextContent, Text: "the tool " + name + " is not in the toolset served here (" + l.toolsetName(req.GetExtra()) + ")"}}}), nil
		}
		if t.Task() != nil {
			if out, err, handled := l.taskCall(ctx, t, req); handled {
				return out, err
			}
		}
		return l.call(ctx, g, t, req)
	}
}

// call runs one call of t, on g, for req: what the handler of tools/call
// answers, and what a task keeps.
func (l *Live) call(ctx context.Context, g *generation, t *engine.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := t.Name()
	var args json.RawMessage
	if req.Params != nil {
		args = req.Params.Arguments
	}
	caller := callerOf(req.GetExtra())
	call := l.opts.Metrics.Started(name)
	ctx = engine.WithCaller(ctx, caller)
	if t.EmitsLogs() && req.Session != nil {
		ctx = engine.WithLog(ctx, logTo(ctx, req.Session, name))
	}
	if req.Session != nil && req.Params != nil {
		if token := req.Params.GetProgressToken(); token != nil {
			ctx = engine.WithProgress(ctx, progressTo(ctx, req.Session, token))
		}
	}
	if l.opts.Metrics != nil {
		ctx = engine.WithUpstreamObserver(ctx, l.opts.Metrics)
	}
	var asking *engine.Asking
	if t.Asks() {
		asking = askingOf(ctx, req, l.opts.stateless(req.Session))
		ctx = engine.WithAsking(ctx, asking)
	}
	start := time.Now()
	res := t.Call(ctx, args)
	d := time.Since(start)
	call.Done(res.Outcome(), d)
	if res.IsError {
		l.logger.Info("tool call failed", "tool", name, "client", caller.ID, "duration", d, "error", g.cfg.Redactor.Redact(res.Text()))
	} else if l.logger.Enabled(ctx, slog.LevelDebug) {
		l.logger.Debug("tool call", "tool", name, "client", caller.ID, "duration", d)
	}
	var out *mcp.CallToolResult
	if res.Round != nil {
		out = askResult(res)
	} else {
		out = Result(res)
		resultForRevision(out, req.ProtocolVersion())
	}
	if res.StateError != nil {
		return nil, stateError(res.StateError)
	}
	if asking != nil && asking.Undeclared && res.Confirmation == engine.ConfirmRefused {
		return nil, missingElicitation(name)
	}
	if asking != nil && asking.SamplingUndeclared && res.Confirmation == engine.SamplingRefused {
		return nil, missingSampling(name)
	}
	if asking != nil && asking.RootsUndeclared && res.Confirmation == engine.RootsRefused {
		return nil, missingRoots(name)
	}
	return out, nil
}

// logTo sends the log messages of a call of the tool name to the client of
// session, as notifications/message from the logger name: the SDK sends
// those at or above the level the client set (logging/setLevel, or the
// request's own level on 2026-07-28), none when it set none, and over
// streamable HTTP on the stream of the call's request.
func logTo(ctx context.Context, session *mcp.ServerSession, name string) engine.LogFunc {
	return func(level, text string) {
		_ = session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: name, Data: text})
	}
}

// progressTo sends the progress of a call to the client of session, as
// notifications/progress with the token of the call's request: over
// streamable HTTP on the stream of that request (see streams).
func progressTo(ctx context.Context, session *mcp.ServerSession, token any) engine.ProgressFunc {
	return func(progress, total float64, message string) {
		_ = session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: total, Message: message})
	}
}

// sdkLogger passes the SDK's own records at Warn and above, unless the
// logger is at Debug: its Info records (session connected, initialized, …)
// are noise in a server's logs.
func sdkLogger(logger *slog.Logger) *slog.Logger {
	if logger.Enabled(context.Background(), slog.LevelDebug) {
		return logger
	}
	return slog.New(minLevel{logger.Handler(), slog.LevelWarn})
}

// minLevel is a slog.Handler that drops records below a level.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(attrs), h.level}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.level}
}
