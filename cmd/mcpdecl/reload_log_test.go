package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// brokenEdit has two errors.
const brokenEdit = `tool "a" {
  description = "A."
  text        = expr("args.nope")
}
tool "b" {
  description = "B."
  bogus       = 1
}
`

// reloadBroken serves a good configuration, replaces it with brokenEdit,
// asks for a reload and returns what was logged in format.
func reloadBroken(t *testing.T, format string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tools.hcl")
	write(t, file, "tool \"a\" {\n  description = \"A.\"\n  text        = \"a\"\n}\n")
	logs := &syncBuffer{}
	a := &app{stdout: &bytes.Buffer{}, stderr: logs, logLevel: "info", logFormat: format}
	logger, err := a.logger()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := a.load([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	live := server.NewLive(cfg, logger, server.Options{})
	defer live.Close()
	if err := os.WriteFile(file, []byte(brokenEdit), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reloads := make(chan string, 1)
	reloads <- "test"
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.reloadLoop(ctx, []string{file}, live, reloads, logger, func(bool) {})
	}()
	deadline := time.Now().Add(enginetest.Patience)
	for !strings.Contains(logs.String(), "reload failed") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	return logs.String()
}

// TestReloadLogsDiagnostics: a broken edit is logged one diagnostic a
// record, with its place and text as attributes, then a summary.
func TestReloadLogsDiagnostics(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		logs := reloadBroken(t, "text")
		for _, want := range []string{
			`level=ERROR msg="configuration error" file=`,
			` line=3 col=`,
			`level=ERROR msg="reload failed: 2 errors; the previous configuration keeps serving" reason=test`,
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("the logs lack %q:\n%s", want, logs)
			}
		}
		if n := strings.Count(logs, `msg="configuration error"`); n != 2 {
			t.Errorf("%d diagnostic records, want 2:\n%s", n, logs)
		}
		if strings.Contains(logs, `\n`) {
			t.Errorf("a record holds an escaped newline:\n%s", logs)
		}
	})
	t.Run("json", func(t *testing.T) {
		logs := reloadBroken(t, "json")
		var diags []map[string]any
		var summary map[string]any
		for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("not a JSON line: %s", line)
			}
			switch msg, _ := rec["msg"].(string); {
			case msg == "configuration error":
				diags = append(diags, rec)
			case strings.HasPrefix(msg, "reload failed"):
				summary = rec
			}
		}
		if len(diags) != 2 || summary == nil {
			t.Fatalf("records: %d diagnostics, summary %v:\n%s", len(diags), summary, logs)
		}
		first := diags[0]
		if first["file"] == nil || first["line"] != float64(3) || first["col"] == nil || first["summary"] == "" || first["detail"] == "" {
			t.Errorf("first diagnostic = %v, want file, line 3, col, summary and detail", first)
		}
	})
}
