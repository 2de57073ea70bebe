package load_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSensitiveValueShownToClients checks that a value derived from a
// sensitive variable, in any attribute that clients see, is a load error
// at the reference, which names the attribute and the variable.
func TestSensitiveValueShownToClients(t *testing.T) {
	const head = `
variable "key" {
  type      = string
  default   = "s3cr3t-value"
  sensitive = true
}
variable "headers" {
  type      = map(string)
  default   = { X-Key = "map-secret" }
  sensitive = true
}
locals {
  derived = upper(var.key)
  secret_schema = { type = "string", description = var.key }
}
`
	tests := []struct {
		name, src, what, ref string
	}{
		{"server instructions", `server {
  name         = "s"
  instructions = "Use key ${var.key}."
}`, "The instructions of the server", "var.key"},
		{"server title", `server {
  name  = "s"
  title = local.derived
}`, "The title of the server", "local.derived"},
		{"tool title", `tool "t" {
  title       = var.key
  description = "d"
}`, "The title of a tool", "var.key"},
		{"tool description", `tool "t" {
  description = "Calls with ${lower(var.key)}"
}`, "The description of a tool", "var.key"},
		{"tool meta", `tool "t" {
  description = "d"
  meta        = { k = var.headers["X-Key"] }
}`, "The meta of a tool", "var.headers"},
		{"tool input_schema", `tool "t" {
  description  = "d"
  input_schema = jsonencode({ type = "object", description = var.key })
}`, "The input_schema of a tool", "var.key"},
		{"annotation", `tool "t" {
  description = "d"
  annotations {
    read_only_hint = var.key == "x"
  }
}`, "The annotation read_only_hint of a tool", "var.key"},
		{"arg description", `tool "t" {
  description = "d"
  arg "a" { description = "like ${var.key}" }
}`, "The description of an argument", "var.key"},
		{"arg default", `tool "t" {
  description = "d"
  arg "a" { default = var.key }
}`, "The default of an argument", "var.key"},
		{"arg enum", `tool "t" {
  description = "d"
  arg "a" { enum = ["x", var.key] }
}`, "The enum of an argument", "var.key"},
		{"arg pattern", `tool "t" {
  description = "d"
  arg "a" { pattern = "^${var.key}$" }
}`, "The pattern of an argument", "var.key"},
		{"output description", `tool "t" {
  description = "d"
  output "o" {
    description = var.key
    value       = expr("1")
  }
}`, "The description of an output", "var.key"},
		{"output schema", `tool "t" {
  description = "d"
  output "o" {
    schema = { type = "string", description = var.key }
    value  = expr("'x'")
  }
}`, "The schema of an output", "var.key"},
		{"output schema from a local", `tool "t" {
  description = "d"
  output "o" {
    schema = local.secret_schema
    value  = expr("'x'")
  }
}`, "The schema of an output", "local.secret_schema"},
		{"output schema holding a local", `tool "t" {
  description = "d"
  output "o" {
    schema = { type = "array", items = local.secret_schema }
    value  = expr("[]")
  }
}`, "The schema of an output", "local.secret_schema"},
		{"arg schema", `tool "t" {
  description = "d"
  arg "a" {
    schema = jsonencode({ type = "string", pattern = var.key })
  }
}`, "The schema of an argument", "var.key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadString(t, head+tt.src, nil, nil)
			got := describe(diags)
			if cfg != nil {
				t.Fatalf("the configuration loaded; want an error. Diagnostics:\n%s", got)
			}
			want := fmt.Sprintf("Sensitive value shown to clients: %s is shown to every client that connects, so it cannot hold a value derived from %s, which is sensitive.", tt.what, tt.ref)
			if !strings.Contains(got, want) {
				t.Errorf("diagnostics:\n%s\nwant %q", got, want)
			}
			// The error points at the reference itself (with its index).
			line := strings.Split(head+tt.src, "\n")
			for _, d := range diags {
				if d.Summary != "Sensitive value shown to clients" {
					continue
				}
				l := line[d.Subject.Start.Line-1]
				if at := l[d.Subject.Start.Column-1 : d.Subject.End.Column-1]; !strings.HasPrefix(at, tt.ref) {
					t.Errorf("the error points at %q, want %q", at, tt.ref)
				}
			}
			if strings.Contains(got, "s3cr3t") || strings.Contains(got, "map-secret") {
				t.Errorf("the diagnostics show the secret:\n%s", got)
			}
		})
	}
}

// TestSensitiveValueWhereClientsDoNotSeeIt checks that a sensitive value
// still goes where it belongs: the action, whose values clients never see.
func TestSensitiveValueWhereClientsDoNotSeeIt(t *testing.T) {
	src := `
variable "key" {
  type      = string
  default   = "s3cr3t-value"
  sensitive = true
}
tool "t" {
  description = "d"
  fake { body = { token = var.key, q = expr("args.q") } }
  arg "q" {}
}
`
	cfg, diags := loadString(t, src, nil, nil)
	if cfg == nil {
		t.Fatalf("load failed:\n%s", describe(diags))
	}
}

// TestSensitiveValueInResults checks that a result's text, error message,
// outputs and content blocks, of a tool, a resource or a complete block,
// refuse a value derived from a sensitive variable at load: redacting the
// result would miss it once transformed, as by upper().
func TestSensitiveValueInResults(t *testing.T) {
	const head = `variable "key" {
  type      = string
  default   = "s3cr3t-value"
  sensitive = true
}
locals {
  derived = upper(var.key)
}
`
	tests := []struct {
		name, src, want string
	}{
		{"tool text", `tool "t" {
  description = "d"
  text        = "key ${var.key}"
}`, `tools.hcl:11:24: The text of a tool`},
		{"tool text through a function", `tool "t" {
  description = "d"
  text        = upper(var.key)
}`, `tools.hcl:11:23: The text of a tool`},
		{"tool text program", `tool "t" {
  description = "d"
  text        = expr("lower('${var.key}')")
}`, `tools.hcl:11:32: The text of a tool`},
		{"tool error_message", `tool "t" {
  description   = "d"
  error_if      = expr("true")
  error_message = "refused: ${local.derived}"
}`, `tools.hcl:12:31: The error_message of a tool`},
		{"output value", `tool "t" {
  description = "d"
  output "o" {
    type  = string
    value = local.derived
  }
}`, `tools.hcl:13:13: The value of an output`},
		{"log message", `tool "t" {
  description = "d"
  log { message = "using ${var.key}" }
  text        = "x"
}`, `tools.hcl:11:28: The message of a log block`},
		{"resource text through a local", `resource "r" {
  uri  = "docs://r"
  text = local.derived
}`, `tools.hcl:11:10: The text of a resource`},
		{"complete error_message", `prompt "p" {
  arg "a" {
    complete {
      error_if      = expr("true")
      error_message = var.key
      values        = expr("[]")
    }
  }
  message "user" { text = "x" }
}`, `tools.hcl:13:23: The error_message of a complete block`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadString(t, head+tt.src, nil, nil)
			if cfg != nil {
				t.Fatalf("the configuration loaded; want an error")
			}
			var got []string
			for _, d := range diags {
				if d.Summary == "Sensitive value shown to clients" {
					got = append(got, fmt.Sprintf("%s:%d:%d: %s", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column, d.Detail))
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tt.want+" is shown to every client that connects") || !strings.Contains(got[0], "Write it without the secret") {
				t.Errorf("errors about the secret:\n%s\nwant one starting %q\nall:\n%s", strings.Join(got, "\n"), tt.want, describe(diags))
			}
		})
	}

	// What decides whether a call fails, or whether a block is shown, is
	// not shown: a secret may be compared there.
	src := head + `tool "t" {
  description = "d"
  arg "q" {}
  error_if    = expr("args.q == '${var.key}'")
  content "text" {
    when = expr("args.q != '${var.key}'")
    text = expr("args.q")
  }
}`
	if cfg, diags := loadString(t, src, nil, nil); cfg == nil {
		t.Fatalf("load failed:\n%s", describe(diags))
	}
}

// TestSensitiveValueInAuditBlock checks that a sensitive value where
// gohcl decodes a block is unmarked, not a crash.
func TestSensitiveValueInAuditBlock(t *testing.T) {
	src := `
variable "audit" {
  type      = string
  default   = "audit-log.jsonl"
  sensitive = true
}
audit { file = var.audit }
`
	if cfg, diags := loadString(t, src, nil, nil); cfg == nil {
		t.Fatalf("load failed:\n%s", describe(diags))
	}
}

// TestSensitiveValueInPromptsAndCompletions checks that a value derived
// from a sensitive variable in anything a prompt or a completion gives a
// client — a message's text, a content block, an argument's enum, the
// values of a complete block, the annotations of a resource — is a load
// error at the reference, as in a listing: directly, through a local,
// through a function, or inside a content block.
func TestSensitiveValueInPromptsAndCompletions(t *testing.T) {
	const head = `variable "key" {
  type      = string
  default   = "s3cr3t-value"
  sensitive = true
}
locals {
  line    = "key ${var.key}"
  derived = upper(var.key)
}
`
	const fix = " Write it without the secret; secrets belong where clients never see them, such as auth, headers, dsn or env."
	tests := []struct {
		name, src, want string
	}{
		{"message text", `prompt "p" {
  message "user" { text = "key ${var.key}" }
}`, `tools.hcl:11:34: The text of a prompt message is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"message text through a local", `prompt "p" {
  message "user" { text = local.line }
}`, `tools.hcl:11:27: The text of a prompt message is shown to every client that connects, so it cannot hold a value derived from local.line, which is sensitive.`},
		{"message text through a function", `prompt "p" {
  message "user" { text = upper(var.key) }
}`, `tools.hcl:11:33: The text of a prompt message is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"message text through a function in a local", `prompt "p" {
  message "user" { text = "Say ${local.derived}" }
}`, `tools.hcl:11:34: The text of a prompt message is shown to every client that connects, so it cannot hold a value derived from local.derived, which is sensitive.`},
		{"message program", `prompt "p" {
  arg "x" {}
  message "user" { text = expr("args.x + '${var.key}'") }
}`, `tools.hcl:12:45: The text of a prompt message is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"embedded resource", `prompt "p" {
  message "user" {
    content "resource" {
      uri  = "docs://key"
      text = local.derived
    }
  }
}`, `tools.hcl:14:14: The text of a resource content block is shown to every client that connects, so it cannot hold a value derived from local.derived, which is sensitive.`},
		{"embedded resource uri", `prompt "p" {
  message "user" {
    content "resource" {
      uri  = "docs://${var.key}"
      text = "x"
    }
  }
}`, `tools.hcl:13:24: The uri of a resource content block is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"image", `prompt "p" {
  message "user" {
    content "image" {
      data      = var.key
      mime_type = "image/png"
    }
  }
}`, `tools.hcl:13:19: The data of an image content block is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"content annotations", `prompt "p" {
  message "user" {
    content "text" {
      text = "x"
      annotations { last_modified = var.key }
    }
  }
}`, `tools.hcl:14:37: The last_modified of an annotations block is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"argument enum", `prompt "p" {
  arg "a" { enum = ["x", var.key] }
  message "user" { text = "x" }
}`, `tools.hcl:11:26: The enum of a prompt argument is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"prompt completion values", `prompt "p" {
  arg "a" {
    complete { values = ["x", local.derived] }
  }
  message "user" { text = "x" }
}`, `tools.hcl:12:31: The values list of a complete block is shown to every client that connects, so it cannot hold a value derived from local.derived, which is sensitive.`},
		{"template completion values", `resource_template "r" {
  uri_template = "docs://{a}"
  arg "a" {
    type = string
    complete { values = [var.key] }
  }
  text = expr("args.a")
}`, `tools.hcl:14:26: The values list of a complete block is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"resource annotations", `resource "r" {
  uri  = "docs://r"
  text = "x"
  annotations { audience = [lower(var.key)] }
}`, `tools.hcl:13:35: The audience of an annotations block is shown to every client that connects, so it cannot hold a value derived from var.key, which is sensitive.`},
		{"tool content block", `tool "t" {
  description = "d"
  content "resource" {
    uri  = "docs://key"
    text = local.derived
  }
}`, `tools.hcl:14:12: The text of a resource content block is shown to every client that connects, so it cannot hold a value derived from local.derived, which is sensitive.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadString(t, head+tt.src, nil, nil)
			if cfg != nil {
				t.Fatalf("the configuration loaded; want an error. Diagnostics:\n%s", describe(diags))
			}
			var got []string
			for _, d := range diags {
				if d.Summary == "Sensitive value shown to clients" {
					got = append(got, fmt.Sprintf("%s:%d:%d: %s", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column, d.Detail))
				}
			}
			if len(got) != 1 || got[0] != tt.want+fix {
				t.Errorf("errors about the secret:\n%s\nwant:\n%s\nall:\n%s", strings.Join(got, "\n"), tt.want+fix, describe(diags))
			}
			if all := describe(diags); strings.Contains(strings.ToLower(all), "s3cr3t") {
				t.Errorf("the diagnostics show the secret:\n%s", all)
			}
		})
	}
}
