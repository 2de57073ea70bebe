package lsp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// nvimReport is what testdata/nvim.lua saw.
type nvimReport struct {
	Steps      map[string]string `json:"steps"`
	Diagnostic struct {
		Message string `json:"message"`
		Line    int    `json:"line"`
		Col     int    `json:"col"`
		EndCol  int    `json:"end_col"`
	} `json:"diagnostic"`
	CodeAction          string   `json:"code_action"`
	FixedLine           string   `json:"fixed_line"`
	DiagnosticsAfterFix *int     `json:"diagnostics_after_fix"`
	CompletionVar       []string `json:"completion_var"`
	CompletionArgs      []string `json:"completion_args"`
	CompletionExpr      []string `json:"completion_expr"`
	HoverExpr           string   `json:"hover_expr"`
	Hover               string   `json:"hover"`
	Definition          string   `json:"definition"`
	FormattingEdits     int      `json:"formatting_edits"`
	Text                string   `json:"text"`
	Stopped             bool     `json:"stopped"`
}

// TestNeovim has a real editor, Neovim's built-in LSP client configured as
// docs/editors.md says, run `mcpdecl lsp` on an example with a typo and a line
// out of format (CI runs it: .ci/editor.sh). MCPDECL_LSP_BIN names the mcpdecl binary; without it, or
// without nvim, the test is skipped.
func TestNeovim(t *testing.T) {
	bin := os.Getenv("MCPDECL_LSP_BIN")
	if bin == "" {
		t.Skip("MCPDECL_LSP_BIN is not set: .ci/editor.sh sets it to a built mcpdecl")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatalf("MCPDECL_LSP_BIN is set but nvim is not installed: %v", err)
	}
	original, err := os.ReadFile("../examples/weather.hcl")
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(original), `  version      = "1.0.0"`, `  verison      = "1.0.0"`, 1)
	broken = strings.Replace(broken, `  title       = "Current weather"`, `  title = "Current weather"`, 1)
	if broken == string(original) {
		t.Fatal("examples/weather.hcl changed: the typos are not made")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "weather.hcl")
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/nvim.lua")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := filepath.Abs("../docs/editors.md")
	if err != nil {
		t.Fatal(err)
	}
	// The configuration of docs/editors.md starts "mcpdecl" from the PATH.
	binDir := t.TempDir()
	if abs, err := filepath.Abs(bin); err != nil {
		t.Fatal(err)
	} else if err := os.Symlink(abs, filepath.Join(binDir, "mcpdecl")); err != nil {
		t.Fatal(err)
	}
	reportFile := filepath.Join(dir, "report.json")
	cmd := exec.CommandContext(t.Context(), nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"LSP_DOC="+doc, "LSP_FILE="+file, "LSP_REPORT="+reportFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		b, _ := os.ReadFile(reportFile)
		t.Fatalf("nvim: %v\n%s\nreport: %s", err, out, b)
	}
	b, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatalf("nvim wrote no report: %v", err)
	}
	var r nvimReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("the report: %v\n%s", err, b)
	}
	defer func() {
		if t.Failed() {
			t.Logf("Neovim saw: %s", b)
		}
	}()
	for _, s := range []string{"start", "diagnostic", "code_action", "completion_var", "completion_args", "completion_expr", "hover_expr", "hover", "definition", "formatting"} {
		if r.Steps[s] != "ok" {
			t.Errorf("step %s: %q", s, r.Steps[s])
		}
	}
	if d := r.Diagnostic; !strings.Contains(d.Message, `Did you mean "version"?`) || d.Line != 8 || d.Col != 2 || d.EndCol != 9 {
		t.Errorf("the typo's diagnostic: %+v", d)
	}
	if r.CodeAction != "Change to version" || r.FixedLine != `  version      = "1.0.0"` {
		t.Errorf("the code action %q left %q", r.CodeAction, r.FixedLine)
	}
	if r.DiagnosticsAfterFix == nil || *r.DiagnosticsAfterFix != 0 {
		t.Errorf("errors after the fix: %v", r.DiagnosticsAfterFix)
	}
	if !slices.Equal(r.CompletionVar, []string{"api_key", "base_url"}) {
		t.Errorf("completion after var.: %v", r.CompletionVar)
	}
	if !slices.Equal(r.CompletionArgs, []string{"city", "units"}) {
		t.Errorf(`completion after expr("args.: %v`, r.CompletionArgs)
	}
	for _, want := range []string{"args", "body", "status", "caller", "len", "urlencode"} {
		if !slices.Contains(r.CompletionExpr, want) {
			t.Errorf("completion at the start of an output's program: no %s in %v", want, r.CompletionExpr)
		}
	}
	if !strings.Contains(r.HoverExpr, "**args.city** (string)") || !strings.Contains(r.HoverExpr, "yields string") {
		t.Errorf("hover on args.city in a program: %q", r.HoverExpr)
	}
	if !strings.Contains(r.Hover, "**instructions**") || !strings.Contains(r.Hover, "tells clients and models how to use the server") {
		t.Errorf("hover on instructions: %q", r.Hover)
	}
	if r.Definition != `variable "base_url" {` {
		t.Errorf("the definition of var.base_url is at %q", r.Definition)
	}
	if r.FormattingEdits != 1 || r.Text != string(original) {
		t.Errorf("after the fix and formatting (%d edits), the buffer is not the example:\n%s", r.FormattingEdits, r.Text)
	}
	if !r.Stopped {
		t.Error("the server did not stop when Neovim asked")
	}
}
