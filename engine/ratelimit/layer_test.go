package ratelimit

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// recording is a memory store that notes the keys it is asked about.
type recording struct {
	Store
	keys []string
}

func (r *recording) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	r.keys = append(r.keys, key)
	return r.Store.Allow(ctx, key, l)
}

// TestLimiterKeys: each caller of a tool has a bucket of its own, under a
// key an operator can read and type (tool:caller, the caller's bytes
// outside printable ASCII, and %, written %XX); a call beyond the limit is
// a tool error saying when to retry.
func TestLimiterKeys(t *testing.T) {
	store := &recording{Store: NewMemory()}
	tool, err := engine.NewTool(engine.ToolSpec{Name: "t", Description: "d",
		Layers: []engine.CallLayer{Bind(store, Limit{Requests: 1, Per: time.Hour})}}, engine.DefaultSettings(), &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	call := func(id string) *engine.Result {
		return tool.Call(engine.WithCaller(context.Background(), engine.Caller{ID: id}), nil)
	}
	if res := call("alice"); res.IsError {
		t.Fatalf("first call refused: %s", res.Text())
	}
	if res := call("alice"); !res.IsError || res.Outcome() != engine.OutcomeRateLimited ||
		!strings.HasPrefix(res.Text(), "rate limit exceeded for this tool: 1 call per 1h; retry in ") {
		t.Errorf("second call of alice: %v %s %q", res.IsError, res.Outcome(), res.Text())
	}
	if res := call("bob"); res.IsError {
		t.Errorf("bob shares alice's limit: %s", res.Text())
	}
	call("jwt:ada lovelace\x00%\n")
	want := []string{"t:alice", "t:alice", "t:bob", "t:jwt:ada%20lovelace%00%25%0A"}
	if !slices.Equal(store.keys, want) {
		t.Errorf("keys = %q, want %q", store.keys, want)
	}
}
