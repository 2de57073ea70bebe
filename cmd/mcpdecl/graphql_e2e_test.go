package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	graphql "github.com/graph-gophers/graphql-go"
	"github.com/graph-gophers/graphql-go/relay"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The countries server of examples/countries/schema.graphql, executed by
// graph-gophers/graphql-go: a GraphQL server nobody here wrote.
type gqlCountry struct {
	code, name, continent string
	capital, currency     *string
	langs                 []string
}

type gqlContinent struct{ code, name string }

func (c gqlContinent) Code() graphql.ID             { return graphql.ID(c.code) }
func (c gqlContinent) Name() string                 { return c.name }
func (c gqlContinent) Countries() []gqlCountryValue { return nil }

type gqlLanguage struct{ name string }

func (l gqlLanguage) Code() graphql.ID { return graphql.ID(strings.ToLower(l.name[:2])) }
func (l gqlLanguage) Name() string     { return l.name }
func (l gqlLanguage) Native() string   { return l.name }

type gqlCountryValue struct{ c *gqlCountry }

func (v gqlCountryValue) Code() graphql.ID  { return graphql.ID(v.c.code) }
func (v gqlCountryValue) Name() string      { return v.c.name }
func (v gqlCountryValue) Native() string    { return v.c.name }
func (v gqlCountryValue) Capital() *string  { return v.c.capital }
func (v gqlCountryValue) Currency() *string { return v.c.currency }
func (v gqlCountryValue) Emoji() string     { return "🏳" }
func (v gqlCountryValue) Continent() gqlContinent {
	return gqlContinent{code: v.c.continent[:2], name: v.c.continent}
}
func (v gqlCountryValue) Languages() []gqlLanguage {
	var out []gqlLanguage
	for _, l := range v.c.langs {
		out = append(out, gqlLanguage{l})
	}
	return out
}

type gqlStringFilter struct {
	Eq    *string
	In    *[]string
	Ne    *string
	Nin   *[]string
	Regex *string
}

// match is what the countries API's StringQueryOperatorInput does with eq
// and regex.
func (f *gqlStringFilter) match(s *string) bool {
	if s == nil {
		return false
	}
	if f.Eq != nil && *s != *f.Eq {
		return false
	}
	if f.Regex != nil {
		if ok, err := regexp.MatchString(*f.Regex, *s); err != nil || !ok {
			return false
		}
	}
	return true
}

type gqlRoot struct{ countries []*gqlCountry }

func (r *gqlRoot) Continents() []gqlContinent                        { return nil }
func (r *gqlRoot) Continent(struct{ Code graphql.ID }) *gqlContinent { return nil }
func (r *gqlRoot) Country(args struct{ Code graphql.ID }) *gqlCountryValue {
	for _, c := range r.countries {
		if c.code == string(args.Code) {
			return &gqlCountryValue{c}
		}
	}
	return nil
}

func (r *gqlRoot) Countries(args struct {
	Filter *struct {
		Code, Continent, Currency, Name *gqlStringFilter
	}
}) []gqlCountryValue {
	var out []gqlCountryValue
	for _, c := range r.countries {
		if f := args.Filter; f != nil && f.Currency != nil && !f.Currency.match(c.currency) {
			continue
		}
		out = append(out, gqlCountryValue{c})
	}
	return out
}

func gqlStr(s string) *string { return &s }

// countriesServer serves examples/countries/schema.graphql at /graphql.
func countriesServer(t *testing.T) *httptest.Server {
	t.Helper()
	sdl, err := os.ReadFile("../../examples/countries/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	root := &gqlRoot{countries: []*gqlCountry{
		{"FR", "France", "Europe", gqlStr("Paris"), gqlStr("EUR"), []string{"French"}},
		{"DE", "Germany", "Europe", gqlStr("Berlin"), gqlStr("EUR"), []string{"German"}},
		{"KE", "Kenya", "Africa", gqlStr("Nairobi"), gqlStr("KES"), []string{"English", "Swahili"}},
		{"AQ", "Antarctica", "Antarctica", nil, nil, nil},
	}}
	schema := graphql.MustParseSchema(string(sdl), root)
	mux := http.NewServeMux()
	mux.Handle("/graphql", &relay.Handler{Schema: schema})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestImportGraphQL imports operation files against the schema of a real
// GraphQL server, then serves the tools over stdio and HTTP and calls them.
func TestImportGraphQL(t *testing.T) {
	srv := countriesServer(t)
	dir := t.TempDir()
	sdl, err := os.ReadFile("../../examples/countries/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "schema.graphql"), string(sdl))
	writeFile(t, filepath.Join(dir, "ops", "country.graphql"), "# A country by its ISO code.\nquery GetCountry($code: ID!) {\n  country(code: $code) { name capital languages { name } }\n}\n")
	writeFile(t, filepath.Join(dir, "ops", "by_currency.graphql"), "query CountriesByCurrency($filter: CountryFilterInput) {\n  countries(filter: $filter) { code name }\n}\n")
	writeFile(t, filepath.Join(dir, "ops", "broken.graphql"), "query { nope }\n")

	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "countries.hcl")
	code := Main([]string{"import", "graphql", "--schema", filepath.Join(dir, "schema.graphql"), "--name", "countries",
		"--endpoint", srv.URL + "/graphql", "-o", out, filepath.Join(dir, "ops")}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("import exited %d: %s%s", code, stdout.String(), stderr.String())
	}
	if want := "Its tools call " + srv.URL + "/graphql (COUNTRIES_URL, when set, replaces it).\n"; !strings.Contains(stdout.String(), want) || strings.Contains(stdout.String(), "Set COUNTRIES_URL") {
		t.Errorf("with --endpoint, the import should say which URL the tools call, not ask to set COUNTRIES_URL:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "3 operation files read: 2 imported, 1 skipped.") || !strings.Contains(stderr.String(), `Cannot query field "nope"`) {
		t.Errorf("the report should say what was imported and why one file was skipped:\n%s", stderr.String())
	}

	check := func(t *testing.T, session *mcp.ClientSession) {
		tools, err := session.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
			if tool.Name == "get_country" {
				if tool.Description != "A country by its ISO code." || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
					t.Errorf("get_country: description %q, annotations %+v", tool.Description, tool.Annotations)
				}
				in, _ := json.Marshal(tool.InputSchema)
				if !strings.Contains(string(in), `"required":["code"]`) {
					t.Errorf("get_country's input schema: %s", in)
				}
			}
		}
		if strings.Join(names, ",") != "countries_by_currency,get_country" {
			t.Errorf("tools: %v", names)
		}
		for _, tt := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"get_country", map[string]any{"code": "KE"}, `{"country":{"capital":"Nairobi","languages":[{"name":"English"},{"name":"Swahili"}],"name":"Kenya"}}`},
			{"get_country", map[string]any{"code": "AQ"}, `{"country":{"capital":null,"languages":[],"name":"Antarctica"}}`},
			{"get_country", map[string]any{"code": "ZZ"}, `{}`},
			{"countries_by_currency", map[string]any{"filter": map[string]any{"currency": map[string]any{"eq": "EUR"}}}, `{"countries":[{"code":"FR","name":"France"},{"code":"DE","name":"Germany"}]}`},
		} {
			res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(res.StructuredContent)
			if res.IsError || string(got) != tt.want {
				t.Errorf("%s %v: error %v, structured %s, want %s", tt.tool, tt.args, res.IsError, got, tt.want)
			}
		}
		// An argument outside the input object's schema is refused before
		// anything is sent.
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "countries_by_currency",
			Arguments: map[string]any{"filter": map[string]any{"currency": map[string]any{"like": "EUR"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("an unknown field of an input object should be refused")
		}
	}

	t.Run("stdio", func(t *testing.T) {
		cmd := exec.Command(binary(t), "serve", out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "0"}, nil)
		session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connecting over stdio: %v\nstderr: %s", err, stderr.String())
		}
		defer session.Close()
		check(t, session)
	})
	t.Run("http", func(t *testing.T) {
		endpoint, _ := startHTTP(t, out)
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "0"}, nil)
		session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer session.Close()
		check(t, session)
	})
}

// TestCountriesExample serves examples/countries.hcl against the local
// countries server and calls its hand-written tools.
func TestCountriesExample(t *testing.T) {
	srv := countriesServer(t)
	endpoint, _ := startHTTP(t, "../../examples/countries.hcl", "--var", "countries_url="+srv.URL+"/graphql")
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "0"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	for _, tt := range []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"country", map[string]any{"code": "ke"}, false, `{"capital":"Nairobi","continent":"Africa","currency":"KES","languages":["English","Swahili"],"name":"Kenya"}`},
		{"country", map[string]any{"code": "zz"}, true, "No country has the code ZZ."},
		{"countries_by_currency", map[string]any{"currency": "eur"}, false, `{"countries":[{"code":"FR","name":"France"},{"code":"DE","name":"Germany"}]}`},
	} {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(res.StructuredContent)
		if tt.isError {
			text := ""
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			got = []byte(text)
		}
		if res.IsError != tt.isError || string(got) != tt.want {
			t.Errorf("%s %v: error %v, got %s, want %s", tt.tool, tt.args, res.IsError, got, tt.want)
		}
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportGraphQLOverlay imports with an overlay, as a user curates an
// API once: a tool renamed and described, an operation left out, a
// variable fixed; then calls the curated tool against the server.
func TestImportGraphQLOverlay(t *testing.T) {
	srv := countriesServer(t)
	dir := t.TempDir()
	sdl, err := os.ReadFile("../../examples/countries/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "schema.graphql"), string(sdl))
	writeFile(t, filepath.Join(dir, "ops", "country.graphql"), "query GetCountry($code: ID!) {\n  country(code: $code) { name capital }\n}\n")
	writeFile(t, filepath.Join(dir, "ops", "by_currency.graphql"), "query CountriesByCurrency($filter: CountryFilterInput) {\n  countries(filter: $filter) { code name }\n}\n")
	writeFile(t, filepath.Join(dir, "curate.yaml"), `overlay: 1.0.0
info: {title: Countries, version: "1"}
actions:
  - target: $.operations.GetCountry
    update:
      name: kenya
      description: Kenya's name and capital.
      variables: {code: {value: KE}}
  - target: $.operations.CountriesByCurrency
    remove: true
  - target: $.operations.Continents
    remove: true
`)
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "countries.hcl")
	code := Main([]string{"import", "graphql", "--schema", filepath.Join(dir, "schema.graphql"), "--name", "countries",
		"--endpoint", srv.URL + "/graphql", "--overlay", filepath.Join(dir, "curate.yaml"), "-o", out, filepath.Join(dir, "ops")}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("import exited %d: %s%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{
		"2 operation files read: 1 imported, 0 skipped, 1 removed by an overlay.",
		"warning: " + filepath.Join(dir, "curate.yaml") + ": actions[2]: the target $.operations.Continents selects nothing",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, stderr.String())
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := Main([]string{"call", out, "kenya", "{}"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("call exited %d: %s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), `"capital": "Nairobi"`) {
		t.Errorf("kenya answered %s", stdout.String())
	}
	stdout.Reset()
	if code := Main([]string{"list", out}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Kenya's name and capital.") || strings.Contains(stdout.String(), "countries_by_currency") {
		t.Errorf("list exited %d:\n%s", code, stdout.String())
	}
}
