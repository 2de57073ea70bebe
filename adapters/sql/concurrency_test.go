package sqlaction

import (
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestDefaultMaxConcurrency: a tool whose sql action does not set
// max_concurrency runs at most engine.IOConcurrency() calls at once, each
// holding rows of up to max_result_bytes.
func TestDefaultMaxConcurrency(t *testing.T) {
	l, ok := any(&action{}).(engine.ConcurrencyLimiter)
	if !ok {
		t.Fatal("an sql action has no default max_concurrency: its calls at once, and their memory, are unbounded")
	}
	if got, want := l.DefaultMaxConcurrency(), engine.IOConcurrency(); got != want {
		t.Errorf("default max_concurrency = %d, want %d", got, want)
	}
}
