package graphqlaction_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	graphql "github.com/graph-gophers/graphql-go"
	"github.com/graph-gophers/graphql-go/relay"
	"github.com/hashicorp/hcl/v2"

	graphqlaction "github.com/mcpdecl/mcpdecl/adapters/graphql"
	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// The schema of the test server: graph-gophers/graphql-go executes it.
const countriesSDL = `
schema { query: Query mutation: Mutation }
"A continent."
enum Continent { AFRICA EUROPE ASIA }
type Country {
  code: ID!
  name: String!
  capital: String
  continent: Continent!
  population: Int!
}
input CountryInput { code: ID!, name: String!, continent: Continent! }
type Query {
  country(code: ID!): Country
  countries(continent: Continent): [Country!]!
  secret: String
}
type Mutation {
  addCountry(input: CountryInput!): Country!
}
`

type country struct {
	code, name, continent string
	capital               *string
	population            int32
}

func (c *country) Code() graphql.ID  { return graphql.ID(c.code) }
func (c *country) Name() string      { return c.name }
func (c *country) Capital() *string  { return c.capital }
func (c *country) Continent() string { return c.continent }
func (c *country) Population() int32 { return c.population }

type resolver struct{ added atomic.Int32 }

func str(s string) *string { return &s }

var countries = []*country{
	{"FR", "France", "EUROPE", str("Paris"), 68},
	{"KE", "Kenya", "AFRICA", str("Nairobi"), 55},
	{"AQ", "Antarctica", "AFRICA", nil, 0},
}

func (*resolver) Country(args struct{ Code graphql.ID }) *country {
	for _, c := range countries {
		if c.code == string(args.Code) {
			return c
		}
	}
	return nil
}

func (*resolver) Countries(args struct{ Continent *string }) []*country {
	var out []*country
	for _, c := range countries {
		if args.Continent == nil || c.continent == *args.Continent {
			out = append(out, c)
		}
	}
	return out
}

func (*resolver) Secret() (*string, error) { return nil, errors.New("you may not read the secret") }

func (r *resolver) AddCountry(args struct {
	Input struct {
		Code      graphql.ID
		Name      string
		Continent string
	}
}) *country {
	r.added.Add(1)
	return &country{code: string(args.Input.Code), name: args.Input.Name, continent: args.Input.Continent}
}

// server starts the GraphQL server at /graphql, and writes its schema as
// SDL and as an introspection result in dir.
func server(t *testing.T, dir string) (*httptest.Server, *resolver) {
	t.Helper()
	r := &resolver{}
	schema := graphql.MustParseSchema(countriesSDL, r, graphql.UseFieldResolvers())
	mux := http.NewServeMux()
	mux.Handle("/graphql", &relay.Handler{Schema: schema})
	mux.HandleFunc("/html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body>Bad gateway</body></html>"))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"hello": "world"}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	introspection, err := schema.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "countries.graphql", countriesSDL)
	write(t, dir, "countries.json", string(introspection))
	return srv, r
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func registry() *engine.Registry { return engine.NewRegistry(httpaction.New(), graphqlaction.New()) }

func load(t *testing.T, dir, src string) (*engine.Config, hcl.Diagnostics) {
	t.Helper()
	cfg, _, diags := enginetest.Load(t, registry(), src, enginetest.Options{Dir: dir, LookupEnv: enginetest.MapEnv(nil)})
	return cfg, diags
}

func mustLoad(t *testing.T, dir, src string) *engine.Config {
	t.Helper()
	cfg, diags := load(t, dir, src)
	if diags.HasErrors() {
		t.Fatal(enginetest.Describe(diags))
	}
	return cfg
}

func api(url string) string {
	return `http_api "countries" {
  base_url = "` + url + `"
}
`
}

func call(t *testing.T, cfg *engine.Config, tool, args string) *engine.Result {
	t.Helper()
	return enginetest.Call(context.Background(), t, cfg, tool, args)
}

func TestQuery(t *testing.T) {
	for _, schema := range []string{"countries.graphql", "countries.json"} {
		t.Run(schema, func(t *testing.T) {
			dir := t.TempDir()
			srv, _ := server(t, dir)
			cfg := mustLoad(t, dir, api(srv.URL)+`
tool "country" {
  description = "A country by its code."
  arg "code" { type = string }
  graphql {
    api    = http_api.countries
    path   = "/graphql"
    schema = "`+schema+`"
    query  = <<-GQL
      query Country($code: ID!) {
        country(code: $code) { name capital continent population }
      }
    GQL
    variables = { code = expr("args.code") }
  }
  output "name" {
    type  = string
    value = expr("data.country.name")
  }
  output "capital" {
    type     = string
    optional = true
    value    = expr("data.country.capital")
  }
  output "people" {
    type  = integer
    value = expr("data.country.population * 1000000")
  }
}
`)
			res := call(t, cfg, "country", `{"code": "KE"}`)
			if res.IsError {
				t.Fatal(res.Text())
			}
			if got, want := enginetest.Structured(t, res), `{"capital":"Nairobi","name":"Kenya","people":55000000}`; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
			tool, _ := cfg.Tool("country")
			if a := tool.Annotations(); a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
				t.Errorf("a query is read-only: annotations %+v", a)
			}
		})
	}
}

func TestMutation(t *testing.T) {
	dir := t.TempDir()
	srv, r := server(t, dir)
	cfg := mustLoad(t, dir, api(srv.URL+"/graphql")+`
tool "add" {
  description = "Adds a country."
  arg "code" { type = string }
  arg "name" { type = string }
  graphql {
    api    = http_api.countries
    schema = "countries.graphql"
    query  = "mutation Add($in: CountryInput!) { addCountry(input: $in) { code } }"
    variables = { in = { code = expr("args.code"), name = expr("args.name"), continent = "ASIA" } }
  }
  output "code" { value = expr("data.addCountry.code") }
}
`)
	res := call(t, cfg, "add", `{"code": "JP", "name": "Japan"}`)
	if res.IsError || enginetest.Structured(t, res) != `{"code":"JP"}` || r.added.Load() != 1 {
		t.Fatalf("%s (added %d)", res.Text(), r.added.Load())
	}
	tool, _ := cfg.Tool("add")
	if a := tool.Annotations(); a == nil || a.ReadOnlyHint == nil || *a.ReadOnlyHint {
		t.Errorf("a mutation is not read-only: annotations %+v", a)
	}
}

func TestFailures(t *testing.T) {
	dir := t.TempDir()
	srv, _ := server(t, dir)
	cfg := mustLoad(t, dir, api(srv.URL)+`
tool "secret" {
  description = "A field whose resolver fails."
  graphql {
    api   = http_api.countries
    path  = "/graphql"
    query = "{ secret country(code: \"FR\") { name } }"
  }
}
tool "partial" {
  description = "The same, keeping what data there is."
  graphql {
    api   = http_api.countries
    path  = "/graphql"
    query = "{ secret country(code: \"FR\") { name } }"
  }
  error_if = expr("data == nil")
  output "name" { value = expr("data.country.name") }
  output "errors" { value = expr("len(errors)") }
}
tool "invalid" {
  description = "A query the server refuses (no schema here to check it at load)."
  graphql {
    api   = http_api.countries
    path  = "/graphql"
    query = "{ nope }"
  }
}
tool "html" {
  description = "A server that answers HTML."
  graphql {
    api   = http_api.countries
    path  = "/html"
    query = "{ secret }"
  }
}
tool "plain" {
  description = "A server that answers JSON that is not GraphQL."
  graphql {
    api   = http_api.countries
    path  = "/plain"
    query = "{ secret }"
  }
}
`)
	for _, tt := range []struct{ tool, want string }{
		{"secret", "the GraphQL server answered with errors: you may not read the secret (at secret)"},
		{"invalid", `Cannot query field "nope" on type "Query"`},
		{"html", "502"},
		{"plain", "is not a GraphQL response: it has neither data nor errors"},
	} {
		res := call(t, cfg, tt.tool, `{}`)
		if !res.IsError || !strings.Contains(res.Text(), tt.want) {
			t.Errorf("%s: got %v %q, want an error with %q", tt.tool, res.IsError, res.Text(), tt.want)
		}
	}
	res := call(t, cfg, "partial", `{}`)
	if res.IsError || enginetest.Structured(t, res) != `{"errors":1,"name":"France"}` {
		t.Errorf("partial: %v %s", res.IsError, res.Text())
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	srv, _ := server(t, dir)
	write(t, dir, "bad.graphql", "query {\n  country(code: \"FR\") {\n    nmae\n  }\n}\n")
	for _, tt := range []struct{ name, block, want string }{
		{"unknown field in a heredoc", `
    query = <<-GQL
      query {
        country(code: "FR") { nmae }
      }
    GQL`, `12:31-12:35: Invalid GraphQL query: Cannot query field "nmae" on type "Country". Did you mean "name"?`},
		{"unknown field in a quoted string", `
    query = "{ country(code: \"FR\") { nmae } }"`, `10:40-10:44: Invalid GraphQL query: Cannot query field "nmae"`},
		{"unknown field in a file", `
    query = file("bad.graphql")`, `3:5-3:9: Invalid GraphQL query: Cannot query field "nmae"`},
		{"syntax error", `
    query = "{ country(code: \"FR\") { name }"`, `Invalid GraphQL query: Expected Name, found <EOF>`},
		{"undeclared variable", `
    query = "{ country(code: $code) { name } }"`, `Variable "$code" is not defined`},
		{"unknown variable given", `
    query = "query Q($code: ID!) { country(code: $code) { name } }"
    variables = { code = "FR", cdoe = "x" }`, `11:32-11:36: Unknown GraphQL variable: The operation declares no $cdoe; it declares $code.`},
		{"required variable missing", `
    query = "query Q($code: ID!) { country(code: $code) { name } }"`, `Missing GraphQL variable: The operation requires $code (ID!)`},
		{"several operations", `
    query = "query A { secret } query B { secret }"`, `Several GraphQL operations: The query holds 2 operations (A, B)`},
		{"unknown operation", `
    query = "query A { secret } query B { secret }"
    operation = "C"`, `Unknown GraphQL operation: The query has no operation named "C"; it has A, B.`},
		{"a subscription", `
    query = "subscription { secret }"`, `Invalid GraphQL query`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := load(t, dir, api(srv.URL)+`
tool "t" {
  description = "d"
  graphql {
    api    = http_api.countries
    schema = "countries.graphql"`+tt.block+`
  }
}
`)
			if got := enginetest.Describe(diags); !strings.Contains(got, tt.want) || strings.Contains(got, "?.") {
				t.Errorf("got:\n%s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestOutputsTypedFromTheSelection(t *testing.T) {
	dir := t.TempDir()
	srv, _ := server(t, dir)
	_, diags := load(t, dir, api(srv.URL)+`
tool "t" {
  description = "d"
  graphql {
    api    = http_api.countries
    schema = "countries.graphql"
    query  = "{ country(code: \"FR\") { name } }"
  }
  output "capital" { value = expr("data.country.capital") }
}
`)
	if got := enginetest.Describe(diags); !strings.Contains(got, "Invalid expr program") || !strings.Contains(got, "capital") {
		t.Errorf("reading a field the query does not select should be a load error; got:\n%s", got)
	}
}

func TestSchemaErrors(t *testing.T) {
	dir := t.TempDir()
	srv, _ := server(t, dir)
	write(t, dir, "broken.graphql", "type Query {\n  a: Nope\n}\n")
	write(t, dir, "other.json", `{"hello": 1}`)
	for _, tt := range []struct{ schema, want string }{
		{"missing.graphql", "Cannot read the GraphQL schema"},
		{"broken.graphql", "Invalid GraphQL schema"},
		{"other.json", `is JSON without "__schema"`},
	} {
		_, diags := load(t, dir, api(srv.URL)+`
tool "t" {
  description = "d"
  graphql {
    api    = http_api.countries
    schema = "`+tt.schema+`"
    query  = "{ a }"
  }
}
`)
		if got := enginetest.Describe(diags); !strings.Contains(got, tt.want) {
			t.Errorf("%s: got:\n%s\nwant: %s", tt.schema, got, tt.want)
		}
	}
}

// TestHugeResponse: a GraphQL server answering 50 MB is cut at the
// http_api's max_response_bytes like any body: a tool error that says so,
// without the body read into memory, and the server's sending stopped.
func TestHugeResponse(t *testing.T) {
	const size = 50 << 20
	var written atomic.Int64
	done := make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat("x", 64<<10))
		n, _ := w.Write([]byte(`{"data":{"secret":"`))
		written.Add(int64(n))
		for written.Load() < size {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
		n, _ = w.Write([]byte(`"}}`))
		written.Add(int64(n))
	}))
	defer up.Close()
	dir := t.TempDir()
	cfg := mustLoad(t, dir, `
http_api "big" {
  base_url           = "`+up.URL+`"
  max_response_bytes = 1048576
}
tool "huge" {
  description = "A server that answers 50 MB."
  graphql {
    api   = http_api.big
    query = "{ secret }"
  }
}
`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := call(t, cfg, "huge", `{}`)
	runtime.ReadMemStats(&after)
	want := "the response body is larger than the limit of 1048576 bytes (max_response_bytes)"
	if !res.IsError || !strings.Contains(res.Text(), want) {
		t.Errorf("got %v %q, want an error with %q", res.IsError, res.Text(), want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("the call allocated %d MB for a body cut at 1 MB", alloc>>20)
	}
	<-done
	t.Logf("the server wrote %d MB", written.Load()>>20)
	if w := written.Load(); w >= size {
		t.Errorf("the server sent all %d bytes: the body was read past its limit", w)
	}
}

// observer records the upstream exchanges of a call.
type observer struct {
	mu   sync.Mutex
	seen []string
}

func (o *observer) ObserveUpstream(kind, upstream, class string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, kind+" "+upstream+" "+class)
}

// TestStepsUpstreams: each step of a multi-step tool is its own exchange
// in the upstream metric, under its http_api (a GraphQL step is an HTTP
// exchange with its http_api).
func TestStepsUpstreams(t *testing.T) {
	dir := t.TempDir()
	srv, _ := server(t, dir)
	cfg := mustLoad(t, dir, api(srv.URL)+`
http_api "other" {
  base_url = "`+srv.URL+`"
}
tool "chain" {
  description = "A GraphQL query, then an HTTP request."
  step "country" {
    graphql {
      api   = http_api.countries
      path  = "/graphql"
      query = "{ country(code: \"KE\") { name } }"
    }
  }
  step "plain" {
    http {
      api  = http_api.other
      path = "/plain"
    }
  }
  output "name" { value = expr("steps.country.data.country.name") }
}
`)
	o := &observer{}
	tool, _ := cfg.Tool("chain")
	res := tool.Call(engine.WithUpstreamObserver(context.Background(), o), []byte(`{}`))
	if res.IsError {
		t.Fatal(res.Text())
	}
	if got := strings.Join(o.seen, ", "); got != "http countries 2xx, http other 2xx" {
		t.Errorf("upstream exchanges: %s", got)
	}
}
