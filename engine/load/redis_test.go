package load_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// redisConfig is a tool whose calls are rate limited and cached in Redis:
// the limit's Redis at the first address, the cache's at the second, under
// the prefix given third.
const redisConfig = `
rate_limit {
  requests  = 2
  per       = "1m"
  store     = "redis"
  redis_url = "redis://%[1]s"
  prefix    = "%[3]s"
}

cache {
  store     = "redis"
  redis_url = "redis://%[2]s"
  prefix    = "%[3]s"
}

tool "lookup" {
  description = "d"
  annotations { read_only_hint = true }
  arg "id" { type = string }
  fake { body = { id = expr("args.id") } }
  output "id" {
    type  = string
    value = expr("body.id")
  }
  cache { ttl = "1m" }
}
`

// loadRedisTool loads redisConfig with the limit's Redis at limitAddr and
// the cache's at cacheAddr, and returns its tool and its configuration.
func loadRedisTool(t *testing.T, limitAddr, cacheAddr string) (*engine.Tool, *engine.Config) {
	t.Helper()
	prefix := fmt.Sprintf("mcpdecl-test-%x", rand.Uint64())
	cfg, diags := loadString(t, fmt.Sprintf(redisConfig, limitAddr, cacheAddr, prefix), nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("lookup")
	return tool, cfg
}

// TestRedisTimePerCall checks that a call waits for Redis a second in
// all, its rate limit, cache read and cache write together: once a Redis
// that hangs has had the call's second, the call asks it nothing more,
// and its outcome is what docs/guide.md says (a cache that does not answer
// misses; a rate limit that cannot be checked refuses the call).
func TestRedisTimePerCall(t *testing.T) {
	addr := testservice.Redis(t)

	t.Run("cache hangs", func(t *testing.T) {
		dead := newDeadRedis(t)
		tool, cfg := loadRedisTool(t, addr, dead.addr())
		res := tool.Call(context.Background(), json.RawMessage(`{"id": "a"}`))
		if res.IsError || res.Structured["id"] != "a" {
			t.Fatalf("a call whose cache hangs: %v %s, want the upstream's result", res.IsError, res.Text())
		}
		if _, cached := res.Meta[engine.CacheMetaKey]; cached {
			t.Error("a result from a cache that hangs")
		}
		// The read took the call's second: the result is not stored.
		if got := dead.asked(t, cfg); !slices.Equal(got, []string{"GET"}) {
			t.Errorf("the Redis that hangs was asked %q, want only the cache read [GET]", got)
		}
	})

	t.Run("both hang", func(t *testing.T) {
		dead := newDeadRedis(t)
		tool, cfg := loadRedisTool(t, dead.addr(), dead.addr())
		res := tool.Call(context.Background(), json.RawMessage(`{"id": "a"}`))
		want := "the call was refused because its rate limit could not be checked: Redis at " + dead.addr() + ", the rate_limit store, could not be reached"
		if !res.IsError || !strings.HasPrefix(res.Text(), want) {
			t.Errorf("a call whose rate limit hangs: %v %s, want an error starting %q", res.IsError, res.Text(), want)
		}
		if got := dead.asked(t, cfg); !slices.Equal(got, []string{"EVALSHA"}) {
			t.Errorf("the Redis that hangs was asked %q, want only the rate limit's script [EVALSHA]", got)
		}
	})

	t.Run("Redis answers", func(t *testing.T) {
		tool, _ := loadRedisTool(t, addr, addr)
		call := func() *engine.Result {
			return tool.Call(context.Background(), json.RawMessage(`{"id": "a"}`))
		}
		first := call()
		if _, cached := first.Meta[engine.CacheMetaKey]; first.IsError || cached {
			t.Fatalf("the first call: %v %s, cached %v", first.IsError, first.Text(), cached)
		}
		second := call()
		if _, cached := second.Meta[engine.CacheMetaKey]; second.IsError || !cached || second.Structured["id"] != "a" {
			t.Errorf("the second call: %v %s, cached %v; want the first's result from the cache", second.IsError, second.Text(), cached)
		}
		third := call()
		if !third.IsError || !strings.HasPrefix(third.Text(), "rate limit exceeded for this tool: 2 calls per 1m; retry in ") {
			t.Errorf("the third call: %v %s, want it refused by the rate limit", third.IsError, third.Text())
		}
	})
}

// deadRedis is a Redis that hangs: it accepts connections, reads what
// they send and never answers.
type deadRedis struct {
	ln       net.Listener
	accepted chan *deadConn
}

// deadConn is one connection to a deadRedis: what it was sent, once the
// client closed it.
type deadConn struct {
	remote string
	sent   []byte
	done   chan struct{}
}

func newDeadRedis(t *testing.T) *deadRedis {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &deadRedis{ln: ln, accepted: make(chan *deadConn, 100)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			dc := &deadConn{remote: c.RemoteAddr().String(), done: make(chan struct{})}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(dc.done)
				dc.sent, _ = io.ReadAll(c)
			}()
			d.accepted <- dc
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return d
}

func (d *deadRedis) addr() string { return d.ln.Addr().String() }

// asked closes cfg, so that its connections to d are closed, and returns
// the command of each request d was sent, in order.
func (d *deadRedis) asked(t *testing.T, cfg *engine.Config) []string {
	t.Helper()
	// A connection of the test's own, accepted after every connection
	// made before it: those are all the call's.
	marker, err := net.Dial("tcp", d.addr())
	if err != nil {
		t.Fatal(err)
	}
	marker.Close()
	if err := cfg.Close(); err != nil {
		t.Fatal(err)
	}
	var commands []string
	for dc := range d.accepted {
		if dc.remote == marker.LocalAddr().String() {
			break
		}
		<-dc.done
		commands = append(commands, requests(t, dc.sent)...)
	}
	return commands
}

// requests returns the command of each request in b, in the Redis
// protocol: an array of bulk strings each.
func requests(t *testing.T, b []byte) []string {
	t.Helper()
	r := bufio.NewReader(strings.NewReader(string(b)))
	var commands []string
	line := func(prefix byte) int {
		s, err := r.ReadString('\n')
		if err != nil || len(s) < 3 || s[0] != prefix {
			t.Fatalf("not a Redis request: %q", b)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(s[1:], "\r\n"))
		if err != nil {
			t.Fatalf("not a Redis request: %q", b)
		}
		return n
	}
	for {
		if _, err := r.Peek(1); err != nil {
			return commands
		}
		n := line('*')
		for i := range n {
			arg := make([]byte, line('$')+2)
			if _, err := io.ReadFull(r, arg); err != nil {
				t.Fatalf("not a Redis request: %q", b)
			}
			if i == 0 {
				commands = append(commands, string(arg[:len(arg)-2]))
			}
		}
	}
}

// TestRedisKeysPrintable: the keys a call leaves in Redis can be read and
// typed in redis-cli: the tool and the caller, printable, whatever bytes
// the caller's identity holds.
func TestRedisKeysPrintable(t *testing.T) {
	addr := testservice.Redis(t)
	tool, _ := loadRedisTool(t, addr, addr)
	nonce := fmt.Sprintf("%x", rand.Uint64()) // this run's keys
	sub := "ada lovelace\x00%\n" + nonce
	ctx := engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:" + sub, Subject: sub, Authenticated: true})
	if res := tool.Call(ctx, json.RawMessage(`{"id": "a"}`)); res.IsError {
		t.Fatal(res.Text())
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	// The prefix is the test's own: find it from the keys of the limit.
	fmt.Fprintf(conn, "*2\r\n$4\r\nKEYS\r\n$%d\r\n%s\r\n", len("mcpdecl-test-*:rl:*"), "mcpdecl-test-*:rl:*")
	keys := readArray(t, r)
	var mine []string
	for _, k := range keys {
		if strings.Contains(k, ":rl:lookup") && strings.HasSuffix(k, nonce) {
			mine = append(mine, k)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("the rate limit's keys for this caller: %q (of %d keys)", mine, len(keys))
	}
	prefix, _, _ := strings.Cut(mine[0], ":rl:")
	want := prefix + ":rl:lookup:jwt:ada%20lovelace%00%25%0A" + nonce
	if mine[0] != want {
		t.Errorf("the rate limit's key is %q, want %q", mine[0], want)
	}
	fmt.Fprintf(conn, "*2\r\n$4\r\nKEYS\r\n$%d\r\n%s\r\n", len(prefix)+2, prefix+":*")
	for _, k := range readArray(t, r) {
		for _, c := range []byte(k) {
			if c < 0x21 || c > 0x7e {
				t.Errorf("the key %q holds the byte %#x: redis-cli cannot show it as it is", k, c)
				break
			}
		}
	}
}

// readArray reads a RESP array of bulk strings.
func readArray(t *testing.T, r *bufio.Reader) []string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "*") {
		t.Fatalf("Redis answered %q, %v", line, err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	out := make([]string, 0, n)
	for range n {
		head, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		size, _ := strconv.Atoi(strings.TrimSpace(head[1:]))
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b[:size]))
	}
	return out
}
