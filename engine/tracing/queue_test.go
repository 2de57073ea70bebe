package tracing

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// stuckExporter never finishes an export until its context ends, like an
// OTLP endpoint that accepts the connection and never answers.
type stuckExporter struct{ calls atomic.Int64 }

func (e *stuckExporter) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	e.calls.Add(1)
	<-ctx.Done()
	return ctx.Err()
}

func (e *stuckExporter) Shutdown(context.Context) error { return nil }

// failingExporter refuses every batch, like an endpoint that is down.
type failingExporter struct{}

func (failingExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	return errors.New("connection refused")
}
func (failingExporter) Shutdown(context.Context) error { return nil }

// spans ends n sampled spans through a provider that hands them to q.
func spans(q *queue, n int) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(q), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	tr := tp.Tracer("test")
	for range n {
		_, s := tr.Start(context.Background(), "call")
		s.End()
	}
}

// TestQueueNeverWaitsForAStuckEndpoint ends many more spans than the queue
// holds while the exporter is stuck: every span ends at once (none waits for
// the exporter), and those that did not fit are counted as dropped.
func TestQueueNeverWaitsForAStuckEndpoint(t *testing.T) {
	exp := &stuckExporter{}
	q := newQueue(exp, 16, 4, time.Millisecond, time.Hour, nil)
	done := make(chan struct{})
	go func() {
		spans(q, 10_000)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("ending spans waited on a stuck exporter")
	}
	full, failed := q.full.Load(), q.failed.Load()
	// At most the queue (16) and the batch under export (4) were taken.
	if full < 10_000-16-4 {
		t.Errorf("dropped %d spans for a full queue, want at least %d", full, 10_000-16-4)
	}
	if failed != 0 {
		t.Errorf("counted %d failed, want 0 while the export is still under way", failed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := q.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown of a stuck queue: %v, want the deadline of its context", err)
	}
}

// TestQueueCountsFailedExports has every export fail: the spans of each
// batch are counted as failed, and the error is reported.
func TestQueueCountsFailedExports(t *testing.T) {
	var reported atomic.Int64
	q := newQueue(failingExporter{}, 100, 10, time.Millisecond, time.Second, func(error) { reported.Add(1) })
	spans(q, 25)
	if err := q.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := q.failed.Load(); got != 25 {
		t.Errorf("counted %d spans whose export failed, want 25", got)
	}
	if reported.Load() == 0 {
		t.Error("failed exports were not reported")
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestQueueSendsEverySpan sends batches of the given size, and on a flush
// what is left: every span arrives once.
func TestQueueSendsEverySpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	q := newQueue(exp, 1000, 7, time.Hour, time.Second, nil)
	spans(q, 50)
	if err := q.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(exp.GetSpans()); got != 50 {
		t.Errorf("exported %d spans, want 50", got)
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if full, failed := q.full.Load(), q.failed.Load(); full+failed != 0 {
		t.Errorf("dropped %d+%d spans, want none", full, failed)
	}
}

// TestQueueSendsBatchesWithoutWaiting ends spans without asking for a
// flush: each full batch goes out at once, and what is left of the last
// one when the schedule delay has passed.
func TestQueueSendsBatchesWithoutWaiting(t *testing.T) {
	for _, tc := range []struct {
		name         string
		batch, spans int
		delay        time.Duration
	}{
		{"full batches, long delay", 5, 10, time.Hour},
		{"a partial batch, short delay", 100, 3, 20 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			q := newQueue(exp, 1000, tc.batch, tc.delay, time.Second, nil)
			defer func() { _ = q.Shutdown(context.Background()) }()
			spans(q, tc.spans)
			deadline := time.Now().Add(10 * time.Second)
			for len(exp.GetSpans()) < tc.spans {
				if time.Now().After(deadline) {
					t.Fatalf("exported %d of %d spans after 10s without a flush", len(exp.GetSpans()), tc.spans)
				}
				time.Sleep(5 * time.Millisecond)
			}
			if got := len(exp.GetSpans()); got != tc.spans {
				t.Errorf("exported %d spans, want %d", got, tc.spans)
			}
		})
	}
}
