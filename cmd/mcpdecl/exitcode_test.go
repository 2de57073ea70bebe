package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes checks the exit codes docs/commands.md promises: 0 success, 1 a
// configuration error or a failed call, 2 a mistake on the command line.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.hcl")
	bad := filepath.Join(dir, "bad.hcl")
	write(t, good, `tool "fixed" {
  description = "A fixed answer."
  text        = "42"
}
tool "fails" {
  description = "Always a tool error."
  error_if    = expr("true")
  error_message = "no"
}`)
	write(t, bad, `tool "x" {}`)

	tests := []struct {
		args []string
		want int
	}{
		{[]string{"validate", good}, exitOK},
		{[]string{"call", good, "fixed"}, exitOK},
		{[]string{"version"}, exitOK},
		{[]string{"validate", bad}, exitError},
		{[]string{"validate", filepath.Join(dir, "missing.hcl")}, exitError},
		{[]string{"call", good, "fails"}, exitError},
		{[]string{"call", good, "nope"}, exitUsage},
		{[]string{"call", good, "fixed", "q=hello"}, exitUsage},
		{[]string{"call", good, "fixed", "[1]"}, exitUsage},
		{[]string{"call", good, "fixed", `{"q": `}, exitUsage},
		{[]string{"call", good, "fixed", ` {} `}, exitOK},
		{[]string{"call", good, "missing", "fixed"}, exitUsage},
		{[]string{"call", good, "fixed", `{"unexpected": 1}`}, exitError},
		{[]string{"validate"}, exitUsage},
		{[]string{"validate", "--nope", good}, exitUsage},
		{[]string{"nope"}, exitUsage},
		{[]string{"version", "extra"}, exitUsage},
		{[]string{"serve", "--log-level", "loud", good}, exitUsage},
		{[]string{"serve", "--http", ":99999", good}, exitUsage},
		{[]string{"serve", "--http", "localhost", good}, exitUsage},
		{[]string{"serve", "--metrics-addr", "127.0.0.1:x9", good}, exitUsage},
		{[]string{"validate", "--var", "novalue", good}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := Main(tt.args, strings.NewReader(""), &stdout, &stderr)
			if got != tt.want {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", got, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
