package calltrace

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Field is one named value of a stage of a call's trace, such as the URL
// of a request. Its value is made of JSON values: nil, bool, numbers,
// strings, []any and map[string]any.
type Field struct {
	Name  string
	Value any
}

// Tracer records what happens at each stage of one call, in order: the
// arguments, what the action sent and received, each program's value, the
// output validation. The engine hands adapters a Tracer that has already
// cleaned what it records (see [From]); an adapter records its stages
// only when From returns one, so that a call without a tracer costs
// nothing.
type Tracer interface {
	// Stage records one stage that took took (0 when it has no duration of
	// its own, such as a request before it is sent).
	Stage(name string, took time.Duration, fields ...Field)
}

// Limits: what a stage shows of a long text or list.
const (
	// TextLimit is the most bytes of a string a trace shows.
	TextLimit = 2048
	// ListLimit is the most elements of a list a trace shows.
	ListLimit = 50
)

type tracerKey struct{}

// With returns a context whose calls record their stages in t.
func With(ctx context.Context, t Tracer) context.Context {
	return context.WithValue(ctx, tracerKey{}, t)
}

// From returns the tracer of ctx, or nil when the call is not traced.
// Within a tool's call, the tracer redacts the configuration's secrets and
// the call's sensitive values from everything recorded, strips terminal
// control sequences, and cuts long texts (TextLimit) and lists
// (ListLimit).
func From(ctx context.Context) Tracer {
	t, _ := ctx.Value(tracerKey{}).(Tracer)
	return t
}

// Stage is one stage a [Recorder] kept.
type Stage struct {
	Name   string
	Took   time.Duration
	Fields []Field
}

// Recorder is a Tracer that keeps every stage, in order. It is safe for
// concurrent use.
type Recorder struct {
	mu     sync.Mutex
	stages []Stage
}

var _ Tracer = (*Recorder)(nil)

// Stage records a stage.
func (r *Recorder) Stage(name string, took time.Duration, fields ...Field) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stages = append(r.stages, Stage{Name: name, Took: took, Fields: slices.Clone(fields)})
}

// Stages returns the stages recorded so far.
func (r *Recorder) Stages() []Stage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.stages)
}

// Cleaner cleans every value before Next sees it: each string passed
// through Clean (which strips terminal controls and redacts secrets), long
// texts and lists cut.
type Cleaner struct {
	Next  Tracer
	Clean func(string) string
}

// Stage records a stage in c.Next, its fields cleaned.
func (c *Cleaner) Stage(name string, took time.Duration, fields ...Field) {
	out := make([]Field, len(fields))
	for i, f := range fields {
		out[i] = Field{Name: f.Name, Value: c.value(f.Value)}
	}
	c.Next.Stage(name, took, out...)
}

// value returns a clean copy of v.
func (c *Cleaner) value(v any) any {
	switch x := v.(type) {
	case nil, bool, int, int64, float64, json.Number:
		return x
	case string:
		return cutText(c.Clean(x))
	case []byte:
		return cutText(c.Clean(string(x)))
	case []string:
		l := make([]any, len(x))
		for i, s := range x {
			l[i] = s
		}
		return c.value(l)
	case []any:
		n := min(len(x), ListLimit)
		l := make([]any, 0, n+1)
		for _, e := range x[:n] {
			l = append(l, c.value(e))
		}
		if len(x) > n {
			l = append(l, fmt.Sprintf("… (%d items in all)", len(x)))
		}
		return l
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[c.Clean(k)] = c.value(e)
		}
		return m
	case error:
		return c.value(x.Error())
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	switch x := v.(type) {
	case int8, int16, int32, uint, uint8, uint16, uint32, uint64, float32:
		return x
	}
	return c.value(fmt.Sprint(v))
}

// cutText cuts s to TextLimit bytes, on a character boundary, and says how
// long it was.
func cutText(s string) string {
	if len(s) <= TextLimit {
		return s
	}
	n := TextLimit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… (cut: " + strconv.Itoa(len(s)) + " bytes in all)"
}
