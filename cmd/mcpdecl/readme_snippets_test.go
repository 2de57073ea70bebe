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

// TestReadmeAllSnippets checks that every HCL snippet of the README validates
// as written, with every adapter, so that a reader can copy it. A snippet
// marked <!-- fragment --> must at least parse.
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
	for _, m := range matches {
		line := 1 + strings.Count(string(readme[:m[4]]), "\n")
		marker := string(readme[m[2]:m[3]])
		src := string(readme[m[4]:m[5]])
		t.Run("line "+strconv.Itoa(line), func(t *testing.T) {
			if strings.Contains(marker, "<!-- walkthrough: ") {
				return // TestReadmeWalkthrough runs it
			}
			if strings.Contains(marker, "<!-- test of the first snippet -->") {
				runReadmeTest(t, line, first, src)
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
					t.Errorf("the fragment at README.md line %d does not parse: %s", line, diags.Error())
				}
				return
			}
			if diags.HasErrors() {
				var sb strings.Builder
				_ = hcl.NewDiagnosticTextWriter(&sb, files, 100, false).WriteDiagnostics(diags)
				t.Errorf("the snippet at README.md line %d does not validate:\n%s", line, sb.String())
			}
		})
	}
}

// runReadmeTest runs the test file src, at README.md line, against the
// README's first snippet, saved next to it as tools.hcl, as a reader
// following the README would.
func runReadmeTest(t *testing.T, line int, config, src string) {
	dir := t.TempDir()
	for name, text := range map[string]string{"tools.hcl": config, "tools.test.hcl": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	if code := Main([]string{"test", dir}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("the test file at README.md line %d does not pass against the first snippet: exit %d\n%s%s", line, code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "1 passed, 0 failed") {
		t.Errorf("the test file at README.md line %d: want 1 passed, got:\n%s", line, stdout.String())
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
