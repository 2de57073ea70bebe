package graphqlaction

import (
	"context"
	"fmt"
	"strings"

	"github.com/expr-lang/expr/types"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// action is a compiled graphql block.
type action struct {
	post     engine.Action // the HTTP request, built by the HTTP adapter
	mutation bool          // the operation may change data
	data     types.Type    // data's type, from the selection; nil without a schema
}

var (
	_ engine.Action             = (*action)(nil)
	_ engine.ResultTyper        = (*action)(nil)
	_ engine.Hinter             = (*action)(nil)
	_ engine.CallerActor        = (*action)(nil)
	_ engine.CallerTokenUser    = (*action)(nil)
	_ engine.ConcurrencyLimiter = (*action)(nil)
)

// Run sends the operation and reads the server's answer. A response with
// errors, or one that is not a GraphQL response, fails the call by
// default; its data and errors are still there for error_if and outputs.
func (a *action) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	resp, err := a.post.Run(ctx, args)
	if err != nil {
		return nil, err
	}
	out := &engine.Response{
		Vars:    map[string]any{"status": resp.Vars["status"], "headers": resp.Vars["headers"], "data": nil, "errors": nil},
		Content: resp.Content,
		Text:    resp.Text,
	}
	body, ok := resp.Vars["body"].(map[string]any)
	_, hasData := body["data"]
	errs, _ := body["errors"].([]any)
	if !ok || !hasData && len(errs) == 0 {
		out.Failure = resp.Failure
		if out.Failure == "" {
			ct, _ := resp.Vars["content_type"].(string)
			if ct == "" {
				ct = "no content type"
			}
			out.Failure = fmt.Sprintf("the GraphQL server's answer (HTTP %v, %s) is not a GraphQL response: it has neither data nor errors", resp.Vars["status"], ct)
		}
		return out, nil
	}
	out.Vars["data"] = body["data"]
	if len(errs) > 0 {
		out.Vars["errors"] = errs
		out.Failure = "the GraphQL server answered with errors: " + text.Excerpt(ctx, messages(errs))
		return out, nil
	}
	out.Failure = resp.Failure
	return out, nil
}

// messages joins the messages of a response's errors, with their paths.
func messages(errs []any) string {
	var b strings.Builder
	for i, e := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		m, _ := e.(map[string]any)
		msg, _ := m["message"].(string)
		if msg == "" {
			msg = "(an error without a message)"
		}
		b.WriteString(msg)
		if path, ok := m["path"].([]any); ok && len(path) > 0 {
			b.WriteString(" (at ")
			for j, p := range path {
				if j > 0 {
					b.WriteByte('.')
				}
				fmt.Fprint(&b, p)
			}
			b.WriteByte(')')
		}
	}
	return b.String()
}

// ResultTypes types data from the query's selection, when the block gives
// the API's schema.
func (a *action) ResultTypes() mapping.Env {
	if a.data == nil {
		return nil
	}
	return mapping.Env{"data": a.data}
}

// Hints say that a query only reads, and that a mutation may write.
func (a *action) Hints() engine.Annotations {
	readOnly := !a.mutation
	return engine.Annotations{ReadOnlyHint: &readOnly}
}

// ActsAsCaller is the http_api's: whether it sends the caller's token.
func (a *action) ActsAsCaller() string {
	if c, ok := a.post.(engine.CallerActor); ok {
		return c.ActsAsCaller()
	}
	return ""
}

// UsesCallerToken is the http_api's.
func (a *action) UsesCallerToken() bool {
	u, ok := a.post.(engine.CallerTokenUser)
	return ok && u.UsesCallerToken()
}

// DefaultMaxConcurrency is an http action's.
func (a *action) DefaultMaxConcurrency() int {
	if l, ok := a.post.(engine.ConcurrencyLimiter); ok {
		return l.DefaultMaxConcurrency()
	}
	return 0
}

// requestBody is the JSON posted per call: the query, the operation's
// name and the variables computed from the arguments.
type requestBody struct {
	query     string
	operation string
	variables mapping.Value // nil when the block has none
}

// Eval builds the body of one call.
func (b *requestBody) Eval(env map[string]any) (any, error) {
	out := map[string]any{"query": b.query}
	if b.operation != "" {
		out["operationName"] = b.operation
	}
	if b.variables != nil {
		v, err := b.variables.Eval(env)
		if err != nil {
			return nil, err
		}
		if v != nil {
			out["variables"] = v
		}
	}
	return out, nil
}
