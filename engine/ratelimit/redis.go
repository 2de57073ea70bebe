package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdecl/mcpdecl/engine"
)

// redisTimeout bounds each exchange with Redis: dialing, writing, reading,
// and the whole of one decision.
const redisTimeout = time.Second

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
var gcraScript = redis.NewScript(`
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
	client *redis.Client
	addr   string // host:port, or a socket's path: never the password
	prefix string
}

var (
	_ Store          = (*redisStore)(nil)
	_ engine.Checker = (*redisStore)(nil)
)

// NewRedis returns a store whose buckets live in the Redis at rawURL, under
// keys that start with prefix and ":rl:". The URL is
// redis://[[user]:password@]host:port[/db], rediss:// for TLS, or
// unix:///path/to/socket; whatever timeouts it sets, every exchange with
// Redis is bounded by one second. NewRedis does not connect: the first call
// does, and the store's Check method (see [engine.Checker]) pings Redis
// for readiness.
//
// Errors name Redis by its address, never by its URL, which may hold a
// password.
func NewRedis(rawURL, prefix string) (Store, error) {
	opts, reason := parseRedisURL(rawURL)
	if opts == nil {
		return nil, fmt.Errorf("invalid Redis URL (%s): %s", reason, urlForms)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = redisTimeout, redisTimeout, redisTimeout
	opts.PoolTimeout = redisTimeout
	opts.ContextTimeoutEnabled = true
	// One dial, and one more try of a command on a fresh connection: the
	// second covers a pooled connection that Redis closed while idle.
	opts.DialerRetries = 1
	opts.MaxRetries = 1
	opts.DisableIdentity = true
	return &redisStore{client: redis.NewClient(opts), addr: opts.Addr, prefix: prefix}, nil
}

// urlForms says how to write a Redis URL.
const urlForms = "write redis://[[user]:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/socket"

// parseRedisURL reads a Redis URL. When it cannot, it returns nil and why,
// in words that do not repeat the URL or its password.
func parseRedisURL(rawURL string) (*redis.Options, string) {
	opts, err := redis.ParseURL(rawURL)
	if err == nil {
		return opts, ""
	}
	reason := strings.TrimPrefix(err.Error(), "redis: ")
	// url.Parse quotes the whole URL, password included: keep only its
	// reasons that quote the host, which follows the password.
	var uerr *url.Error
	if errors.As(err, &uerr) {
		switch reason = uerr.Err.Error(); {
		case strings.HasPrefix(reason, "invalid port"), strings.HasPrefix(reason, "invalid character"):
		case strings.HasPrefix(reason, "invalid URL escape"):
			reason = "a % is not followed by two hexadecimal digits; write a % in a password as %25"
		default:
			reason = "it is not a URL"
		}
	}
	// Should a reason still quote the user or the password, hide them.
	if user := userinfo(rawURL); user != "" {
		reason = strings.ReplaceAll(reason, user, "…")
	}
	return nil, reason
}

// userinfo returns what is between "://" and the last "@" of the
// authority of a URL: the user and password, if any.
func userinfo(rawURL string) string {
	_, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	i := strings.LastIndex(rest, "@")
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

// redisSecrets returns what of a Redis URL must not be shown: the URL, its
// user information, and its password, as written and unescaped. It reads
// the URL even when it is not valid, whose password is just as secret.
func redisSecrets(rawURL string) []string {
	if rawURL == "" {
		return nil
	}
	secrets := []string{rawURL}
	user := userinfo(rawURL)
	if user == "" {
		return secrets
	}
	secrets = append(secrets, user)
	if _, pw, ok := strings.Cut(user, ":"); ok {
		secrets = append(secrets, pw)
		if unescaped, err := url.PathUnescape(pw); err == nil {
			secrets = append(secrets, unescaped)
		}
	}
	return secrets
}

// Allow decides about one call of key under l, in Redis.
func (r *redisStore) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	if l.IsZero() {
		return Decision{Allowed: true}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	interval := min(max(1, l.Interval().Microseconds()), maxMicros)
	tau := int64(maxMicros)
	if b := l.burst(); b <= tau/interval {
		tau = b * interval
	}
	res, err := gcraScript.Run(ctx, r.client, []string{r.prefix + ":rl:" + key}, interval, tau).Int64Slice()
	if err != nil {
		return Decision{}, r.fail(ctx, "run the rate-limit script", err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("Redis at %s, the rate_limit store, answered the rate-limit script with %d values instead of 3; is it Redis 3.2 or later?", r.addr, len(res))
	}
	return Decision{Allowed: res[0] == 1, RetryAfter: time.Duration(res[1]) * time.Microsecond, Remaining: int(res[2])}, nil
}

// Check reports whether Redis answers a PING within a second.
func (r *redisStore) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	if err := r.client.Ping(ctx).Err(); err != nil {
		return r.fail(ctx, "ping it", err)
	}
	return nil
}

// fail words an error of Redis with its address, never its URL: Redis
// refused what was asked, or could not be reached.
func (r *redisStore) fail(ctx context.Context, what string, err error) error {
	var reply redis.Error
	switch {
	case errors.As(err, &reply):
		return fmt.Errorf("Redis at %s, the rate_limit store, refused to %s: %w", r.addr, what, err)
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("the call was cancelled while waiting for Redis at %s, the rate_limit store: %w", r.addr, err)
	default:
		return fmt.Errorf("Redis at %s, the rate_limit store, could not be reached: %w", r.addr, err)
	}
}

// Close closes the connections to Redis.
func (r *redisStore) Close() error { return r.client.Close() }
