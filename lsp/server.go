package lsp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Options are what the server needs besides its connection.
type Options struct {
	// Registry holds the adapters whose blocks configurations may use, as
	// for serve and validate.
	Registry *engine.Registry
	// LookupEnv reads the environment for env() and MCPDECL_VAR_<name>, as
	// validate does; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Debounce is how long diagnostics wait for the typing to pause; 0
	// means DefaultDebounce.
	Debounce time.Duration
	// Logger receives what goes wrong with the connection; nil discards it.
	// It must not write to the connection's stream.
	Logger *slog.Logger
	// Version is the server's version, told to the client.
	Version string
}

// DefaultDebounce is how long diagnostics wait, after an edit, for the
// next one.
const DefaultDebounce = 150 * time.Millisecond

// Serve speaks the Language Server Protocol on rwc until the client exits,
// the stream ends or ctx is done.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := newServer(opts)
	h := s.handler()
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(rwc, codec{log: opts.Logger}),
		jsonrpc2.HandlerWithError(func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			return s.handle(ctx, conn, req, h)
		}), jsonrpc2.SetLogger(slogPrinter{opts.Logger}))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	defer s.stop()
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		_ = conn.Close()
	}
	return nil
}

// server is the state of one connection: the open documents, and the
// diagnostics runs waiting for the typing to pause.
type server struct {
	opts Options
	conn *jsonrpc2.Conn

	run sync.Mutex // one diagnostics run at a time

	mu     sync.Mutex
	docs   map[string]*document       // open documents by absolute path
	timers map[string]*time.Timer     // pending diagnostics, by configuration directory
	shown  map[string]map[string]bool // files given diagnostics, by directory
	disk   map[string]*diskFile       // parsed files not open, by path
	latest map[string]*parsedFile     // the last parse of each open file, by path
	// snippets is set when the client takes snippets in completion items.
	snippets bool
	sites    map[string]*siteSet // the programs the last load of each open file compiled
	// schemas are the input schemas of the tools of each open file, by
	// tool name, from the last load without errors.
	schemas map[string]map[string]map[string]any
	closed  bool
}

func newServer(opts Options) *server {
	return &server{
		opts:   opts,
		docs:   map[string]*document{},
		timers: map[string]*time.Timer{},
		shown:  map[string]map[string]bool{},
		disk:   map[string]*diskFile{},
		latest: map[string]*parsedFile{},
		sites:  map[string]*siteSet{},

		schemas: map[string]map[string]map[string]any{},
	}
}

// stop cancels the diagnostics runs still waiting.
func (s *server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, t := range s.timers {
		t.Stop()
	}
}

// handle answers one message; a panic becomes an internal error, never a
// crash of the server.
func (s *server) handle(_ context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request, h *protocol.Handler) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.opts.Logger.Error("lsp: a request failed", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("mcpdecl lsp: %s failed: %v", req.Method, p)}
		}
	}()
	if req.Method == protocol.MethodExit {
		return nil, conn.Close()
	}
	ctx := &glsp.Context{Method: req.Method}
	if req.Params != nil {
		ctx.Params = *req.Params
	}
	r, validMethod, validParams, err := h.Handle(ctx)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: fmt.Sprintf("mcpdecl lsp does not support the method %q", req.Method)}
	case !validParams:
		msg := fmt.Sprintf("the parameters of %s are not valid", req.Method)
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

// handler routes the methods the server answers.
func (s *server) handler() *protocol.Handler {
	h := &protocol.Handler{
		Shutdown:                   func(*glsp.Context) error { return nil },
		Initialized:                func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		SetTrace:                   func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		CancelRequest:              func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidOpen:        s.didOpen,
		TextDocumentDidChange:      s.didChange,
		TextDocumentDidClose:       s.didClose,
		TextDocumentDidSave:        s.didSave,
		TextDocumentCompletion:     s.completion,
		TextDocumentHover:          s.hover,
		TextDocumentDefinition:     s.definition,
		TextDocumentReferences:     s.references,
		TextDocumentDocumentSymbol: s.symbols,
		TextDocumentFormatting:     s.formatting,
		TextDocumentCodeAction:     s.codeActions,
	}
	h.Initialize = func(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
		if c := p.Capabilities.TextDocument; c != nil && c.Completion != nil && c.Completion.CompletionItem != nil && c.Completion.CompletionItem.SnippetSupport != nil {
			s.mu.Lock()
			s.snippets = *c.Completion.CompletionItem.SnippetSupport
			s.mu.Unlock()
		}
		caps := h.CreateServerCapabilities()
		caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{".", "\""}}
		caps.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}}
		version := s.opts.Version
		return protocol.InitializeResult{
			Capabilities: caps,
			ServerInfo:   &protocol.InitializeResultServerInfo{Name: "mcpdecl", Version: &version},
		}, nil
	}
	return h
}

// document is an open document: its text as the editor has it.
type document struct {
	uri     protocol.DocumentUri
	path    string
	version int32
	text    string

	parsed *parsedFile // the text parsed, for this version; nil until parsed
}

// diskFile is a configuration file that is not open, parsed.
type diskFile struct {
	mod    time.Time
	size   int64
	parsed *parsedFile
}

// uriPath is the absolute path of a file: URI, or "" for another scheme.
func uriPath(uri protocol.DocumentUri) string {
	u, err := url.Parse(string(uri))
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

// pathURI is the file: URI of an absolute path.
func pathURI(path string) protocol.DocumentUri {
	return protocol.DocumentUri((&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String())
}

// isConfig reports whether path is a file the server reads: an .hcl file,
// configuration or test.
func isConfig(path string) bool {
	return strings.HasSuffix(path, ".hcl")
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	path := uriPath(p.TextDocument.URI)
	if path == "" || !isConfig(path) {
		return nil
	}
	s.mu.Lock()
	s.docs[path] = &document{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: p.TextDocument.Text}
	s.mu.Unlock()
	s.schedule(filepath.Dir(path))
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	path := uriPath(p.TextDocument.URI)
	s.mu.Lock()
	d, ok := s.docs[path]
	if !ok {
		s.mu.Unlock()
		return nil
	}
	text := d.text
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			text = c.Text
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				text = c.Text
				continue
			}
			start, end := offset(text, c.Range.Start), offset(text, c.Range.End)
			if end < start {
				start, end = end, start
			}
			text = text[:start] + c.Text + text[end:]
		}
	}
	// A new document: the parse of the old one is not reused.
	s.docs[path] = &document{uri: d.uri, path: path, version: p.TextDocument.Version, text: text}
	s.mu.Unlock()
	s.schedule(filepath.Dir(path))
	return nil
}

// didSave reloads the configuration: files it reads (file(), other
// configuration files) may have changed with the save.
func (s *server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	if path := uriPath(p.TextDocument.URI); path != "" && isConfig(path) {
		s.schedule(filepath.Dir(path))
	}
	return nil
}

func (s *server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	path := uriPath(p.TextDocument.URI)
	s.mu.Lock()
	_, ok := s.docs[path]
	delete(s.docs, path)
	delete(s.latest, path)
	delete(s.sites, path)
	delete(s.schemas, path)
	s.mu.Unlock()
	if ok {
		// The file on disk takes the buffer's place.
		s.schedule(filepath.Dir(path))
	}
	return nil
}

// doc returns the open document at uri, or an error that says it is not.
func (s *server) doc(uri protocol.DocumentUri) (*document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uriPath(uri)]
	if !ok {
		return nil, fmt.Errorf("%s is not open: mcpdecl lsp answers for the .hcl files the editor has opened", uri)
	}
	return d, nil
}

// slogPrinter sends the connection's messages to a logger.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Printf(format string, v ...any) {
	p.log.Warn("lsp: " + strings.TrimSpace(fmt.Sprintf(format, v...)))
}
