package load

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// toolsetName is what a toolset may be called: it is a segment of a URL
// path (/mcp/<name>).
var toolsetName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// toolsetSpec is the toolset block.
var toolsetSpec = &spec.Block{
	Name:    "toolset",
	Labels:  []string{"name"},
	Summary: "Some of the tools, served on an endpoint of their own (/mcp/NAME over HTTP, serve --toolset NAME over stdio).",
	Doc: "A toolset holds the tools that tools or tags selects (give at least one). Each entry of tools must match a tool, " +
		"and each of tags must be a tag of some tool: a typo is a load error, with the closest name. " +
		"Names are 1 to 64 letters, digits, _, - and .; resources and prompts are served at every endpoint.",
	Example: `toolset "read_only" {
  description    = "The tools that only read."
  tools          = ["get_*"]
  output_schemas = "compact"
}
tool "get_time" { description = "The time." }`,
	Attrs: []*spec.Attr{
		spec.String("description", "says what the toolset is for").Shown(),
		spec.List("tools", spec.KindString, `are tool names, or patterns such as "issues_*" (* any characters, ? one, [a-z] one of)`).Unevaluated(),
		spec.List("tags", spec.KindString, "selects the tools with any of these tags").Unevaluated(),
		spec.Enum("output_schemas", outputSchemasDoc, spec.Choices(engine.OutputSchemaModes...)...).DefaultIs("the server's"),
	},
}

// toolsets decodes the toolset blocks, once the tools are known: each
// entry of tools is a tool's name or a pattern (path.Match: *, ?, [a-z])
// that must match at least one tool, and each entry of tags a tag that at
// least one tool has; the toolset holds the tools either selects.
//
// Names and tags are matched against every tool block, those with errors
// included, so that a tool's own error is not reported again as a
// toolset's.
func (l *loader) toolsets() []*engine.Toolset {
	var names []string
	tagged := map[string][]string{} // tag → the tools that have it
	for _, b := range l.blocks["tool"] {
		names = append(names, b.Labels[0])
		for _, tag := range l.blockTags(b) {
			tagged[tag] = append(tagged[tag], b.Labels[0])
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var out []*engine.Toolset
	for _, b := range l.checkUnique(l.blocks["toolset"], "toolset") {
		name := b.Labels[0]
		if !toolsetName.MatchString(name) {
			l.error(b.LabelRanges[0], "Invalid toolset name", "%q is not a valid toolset name: it is served at /mcp/%s, so use 1 to 64 letters, digits, underscores, dashes and dots.", name, name)
			continue
		}
		ctx := l.decodeContext(b.DefRange.Filename)
		v, diags := toolsetSpec.Decode(b.Body, ctx)
		l.diags = append(l.diags, diags...)
		l.shown(ctx, toolsetSpec, v, "the %s of a toolset", false)
		ts := &engine.Toolset{Name: name, Range: b.DefRange, Description: v.String("description"), OutputSchemas: v.String("output_schemas")}
		tagsAttr := v.Attr("tags")
		if tagsAttr != nil {
			for _, tag := range l.tags(ctx, tagsAttr) {
				tools, ok := tagged[tag]
				if !ok {
					l.error(tagsAttr.Expr.Range(), "No tool has this tag", "No tool of the configuration has the tag %q. %s", tag, closestTag(tag, tagged))
				}
				for _, n := range tools {
					if !slices.Contains(ts.Tools, n) {
						ts.Tools = append(ts.Tools, n)
					}
				}
			}
		}
		a := v.Attr("tools")
		if a == nil {
			if tagsAttr == nil {
				l.error(b.DefRange, "Empty toolset", "A toolset selects its tools with tools (names and patterns), tags, or both: add at least one.")
			}
			slices.Sort(ts.Tools)
			out = append(out, ts)
			continue
		}
		patterns, isList := l.plain(ctx, a).([]any)
		if !isList || len(patterns) == 0 {
			l.error(a.Expr.Range(), "Invalid tools", "tools lists the toolset's tools: names, or patterns such as \"issues_*\".")
			continue
		}
		for _, p := range patterns {
			pattern, isText := p.(string)
			if !isText {
				l.error(a.Expr.Range(), "Invalid tools", "tools lists names and patterns, as strings.")
				continue
			}
			if _, err := path.Match(pattern, ""); err != nil {
				l.error(a.Expr.Range(), "Invalid pattern", "%q is not a valid pattern: write a name, or use * (any characters), ? (one) and [a-z] (one of).", pattern)
				continue
			}
			matched := false
			for _, n := range names {
				if ok, _ := path.Match(pattern, n); ok {
					matched = true
					if !slices.Contains(ts.Tools, n) {
						ts.Tools = append(ts.Tools, n)
					}
				}
			}
			if !matched {
				l.error(a.Expr.Range(), "No tool matches", "%q names no tool of the configuration. %s", pattern, closestTool(pattern, names))
			}
		}
		slices.Sort(ts.Tools)
		out = append(out, ts)
	}
	slices.SortFunc(out, func(a, b *engine.Toolset) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// blockTags is the tags of a tool block, or nil when they are not a
// valid list of strings: the tool's own decoding reports that.
func (l *loader) blockTags(b *hcl.Block) []string {
	body, ok := b.Body.(*hclsyntax.Body)
	if !ok || body.Attributes["tags"] == nil {
		return nil
	}
	a := body.Attributes["tags"]
	v, diags := l.decodeContext(b.DefRange.Filename).Eval(a.Expr)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || !v.CanIterateElements() {
		return nil
	}
	var tags []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsKnown() && !e.IsNull() && e.Type() == cty.String {
			tags = append(tags, e.AsString())
		}
	}
	return tags
}

// closestTag suggests the tag closest to tag, or lists the tags.
func closestTag(tag string, tagged map[string][]string) string {
	tags := slices.Sorted(maps.Keys(tagged))
	if best := engine.Closest(tag, tags); best != "" {
		return fmt.Sprintf("Did you mean %q?", best)
	}
	if len(tags) == 0 {
		return "No tool has tags: give tools a tags attribute, such as tags = [\"issues\"]."
	}
	return "The tags are: " + strings.Join(tags, ", ") + "."
}

// closestTool suggests the tool whose name is closest to name, or lists
// the tools when none is close.
func closestTool(name string, names []string) string {
	if best := engine.Closest(name, names); best != "" {
		return fmt.Sprintf("Did you mean %q?", best)
	}
	if len(names) == 0 {
		return "The configuration declares no tools."
	}
	return "The tools are: " + strings.Join(names, ", ") + "."
}
