package engine

import (
	"context"
	"time"
)

// An UpstreamObserver is told of each exchange an action has with what it
// wraps, for metrics: kind is the action's ("http", "sql", "exec"),
// upstream names it as the configuration does (an http_api's or a
// database's name, a program), and class is a small fixed set (for HTTP
// "2xx" to "5xx" or "error"; for SQL and exec "ok" or "error").
type UpstreamObserver interface {
	ObserveUpstream(kind, upstream, class string, d time.Duration)
}

type upstreamKey struct{}

// WithUpstreamObserver returns ctx carrying o, which the actions of the
// call tell of their exchanges.
func WithUpstreamObserver(ctx context.Context, o UpstreamObserver) context.Context {
	return context.WithValue(ctx, upstreamKey{}, o)
}

// ObserveUpstream tells the observer ctx carries, if any, of an exchange
// that began at start.
func ObserveUpstream(ctx context.Context, kind, upstream, class string, start time.Time) {
	if o, ok := ctx.Value(upstreamKey{}).(UpstreamObserver); ok {
		o.ObserveUpstream(kind, upstream, class, time.Since(start))
	}
}
