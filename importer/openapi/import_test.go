package openapi

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// importFile imports a document of testdata.
func importFile(t *testing.T, name string, opts Options) (*Result, error) {
	t.Helper()
	if opts.Source == "" {
		opts.Source = name
	}
	_, res, err := importPath(filepath.Join("testdata", name), opts)
	return res, err
}

// joined is the files of a result as one text, each after a "-- name --"
// line, as txtar writes them.
func joined(res *Result) []byte {
	var b bytes.Buffer
	for _, f := range res.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.Write(f.Data)
	}
	return b.Bytes()
}

// TestGolden imports the documents of testdata and compares what is
// written with testdata/golden; go test -update rewrites them. A second
// import of the same document must give the same bytes.
func TestGolden(t *testing.T) {
	tests := []struct {
		spec string
		opts Options
	}{
		{"petstore.yaml", Options{Toolsets: true}},
		{"petstore.yaml", Options{SplitByTag: true, Name: "pets", Select: Selection{ExcludeTags: []string{"photos"}}}},
		{"swagger.json", Options{}},
		{"openapi31.yaml", Options{BaseURL: "https://notes.example.com/v2"}},
		{"library.yaml", Options{Resources: []string{"*"}}},
	}
	for i, tt := range tests {
		golden := filepath.Join("testdata", "golden", strings.TrimSuffix(tt.spec, filepath.Ext(tt.spec))+".hcl.txt")
		if i == 1 {
			golden = filepath.Join("testdata", "golden", "petstore-split.hcl.txt")
		}
		t.Run(filepath.Base(golden), func(t *testing.T) {
			res, err := importFile(t, tt.spec, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := joined(res)
			again, _ := importFile(t, tt.spec, tt.opts)
			if !bytes.Equal(got, joined(again)) {
				t.Error("two imports of the same document differ")
			}
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from what the import wrote (go test -update rewrites it):\n%s", golden, got)
			}
		})
	}
}

// TestBadDocuments checks the errors of documents that cannot be imported:
// each names the document and, for a broken reference, where it is.
func TestBadDocuments(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"truncated.json", "testdata/truncated.json is not valid JSON: it ends too early (truncated?)"},
		{"not-openapi.yaml", "testdata/not-openapi.yaml is not an OpenAPI document: it has neither an openapi nor a swagger field at its top"},
		{"broken-ref.yaml", `at #/paths/~1x/get/parameters, the reference "#/components/parameters/Missing" is broken: nothing is at "/components/parameters/Missing"`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := importFile(t, tt.spec, Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestSelection checks the selection flags and the cap.
func TestSelection(t *testing.T) {
	tests := []struct {
		name string
		sel  Selection
		max  int
		want string // the tools, in order
	}{
		{"all", Selection{}, 0, "add_note list_pets create_pet get_pet patch_pets_pet_id delete_pet"},
		{"tag", Selection{Tags: []string{"owners"}}, 0, "add_note"},
		{"operation glob", Selection{Ops: []string{"*Pet"}}, 0, "create_pet get_pet delete_pet"},
		{"tool name", Selection{Ops: []string{"patch_pets_pet_id"}}, 0, "patch_pets_pet_id"},
		{"path glob and method", Selection{Paths: []string{"/pets*"}, Methods: []string{"get"}}, 0, "list_pets get_pet"},
		{"exclusions", Selection{ExcludeTags: []string{"owners", "photos"}, ExcludeOps: []string{"deletePet"}, ExcludePaths: []string{"/pets"}}, 0, "get_pet patch_pets_pet_id"},
		{"cap", Selection{}, 2, "add_note list_pets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := importFile(t, "petstore.yaml", Options{Select: tt.sel, MaxTools: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.Imported, " "); got != tt.want {
				t.Errorf("tools = %s\nwant %s", got, tt.want)
			}
			if tt.max > 0 && len(res.Capped) != 6 {
				t.Errorf("capped = %v, want the 6 others", res.Capped)
			}
			if tt.name == "all" && (len(res.Skipped) != 2 || !strings.HasPrefix(res.Skipped[0].Reason, `its multipart field "file" is a file`) ||
				res.Skipped[1].Reason != `it needs the cookie "sid", which a tool does not send`) {
				t.Errorf("skipped = %v", res.Skipped)
			}
		})
	}
}

func TestSnake(t *testing.T) {
	tests := map[string]string{
		"getPetById":               "get_pet_by_id",
		"repos/list-for-org":       "repos_list_for_org",
		"X-Request-ID":             "x_request_id",
		"HTTPServerError":          "http_server_error",
		"get /pets/{petId}/photos": "get_pets_pet_id_photos",
		"__a__b__":                 "a_b",
		"Öl":                       "l",
		"v2Items":                  "v2_items",
	}
	for in, want := range tests {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
	n := names{}
	long := strings.Repeat("a", 140)
	if a, b := n.unique(long, 128), n.unique(long, 128); len(a) != 128 || len(b) != 128 || a == b || !strings.HasSuffix(b, "_2") {
		t.Errorf("unique names: %q %q", a, b)
	}
}

// TestOverlay applies an overlay before import: an operation renamed and
// described anew, another removed, a parameter removed. A filter
// expression is refused, naming the action.
func TestOverlay(t *testing.T) {
	p := filepath.Join("testdata", "petstore.yaml")
	data, _ := ReadFile(p)
	spec, err := Parse(data, p, ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := os.ReadFile(filepath.Join("testdata", "petstore-overlay.yaml"))
	good := overlay[:bytes.Index(overlay, []byte("  - target: $..[?"))]
	if _, err := spec.ApplyOverlay(good, "petstore-overlay.yaml"); err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Imported, " "); got != "add_note find_pets create_pet get_pet patch_pets_pet_id" {
		t.Errorf("tools = %s", got)
	}
	main := string(res.Files[0].Data)
	if !regexp.MustCompile(`description += "Finds pets, twenty at a time unless told otherwise."`).MatchString(main) {
		t.Error("the overlay's description is not the tool's")
	}
	if strings.Contains(main, "left out the optional cookie") {
		t.Error("the removed parameter (the cookie) is still noted")
	}

	_, err = spec.ApplyOverlay(overlay, "petstore-overlay.yaml")
	want := `petstore-overlay.yaml: actions[3]: the target "$..[?@.x-internal]": filter expressions ([?…]) are not supported; name the target instead`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	if _, err := spec.ApplyOverlay([]byte("openapi: 3.0.0\n"), "x.yaml"); err == nil || !strings.Contains(err.Error(), "x.yaml is not an OpenAPI Overlay") {
		t.Errorf("not an overlay: %v", err)
	}
}

// TestQueryInPath checks the query strings some documents write in their
// paths: a placeholder value becomes a query parameter, fixed pairs stay,
// and a placeholder standing for a name skips the operation.
func TestQueryInPath(t *testing.T) {
	tests := []struct {
		path, wantPath, wantQuery, wantErr string
	}{
		{"/files?name={name}", "/files", "name=args.name", ""},
		{"/files?v=2&name={name}", "/files?v=2", "name=args.name", ""},
		{"/search/{country}?{search}=1", "", "", "the query string of its path names a parameter by a placeholder ({search}=1)"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			tl := &tool{pathTemplate: tt.path}
			for _, n := range []string{"name", "country", "search"} {
				tl.pathParams = append(tl.pathParams, field{key: n, program: "args." + n})
			}
			err := queryInPath(tl)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var q []string
			for _, f := range tl.query {
				q = append(q, f.key+"="+f.program)
			}
			if tl.pathTemplate != tt.wantPath || strings.Join(q, "&") != tt.wantQuery {
				t.Errorf("path %q, query %q; want %q, %q", tl.pathTemplate, strings.Join(q, "&"), tt.wantPath, tt.wantQuery)
			}
		})
	}
}

// TestCollidingQueryKeys imports an operation whose object parameter,
// exploded into the query, has a property named like another parameter:
// that parameter is not sent, so it is not offered as an argument either.
func TestCollidingQueryKeys(t *testing.T) {
	const doc = `openapi: 3.0.3
info: {title: Stacks, version: "1"}
servers: [{url: "https://stacks.example"}]
paths:
  /update:
    get:
      operationId: update
      parameters:
        - name: Targets
          in: query
          schema:
            type: object
            properties:
              Accounts: {type: array, items: {type: string}}
        - name: Accounts
          in: query
          schema: {type: array, items: {type: string}}
        - name: Region
          in: query
          schema: {type: string}
      responses: {"200": {description: ok}}
`
	spec, err := Parse([]byte(doc), "stacks.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	main := string(res.Files[0].Data)
	for _, want := range []string{`arg "targets"`, `arg "region"`, `left out the argument "accounts"`} {
		if !strings.Contains(main, want) {
			t.Errorf("the file lacks %q:\n%s", want, main)
		}
	}
	if strings.Contains(main, `arg "accounts"`) {
		t.Errorf("the tool offers accounts, which it never sends:\n%s", main)
	}
}
