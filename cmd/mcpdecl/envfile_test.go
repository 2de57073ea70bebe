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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
		{"empty values", "A=\nB= # nothing\nC=''\nD=\"\"", map[string]string{"A": "", "B": "", "C": "", "D": ""}},
		{"single quotes are literal", `A='a $B \n # x'`, map[string]string{"A": `a $B \n # x`}},
		{"double quotes escape", `A="line1\nline2\t\"q\" \\ \$HOME"`, map[string]string{"A": "line1\nline2\t\"q\" \\ $HOME"}},
		{"unknown escape kept", `A="\d"`, map[string]string{"A": `\d`}},
		{"quoted value spans lines", "KEY=\"-----BEGIN-----\nabc\n-----END-----\"\nB=2\n", map[string]string{"KEY": "-----BEGIN-----\nabc\n-----END-----", "B": "2"}},
		{"comment after quotes", `A="x" # c`, map[string]string{"A": "x"}},
		{"no expansion", "A=$HOME\nB=${A}", map[string]string{"A": "$HOME", "B": "${A}"}},
		{"CRLF", "A=1\r\nB='2'\r\n", map[string]string{"A": "1", "B": "2"}},
		{"last wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"names", "MCPDECL_VAR_api-key=k\nx.y=z\n", map[string]string{"MCPDECL_VAR_api-key": "k", "x.y": "z"}},
		{"value with =", "DSN=user=a password=b\n", map[string]string{"DSN": "user=a password=b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := parseEnv(tt.src, "test.env")
			if diags.HasErrors() {
				t.Fatalf("unexpected errors: %v", diags)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseEnvErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		detail    string
	}{
		{"no =", "A=1\nJUST_A_NAME\n", 2, 12, `has no "=" after the name JUST_A_NAME`},
		{"bad name", "A=1\n\n1A=2\n", 3, 1, "does not start with a name"},
		{"shell syntax", "A=1\nexport A\n", 2, 9, `has no "="`},
		{"unclosed quote", "A=1\nB=\"s3cret-value\nC=3\n", 2, 3, "opens a quote that is never closed"},
		{"text after quote", "A='s3cret' extra\n", 1, 12, "text after the closing quote"},
		{"space in name", "MY VAR=1\n", 1, 4, `has no "=" after the name MY`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := parseEnv(tt.src, "test.env")
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
			if strings.Contains(d.Detail, "s3cret") {
				t.Errorf("detail %q quotes the value", d.Detail)
			}
		})
	}
}

// TestServeReloadsEnvFile checks that SIGHUP reads the env files again: a
// running server answers with the value written to the file since.
func TestServeReloadsEnvFile(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "tools.hcl")
	envFile := filepath.Join(dir, "app.env")
	write(t, conf, `tool "hello" {
  description = "Says hello."
  text        = env("GREETING")
}
`)
	write(t, envFile, "GREETING=first\n")
	cmd := exec.Command(bin, "serve", "--env-file", envFile, conf)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GREETING=") })
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "envfile-test", Version: "0"}, nil)
	ctx := context.Background()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer session.Close()
	hello := func() string {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "hello"})
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
	deadline := time.Now().Add(10 * time.Second)
	for hello() != "second" {
		if time.Now().After(deadline) {
			t.Fatalf("after SIGHUP hello still answers %q\nlogs:\n%s", hello(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
