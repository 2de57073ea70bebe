package httpaction

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/sony/gobreaker/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// The defaults of a circuit_breaker block.
const (
	defaultBreakerFailures = 5
	defaultBreakerOpenFor  = 30 * time.Second
)

// errNotCounted is the outcome of a call that says nothing of the
// upstream (its client gave up, or it never reached the upstream): the
// breaker does not count it.
var errNotCounted = errors.New("not counted")

// errFailed is the outcome of a call the upstream failed: no response, or
// a 5xx status.
var errFailed = errors.New("the upstream failed")

// breaker is an http_api's circuit breaker: after failures calls in a row
// that the upstream failed, it opens, and calls fail at once for openFor;
// then one call is let through as a probe, whose outcome closes it or
// opens it again. It is safe for concurrent use.
type breaker struct {
	api      string
	failures uint32
	openFor  time.Duration
	cb       *gobreaker.TwoStepCircuitBreaker[struct{}]
	until    atomic.Int64 // when an open breaker lets a probe through, in Unix nanoseconds
}

// BreakerSpec is the circuit_breaker block of an http_api.
var BreakerSpec = &spec.Block{
	Name:    "circuit_breaker",
	In:      "http_api",
	Summary: "Stops calls to an upstream that keeps failing, for a while.",
	Doc: "After failures calls in a row that the upstream failed (no response, or a 5xx status; 4xx answers and calls the client gave up on do not count), " +
		"calls through this API fail at once for open_for, then one probe call is let through: its success closes the breaker, its failure opens it again. " +
		"Its state is per server process, and starts closed at each reload. It is shared by every caller of the API: " +
		"a caller whose arguments make the upstream fail that way can open it for everyone; a per-caller rate_limit bounds how fast.",
	Example: `circuit_breaker {
  failures = 5
  open_for = "30s"
}`,
	Attrs: []*spec.Attr{
		spec.Int("failures", "is how many calls in a row the upstream must fail for the breaker to open").Range(1, 1000).WithDefault(defaultBreakerFailures),
		spec.Duration("open_for", "is how long calls fail at once before a probe call is let through").Range(int64(time.Second), int64(time.Hour)).WithDefault(defaultBreakerOpenFor),
	},
}

// decodeBreaker decodes a circuit_breaker block.
func decodeBreaker(ctx *engine.DecodeContext, block *hcl.Block, api string) (*breaker, hcl.Diagnostics) {
	v, diags := BreakerSpec.Decode(block.Body, ctx)
	b := &breaker{api: api, failures: uint32(v.Int("failures")), openFor: v.Duration("open_for")}
	if diags.HasErrors() {
		return nil, diags
	}
	b.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        api,
		MaxRequests: 1, // one probe call when the time is up
		Timeout:     b.openFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= b.failures },
		IsExcluded:  func(err error) bool { return errors.Is(err, errNotCounted) },
		OnStateChange: func(_ string, _, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				b.until.Store(time.Now().Add(b.openFor).UnixNano())
			}
		},
	})
	return b, diags
}

// allow lets a call through, returning the function that reports how it
// went (nil: the upstream answered; errFailed; errNotCounted), which must be
// called exactly once; or, while the
// breaker is open, the error the call fails with.
func (b *breaker) allow() (func(error), error) {
	done, err := b.cb.Allow()
	switch {
	case errors.Is(err, gobreaker.ErrOpenState):
		wait := time.Until(time.Unix(0, b.until.Load())).Round(time.Second)
		return nil, fmt.Errorf("upstream %s is failing (%d calls in a row failed); next try in %s", b.api, b.failures, max(wait, time.Second))
	case err != nil:
		return nil, fmt.Errorf("upstream %s is failing; a probe call is under way to see whether it is back: try again in a moment", b.api)
	}
	return done, nil
}

// outcome classifies a call for the breaker: the upstream failed when no
// response came (but the client gave up) or the status is 5xx.
func outcome(parent context.Context, status int, err error) error {
	switch {
	case err != nil && parent.Err() != nil:
		return errNotCounted
	case err != nil, status >= 500:
		return errFailed
	}
	return nil
}
