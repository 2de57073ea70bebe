package load_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// These tests run whole calls through tools loaded from HCL, with the fake
// action, to check the call pipeline: arguments, action, error rules,
// outputs and text.

const callConfig = `
tool "weather" {
  description = "d"
  arg "city" {
    type       = string
    min_length = 2
  }
  arg "days" {
    type    = integer
    default = 3
    minimum = 1
    maximum = 7
  }
  arg "email" {
    type     = string
    format   = "email"
    optional = true
  }
  fake {
    body = {
      city  = expr("args.city")
      days  = expr("args.days")
      temps = [21.5, 19]
      code  = expr("args.city == 'Nowhere' ? 'missing' : 'ok'")
    }
  }
  output "city" {
    type  = string
    value = expr("body.city")
  }
  output "days" {
    type  = integer
    value = expr("args.days * 1")
  }
  output "first" {
    type        = number
    description = "First temperature"
    value       = expr("body.temps[0]")
  }
  output "code" {
    type  = integer
    value = expr("body.code == 'ok' ? 200 : body.code")
  }
  output "note" {
    type     = string
    optional = true
    value    = expr("nil")
  }
}

tool "failing" {
  description = "d"
  arg "status" {
    type = integer
  }
  fake {
    status = 503
    body   = "upstream down"
  }
}

tool "judged" {
  description = "d"
  arg "code" { type = integer }
  fake {
    status = 404
    body   = { code = expr("args.code") }
  }
  error_if      = expr("body.code >= 500")
  error_message = expr("'bad code ' + string(body.code)")
  text          = expr("'code ' + string(body.code)")
}

tool "crash" {
  description = "d"
  fake { body = {} }
  output "deep" {
    value = expr("body.a.b.c")
  }
}

tool "slow" {
  description = "d"
  timeout     = "100ms"
  fake { sleep = "10s" }
}

tool "listed" {
  description = "d"
  arg "n" { type = integer }
  fake { body = { items = expr("args.n == 0 ? [1, 'two'] : [1, 2]") } }
  output "items" {
    description = "The items."
    schema      = jsonencode({ type = "array", items = { type = "integer" }, description = "Numbers." })
    value       = expr("body.items")
  }
}
`

func TestCall(t *testing.T) {
	cfg, diags := loadString(t, callConfig, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tests := []struct {
		tool, args string
		isError    bool
		want       []string // substrings of the text
		structured string   // the JSON of structuredContent, when not empty
	}{
		{
			tool: "weather", args: `{"city": "Paris"}`,
			structured: `{"city":"Paris","code":200,"days":3,"first":21.5}`,
			want:       []string{`{"city":"Paris","code":200,"days":3,"first":21.5}`},
		},
		{
			tool: "weather", args: `{"city": "Oslo", "days": 7}`,
			structured: `{"city":"Oslo","code":200,"days":7,"first":21.5}`,
		},
		{
			// Every violation at once, each with its pointer.
			tool: "weather", args: `{"city": "P", "days": 9.5, "email": "nope", "color": "red"}`,
			isError: true,
			want:    []string{"invalid arguments", "/city", "/days", "/email", "color"},
		},
		{tool: "weather", args: `{}`, isError: true, want: []string{"invalid arguments", "city"}},
		{tool: "weather", args: `[1, 2]`, isError: true, want: []string{"must be a JSON object"}},
		{tool: "weather", args: `{"city": `, isError: true, want: []string{"not valid JSON"}},
		{
			// A result that breaks the output schema is an error naming the field.
			tool: "weather", args: `{"city": "Nowhere"}`,
			isError: true,
			want:    []string{"does not match the tool's outputSchema", "/code"},
		},
		{tool: "failing", args: `{"status": 1}`, isError: true, want: []string{"fake failure with status 503"}},
		{tool: "judged", args: `{"code": 404}`, want: []string{"code 404"}},
		{tool: "judged", args: `{"code": 500}`, isError: true, want: []string{"bad code 500"}},
		{tool: "crash", args: ``, isError: true, want: []string{"tools.hcl:", `expr("body.a.b.c") failed`}},
		{tool: "slow", args: `{}`, isError: true, want: []string{"timed out after 100ms"}},
		// An output's schema is held whole, and a value that breaks it is an error.
		{tool: "listed", args: `{"n": 1}`, structured: `{"items":[1,2]}`},
		{tool: "listed", args: `{"n": 0}`, isError: true, want: []string{"does not match the tool's outputSchema", "/items/1"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			tool, ok := cfg.Tool(tt.tool)
			if !ok {
				t.Fatalf("no tool %q", tt.tool)
			}
			res := tool.Call(context.Background(), json.RawMessage(tt.args))
			if res.IsError != tt.isError {
				t.Fatalf("isError = %v, want %v; text: %s", res.IsError, tt.isError, res.Text())
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("text does not contain %q:\n%s", w, res.Text())
				}
			}
			if tt.structured != "" {
				got, _ := json.Marshal(res.Structured)
				if string(got) != tt.structured {
					t.Errorf("structured = %s, want %s", got, tt.structured)
				}
			}
		})
	}
}

func TestCallCancelled(t *testing.T) {
	cfg, diags := loadString(t, callConfig, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("slow")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	res := tool.Call(ctx, nil)
	if !res.IsError || res.Text() != "the call was cancelled" {
		t.Errorf("got %v %q", res.IsError, res.Text())
	}
}

func TestSchemas(t *testing.T) {
	cfg, diags := loadString(t, callConfig, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("weather")
	in, _ := json.Marshal(tool.InputSchema())
	const wantIn = `{"additionalProperties":false,"properties":{"city":{"minLength":2,"type":"string"},"days":{"default":3,"maximum":7,"minimum":1,"type":"integer"},"email":{"format":"email","type":"string"}},"required":["city"],"type":"object"}`
	if string(in) != wantIn {
		t.Errorf("inputSchema =\n%s\nwant\n%s", in, wantIn)
	}
	out, _ := json.Marshal(tool.OutputSchema())
	const wantOut = `{"additionalProperties":false,"properties":{"city":{"type":"string"},"code":{"type":"integer"},"days":{"type":"integer"},"first":{"description":"First temperature","type":"number"},"note":{"type":"string"}},"required":["city","days","first","code"],"type":"object"}`
	if string(out) != wantOut {
		t.Errorf("outputSchema =\n%s\nwant\n%s", out, wantOut)
	}
	// A schema's own description wins over the block's.
	listed, _ := cfg.Tool("listed")
	out, _ = json.Marshal(listed.OutputSchema())
	const wantListed = `{"additionalProperties":false,"properties":{"items":{"description":"Numbers.","items":{"type":"integer"},"type":"array"}},"required":["items"],"type":"object"}`
	if string(out) != wantListed {
		t.Errorf("outputSchema =\n%s\nwant\n%s", out, wantListed)
	}
}

func TestContentBlocks(t *testing.T) {
	cfg, diags := loadString(t, `
tool "mixed" {
  description = "d"
  arg "verbose" {
    type    = bool
    default = false
  }
  fake {
    body = { id = 7, name = "seven" }
  }
  output "id" {
    type  = integer
    value = expr("body.id")
  }
  content "text" {
    text = expr("'item ' + body.name")
    annotations {
      audience = ["user"]
      priority = 0.5
    }
  }
  content "text" {
    when = expr("args.verbose")
    text = expr("body")
  }
  content "image" {
    data      = "iVBORw0KGgo="
    mime_type = "image/png"
  }
  content "resource_link" {
    uri  = expr("'test://items/' + string(body.id)")
    name = "item"
  }
  content "resource" {
    uri       = "test://r"
    mime_type = "text/plain"
    text      = "embedded"
  }
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("mixed")
	for _, tt := range []struct {
		args  string
		types string
	}{
		{`{}`, "text image resource_link resource"},
		{`{"verbose": true}`, "text text image resource_link resource"},
	} {
		res := tool.Call(context.Background(), json.RawMessage(tt.args))
		if res.IsError {
			t.Fatal(res.Text())
		}
		var types []string
		for _, c := range res.Content {
			types = append(types, string(c.Type))
		}
		if strings.Join(types, " ") != tt.types {
			t.Errorf("%s: content types %v, want %s", tt.args, types, tt.types)
		}
		c := res.Content
		if c[0].Text != "item seven" || c[0].Annotations == nil || c[0].Annotations.Audience[0] != "user" || *c[0].Annotations.Priority != 0.5 {
			t.Errorf("first block = %+v", c[0])
		}
		if link := c[len(c)-2]; link.URI != "test://items/7" || link.Name != "item" {
			t.Errorf("resource link = %+v", link)
		}
		if img := c[len(c)-3]; string(img.Data[:4]) != "\x89PNG" {
			t.Errorf("image data = %q", img.Data)
		}
		if res.Structured["id"] != 7 {
			t.Errorf("structured = %v", res.Structured)
		}
	}

	_, diags = loadString(t, `
tool "bad" {
  description = "d"
  content "video" {}
  content "image" {
    data      = "not base64!"
    mime_type = "image/png"
  }
  content "resource" {
    uri = "x://y"
  }
}`, nil, nil)
	got := describe(diags)
	for _, want := range []string{
		`4:11-4:18: Invalid content type: "video" is not a content type`,
		`6:17-6:30: Invalid data: data is not valid base64`,
		`Invalid resource content: An embedded resource takes exactly one of text or blob`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
}

func TestToolMetadata(t *testing.T) {
	cfg, diags := loadString(t, `
tool "pretty" {
  title       = "Pretty"
  description = "d"
  icons       = [{ src = "https://example.com/i.png", mime_type = "image/png", sizes = ["48x48"], theme = "dark" }]
  meta        = { "example.com/owner" = "team-a" }
  text        = "ok"
}`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("pretty")
	if icons := tool.Icons(); len(icons) != 1 || icons[0].Src != "https://example.com/i.png" || icons[0].Sizes[0] != "48x48" || icons[0].Theme != "dark" {
		t.Errorf("icons = %+v", icons)
	}
	if tool.Meta()["example.com/owner"] != "team-a" || tool.Title() != "Pretty" {
		t.Errorf("meta = %v, title = %q", tool.Meta(), tool.Title())
	}
	_, diags = loadString(t, `
tool "ugly" {
  description = "d"
  icons       = [{ src = "http://example.com/i.png" }]
}`, nil, nil)
	if !strings.Contains(describe(diags), "Invalid icons: An icon's src must be an https: or data: URI.") {
		t.Errorf("got %s", describe(diags))
	}
}
