package ratelimit

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Limit is a rate: Burst calls at once, refilling at Requests per Per. The
// zero Limit means no limit.
type Limit struct {
	Requests int
	Per      time.Duration
	Burst    int
}

// IsZero reports whether l sets no limit.
func (l Limit) IsZero() bool { return l.Requests == 0 }

// interval is the time it takes to earn one call back.
func (l Limit) interval() time.Duration {
	return max(time.Nanosecond, l.Per/time.Duration(l.Requests))
}

// String describes l for people: "5 calls per 1s, 10 at once".
func (l Limit) String() string {
	calls := "calls"
	if l.Requests == 1 {
		calls = "call"
	}
	s := fmt.Sprintf("%d %s per %s", l.Requests, calls, shortDuration(l.Per))
	if l.Burst != l.Requests {
		s += fmt.Sprintf(", %d at once", l.Burst)
	}
	return s
}

// Decision is the answer of a store about one call.
type Decision struct {
	Allowed bool
	// RetryAfter is how long until a refused call would be allowed.
	RetryAfter time.Duration
	// Remaining is how many more calls the bucket allows now.
	Remaining int
}

// Store keeps buckets and decides about calls. Keys are opaque: the caller
// builds them from a tool and a client.
type Store interface {
	Allow(ctx context.Context, key string, l Limit) (Decision, error)
	Close() error
}

// gcra decides about one call under l, given the bucket's theoretical
// arrival time tat and the time now, both in nanoseconds. It returns the
// decision and the new tat (unchanged when refused).
func gcra(now, tat int64, l Limit) (Decision, int64) {
	t := int64(l.interval())
	tat = max(tat, now)
	next := tat + t
	allowAt := next - t*int64(l.Burst)
	if now < allowAt {
		return Decision{RetryAfter: time.Duration(allowAt - now)}, tat
	}
	return Decision{Allowed: true, Remaining: int((now - allowAt) / t)}, next
}

// Message is the tool error of a refused call: the limit, and when to
// retry.
func Message(l Limit, d Decision) string {
	return fmt.Sprintf("rate limit exceeded for this tool: %s; retry in %s", l, roundUp(d.RetryAfter))
}

// shortDuration writes d without zero units: 1h, 1m30s, 1s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// roundUp rounds a wait up to a precision that reads well.
func roundUp(d time.Duration) time.Duration {
	unit := time.Millisecond
	if d >= 10*time.Second {
		unit = time.Second
	}
	return time.Duration(math.Ceil(float64(d)/float64(unit))) * unit
}

// Bind returns the rate limiter of one tool: calls are decided by s under l.
func Bind(s Store, l Limit) engine.RateLimiter { return &limiter{store: s, limit: l} }

// limiter is the rate limiter of one tool.
type limiter struct {
	store Store
	limit Limit
}

var _ engine.RateLimiter = (*limiter)(nil)

// Admit lets the call run, or refuses it with a message saying when to
// retry; when the store cannot decide, the call is refused too.
func (r *limiter) Admit(ctx context.Context, key string) error {
	d, err := r.store.Allow(ctx, key, r.limit)
	if err != nil {
		return fmt.Errorf("the call was refused because its rate limit could not be checked: %w", err)
	}
	if !d.Allowed {
		return refusal(Message(r.limit, d))
	}
	return nil
}

// refusal is the error of a refused call.
type refusal string

func (r refusal) Error() string { return string(r) }
