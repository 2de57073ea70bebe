package redisconn

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

// Timeout bounds each exchange with Redis outside a call (a readiness
// check): dialing, writing, reading, and the whole of one request. Within a
// call, its exchanges share one [engine.RemoteStoreTime] (see [Client.Do]).
const Timeout = engine.RemoteStoreTime

// idle is how many idle connections to Redis a Client keeps, and
// idleTimeout how long; one idle for longer than pingAfter is pinged
// before it is used again.
const (
	idle        = 16
	idleTimeout = 4 * time.Minute
	pingAfter   = time.Minute
)

// Client is a pool of connections to one Redis, named in its errors by
// its address and its role ("the rate_limit store"), never by its URL.
type Client struct {
	pool *redis.Pool
	// Addr is Redis's host:port, or its socket's path: never the password.
	Addr string
	role string
}

// Open returns a client of the Redis at rawURL, which is
// redis://[[user]:password@]host:port[/db], rediss:// for TLS, or
// unix:///path/to/socket[?db=N]; role names what Redis is for in errors.
// Whatever timeouts the URL sets, every exchange is bounded by [Timeout].
// Open does not connect: the first request does. Its error does not quote
// the URL.
func Open(rawURL, role string) (*Client, error) {
	t, reason := parseURL(rawURL)
	if t == nil {
		return nil, fmt.Errorf("invalid Redis URL (%s): %s", reason, URLForms)
	}
	pool := &redis.Pool{
		DialContext: t.dial,
		MaxIdle:     idle,
		IdleTimeout: idleTimeout,
		TestOnBorrowContext: func(ctx context.Context, c redis.Conn, lastUsed time.Time) error {
			if time.Since(lastUsed) < pingAfter {
				return nil
			}
			_, err := redis.DoContext(c, ctx, "PING")
			return err
		},
	}
	return &Client{pool: pool, Addr: t.addr, role: role}, nil
}

// CheckURL reports why rawURL is not a Redis URL, in words that do not
// quote it, or "" when it is one.
func CheckURL(rawURL string) string {
	if t, reason := parseURL(rawURL); t == nil {
		return reason
	}
	return ""
}

// Do runs f on a connection of the pool, within what is left of the
// [engine.StoreTime] of the call ctx belongs to (outside a call, within
// [Timeout]), and takes from it the time f took. Once the call's time is
// spent, Do does not ask Redis and fails at once. What does nothing when a
// connection was closed while idle (f fails at once with EOF or a reset)
// is tried once more on a fresh connection; what is tried is said by
// what, for the error: "run the rate-limit script".
func (c *Client) Do(ctx context.Context, what string, f func(ctx context.Context, conn redis.Conn) error) error {
	budget := engine.StoreTimeOf(ctx)
	wait := min(Timeout, budget.Left())
	if wait <= 0 {
		return fmt.Errorf("Redis at %s, %s, was not asked to %s: the call already waited %s for Redis, as long as a call may", c.Addr, c.role, what, engine.RemoteStoreTime)
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var err error
	for try := 0; try < 2; try++ {
		err = c.do(ctx, f)
		if err == nil || !closedWhileIdle(err) || ctx.Err() != nil {
			break
		}
	}
	took := time.Since(began)
	if ctx.Err() != nil {
		took = max(took, wait) // what is left is spent
	}
	budget.Spend(took)
	if err != nil {
		return c.fail(ctx, what, err)
	}
	return nil
}

func (c *Client) do(ctx context.Context, f func(ctx context.Context, conn redis.Conn) error) error {
	conn, err := c.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return f(ctx, conn)
}

// closedWhileIdle reports an error of a connection that the other side
// had closed: nothing was done on it.
func closedWhileIdle(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Check reports whether Redis answers a PING within a second.
func (c *Client) Check(ctx context.Context) error {
	return c.Do(ctx, "ping it", func(ctx context.Context, conn redis.Conn) error {
		_, err := redis.DoContext(conn, ctx, "PING")
		return err
	})
}

// fail words an error of Redis with its address, never its URL: Redis
// refused what was asked, or could not be reached.
func (c *Client) fail(ctx context.Context, what string, err error) error {
	var reply redis.Error
	switch {
	case errors.As(err, &reply):
		return fmt.Errorf("Redis at %s, %s, refused to %s: %w", c.Addr, c.role, what, err)
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("the call was cancelled while waiting for Redis at %s, %s: %w", c.Addr, c.role, err)
	default:
		return fmt.Errorf("Redis at %s, %s, could not be reached: %w", c.Addr, c.role, err)
	}
}

// Close closes the connections to Redis.
func (c *Client) Close() error { return c.pool.Close() }

// target is where a Redis URL points, and how to log in.
type target struct {
	network, addr  string // "tcp" and host:port, or "unix" and a path
	user, password string
	db             int
	tls            bool
	serverName     string
}

// dial opens a connection to Redis, logs in and selects the database,
// within ctx's deadline and at most Timeout.
func (t *target) dial(ctx context.Context) (redis.Conn, error) {
	opts := []redis.DialOption{
		redis.DialConnectTimeout(Timeout),
		redis.DialReadTimeout(Timeout),
		redis.DialWriteTimeout(Timeout),
		redis.DialDatabase(t.db),
	}
	if t.password != "" {
		opts = append(opts, redis.DialUsername(t.user), redis.DialPassword(t.password))
	}
	if t.tls {
		// redigo's own TLS handshake ignores ctx, and waits 10 s.
		opts = append(opts, redis.DialContextFunc(t.dialTLS))
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return redis.DialContext(ctx, t.network, t.addr, opts...)
}

// dialTLS connects to Redis over TLS, within ctx's deadline.
func (t *target) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(conn, &tls.Config{ServerName: t.serverName, MinVersion: tls.VersionTLS12})
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

// URLForms says how to write a Redis URL, for messages.
const URLForms = "write redis://[[user]:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/socket[?db=N]"

// parseURL reads a Redis URL. When it cannot, it returns nil and why,
// in words that do not repeat the URL or its password.
func parseURL(rawURL string) (*target, string) {
	t, reason := readURL(rawURL)
	if t != nil {
		return t, ""
	}
	// Should a reason still quote the user or the password, hide them.
	if user := userinfo(rawURL); user != "" {
		reason = strings.ReplaceAll(reason, user, "…")
	}
	return nil, reason
}

// readURL reads redis://[[user]:password@]host[:port][/db],
// rediss://… for TLS, or unix://[[user]:password@]/path?db=N.
func readURL(rawURL string) (*target, string) {
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
	t := &target{}
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

// Secrets returns what of a Redis URL must not be shown: the URL, its
// user information, and its password, as written and unescaped. It reads
// the URL even when it is not valid, whose password is just as secret.
// Record them with a redactor before anything can print them.
func Secrets(rawURL string) []string {
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
