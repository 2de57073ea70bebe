package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisTimeout bounds each exchange with Redis.
const redisTimeout = time.Second

// gcraScript decides about one call in Redis, with Redis's clock, in
// microseconds: KEYS[1] is the bucket, ARGV the interval and the burst. It
// returns {allowed, retry after, remaining}.
var gcraScript = redis.NewScript(`
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
local allow_at = nxt - interval * burst
if now < allow_at then
  return {0, allow_at - now, 0}
end
redis.call('SET', KEYS[1], nxt, 'PX', math.ceil((nxt - now) / 1000) + 1)
return {1, 0, math.floor((now - allow_at) / interval)}
`)

// redisStore keeps buckets in Redis, shared by every replica.
type redisStore struct {
	client *redis.Client
	addr   string
	prefix string
}

var _ Store = (*redisStore)(nil)

// NewRedis returns a store whose buckets live in the Redis at url
// (redis://[:password@]host:port[/db], or rediss:// for TLS), under keys
// that start with prefix. It does not connect until the first call.
func NewRedis(url, prefix string) (Store, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, errors.New("invalid redis_url: use redis://[:password@]host:port[/db]")
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = redisTimeout, redisTimeout, redisTimeout
	opts.MaxRetries = 1
	opts.DisableIdentity = true
	return &redisStore{client: redis.NewClient(opts), addr: opts.Addr, prefix: prefix}, nil
}

// Allow decides about one call of key under l, in Redis.
func (r *redisStore) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	interval := max(1, l.interval().Microseconds())
	res, err := gcraScript.Run(ctx, r.client, []string{r.prefix + ":rl:" + key}, interval, l.Burst).Int64Slice()
	if err != nil {
		return Decision{}, r.fail(err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("Redis at %s answered the rate-limit script unexpectedly", r.addr)
	}
	return Decision{Allowed: res[0] == 1, RetryAfter: time.Duration(res[1]) * time.Microsecond, Remaining: int(res[2])}, nil
}

// Check reports whether Redis answers.
func (r *redisStore) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	if err := r.client.Ping(ctx).Err(); err != nil {
		return r.fail(err)
	}
	return nil
}

// fail words a Redis error with its address, never its URL.
func (r *redisStore) fail(err error) error {
	return fmt.Errorf("Redis at %s, the rate_limit store, did not answer: %w", r.addr, err)
}

// Close closes the connections to Redis.
func (r *redisStore) Close() error { return r.client.Close() }
