package tracing

import (
	"encoding/binary"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// This file writes spans as an OTLP ExportTraceServiceRequest in protobuf
// (opentelemetry/proto/collector/trace/v1/trace_service.proto and the
// messages it uses), straight from the SDK's ReadOnlySpans into one
// buffer: the same message the OTLP exporter builds as protobuf structs
// (one or more allocations per span, attribute and value) and then
// marshals. Fields are written in the order of their numbers, and zero
// values are left out, as proto3 encoders do.

// Wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Span flags (opentelemetry/proto/trace/v1/trace.proto, SpanFlags): the
// W3C trace flags in the low byte, and whether the parent is remote.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// encoder appends protobuf to buf.
type encoder struct{ buf []byte }

func (e *encoder) tag(field, wire int) {
	e.buf = binary.AppendUvarint(e.buf, uint64(field)<<3|uint64(wire))
}

func (e *encoder) varint(field int, v uint64) {
	if v != 0 {
		e.tag(field, wireVarint)
		e.buf = binary.AppendUvarint(e.buf, v)
	}
}

func (e *encoder) fixed64(field int, v uint64) {
	if v != 0 {
		e.tag(field, wireFixed64)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, v)
	}
}

func (e *encoder) fixed32(field int, v uint32) {
	if v != 0 {
		e.tag(field, wireFixed32)
		e.buf = binary.LittleEndian.AppendUint32(e.buf, v)
	}
}

func (e *encoder) str(field int, s string) {
	if s != "" {
		e.buf = appendLenDelim(e.buf, field, s)
	}
}

func (e *encoder) bytes(field int, b []byte) {
	if len(b) > 0 {
		e.buf = appendLenDelim(e.buf, field, b)
	}
}

// appendLenDelim appends field holding v (a string or bytes), even when v
// is empty, as a oneof member is written.
func appendLenDelim[T string | []byte](buf []byte, field int, v T) []byte {
	buf = binary.AppendUvarint(buf, uint64(field)<<3|wireBytes)
	buf = binary.AppendUvarint(buf, uint64(len(v)))
	return append(buf, v...)
}

// begin starts an embedded message of field; end finishes it, writing its
// length where begin left room for it (one byte, enough for most; longer
// messages move their bytes to make room).
func (e *encoder) begin(field int) int {
	e.tag(field, wireBytes)
	e.buf = append(e.buf, 0)
	return len(e.buf)
}

func (e *encoder) end(start int) {
	n := len(e.buf) - start
	if n < 0x80 {
		e.buf[start-1] = byte(n)
		return
	}
	var l [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(l[:], uint64(n))
	e.buf = append(e.buf, l[:k-1]...)
	copy(e.buf[start-1+k:], e.buf[start:start+n])
	copy(e.buf[start-1:], l[:k])
}

// appendRequest appends the ExportTraceServiceRequest of spans to buf: one
// ResourceSpans for each resource, one ScopeSpans for each instrumentation
// scope within it, in the order they first appear.
func appendRequest(buf []byte, spans []sdktrace.ReadOnlySpan) []byte {
	e := encoder{buf: buf}
	done := make([]bool, len(spans))
	for i, first := range spans {
		if done[i] {
			continue
		}
		res := first.Resource()
		rs := e.begin(1) // resource_spans
		r := e.begin(1)  // resource
		e.attributeSet(1, res)
		e.end(r)
		for j := i; j < len(spans); j++ {
			if done[j] || !sameResource(spans[j].Resource(), res) {
				continue
			}
			scope := spans[j].InstrumentationScope()
			ss := e.begin(2) // scope_spans
			e.scope(scope)
			for k := j; k < len(spans); k++ {
				if done[k] || !sameResource(spans[k].Resource(), res) || !sameScope(spans[k].InstrumentationScope(), scope) {
					continue
				}
				e.span(spans[k])
				done[k] = true
			}
			e.str(3, scope.SchemaURL)
			e.end(ss)
		}
		e.str(3, res.SchemaURL())
		e.end(rs)
	}
	return e.buf
}

func sameResource(a, b *resource.Resource) bool {
	return a == b || a.Equivalent() == b.Equivalent()
}

func sameScope(a, b instrumentation.Scope) bool {
	return a.Name == b.Name && a.Version == b.Version && a.SchemaURL == b.SchemaURL && a.Attributes.Equivalent() == b.Attributes.Equivalent()
}

// scope writes an InstrumentationScope, unless it is the zero scope.
func (e *encoder) scope(s instrumentation.Scope) {
	if s.Name == "" && s.Version == "" && s.SchemaURL == "" && s.Attributes.Len() == 0 {
		return
	}
	m := e.begin(1)
	e.str(1, s.Name)
	e.str(2, s.Version)
	for it := s.Attributes.Iter(); it.Next(); {
		e.keyValue(3, it.Attribute())
	}
	e.end(m)
}

// attributeSet writes the attributes of a resource as field.
func (e *encoder) attributeSet(field int, res *resource.Resource) {
	if res == nil {
		return
	}
	for it := res.Iter(); it.Next(); {
		e.keyValue(field, it.Attribute())
	}
}

// span writes a Span as field 2 of ScopeSpans.
func (e *encoder) span(s sdktrace.ReadOnlySpan) {
	m := e.begin(2)
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	e.bytes(1, tid[:])
	e.bytes(2, sid[:])
	e.str(3, sc.TraceState().String())
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		e.bytes(4, psid[:])
	}
	e.str(5, s.Name())
	e.varint(6, uint64(s.SpanKind()))
	e.fixed64(7, unixNano(s.StartTime()))
	e.fixed64(8, unixNano(s.EndTime()))
	for _, kv := range s.Attributes() {
		e.keyValue(9, kv)
	}
	e.varint(10, count(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		m := e.begin(11)
		e.fixed64(1, unixNano(ev.Time))
		e.str(2, ev.Name)
		for _, kv := range ev.Attributes {
			e.keyValue(3, kv)
		}
		e.varint(4, count(ev.DroppedAttributeCount))
		e.end(m)
	}
	e.varint(12, count(s.DroppedEvents()))
	for _, l := range s.Links() {
		m := e.begin(13)
		tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		e.bytes(1, tid[:])
		e.bytes(2, sid[:])
		e.str(3, l.SpanContext.TraceState().String())
		for _, kv := range l.Attributes {
			e.keyValue(4, kv)
		}
		e.varint(5, count(l.DroppedAttributeCount))
		e.fixed32(6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		e.end(m)
	}
	e.varint(14, count(s.DroppedLinks()))
	st := s.Status()
	var code uint64 // STATUS_CODE_UNSET
	switch st.Code {
	case codes.Ok:
		code = 1
	case codes.Error:
		code = 2
	}
	// The exporter writes a status on every span, empty when unset.
	m2 := e.begin(15)
	e.str(2, st.Description)
	e.varint(3, code)
	e.end(m2)
	e.fixed32(16, spanFlags(sc.TraceFlags(), parent))
	e.end(m)
}

// spanFlags are a span's or a link's flags: its trace flags, and whether
// parent (for a link, the linked span) is remote.
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

func unixNano(t time.Time) uint64 { return uint64(max(0, t.UnixNano())) }

func count(n int) uint64 { return uint64(min(max(n, 0), math.MaxUint32)) }

// keyValue writes an attribute as a KeyValue in field.
func (e *encoder) keyValue(field int, kv attribute.KeyValue) {
	m := e.begin(field)
	e.str(1, string(kv.Key))
	v := e.begin(2)
	e.value(kv.Value)
	e.end(v)
	e.end(m)
}

// value writes the fields of an AnyValue holding v.
func (e *encoder) value(v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		e.tag(2, wireVarint)
		if v.AsBool() {
			e.buf = append(e.buf, 1)
		} else {
			e.buf = append(e.buf, 0)
		}
	case attribute.INT64:
		e.tag(3, wireVarint)
		e.buf = binary.AppendUvarint(e.buf, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		e.tag(4, wireFixed64)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		e.buf = appendLenDelim(e.buf, 1, v.AsString())
	case attribute.BYTESLICE:
		e.buf = appendLenDelim(e.buf, 7, v.AsByteSlice())
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		e.array(len(s), func(i int) attribute.Value { return attribute.BoolValue(s[i]) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		e.array(len(s), func(i int) attribute.Value { return attribute.Int64Value(s[i]) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		e.array(len(s), func(i int) attribute.Value { return attribute.Float64Value(s[i]) })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		e.array(len(s), func(i int) attribute.Value { return attribute.StringValue(s[i]) })
	case attribute.SLICE:
		s := v.AsSlice()
		e.array(len(s), func(i int) attribute.Value { return s[i] })
	case attribute.MAP:
		m := e.begin(6) // kvlist_value
		for _, kv := range v.AsMap() {
			e.keyValue(1, kv)
		}
		e.end(m)
	case attribute.EMPTY:
	default:
		e.str(1, "INVALID")
	}
}

// array writes an array_value of n values.
func (e *encoder) array(n int, at func(int) attribute.Value) {
	m := e.begin(5)
	for i := range n {
		v := e.begin(1)
		e.value(at(i))
		e.end(v)
	}
	e.end(m)
}
