package cache

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// TestRedis checks the Redis store: two stores on one Redis (two
// replicas) share entries, which Redis expires; a Redis that does not
// answer is an error naming it by address, not a hang.
func TestRedis(t *testing.T) {
	ctx := context.Background()
	url := "redis://" + testservice.Redis(t)
	prefix := fmt.Sprintf("mcpdecl-test-%d", time.Now().UnixNano())
	a, err := NewRedis(url, prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, _ := NewRedis(url, prefix)
	defer b.Close()
	if err := a.Set(ctx, "k", []byte(`{"x":1}`), 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.Get(ctx, "k")
	if err != nil || !ok || string(got) != `{"x":1}` {
		t.Fatalf("the other replica reads %q, %v, %v", got, ok, err)
	}
	if _, ok, _ := b.Get(ctx, "other"); ok {
		t.Error("a key never set is found")
	}
	time.Sleep(400 * time.Millisecond)
	if _, ok, err := b.Get(ctx, "k"); ok || err != nil {
		t.Errorf("an expired entry: found %v, error %v", ok, err)
	}

	// Nothing listens on port 1.
	down, _ := NewRedis("redis://:hunter2@127.0.0.1:1", prefix)
	defer down.Close()
	start := time.Now()
	_, _, err = down.Get(ctx, "k")
	if err == nil || !strings.Contains(err.Error(), "Redis at 127.0.0.1:1, the cache store, could not be reached") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Redis down: %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("Redis down took %s", time.Since(start))
	}
}
