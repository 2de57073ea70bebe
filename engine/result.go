package engine

import (
	"encoding/json"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// ContentType is the kind of one block of a tool result.
type ContentType string

// The content types a result can carry.
const (
	TextContent         ContentType = "text"
	ImageContent        ContentType = "image"
	AudioContent        ContentType = "audio"
	ResourceLinkContent ContentType = "resource_link"
	ResourceContent     ContentType = "resource" // an embedded resource
)

// Content is one block of a tool result.
type Content struct {
	Type ContentType
	// Text of TextContent, or of a ResourceContent with text.
	Text string
	// Data holds the raw bytes of ImageContent, AudioContent, and of a
	// ResourceContent with a blob.
	Data     []byte
	MIMEType string
	// URI, Name, Title and Description describe a ResourceLinkContent; URI
	// also names a ResourceContent.
	URI, Name, Title, Description string
	// Annotations are the optional hints of the block.
	Annotations *ContentAnnotations
}

// apply replaces each string field of c that holds text, f of it: the text,
// and the MIME type, URI, name, title and description.
func (c *Content) apply(f func(string) string) {
	for _, p := range [...]*string{&c.Text, &c.MIMEType, &c.URI, &c.Name, &c.Title, &c.Description} {
		if *p != "" {
			*p = f(*p)
		}
	}
}

// ContentAnnotations tell clients who a block is for and how it matters.
type ContentAnnotations struct {
	Audience     []string // "user", "assistant"
	Priority     *float64 // from 0 to 1
	LastModified string   // an ISO 8601 time
}

// Result is the outcome of one tool call, as the client will see it.
type Result struct {
	// Content is what the result shows: one text block, and any image or
	// audio that the action returned.
	Content []Content
	// Structured is the structuredContent: the values of the tool's outputs.
	// It is nil for tools without outputs and for errors.
	Structured map[string]any
	// IsError marks a tool error: bad arguments, a failed action, a result
	// that breaks the output schema.
	IsError bool
	// Confirmation is what a tool that asks decided, for the audit log;
	// ConfirmNone for other tools. (A byte, next to IsError: a result of
	// a tool that asks nothing is no larger for it.)
	Confirmation Decision
	// Meta is the result's _meta object, such as the [CacheMetaKey] of a
	// result served from the cache; nil for most.
	Meta map[string]any

	// Round, when not nil, is what the call asks before it goes on: the
	// server sends it to the client as an input_required result, and the
	// result has no content. (A pointer: a result of a tool that asks
	// nothing is no larger for it.)
	Round *Round
	// StateError, when not nil, is a request state refused: the server
	// answers it with a protocol error.
	StateError *StateError
	// outcome is why a tool error ended the call, when the engine knows
	// better than "tool_error".
	outcome Outcome
	// structuredJSON is Structured as JSON, once written (see
	// StructuredJSON).
	structuredJSON json.RawMessage
}

// StructuredJSON is the structured content as JSON, written once however
// many read it (the server sends these bytes, the audit log counts them);
// nil without structured content, or when it cannot be written. The
// structured content must not change once it is read.
func (r *Result) StructuredJSON() json.RawMessage {
	if r.Structured != nil && r.structuredJSON == nil {
		if b, err := jsonenc.Append(nil, r.Structured); err == nil {
			r.structuredJSON = b
		}
	}
	return r.structuredJSON
}

// Outcome is how a call ended, for metrics: a small fixed set.
type Outcome string

// The outcomes of a call.
const (
	OutcomeOK          Outcome = "ok"
	OutcomeToolError   Outcome = "tool_error"        // the action or a mapping failed, or error_if said so
	OutcomeInvalid     Outcome = "invalid_arguments" // the arguments broke the input schema
	OutcomeDenied      Outcome = "denied"            // the caller's token lacks the tool's scopes
	OutcomeRateLimited Outcome = "rate_limited"      // a rate limit refused the call
	OutcomeTimeout     Outcome = "timeout"           // the call ran out of time
	OutcomeDeclined    Outcome = "declined"          // the person declined or dismissed a confirmation
)

// Outcome is how the call that gave r ended.
func (r *Result) Outcome() Outcome {
	switch {
	case !r.IsError:
		return OutcomeOK
	case r.outcome != "":
		return r.outcome
	}
	return OutcomeToolError
}

// CacheMetaKey is the _meta member of a result served from the cache. Its
// value is an object with the result's age in seconds ("age") and the
// time it was cached ("cached_at", RFC 3339).
const CacheMetaKey = "mcpdecl/cache"

// refused is a tool error of a known outcome.
func refused(outcome Outcome, msg string) *Result {
	r := errorResult(msg)
	r.outcome = outcome
	return r
}

// Text returns the text of the result's text blocks, joined by newlines.
func (r *Result) Text() string {
	s := ""
	for _, c := range r.Content {
		if c.Type == TextContent {
			if s != "" {
				s += "\n"
			}
			s += c.Text
		}
	}
	return s
}

// errorResult is a tool error with msg as its text.
func errorResult(msg string) *Result {
	return &Result{IsError: true, Content: []Content{{Type: TextContent, Text: msg}}}
}
