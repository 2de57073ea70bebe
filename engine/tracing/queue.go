package tracing

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queue is a span processor that hands ended spans to an exporter in
// batches from a goroutine of its own. Its queue is bounded: a span that
// finds it full is dropped and counted, never waited for, so a call never
// waits on the exporter; a batch whose export fails is dropped and counted
// too. Ending a span only appends it under a lock: the exporting goroutine
// is woken when a batch is full, or by its ticker, not for every span (a
// wake-up per span cost more than the rest of the queue).
type queue struct {
	exporter sdktrace.SpanExporter
	size     int           // the most spans pending
	batch    int           // the most spans one export sends
	delay    time.Duration // the longest a span waits for its batch to fill
	timeout  time.Duration // bounds one export
	onError  func(error)   // told of a failed export

	mu      sync.Mutex
	pending []sdktrace.ReadOnlySpan // ended, not yet taken for export
	wake    chan struct{}           // a full batch is pending (buffered, one)

	full   atomic.Uint64 // spans dropped: the queue was full
	failed atomic.Uint64 // spans dropped: their export failed

	flush    chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

var _ sdktrace.SpanProcessor = (*queue)(nil)

// newQueue starts a queue of at most size spans in front of exporter.
func newQueue(exporter sdktrace.SpanExporter, size, batch int, delay, timeout time.Duration, onError func(error)) *queue {
	q := &queue{
		exporter: exporter,
		size:     size,
		batch:    batch,
		delay:    delay,
		timeout:  timeout,
		onError:  onError,
		pending:  make([]sdktrace.ReadOnlySpan, 0, size),
		wake:     make(chan struct{}, 1),
		flush:    make(chan chan struct{}),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go q.run()
	return q
}

// OnStart does nothing: spans are handled when they end.
func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span, or drops it when the queue is full.
func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	q.mu.Lock()
	if len(q.pending) >= q.size {
		q.mu.Unlock()
		q.full.Add(1)
		return
	}
	q.pending = append(q.pending, s)
	n := len(q.pending)
	q.mu.Unlock()
	if n == q.batch {
		select {
		case q.wake <- struct{}{}:
		default: // already told
		}
	}
}

// run sends the queued spans: a batch when it is full; every span pending
// when its ticker ticks (every delay), when asked to flush, and at stop.
func (q *queue) run() {
	defer close(q.done)
	ticker := time.NewTicker(q.delay)
	defer ticker.Stop()
	batch := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	send := func(all bool) {
		for {
			batch = q.take(batch[:0], all)
			if len(batch) == 0 {
				return
			}
			q.export(batch)
			clear(batch)
		}
	}
	for {
		select {
		case <-q.wake:
			send(false)
		case <-ticker.C:
			send(true)
		case ack := <-q.flush:
			send(true)
			close(ack)
		case <-q.stop:
			send(true)
			return
		}
	}
}

// take moves the oldest pending spans, a batch at most, into batch: a full
// batch only, unless all is set.
func (q *queue) take(batch []sdktrace.ReadOnlySpan, all bool) []sdktrace.ReadOnlySpan {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.pending)
	if n == 0 || !all && n < q.batch {
		return batch
	}
	k := min(n, q.batch)
	batch = append(batch, q.pending[:k]...)
	left := copy(q.pending, q.pending[k:])
	clear(q.pending[left:])
	q.pending = q.pending[:left]
	return batch
}

// export sends one batch, within the export timeout.
func (q *queue) export(spans []sdktrace.ReadOnlySpan) {
	ctx, cancel := context.WithTimeout(context.Background(), q.timeout)
	defer cancel()
	if err := q.exporter.ExportSpans(ctx, spans); err != nil {
		q.failed.Add(uint64(len(spans)))
		if q.onError != nil {
			q.onError(err)
		}
	}
}

// ForceFlush sends every span queued, and waits for it until ctx is done.
func (q *queue) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case q.flush <- ack:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown sends what is queued and shuts the exporter down, waiting
// until ctx is done at most.
func (q *queue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() { close(q.stop) })
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exporter.Shutdown(ctx)
}
