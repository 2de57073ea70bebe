package ratelimit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	tests := []struct {
		l        Limit
		zero     bool
		interval time.Duration
		str      string
	}{
		{l: Limit{}, zero: true, interval: 0, str: "no limit"},
		{l: Limit{Requests: 5, Per: time.Second, Burst: 5}, interval: 200 * time.Millisecond, str: "5 calls per 1s"},
		{l: Limit{Requests: 5, Per: time.Second}, interval: 200 * time.Millisecond, str: "5 calls per 1s"},
		{l: Limit{Requests: 1, Per: time.Hour, Burst: 1}, interval: time.Hour, str: "1 call per 1h"},
		{l: Limit{Requests: 60, Per: time.Minute, Burst: 10}, interval: time.Second, str: "60 calls per 1m, 10 at once"},
		{l: Limit{Requests: 3, Per: 90 * time.Second, Burst: 3}, interval: 30 * time.Second, str: "3 calls per 1m30s"},
		{l: Limit{Requests: 1e9, Per: time.Millisecond, Burst: 1}, interval: time.Nanosecond, str: "1000000000 calls per 1ms, 1 at once"},
		{l: Limit{Requests: 0, Per: time.Second, Burst: 3}, zero: true, str: "no limit"},
		{l: Limit{Requests: 3, Burst: 3}, zero: true, str: "no limit"},
	}
	for _, tt := range tests {
		if got := tt.l.IsZero(); got != tt.zero {
			t.Errorf("%+v.IsZero() = %v", tt.l, got)
		}
		if got := tt.l.Interval(); got != tt.interval {
			t.Errorf("%+v.Interval() = %s, want %s", tt.l, got, tt.interval)
		}
		if got := tt.l.String(); got != tt.str {
			t.Errorf("%+v.String() = %q, want %q", tt.l, got, tt.str)
		}
	}
}

// TestGCRA follows one bucket through the algorithm both stores share.
func TestGCRA(t *testing.T) {
	l := Limit{Requests: 10, Per: time.Second, Burst: 3} // one call per 100ms
	ms := int64(time.Millisecond)
	steps := []struct {
		at   int64 // ms
		want Decision
	}{
		{0, Decision{Allowed: true, Remaining: 2}},
		{0, Decision{Allowed: true, Remaining: 1}},
		{0, Decision{Allowed: true, Remaining: 0}},
		{0, Decision{RetryAfter: 100 * time.Millisecond}},
		{99, Decision{RetryAfter: time.Millisecond}},
		{100, Decision{Allowed: true, Remaining: 0}},
		{150, Decision{RetryAfter: 50 * time.Millisecond}},
		{350, Decision{Allowed: true, Remaining: 1}},
		{10_000, Decision{Allowed: true, Remaining: 2}}, // full again, not fuller
	}
	tat := int64(0)
	for _, s := range steps {
		var d Decision
		d, tat = gcra(s.at*ms, tat, l)
		if d != s.want {
			t.Errorf("at %dms: %+v, want %+v", s.at, d, s.want)
		}
	}
}

// TestGCRAExtremes checks that the largest limits HCL accepts neither
// overflow nor let everything through.
func TestGCRAExtremes(t *testing.T) {
	tests := []Limit{
		{Requests: 1, Per: 290 * 365 * 24 * time.Hour, Burst: 1e9},
		{Requests: 1e9, Per: 290 * 365 * 24 * time.Hour, Burst: 1e9},
		{Requests: 1, Per: time.Duration(1<<63 - 1), Burst: 1},
	}
	for _, l := range tests {
		now := int64(time.Hour)
		d, tat := gcra(now, 0, l)
		if !d.Allowed || d.Remaining < 0 || tat <= now {
			t.Errorf("%v: first call %+v, tat %d", l, d, tat)
		}
		if l.burst() == 1 {
			if d, _ := gcra(now, tat, l); d.Allowed || d.RetryAfter <= 0 {
				t.Errorf("%v: second call %+v, want refused", l, d)
			}
		}
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		l    Limit
		wait time.Duration
		want string
	}{
		{Limit{5, time.Second, 5}, 180 * time.Millisecond, "rate limit exceeded for this tool: 5 calls per 1s; retry in 180ms"},
		{Limit{5, time.Second, 5}, 179*time.Millisecond + 10, "rate limit exceeded for this tool: 5 calls per 1s; retry in 180ms"},
		{Limit{5, time.Second, 5}, 300, "rate limit exceeded for this tool: 5 calls per 1s; retry in 1ms"},
		{Limit{5, time.Second, 5}, 0, "rate limit exceeded for this tool: 5 calls per 1s; retry in 1ms"},
		{Limit{1, time.Second, 1}, time.Second, "rate limit exceeded for this tool: 1 call per 1s; retry in 1s"},
		{Limit{3, time.Minute, 3}, 19*time.Second + 123*time.Millisecond, "rate limit exceeded for this tool: 3 calls per 1m; retry in 19.2s"},
		{Limit{60, time.Minute, 10}, 59 * time.Second, "rate limit exceeded for this tool: 60 calls per 1m, 10 at once; retry in 59s"},
		{Limit{1, time.Hour, 1}, 4*time.Minute + 11*time.Second + time.Millisecond, "rate limit exceeded for this tool: 1 call per 1h; retry in 4m12s"},
		{Limit{1, time.Hour, 1}, time.Hour - time.Millisecond, "rate limit exceeded for this tool: 1 call per 1h; retry in 1h"},
		{Limit{1, 24 * time.Hour, 1}, 2*time.Hour + 4*time.Minute + time.Second, "rate limit exceeded for this tool: 1 call per 24h; retry in 2h5m"},
	}
	for _, tt := range tests {
		if got := Message(tt.l, Decision{RetryAfter: tt.wait}); got != tt.want {
			t.Errorf("Message(%v, %s)\ngot  %q\nwant %q", tt.l, tt.wait, got, tt.want)
		}
	}
}

// failing is a store that cannot decide.
type failing struct{}

func (failing) Allow(context.Context, string, Limit) (Decision, error) {
	return Decision{}, errors.New("Redis at 10.0.0.1:6379, the rate_limit store, could not be reached")
}
func (failing) Close() error { return nil }

func TestBind(t *testing.T) {
	ctx := context.Background()
	l := Limit{Requests: 2, Per: time.Hour, Burst: 2}
	lim := Bind(NewMemory(), l)
	for i := range 2 {
		if err := lim.admit(ctx, "tool\x00alice"); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	err := lim.admit(ctx, "tool\x00alice")
	if err == nil || !strings.HasPrefix(err.Error(), "rate limit exceeded for this tool: 2 calls per 1h; retry in 30m") {
		t.Errorf("3rd call: %v", err)
	}
	// A store that cannot decide refuses the call: it fails closed.
	err = Bind(failing{}, l).admit(ctx, "tool\x00alice")
	if err == nil || err.Error() != "the call was refused because its rate limit could not be checked: Redis at 10.0.0.1:6379, the rate_limit store, could not be reached" {
		t.Errorf("failing store: %v", err)
	}
}
