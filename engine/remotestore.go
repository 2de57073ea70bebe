package engine

import (
	"context"
	"sync/atomic"
	"time"
)

// A RemoteStore is a rate limiter or a result cache that a call waits for
// over the network, such as Redis: the rate limiter and the cache of a
// call share one [RemoteStoreTime] (see [StoreTimeOf]). A tool's own
// CallLayer (a ratelimit.Limiter, a cache.Policy) implements it to say so.
type RemoteStore interface {
	// IsRemote reports whether a call waits for the store over the
	// network.
	IsRemote() bool
}

// isRemote reports whether v is a remote store.
func isRemote(v any) bool {
	r, ok := v.(RemoteStore)
	return ok && r.IsRemote()
}

// RemoteStoreTime is the most time a call waits for its remote stores, in
// all: its rate limit, its cache read and its cache write together.
const RemoteStoreTime = time.Second

// StoreTime is what is left of a call's [RemoteStoreTime]. A call's
// exchanges with its stores are made one after the other, each waiting at
// most what is left, and taking from it the time it took. A nil StoreTime
// is that of a wait outside a call (a readiness check, say): each has a
// whole RemoteStoreTime.
type StoreTime struct {
	left atomic.Int64 // nanoseconds
}

// Left is how long the next exchange may wait; not positive once the
// call's time is spent: then it must not be made.
func (s *StoreTime) Left() time.Duration {
	if s == nil {
		return RemoteStoreTime
	}
	return time.Duration(s.left.Load())
}

// Spend takes d, the time an exchange took, from what is left.
func (s *StoreTime) Spend(d time.Duration) {
	if s != nil {
		s.left.Add(-int64(d))
	}
}

// StoreTimeOf returns the StoreTime of the call ctx belongs to, or nil
// outside a call with a remote store.
func StoreTimeOf(ctx context.Context) *StoreTime {
	s, _ := ctx.Value(storeTimeKey{}).(*storeTimeContext)
	if s == nil {
		return nil
	}
	return &s.time
}

type storeTimeKey struct{}

// storeTimeContext carries a call's StoreTime: one allocation, made only
// for the calls of tools with a remote store.
type storeTimeContext struct {
	context.Context
	time StoreTime
}

func (c *storeTimeContext) Value(key any) any {
	if key == (storeTimeKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// withStoreTime returns ctx with a whole RemoteStoreTime of its own.
func withStoreTime(ctx context.Context) context.Context {
	c := &storeTimeContext{Context: ctx}
	c.time.left.Store(int64(RemoteStoreTime))
	return c
}
