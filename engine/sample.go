package engine

import (
	"context"
	"fmt"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// SampleRequest is what a sample action asks the client's model
// (sampling/createMessage): the messages of the conversation, a system
// prompt, the most tokens the answer may take, and the model preferences.
type SampleRequest struct {
	SystemPrompt  string
	Messages      []SampleMessage
	MaxTokens     int64
	Temperature   float64 // 0: the client's choice
	StopSequences []string
	// ModelHints name models, or families of them, in order of
	// preference ("claude", "sonnet"); the client maps them to its own.
	ModelHints []string
	// The priorities, from 0 to 1; 0 says nothing.
	CostPriority, SpeedPriority, IntelligencePriority float64
}

// SampleMessage is one message of a [SampleRequest]: Role is "user" or
// "assistant".
type SampleMessage struct {
	Role, Text string
}

// SampleAnswer is the client's model's answer to a [SampleRequest], as
// the client sent it: the engine caps and cleans it (see [Sample]).
type SampleAnswer struct {
	Role, Text, Model, StopReason string
	// NotText names the kind of content the model answered when it is
	// not text (an image, say); "" for text.
	NotText string
}

// Sampler is an Action that asks the client's model (see [Sample]): a tool
// whose action is one asks its client (see [Tool.Asks]), and its calls
// carry what the client can be asked.
type Sampler interface {
	Action
	// Samples is a marker: the action calls [Sample].
	Samples()
	// Reads reports whether the question it asks reads the variable
	// name ("args", "caller", "confirm", "roots"): in a tool that asks no
	// consent, one that reads no roots is asked with the other questions
	// once the arguments are known, and one that reads neither args nor
	// caller either with the arguments the call lacks.
	Reads(name string) bool
}

// MaxSampleBytes caps the text of a model's answer that an action reads:
// the rest is cut, as an upstream's output past its cap.
const MaxSampleBytes = 1 << 20

// DefaultSampleKey names a sampling question in the input requests of
// 2026-07-28 when the sample block names none.
const DefaultSampleKey = "sample"

type sampleToolKey struct{}

// askError ends a call with a question: the engine makes it the call's
// result (see [Result.Round]).
type askError struct{ q *Question }

func (e *askError) Error() string { return "the call asks the client: " + e.q.Key }

// sampleRefusal is a call refused because its client cannot be asked for
// a sample.
type sampleRefusal struct{ msg string }

func (e *sampleRefusal) Error() string { return e.msg }

// Sample asks the client's model req, for the action of a call of a tool
// whose action is a [Sampler], under key.
// The first time, it returns an error that ends the call with the
// question (the server sends it as an input request of 2026-07-28, which
// a session of an earlier revision turns into sampling/createMessage);
// the client calls again with the answer and the signed request state
// (checked as the call starts), and Sample returns the answer: its text cleaned of terminal controls
// (unless the tool says sanitize = false) and cut to [MaxSampleBytes]
// (truncated then says so). A client that cannot be asked is an error
// that the engine turns into the call's result.
func Sample(ctx context.Context, key string, req *SampleRequest) (ans *SampleAnswer, truncated bool, err error) {
	t, _ := ctx.Value(sampleToolKey{}).(*Tool)
	a := askingFrom(ctx)
	if t == nil || a == nil || !a.Sampling {
		why := "it cannot be asked"
		if a != nil && a.SamplingWhy != "" {
			why = a.SamplingWhy
		}
		name := "this tool"
		if t != nil {
			name = "the tool " + t.spec.Name
		}
		return nil, false, &sampleRefusal{msg: fmt.Sprintf("%s asks the client's model (sampling), and %s, so nothing was asked; use a client that supports sampling", name, why)}
	}
	r := roundFrom(ctx)
	if r == nil {
		return nil, false, &sampleRefusal{msg: "the tool " + t.spec.Name + " asks the client's model outside of a call"}
	}
	got, answered := r.answers[key]
	if !answered || got.Sample == nil {
		return nil, false, &askError{q: &Question{Key: key, Sample: req}}
	}
	out := *got.Sample
	if len(out.Text) > MaxSampleBytes {
		out.Text, truncated = TruncateUTF8(out.Text, MaxSampleBytes), true
	}
	if s := scopeOf(ctx); s == nil || !s.keepControls {
		out.Text = text.SanitizeString(out.Text)
	}
	out.Model, out.StopReason, out.Role = text.SanitizeString(TruncateUTF8(out.Model, 256)), text.SanitizeString(TruncateUTF8(out.StopReason, 256)), text.SanitizeString(TruncateUTF8(out.Role, 32))
	return &out, truncated, nil
}

// Samples reports whether the tool's action asks the client's model.
func (t *Tool) Samples() bool { return t.samples }

// inputResult is the result of a call whose action ended with err, when
// err asks the client or refuses the call for what the client cannot do
// (see [Sample]); nil for any other error. A question joins the round.
func (t *Tool) inputResult(ctx context.Context, err error) *Result {
	switch e := err.(type) {
	case *askError:
		r := roundFrom(ctx)
		r.ask(e.q, 0)
		return t.asked(ctx, r)
	case *sampleRefusal:
		res := errorResult(e.msg)
		res.Confirmation = SamplingRefused
		return res
	}
	return nil
}
