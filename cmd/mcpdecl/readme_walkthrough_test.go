package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/rogpeppe/go-internal/testscript"
)

// walkthroughUpstream is the address the README's walkthrough starts
// go-httpbin on; the test serves it on a free port and puts that in its
// place.
const walkthroughUpstream = "127.0.0.1:8099"

// walkthroughFence matches a fenced block of the walkthrough with the line
// before it: its language and its text.
var walkthroughFence = regexp.MustCompile("(?m)^(.*)\\n```(sh|hcl|json)\\n((?s:.*?))^```")

// TestReadmeWalkthrough runs the README's "In five minutes" as a reader
// would: each file it says to save is saved, each command is run in that
// order (and must succeed), and the client configuration it shows starts a
// server that lists the tool. The two commands run in a clone of the
// repository are stood in for: mcpdecl is the one under test, and
// go-httpbin with the walkthrough's OpenAPI document is served on a free
// port in place of 127.0.0.1:8099.
func TestReadmeWalkthrough(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## In five minutes\n")
	if !ok {
		t.Fatal(`the README has no "## In five minutes" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")

	document, err := os.ReadFile(filepath.Join("..", "..", "examples", "upstream", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", httpbin.New())
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(document)
	})
	upstream := httptest.NewServer(mux)
	t.Cleanup(upstream.Close) // the script runs after this function returns
	addr := strings.TrimPrefix(upstream.URL, "http://")

	var script, files strings.Builder
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var commands, saved, clients int
	for _, m := range walkthroughFence.FindAllStringSubmatch(section, -1) {
		before, lang, text := m[1], m[2], strings.ReplaceAll(m[3], walkthroughUpstream, addr)
		switch lang {
		case "hcl":
			name, ok := strings.CutPrefix(before, "<!-- walkthrough: ")
			name, _ = strings.CutSuffix(name, " -->")
			if !ok || name == "" {
				t.Fatalf("an hcl block of the walkthrough is not marked <!-- walkthrough: FILE -->: %q", before)
			}
			if first, _, _ := strings.Cut(text, "\n"); first != "# "+name {
				t.Errorf("the block saved as %s starts %q, not with its name", name, first)
			}
			files.WriteString("-- " + name + " --\n" + text)
			saved++
		case "sh":
			for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
				line = strings.TrimSpace(line)
				switch {
				case line == "go install ./cmd/mcpdecl":
					// mcpdecl is the executable under test.
				case line == "go run ./examples/upstream -addr "+addr+" &":
					// Served above.
				default:
					script.WriteString("exec bash -c " + quote(line) + "\n")
					commands++
				}
			}
		case "json":
			var config struct {
				MCPServers map[string]struct {
					Command string
					Args    []string
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(text), &config); err != nil {
				t.Fatalf("the client configuration does not parse: %v", err)
			}
			for name, s := range config.MCPServers {
				args := []string{s.Command}
				for _, a := range s.Args {
					if strings.ContainsAny(a, " '$") {
						t.Fatalf("a client argument testscript cannot take as it is: %q", a)
					}
					args = append(args, strings.ReplaceAll(a, "/path/to/", "$WORK/"))
				}
				script.WriteString("# the client's server " + name + "\nstdin client.jsonl\nexec " + strings.Join(args, " ") + "\nstdout '\"name\":\"echo\"'\n")
				clients++
			}
		}
	}
	if commands < 5 || saved != 2 || clients != 1 {
		t.Fatalf("the walkthrough has %d commands, %d files and %d client configurations: want at least 5, 2 and 1", commands, saved, clients)
	}
	files.WriteString(`-- client.jsonl --
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"desktop","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`)
	dir := t.TempDir()
	txtar := script.String() + files.String()
	if err := os.WriteFile(filepath.Join(dir, "walkthrough.txtar"), []byte(txtar), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the walkthrough as a script:\n%s", txtar)
	testscript.Run(t, testscript.Params{Dir: dir})
}
