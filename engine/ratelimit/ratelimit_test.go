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

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
)

// clock is a time the test moves by hand.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.t.Load()) }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

func newClock() *clock {
	c := &clock{}
	c.t.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

// burstThenRefuse checks the behaviour every store shares: burst calls go
// through, the next is refused with the refill interval to wait, and keys
// do not share buckets.
func burstThenRefuse(t *testing.T, s Store, key string) {
	t.Helper()
	ctx := context.Background()
	l := Limit{Requests: 10, Per: time.Second, Burst: 3}
	for i := range 3 {
		d, err := s.Allow(ctx, key, l)
		if err != nil || !d.Allowed || d.Remaining != 2-i {
			t.Fatalf("call %d: %+v, %v; want allowed with %d remaining", i+1, d, err, 2-i)
		}
	}
	d, err := s.Allow(ctx, key, l)
	if err != nil || d.Allowed {
		t.Fatalf("call 4: %+v, %v; want refused", d, err)
	}
	if d.RetryAfter <= 0 || d.RetryAfter > 100*time.Millisecond {
		t.Errorf("retry after %s, want at most the refill interval, 100ms", d.RetryAfter)
	}
	if d, _ := s.Allow(ctx, key+"-other", l); !d.Allowed {
		t.Errorf("another key shares the bucket: %+v", d)
	}
}

func TestMemory(t *testing.T) {
	c := newClock()
	m := newMemory(c.now)
	burstThenRefuse(t, m, "tool\x00alice")

	l := Limit{Requests: 10, Per: time.Second, Burst: 3}
	ctx := context.Background()
	c.advance(99 * time.Millisecond)
	if d, _ := m.Allow(ctx, "tool\x00alice", l); d.Allowed {
		t.Errorf("allowed before one interval passed")
	}
	c.advance(time.Millisecond)
	if d, _ := m.Allow(ctx, "tool\x00alice", l); !d.Allowed {
		t.Errorf("refused after one interval: %+v", d)
	}
	c.advance(time.Hour)
	for i := range 3 {
		if d, _ := m.Allow(ctx, "tool\x00alice", l); !d.Allowed {
			t.Errorf("after a long pause, call %d refused: the bucket holds at most burst", i+1)
		}
	}
	if d, _ := m.Allow(ctx, "tool\x00alice", l); d.Allowed {
		t.Errorf("a bucket refilled beyond its burst")
	}
}

func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory()
	l := Limit{Requests: 1, Per: time.Hour, Burst: 50}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 100 {
				if d, _ := m.Allow(context.Background(), "k", l); d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 50 {
		t.Errorf("%d calls allowed at once, want the burst of 50", allowed.Load())
	}
}

func TestMemoryBounded(t *testing.T) {
	c := newClock()
	m := newMemory(c.now)
	l := Limit{Requests: 1, Per: time.Hour, Burst: 1}
	for i := range MaxMemoryKeys + 5000 {
		_, _ = m.Allow(context.Background(), fmt.Sprint("client-", i), l)
	}
	if n := m.size(); n > MaxMemoryKeys {
		t.Errorf("%d buckets kept, more than %d", n, MaxMemoryKeys)
	}
	// Buckets that are full again go first.
	c.advance(2 * time.Hour)
	_, _ = m.Allow(context.Background(), "late", l)
	if n := m.size(); n > MaxMemoryKeys {
		t.Errorf("%d buckets kept", n)
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		l    Limit
		wait time.Duration
		want string
	}{
		{Limit{5, time.Second, 5}, 180*time.Millisecond + 10, "rate limit exceeded for this tool: 5 calls per 1s; retry in 181ms"},
		{Limit{60, time.Minute, 10}, 59 * time.Second, "rate limit exceeded for this tool: 60 calls per 1m, 10 at once; retry in 59s"},
	}
	for _, tt := range tests {
		if got := Message(tt.l, Decision{RetryAfter: tt.wait}); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

// redisAddr is the Redis of the tests: it fails them in CI when it does
// not answer, and skips them elsewhere.
func redisAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("MCPDECL_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s does not answer (set MCPDECL_TEST_REDIS_ADDR): %v", addr, err)
		}
		t.Skipf("Redis at %s does not answer; start it or set MCPDECL_TEST_REDIS_ADDR: %v", addr, err)
	}
	conn.Close()
	return addr
}

func newRedis(t *testing.T, addr, prefix string) Store {
	t.Helper()
	s, err := NewRedis("redis://"+addr+"/0", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestRedis(t *testing.T) {
	addr := redisAddr(t)
	prefix := fmt.Sprintf("mcpdecl-test-%d", rand.Int64())
	s := newRedis(t, addr, prefix)
	if err := s.(*redisStore).Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	burstThenRefuse(t, s, "tool\x00alice")
}

func TestRedisSharedByReplicas(t *testing.T) {
	addr := redisAddr(t)
	prefix := fmt.Sprintf("mcpdecl-test-%d", rand.Int64())
	// Two stores with clients of their own, as two replicas have.
	a, b := newRedis(t, addr, prefix), newRedis(t, addr, prefix)
	l := Limit{Requests: 1, Per: time.Hour, Burst: 20}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for range 25 {
				d, err := s.Allow(context.Background(), "search\x00alice", l)
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
	if allowed.Load() != 20 {
		t.Errorf("the two replicas allowed %d calls together, want the one burst of 20", allowed.Load())
	}
}

func TestRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s, err := NewRedis("redis://:hunter2-secret@"+addr, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	err = Bind(s, Limit{Requests: 1, Per: time.Second, Burst: 1}).Admit(context.Background(), "k")
	if err == nil {
		t.Fatal("a call was admitted without Redis")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s to give up", time.Since(start))
	}
	msg := err.Error()
	if !strings.Contains(msg, "could not be checked") || !strings.Contains(msg, "Redis at "+addr) || strings.Contains(msg, "hunter2") {
		t.Errorf("error = %q, want the address and no password", msg)
	}
}

func decodeBlock(t *testing.T, src string, tool bool) (any, string) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, _ := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "rate_limit"}}})
	ctx := &engine.DecodeContext{EvalContext: &hcl.EvalContext{}, Redactor: &engine.Redactor{}, Settings: engine.DefaultSettings()}
	var v any
	if tool {
		v, diags = DecodeLimit(content.Blocks[0], ctx)
	} else {
		v, diags = Decode(content.Blocks[0], ctx)
	}
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, fmt.Sprintf("%d:%d: %s: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
	}
	if ctx.Redactor.Redact("redis://:pw-secret-1@h:6379") != "redis://:pw-secret-1@h:6379" {
		msgs = append(msgs, "redacted")
	}
	return v, strings.Join(msgs, "\n")
}

func TestDecode(t *testing.T) {
	tests := []struct {
		src, want string
		tool      bool
		cfg       string
	}{
		{src: "rate_limit {\n  requests = 60\n  per = \"1m\"\n}", cfg: "rate_limit{60 calls per 1m, store memory}"},
		{src: "rate_limit {\n  requests = 60\n  per = \"1m\"\n  burst = 5\n  store = \"redis\"\n  redis_url = \"redis://:pw-secret-1@h:6379\"\n}", cfg: "rate_limit{60 calls per 1m, 5 at once, store redis}", want: "redacted"},
		{src: "rate_limit {\n  per = \"1m\"\n}", want: `The argument "requests" is required`},
		{src: "rate_limit {\n  requests = 0\n  per = \"1m\"\n}", want: "2:14: Invalid requests"},
		{src: "rate_limit {\n  requests = 1\n  per = \"0s\"\n}", want: "3:9: Invalid duration"},
		{src: "rate_limit {\n  requests = 1\n  per = \"1s\"\n  burst = 0\n}", want: "4:11: Invalid burst"},
		{src: "rate_limit {\n  requests = 1\n  per = \"1s\"\n  store = \"disk\"\n}", want: `4:11: Invalid store: store is where the buckets live: "memory" (this process) or "redis" (shared by every replica), not "disk".`},
		{src: "rate_limit {\n  requests = 1\n  per = \"1s\"\n  store = \"redis\"\n}", want: "1:1: Missing redis_url"},
		{src: "rate_limit {\n  requests = 1\n  per = \"1s\"\n  store = \"redis\"\n  redis_url = \"http://x\"\n}", want: "5:15: Invalid redis_url"},
		{src: "rate_limit {\n  requests = 1\n  per = \"1s\"\n  redis_url = \"redis://x\"\n}", want: "4:3: Unexpected redis_url"},
		{src: "rate_limit {\n  requests = 5\n  per = \"1s\"\n}", tool: true, cfg: "5 calls per 1s"},
		{src: "rate_limit {\n  requests = 5\n  per = \"1s\"\n  store = \"redis\"\n}", tool: true, want: "4:3: Unexpected store: Where the buckets live is set once for the server: move store to the top-level rate_limit block."},
	}
	for _, tt := range tests {
		v, got := decodeBlock(t, tt.src, tt.tool)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
		if tt.cfg != "" && fmt.Sprint(v) != tt.cfg {
			t.Errorf("%s\ndecoded %v, want %s", tt.src, v, tt.cfg)
		}
		if strings.Contains(fmt.Sprintf("%v %+v", v, v), "pw-secret") {
			t.Errorf("the Redis password shows when printed: %+v", v)
		}
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	m := NewMemory()
	l := Limit{Requests: 1 << 30, Per: time.Second, Burst: 1 << 30}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = m.Allow(context.Background(), "search\x00alice", l)
		}
	})
}
