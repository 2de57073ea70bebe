package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
)

// sessionHeader names the session of a request to a stateful HTTP server.
const sessionHeader = "Mcp-Session-Id"

// httpSessions serves the clients that keep a session over streamable HTTP
// (the server block's http_sessions): a client of a revision before
// 2026-07-28 initializes one, then names it in the Mcp-Session-Id header
// of its requests, and its GET stream carries what the server sends on
// its own (elicitation, sampling and roots requests, resource updates,
// list changes). Sessions live in this process's memory: another replica
// answers 404 to a session it did not create, so a load balancer must
// route by Mcp-Session-Id. Their number is capped (max_http_sessions) and
// an idle one is closed (http_session_idle_timeout). Clients of 2026-07-28,
// and requests outside a session, are served statelessly as before.
type httpSessions struct {
	l       *Live
	handler http.Handler
	max     int
	limit   int64 // of a request body

	mu      sync.Mutex
	opening int // initialize requests being served, not yet counted
}

func (l *Live) newHTTPSessions(settings engine.Settings, maxBody int64) *httpSessions {
	return &httpSessions{
		l: l,
		handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return l.srv }, &mcp.StreamableHTTPOptions{
			Logger:              sdkLogger(l.logger),
			MaxRequestBodyBytes: maxBody,
			SessionTimeout:      settings.HTTPSessionIdleTimeout,
			// A client whose stream broke resumes it with Last-Event-ID
			// (2025-11-25), from the latest events of every session, at
			// most the store's 10 MiB in all.
			EventStore: mcp.NewMemoryEventStore(nil),
		}),
		max:   settings.MaxHTTPSessions,
		limit: maxBody,
	}
}

// serves serves r and reports true when r belongs to a session: it names
// one, or it is the initialize of a client of a revision before
// 2026-07-28. It reports false, having written nothing, for any other
// request, which the stateless handler serves.
func (s *httpSessions) serves(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get(sessionHeader) != "" {
		s.handler.ServeHTTP(w, r)
		return true
	}
	if r.Method != http.MethodPost {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && v >= listenVersion {
		return false
	}
	if version, ok := peekInitialize(r, s.limit); !ok || version >= listenVersion {
		return false
	}
	s.mu.Lock()
	if n := s.count() + s.opening; n >= s.max {
		s.mu.Unlock()
		s.l.logger.Warn("HTTP session refused: too many sessions", "sessions", n, "max_http_sessions", s.max, "remote", r.RemoteAddr)
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSessions))
		plain(w, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: this server already keeps %d sessions, the most its server block's max_http_sessions allows; try again later, or raise max_http_sessions.\n", s.max))
		return true
	}
	s.opening++
	s.mu.Unlock()
	// Once the answer is being written, the session (if the initialize
	// succeeded) is among the server's, and counted there.
	opened := &onFirstWrite{ResponseWriter: w, f: func() {
		s.mu.Lock()
		s.opening--
		s.mu.Unlock()
	}}
	defer opened.done()
	s.handler.ServeHTTP(opened, r)
	return true
}

// onFirstWrite calls f once, when the answer's header or body is first
// written, or at done.
type onFirstWrite struct {
	http.ResponseWriter
	once sync.Once
	f    func()
}

func (o *onFirstWrite) done() { o.once.Do(o.f) }

func (o *onFirstWrite) WriteHeader(code int) {
	o.done()
	o.ResponseWriter.WriteHeader(code)
}

func (o *onFirstWrite) Write(b []byte) (int, error) {
	o.done()
	return o.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (o *onFirstWrite) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// retryAfterSessions is the Retry-After, in seconds, of an initialize
// refused because the sessions are at their cap.
const retryAfterSessions = 5

// count is the number of sessions kept: those with an ID (a stateless
// request's and a stdio session have none).
func (s *httpSessions) count() int {
	n := 0
	for ss := range s.l.srv.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// peekInitialize reports whether r's body is an initialize request, and
// the protocol version it asks for, putting the body back for the SDK to
// read. A body larger than limit, or that is not one request, is not.
func peekInitialize(r *http.Request, limit int64) (version string, ok bool) {
	b := peekBody(r, limit)
	if b == nil {
		return "", false
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &req) != nil || req.Method != "initialize" {
		return "", false
	}
	return req.Params.ProtocolVersion, true
}

// closeAll ends every session kept: their streams end, and their clients
// must initialize again (with another replica, or this one restarted).
func (s *httpSessions) closeAll() {
	for ss := range s.l.srv.Sessions() {
		if ss.ID() != "" {
			_ = ss.Close()
		}
	}
}

// sessionFront is the HTTP front of a server that keeps sessions: the
// front, and the sessions [ServeHTTP] ends when it shuts down.
type sessionFront struct {
	http.Handler
	sessions *httpSessions
}
