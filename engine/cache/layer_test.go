package cache_test

import (
	"context"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// TestQuestionNotCached: a call of a cached tool that asks for a missing
// argument gets the question each time; the question is not kept as the
// answer of the next call with the same arguments. The answer is kept.
func TestQuestionNotCached(t *testing.T) {
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(), `
tool "weather" {
  description = "The weather in a city."
  annotations { read_only_hint = true }
  cache { ttl = "1h" }
  arg "city" {
    type = string
    ask  = "Which city?"
  }
  text = expr("'Weather in ' + args.city")
}
`, enginetest.Options{LookupEnv: enginetest.MapEnv(nil)})
	if diags.HasErrors() {
		t.Fatal(enginetest.Describe(diags))
	}
	ctx := engine.WithAsking(context.Background(), &engine.Asking{Able: true})
	for i := range 2 {
		if res := enginetest.Call(ctx, t, cfg, "weather", `{}`); res.Round == nil || res.Meta != nil {
			t.Fatalf("call %d without the city: question %v, meta %v, text %q", i, res.Round, res.Meta, res.Text())
		}
	}
	for i, want := range []bool{false, true} {
		res := enginetest.Call(ctx, t, cfg, "weather", `{"city": "Lyon"}`)
		if _, cached := res.Meta[engine.CacheMetaKey]; res.Text() != "Weather in Lyon" || cached != want {
			t.Errorf("call %d with the city: %q, cached %v", i, res.Text(), cached)
		}
	}
}
