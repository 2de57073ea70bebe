package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestStepProgress: in a step, an action's own progress is placed within
// the step's share of the whole; a value without a total, or one that
// reaches it, is left to the next step's notification.
func TestStepProgress(t *testing.T) {
	var got []string
	ctx := WithProgress(context.Background(), func(done, total float64, msg string) {
		got = append(got, fmt.Sprintf("%v/%v %s", done, total, msg))
	})
	p := ctx.Value(progressKey{}).(*progress)
	sctx := stepStarts(ctx, 1, 4, "b")
	sctx = stepStarts(sctx, 1, 4, "b") // not sent twice
	for _, v := range [][2]float64{{1, 2}, {2, 2}, {5, 0}} {
		p.at = time.Time{} // as if the interval had passed
		Progress(sctx, v[0], v[1], "page")
	}
	want := []string{"1/4 step b", "1.5/4 step b: page"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if c := stepStarts(context.Background(), 0, 2, "a"); c != context.Background() {
		t.Error("a call without a progress token should pay nothing")
	}
}
