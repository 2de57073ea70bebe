package auth

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// redisURL is the Redis of the tests: they fail in CI when it does not
// answer, and are skipped elsewhere.
func redisURL(t *testing.T) string {
	t.Helper()
	return "redis://" + testservice.Redis(t)
}

// TestCallerKindsHaveTheirOwnBuckets checks that a JWT whose sub is "team"
// and the static token labelled "team" are two callers: neither spends the
// other's rate limit, in memory or in Redis.
func TestCallerKindsHaveTheirOwnBuckets(t *testing.T) {
	p := newIDP(t)
	p.addKey("k1", "ec", nil)
	cfg := p.config()
	cfg.Tokens = []Token{{Subject: "team", Value: staticValue}}
	a := newAuth(t, cfg, nil, 0)

	ctx := context.Background()
	static, err := a.Verify(ctx, staticValue, nil)
	if err != nil {
		t.Fatal(err)
	}
	jwt, err := a.Verify(ctx, p.sign("k1", "ES256", func(c claims) { c["sub"] = "team" }), nil)
	if err != nil {
		t.Fatal(err)
	}
	if static.UserID == jwt.UserID {
		t.Errorf("the static token and the JWT are both the caller %q", static.UserID)
	}

	stores := map[string]func(t *testing.T) ratelimit.Store{
		"memory": func(*testing.T) ratelimit.Store { return ratelimit.NewMemory() },
		"redis": func(t *testing.T) ratelimit.Store {
			s, err := ratelimit.NewRedis(redisURL(t), fmt.Sprintf("mcpdecl-test-%x", rand.Uint64()))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			store := open(t)
			t.Cleanup(func() { _ = store.Close() })
			limit := ratelimit.Limit{Requests: 1, Per: time.Hour}
			tool, err := engine.NewTool(engine.ToolSpec{Name: "echo", Layers: []engine.CallLayer{ratelimit.Bind(store, limit)}}, engine.DefaultSettings(), &text.Redactor{})
			if err != nil {
				t.Fatal(err)
			}
			// As the HTTP front makes a caller of a verified token.
			call := func(who string, id string) bool {
				res := tool.Call(engine.WithCaller(ctx, engine.Caller{ID: id, Authenticated: true}), nil)
				t.Logf("%s: %v", who, res.Content)
				return !res.IsError
			}
			if !call("static token", static.UserID) {
				t.Fatal("the static token's first call was refused")
			}
			if !call("JWT", jwt.UserID) {
				t.Error("the JWT's first call was refused: it spent the bucket of the static token with the same name")
			}
			if call("static token again", static.UserID) {
				t.Error("the static token's second call was allowed: the limit is 1 call per hour")
			}
		})
	}
}
