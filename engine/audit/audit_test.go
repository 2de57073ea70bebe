package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/audit"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// TestLogWritesOnlyWhileOpen checks that a tool whose path holds an audit
// log writes one line per call while a server has the log open, and none
// before or after: mcpdecl call and mcpdecl test audit nothing.
func TestLogWritesOnlyWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	log := &audit.Log{File: path, Arguments: true}
	spec := engine.ToolSpec{Name: "login", Text: mapping.Const("in"), Outer: []engine.CallLayer{log}, Args: []schema.Arg{
		{Name: "user", Type: &schema.Type{Kind: schema.String}},
		{Name: "password", Type: &schema.Type{Kind: schema.String}, Sensitive: true},
	}}
	tool, err := engine.NewTool(spec, engine.DefaultSettings(), &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := engine.WithCaller(context.Background(), engine.Caller{ID: "static:ci"})
	call := func() {
		if res := tool.Call(ctx, json.RawMessage(`{"user":"ann","password":"hunter2-long-secret"}`)); res.IsError {
			t.Fatalf("call failed: %s", res.Text())
		}
	}

	call()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a log no server opened was written to (stat: %v)", err)
	}
	if err := log.Open(io.Discard, false); err != nil {
		t.Fatal(err)
	}
	call()
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	call()

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	if len(lines) != 1 {
		t.Fatalf("%d lines, want the one of the call made while the log was open:\n%s", len(lines), raw)
	}
	if strings.Contains(string(raw), "hunter2") {
		t.Errorf("the line shows a sensitive argument:\n%s", raw)
	}
	var line struct {
		Tool, Client, Outcome string
		Arguments             map[string]any
	}
	if err := json.Unmarshal(lines[0], &line); err != nil {
		t.Fatalf("the line is not JSON: %v\n%s", err, raw)
	}
	if line.Tool != "login" || line.Client != "static:ci" || line.Outcome != "ok" || line.Arguments["user"] != "ann" || line.Arguments["password"] != text.Mask {
		t.Errorf("line = %s, want tool login, client static:ci, outcome ok, user ann and the password masked", lines[0])
	}
}
