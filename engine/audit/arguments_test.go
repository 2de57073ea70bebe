package audit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestCapArguments(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	args := map[string]any{
		"short":  "ok",
		"long":   long,
		"nested": []any{map[string]any{"deep": long}, json.Number("3")},
	}
	got, omitted := capArguments(args)
	if omitted != 0 {
		t.Errorf("omitted = %d, want 0", omitted)
	}
	want := strings.Repeat("é", 128) + "…(400 bytes)"
	m := got.(map[string]any)
	if m["short"] != "ok" || m["long"] != want {
		t.Errorf("short = %q, long = %q, want ok and %q", m["short"], m["long"], want)
	}
	if deep := m["nested"].([]any)[0].(map[string]any)["deep"]; deep != want {
		t.Errorf("a nested string = %q, want %q", deep, want)
	}

	// Many arguments: the record stays under the cap, and says how many
	// it left out.
	many := map[string]any{}
	for i := range 40 {
		many[fmt.Sprintf("a%02d", i)] = strings.Repeat("x", 250)
	}
	got, omitted = capArguments(many)
	b, _ := json.Marshal(got)
	if len(b) > maxAuditArguments {
		t.Errorf("capped arguments are %d bytes, over %d", len(b), maxAuditArguments)
	}
	if kept := len(got.(map[string]any)); omitted == 0 || kept+omitted != 40 || kept == 0 {
		t.Errorf("kept %d and omitted %d of 40", kept, omitted)
	}
	if _, ok := got.(map[string]any)["a00"]; !ok {
		t.Errorf("the first argument by name was left out: %s", b)
	}

	// Not an object: the phrase AuditArguments writes is kept.
	if got, _ := capArguments("(not a JSON object)"); got != "(not a JSON object)" {
		t.Errorf("capArguments(phrase) = %v", got)
	}
}
