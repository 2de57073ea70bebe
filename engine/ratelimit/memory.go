package ratelimit

import (
	"context"
	"hash/maphash"
	"slices"
	"sync"
	"time"
)

// MaxMemoryKeys bounds the buckets a memory store keeps. Beyond it, the
// buckets nearest to full are dropped; see [NewMemory].
const MaxMemoryKeys = 100_000

const (
	// shards is the number of independently locked parts of a memory
	// store; a key's hash picks its shard.
	shards = 64
	// shardKeys is the most buckets a shard keeps.
	shardKeys = MaxMemoryKeys / shards
	// dropKeys is how many buckets a full shard drops at once, so that the
	// scan it takes is shared by the next as many new keys.
	dropKeys = shardKeys / 16
	// sweepEvery is how often a shard that takes new keys drops the
	// buckets that are full again.
	sweepEvery = int64(time.Minute)
)

// memoryStore keeps buckets in the process.
type memoryStore struct {
	seed   maphash.Seed
	now    func() int64 // nanoseconds on a monotonic clock
	shards [shards]shard
}

// shard is one independently locked part of a memory store.
type shard struct {
	mu sync.Mutex
	// tat holds each bucket's theoretical arrival time: when it is full
	// again, in nanoseconds of the store's clock. A bucket whose tat has
	// passed carries no state, and is dropped by the next sweep.
	tat map[string]int64
	// swept is when the buckets that are full again were last dropped.
	swept int64
	// scratch is reused by drop, so that a full shard does not allocate.
	scratch []int64
	// The padding keeps two shards off one 64-byte cache line.
	_ [16]byte
}

var _ Store = (*memoryStore)(nil)

// NewMemory returns a store whose buckets live in this process, on its
// monotonic clock, so that changes of the wall clock do not move them.
//
// The buckets are spread over 64 shards, each with a lock of its own, so
// that calls of different tools and clients rarely wait on one another.
// Memory is bounded: a shard that takes a new key drops the buckets that are
// full again (they carry no state) at most once a minute, and a shard never
// keeps more than its share of [MaxMemoryKeys]. When a new key finds its
// shard at that bound, the shard drops its buckets that are full again and,
// if that is not enough, the sixteenth of its buckets nearest to full,
// which are those used least lately. A dropped bucket starts full again: a
// client whose bucket was dropped may get up to its burst a little early.
func NewMemory() Store {
	start := time.Now()
	return newMemory(func() int64 { return int64(time.Since(start)) })
}

// newMemory returns a memory store on the clock now.
func newMemory(now func() int64) *memoryStore {
	m := &memoryStore{seed: maphash.MakeSeed(), now: now}
	for i := range m.shards {
		m.shards[i].tat = map[string]int64{}
		m.shards[i].swept = now()
	}
	return m
}

// Allow decides about one call of key under l.
func (m *memoryStore) Allow(_ context.Context, key string, l Limit) (Decision, error) {
	if l.IsZero() {
		return Decision{Allowed: true}, nil
	}
	// The clock is read outside the lock. Another call may then record a
	// later time first: gcra takes the later of the two, which can only
	// make this decision stricter, never let more calls through.
	now := m.now()
	s := &m.shards[maphash.String(m.seed, key)%shards]
	s.mu.Lock()
	tat, ok := s.tat[key]
	d, next := gcra(now, tat, l)
	if d.Allowed {
		if !ok {
			s.makeRoom(now)
		}
		s.tat[key] = next
	}
	s.mu.Unlock()
	return d, nil
}

// makeRoom is called before a new key is added: it drops the buckets that
// are full again once a minute, and whatever it takes to stay within the
// bound when the shard is full.
func (s *shard) makeRoom(now int64) {
	full := len(s.tat) >= shardKeys
	if !full && now-s.swept < sweepEvery {
		return
	}
	s.swept = now
	for k, tat := range s.tat {
		if tat <= now {
			delete(s.tat, k)
		}
	}
	if len(s.tat) >= shardKeys {
		s.drop(len(s.tat) - shardKeys + dropKeys)
	}
}

// drop deletes the n buckets nearest to full: those with the earliest tat.
func (s *shard) drop(n int) {
	s.scratch = s.scratch[:0]
	for _, tat := range s.tat {
		s.scratch = append(s.scratch, tat)
	}
	slices.Sort(s.scratch)
	edge := s.scratch[min(n, len(s.scratch))-1]
	// The buckets before the edge go, then as many at the edge as it
	// takes, so that equal times do not empty the shard.
	ties := n
	for _, tat := range s.scratch {
		if tat < edge {
			ties--
		}
	}
	for k, tat := range s.tat {
		switch {
		case tat < edge:
			delete(s.tat, k)
		case tat == edge && ties > 0:
			delete(s.tat, k)
			ties--
		}
	}
}

// Close releases nothing: the buckets go with the store.
func (m *memoryStore) Close() error { return nil }

// size is the number of buckets kept, for tests.
func (m *memoryStore) size() int {
	n := 0
	for i := range m.shards {
		m.shards[i].mu.Lock()
		n += len(m.shards[i].tat)
		m.shards[i].mu.Unlock()
	}
	return n
}
