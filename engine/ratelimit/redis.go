package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
)

// maxMicros caps the times the script is given, in microseconds (about 35
// years), so that its sums stay exact in Lua's floating-point numbers.
const maxMicros = 1 << 50

// gcraScript decides about one call in Redis, on Redis's clock, in
// microseconds. KEYS[1] is the bucket; ARGV[1] is the interval in which the
// bucket earns one call back, ARGV[2] how far ahead of now its theoretical
// arrival time may be (burst intervals). It returns {allowed (1 or 0),
// retry after, remaining}, and stores the new arrival time with an expiry
// at that time, when the bucket is full again and carries no state.
//
// TIME makes the script non-deterministic: Redis before 5 only allows
// writes after it when the script replicates its effects rather than
// itself, which redis.replicate_commands asks for (later versions always
// do). Numbers are written with %.0f so that no version of Redis formats
// them with fewer digits than they have.
var gcraScript = redis.NewScript(1, `
if redis.replicate_commands then redis.replicate_commands() end
local interval = tonumber(ARGV[1])
local tau = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local nxt = tat + interval
local allow_at = nxt - tau
if now < allow_at then
  return {0, allow_at - now, 0}
end
redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', string.format('%.0f', math.ceil((nxt - now) / 1000)))
return {1, 0, math.floor((now - allow_at) / interval)}
`)

// redisStore keeps buckets in Redis, shared by every replica.
type redisStore struct {
	client *redisconn.Client
	prefix string
}

var (
	_ Store              = (*redisStore)(nil)
	_ engine.Checker     = (*redisStore)(nil)
	_ engine.RemoteStore = (*redisStore)(nil)
)

// NewRedis returns a store whose buckets live in the Redis at rawURL, under
// keys that start with prefix and ":rl:". The URL is
// redis://[[user]:password@]host:port[/db], rediss:// for TLS, or
// unix:///path/to/socket; whatever timeouts it sets, a call's exchanges
// with Redis share one second (see engine.RemoteStoreTime) with those of
// its cache. NewRedis does not connect: the first call
// does, and the store's Check method (see [engine.Checker]) pings Redis
// for readiness.
//
// Errors name Redis by its address, never by its URL, which may hold a
// password.
func NewRedis(rawURL, prefix string) (Store, error) {
	client, err := redisconn.Open(rawURL, "the rate_limit store")
	if err != nil {
		return nil, err
	}
	return &redisStore{client: client, prefix: prefix}, nil
}

// Allow decides about one call of key under l, in Redis.
func (r *redisStore) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	if l.IsZero() {
		return Decision{Allowed: true}, nil
	}
	interval := min(max(1, l.Interval().Microseconds()), maxMicros)
	tau := int64(maxMicros)
	if b := l.burst(); b <= tau/interval {
		tau = b * interval
	}
	var res []int64
	err := r.client.Do(ctx, "run the rate-limit script", func(ctx context.Context, conn redis.Conn) error {
		var err error
		res, err = redis.Int64s(gcraScript.DoContext(ctx, conn, r.prefix+":rl:"+key, interval, tau))
		return err
	})
	if err != nil {
		return Decision{}, err
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("Redis at %s, the rate_limit store, answered the rate-limit script with %d values instead of 3; is it Redis 3.2 or later?", r.client.Addr, len(res))
	}
	return Decision{Allowed: res[0] == 1, RetryAfter: time.Duration(res[1]) * time.Microsecond, Remaining: int(res[2])}, nil
}

// IsRemote reports that a call waits for Redis over the network: its
// exchanges with it share one engine.RemoteStoreTime.
func (r *redisStore) IsRemote() bool { return true }

// Check reports whether Redis answers a PING within a second.
func (r *redisStore) Check(ctx context.Context) error { return r.client.Check(ctx) }

// Close closes the connections to Redis.
func (r *redisStore) Close() error { return r.client.Close() }
