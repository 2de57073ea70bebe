package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
)

// MaxCompletions is the most values a completion answers, as MCP allows.
const MaxCompletions = 100

// Resource describes r as resources/list shows it.
func Resource(r *engine.Resource) *mcp.Resource {
	out := &mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Annotations: contentAnnotations(r.Annotations), Icons: icons(r.Icons)}
	if r.Tool == nil {
		out.Size = int64(len(r.Data))
	}
	return out
}

// ResourceTemplate describes t as resources/templates/list shows it.
func ResourceTemplate(t *engine.ResourceTemplate) *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType, Annotations: contentAnnotations(t.Annotations), Icons: icons(t.Icons)}
}

// Prompt describes p as prompts/list shows it.
func Prompt(p *engine.Prompt) *mcp.Prompt {
	out := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Args {
		out.Arguments = append(out.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	return out
}

// declared is what a configuration serves besides tools, as a server
// declares it in its capabilities: clients learn it in initialize (or, on
// 2026-07-28, server/discover), so a session that starts after a reload
// learns that of the configuration it is served. polled is true when a
// resource or template has a poll_interval: its subscribers may be told of
// changes even without reloads.
// progress is true when a tool's action reports its progress.
// tasks is true when a tool may run as a task (the tasks extension).
type declared struct{ resources, prompts, completions, logging, polled, progress, tasks bool }

// declaredBy is what cfg serves besides tools: resources and prompts when
// it has some, completions when it has prompt arguments or resource
// template variables to complete, logging when a tool may send log
// messages.
func declaredBy(cfg *engine.Config) declared {
	d := declared{
		resources:   len(cfg.Resources) > 0 || len(cfg.Templates) > 0,
		prompts:     len(cfg.Prompts) > 0,
		completions: len(cfg.Prompts) > 0 || len(cfg.Templates) > 0,
	}
	for _, t := range cfg.Tools {
		d.logging = d.logging || t.EmitsLogs()
		d.progress = d.progress || t.EmitsProgress()
		d.tasks = d.tasks || t.Task() != nil
	}
	for _, r := range cfg.Resources {
		d.polled = d.polled || r.PollInterval > 0
	}
	for _, t := range cfg.Templates {
		d.polled = d.polled || t.PollInterval > 0
	}
	return d
}

// changes reports whether what d serves may change while the server runs,
// so that a subscriber may be told of updates: with reloads (watch), or
// with resources read again every poll_interval.
func (d declared) changes(watch bool) bool { return d.resources && (watch || d.polled) }

// apply sets in caps the capabilities of d, and removes those d lacks
// (the SDK adds prompts and resources itself, with listChanged, when it
// holds some), for a client that is sent notifications (deliver) or not:
// listChanged when the configuration is watched, resources subscribe
// when the resources may change.
func (d declared) apply(caps *mcp.ServerCapabilities, watch, deliver bool) {
	listChanged := watch && deliver
	if caps.Tools != nil {
		caps.Tools.ListChanged = listChanged
	}
	caps.Resources, caps.Prompts, caps.Completions, caps.Logging = nil, nil, nil, nil
	if d.logging {
		caps.Logging = &mcp.LoggingCapabilities{}
	}
	if d.resources {
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: listChanged, Subscribe: deliver && d.changes(watch)}
	}
	if d.prompts {
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: listChanged}
	}
	if d.completions {
		caps.Completions = &mcp.CompletionCapabilities{}
	}
	if _, has := caps.Extensions[tasksExtension]; has != d.tasks {
		caps.Extensions = maps.Clone(caps.Extensions)
		if d.tasks {
			if caps.Extensions == nil {
				caps.Extensions = map[string]any{}
			}
			caps.Extensions[tasksExtension] = map[string]any{}
		} else {
			delete(caps.Extensions, tasksExtension)
		}
	}
}

// declareCapabilities is the receiving middleware that keeps what the server
// declares true to the configuration it serves now and to what the
// client can be sent: it sets the capabilities of initialize and
// server/discover results from the current generation, and answers the
// methods of a capability it does not declare as unknown methods, as MCP
// requires (the SDK would answer prompts/list with an empty list).
func (l *Live) declareCapabilities(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		// The generation is looked up only for the methods it decides:
		// never on the way of a tools/call.
		declared := func() declared { return l.generation().declared }
		var what string
		switch method {
		case "initialize", "server/discover":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			var caps *mcp.ServerCapabilities
			var version string
			switch r := res.(type) {
			case *mcp.InitializeResult:
				caps, version = r.Capabilities, r.ProtocolVersion
			case *mcp.DiscoverResult:
				caps, version = r.Capabilities, listenVersion
			}
			if caps != nil {
				declared().apply(caps, l.opts.Watch, l.opts.delivers(req.GetSession(), version))
			}
			return res, nil
		case "prompts/list", "prompts/get":
			if !declared().prompts {
				what = "prompts"
			}
		case "resources/subscribe", "resources/unsubscribe":
			switch d := declared(); {
			case !d.resources:
				what = "resources"
			case l.opts.stateless(req.GetSession()):
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + ": a subscription needs a session to be told of updates on, and this HTTP server keeps none (its server block turns them on with http_sessions = true); clients of 2026-07-28 subscribe on a subscriptions/listen stream, others over stdio"}
			case !d.changes(l.opts.Watch):
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + ": these resources never change while the server runs (none has a poll_interval, and the configuration is not watched), so this server declares no subscriptions"}
			}
		case "resources/list", "resources/read", "resources/templates/list":
			if !declared().resources {
				what = "resources"
			}
		case "completion/complete":
			if !declared().completions {
				what = "completions"
			}
		}
		if what != "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("%s: this server declares no %s", method, what)}
		}
		return next(ctx, method, req)
	}
}

// installResources registers the resources, templates and prompts of g,
// removing those of old that g lacks.
func (l *Live) installResources(g *generation, old *generation) {
	if old != nil {
		var uris, templates, prompts []string
		for _, r := range old.cfg.Resources {
			if !hasResource(g.cfg, r.URI) {
				uris = append(uris, r.URI)
			}
		}
		for _, t := range old.cfg.Templates {
			if nt, ok := g.cfg.Template(t.Name); !ok || nt.URITemplate != t.URITemplate {
				templates = append(templates, t.URITemplate)
			}
		}
		for _, p := range old.cfg.Prompts {
			if _, ok := g.cfg.Prompt(p.Name); !ok {
				prompts = append(prompts, p.Name)
			}
		}
		l.srv.RemoveResources(uris...)
		l.srv.RemoveResourceTemplates(templates...)
		l.srv.RemovePrompts(prompts...)
	}
	for _, r := range g.cfg.Resources {
		l.srv.AddResource(Resource(r), l.readResource)
	}
	for _, t := range g.cfg.Templates {
		l.srv.AddResourceTemplate(ResourceTemplate(t), l.readResource)
	}
	for _, p := range g.cfg.Prompts {
		l.srv.AddPrompt(Prompt(p), l.getPrompt)
	}
}

func hasResource(cfg *engine.Config, uri string) bool {
	for _, r := range cfg.Resources {
		if r.URI == uri {
			return true
		}
	}
	return false
}

// acquire returns the generation being served, held for reading until
// release is called: a reload waits for it before closing it.
func (l *Live) acquire() (g *generation, release func()) {
	for {
		g = l.generation()
		g.mu.RLock()
		if !g.closed {
			return g, g.mu.RUnlock
		}
		g.mu.RUnlock() // swapped just now: take the new one
	}
}

// readResource answers resources/read, for a resource or a template of
// the configuration being served.
func (l *Live) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	g, release := l.acquire()
	defer release()
	ctx = engine.WithCaller(ctx, callerOf(req.GetExtra()))
	start := time.Now()
	contents, found, err := l.read(ctx, g, uri)
	if !found {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var bad *engine.ArgumentError
	if errors.As(err, &bad) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: g.cfg.Redactor.Redact(fmt.Sprintf("%s: %s", uri, bad.Message))}
	}
	if err != nil {
		// The URI is redacted too: its variables are arguments, which may
		// carry a secret back.
		shown, msg := g.cfg.Redactor.Redact(uri), g.cfg.Redactor.Redact(err.Error())
		l.logger.Info("resource read failed", "uri", shown, "duration", time.Since(start), "error", msg)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s failed: %s", shown, msg)}
	}
	if l.logger.Enabled(ctx, slog.LevelDebug) {
		l.logger.Debug("resource read", "uri", uri, "duration", time.Since(start))
	}
	return ReadResult(contents), nil
}

// read reads the contents at uri from g's resources and templates; found
// is false when none of them serves it.
func (l *Live) read(ctx context.Context, g *generation, uri string) (contents []engine.ResourceContents, found bool, err error) {
	switch r, t := g.cfg.ResourceAt(uri); {
	case r != nil:
		contents, err = r.Read(ctx)
	case t != nil:
		contents, err = t.Read(ctx, uri)
	default:
		return nil, false, nil
	}
	return contents, true, err
}

// ReadResult is the resources/read result of contents.
func ReadResult(contents []engine.ResourceContents) *mcp.ReadResourceResult {
	out := &mcp.ReadResourceResult{}
	for _, c := range contents {
		rc := &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType}
		if c.IsBlob {
			rc.Blob = c.Blob
		} else {
			rc.Text = c.Text
		}
		out.Contents = append(out.Contents, rc)
	}
	return out
}

// PromptResult is the prompts/get result of p's messages.
func PromptResult(p *engine.Prompt, msgs []engine.Message) *mcp.GetPromptResult {
	out := &mcp.GetPromptResult{Description: p.Description}
	for _, m := range msgs {
		out.Messages = append(out.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: content(m.Content)})
	}
	return out
}

// getPrompt answers prompts/get.
func (l *Live) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	g, release := l.acquire()
	defer release()
	p, ok := g.cfg.Prompt(req.Params.Name)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", req.Params.Name)}
	}
	ctx = engine.WithCaller(ctx, callerOf(req.GetExtra()))
	var a *engine.Asking
	if p.Asks() {
		a = promptAskingOf(req, l.opts.stateless(req.Session))
		if !a.Able && a.Undeclared && !p.Confirm.RunWithout {
			return nil, missingElicitationOf("the prompt " + p.Name + " asks the person before it gives its messages")
		}
		ctx = engine.WithAsking(ctx, a)
	}
	msgs, round, err := p.Answer(ctx, req.Params.Arguments)
	switch {
	case err != nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: g.cfg.Redactor.Redact(err.Error())}
	case round != nil:
		return &mcp.GetPromptResult{InputRequests: inputRequests(round), RequestState: round.State}, nil
	}
	return PromptResult(p, msgs), nil
}

// complete answers completion/complete, from an argument's complete
// block or the values its enum declares.
func (l *Live) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	g, release := l.acquire()
	defer release()
	ctx = engine.WithCaller(ctx, callerOf(req.GetExtra()))
	ref, arg := req.Params.Ref, req.Params.Argument
	var values []string
	var more bool
	var err error
	switch {
	case ref == nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete needs a ref"}
	case ref.Type == "ref/prompt":
		p, ok := g.cfg.Prompt(ref.Name)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", ref.Name)}
		}
		values, more, err = p.Complete(ctx, arg.Name, arg.Value, MaxCompletions)
	case ref.Type == "ref/resource":
		var t *engine.ResourceTemplate
		for _, c := range g.cfg.Templates {
			if c.URITemplate == ref.URI {
				t = c
			}
		}
		if t == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no resource template %q", ref.URI)}
		}
		values, more, err = t.Complete(ctx, arg.Name, arg.Value, MaxCompletions)
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown ref type %q", ref.Type)}
	}
	if err != nil {
		msg := g.cfg.Redactor.Redact(err.Error())
		l.logger.Info("completion failed", "argument", arg.Name, "error", msg)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("completing %s failed: %s", arg.Name, msg)}
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, HasMore: more}}, nil
}
