package engine

import (
	"context"
	"slices"
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
