package main

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestParseEnv pins the dotenv syntax godotenv reads, as docs/commands.md
// describes it.
func TestParseEnv(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want map[string]string
	}{
		{"plain", "A=1\nB=two words\n", map[string]string{"A": "1", "B": "two words"}},
		{"comments and blank lines", "# c\n\n  # indented\nA=1 # trailing\nB=x#not-a-comment\n", map[string]string{"A": "1", "B": "x#not-a-comment"}},
		{"export prefix", "export A=1\nexport\tB = 2\nexported=3\n", map[string]string{"A": "1", "B": "2", "exported": "3"}},
		{"spaces around =", "A = 1  \n", map[string]string{"A": "1"}},
		{"colon", "A: 1\n", map[string]string{"A": "1"}},
		{"empty values", "A=\nC=''\nD=\"\"", map[string]string{"A": "", "C": "", "D": ""}},
		{"single quotes are literal", `A='a $B \n # x'`, map[string]string{"A": `a $B \n # x`}},
		{"double quotes escape", `A="line1\nline2\r \"q\" \\ \$HOME \d"`, map[string]string{"A": "line1\nline2\r \"q\" \\ $HOME d"}},
		{"quoted value spans lines", "KEY=\"-----BEGIN-----\nabc\n-----END-----\"\nB=2\n", map[string]string{"KEY": "-----BEGIN-----\nabc\n-----END-----", "B": "2"}},
		{"comment after quotes", `A="x" # c`, map[string]string{"A": "x"}},
		{"expansion from the file", "A=1\nB=${A}-$A\nC=\"${A}\"\nD='${A}'\n", map[string]string{"A": "1", "B": "1-1", "C": "1", "D": "${A}"}},
		{"not from the environment", "A=$HOME\nB=${PATH}x\nC=$home\n", map[string]string{"A": "", "B": "x", "C": "$home"}},
		{"CRLF", "A=1\r\nB='2'\r\n", map[string]string{"A": "1", "B": "2"}},
		{"last wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"names", "MCPDECL_VAR_api_key=k\nx.y=z\n", map[string]string{"MCPDECL_VAR_api_key": "k", "x.y": "z"}},
		{"value with =", "DSN=user=a password=b\n", map[string]string{"DSN": "user=a password=b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/x")
			got, diags := parseEnv([]byte(tt.src), "test.env")
			if diags.HasErrors() {
				t.Fatalf("unexpected errors: %v", diags)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestParseEnvErrors checks that a bad line is an error at its
// file:line:col, and that no error quotes the file: godotenv's own errors
// quote everything from the bad line to the end of the file.
func TestParseEnvErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		detail    string
	}{
		{"no =", "A=1\nJUST_A_NAME\nTOKEN=s3cret\n", 2, 12, `Line 2 of test.env has no "=" after its name.`},
		{"no = on the last line", "A=1\nTOKEN=s3cret\n  JUST_A_NAME", 3, 3, `Line 3 of test.env has no name before its "=", or no "=" after its name.`},
		{"no name", "A=1\n =s3cret\n", 2, 2, `Line 2 of test.env has no name before its "="`},
		{"shell syntax", "A=1\r\nexport A\r\nB=s3cret\r\n", 2, 9, `Line 2 of test.env has no "=" after its name.`},
		{"dash in a name", "A=1\nMY-VAR=s3cret\n", 2, 3, `Line 2 of test.env has a character a name cannot hold before its "="`},
		{"unclosed quote", "A=1\nB=\"s3cret-value\nC=3\n", 2, 3, "The value on line 2 of test.env opens a quote that is never closed."},
		{"unclosed quote, escaped ones after", "A=1\nB = 's3cret\\'value\\'\n", 2, 5, "The value on line 2 of test.env opens a quote that is never closed."},
		{"text after quote", "A='x' s3cret\n", 1, 13, `Line 1 of test.env has no "=" after its name.`},
		{"export alone", "A=s3cret\nexport  \n", 2, 9, `Line 2 of test.env has no "=" after its name.`},
		{"export alone on the last line", "A=s3cret\n\texport  ", 2, 2, "Line 2 of test.env cannot be read."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := parseEnv([]byte(tt.src), "test.env")
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %v", len(diags), diags)
			}
			d := diags[0]
			if d.Subject == nil || d.Subject.Filename != "test.env" || d.Subject.Start.Line != tt.line || d.Subject.Start.Column != tt.col {
				t.Errorf("subject %v, want test.env:%d:%d", d.Subject, tt.line, tt.col)
			}
			if !strings.Contains(d.Detail, tt.detail) {
				t.Errorf("detail %q does not say %q", d.Detail, tt.detail)
			}
			if strings.Contains(d.Summary+d.Detail, "s3cret") {
				t.Errorf("detail %q quotes the file", d.Detail)
			}
		})
	}
}

// TestServeReloadsEnvFile checks that SIGHUP reads the env files again: a
// running server answers with the value written to the file since.
func TestServeReloadsEnvFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "tools.hcl")
	envFile := filepath.Join(dir, "app.env")
	write(t, conf, `tool "hello" {
  description = "Says hello."
  text        = env("GREETING")
}
`)
	write(t, envFile, "GREETING=first\n")
	cmd := exec.Command(binary(t), "serve", "--env-file", envFile, conf)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GREETING=") })
	s := serveSession(t, cmd)
	hello := func() string {
		res, err := s.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello"})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("hello: %v %+v", err, res)
		}
		text, _ := res.Content[0].(*mcp.TextContent)
		if text == nil {
			t.Fatalf("hello answered %+v, not text", res.Content[0])
		}
		return text.Text
	}
	if got := hello(); got != "first" {
		t.Fatalf("hello = %q, want the file's value %q", got, "first")
	}
	write(t, envFile, "GREETING=second\n")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(enginetest.Patience)
	for hello() != "second" {
		if time.Now().After(deadline) {
			t.Fatalf("after SIGHUP hello still answers %q\nlogs:\n%s", hello(), s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
