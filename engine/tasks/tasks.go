// Package tasks is the tasks block, and the stores that keep the tasks of
// the tools that run as tasks: this process's memory, or Redis, shared by
// the replicas of a server so that any of them answers for any task.
package tasks

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// ConfigSpec is the top-level tasks block.
var ConfigSpec = &spec.Block{
	Name:    "tasks",
	Summary: "Where the tasks of the tools with a task block are kept, and how many one caller may have.",
	Doc: "Without this block each process keeps its tasks in memory: a task is answered for by the process that created it, " +
		"and is gone when it restarts (tasks/get then says so). With store = \"redis\" the replicas behind a balancer keep them together: " +
		"any replica answers tasks/get, tasks/update and tasks/cancel for any task, and a cancellation reaches the replica that runs it.",
	Example: `tasks {
  store          = "redis"
  redis_url      = "redis://localhost:6379/0"
  max_per_caller = 20
}`,
	Attrs: append(redisconn.StoreAttrs("the tasks"),
		spec.Int("max_per_caller", "caps the tasks one caller has at once, running or kept until their ttl; one more is refused with an error that says so").
			Range(1, 1_000_000).WithDefault(int64(engine.DefaultTasksPerCaller))),
}

// Decode reads the tasks block and opens its store: nil for the memory of
// this process.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (engine.TaskStore, int, hcl.Diagnostics) {
	v, diags := ConfigSpec.Decode(block.Body, ctx)
	store, client, more := redisconn.DecodeClient(v, ctx, "the tasks", "share them", "which keeps the tasks")
	diags = append(diags, more...)
	max := int(v.Int("max_per_caller"))
	if diags.HasErrors() || client == nil {
		return nil, max, diags
	}
	return NewRedis(client, store.Prefix), max, diags
}

// Memory keeps tasks in this process.
type Memory struct {
	mu      sync.Mutex
	tasks   map[string]*engine.Task
	owned   map[string]int // tasks by owner
	swept   time.Time
	nowFunc func() time.Time
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{tasks: map[string]*engine.Task{}, owned: map[string]int{}, nowFunc: time.Now}
}

// sweep forgets the expired tasks, at most once a second.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.swept) < time.Second {
		return
	}
	m.swept = now
	for id, t := range m.tasks {
		if !now.Before(t.Expires) {
			m.forget(id, t)
		}
	}
}

func (m *Memory) forget(id string, t *engine.Task) {
	delete(m.tasks, id)
	if m.owned[t.Owner]--; m.owned[t.Owner] <= 0 {
		delete(m.owned, t.Owner)
	}
}

// Create stores t, unless its owner has max tasks already.
func (m *Memory) Create(_ context.Context, t *engine.Task, max int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(m.nowFunc())
	if m.owned[t.Owner] >= max {
		m.swept = time.Time{} // count again next time, not a second later
		m.sweep(m.nowFunc())
		if m.owned[t.Owner] >= max {
			return engine.ErrTooManyTasks
		}
	}
	c := *t
	m.tasks[t.ID] = &c
	m.owned[t.Owner]++
	return nil
}

// Get returns a copy of the task id of owner.
func (m *Memory) Get(_ context.Context, owner, id string) (*engine.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok || t.Owner != owner {
		return nil, nil
	}
	if !m.nowFunc().Before(t.Expires) {
		m.forget(id, t)
		return nil, nil
	}
	c := *t
	return &c, nil
}

// Update replaces the task if it is not done and its Run is run.
func (m *Memory) Update(_ context.Context, t *engine.Task, run int) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.tasks[t.ID]
	if !ok || old.Owner != t.Owner || old.Run != run || engine.TaskTerminal(old.Status) {
		return false, nil
	}
	c := *t
	m.tasks[t.ID] = &c
	return true, nil
}

// Shared is false: each process has its own.
func (m *Memory) Shared() bool { return false }

// Close does nothing.
func (m *Memory) Close() error { return nil }

// Redis keeps tasks in Redis: each as a JSON string that expires with the
// task, and each owner's as a sorted set of ids scored by their expiry, for
// the cap.
type Redis struct {
	client *redisconn.Client
	prefix string
}

// NewRedis returns a store in the Redis of client, its keys starting with
// prefix.
func NewRedis(client *redisconn.Client, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix + ":task:"}
}

// createScript stores a task unless its owner has ARGV[4] tasks already:
// KEYS[1] the task, KEYS[2] the owner's set; ARGV[1] the task's JSON,
// ARGV[2] its time to live in ms, ARGV[3] now in ms, ARGV[5] its expiry
// in ms, ARGV[6] its id.
var createScript = redis.NewScript(2, `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1`)

// updateScript replaces a task if the stored one is not done and its run
// is ARGV[2], keeping its expiry: KEYS[1] the task, ARGV[1] its new JSON.
var updateScript = redis.NewScript(1, `
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
local t = cjson.decode(old)
if t.run ~= tonumber(ARGV[2]) or t.status == 'completed' or t.status == 'failed' or t.status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1`)

func (r *Redis) key(id string) string { return r.prefix + id }

// Create stores t, unless its owner has limit tasks already.
func (r *Redis) Create(ctx context.Context, t *engine.Task, limit int) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	now := time.Now()
	ttl := max(t.Expires.Sub(now).Milliseconds(), 1000)
	var stored bool
	err = r.client.Do(ctx, "store a task", func(ctx context.Context, conn redis.Conn) error {
		n, err := redis.Int(createScript.DoContext(ctx, conn, r.key(t.ID), r.prefix+"owner:"+t.Owner, b, ttl, now.UnixMilli(), limit, t.Expires.UnixMilli(), t.ID))
		stored = n == 1
		return err
	})
	if err == nil && !stored {
		return engine.ErrTooManyTasks
	}
	return err
}

// Get returns the task id of owner.
func (r *Redis) Get(ctx context.Context, owner, id string) (*engine.Task, error) {
	var b []byte
	err := r.client.Do(ctx, "read a task", func(ctx context.Context, conn redis.Conn) error {
		var err error
		b, err = redis.Bytes(redis.DoContext(conn, ctx, "GET", r.key(id)))
		if err == redis.ErrNil {
			b, err = nil, nil
		}
		return err
	})
	if err != nil || b == nil {
		return nil, err
	}
	t := &engine.Task{}
	if err := json.Unmarshal(b, t); err != nil {
		return nil, err
	}
	if t.Owner != owner {
		return nil, nil
	}
	return t, nil
}

// Update replaces the task if it is not done and its Run is run.
func (r *Redis) Update(ctx context.Context, t *engine.Task, run int) (bool, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return false, err
	}
	var ok bool
	err = r.client.Do(ctx, "update a task", func(ctx context.Context, conn redis.Conn) error {
		n, err := redis.Int(updateScript.DoContext(ctx, conn, r.key(t.ID), b, run))
		ok = n == 1
		return err
	})
	return ok, err
}

// Shared is true: the replicas share Redis.
func (r *Redis) Shared() bool { return true }

// Close closes the connections to Redis.
func (r *Redis) Close() error { return r.client.Close() }
