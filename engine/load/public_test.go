package load_test

import (
	"fmt"
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
