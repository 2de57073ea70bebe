package ratelimit

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Limit is a rate: Burst calls at once, refilling at Requests per Per. The
// zero Limit means no limit.
type Limit struct {
	// Requests is how many calls are allowed per Per, once the bucket has
	// been emptied.
	Requests int
	// Per is the period of Requests.
	Per time.Duration
	// Burst is how many calls are allowed at once, by a bucket that is
	// full. Zero means Requests.
	Burst int
}

// IsZero reports whether l sets no limit: its Requests or its Per is not
// positive.
func (l Limit) IsZero() bool { return l.Requests <= 0 || l.Per <= 0 }

// Interval is the time it takes a bucket to earn one call back:
// Per/Requests, at least a nanosecond. It is zero for the zero Limit.
func (l Limit) Interval() time.Duration {
	if l.IsZero() {
		return 0
	}
	return max(time.Nanosecond, l.Per/time.Duration(l.Requests))
}

// burst is how many calls a full bucket allows: Burst, else Requests.
func (l Limit) burst() int64 {
	if l.Burst > 0 {
		return int64(l.Burst)
	}
	return int64(l.Requests)
}

// String describes l for people: "5 calls per 1s", or "60 calls per 1m,
// 10 at once" when its burst differs from its requests.
func (l Limit) String() string {
	if l.IsZero() {
		return "no limit"
	}
	calls := "calls"
	if l.Requests == 1 {
		calls = "call"
	}
	s := fmt.Sprintf("%d %s per %s", l.Requests, calls, shortDuration(l.Per))
	if b := l.burst(); b != int64(l.Requests) {
		s += fmt.Sprintf(", %d at once", b)
	}
	return s
}

// Decision is the answer of a store about one call.
type Decision struct {
	// Allowed is whether the call may run now.
	Allowed bool
	// RetryAfter is how long until a refused call would be allowed; zero
	// when the call is allowed.
	RetryAfter time.Duration
	// Remaining is how many more calls the bucket allows now, after this
	// one; zero when the call is refused.
	Remaining int
}

// Store keeps buckets and decides about calls. It is safe for concurrent
// use.
type Store interface {
	// Allow decides about one call of the bucket named key under l, and
	// counts it when it is allowed. The key is opaque: the caller builds it
	// from a tool and a client. Calls under the zero Limit are allowed and
	// not counted. An error means the store could not decide; mcpdecl then
	// refuses the call.
	Allow(ctx context.Context, key string, l Limit) (Decision, error)
	// Close releases what the store holds, such as connections.
	Close() error
}

// gcra decides about one call under the non-zero limit l, with the generic
// cell rate algorithm, given the time now and the bucket's theoretical
// arrival time tat (when it would be full again), both in nanoseconds on one
// clock; a bucket never seen has a tat of zero, or any time not after now.
// It returns the decision and the new tat, unchanged when the call is
// refused.
func gcra(now, tat int64, l Limit) (Decision, int64) {
	// tau is how far ahead of now tat may be: a full bucket's worth of
	// calls. Both are saturated so that long periods and large bursts
	// cannot overflow; the waits they cap are centuries long.
	const most = math.MaxInt64 / 4
	t := min(int64(l.Interval()), most)
	tau := int64(most)
	if b := l.burst(); b <= tau/t {
		tau = b * t
	}
	tat = max(tat, now)
	next := tat + t
	allowAt := next - tau
	if now < allowAt {
		return Decision{RetryAfter: time.Duration(allowAt - now)}, tat
	}
	return Decision{Allowed: true, Remaining: int(min((now-allowAt)/t, l.burst()-1))}, next
}

// Message is the text of the tool error of a call refused under l: the
// limit, and when to retry, rounded up so that a client that waits that
// long is allowed. For example: "rate limit exceeded for this tool: 5 calls
// per 1s; retry in 180ms".
func Message(l Limit, d Decision) string {
	return fmt.Sprintf("rate limit exceeded for this tool: %s; retry in %s", l, shortDuration(roundUp(d.RetryAfter)))
}

// shortDuration writes d without trailing zero units: 1h, 1m30s, 1s.
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

// roundUp rounds a wait up to a precision that reads well and never tells a
// client to retry too early: milliseconds under a second (180ms), tenths of
// a second under a minute (19.2s), seconds under an hour (4m12s), minutes
// beyond (2h5m). A wait that is not positive rounds to a millisecond.
func roundUp(d time.Duration) time.Duration {
	var unit time.Duration
	switch {
	case d < time.Second:
		unit = time.Millisecond
	case d < time.Minute:
		unit = 100 * time.Millisecond
	case d < time.Hour:
		unit = time.Second
	default:
		unit = time.Minute
	}
	if d <= 0 {
		return unit
	}
	if d > math.MaxInt64-unit {
		return d.Truncate(unit)
	}
	return (d + unit - 1).Truncate(unit)
}
