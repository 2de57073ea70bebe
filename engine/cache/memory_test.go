package cache

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestMemory checks the memory store: a fresh entry is found, a stale one
// is not, and the least recently used entries go first to keep within the
// number of entries and of bytes.
func TestMemory(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	m := NewMemory(3, 800)
	m.now = func() time.Time { return now }
	get := func(key string) string {
		b, ok, err := m.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "(none)"
		}
		return string(b)
	}
	_ = m.Set(ctx, "a", []byte("A"), time.Minute)
	_ = m.Set(ctx, "b", []byte("B"), time.Second)
	if get("a") != "A" || get("b") != "B" {
		t.Fatal("a fresh entry is not found")
	}
	now = now.Add(2 * time.Second)
	if get("b") != "(none)" || get("a") != "A" {
		t.Error("a stale entry is found, or a fresh one is not")
	}
	for i := range 3 {
		_ = m.Set(ctx, fmt.Sprint(i), []byte("x"), time.Minute)
	}
	if m.Len() != 3 || get("a") != "(none)" {
		t.Errorf("%d entries, and a = %s: the least recently used should have gone", m.Len(), get("a"))
	}
	// Bytes: 100 at most per entry (an eighth of 800), 800 in all.
	_ = m.Set(ctx, "big", make([]byte, 101), time.Minute)
	if get("big") != "(none)" {
		t.Error("an entry bigger than an eighth of max_bytes was kept")
	}
	m = NewMemory(100, 800)
	for i := range 10 {
		_ = m.Set(ctx, fmt.Sprint(i), make([]byte, 100), time.Minute)
	}
	if m.Len() != 8 || m.bytes != 800 {
		t.Errorf("%d entries of %d bytes in all, want 8 of 800", m.Len(), m.bytes)
	}
	if _, ok, _ := m.Get(ctx, "1"); ok {
		t.Error("an early entry survived")
	}
	if _, ok, _ := m.Get(ctx, "9"); !ok {
		t.Error("the last entry is missing")
	}
}
