package engine

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// ProgressFunc sends one progress notification of a call to its client
// (notifications/progress with the call's token): progress so far, out of
// total (0 when unknown), and a message for people ("" for none).
type ProgressFunc func(progress, total float64, message string)

// A ProgressEmitter is an action that may report its progress while it
// runs (through [Progress]): pages read, lines of a program's output. A
// call of a tool whose action reports none is sent a heartbeat instead
// (see [Settings.ProgressHeartbeat]).
type ProgressEmitter interface {
	EmitsProgress() bool
}

// MinProgressInterval is the least time between two progress
// notifications of a call: an action may report as often as it likes,
// and what comes sooner is dropped, unless it says the work is done.
const MinProgressInterval = 250 * time.Millisecond

type progressKey struct{}

// progress is what a call sends progress through: it keeps the values
// increasing, as the specification requires, and the notifications at
// most one per MinProgressInterval.
type progress struct {
	send  ProgressFunc
	mu    sync.Mutex
	last  float64   // the progress last sent
	at    time.Time // when; zero before the first
	began time.Time // when the call began, for the heartbeat
}

// WithProgress returns ctx carrying f, which [Progress] calls: set it for
// a call whose client asked for progress (sent a progress token), and only
// then, so that a call without one pays nothing.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, &progress{send: f, last: -1, began: time.Now()})
}

// Progressing reports whether ctx carries a [ProgressFunc]: whether the
// client of the call asked for progress. An action checks it before it
// builds a message.
func Progressing(ctx context.Context) bool {
	p, _ := ctx.Value(progressKey{}).(*progress)
	return p != nil
}

// Progress reports the progress of the call, when its client asked for
// it: done so far, out of total (0 when unknown). The message is redacted
// and cleaned of terminal controls first. A value that does not exceed the
// last one sent, or that comes less than [MinProgressInterval] after it, is
// dropped, unless it reaches total. In a step of a multi-step tool, the
// value is placed within the step's share of the whole: a value without a
// total, or that reaches it (the next step's notification says so), is
// dropped.
func Progress(ctx context.Context, done, total float64, message string) {
	p, _ := ctx.Value(progressKey{}).(*progress)
	if p == nil {
		return
	}
	if s, _ := ctx.Value(stepProgressKey{}).(*stepProgress); s != nil {
		if total <= 0 || done >= total {
			return
		}
		done, total = float64(s.index)+done/total, float64(s.of)
		if message != "" {
			message = "step " + s.name + ": " + message
		}
	}
	p.report(ctx, done, total, message, true)
}

// report sends a notification unless its value does not exceed the last
// one sent or, when throttled, it comes too soon after it.
func (p *progress) report(ctx context.Context, done, total float64, message string, throttled bool) {
	now := time.Now()
	p.mu.Lock()
	if done <= p.last || (throttled && !p.at.IsZero() && now.Sub(p.at) < MinProgressInterval && (total <= 0 || done < total)) {
		p.mu.Unlock()
		return
	}
	p.last, p.at = done, now
	// Sent under the lock, so that the client sees the values in order.
	defer p.mu.Unlock()
	if message != "" {
		message = text.SanitizeString(text.Redacted(ctx, message))
	}
	p.send(done, total, message)
}

type stepProgressKey struct{}

// stepProgress is the step of a multi-step tool under way: its index among
// of steps, and its name.
type stepProgress struct {
	index, of int
	name      string
}

// stepStarts reports that the step index of of, name, starts: one
// notification per step, however soon after the last (a tool has few),
// and it returns the context the step's action reports its own progress
// through. Without a progress token it returns ctx and costs nothing.
func stepStarts(ctx context.Context, index, of int, name string) context.Context {
	p, _ := ctx.Value(progressKey{}).(*progress)
	if p == nil {
		return ctx
	}
	p.report(ctx, float64(index), float64(of), "step "+name, false)
	return context.WithValue(ctx, stepProgressKey{}, &stepProgress{index: index, of: of, name: name})
}

// heartbeat sends, every interval until stop is called, a notification
// whose progress is the seconds the call has run: for an action that
// reports no progress of its own (a slow upstream), so that the client
// knows the call is alive. It does nothing when the client did not ask for
// progress.
func heartbeat(ctx context.Context, interval time.Duration) (stop func()) {
	p, _ := ctx.Value(progressKey{}).(*progress)
	if p == nil || interval <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				s := now.Sub(p.began).Seconds()
				Progress(ctx, s, 0, "still running after "+strconv.FormatFloat(s, 'f', 1, 64)+"s")
			}
		}
	}()
	return func() { close(done) }
}

// EmitsProgress reports whether the tool's action reports progress of its
// own (pages read, a program's lines); a call of any other tool with an
// action may only be sent heartbeats.
func (t *Tool) EmitsProgress() bool { return t.spec.Action != nil && emitsProgress(t.spec.Action) }

// emitsProgress reports whether the action reports progress of its own.
func emitsProgress(a Action) bool {
	e, ok := a.(ProgressEmitter)
	return ok && e.EmitsProgress()
}
