package openapi

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// argNames are the names of a tool's arguments, sorted.
func argNames(t *testing.T, cfg *engine.Config, name string) []string {
	t.Helper()
	tool, ok := cfg.Tool(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	var out []string
	for _, a := range tool.Args() {
		out = append(out, a.Name)
	}
	slices.Sort(out)
	return out
}

// TestGoogleStandardParameters: the standard query parameters of Google's
// APIs (credentials, response formats, JSONP, upload protocols, quota
// attribution, field masks) are no tool's arguments, the report says
// which moved and why, and the bearer token of the http_api's auth is
// what authenticates. A field mask stays out of a tool whose response has
// no body too.
func TestGoogleStandardParameters(t *testing.T) {
	res, err := importFile(t, "google.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadResult(t, res)
	if got := argNames(t, cfg, "notes_get"); !slices.Equal(got, []string{"note_id", "view"}) {
		t.Errorf("notes_get takes %v, want [note_id view]", got)
	}
	if got := argNames(t, cfg, "notes_delete"); !slices.Equal(got, []string{"note_id"}) {
		t.Errorf("notes_delete takes %v, want [note_id]", got)
	}
	summary := strings.Join(res.MovedSummary(), "\n")
	for _, want := range []string{
		`query "access_token", query "key", query "oauth_token" (2 tools): a credential the http_api's auth replaces`,
		`query "$.xgafv", query "alt", query "prettyPrint" (2 tools): a switch of the response's format or layout`,
		`query "callback" (2 tools): a JSONP callback`,
		`query "fields" (2 tools): a field mask`,
		`query "quotaUser" (2 tools): a quota attribution`,
		`query "uploadType", query "upload_protocol" (2 tools): a switch of the upload protocol`,
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary of what moved lacks %q:\n%s", want, summary)
		}
	}
	main := string(res.Files[0].Data)
	if !strings.Contains(main, "bearer = var.notes_api_token") || !strings.Contains(main, `#   query "callback" (2 tools): a JSONP callback`) {
		t.Errorf("the main file has no bearer auth, or does not list what moved:\n%s", main)
	}
}

// TestCredentialParameters: in a document whose security schemes give the
// http_api no auth it can send, the API key its operations take as a
// query parameter becomes the http_api's auth, read from the environment
// and sent with every call, never an argument; a key that a scheme the
// http_api does not use covers (a header) and a JSONP callback are no
// arguments either.
func TestCredentialParameters(t *testing.T) {
	res, err := importFile(t, "apikeys.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Env, []string{"QUOTES_API_KEY"}) {
		t.Errorf("Env = %v, want [QUOTES_API_KEY]", res.Env)
	}
	summary := strings.Join(res.MovedSummary(), "\n")
	for _, want := range []string{
		`query "api_key" (2 tools): a credential, which the http_api's auth sends`,
		`header "X-Partner-Key" (1 tool): a credential of the security scheme "partner", which the http_api's auth replaces`,
		`query "callback" (1 tool): a JSONP callback`,
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary of what moved lacks %q:\n%s", want, summary)
		}
	}
	up := newUpstream(t, map[string]string{"GET /api/quotes": `{"quotes": ["Hm."]}`})
	cfg := loadImport(t, "apikeys.yaml", up.srv.URL+"/api", map[string]string{"QUOTES_API_KEY": "k-123"})
	if got := argNames(t, cfg, "list_quotes"); !slices.Equal(got, []string{"author"}) {
		t.Errorf("list_quotes takes %v, want [author]", got)
	}
	if got := argNames(t, cfg, "get_quote"); !slices.Equal(got, []string{"debug", "id"}) {
		t.Errorf("get_quote takes %v, want [debug id]", got)
	}
	r := callTool(t, cfg, "list_quotes", `{"author": "Seneca"}`)
	if r.IsError {
		t.Fatalf("list_quotes failed: %s", r.Text())
	}
	if got := up.request().uri; got != "/api/quotes?api_key=k-123&author=Seneca" && got != "/api/quotes?author=Seneca&api_key=k-123" {
		t.Errorf("the request was %s, want the key from the environment and the author", got)
	}
}

// TestArgumentOverlay: x-mcp-argument, added by an overlay, brings a
// parameter that would move back as an argument (true), or moves one
// that would not (false).
func TestArgumentOverlay(t *testing.T) {
	overlay := `overlay: 1.0.0
info: {title: keep the field mask, version: "1"}
actions:
  - target: $.components.parameters.fields
    update: {x-mcp-argument: true}
  - target: $.paths['/notes/{noteId}'].get.parameters[1]
    update: {x-mcp-argument: false}
`
	data, err := ReadFile(filepath.Join("testdata", "google.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Parse(data, filepath.Join("testdata", "google.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spec.ApplyOverlay([]byte(overlay), "keep.yaml"); err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(spec, Options{Source: "google.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadResult(t, res)
	if got := argNames(t, cfg, "notes_get"); !slices.Equal(got, []string{"fields", "note_id"}) {
		t.Errorf("notes_get takes %v, want [fields note_id]", got)
	}
	summary := strings.Join(res.MovedSummary(), "\n")
	if strings.Contains(summary, `"fields"`) || !strings.Contains(summary, `query "view" (1 tool): x-mcp-argument is false`) {
		t.Errorf("the summary of what moved:\n%s", summary)
	}
}

// credentialArgs are argument names that carry a credential, or a switch
// of the transport, in every document; googleArgs those of Google's APIs.
var (
	credentialArgs = []string{"access_token", "api_key", "apikey", "x_api_key", "api_secret", "oauth_token", "xgafv", "upload_protocol", "upload_type"}
	googleArgs     = []string{"key", "quota_user", "pretty_print", "alt", "callback"}
)

// TestNoCredentialArguments imports the documents the tests use (those of
// testdata, the examples', and with $MCPDECL_OPENAPI_DIR those of the
// directory that TestPrism and the harness use) and checks that no tool
// takes a credential as an argument: none named as one (x_listen_api_key,
// say), and none for a parameter that an apiKey security scheme of the
// document covers.
func TestNoCredentialArguments(t *testing.T) {
	var docs []string
	for _, pattern := range []string{"testdata/*.yaml", "testdata/*.json", "../../examples/testdata/*.json"} {
		found, _ := filepath.Glob(pattern)
		docs = append(docs, found...)
	}
	if dir := os.Getenv("MCPDECL_OPENAPI_DIR"); dir != "" {
		for _, s := range prismSpecs {
			if rest, ok := strings.CutPrefix(s.path, "$DIR/"); ok {
				docs = append(docs, filepath.Join(dir, rest))
			}
		}
		for _, name := range []string{"googleapis.com/fitness.json", "googleapis.com/drive.json", "listennotes.com.json", "azure.com/reservations.json", "digitallinguistics.io.json", "nexmo.com/account.json", "here.com/tracking.json"} {
			docs = append(docs, filepath.Join(dir, name))
		}
	}
	checked := 0
	for _, doc := range docs {
		spec, res, err := importPath(doc, Options{Source: filepath.Base(doc)})
		if err != nil || len(res.Imported) == 0 {
			continue // not a document that imports: other tests say why
		}
		forbidden := slices.Clone(credentialArgs)
		if strings.Contains(doc, "googleapis.com") || strings.Contains(doc, "google.yaml") {
			forbidden = append(forbidden, googleArgs...)
		}
		b := &builder{spec: spec}
		for _, v := range b.schemes() {
			if s := obj(v); strings.EqualFold(str(s["type"]), "apiKey") && str(s["name"]) != "" {
				forbidden = append(forbidden, identifier(str(s["name"]), "key"))
			}
		}
		// A path parameter names what a call acts on (the API key whose
		// secrets are listed, say): an argument whatever its name.
		inPath := map[string]bool{}
		ops, _ := spec.Operations()
		for _, op := range ops {
			for _, p := range op.Params {
				if p.In == "path" {
					inPath[identifier(p.Name, "arg")] = true
				}
			}
		}
		cfg := loadResult(t, res)
		for _, tool := range cfg.Tools {
			for _, a := range tool.Args() {
				if inPath[a.Name] {
					continue
				}
				if slices.Contains(forbidden, a.Name) || strings.HasSuffix(strings.ReplaceAll(a.Name, "_", ""), "apikey") {
					t.Errorf("%s: the tool %s takes the credential or transport argument %q", filepath.Base(doc), tool.Name(), a.Name)
				}
			}
		}
		checked++
	}
	if checked < 8 {
		t.Errorf("only %d documents checked", checked)
	}
}

// TestFixedParameters: a required parameter that can take one value is
// no argument. Azure's api-version, taken by every operation with the
// same value, is sent by the http_api's query; a header with an enum of
// one, by its tool; an optional enum of one, a required enum of two and
// an enum of one that x-ms-enum's modelAsString keeps open stay
// arguments. The report says what moved, with the value.
func TestFixedParameters(t *testing.T) {
	res, err := importFile(t, "fixed.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	summary := strings.Join(res.MovedSummary(), "\n")
	for _, want := range []string{
		`query "api-version" = "2022-11-01" (2 tools): required by every operation, with one value the document allows: the http_api sends it`,
		`header "X-Flavor" = "v2" (1 tool): required, with one value the document allows: the tool sends it`,
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary of what moved lacks %q:\n%s", want, summary)
		}
	}
	if main := string(res.Files[0].Data); !strings.Contains(main, `"api-version" = "2022-11-01"`) || strings.Count(main, "api-version") != 2 {
		t.Errorf("the http_api does not send the version once, for all (the report line and its query):\n%s", main)
	}
	up := newUpstream(t, map[string]string{"GET /vaults": `{"names": ["a"]}`, "GET /vaults/a": `{"name": "a"}`})
	cfg := loadImport(t, "fixed.yaml", up.srv.URL, nil)
	if got := argNames(t, cfg, "list_vaults"); !slices.Equal(got, []string{"detail", "kind", "page"}) {
		t.Errorf("list_vaults takes %v, want [detail kind page]", got)
	}
	if got := argNames(t, cfg, "get_vault"); !slices.Equal(got, []string{"name"}) {
		t.Errorf("get_vault takes %v, want [name]", got)
	}
	if r := callTool(t, cfg, "list_vaults", `{"kind": "cold", "page": " "}`); r.IsError {
		t.Fatalf("list_vaults failed: %s", r.Text())
	}
	if got := up.request().uri; got != "/vaults?api-version=2022-11-01&kind=cold&page=+" {
		t.Errorf("the request was %s, want the version and the kind", got)
	}
	if r := callTool(t, cfg, "get_vault", `{"name": "a"}`); r.IsError {
		t.Fatalf("get_vault failed: %s", r.Text())
	}
	if got := up.request(); got.uri != "/vaults/a?api-version=2022-11-01" || got.header.Get("X-Flavor") != "v2" {
		t.Errorf("the request was %s with X-Flavor %q, want the version and v2", got.uri, got.header.Get("X-Flavor"))
	}
}
