package openapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/schema"
)

// request is what the upstream received.
type request struct {
	method, uri, contentType, body string
	header                         http.Header
}

// upstream records requests and answers each path with a canned body.
type upstream struct {
	mu   sync.Mutex
	last request
	srv  *httptest.Server
}

func newUpstream(t *testing.T, answers map[string]string) *upstream {
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.last = request{r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), string(b), r.Header.Clone()}
		u.mu.Unlock()
		answer, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) request() request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.last
}

// loadImport imports a document against base, writes it and loads it as
// serve does, with env as the environment.
func loadImport(t *testing.T, spec, base string, env map[string]string) *engine.Config {
	t.Helper()
	res, err := importFile(t, spec, Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := writeFiles(t.TempDir(), res.Files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := loadFiles(paths, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	t.Cleanup(func() { _ = cfg.Close() })
	return cfg
}

// TestImportedToolsCall imports documents, loads what was written as
// serve would, calls each tool against a recording upstream and checks the
// request it sent (path, query styles, headers, bodies, credentials) and
// the structured result, validated against the output schema.
func TestImportedToolsCall(t *testing.T) {
	pet := `{"id": 7, "name": "Rex", "kind": "dog", "tag": null}`
	up := newUpstream(t, map[string]string{
		"GET /v1/pets":              `{"items": [` + pet + `], "next": null}`,
		"POST /v1/pets":             pet,
		"GET /v1/pets/7":            pet,
		"POST /v1/owners/ann/notes": `["walk", "feed"]`,
		"GET /api/orders":           `[{"id": 1, "item": "tea", "quantity": 2}]`,
		"POST /api/orders":          `{"id": 2, "item": "tea", "quantity": 1}`,
	})
	pets := loadImport(t, "petstore.yaml", up.srv.URL+"/v1", map[string]string{"PET_STORE_API_KEY": "k-123", "PET_STORE_X_TENANT": "acme"})
	orders := loadImport(t, "swagger.json", up.srv.URL+"/api", map[string]string{"LEGACY_ORDERS_USERNAME": "ann", "LEGACY_ORDERS_PASSWORD": "pw"})

	tests := []struct {
		cfg        *engine.Config
		tool, args string
		want       request // empty fields are not checked
		header     map[string]string
		structured string
	}{
		{
			cfg: pets, tool: "list_pets",
			args:   `{"tags": ["a", "b"], "status": ["available", "sold"], "filter": {"color": "red"}, "x_request_id": "0b6f8a2e-1f7c-4a55-9e3b-5d1c2a7b9f00"}`,
			want:   request{method: "GET", uri: "/v1/pets?filter%5Bcolor%5D=red&limit=20&status=available%2Csold&tags=a&tags=b"},
			header: map[string]string{"X-Request-Id": "0b6f8a2e-1f7c-4a55-9e3b-5d1c2a7b9f00", "X-Api-Key": "k-123", "X-Tenant": "acme"},
			// An optional field that is null is left out.
			structured: `{"items":[{"id":7,"kind":"dog","name":"Rex","tag":null}]}`,
		},
		{
			cfg: pets, tool: "create_pet", args: `{"name": "Rex"}`,
			want:       request{method: "POST", uri: "/v1/pets", contentType: "application/json", body: `{"name":"Rex"}`},
			structured: `{"id":7,"kind":"dog","name":"Rex"}`,
		},
		{
			cfg: pets, tool: "get_pet", args: `{"pet_id": 7}`,
			want:       request{method: "GET", uri: "/v1/pets/7"},
			structured: `{"id":7,"kind":"dog","name":"Rex"}`,
		},
		{
			cfg: pets, tool: "patch_pets_pet_id", args: `{"pet_id": 7, "name": "Max", "body_pet_id": "x"}`,
			want: request{method: "PATCH", uri: "/v1/pets/7", contentType: "application/x-www-form-urlencoded", body: "name=Max&petId=x"},
		},
		{
			cfg: pets, tool: "delete_pet", args: `{"pet_id": 7}`,
			want: request{method: "DELETE", uri: "/v1/pets/7"},
		},
		{
			cfg: pets, tool: "add_note", args: `{"owner_id": "ann", "body": "Walk at 6."}`,
			want:       request{method: "POST", uri: "/v1/owners/ann/notes", contentType: "text/plain", body: "Walk at 6."},
			structured: `{"result":["walk","feed"]}`,
		},
		{
			cfg: orders, tool: "find_orders", args: `{"ids": [1, 2], "states": ["new", "paid"], "q": "tea"}`,
			want:       request{method: "GET", uri: "/api/orders?ids=1%2C2&q=tea&states=new&states=paid"},
			header:     map[string]string{"Authorization": "Basic YW5uOnB3"},
			structured: `{"result":[{"id":1,"item":"tea","quantity":2}]}`,
		},
		{
			cfg: orders, tool: "place_order", args: `{"item": "tea"}`,
			want:       request{method: "POST", uri: "/api/orders", contentType: "application/json", body: `{"item":"tea","quantity":1}`},
			structured: `{"id":2,"item":"tea","quantity":1}`,
		},
		{
			cfg: orders, tool: "cancel_order", args: `{"id": "2", "reason": "late", "notify": true}`,
			want: request{method: "POST", uri: "/api/orders/2/cancel", body: "notify=true&reason=late"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tool, ok := tt.cfg.Tool(tt.tool)
			if !ok {
				t.Fatalf("no tool %q", tt.tool)
			}
			res := tool.Call(context.Background(), json.RawMessage(tt.args))
			if res.IsError {
				t.Fatalf("tool error: %s", res.Text())
			}
			got := up.request()
			if got.method != tt.want.method || got.uri != tt.want.uri {
				t.Errorf("request %s %s, want %s %s", got.method, got.uri, tt.want.method, tt.want.uri)
			}
			if tt.want.contentType != "" && !strings.HasPrefix(got.contentType, tt.want.contentType) {
				t.Errorf("content type %q, want %q", got.contentType, tt.want.contentType)
			}
			if tt.want.body != "" && got.body != tt.want.body {
				t.Errorf("body %s, want %s", got.body, tt.want.body)
			}
			for k, v := range tt.header {
				if got.header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, got.header.Get(k), v)
				}
			}
			if tt.structured != "" {
				b, _ := json.Marshal(res.Structured)
				if string(b) != tt.structured {
					t.Errorf("structured %s\nwant %s", b, tt.structured)
				}
				// What a client that checks results against the compact
				// listing does: it accepts the answer.
				compact, err := schema.Compile(tool.ListedOutputSchema(engine.OutputSchemasCompact))
				if err != nil {
					t.Fatal(err)
				}
				var v any
				_ = json.Unmarshal(b, &v)
				if vs := compact.Validate(v); len(vs) > 0 {
					t.Errorf("the compact outputSchema refuses the result %s: %v", b, vs)
				}
			}
		})
	}

	// A result that breaks the document's schema is a tool error, not a
	// silent wrong answer.
	bad := newUpstream(t, map[string]string{"GET /v1/pets/7": `{"id": "seven", "name": "Rex"}`})
	pets = loadImport(t, "petstore.yaml", bad.srv.URL+"/v1", map[string]string{"PET_STORE_API_KEY": "k", "PET_STORE_X_TENANT": "acme"})
	tool, _ := pets.Tool("get_pet")
	if res := tool.Call(context.Background(), json.RawMessage(`{"pet_id": 7}`)); !res.IsError || !strings.Contains(res.Text(), "/id") {
		t.Errorf("a wrong id type: %v %s", res.IsError, res.Text())
	}

	// OAuth2 client credentials: the token URL, relative in the document,
	// is resolved against the base URL; the token is fetched with the
	// scopes the operations need, then sent.
	notesUp := newUpstream(t, map[string]string{
		"POST /oauth/token": `{"access_token": "tok-9", "token_type": "bearer", "expires_in": 3600}`,
		"GET /v2/notes/n1":  `{"text": "hi", "tags": ["a"], "size": 2}`,
	})
	notes := loadImport(t, "openapi31.yaml", notesUp.srv.URL+"/v2", map[string]string{"NOTES_CLIENT_ID": "cli", "NOTES_CLIENT_SECRET": "sec-ret"})
	tool, _ = notes.Tool("get_note")
	if res := tool.Call(context.Background(), json.RawMessage(`{"id": "n1"}`)); res.IsError {
		t.Errorf("get_note: %s", res.Text())
	} else if got := notesUp.request(); got.uri != "/v2/notes/n1" || got.header.Get("Authorization") != "Bearer tok-9" {
		t.Errorf("get_note sent %s with Authorization %q", got.uri, got.header.Get("Authorization"))
	}

	// An optional body whose schema requires text: sent with the
	// document's media type when given, and then with its text; not at
	// all when left out.
	tool, _ = notes.Tool("add_note")
	if res := tool.Call(context.Background(), json.RawMessage(`{"body": {"pinned": true}}`)); !res.IsError || !strings.Contains(res.Text(), "text") {
		t.Errorf("add_note without its text: %v %s", res.IsError, res.Text())
	}
	if res := tool.Call(context.Background(), json.RawMessage(`{"body": {"text": "hi"}}`)); res.IsError {
		t.Errorf("add_note: %s", res.Text())
	} else if got := notesUp.request(); got.contentType != "application/vnd.notes+json" || got.body != `{"text":"hi"}` {
		t.Errorf("add_note sent %q as %q", got.body, got.contentType)
	}
	if res := tool.Call(context.Background(), json.RawMessage(`{}`)); res.IsError {
		t.Errorf("add_note without a body: %s", res.Text())
	} else if got := notesUp.request(); got.contentType != "" || got.body != "" {
		t.Errorf("add_note with nothing given sent %q as %q, want no body", got.body, got.contentType)
	}

	// Without the key, a call fails before anything is sent, naming it.
	pets = loadImport(t, "petstore.yaml", bad.srv.URL+"/v1", nil)
	tool, _ = pets.Tool("get_pet")
	res := tool.Call(context.Background(), json.RawMessage(`{"pet_id": 7}`))
	if !res.IsError || !strings.Contains(res.Text(), "set the environment variable PET_STORE_API_KEY") {
		t.Errorf("without a key: %v %s", res.IsError, res.Text())
	}
}

// TestFidelityEdgesCall calls the tools of fidelity-edges.yaml: a
// parameter named alike in the path and the query is sent to both places,
// the one the path requires required; a name a body requires and does not
// define is required and sent; a bound of 2^64 holds.
func TestFidelityEdgesCall(t *testing.T) {
	up := newUpstream(t, nil)
	cfg := loadImport(t, "fidelity-edges.yaml", up.srv.URL, nil)
	call := func(name, args string) (string, request) {
		t.Helper()
		tool, ok := cfg.Tool(name)
		if !ok {
			t.Fatalf("no tool %q", name)
		}
		res := tool.Call(context.Background(), json.RawMessage(args))
		if res.IsError {
			return res.Text(), request{}
		}
		return "", up.request()
	}
	tests := []struct {
		tool, args string
		want       request // method, uri and body (unless empty), when the call is sent
		refused    string  // what the error names, when it is not
	}{
		{tool: "get_connection_logs", args: `{"id_connection": 1, "query_id_connection": 2}`,
			want: request{method: "GET", uri: "/connections/1/logs?id_connection=2"}},
		{tool: "get_connection_logs", args: `{"id_connection": 1}`, want: request{method: "GET", uri: "/connections/1/logs"}},
		{tool: "get_connection_logs", args: `{"query_id_connection": 2}`, refused: "id_connection"},
		{tool: "create_employee", args: `{"body": {"name": "Ann", "canApprove": true}}`,
			want: request{method: "POST", uri: "/employees", body: `{"canApprove":true,"name":"Ann"}`}},
		{tool: "create_employee", args: `{"body": {"name": "Ann"}}`, refused: "canApprove"},
		{tool: "create_category_rule", args: `{"id": 3, "category_id": 3, "payee_matches": "Countdown"}`,
			want: request{method: "POST", uri: "/categories/3/rules", body: `{"category_id":3,"payee_matches":"Countdown"}`}},
		{tool: "create_category_rule", args: `{"id": 3, "payee_matches": "Countdown"}`, refused: "category_id"},
		{tool: "create_contact", args: `{"email": "a@example.com", "list_id": "7"}`,
			want: request{method: "POST", uri: "/contacts", body: "email=a%40example.com&list_id=7"}},
		{tool: "create_contact", args: `{"email": "a@example.com"}`, refused: "list_id"},
		// 2^64 itself, the bound (written as the float64 below it, it was
		// refused).
		{tool: "patch_config", args: `{"group_concat_max_len": 18446744073709551616}`,
			want: request{method: "PATCH", uri: "/config"}},
		{tool: "patch_config", args: `{"group_concat_max_len": 1e20}`, refused: "group_concat_max_len"},
	}
	for _, tt := range tests {
		refused, got := call(tt.tool, tt.args)
		switch {
		case tt.refused != "" && (refused == "" || !strings.Contains(refused, tt.refused)):
			t.Errorf("%s %s: refused %q, want a refusal naming %s", tt.tool, tt.args, refused, tt.refused)
		case tt.refused == "" && refused != "":
			t.Errorf("%s %s: refused: %s", tt.tool, tt.args, refused)
		case tt.refused == "" && (got.method != tt.want.method || got.uri != tt.want.uri || tt.want.body != "" && got.body != tt.want.body):
			t.Errorf("%s %s: sent %s %s %s, want %s %s %s", tt.tool, tt.args, got.method, got.uri, got.body, tt.want.method, tt.want.uri, tt.want.body)
		}
	}
}
