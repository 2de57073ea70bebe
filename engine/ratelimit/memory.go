package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// MaxMemoryKeys bounds the buckets a memory store keeps.
const MaxMemoryKeys = 100_000

// shards is the number of independently locked parts of a memory store.
const shards = 64

// memoryStore keeps buckets in the process.
type memoryStore struct {
	seed   maphash.Seed
	shards [shards]shard
	now    func() time.Time
}

type shard struct {
	mu  sync.Mutex
	tat map[string]int64 // the bucket's theoretical arrival time, in ns
}

var _ Store = (*memoryStore)(nil)

// NewMemory returns a store whose buckets live in this process.
func NewMemory() Store { return newMemory(time.Now) }

func newMemory(now func() time.Time) *memoryStore {
	m := &memoryStore{seed: maphash.MakeSeed(), now: now}
	for i := range m.shards {
		m.shards[i].tat = map[string]int64{}
	}
	return m
}

// Allow decides about one call of key under l.
func (m *memoryStore) Allow(_ context.Context, key string, l Limit) (Decision, error) {
	now := m.now().UnixNano()
	s := &m.shards[maphash.String(m.seed, key)%shards]
	s.mu.Lock()
	defer s.mu.Unlock()
	tat, ok := s.tat[key]
	d, next := gcra(now, tat, l)
	if d.Allowed {
		if !ok && len(s.tat) >= MaxMemoryKeys/shards {
			s.evict(now)
		}
		s.tat[key] = next
	}
	return d, nil
}

// evict makes room in a full shard: buckets that are full again carry no
// state and go first; when none is, the one that refills soonest goes.
func (s *shard) evict(now int64) {
	oldest, at := "", int64(0)
	for k, tat := range s.tat {
		if tat <= now {
			delete(s.tat, k)
			continue
		}
		if oldest == "" || tat < at {
			oldest, at = k, tat
		}
	}
	if len(s.tat) >= MaxMemoryKeys/shards {
		delete(s.tat, oldest)
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
