package testrun

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// maxMockBody is the most of a request body a mock reads.
const maxMockBody = 1 << 20

// mockServer is a real local HTTP server that stands in for one http_api
// during one test: the test's base_url points at it, so that the adapter's
// whole path runs, and it records every request it is sent.
type mockServer struct {
	api    string
	routes []*Mock // the test's own first, then the file's
	own    int     // how many of routes are the test's own
	ln     net.Listener
	srv    *http.Server

	mu        sync.Mutex
	base      string // the path of the http_api's base_url, without a trailing slash
	requests  []map[string]any
	unmatched []string
	hits      []int // requests answered, per route
}

// startMock listens on a free local port and serves routes.
func startMock(api string, own, shared []*Mock) (*mockServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot start the mock of http_api %q: %w", api, err)
	}
	s := &mockServer{api: api, routes: append(slices.Clone(own), shared...), own: len(own), ln: ln}
	s.hits = make([]int, len(s.routes))
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server and whatever it was answering.
func (s *mockServer) Close() { _ = s.srv.Close() }

// rebase is the base_url that points the http_api at the mock: the same
// path and query, on the mock's address.
func (s *mockServer) rebase(v cty.Value) (cty.Value, error) {
	if v.Type() != cty.String || v.IsNull() {
		return v, nil // the adapter reports it
	}
	u, err := url.Parse(v.AsString())
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return v, nil // the adapter reports it
	}
	s.mu.Lock()
	s.base = strings.TrimSuffix(u.Path, "/")
	s.mu.Unlock()
	u.Scheme, u.Host, u.User = "http", s.ln.Addr().String(), nil
	return cty.StringVal(u.String()), nil
}

// ServeHTTP answers a request with the first mock that matches it.
func (s *mockServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxMockBody+1))
	if err != nil {
		http.Error(w, "mcpdecl test: cannot read the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(raw) > maxMockBody {
		http.Error(w, "mcpdecl test: a mock reads request bodies of at most 1 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	s.mu.Lock()
	path := r.URL.Path
	if rel, ok := strings.CutPrefix(path, s.base); ok && (rel == "" || rel[0] == '/') {
		path = rel
		if path == "" {
			path = "/"
		}
	}
	req := sentRequest{method: r.Method, path: path, query: r.URL.Query(), header: r.Header, body: raw}
	s.requests = append(s.requests, req.record(s.api, r.URL.RequestURI()))
	var route *Mock
	for i, m := range s.routes {
		if req.matches(&m.Request) {
			route = m
			s.hits[i]++
			break
		}
	}
	if route == nil {
		s.unmatched = append(s.unmatched, req.describe())
	}
	s.mu.Unlock()
	if route == nil {
		http.Error(w, fmt.Sprintf("mcpdecl test: no mock of http_api %q matches %s", s.api, req.describe()), http.StatusNotImplemented)
		return
	}
	route.used.Add(1)
	resp := &route.Response
	if resp.Delay > 0 {
		t := time.NewTimer(resp.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	for k, vs := range resp.Headers {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// sentRequest is one request a mock received.
type sentRequest struct {
	method, path string
	query        url.Values
	header       http.Header
	body         []byte
}

// matches reports whether the request is what m asks for.
func (r *sentRequest) matches(m *Match) bool {
	if m.Method != "" && !strings.EqualFold(m.Method, r.method) {
		return false
	}
	if m.Path != "" && m.Path != r.path {
		return false
	}
	for k, v := range m.Query {
		if !slices.Contains(r.query[k], v) {
			return false
		}
	}
	for k, v := range m.Headers {
		if !slices.Contains(r.header.Values(k), v) {
			return false
		}
	}
	switch want := m.Body.(type) {
	case nil:
	case string:
		if string(r.body) != want {
			return false
		}
	default:
		var got any
		if err := json.Unmarshal(r.body, &got); err != nil || !reflect.DeepEqual(got, want) {
			return false
		}
	}
	return true
}

// record is the request as assertions see it, in requests.
func (r *sentRequest) record(api, uri string) map[string]any {
	query := map[string]any{}
	for k, vs := range r.query {
		if len(vs) == 1 {
			query[k] = vs[0]
		} else {
			query[k] = toAny(vs)
		}
	}
	headers := map[string]any{}
	for k, vs := range r.header {
		headers[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	var body any = string(r.body)
	var decoded any
	if len(r.body) > 0 && json.Unmarshal(r.body, &decoded) == nil {
		body = decoded
	}
	return map[string]any{
		"api": api, "method": r.method, "path": r.path, "url": uri,
		"query": query, "headers": headers, "body": body,
	}
}

// describe is the request in one line, for a failure.
func (r *sentRequest) describe() string {
	s := r.method + " " + r.path
	if len(r.query) > 0 {
		s += "?" + r.query.Encode()
	}
	if len(r.body) > 0 {
		b := string(r.body)
		if len(b) > 200 {
			b = b[:200] + "…"
		}
		s += " with body " + b
	}
	return s
}

// describe is what a mock answers, in one line, for a failure.
func (m *Match) describe() string {
	method, path := m.Method, m.Path
	if method == "" {
		method = "any method"
	}
	if path == "" {
		path = "any path"
	}
	s := method + " " + path
	if len(m.Query) > 0 {
		q := url.Values{}
		for k, v := range m.Query {
			q.Set(k, v)
		}
		s += "?" + q.Encode()
	}
	switch b := m.Body.(type) {
	case nil:
	case string:
		s += " with body " + b
	default:
		s += " with body " + jsonenc.Text(b)
	}
	return s
}

// report is what the server saw: the requests, and its failures — the
// requests no mock matched, and the test's own mocks no request used.
func (s *mockServer) report() (requests []map[string]any, failures []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.unmatched {
		var declared []string
		for _, m := range s.routes {
			declared = append(declared, m.Request.describe()+" (at "+place(m.Range)+")")
		}
		failures = append(failures, fmt.Sprintf("The http_api %q was sent %s, which no mock matches; the mocks answer %s", s.api, u, strings.Join(declared, "; ")))
	}
	for i := range s.own {
		if s.hits[i] == 0 {
			m := s.routes[i]
			failures = append(failures, fmt.Sprintf("The mock of http_api %q at %s (%s) answered no request", s.api, place(m.Range), m.Request.describe()))
		}
	}
	return s.requests, failures
}

func toAny(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// place is where a range starts, as file:line:col.
func place(rng hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", rng.Filename, rng.Start.Line, rng.Start.Column)
}
