package load_test

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

const overrideSrc = `
variable "base" {
  type    = string
  default = "https://api.example.com/v1"
}
variable "count" {
  type    = number
  default = 1
}
http_api "api" {
  base_url = var.base
}
`

// loadOverridden loads overrideSrc with the http adapter and opts' Values
// and Overrides.
func loadOverridden(t *testing.T, opts load.Options) (*engine.Config, hcl.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	name := writeFile(t, dir, "tools.hcl", overrideSrc)
	opts.Registry = engine.NewRegistry(httpaction.New())
	opts.LookupEnv = enginetest.MapEnv(nil)
	cfg, _, diags := load.Load(opts, name)
	if cfg != nil {
		t.Cleanup(func() { _ = cfg.Close() })
	}
	return cfg, diags
}

func apiOf(t *testing.T, cfg *engine.Config) *httpaction.API {
	t.Helper()
	for _, r := range cfg.Blocks() {
		if a, ok := r.(*httpaction.API); ok {
			return a
		}
	}
	t.Fatal("no http_api decoded")
	return nil
}

func TestOverrideRewritesAttribute(t *testing.T) {
	var seen string
	cfg, diags := loadOverridden(t, load.Options{Overrides: []load.Override{{
		Kind: "http_api", Name: "api",
		Rewrite: map[string]func(cty.Value) (cty.Value, error){"base_url": func(v cty.Value) (cty.Value, error) {
			seen = v.AsString()
			return cty.StringVal(strings.Replace(v.AsString(), "https://api.example.com", "http://127.0.0.1:9", 1)), nil
		}},
	}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if seen != "https://api.example.com/v1" {
		t.Errorf("the rewrite was given %q, want the block's own value", seen)
	}
	if got := apiOf(t, cfg).BaseURL(); got != "http://127.0.0.1:9/v1" {
		t.Errorf("BaseURL() = %q, want the rewritten one", got)
	}
}

func TestOverrideSetsAttribute(t *testing.T) {
	cfg, diags := loadOverridden(t, load.Options{Overrides: []load.Override{{
		Kind: "http_api", Name: "api",
		Set: map[string]cty.Value{"base_url": cty.StringVal("http://127.0.0.1:8/x")},
	}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := apiOf(t, cfg).BaseURL(); got != "http://127.0.0.1:8/x" {
		t.Errorf("BaseURL() = %q, want the value set", got)
	}
}

func TestOverrideOfUndeclaredBlock(t *testing.T) {
	rng := hcl.Range{Filename: "x.test.hcl", Start: hcl.Pos{Line: 3, Column: 1}, End: hcl.Pos{Line: 3, Column: 20}}
	_, diags := loadOverridden(t, load.Options{Overrides: []load.Override{{Kind: "http_api", Name: "nope", Range: rng}}})
	got := describe(diags)
	want := `3:1-3:20: Mock of an undeclared http_api: The configuration declares no http_api named "nope"; it declares "api". Name one of its blocks, or remove the mock.`
	if !strings.Contains(got, want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
}

func TestValues(t *testing.T) {
	at := func(line int) hcl.Range {
		return hcl.Range{Filename: "v.test.hcl", Start: hcl.Pos{Line: line, Column: 3}, End: hcl.Pos{Line: line, Column: 9}}
	}
	tests := []struct {
		name   string
		values map[string]load.Value
		vars   map[string]string
		want   string // in the diagnostics; "" for none
		base   string // the base URL loaded, when there is no error
	}{
		{
			name:   "a value wins over --var and the default",
			values: map[string]load.Value{"base": {Value: cty.StringVal("http://127.0.0.1:7"), Range: at(2)}},
			vars:   map[string]string{"base": "http://127.0.0.1:6"},
			base:   "http://127.0.0.1:7",
		},
		{
			name:   "a number converts to a string variable",
			values: map[string]load.Value{"count": {Value: cty.NumberIntVal(3), Range: at(2)}},
			base:   "https://api.example.com/v1",
		},
		{
			name:   "unknown variable",
			values: map[string]load.Value{"bsae": {Value: cty.StringVal("x"), Range: at(4)}},
			want:   `4:3-4:9: Unknown variable: A value is given for variable "bsae", but the configuration declares no such variable. It declares "base", "count".`,
		},
		{
			name:   "wrong type",
			values: map[string]load.Value{"count": {Value: cty.StringVal("many"), Range: at(5)}},
			want:   `5:3-5:9: Invalid value for variable: The value given for variable "count" does not fit its type number`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, diags := loadOverridden(t, load.Options{Values: tc.values, Vars: tc.vars})
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatal(describe(diags))
				}
				if got := apiOf(t, cfg).BaseURL(); got != tc.base {
					t.Errorf("BaseURL() = %q, want %q", got, tc.base)
				}
				return
			}
			if got := describe(diags); !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestConfigFilesLeaveOutTestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.hcl", "b.test.hcl", "c.hcl"} {
		writeFile(t, dir, n, "")
	}
	names, errs := load.ConfigFiles([]string{dir})
	if len(errs) > 0 || !slices.Equal(names, []string{filepath.Join(dir, "a.hcl"), filepath.Join(dir, "c.hcl")}) {
		t.Errorf("ConfigFiles = %v, %v; want a.hcl and c.hcl", names, errs)
	}
	names, errs = load.SourceFiles([]string{dir})
	if len(errs) > 0 || len(names) != 3 {
		t.Errorf("SourceFiles = %v, %v; want all three", names, errs)
	}
	only := t.TempDir()
	writeFile(t, only, "x.test.hcl", "")
	if _, errs := load.ConfigFiles([]string{only}); len(errs) != 1 {
		t.Errorf("a directory of test files alone holds no configuration; got errors %v", errs)
	}
}

// TestFilesIncludeReadFiles: a file an adapter reads (an http_api's
// ca_file) or a resource serves is among the files the load read, which
// serve --watch watches.
func TestFilesIncludeReadFiles(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	dir := t.TempDir()
	writeFile(t, dir, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	writeFile(t, dir, "notes.md", "# notes\n")
	name := writeFile(t, dir, "tools.hcl", `
http_api "api" {
  base_url = "https://api.example.com"
  tls { ca_file = "ca.pem" }
}
resource "notes" {
  uri  = "docs://notes"
  file = "notes.md"
}
`)
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(httpaction.New()), LookupEnv: enginetest.MapEnv(nil)}, name)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	defer cfg.Close()
	files := cfg.Files()
	for _, want := range []string{"ca.pem", "notes.md", "tools.hcl"} {
		if !slices.Contains(files, filepath.Join(dir, want)) {
			t.Errorf("Files() = %v, want %s among them", files, want)
		}
	}
}
