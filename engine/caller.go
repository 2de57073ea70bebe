package engine

import (
	"context"
	"slices"

	"github.com/expr-lang/expr/types"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// Caller is who makes a call: the identity the server authenticated, or the
// address it came from, and the scopes its token grants.
type Caller struct {
	// ID names the caller in logs, audit lines and rate-limit keys: a
	// verified token's identity, which begins with its kind ("token:" and
	// a static token's label, "jwt:" and a JWT's subject), else the
	// client's address, else "local" for stdio and the command line. Each
	// kind of caller has names of its own, so that a JWT whose subject is
	// "team" never spends the rate limit of the static token "team".
	ID string
	// Authenticated is true when a token was checked; only then do a tool's
	// scopes apply.
	Authenticated bool
	// Scopes are those the caller's token grants.
	Scopes []string
	// Subject is who the token names: a JWT's sub, a static token's
	// label; "" when no token was checked.
	Subject string
	// Claims are the claims of the caller's JWT that the auth block lets
	// programs read (its oauth block's claims), each nil when the token
	// has none; nil without a JWT. They are never logged.
	Claims map[string]any
	// Token is the JWT the caller sent, for an upstream that acts with it
	// (an http_api's auth { caller_token { … } }); "" without a JWT. It is
	// never logged, never given to programs, and redacted from the results
	// of the tools that send it.
	Token string
	// Audience is the audience (aud) of the caller's JWT.
	Audience []string
}

// String is the caller's ID: printing a Caller never shows its token.
func (c Caller) String() string { return c.ID }

// GoString is String, so that %#v does not show the token either.
func (c Caller) GoString() string { return c.ID }

// TokenKey and AudienceKey are the keys of an authenticated request's
// TokenInfo.Extra that hold the caller's JWT, as a string, and its
// audience, as a []string (see Caller.Token).
const (
	TokenKey    = "token"
	AudienceKey = "aud"
)

// CallerTokenUser is an action that sends the caller's own token
// upstream; the tool redacts that token from its results.
type CallerTokenUser interface {
	UsesCallerToken() bool
}

// CallerActor is an action whose request depends on the caller's token
// beyond what its programs read: it sends that token upstream, or one got
// in exchange for it. What it answers is then the caller's own, and a
// cache keeps it under the token (see package cache).
type CallerActor interface {
	// ActsAsCaller says how, for messages: `http_api "orders" sends each
	// caller's own token (auth { caller_token })`; "" when it does not.
	ActsAsCaller() string
}

// ActsAsCaller says how the tool's action acts as its caller (see
// [CallerActor]); "" when it does not.
func (t *Tool) ActsAsCaller() string {
	if a, ok := t.spec.Action.(CallerActor); ok {
		return a.ActsAsCaller()
	}
	return ""
}

// ClaimsKey is the key of an authenticated request's TokenInfo.Extra that
// holds the claims programs may read (see Caller.Claims), as a
// map[string]any.
const ClaimsKey = "claims"

// Value is the caller as programs read it: caller.id, caller.sub,
// caller.authenticated, caller.scopes and caller.claims.<name> (see
// [CallerType]).
func (c Caller) Value() map[string]any {
	scopes := make([]any, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = s
	}
	claims := make(map[string]any, len(c.Claims))
	for k, v := range c.Claims {
		claims[k] = v
	}
	return map[string]any{"id": c.ID, "sub": c.Subject, "authenticated": c.Authenticated, "scopes": scopes, "claims": claims}
}

type programVarsKey struct{}

// programVars are the variables of a call's programs besides args, when
// they read some: the caller, the answers of a confirmation, the client's
// roots, and in a step
// of a multi-step tool the results of the steps before it and the item of
// its for_each.
type programVars struct {
	caller, confirm map[string]any
	steps, each     map[string]any
	roots           []any
}

// CallerValue is the caller as the programs of the call under way read
// it, for actions to put in their programs' environment as "caller"; nil
// when no program of the tool reads it.
func CallerValue(ctx context.Context) map[string]any {
	v, _ := ctx.Value(programVarsKey{}).(*programVars)
	if v == nil {
		return nil
	}
	return v.caller
}

// ProgramEnv is the environment of an action's programs for a call with
// args: args, and caller and confirm when the tool's programs read them;
// in a step, steps and each. It is a new map on every call.
func ProgramEnv(ctx context.Context, args map[string]any) map[string]any {
	env := map[string]any{"args": args}
	if v, _ := ctx.Value(programVarsKey{}).(*programVars); v != nil {
		if v.caller != nil {
			env["caller"] = v.caller
		}
		if v.confirm != nil {
			env["confirm"] = v.confirm
		}
		if v.roots != nil {
			env["roots"] = v.roots
		}
		if v.steps != nil {
			env["steps"] = v.steps
		}
		if v.each != nil {
			env["each"] = v.each
		}
	}
	return env
}

// withStepVars returns ctx whose programs also read steps, and each when
// it is not nil.
func withStepVars(ctx context.Context, steps, each map[string]any) context.Context {
	v := &programVars{steps: steps, each: each}
	if outer, _ := ctx.Value(programVarsKey{}).(*programVars); outer != nil {
		v.caller, v.confirm, v.roots = outer.caller, outer.confirm, outer.roots
	}
	return context.WithValue(ctx, programVarsKey{}, v)
}

// CallerType is the type of the caller variable of programs, given the
// claims the auth block lets them read: reading any other name is a load
// error.
func CallerType(claims []string) types.Map {
	chosen := types.Map{}
	for _, name := range claims {
		chosen[name] = types.Any
	}
	return types.Map{
		"id": types.String, "sub": types.String, "authenticated": types.Bool,
		"scopes": mapping.Array(types.String), "claims": chosen,
	}
}

// LocalID is the ID of the caller of stdio sessions and of the command
// line: the user who started the server.
const LocalID = "local"

type callerKey struct{}

// WithCaller returns ctx carrying c, for [Tool.Call] to check scopes and
// rate limits against.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx carries, else the local one (see
// [LocalID]).
func CallerFrom(ctx context.Context) Caller {
	if c, ok := ctx.Value(callerKey{}).(Caller); ok {
		return c
	}
	return Caller{ID: LocalID}
}

// Grants reports whether the caller may use a tool that requires scopes:
// always when no token was checked, else when the token grants every one.
func (c Caller) Grants(scopes []string) bool {
	if !c.Authenticated {
		return true
	}
	for _, s := range scopes {
		if !slices.Contains(c.Scopes, s) {
			return false
		}
	}
	return true
}
