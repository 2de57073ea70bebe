package spec_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

var inner = &spec.Block{Name: "retry", Summary: "Tries again.", Attrs: []*spec.Attr{spec.Int("attempts", "is how many tries").Range(1, 10)}}

var block = &spec.Block{
	Name:    "thing",
	Summary: "A block for the tests.",
	Attrs: []*spec.Attr{
		spec.Int("count", "is how many things there are").Range(1, 100).Mandatory(),
		spec.Duration("ttl", "is how long a thing is kept").AtMost(int64(48 * time.Hour)).WithDefault(time.Minute),
		spec.Enum("store", "is where things live", spec.Choice{Value: "memory", Doc: "this process"}, spec.Choice{Value: "redis"}).WithDefault("memory"),
		spec.List("hosts", spec.KindString, "are the hosts"),
		spec.Bool("public", "shares things").Formerly("shared"),
	},
	Blocks: []spec.Nested{{Block: inner, Max: 1}},
}

func decode(t *testing.T, src string) (*spec.Values, string) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx := &engine.DecodeContext{EvalContext: &hcl.EvalContext{Variables: map[string]cty.Value{
		"var": cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(7), "failed": cty.DynamicVal}),
	}}, Redactor: &text.Redactor{}}
	v, diags := block.Decode(f.Body, ctx)
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "%d:%d-%d:%d: %s: %s\n", d.Subject.Start.Line, d.Subject.Start.Column, d.Subject.End.Line, d.Subject.End.Column, d.Summary, d.Detail)
	}
	return v, b.String()
}

func TestDecodeReadsValuesAndDefaults(t *testing.T) {
	v, diags := decode(t, "count = var.n\nhosts = [\"a\", \"b\"]\nretry {\n  attempts = 2\n}\n")
	if diags != "" {
		t.Fatal(diags)
	}
	if v.Int("count") != 7 || v.Duration("ttl") != time.Minute || v.String("store") != "memory" || v.Bool("public") {
		t.Errorf("count %d, ttl %s, store %q, public %v", v.Int("count"), v.Duration("ttl"), v.String("store"), v.Bool("public"))
	}
	if got := v.Strings("hosts"); len(got) != 2 || got[1] != "b" || v.Ranges("hosts")[1].Start.Column != 15 {
		t.Errorf("hosts %q at %v", got, v.Ranges("hosts"))
	}
	if len(v.Blocks("retry")) != 1 {
		t.Errorf("retry blocks: %v", v.Blocks("retry"))
	}
}

// TestDecodeReportsEveryError: one run reports every error of the body,
// each at the narrowest range, worded from the spec.
func TestDecodeReportsEveryError(t *testing.T) {
	_, got := decode(t, "count = 0\nttl = \"72h\"\nstore = \"disk\"\nhosts = [\"a\", [1]]\ncuont = 3\nretry {}\nretry {}\nretyr {}\n")
	want := []string{
		"1:9-1:10: Invalid count: count is how many things there are: a whole number from 1 to 100, not 0.",
		"2:7-2:12: Invalid ttl: ttl is how long a thing is kept: at most 48h0m0s (2 days), not 72h0m0s.",
		`3:9-3:15: Invalid store: store is where things live: "memory" (this process) or "redis", not "disk".`,
		"4:15-4:18: Incorrect value type: This must be a string; got tuple.",
		`5:1-5:6: Unsupported argument: An argument named "cuont" is not expected here. Did you mean "count"?`,
		"7:1-7:6: Duplicate retry block: A thing block takes one retry block, already declared at t.hcl:6,1-6; merge them.",
		`8:1-8:6: Unsupported block type: Blocks of type "retyr" are not expected here. Did you mean "retry"?`,
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

func TestDecodeFormerName(t *testing.T) {
	v, got := decode(t, "count = 1\nshared = true\n")
	if !v.Bool("public") || !strings.Contains(got, "2:1-2:7: Former name shared: shared is now called public") {
		t.Errorf("public %v, diags:\n%s", v.Bool("public"), got)
	}
	_, got = decode(t, "count = 1\nshared = true\npublic = true\n")
	if !strings.Contains(got, "3:1-3:7: Duplicate public: shared and public are two names of one attribute") {
		t.Errorf("diags:\n%s", got)
	}
}

// TestDecodeFollowsFrom: a value derived from one that failed is not
// checked again, and its error is one the load leaves out.
func TestDecodeFollowsFrom(t *testing.T) {
	f, _ := hclsyntax.ParseConfig([]byte("count = var.failed\n"), "t.hcl", hcl.InitialPos)
	ctx := &engine.DecodeContext{EvalContext: &hcl.EvalContext{Variables: map[string]cty.Value{
		"var": cty.ObjectVal(map[string]cty.Value{"failed": cty.DynamicVal})}}}
	_, diags := block.Decode(f.Body, ctx)
	if len(diags) != 1 || !engine.FollowsFromError(diags[0]) {
		t.Errorf("diags: %v", diags)
	}
}

func TestUndeclaredNamePanics(t *testing.T) {
	v, _ := decode(t, "count = 1\n")
	defer func() {
		if recover() == nil {
			t.Error("reading an undeclared attribute did not panic")
		}
	}()
	v.Int("cnt")
}

// TestNestedTwiceNames: a block nested in a nested block is named by its
// path, and its anchor in the reference is a plain ID.
func TestNestedTwiceNames(t *testing.T) {
	b := &spec.Block{Name: "oauth2", In: "http_api › auth"}
	if b.ID() != "http_api-auth-oauth2" || b.Path() != "http_api › auth › oauth2" {
		t.Errorf("ID %q, Path %q", b.ID(), b.Path())
	}
}

func TestErrorf(t *testing.T) {
	rng := hcl.Range{Filename: "t.hcl", Start: hcl.Pos{Line: 2, Column: 3}, End: hcl.Pos{Line: 2, Column: 9}}
	d := spec.Errorf(rng, "Invalid ttl", "ttl is %s.", "too long")
	if d.Severity != hcl.DiagError || d.Summary != "Invalid ttl" || d.Detail != "ttl is too long." || *d.Subject != rng {
		t.Errorf("got %+v", d)
	}
}
