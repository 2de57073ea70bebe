package ratelimit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/mcpdecl/mcpdecl/engine/redisconn"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// redisAddr is the Redis of the tests: they fail in CI when it does not
// answer, and are skipped elsewhere.
func redisAddr(t *testing.T) string {
	t.Helper()
	return testservice.Redis(t)
}

// testRedis is a Redis for one test: its address, a key prefix of its own,
// and a client of its own to look at the keys, which are deleted when the
// test ends.
type testRedis struct {
	addr, prefix string
	conn         redis.Conn
}

func newTestRedis(t *testing.T) *testRedis {
	t.Helper()
	r := &testRedis{
		addr:   redisAddr(t),
		prefix: fmt.Sprintf("mcpdecl-test-%x", rand.Uint64()),
	}
	conn, err := redis.Dial("tcp", r.addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r.conn = conn
	t.Cleanup(func() {
		keys, err := redis.Values(r.conn.Do("KEYS", r.prefix+":*"))
		if err == nil && len(keys) > 0 {
			_, err = r.conn.Do("DEL", keys...)
		}
		if err != nil {
			t.Errorf("deleting the keys of the test: %v", err)
		}
		r.conn.Close()
	})
	return r
}

// store returns a new store on r, with a client of its own, as a replica
// of a server has.
func (r *testRedis) store(t *testing.T) *redisStore {
	t.Helper()
	s, err := NewRedis("redis://"+r.addr+"/0", r.prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.(*redisStore)
}

func TestRedisBurst(t *testing.T) {
	r := newTestRedis(t)
	s := r.store(t)
	if err := s.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	burstThenRefuse(t, s)
}

// TestRedisRefill checks that tokens come back on Redis's clock, and that
// a bucket's key expires when it is full again.
func TestRedisRefill(t *testing.T) {
	r := newTestRedis(t)
	s := r.store(t)
	l := Limit{Requests: 2, Per: 200 * time.Millisecond, Burst: 2} // one call per 100ms
	for range 2 {
		allow(t, s, "k", l)
	}
	key := r.prefix + ":rl:k"
	ms, err := redis.Int64(r.conn.Do("PTTL", key))
	if ttl := time.Duration(ms) * time.Millisecond; err != nil || ttl <= 0 || ttl > 200*time.Millisecond {
		t.Errorf("the bucket's key expires in %s (%v), want when it is full again, within 200ms", ttl, err)
	}
	d := allow(t, s, "k", l)
	if d.Allowed {
		t.Fatalf("3rd call allowed: %+v", d)
	}
	time.Sleep(d.RetryAfter)
	if d := allow(t, s, "k", l); !d.Allowed {
		t.Fatalf("refused after waiting what it was told: %+v", d)
	}
	time.Sleep(300 * time.Millisecond) // three intervals: the bucket is full
	if n, err := redis.Int(r.conn.Do("EXISTS", key)); err != nil || n != 0 {
		t.Errorf("the key of a full bucket is still there (%d, %v)", n, err)
	}
	for i := range 2 {
		if d := allow(t, s, "k", l); !d.Allowed {
			t.Fatalf("after a pause, call %d refused: %+v", i+1, d)
		}
	}
	if d := allow(t, s, "k", l); d.Allowed {
		t.Errorf("a bucket saved up more than its burst")
	}
}

// TestRedisSharedByReplicas hammers one limit through two stores with
// clients of their own, as two replicas of a server have: together they
// allow one burst, plus what refilled while they ran.
func TestRedisSharedByReplicas(t *testing.T) {
	r := newTestRedis(t)
	replicas := []Store{r.store(t), r.store(t)}
	tests := []struct {
		name string
		l    Limit
	}{
		{"no refill", Limit{Requests: 1, Per: time.Hour, Burst: 20}},
		{"refill", Limit{Requests: 1, Per: 20 * time.Millisecond, Burst: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := "search\x00" + tt.name
			var allowed atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for g := range 8 {
				s := replicas[g%2]
				wg.Go(func() {
					for range 40 {
						d, err := s.Allow(context.Background(), key, tt.l)
						if err != nil {
							t.Error(err)
							return
						}
						if d.Allowed {
							allowed.Add(1)
						}
					}
				})
			}
			wg.Wait()
			// Redis's clock cannot have run longer than this.
			refilled := int64(time.Since(start) / tt.l.Interval())
			most := int64(tt.l.Burst) + refilled
			if n := allowed.Load(); n < int64(tt.l.Burst) || n > most {
				t.Errorf("the two replicas allowed %d calls together, want the burst of %d plus at most %d refilled", n, tt.l.Burst, refilled)
			}
		})
	}
}

// TestRedisDown checks that a store whose Redis does not answer refuses
// quickly, with an error that names Redis's address and not its password.
func TestRedisDown(t *testing.T) {
	// A port nothing listens on: the connection is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	// A port that accepts connections and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	conns.Go(func() {
		var held []net.Conn
		for {
			c, err := silent.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	})
	defer conns.Wait()
	defer silent.Close()

	tests := []struct {
		name, addr, want string
	}{
		{"closed port", closed, "connection refused"},
		{"silent server", silent.Addr().String(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewRedis("redis://:hunter2-secret@"+tt.addr+"/0", "p")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			start := time.Now()
			_, err = s.Allow(context.Background(), "k", Limit{Requests: 1, Per: time.Second, Burst: 1})
			// A silent server never answers: only a missing bound takes
			// ten times the bound.
			if took := time.Since(start); took > 10*redisconn.Timeout {
				t.Errorf("took %s to give up, want about %s at most", took, redisconn.Timeout)
			}
			if err == nil {
				t.Fatal("Allow decided without Redis")
			}
			msg := err.Error()
			prefix := "Redis at " + tt.addr + ", the rate_limit store, could not be reached: "
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tt.want) || strings.Contains(msg, "hunter2") {
				t.Errorf("error = %q\nwant it to start with %q, say %q, and hold no password", msg, prefix, tt.want)
			}
			err = s.(*redisStore).Check(context.Background())
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// TestRedisWrongPassword checks that Redis refusing the password is an
// error that says so, without the password.
func TestRedisWrongPassword(t *testing.T) {
	r := newTestRedis(t)
	s, err := NewRedis("redis://nobody-mcpdecl:hunter2-secret@"+r.addr, r.prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.(*redisStore).Check(context.Background())
	if err == nil {
		t.Skip("this Redis accepts any password")
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "Redis at "+r.addr+", the rate_limit store, refused to ping it: ") || strings.Contains(msg, "hunter2") {
		t.Errorf("error = %q", msg)
	}
}

func TestNewRedisInvalidURL(t *testing.T) {
	const forms = "write redis://[[user]:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/socket[?db=N]"
	tests := []struct{ url, want string }{
		{"http://h:6379", "invalid Redis URL (invalid URL scheme: http): " + forms},
		{"redis://:hunter2@h:port", `invalid Redis URL (invalid port ":port" after host): ` + forms},
		{"redis://:hunter2%zz@h:6379", "invalid Redis URL (a % is not followed by two hexadecimal digits; write a % in a password as %25): " + forms},
		{"redis://:hunter2@h:6379/x", `invalid Redis URL (invalid database number: "x"): ` + forms},
		{"redis://u:hunter2@h:6379/0?nope=1", "invalid Redis URL (unexpected option: nope): " + forms},
		{":hunter2@h", "invalid Redis URL (it is not a URL): " + forms},
		{"unix://:hunter2@h", "invalid Redis URL (a unix:// URL needs the socket's path): " + forms},
		{"unix:///s?db=-1", `invalid Redis URL (invalid database number: "-1"): ` + forms},
		{"cache:6379", "invalid Redis URL (invalid URL scheme: cache): " + forms},
	}
	for _, tt := range tests {
		s, err := NewRedis(tt.url, "p")
		if err == nil {
			s.Close()
			t.Errorf("%s: no error", tt.url)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%s\ngot  %s\nwant %s", tt.url, err, tt.want)
		}
	}
}

// BenchmarkRedisAllow measures one decision in Redis: a round trip to it
// and one run of the script.
func BenchmarkRedisAllow(b *testing.B) {
	addr := os.Getenv("MCPDECL_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	s, err := NewRedis("redis://"+addr, fmt.Sprintf("mcpdecl-bench-%x", rand.Uint64()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.(*redisStore).Check(context.Background()); err != nil {
		b.Skip(err)
	}
	l := Limit{Requests: 1 << 30, Per: time.Second, Burst: 1 << 30}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Allow(context.Background(), "search\x00alice", l); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
