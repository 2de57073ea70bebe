package load_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// FuzzLoad loads arbitrary configuration text: it never panics, and either
// yields a configuration or errors, each with a summary and, when it has a
// range, one inside the file.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(callConfig))
	f.Add([]byte(safeguardsConfig))
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.hcl"))
	for _, p := range examples {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`tool "x" { description = "d" arg "a" { type = list(object({b = number})) } text = expr("args.a[0].b") }`))
	f.Add([]byte("variable \"v\" {\n  default = 1\n}\nlocals {\n  l = var.v + 1\n}\n"))
	reg := engine.NewRegistry(fakeAdapter{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		file, err := os.CreateTemp(dir, "*.hcl")
		if err != nil {
			t.Fatal(err)
		}
		path := file.Name()
		defer os.Remove(path)
		_, err = file.Write(src)
		if err := errors.Join(err, file.Close()); err != nil {
			t.Fatal(err)
		}
		cfg, _, diags := load.Load(load.Options{Registry: reg, LookupEnv: enginetest.MapEnv(nil)}, path)
		if cfg != nil {
			defer cfg.Close()
		}
		if (cfg == nil) != diags.HasErrors() {
			t.Fatalf("config %v with errors %v", cfg != nil, diags.HasErrors())
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, d := range diags {
			if d.Summary == "" {
				t.Fatalf("a diagnostic without a summary: %+v", d)
			}
			if d.Subject != nil && d.Subject.Filename == path && (d.Subject.Start.Line < 1 || d.Subject.End.Line > lines+1) {
				t.Fatalf("%q points outside the file (%d lines): %s", d.Summary, lines, d.Subject)
			}
		}
	})
}

const fuzzCallConfig = `
server {
  max_result_bytes = 2048
}
variable "key" {
  default   = "sk-fuzz-secret-123"
  sensitive = true
}
tool "shape" {
  description = "Maps whatever the upstream returns."
  arg "data" { type = any }
  arg "pw" {
    type      = string
    sensitive = true
    optional  = true
  }
  fake { body = expr("args.data") }
  error_if      = expr("body == nil")
  error_message = expr("'nothing for ' + string(args.pw)")
  output "kind" {
    type  = string
    value = expr("type(body)")
  }
  output "first" {
    type     = any
    optional = true
    value    = expr("type(body) == 'array' && len(body) > 0 ? body[0] : nil")
  }
  output "size" {
    type  = integer
    value = expr("type(body) in ['array', 'map', 'string'] ? len(body) : 0")
  }
  content "text" {
    text = expr("toJSON(body) + ' ' + string(args.pw)")
  }
  content "text" {
    when = expr("type(body) == 'string'")
    text = expr("body")
  }
}
`

// FuzzCall runs a tool on arbitrary arguments and upstream bodies: a call
// never panics, an error has a message, a success has structured content
// that the output schema accepts, and no result holds a secret or exceeds
// max_result_bytes by more than its notices.
func FuzzCall(f *testing.F) {
	for _, seed := range []string{
		`{"data": [1, 2, 3]}`,
		`{"data": {"a": "b"}, "pw": "hunter2-pass"}`,
		`{"data": "\u001b[31mred\u001b[0m sk-fuzz-secret-123"}`,
		`{"data": null, "pw": "hunter2-pass"}`,
		`{"data": [[[[[[]]]]]]}`,
		`{"pw": 3}`, `[]`,
		`{"abcdefgh": null, "pw": "abcdefgh"}`, // a sensitive value named as an unknown property `{"data": "` + strings.Repeat("x", 3000) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	cfg, diags := loadString(f, fuzzCallConfig, nil, nil)
	if diags.HasErrors() {
		f.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("shape")
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 16<<10 {
			return
		}
		res := tool.Call(context.Background(), raw)
		if len(res.Content) == 0 {
			t.Fatal("a result without content")
		}
		all, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("the result does not marshal: %v", err)
		}
		if strings.Contains(string(all), "sk-fuzz-secret-123") {
			t.Fatalf("a secret leaked: %s", all)
		}
		var args struct {
			PW any `json:"pw"`
		}
		if json.Unmarshal(raw, &args) == nil {
			// The text of the result, less the notices the server adds.
			var kept strings.Builder
			for _, c := range res.Content {
				for line := range strings.SplitSeq(c.Text, "\n") {
					if !strings.HasPrefix(line, "[") {
						kept.WriteString(line + "\n")
					}
				}
			}
			if pw, ok := args.PW.(string); ok && len(pw) >= 8 && !strings.Contains(text.Mask, pw) && strings.Contains(kept.String(), pw) {
				t.Fatalf("a sensitive argument leaked: %s", all)
			}
		}
		if res.IsError {
			if res.Text() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if vs := tool.ValidateOutput(res.Structured); len(vs) > 0 {
			t.Fatalf("structured content breaks the output schema: %v", vs)
		}
		size := 0
		for _, c := range res.Content {
			size += len(c.Text) + len(c.Data)
			if strings.ContainsAny(c.Text, "\x1b\r\x00") {
				t.Fatalf("a control character in text: %q", c.Text)
			}
		}
		if size > 2048+512 {
			t.Fatalf("the result takes %d bytes, beyond max_result_bytes", size)
		}
	})
}
