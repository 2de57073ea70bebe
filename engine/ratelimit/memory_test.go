package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// clock is a monotonic clock the test moves by hand.
type clock struct{ t atomic.Int64 }

func (c *clock) now() int64              { return c.t.Load() }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

// allow calls s.Allow and fails the test on an error.
func allow(t *testing.T, s Store, key string, l Limit) Decision {
	t.Helper()
	d, err := s.Allow(context.Background(), key, l)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	return d
}

// burstThenRefuse checks what every store does: burst calls go through,
// the next is refused with the refill interval to wait, other keys have
// buckets of their own, and the zero Limit lets everything through.
func burstThenRefuse(t *testing.T, s Store) {
	t.Helper()
	l := Limit{Requests: 10, Per: time.Second, Burst: 3} // one call per 100ms
	for i := range 3 {
		if d := allow(t, s, "tool\x00alice", l); !d.Allowed || d.Remaining != 2-i {
			t.Fatalf("call %d: %+v; want allowed with %d remaining", i+1, d, 2-i)
		}
	}
	d := allow(t, s, "tool\x00alice", l)
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("call 4: %+v; want refused", d)
	}
	// A little less than the interval: time passed since the first call.
	if d.RetryAfter < 50*time.Millisecond || d.RetryAfter > 100*time.Millisecond {
		t.Errorf("retry after %s, want about the refill interval, 100ms", d.RetryAfter)
	}
	for _, key := range []string{"tool\x00bob", "other\x00alice"} {
		if d := allow(t, s, key, l); !d.Allowed || d.Remaining != 2 {
			t.Errorf("%q shares alice's bucket: %+v", key, d)
		}
	}
	for range 10 {
		if d := allow(t, s, "tool\x00alice", Limit{}); !d.Allowed {
			t.Fatalf("refused under the zero Limit: %+v", d)
		}
	}
}

func TestMemoryBurst(t *testing.T) {
	burstThenRefuse(t, NewMemory())
}

// TestMemoryRefill runs on the real clock: tokens come back at
// requests/per, and no more than burst are saved up.
func TestMemoryRefill(t *testing.T) {
	s := NewMemory()
	l := Limit{Requests: 2, Per: 200 * time.Millisecond, Burst: 2} // one call per 100ms
	for range 2 {
		allow(t, s, "k", l)
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
	for i := range 2 {
		if d := allow(t, s, "k", l); !d.Allowed {
			t.Fatalf("after a pause, call %d refused: %+v", i+1, d)
		}
	}
	if d := allow(t, s, "k", l); d.Allowed {
		t.Errorf("a bucket saved up more than its burst")
	}
}

// TestMemoryClock follows one bucket on a clock moved by hand.
func TestMemoryClock(t *testing.T) {
	c := &clock{}
	m := newMemory(c.now)
	l := Limit{Requests: 10, Per: time.Second, Burst: 3}
	for range 3 {
		allow(t, m, "k", l)
	}
	c.advance(99 * time.Millisecond)
	if d := allow(t, m, "k", l); d.Allowed || d.RetryAfter != time.Millisecond {
		t.Errorf("before one interval passed: %+v", d)
	}
	c.advance(time.Millisecond)
	if d := allow(t, m, "k", l); !d.Allowed {
		t.Errorf("refused after one interval: %+v", d)
	}
	c.advance(time.Hour)
	for i := range 3 {
		if d := allow(t, m, "k", l); !d.Allowed {
			t.Errorf("after a long pause, call %d refused", i+1)
		}
	}
	if d := allow(t, m, "k", l); d.Allowed {
		t.Errorf("a bucket refilled beyond its burst")
	}
}

// TestMemoryConcurrent hammers one key and a few others from many
// goroutines at once: never more than the burst goes through.
func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory()
	l := Limit{Requests: 1, Per: time.Hour, Burst: 50}
	keys := []string{"search\x00alice", "search\x00bob", "fetch\x00alice"}
	var allowed [3]atomic.Int32
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 100 {
				k := (g + i) % len(keys)
				if d := allow(t, m, keys[k], l); d.Allowed {
					allowed[k].Add(1)
				}
			}
		})
	}
	wg.Wait()
	for i := range keys {
		if n := allowed[i].Load(); n != 50 {
			t.Errorf("%q: %d calls allowed at once, want the burst of 50", keys[i], n)
		}
	}
}

// TestMemoryBounded floods a store with clients: it keeps at most
// MaxMemoryKeys buckets, drops those nearest to full first (here, of the
// clients that called first), and drops the idle ones as time passes.
func TestMemoryBounded(t *testing.T) {
	c := &clock{}
	m := newMemory(c.now)
	l := Limit{Requests: 1, Per: 1000 * time.Hour, Burst: 1}
	const n = MaxMemoryKeys + 20_000
	for i := range n {
		allow(t, m, fmt.Sprint("client-", i), l)
		c.advance(time.Microsecond)
	}
	if size := m.size(); size > MaxMemoryKeys || size < MaxMemoryKeys*9/10 {
		t.Errorf("%d buckets kept, want close to and at most %d", size, MaxMemoryKeys)
	}
	if d := allow(t, m, fmt.Sprint("client-", n-1), l); d.Allowed {
		t.Errorf("the bucket of the last client was dropped")
	}
	// The documented cost of the bound: a dropped bucket starts full.
	if d := allow(t, m, "client-0", l); !d.Allowed {
		t.Errorf("the bucket of the first client was kept: %+v", d)
	}
	// Once every bucket is full again, new clients sweep them away.
	c.advance(2000 * time.Hour)
	for i := range 1000 {
		allow(t, m, fmt.Sprint("late-", i), l)
	}
	if size := m.size(); size > 1000 {
		t.Errorf("%d buckets kept after the others went idle, want at most the 1000 new ones", size)
	}
}

// TestMemoryDropTies checks that a full shard whose buckets all refill at
// the same time drops a sixteenth of them, not all.
func TestMemoryDropTies(t *testing.T) {
	var s shard
	s.tat = map[string]int64{}
	for i := range shardKeys {
		s.tat[fmt.Sprint(i)] = 42
	}
	s.makeRoom(0)
	if want := shardKeys - dropKeys; len(s.tat) != want {
		t.Errorf("%d buckets kept, want %d", len(s.tat), want)
	}
}

func TestShardSize(t *testing.T) {
	if n := unsafe.Sizeof(shard{}); n%64 != 0 {
		t.Errorf("a shard takes %d bytes, not a whole number of 64-byte cache lines", n)
	}
}

// BenchmarkMemoryAllow measures one decision on a hot key, from one
// goroutine and from GOMAXPROCS of them; the parallel case spreads over a
// few keys, as calls of several clients do.
func BenchmarkMemoryAllow(b *testing.B) {
	l := Limit{Requests: 1 << 30, Per: time.Second, Burst: 1 << 30}
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		m := NewMemory()
		b.ReportAllocs()
		for b.Loop() {
			_, _ = m.Allow(ctx, "search\x00alice", l)
		}
	})
	b.Run("parallel-one-key", func(b *testing.B) {
		m := NewMemory()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_, _ = m.Allow(ctx, "search\x00alice", l)
			}
		})
	})
	b.Run("parallel-many-keys", func(b *testing.B) {
		m := NewMemory()
		var id atomic.Int32
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			key := fmt.Sprint("search\x00client-", id.Add(1))
			for pb.Next() {
				_, _ = m.Allow(ctx, key, l)
			}
		})
	})
}
