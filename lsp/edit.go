package lsp

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// formatting formats the document as mcpdecl fmt does: one edit, or none
// when it is formatted already. A document with a syntax error is left as
// it is (its diagnostics say where the error is).
func (s *server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	if _, diags := hclsyntax.ParseConfig([]byte(d.text), d.path, hcl.InitialPos); diags.HasErrors() {
		return []protocol.TextEdit{}, nil
	}
	out := string(hclwrite.Format([]byte(d.text)))
	if out == d.text {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{
		Range:   protocol.Range{Start: protocol.Position{}, End: position(d.text, len(d.text))},
		NewText: out,
	}}, nil
}

// didYouMean finds the suggestion of a diagnostic: Did you mean "timeout"?
// or Did you mean args.city?
var didYouMean = regexp.MustCompile(`Did you mean "?([A-Za-z_][\w.-]*?)"?\?`)

// nameAt matches the name, or the dotted path, at the start of a range.
var nameAt = regexp.MustCompile(`^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*`)

// codeActions offers, for each diagnostic with a suggestion, the edit that
// takes it.
func (s *server) codeActions(_ *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	actions := []protocol.CodeAction{}
	for _, diag := range p.Context.Diagnostics {
		m := didYouMean.FindStringSubmatch(diag.Message)
		if m == nil {
			continue
		}
		edit, ok := suggestionEdit(d.text, diag.Range, m[1])
		if !ok {
			continue
		}
		actions = append(actions, protocol.CodeAction{
			Title:       fmt.Sprintf("Change to %s", m[1]),
			Kind:        ptr(protocol.CodeActionKindQuickFix),
			Diagnostics: []protocol.Diagnostic{diag},
			IsPreferred: ptr(true),
			Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{d.uri: {edit}}},
		})
	}
	return actions, nil
}

// suggestionEdit replaces the name at the start of rng by suggestion: as
// many of its dotted parts as the suggestion has (a diagnostic of an expr
// program points at args in args.ctiy, and suggests args.city).
func suggestionEdit(text string, rng protocol.Range, suggestion string) (protocol.TextEdit, bool) {
	start := offset(text, rng.Start)
	name := nameAt.FindString(text[start:])
	if name == "" {
		return protocol.TextEdit{}, false
	}
	parts := strings.Split(name, ".")
	n := strings.Count(suggestion, ".") + 1
	if n > len(parts) {
		return protocol.TextEdit{}, false
	}
	end := start + len(strings.Join(parts[:n], "."))
	if text[start:end] == suggestion {
		return protocol.TextEdit{}, false
	}
	return protocol.TextEdit{Range: protocol.Range{Start: rng.Start, End: position(text, end)}, NewText: suggestion}, true
}
