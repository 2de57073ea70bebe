package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine/load"
)

// hclBlock matches a fenced ```hcl block of the README, with the line
// before it, where <!-- fragment --> marks a piece that is not a whole
// configuration.
var hclBlock = regexp.MustCompile("(?m)^(.*)\\n```hcl\\n((?s:.*?))^```")

// TestReadmeAllSnippets checks that every HCL snippet of the README, of
// the documents under docs/ and of the CHANGELOG validates as written, with every adapter, so
// that a reader can copy it. A snippet marked <!-- fragment --> must at
// least parse. The reference, docs/language.md, is left to
// TestSpecExamplesLoad, which places each of its examples where it goes.
func TestReadmeAllSnippets(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	matches := hclBlock.FindAllSubmatchIndex(readme, -1)
	if len(matches) == 0 {
		t.Fatal("no ```hcl block found in README.md")
	}
	first := string(readme[matches[0][4]:matches[0][5]])
	for _, doc := range docFiles(t) {
		if doc == "docs/language.md" {
			continue
		}
		text, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range hclBlock.FindAllSubmatchIndex(text, -1) {
			line := 1 + strings.Count(string(text[:m[4]]), "\n")
			marker := string(text[m[2]:m[3]])
			src := string(text[m[4]:m[5]])
			t.Run(doc+" line "+strconv.Itoa(line), func(t *testing.T) {
				checkSnippet(t, doc, line, marker, first, src)
			})
		}
	}
}

// checkSnippet checks the snippet src, at line of doc, as its marker (the
// line before it) says: run by TestReadmeWalkthrough, a test of the
// README's first snippet, a fragment that must parse, or a configuration
// that must validate.
func checkSnippet(t *testing.T, doc string, line int, marker, first, src string) {
	if strings.Contains(marker, "<!-- walkthrough: ") {
		return // TestReadmeWalkthrough runs it
	}
	if strings.Contains(marker, "<!-- test of the first snippet -->") {
		runReadmeTest(t, doc, line, first, src)
		return
	}
	name := filepath.Join(t.TempDir(), "README.hcl")
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, files, diags := load.Load(load.Options{
		Registry:  registry(),
		LookupEnv: readmeEnv,
	}, name)
	if cfg != nil {
		defer cfg.Close()
	}
	if strings.Contains(marker, "<!-- fragment -->") {
		if _, diags := hclsyntax.ParseConfig([]byte(src), name, hcl.InitialPos); diags.HasErrors() {
			t.Errorf("the fragment at %s line %d does not parse: %s", doc, line, diags.Error())
		}
		return
	}
	if diags.HasErrors() {
		var sb strings.Builder
		_ = hcl.NewDiagnosticTextWriter(&sb, files, 100, false).WriteDiagnostics(diags)
		t.Errorf("the snippet at %s line %d does not validate:\n%s", doc, line, sb.String())
	}
}

// runReadmeTest runs the test file src, at line of doc, against the
// README's first snippet, saved next to it as tools.hcl, as a reader
// following the README would.
func runReadmeTest(t *testing.T, doc string, line int, config, src string) {
	dir := t.TempDir()
	for name, text := range map[string]string{"tools.hcl": config, "tools.test.hcl": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	if code := Main([]string{"test", dir}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("the test file at %s line %d does not pass against the first snippet: exit %d\n%s%s", doc, line, code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "1 passed, 0 failed") {
		t.Errorf("the test file at %s line %d: want 1 passed, got:\n%s", doc, line, stdout.String())
	}
}

// readmeEnv is the environment the README's snippets say to set, as a
// reader following them would have it.
func readmeEnv(name string) (string, bool) {
	v, ok := map[string]string{
		"MCPDECL_VAR_api_key": "weather-key-0123456789",
		"CI_BOT_TOKEN":        "0123456789abcdef0123456789abcdef",
		"REDIS_URL":           "redis://127.0.0.1:6379",
	}[name]
	return v, ok
}
