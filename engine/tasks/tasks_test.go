package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// testStore: a store caps each owner's tasks, shows a task to its owner
// alone, replaces a task only if it is not done and at the run expected,
// and forgets it after its ttl, which frees its owner's place.
func testStore(t *testing.T, s engine.TaskStore, expire func()) {
	ctx := context.Background()
	now := time.Now()
	task := func(id, owner string) *engine.Task {
		return &engine.Task{ID: id, Owner: owner, Status: engine.TaskWorking, Created: now, Expires: now.Add(2 * time.Second), Run: 1}
	}
	for _, id := range []string{"a", "b"} {
		if err := s.Create(ctx, task(id, "ann"), 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Create(ctx, task("c", "ann"), 2); !errors.Is(err, engine.ErrTooManyTasks) {
		t.Errorf("a third task of ann: %v, want ErrTooManyTasks", err)
	}
	if err := s.Create(ctx, task("d", "bob"), 2); err != nil {
		t.Errorf("bob's first: %v", err)
	}
	if got, _ := s.Get(ctx, "bob", "a"); got != nil {
		t.Error("bob sees ann's task")
	}
	a, err := s.Get(ctx, "ann", "a")
	if err != nil || a == nil || a.Status != engine.TaskWorking {
		t.Fatalf("ann's task: %+v %v", a, err)
	}
	a.Status = engine.TaskCancelled
	if ok, err := s.Update(ctx, a, 2); ok || err != nil {
		t.Errorf("an update at another run: %v %v", ok, err)
	}
	if ok, err := s.Update(ctx, a, 1); !ok || err != nil {
		t.Errorf("a cancellation: %v %v", ok, err)
	}
	a.Status = engine.TaskCompleted
	if ok, _ := s.Update(ctx, a, 1); ok {
		t.Error("a cancelled task was completed")
	}
	expire()
	if got, _ := s.Get(ctx, "ann", "b"); got != nil {
		t.Error("a task outlived its ttl")
	}
	if err := s.Create(ctx, task("e", "ann"), 2); err != nil {
		t.Errorf("after the ttl: %v", err)
	}
}

func TestMemory(t *testing.T) {
	m := NewMemory()
	testStore(t, m, func() {
		m.mu.Lock()
		m.nowFunc = func() time.Time { return time.Now().Add(time.Minute) }
		m.mu.Unlock()
	})
}

func TestRedis(t *testing.T) {
	client, err := redisconn.Open("redis://"+testservice.Redis(t)+"/0", "which keeps the tasks")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRedis(client, fmt.Sprintf("mcpdecl-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	t.Cleanup(func() { _ = r.Close() })
	testStore(t, r, func() { time.Sleep(2100 * time.Millisecond) })
}
