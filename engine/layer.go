package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// A CallLayer is a feature of the per-call path of a tool, such as its rate
// limit or its cache: it wraps the step that runs after it.
type CallLayer interface {
	// Wrap returns what runs a call of t in place of next, or next itself
	// when the feature has nothing to do for t, so that a call pays only
	// for the features of its tool. It is called once, as t is made; its
	// error says why t cannot have the feature.
	Wrap(t *Tool, next CallStep) (CallStep, error)
}

// A CallStep runs one call of a tool by caller with the arguments the
// client sent, raw JSON.
type CallStep func(ctx context.Context, caller Caller, raw json.RawMessage) *Result

// layers is the per-call path of t, outermost first; the last wraps the
// call itself (Tool.step).
func (t *Tool) layers() []CallLayer {
	return slices.Concat(
		t.spec.Outer,                            // the configuration's, which see every call: its audit log, its calls' spans
		[]CallLayer{checkScopes{}, storeTime{}}, // the scopes; the time of the remote stores of the tool's own
		t.spec.Layers,                           // the tool's own: its rate limit, then its cache
		[]CallLayer{bound{}, traceCalls{}},      // the timeout; the call tracer (trace.go)
	)
}

// wrap builds the per-call path of t from its layers.
func (t *Tool) wrap(layers []CallLayer) (err error) {
	t.run = t.step
	for i := len(layers) - 1; i >= 0 && err == nil; i-- {
		t.run, err = layers[i].Wrap(t, t.run)
	}
	return err
}

// step runs a call itself: Tool.call (arguments, confirmation and other
// questions, action, result), then Tool.finish (sanitizing, redaction,
// size cap).
func (t *Tool) step(ctx context.Context, _ Caller, raw json.RawMessage) *Result {
	res, sec := t.call(ctx, raw)
	if res.Round != nil {
		return res // its message was cleaned and redacted already
	}
	return t.finish(res, sec)
}

// checkScopes refuses the callers whose token does not grant every scope
// of the tool.
type checkScopes struct{}

func (checkScopes) Wrap(t *Tool, next CallStep) (CallStep, error) {
	if len(t.spec.Scopes) == 0 {
		return next, nil
	}
	return func(ctx context.Context, caller Caller, raw json.RawMessage) *Result {
		if !caller.Grants(t.spec.Scopes) {
			return refused(OutcomeDenied, fmt.Sprintf("access denied: the tool %s requires the scopes %s, and your token does not grant them all",
				t.spec.Name, strings.Join(t.spec.Scopes, ", ")))
		}
		return next(ctx, caller, raw)
	}, nil
}

// storeTime gives a call one RemoteStoreTime for all its remote stores:
// the tool's own layers that are a [RemoteStore], such as a Redis rate
// limit or cache.
type storeTime struct{}

func (storeTime) Wrap(t *Tool, next CallStep) (CallStep, error) {
	if !slices.ContainsFunc(t.spec.Layers, func(l CallLayer) bool { return isRemote(l) }) {
		return next, nil
	}
	return func(ctx context.Context, caller Caller, raw json.RawMessage) *Result {
		return next(withStoreTime(ctx), caller, raw)
	}, nil
}

// Refuse is the tool error of a call of t that a layer refuses, of
// outcome (such as OutcomeRateLimited): the text of err, cleaned of
// control characters and of the secrets the configuration knows.
func (t *Tool) Refuse(outcome Outcome, err error) *Result {
	return refused(outcome, t.redactor.Redact(text.SanitizeString(err.Error())))
}

// bound bounds a call by its tool's timeout, or by the caller's deadline
// when that comes first.
type bound struct{}

// callTimeKey is the context key of the time a call had, when the
// caller's deadline cut it short of the tool's timeout.
type callTimeKey struct{}

func (bound) Wrap(t *Tool, next CallStep) (CallStep, error) {
	return func(ctx context.Context, caller Caller, raw json.RawMessage) *Result {
		if d, ok := ctx.Deadline(); ok {
			// The caller's deadline comes first: messages name the time
			// the call really had.
			if had := time.Until(d); had < t.spec.Timeout {
				ctx = context.WithValue(ctx, callTimeKey{}, had)
			}
		}
		ctx, cancel := context.WithTimeout(ctx, t.spec.Timeout)
		defer cancel()
		return next(ctx, caller, raw)
	}, nil
}

// callTime is the time the call of ctx had: its tool's timeout, or less
// when the caller's deadline came first (see bound).
func (t *Tool) callTime(ctx context.Context) time.Duration {
	if had, ok := ctx.Value(callTimeKey{}).(time.Duration); ok {
		return had
	}
	return t.spec.Timeout
}
