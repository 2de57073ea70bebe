package openapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// refDoc is a document whose one operation takes a parameter by reference.
func refDoc(ref string) string {
	return `{"openapi": "3.0.0", "info": {"title": "Refs", "version": "1"}, "paths": {"/x": {"get": {
  "parameters": [{"$ref": "` + ref + `"}],
  "responses": {"200": {"description": "ok"}}}}}}`
}

// paramDoc is a document that holds the parameter the reference names.
const paramDoc = `{"q": {"name": "q", "in": "query", "schema": {"type": "string"}}}`

// countingServer serves paramDoc at every path and counts the requests.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(paramDoc))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// writeFile writes text at path, making its directory.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantRefused checks that err refuses the reference ref and names flag.
func wantRefused(t *testing.T, err error, ref, flag string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the import of a document that refers to %s succeeded; want it refused", ref)
	}
	msg := err.Error()
	if !strings.Contains(msg, `the reference "`+ref+`" is not followed`) || !strings.Contains(msg, flag) {
		t.Errorf("error = %s\nwant it to name the reference %q as not followed, and the flag %s", msg, ref, flag)
	}
}

// TestRemoteRefNotFetched: a reference to a URL is not fetched unless
// remote references are allowed, so that importing a document nobody here
// wrote sends no request it names.
func TestRemoteRefNotFetched(t *testing.T) {
	srv, hits := countingServer(t)
	ref := srv.URL + "/evil.json#/q"
	doc := filepath.Join(t.TempDir(), "api.json")
	writeFile(t, doc, refDoc(ref))

	_, _, err := importPath(doc, Options{})
	wantRefused(t, err, ref, "--allow-remote-refs")
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server the reference names was sent %d requests; want none", n)
	}

	res, err := importPathWith(doc, RefAccess{RemoteRefs: true}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 1 || !strings.Contains(string(res.Files[0].Data), `arg "q"`) {
		t.Errorf("with remote references allowed: %d requests, want 1, and the parameter q read:\n%s", n, res.Files[0].Data)
	}
}

// TestRemoteRefSameOrigin: a document read from a URL may refer to others
// of the same origin (scheme, host and port), not to another origin, even
// through a redirect.
func TestRemoteRefSameOrigin(t *testing.T) {
	other, otherHits := countingServer(t)
	var docRef string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/specs/api.json":
			_, _ = w.Write([]byte(refDoc(docRef)))
		case "/specs/common.json":
			_, _ = w.Write([]byte(paramDoc))
		case "/moved.json":
			http.Redirect(w, r, other.URL+"/common.json", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	loc := srv.URL + "/specs/api.json"

	for _, tt := range []struct{ ref, refused string }{
		{"common.json#/q", ""},
		{"/specs/common.json#/q", ""},
		{other.URL + "/common.json#/q", other.URL + "/common.json#/q"},
		{"/moved.json#/q", "/moved.json#/q"},
		{strings.TrimPrefix(other.URL, "http:") + "/common.json#/q", strings.TrimPrefix(other.URL, "http:") + "/common.json#/q"},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			docRef = tt.ref
			res, err := importPathWith(loc, RefAccess{}, Options{})
			if tt.refused != "" {
				wantRefused(t, err, tt.refused, "--allow-remote-refs")
				if n := otherHits.Load(); n != 0 {
					t.Fatalf("the other origin was sent %d requests; want none", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res.Files[0].Data), `arg "q"`) {
				t.Errorf("the parameter q was not read:\n%s", res.Files[0].Data)
			}
		})
	}
}

// TestExternalFileRef: references reach files under the document's
// directory; a file elsewhere (by ../, by an absolute path, or through a
// symbolic link that leads out) only when external files are allowed, and
// only regular files are read.
func TestExternalFileRef(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "api")
	outside := filepath.Join(root, "secret.json")
	writeFile(t, outside, paramDoc)
	writeFile(t, filepath.Join(dir, "common", "params.json"), paramDoc)
	if err := os.Symlink(outside, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "api.json")

	for _, tt := range []struct {
		ref     string
		refused bool
	}{
		{"common/params.json#/q", false},
		{"./common/../common/params.json#/q", false},
		{filepath.Join(dir, "common", "params.json") + "#/q", false},
		{"../secret.json#/q", true},
		{outside + "#/q", true},
		{"link.json#/q", true},
		{"up/secret.json#/q", true},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			writeFile(t, doc, refDoc(tt.ref))
			_, res, err := importPath(doc, Options{})
			if tt.refused {
				wantRefused(t, err, tt.ref, "--allow-external-files")
				res, err = importPathWith(doc, RefAccess{ExternalFiles: true}, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res.Files[0].Data), `arg "q"`) {
				t.Errorf("the parameter q was not read:\n%s", res.Files[0].Data)
			}
		})
	}

	// Even allowed, a device is not read: it could be endless.
	if _, err := os.Stat("/dev/zero"); err == nil {
		writeFile(t, doc, refDoc("/dev/zero#/q"))
		_, err := importPathWith(doc, RefAccess{ExternalFiles: true}, Options{})
		if err == nil || !strings.Contains(err.Error(), "/dev/zero cannot be read: it is not a regular file") {
			t.Errorf("error = %v\nwant /dev/zero refused as not a regular file", err)
		}
	}
}

// TestExternalRefSamePointer: a reference to another document's schema
// stands for that schema, not for the one at the same pointer in the
// referring document (testdata/multifile.yaml's Pet and
// multifile/other.yaml's).
func TestExternalRefSamePointer(t *testing.T) {
	_, res, err := importPath("testdata/multifile.yaml", Options{Source: "multifile.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := writeFiles(t.TempDir(), res.Files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := loadFiles(paths, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	defer cfg.Close()
	tl, ok := cfg.Tool("adopt")
	if !ok {
		t.Fatal("no tool adopt")
	}
	f := &fidelity{root: tl.InputSchema()}
	props := obj(f.root["properties"])
	for arg, want := range map[string][]string{"mine": {"name"}, "theirs": {"legs", "species"}} {
		p, _, _, _ := f.toolShape(props[arg])
		if got := sortedKeys(p); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("argument %s has the properties %v, want %v (its document's Pet's)", arg, got, want)
		}
	}
}

// TestSameNameDefsStable: two documents' schemas of one name get their
// definition names by a fixed rule, so that every import of a document
// writes the same files. The schemas are met as the tools' arguments are
// written, in order: mine, this document's Pet, is Pet; theirs, the other
// document's, is Pet_2.
func TestSameNameDefsStable(t *testing.T) {
	const imports = 20
	var first []byte
	for i := range imports {
		_, res, err := importPath("testdata/multifile.yaml", Options{Source: "multifile.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		got := joined(res)
		if i == 0 {
			first = got
			for _, want := range []string{`"$ref" = "#/$defs/Pet"`, `"$ref" = "#/$defs/Pet_2"`} {
				if !strings.Contains(string(got), want) {
					t.Fatalf("the import does not write %s:\n%s", want, got)
				}
			}
			mine := strings.Index(string(got), `arg "mine"`)
			if mine < 0 || !strings.HasPrefix(string(got[mine:]), "arg \"mine\" {\n    schema = {\n      \"$ref\" = \"#/$defs/Pet\"\n") {
				t.Fatalf("argument mine does not refer to Pet, this document's own:\n%s", got)
			}
			continue
		}
		if !bytes.Equal(got, first) {
			t.Fatalf("import %d of %d wrote other files than the first:\n%s\nthe first:\n%s", i+1, imports, got, first)
		}
	}
}
