package openapi

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

// githubSpec is GitHub's REST API document, named by
// $MCPDECL_OPENAPI_GITHUB (such as
// node_modules/@octokit/openapi/generated/api.github.com.json).
func githubSpec(b *testing.B) string {
	p := os.Getenv("MCPDECL_OPENAPI_GITHUB")
	if p == "" {
		b.Skip("set MCPDECL_OPENAPI_GITHUB to GitHub's OpenAPI document (@octokit/openapi's generated/api.github.com.json)")
	}
	return p
}

// BenchmarkImportGitHub reads, parses and imports GitHub's document: what
// mcpdecl import openapi does before loading the result.
func BenchmarkImportGitHub(b *testing.B) {
	p := githubSpec(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := importPath(p, Options{Name: "github"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeGitHub loads the configuration imported from GitHub's
// document, as serve does, and answers a first tools/list: the time from
// start to a client's first listing.
func BenchmarkServeGitHub(b *testing.B) {
	p := githubSpec(b)
	_, res, err := importPath(p, Options{Name: "github"})
	if err != nil {
		b.Fatal(err)
	}
	paths, err := writeFiles(b.TempDir(), res.Files)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		cfg, diags := loadFiles(paths, nil)
		if diags.HasErrors() {
			b.Fatal(diags.Error())
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.New(cfg, nil).Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		page, err := cs.ListTools(ctx, nil)
		if err != nil || len(page.Tools) == 0 {
			b.Fatal(err)
		}
		_ = cs.Close()
		_ = ss.Close()
		_ = cfg.Close()
	}
}
