package main

import (
	"strings"
	"testing"
)

// TestCatalogues measures what the table shows: every example and every
// document of the repository, smaller with each output_schemas, and the
// documents of APIs.guru's directory said to be skipped when they are
// not on the machine.
func TestCatalogues(t *testing.T) {
	t.Setenv("MCPDECL_OPENAPI_DIR", t.TempDir()) // an empty directory: none is there
	t.Chdir("..")
	cs, err := catalogues()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]catalogue{}
	for _, c := range cs {
		seen[c.name] = c
	}
	for _, name := range []string{"`examples/weather.hcl`", "`examples/shop.hcl`", "`importer/openapi/testdata/petstore.yaml`", "`examples/testdata/httpbin.org.json`"} {
		c, ok := seen[name]
		if !ok || c.skipped != "" {
			t.Errorf("%s: not measured (%+v)", name, c)
			continue
		}
		if !(c.bytes[0] > c.bytes[1] && c.bytes[1] > c.bytes[2]) && name != "`examples/testdata/httpbin.org.json`" {
			t.Errorf("%s: bytes full, compact, none = %v: each should list less", name, c.bytes)
		}
		if c.tokens[2] <= 0 || c.tokens[0] < c.tokens[2] || c.tokens[0] > c.bytes[0] {
			t.Errorf("%s: tokens %v for bytes %v", name, c.tokens, c.bytes)
		}
	}
	// The repository's documents lose nothing (TestInputFidelity), and
	// the table says how much was compared.
	for _, name := range []string{"`importer/openapi/testdata/petstore.yaml`", "`importer/openapi/testdata/openapi31.yaml`", "`examples/testdata/httpbin.org.json`"} {
		if f := seen[name].fidelity; f.Checks == 0 || f.Lost != 0 || f.Shallow != 0 {
			t.Errorf("%s: input fidelity %+v, want comparisons and no loss", name, f)
		}
	}
	if c := seen["`importer/openapi/testdata/openapi31.yaml`"]; c.read != 2 {
		t.Errorf("openapi31.yaml: %d operations, want 2", c.read)
	}
	var b strings.Builder
	(&report{catalogues: cs}).catalogueTable(&b)
	if !strings.Contains(b.String(), "Skipped, not found on this machine") || !strings.Contains(b.String(), "Google Fitness (APIs.guru, `googleapis.com/fitness.json`)") {
		t.Errorf("the table does not say which documents were skipped:\n%s", b.String())
	}
}
