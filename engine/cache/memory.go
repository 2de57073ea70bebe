package cache

import (
	"context"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

var _ Backend = (*Memory)(nil)

// Memory keeps results in this process, least recently used first out,
// within a number of entries and a number of bytes.
type Memory struct {
	mu       sync.Mutex
	entries  *lru.Cache[string, entry]
	bytes    int64
	maxBytes int64
	now      func() time.Time
}

// entry is one result and when it goes stale.
type entry struct {
	value   []byte
	expires time.Time
}

// NewMemory returns a store of at most maxEntries results and maxBytes
// bytes of them; a result bigger than an eighth of maxBytes is not kept.
func NewMemory(maxEntries int, maxBytes int64) *Memory {
	m := &Memory{maxBytes: maxBytes, now: time.Now}
	// The callback runs under m.mu, held by every method that changes
	// the entries.
	m.entries, _ = lru.NewWithEvict(max(1, maxEntries), func(_ string, e entry) { m.bytes -= int64(len(e.value)) })
	return m
}

// Get returns the value under key when it is still fresh.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries.Get(key)
	if !ok {
		return nil, false, nil
	}
	if !m.now().Before(e.expires) {
		m.entries.Remove(key)
		return nil, false, nil
	}
	return e.value, true, nil
}

// Set keeps value under key for ttl, dropping the least recently used
// entries to stay within the bounds.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	size := int64(len(value))
	if size > m.maxBytes/8 || ttl <= 0 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries.Remove(key)
	for m.bytes+size > m.maxBytes {
		if _, _, ok := m.entries.RemoveOldest(); !ok {
			break
		}
	}
	m.entries.Add(key, entry{value: value, expires: m.now().Add(ttl)})
	m.bytes += size
	return nil
}

// Len is the number of entries kept, fresh or not.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries.Len()
}
