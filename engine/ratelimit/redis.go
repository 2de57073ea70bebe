package ratelimit

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"

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
	pool   *redis.Pool
	addr   string // host:port, or a socket's path: never the password
	prefix string
}

// redisIdle is how many idle connections to Redis a store keeps, and
// redisIdleTimeout how long; one idle for longer than redisPingAfter is
// pinged before it is used again.
const (
	redisIdle        = 16
	redisIdleTimeout = 4 * time.Minute
	redisPingAfter   = time.Minute
)

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
	target, reason := parseRedisURL(rawURL)
	if target == nil {
		return nil, fmt.Errorf("invalid Redis URL (%s): %s", reason, urlForms)
	}
	pool := &redis.Pool{
		DialContext: target.dial,
		MaxIdle:     redisIdle,
		IdleTimeout: redisIdleTimeout,
		TestOnBorrowContext: func(ctx context.Context, c redis.Conn, lastUsed time.Time) error {
			if time.Since(lastUsed) < redisPingAfter {
				return nil
			}
			_, err := redis.DoContext(c, ctx, "PING")
			return err
		},
	}
	return &redisStore{pool: pool, addr: target.addr, prefix: prefix}, nil
}

// redisTarget is where a Redis URL points, and how to log in.
type redisTarget struct {
	network, addr  string // "tcp" and host:port, or "unix" and a path
	user, password string
	db             int
	tls            bool
	serverName     string
}

// dial opens a connection to Redis, logs in and selects the database,
// each step bounded by redisTimeout.
func (t *redisTarget) dial(ctx context.Context) (redis.Conn, error) {
	opts := []redis.DialOption{
		redis.DialConnectTimeout(redisTimeout),
		redis.DialReadTimeout(redisTimeout),
		redis.DialWriteTimeout(redisTimeout),
		redis.DialDatabase(t.db),
	}
	if t.password != "" {
		opts = append(opts, redis.DialUsername(t.user), redis.DialPassword(t.password))
	}
	if t.tls {
		opts = append(opts, redis.DialUseTLS(true),
			redis.DialTLSConfig(&tls.Config{ServerName: t.serverName, MinVersion: tls.VersionTLS12}))
	}
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	return redis.DialContext(ctx, t.network, t.addr, opts...)
}

// urlForms says how to write a Redis URL.
const urlForms = "write redis://[[user]:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/socket[?db=N]"

// parseRedisURL reads a Redis URL. When it cannot, it returns nil and why,
// in words that do not repeat the URL or its password.
func parseRedisURL(rawURL string) (*redisTarget, string) {
	t, reason := readRedisURL(rawURL)
	if t != nil {
		return t, ""
	}
	// Should a reason still quote the user or the password, hide them.
	if user := userinfo(rawURL); user != "" {
		reason = strings.ReplaceAll(reason, user, "…")
	}
	return nil, reason
}

// readRedisURL reads redis://[[user]:password@]host[:port][/db],
// rediss://… for TLS, or unix://[[user]:password@]/path?db=N.
func readRedisURL(rawURL string) (*redisTarget, string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse quotes the whole URL, password included: keep only
		// its reasons that quote the host, which follows the password.
		var uerr *url.Error
		if !errors.As(err, &uerr) {
			return nil, "it is not a URL"
		}
		switch reason := uerr.Err.Error(); {
		case strings.HasPrefix(reason, "invalid port"), strings.HasPrefix(reason, "invalid character"):
			return nil, reason
		case strings.HasPrefix(reason, "invalid URL escape"):
			return nil, "a % is not followed by two hexadecimal digits; write a % in a password as %25"
		}
		return nil, "it is not a URL"
	}
	t := &redisTarget{}
	if u.User != nil {
		t.user = u.User.Username()
		t.password, _ = u.User.Password()
		if t.password == "" {
			// redis://secret@host, as redis-cli reads it: a password.
			t.user, t.password = "", t.user
		}
	}
	query := u.Query()
	switch u.Scheme {
	case "redis", "rediss":
		if u.Opaque != "" {
			return nil, "it is not a URL"
		}
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "localhost"
		}
		if port == "" {
			port = "6379"
		}
		t.network, t.addr = "tcp", net.JoinHostPort(host, port)
		t.tls, t.serverName = u.Scheme == "rediss", host
		if db := strings.TrimPrefix(u.Path, "/"); db != "" {
			if t.db, err = databaseNumber(db); err != nil {
				return nil, err.Error()
			}
		}
	case "unix":
		if u.Path == "" {
			return nil, "a unix:// URL needs the socket's path"
		}
		t.network, t.addr = "unix", u.Path
		if db := query.Get("db"); db != "" {
			if t.db, err = databaseNumber(db); err != nil {
				return nil, err.Error()
			}
		}
		query.Del("db")
	case "":
		return nil, "it is not a URL"
	default:
		return nil, "invalid URL scheme: " + u.Scheme
	}
	for name := range query {
		return nil, "unexpected option: " + name
	}
	return t, ""
}

// databaseNumber reads the number of a Redis database.
func databaseNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid database number: %q", s)
	}
	return n, nil
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
	var res []int64
	var err error
	// A second try on a fresh connection covers a pooled one that Redis
	// closed while it was idle: the script never ran on it.
	for try := 0; try < 2; try++ {
		res, err = r.runScript(ctx, r.prefix+":rl:"+key, interval, tau)
		if err == nil || !closedWhileIdle(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return Decision{}, r.fail(ctx, "run the rate-limit script", err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("Redis at %s, the rate_limit store, answered the rate-limit script with %d values instead of 3; is it Redis 3.2 or later?", r.addr, len(res))
	}
	return Decision{Allowed: res[0] == 1, RetryAfter: time.Duration(res[1]) * time.Microsecond, Remaining: int(res[2])}, nil
}

// runScript runs the GCRA script once on a connection of the pool.
func (r *redisStore) runScript(ctx context.Context, key string, interval, tau int64) ([]int64, error) {
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return redis.Int64s(gcraScript.DoContext(ctx, conn, key, interval, tau))
}

// closedWhileIdle reports an error of a connection that the other side
// had closed: nothing was done on it.
func closedWhileIdle(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Check reports whether Redis answers a PING within a second.
func (r *redisStore) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	conn, err := r.pool.GetContext(ctx)
	if err == nil {
		_, err = redis.DoContext(conn, ctx, "PING")
		conn.Close()
	}
	if err != nil {
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
func (r *redisStore) Close() error { return r.pool.Close() }
