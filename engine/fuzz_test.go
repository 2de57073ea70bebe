package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// replayAdapter is the action of block replay {}: each run returns the
// variables the call's context carries (see withVars), so that a fuzz
// target decides what the "upstream" answered.
type replayAdapter struct{}

func (replayAdapter) Kind() string { return "replay" }

func (replayAdapter) Result() mapping.Env {
	return mapping.Env{"status": types.Int, "body": types.Any, "headers": types.Any}
}

func (replayAdapter) DecodeAction(_ *engine.DecodeContext, block *hcl.Block) (engine.Action, hcl.Diagnostics) {
	_, diags := block.Body.Content(&hcl.BodySchema{})
	return replayAction{}, diags
}

type replayAction struct{}

type varsKey struct{}

// withVars makes the replay action of calls under ctx return resp.
func withVars(ctx context.Context, resp *engine.Response) context.Context {
	return context.WithValue(ctx, varsKey{}, resp)
}

func (replayAction) Run(ctx context.Context, _ map[string]any) (*engine.Response, error) {
	r, _ := ctx.Value(varsKey{}).(*engine.Response)
	if r == nil {
		return &engine.Response{}, nil
	}
	vars := make(map[string]any, len(r.Vars)+1) // a new map for every run
	for k, v := range r.Vars {
		vars[k] = v
	}
	return &engine.Response{Vars: vars, Failure: r.Failure, Content: r.Content}, nil
}

// fuzzSecret is the value of a sensitive variable: no result may show it.
const fuzzSecret = "tok-fuzz-secret-42"

const fuzzCallSource = `
server {
  max_result_bytes = 4096
}
variable "token" {
  default   = "` + fuzzSecret + `"
  sensitive = true
}
tool "typed" {
  description = "Outputs of every type, a text program and an error rule."
  arg "q" {
    type       = string
    min_length = 1
    max_length = 64
  }
  arg "n" {
    type    = integer
    default = 1
    minimum = 0
    maximum = 100
  }
  arg "tags" {
    type     = list(string)
    optional = true
  }
  arg "opts" {
    type     = object({ deep = bool })
    optional = true
  }
  replay {}
  error_if      = expr("status >= 400 || body == nil")
  error_message = expr("'upstream said ' + string(status) + ': ' + toJSON(body)")
  output "status" {
    type  = integer
    value = expr("status")
  }
  output "echo" {
    type  = string
    value = expr("args.q")
  }
  output "name" {
    type     = string
    optional = true
    value    = expr("type(body) == 'map' ? body.name : nil")
  }
  output "count" {
    type  = integer
    value = expr("type(body) in ['array', 'map', 'string'] ? len(body) : 0")
  }
  output "items" {
    type     = list(string)
    optional = true
    value    = expr("type(body) == 'map' ? body.items : nil")
  }
  output "score" {
    type     = number
    optional = true
    value    = expr("type(body) == 'map' ? body.score : nil")
  }
  output "obj" {
    type     = object({ a = number, b = list(bool) })
    optional = true
    value    = expr("type(body) == 'map' ? body.obj : nil")
  }
  output "raw" {
    type  = any
    value = expr("body")
  }
  text = expr("args.q + ' x' + string(args.n) + ': ' + toJSON(body) + ' ' + toJSON(headers)")
}
tool "contents" {
  description = "Content blocks of every kind, over whatever came back."
  arg "q" {
    type     = string
    optional = true
  }
  replay {}
  output "first" {
    type     = any
    optional = true
    value    = expr("type(body) == 'array' && len(body) > 0 ? body[0] : nil")
  }
  content "text" {
    text = expr("toJSON(body)")
    annotations {
      audience = ["user"]
      priority = 0.5
    }
  }
  content "text" {
    when = expr("type(body) == 'string'")
    text = expr("body")
  }
  content "image" {
    when      = expr("type(body) == 'map' && type(body.png) == 'string'")
    data      = expr("body.png")
    mime_type = "image/png"
  }
  content "resource_link" {
    uri  = expr("'test://items/' + string(status)")
    name = expr("args.q ?? 'item'")
  }
  content "resource" {
    uri       = "test://r"
    mime_type = "application/json"
    text      = expr("toJSON(headers)")
  }
}
`

// wholeNumbers turns whole float64s that are exact into ints, as the
// adapters do with decoded JSON.
func wholeNumbers(v any) any {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) && math.Abs(t) <= 1<<53 {
			return int(t)
		}
	case []any:
		for i, e := range t {
			t[i] = wholeNumbers(e)
		}
	case map[string]any:
		for k, e := range t {
			t[k] = wholeNumbers(e)
		}
	}
	return v
}

// replayed builds what the action returns from fuzzed JSON, keeping the
// adapter's promises (status is an int; the other variables are decoded
// JSON): an object's "status", "body", "headers" and "failure" are taken as
// such, any other value is the body.
func replayed(raw []byte) *engine.Response {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return &engine.Response{Vars: map[string]any{"status": 200, "body": string(raw), "headers": nil}}
	}
	v = wholeNumbers(v)
	r := &engine.Response{Vars: map[string]any{"status": 200, "body": v, "headers": nil}}
	if m, ok := v.(map[string]any); ok {
		if _, ok := m["body"]; ok {
			r.Vars["body"] = m["body"]
			r.Vars["headers"] = m["headers"]
			if s, ok := m["status"].(int); ok {
				r.Vars["status"] = s
			}
			if f, ok := m["failure"].(string); ok {
				r.Failure = f
			}
		}
	}
	return r
}

// FuzzCall drives two tools built by the loader, one with typed outputs,
// text and error_if, one with content blocks, with arbitrary arguments and
// arbitrary action results. A call never panics and always answers: either
// a tool error with a message and no structured content, or a success
// whose structured content the output schema accepts. Either way the
// result marshals to JSON, its text and structured content are valid
// UTF-8 without terminal control characters, it stays near max_result_bytes, and it never shows
// the sensitive variable.
func FuzzCall(f *testing.F) {
	seeds := []struct {
		tool       uint8
		args, vars string
	}{
		{0, `{"q": "hello"}`, `{"body": {"name": "x", "items": ["a"], "score": 1.5, "obj": {"a": 1, "b": [true]}}, "status": 200}`},
		{0, `{"q": "hello", "n": 3, "tags": ["a"], "opts": {"deep": true}}`, `{"body": [1, 2, 3], "headers": {"content-type": "application/json"}}`},
		{0, `{"q": "x"}`, `{"body": {"name": 42}}`},
		{0, `{"q": "x"}`, `{"body": {"obj": {"a": "nope"}}}`},
		{0, `{"q": "x"}`, `{"body": null, "status": 503, "failure": "HTTP 503"}`},
		{0, `{"q": "x"}`, `{"body": "` + fuzzSecret + `", "status": 500}`},
		{0, `{"q": ""}`, `{}`},
		{0, `{"q": "x", "n": 101}`, `[]`},
		{0, `{"q": "x", "n": 1.5, "extra": 1}`, `"text"`},
		{0, `{"q": "x"}`, `{"body": "` + strings.Repeat("y", 5000) + `"}`},
		{0, `{"q": "x"}`, `{"body": "\u001b[31mred\u001b[0m\r\u009b"}`},
		{0, `{"q": "x"}`, `{"body": {"name": "\u001b]0;t\u0007x", "items": ["\u0000"], "obj": {"k\u001b[1m": "\u009d8;;u\u009c"}}}`},
		{1, `{"q": "x"}`, `{"body": {"png": "iVBORw0KGgo="}}`},
		{1, `{}`, `{"body": {"png": "not base64!"}}`},
		{1, `{"q": null}`, `{"body": [{"deep": [[[]]]}], "headers": {"x": "` + fuzzSecret + `"}}`},
		{1, `null`, `not json at all`},
		{1, `{"q": "\u0000"}`, `{"body": "\u0000", "status": -1}`},
	}
	for _, s := range seeds {
		f.Add(s.tool, []byte(s.args), []byte(s.vars))
	}

	path := filepath.Join(f.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(fuzzCallSource), 0o600); err != nil {
		f.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(replayAdapter{}), LookupEnv: func(string) (string, bool) { return "", false }}, path)
	if diags.HasErrors() {
		f.Fatal(diags)
	}
	f.Cleanup(func() { _ = cfg.Close() })
	var tools []*engine.Tool
	for _, name := range []string{"typed", "contents"} {
		tool, ok := cfg.Tool(name)
		if !ok {
			f.Fatalf("no tool %s", name)
		}
		tools = append(tools, tool)
	}

	f.Fuzz(func(t *testing.T, which uint8, args, vars []byte) {
		if len(args)+len(vars) > 32<<10 {
			return
		}
		tool := tools[int(which)%len(tools)]
		res := tool.Call(withVars(context.Background(), replayed(vars)), args)
		if res == nil || len(res.Content) == 0 {
			t.Fatalf("%s: a result without content: %+v", tool.Name(), res)
		}
		all, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("the result does not marshal: %v", err)
		}
		if bytes.Contains(all, []byte(fuzzSecret)) {
			t.Fatalf("the sensitive variable leaked: %s", all)
		}
		size := 0
		for _, c := range res.Content {
			size += len(c.Text) + len(c.Data) + len(c.URI) + len(c.Name)
			if !utf8.ValidString(c.Text) {
				t.Fatalf("text is not UTF-8: %q", c.Text)
			}
			for _, f := range []string{c.Text, c.Name, c.Title, c.Description, c.URI, c.MIMEType} {
				if hasControl(f) {
					t.Fatalf("a terminal control character in a %s block: %q", c.Type, f)
				}
			}
		}
		if valueHasControl(res.Structured) {
			t.Fatalf("a terminal control character in the structured content: %s", all)
		}
		if size > 4096+1024 {
			t.Fatalf("the result takes %d bytes, beyond max_result_bytes", size)
		}
		if res.IsError {
			if strings.TrimSpace(res.Text()) == "" {
				t.Fatalf("a tool error without a message: %+v", res)
			}
			if res.Structured != nil {
				t.Fatalf("a tool error with structured content: %v", res.Structured)
			}
			return
		}
		if tool.OutputSchema() != nil && res.Structured == nil {
			t.Fatalf("a success without structured content: %s", all)
		}
		if vs := tool.ValidateOutput(res.Structured); len(vs) > 0 {
			t.Fatalf("structured content %s breaks the output schema: %v", all, vs)
		}
		// What the client gets is the JSON: it must validate too.
		var back map[string]any
		b, _ := json.Marshal(res.Structured)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&back); err != nil {
			t.Fatal(err)
		}
		if vs := tool.ValidateOutput(back); len(vs) > 0 {
			t.Fatalf("structured content, as JSON, breaks the output schema: %s: %v", b, vs)
		}
	})
}

// hasControl reports whether s holds a terminal control character: C0
// but newline and tab, DEL, C1.
func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

// valueHasControl reports whether a string or a key in v holds a terminal
// control character.
func valueHasControl(v any) bool {
	switch x := v.(type) {
	case string:
		return hasControl(x)
	case []any:
		for _, e := range x {
			if valueHasControl(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if hasControl(k) || valueHasControl(e) {
				return true
			}
		}
	}
	return false
}
