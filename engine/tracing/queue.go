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
// too.
type queue struct {
	exporter sdktrace.SpanExporter
	spans    chan sdktrace.ReadOnlySpan
	batch    int           // the most spans one export sends
	delay    time.Duration // the longest a span waits for its batch to fill
	timeout  time.Duration // bounds one export
	onError  func(error)   // told of a failed export

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
		spans:    make(chan sdktrace.ReadOnlySpan, size),
		batch:    batch,
		delay:    delay,
		timeout:  timeout,
		onError:  onError,
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
	select {
	case q.spans <- s:
	default:
		q.full.Add(1)
	}
}

// run sends the queued spans: a batch when it is full, or when its first
// span has waited for delay, or when asked to flush; at stop, what is left.
func (q *queue) run() {
	defer close(q.done)
	pending := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	timer := time.NewTimer(q.delay)
	timer.Stop()
	send := func() {
		if len(pending) > 0 {
			q.export(pending)
			clear(pending)
			pending = pending[:0]
		}
		timer.Stop()
	}
	for {
		select {
		case s := <-q.spans:
			if len(pending) == 0 {
				timer.Reset(q.delay)
			}
			pending = append(pending, s)
			if len(pending) >= q.batch {
				send()
			}
		case <-timer.C:
			send()
		case ack := <-q.flush:
			q.drain(&pending, send)
			send()
			close(ack)
		case <-q.stop:
			q.drain(&pending, send)
			send()
			return
		}
	}
}

// drain moves every span queued now into pending, sending full batches.
func (q *queue) drain(pending *[]sdktrace.ReadOnlySpan, send func()) {
	for {
		select {
		case s := <-q.spans:
			*pending = append(*pending, s)
			if len(*pending) >= q.batch {
				send()
			}
		default:
			return
		}
	}
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
