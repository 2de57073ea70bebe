package schema

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// Cache compiles each distinct schema document once: the tools of an
// imported API share many schemas (the same object returned by several
// operations), and compiling one in full is most of what loading a tool
// costs. The zero Cache is ready to use, and safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	seed    maphash.Seed
	entries map[uint64][]*cacheEntry
}

// cacheEntry is one document and what compiling it gave.
type cacheEntry struct {
	text []byte // the document as JSON
	once sync.Once
	v    *Validator
	err  error
}

// Compile compiles doc as [Compile] does, unless a document written as the
// same JSON (text, which the caller must not change) was compiled before:
// it then returns what that compilation returned. A nil Cache compiles
// every document anew.
func (c *Cache) Compile(doc map[string]any, text []byte) (*Validator, error) {
	if c == nil {
		return Compile(doc)
	}
	c.mu.Lock()
	if c.entries == nil {
		c.seed = maphash.MakeSeed()
		c.entries = map[uint64][]*cacheEntry{}
	}
	h := maphash.Bytes(c.seed, text)
	var e *cacheEntry
	for _, x := range c.entries[h] {
		if bytes.Equal(x.text, text) {
			e = x
			break
		}
	}
	if e == nil {
		e = &cacheEntry{text: text}
		c.entries[h] = append(c.entries[h], e)
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = Compile(doc) })
	return e.v, e.err
}
