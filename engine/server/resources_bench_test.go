package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// BenchmarkResources measures what the engine spends on a resources/read of a
// file resource and of a text resource, a template's read, and a
// prompts/get, called directly (no transport).
func BenchmarkResources(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\n\nSome text.\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _, diags := enginetest.Load(b, engine.NewRegistry(), `
resource "file" {
  uri  = "x://file"
  file = "notes.md"
}
resource "text" {
  uri  = "x://text"
  text = "fixed text"
}
resource_template "item" {
  uri_template = "x://items/{id}"
  arg "id" { type = integer }
  text = expr("'item ' + string(args.id)")
}
prompt "p" {
  arg "topic" {}
  message "user" { text = expr("'Tell me about ' + args.topic") }
}
`, enginetest.Options{Dir: dir, LookupEnv: enginetest.MapEnv(nil)})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	ctx := context.Background()
	b.Run("file", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cfg.Resources[0].Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cfg.Resources[1].Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("template", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cfg.Templates[0].Read(ctx, "x://items/42"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("prompt", func(b *testing.B) {
		b.ReportAllocs()
		args := map[string]string{"topic": "tea"}
		for b.Loop() {
			if _, err := cfg.Prompts[0].Get(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
