package cache

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
)

var (
	_ Backend            = (*Redis)(nil)
	_ engine.Checker     = (*Redis)(nil)
	_ engine.RemoteStore = (*Redis)(nil)
)

// Redis keeps results in Redis, under keys that start with a prefix and
// ":cache:", shared by every replica; Redis expires them.
type Redis struct {
	client *redisconn.Client
	prefix string
}

// NewRedis returns a store in the Redis at rawURL (see redisconn.Open). It
// does not connect: the first call does.
func NewRedis(rawURL, prefix string) (*Redis, error) {
	client, err := redisconn.Open(rawURL, "the cache store")
	if err != nil {
		return nil, err
	}
	return &Redis{client: client, prefix: prefix}, nil
}

// Get returns the value under key, if Redis has it.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var b []byte
	err := r.client.Do(ctx, "read a cached result", func(ctx context.Context, conn redis.Conn) error {
		var err error
		b, err = redis.Bytes(redis.DoContext(conn, ctx, "GET", r.prefix+":cache:"+key))
		if errors.Is(err, redis.ErrNil) {
			return nil
		}
		return err
	})
	return b, err == nil && b != nil, err
}

// Set stores value under key for ttl, to the millisecond.
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	ms := ttl.Milliseconds()
	if ms <= 0 {
		return nil
	}
	return r.client.Do(ctx, "store a result", func(ctx context.Context, conn redis.Conn) error {
		_, err := redis.DoContext(conn, ctx, "SET", r.prefix+":cache:"+key, value, "PX", ms)
		return err
	})
}

// IsRemote reports that a call waits for Redis over the network: its
// exchanges with it share one engine.RemoteStoreTime.
func (r *Redis) IsRemote() bool { return true }

// Check reports whether Redis answers a PING within a second.
func (r *Redis) Check(ctx context.Context) error { return r.client.Check(ctx) }

// Close closes the connections to Redis.
func (r *Redis) Close() error { return r.client.Close() }
