package load

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
)

// causes is the load's diagnostics without those that only follow from
// another error: in a file with a syntax error, all but the syntax errors
// (what HCL recovered of it is decoded so that other files may refer to
// its blocks, but its own errors there are the syntax error's doing); and
// the checks skipped on a value that derives from one that failed (see
// [engine.FollowsFromError]), unless nothing else explains the failure.
func (l *loader) causes() hcl.Diagnostics {
	out := slices.DeleteFunc(slices.Clone(l.diags), func(d *hcl.Diagnostic) bool {
		if engine.FollowsFromError(d) {
			return true
		}
		if d.Subject == nil || l.syntax[d.Subject.Filename] == nil {
			return false
		}
		return !slices.Contains(l.syntax[d.Subject.Filename], d)
	})
	if l.diags.HasErrors() && !out.HasErrors() {
		return l.diags
	}
	return out
}

// ParseConfig parses one configuration file as the load does: as
// hclsyntax.ParseConfig does, with an unclosed block reported where its
// brace is missing (see [narrowUnclosed]).
func ParseConfig(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	f, diags := parseConfig(src, filename)
	narrowUnclosed(src, filename, diags)
	return f, diags
}

// narrowUnclosed rewrites HCL's "Unclosed configuration block", which
// names the outermost block that the braces leave open (the first tool of
// the file, when an arg in it lacks its brace), to name the block that
// lacks its brace, when the indentation shows it.
func narrowUnclosed(src []byte, filename string, diags hcl.Diagnostics) {
	for _, d := range diags {
		if d.Summary != "Unclosed configuration block" {
			continue
		}
		brace, closer, ok := innermostUnclosed(src, filename)
		if !ok {
			return
		}
		header := strings.TrimSpace(string(src[lineStart(src, brace.Start.Byte):brace.Start.Byte]))
		what, end := fmt.Sprintf("The { at line %d", brace.Start.Line), "it"
		if header != "" && !strings.HasSuffix(header, "=") {
			what, end = "The block "+header, header
		}
		d.Subject = brace.Ptr()
		d.Detail = fmt.Sprintf("%s has no closing brace, so the } at line %d, meant for an enclosing block, closes it, and what follows is read inside it. Add a } where %s ends.", what, closer.Start.Line, end)
		return
	}
}

// innermostUnclosed finds the block that most likely lacks its closing
// brace: the first whose closing brace, as the braces pair up, is less
// indented than the line that opens it. It returns the opening brace and
// that closing one.
func innermostUnclosed(src []byte, filename string) (brace, closer hcl.Range, ok bool) {
	tokens, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	type open struct {
		rng    hcl.Range
		indent int // the column of the first token of its line
	}
	var stack []open
	line, indent := 0, 0
	for _, tok := range tokens {
		if tok.Type == hclsyntax.TokenNewline || tok.Type == hclsyntax.TokenEOF {
			continue
		}
		first := tok.Range.Start.Line != line
		if first {
			line, indent = tok.Range.Start.Line, tok.Range.Start.Column
		}
		switch tok.Type {
		case hclsyntax.TokenOBrace:
			stack = append(stack, open{rng: tok.Range, indent: indent})
		case hclsyntax.TokenCBrace:
			if len(stack) == 0 {
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if first && tok.Range.Start.Column < o.indent {
				return o.rng, tok.Range, true
			}
		}
	}
	return hcl.Range{}, hcl.Range{}, false
}

// lineStart is the offset of the start of the line holding offset at.
func lineStart(src []byte, at int) int {
	for at > 0 && src[at-1] != '\n' {
		at--
	}
	return at
}
