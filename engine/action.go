package engine

import (
	"context"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// Action is the compiled action of one tool, such as an HTTP request. It is
// built once at load time and run for every call, concurrently. An Action
// that implements io.Closer is closed when its Config is closed (after a
// reload, once the calls under way are done with it).
type Action interface {
	// Run performs the action with the call's validated arguments. An error
	// means the action could not complete (a network failure, a timeout): it
	// becomes a tool error whose message is the error's text, so the text
	// must say what failed in words a user understands.
	Run(ctx context.Context, args map[string]any) (*Response, error)
}

// Response is what an action produced.
type Response struct {
	// Vars are the variables that output programs may read, named as the
	// adapter's Result declares: for HTTP, status, headers, body and
	// content_type. It must be a new map on every call: the engine adds
	// args to it.
	Vars map[string]any
	// Failure, when not empty, says that the call failed by the adapter's
	// default rule (an HTTP status of 400 or more, say) and why. A tool's
	// error_if replaces this rule.
	Failure string
	// Content is what the result shows when the tool declares neither
	// outputs nor text: for HTTP, the body as text, or as an image or audio
	// when it is binary. Image and audio content is kept in every case.
	Content []Content
	// Text, when set, writes a text block that goes before Content. The
	// engine calls it only when the result shows the action's own
	// content, so an adapter whose text costs work (the SQL adapter's
	// rows as JSON) does none for a tool that shows its outputs instead.
	Text func() string
}

// Adapter turns one kind of action block into Actions.
type Adapter interface {
	// Kind is the name of the action block in a tool, such as "http".
	Kind() string
	// Result lists the variables a run of this kind exposes to the programs
	// that run after it, with their types.
	Result() mapping.Env
	// DecodeAction provisions and validates an action from its block. The
	// diagnostics must point at the narrowest range that is wrong.
	DecodeAction(ctx *DecodeContext, block *hcl.Block) (Action, hcl.Diagnostics)
}

// UpstreamAdapter is an Adapter that also declares a kind of named top-level
// block that its actions refer to, such as http_api "name" { … }, referred to
// as http_api.name: an upstream, what the tools' actions call (an HTTP API,
// a database).
type UpstreamAdapter interface {
	Adapter
	// UpstreamKind is the name of the top-level block, such as "http_api".
	UpstreamKind() string
	// DecodeUpstream provisions an upstream from its block. An upstream
	// that implements io.Closer is closed when its Config is closed.
	DecodeUpstream(ctx *DecodeContext, block *hcl.Block) (any, hcl.Diagnostics)
}

// ConcurrencyLimiter is an Action that bounds how many of its runs may be
// under way at once when the tool does not say (max_concurrency). The exec
// action, say, defaults to the number of CPUs.
type ConcurrencyLimiter interface {
	DefaultMaxConcurrency() int
}

// Hinter is an Action that knows hints about its behaviour, used for the
// tool's annotations where the configuration does not set them: a SELECT
// on a read-only database is read-only.
type Hinter interface {
	Hints() Annotations
}

// ResultTyper is an Action that knows the types of its result more
// precisely than its adapter's Result, from its own block: an exec action
// with parse = "text" yields a string stdout. Its ResultTypes override the
// adapter's declarations, so that a program misusing them is a load error.
type ResultTyper interface {
	ResultTypes() mapping.Env
}

// Checker is a decoded top-level block that can tell whether what it connects to is
// reachable, such as a database pool with a ping. The error must say what
// is unreachable, without secrets.
type Checker interface {
	Check(ctx context.Context) error
}
