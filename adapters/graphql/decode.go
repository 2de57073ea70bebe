package graphqlaction

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/zclconf/go-cty/cty"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
)

// accept asks for a GraphQL response; servers that know only JSON send that.
var accept = http.Header{"Accept": {"application/graphql-response+json, application/json"}}

// decode reads a graphql block. It returns nil when the block, or the
// http_api it refers to, has errors; it reports all of its own.
func decode(ctx *engine.DecodeContext, block *hcl.Block, schemas *schemaCache) (*action, hcl.Diagnostics) {
	v, diags := Spec.Decode(block.Body, ctx)
	var api *httpaction.API
	broken := false // the http_api referred to has errors of its own
	if attr := v.Attr("api"); attr != nil {
		r, more := ctx.Upstream(attr.Expr, "http_api")
		diags = append(diags, more...)
		api, _ = r.(*httpaction.API)
		broken = api == nil
	}

	var schema *ast.Schema
	if v.Has("schema") {
		var more hcl.Diagnostics
		schema, more = schemas.load(ctx, v.String("schema"), v.Attr("schema").Expr.Range())
		diags = append(diags, more...)
	}

	var op *ast.OperationDefinition
	query := v.String("query")
	if v.Has("query") {
		var more hcl.Diagnostics
		op, more = operation(ctx, v.Attr("query"), query, v.String("operation"), v.Attr("operation"), schema)
		diags = append(diags, more...)
	}
	if op != nil && schema != nil {
		diags = append(diags, checkVariables(ctx, op, v.Attr("variables"), block.DefRange)...)
	}

	if broken || api == nil || diags.HasErrors() {
		return nil, diags
	}
	body := &requestBody{query: query, operation: op.Name, variables: v.Program("variables")}
	a := &action{
		post:     httpaction.PostJSON(api, v.String("path"), body, accept, v.Duration("timeout")),
		mutation: op.Operation != ast.Query,
	}
	if schema != nil {
		a.data = selectionType(op.SelectionSet)
	}
	return a, diags
}

// operation parses the query, validates it against schema when there is
// one, and returns the operation to run: the one named, or the only one.
func operation(ctx *engine.DecodeContext, attr *hcl.Attribute, text, name string, nameAttr *hcl.Attribute, schema *ast.Schema) (*ast.OperationDefinition, hcl.Diagnostics) {
	src := &ast.Source{Name: "query", Input: text}
	doc, err := parser.ParseQuery(src)
	if err != nil {
		return nil, queryErrors(ctx, attr, text, "Invalid GraphQL query", err)
	}
	if schema != nil {
		if errs := validator.Validate(schema, doc); len(errs) > 0 {
			return nil, queryErrors(ctx, attr, text, "Invalid GraphQL query", errs)
		}
	}
	switch {
	case len(doc.Operations) == 0:
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No GraphQL operation",
			Detail:  "The query holds no operation, only fragments: add a query or a mutation.",
			Subject: attr.Expr.Range().Ptr()}}
	case name != "":
		if op := doc.Operations.ForName(name); op != nil {
			return op, nil
		}
		var names []string
		for _, op := range doc.Operations {
			if op.Name != "" {
				names = append(names, op.Name)
			}
		}
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown GraphQL operation",
			Detail:  fmt.Sprintf("The query has no operation named %q; it has %s.", name, orNone(names)),
			Subject: nameAttr.Expr.Range().Ptr()}}
	case len(doc.Operations) > 1:
		var names []string
		for _, op := range doc.Operations {
			names = append(names, op.Name)
		}
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Several GraphQL operations",
			Detail:  fmt.Sprintf("The query holds %d operations (%s): name the one to run with operation = \"…\".", len(names), strings.Join(names, ", ")),
			Subject: attr.Expr.Range().Ptr()}}
	}
	if doc.Operations[0].Operation == ast.Subscription {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "GraphQL subscription",
			Detail:  "A tool's call sends one request and reads one answer: a subscription cannot be run; use a query.",
			Subject: attr.Expr.Range().Ptr()}}
	}
	return doc.Operations[0], nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "no named operation"
	}
	return strings.Join(names, ", ")
}

// queryErrors turns the parser's or the validator's errors into
// diagnostics, each at its place in the query text when the text is
// written in the file (a heredoc, a quoted string) or read with file().
func queryErrors(ctx *engine.DecodeContext, attr *hcl.Attribute, text, summary string, err error) hcl.Diagnostics {
	var list gqlerror.List
	var one *gqlerror.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = gqlerror.List{one}
	default:
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: err.Error() + ".", Subject: attr.Expr.Range().Ptr()}}
	}
	var diags hcl.Diagnostics
	for _, e := range list {
		rng := attr.Expr.Range()
		if len(e.Locations) > 0 {
			rng = textRange(ctx, attr.Expr, text, e.Locations[0].Line, e.Locations[0].Column)
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: sentence(e.Message), Subject: rng.Ptr()})
	}
	return diags
}

// textRange is the range of the token at line:col (1-based, in runes) of
// text, the value of e: inside a heredoc or a quoted string of the file,
// inside the file that file("…") reads, else e's own range.
func textRange(ctx *engine.DecodeContext, e hcl.Expression, text string, line, col int) hcl.Range {
	off := offsetOf(text, line, col)
	if off < 0 {
		return e.Range()
	}
	end := off + tokenLen(text[off:])
	if call, ok := e.(*hclsyntax.FunctionCallExpr); ok && call.Name == "file" && len(call.Args) == 1 {
		if v, diags := call.Args[0].Value(nil); !diags.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			name := v.AsString()
			if !strings.HasPrefix(name, "/") && ctx.Dir != "" {
				name = filepath.Join(ctx.Dir, name)
			}
			return hcl.Range{Filename: name,
				Start: hcl.Pos{Line: line, Column: col, Byte: off},
				End:   hcl.Pos{Line: line, Column: col + runes(text[off:end]), Byte: end}}
		}
		return e.Range()
	}
	t, ok := e.(*hclsyntax.TemplateExpr)
	if !ok || len(t.Parts) != 1 {
		return e.Range()
	}
	lit, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr)
	if !ok || lit.Val.Type() != cty.String || lit.Val.AsString() != text {
		return e.Range()
	}
	r := lit.SrcRange
	if r.Start.Line == r.End.Line {
		// A quoted string: its escapes are longer than what they stand
		// for, so count from its end, where the text and the file agree.
		from := r.End
		from.Byte -= len(text) - off
		from.Column -= runes(text[off:])
		to := from
		to.Byte += end - off
		to.Column += runes(text[off:end])
		return hcl.Range{Filename: r.Filename, Start: from, End: to}
	}
	// A heredoc: each line of the file is the text's line after the
	// indentation that <<- took off, which the part's start shows.
	indent := r.Start.Column - 1
	lines := strings.SplitAfter(text, "\n")
	at := r.Start.Byte
	for _, l := range lines[:line-1] {
		at += len(l) + indent
	}
	lineStart := strings.LastIndexByte(text[:off], '\n') + 1
	from := hcl.Pos{Line: r.Start.Line + line - 1, Column: indent + col, Byte: at + off - lineStart}
	to := hcl.Pos{Line: from.Line, Column: from.Column + runes(text[off:end]), Byte: from.Byte + end - off}
	return hcl.Range{Filename: r.Filename, Start: from, End: to}
}

// offsetOf is the byte offset of line:col (1-based, col in runes) in text,
// or -1.
func offsetOf(text string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(text) || text[off] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRuneInString(text[off:])
		off += size
	}
	return off
}

// tokenLen is the length of the name or punctuation at the start of s.
func tokenLen(s string) int {
	n := 0
	for n < len(s) && (s[n] == '_' || s[n] == '$' && n == 0 || 'a' <= s[n] && s[n] <= 'z' || 'A' <= s[n] && s[n] <= 'Z' || '0' <= s[n] && s[n] <= '9') {
		n++
	}
	if n == 0 && len(s) > 0 {
		_, n = utf8.DecodeRuneInString(s)
	}
	return n
}

// checkVariables checks the block's variables against the operation's
// definitions: an unknown name, or a required variable left out, is a load
// error.
func checkVariables(ctx *engine.DecodeContext, op *ast.OperationDefinition, attr *hcl.Attribute, block hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	given := map[string]hcl.Range{}
	subject := block
	if attr != nil {
		subject = attr.Expr.Range()
		obj, ok := attr.Expr.(*hclsyntax.ObjectConsExpr)
		if !ok {
			return nil // a value computed as a whole: checked by the server
		}
		for _, item := range obj.Items {
			k, more := item.KeyExpr.Value(ctx.EvalContext)
			if more.HasErrors() || k.Type() != cty.String || !k.IsKnown() {
				return nil
			}
			given[k.AsString()] = item.KeyExpr.Range()
		}
	}
	declared := map[string]bool{}
	var names []string
	for _, d := range op.VariableDefinitions {
		declared[d.Variable] = true
		names = append(names, "$"+d.Variable)
		if _, ok := given[d.Variable]; !ok && d.Type.NonNull && d.DefaultValue == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing GraphQL variable",
				Detail:  fmt.Sprintf("The operation requires $%s (%s): add %s = expr(\"args.%s\") to variables, or the value it should have.", d.Variable, d.Type, d.Variable, d.Variable),
				Subject: subject.Ptr()})
		}
	}
	keys := make([]string, 0, len(given))
	for k := range given {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !declared[k] {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown GraphQL variable",
				Detail:  fmt.Sprintf("The operation declares no $%s; it declares %s.", k, orNone(names)),
				Subject: given[k].Ptr()})
		}
	}
	return diags
}

// selectionType is the type of what a selection set yields: an object with
// the selected fields (by alias), each typed from the schema. Fields of a
// nullable type may be null: they are typed any, except objects and lists,
// whose fields a program reads with ?. when they may be null.
func selectionType(set ast.SelectionSet) types.Type {
	m := types.Map{}
	addSelection(m, set)
	return m
}

func addSelection(m types.Map, set ast.SelectionSet) {
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			name := s.Alias
			if name == "" {
				name = s.Name
			}
			if s.Definition == nil {
				m[name] = types.Any
				continue
			}
			m[name] = fieldType(s.Definition.Type, s.SelectionSet)
		case *ast.InlineFragment:
			addSelection(m, s.SelectionSet)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				addSelection(m, s.Definition.SelectionSet)
			}
		}
	}
}

func fieldType(t *ast.Type, set ast.SelectionSet) types.Type {
	switch {
	case t.Elem != nil:
		return types.Array(fieldType(t.Elem, set))
	case len(set) > 0:
		return selectionType(set)
	case !t.NonNull:
		return types.Any
	}
	switch t.NamedType {
	case "Int":
		return types.Int
	case "Float":
		return types.Float
	case "String", "ID":
		return types.String
	case "Boolean":
		return types.Bool
	}
	return types.Any // an enum, a custom scalar
}

// runes counts the runes of s.
func runes(s string) int { return utf8.RuneCountInString(s) }

// sentence ends s with a full stop, unless it ends a sentence already.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}
