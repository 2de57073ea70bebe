package ratelimit

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind, such as one of a
// Redis client that was not closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
