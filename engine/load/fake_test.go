package load_test

import (
	"context"
	"strconv"
	"time"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// fakeAdapter is an action adapter for tests: its block
//
//	fake {
//	  status = 200          # load-time
//	  body   = expr("…")    # evaluated per call over args
//	  sleep  = "1s"         # optional: wait (or until cancelled) first
//	}
//
// exposes status and body to the programs that run after it, and fails
// by default when status is 400 or more.
type fakeAdapter struct{}

var _ engine.Adapter = fakeAdapter{}

func (fakeAdapter) Kind() string { return "fake" }

func (fakeAdapter) Result() mapping.Env {
	return mapping.Env{"status": types.Int, "body": types.Any}
}

var fakeSpec = &spec.Block{Name: "fake", In: "tool", Summary: "A fake action.", Attrs: []*spec.Attr{
	spec.Int("status", "is the status answered").WithDefault(200),
	spec.Expr("body", "is the body answered"),
	spec.Duration("sleep", "is how long a call takes"),
}}

func (fakeAdapter) DecodeAction(ctx *engine.DecodeContext, block *hcl.Block) (engine.Action, hcl.Diagnostics) {
	v, diags := fakeSpec.Decode(block.Body, ctx)
	a := &fakeAction{status: int(v.Int("status")), body: mapping.Const(nil), sleep: v.Duration("sleep")}
	if v.Has("body") {
		a.body = v.Program("body")
	}
	return a, diags
}

type fakeAction struct {
	status int
	body   mapping.Value
	sleep  time.Duration
}

func (a *fakeAction) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	if a.sleep > 0 {
		select {
		case <-time.After(a.sleep):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	body, err := a.body.Eval(map[string]any{"args": args})
	if err != nil {
		return nil, err
	}
	resp := &engine.Response{Vars: map[string]any{"status": a.status, "body": body}}
	if a.status >= 400 {
		resp.Failure = "fake failure with status " + strconv.Itoa(a.status)
	}
	return resp, nil
}
