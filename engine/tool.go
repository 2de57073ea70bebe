package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Annotations are the hints a tool gives clients about its behaviour. A nil
// field is not sent.
type Annotations struct {
	ReadOnlyHint    *bool
	DestructiveHint *bool
	IdempotentHint  *bool
	OpenWorldHint   *bool
}

// Icon is an icon a client may show for a tool.
type Icon struct {
	Src      string   // an https: or data: URI
	MIMEType string   // optional
	Sizes    []string // optional, such as "48x48" or "any"
	Theme    string   // optional: "light" or "dark"
}

// Output is one declared output of a tool, with the program computing it.
type Output struct {
	schema.Output
	Value mapping.Value
}

// ToolSpec is everything the loader decoded for one tool.
type ToolSpec struct {
	Name, Title, Description string
	Annotations              *Annotations
	Icons                    []Icon
	// Meta is the tool's _meta object in tools/list.
	Meta map[string]any
	Args []schema.Arg
	// InputSchema replaces the schema built from Args when not nil (the
	// input_schema escape hatch).
	InputSchema map[string]any
	// Defs are named schemas the arguments may refer to as
	// {"$ref": "#/$defs/name"}: those the input schema reaches go under
	// its "$defs" (see [schema.WithDefs]).
	Defs map[string]any
	// Schemas, when not nil, compiles the tool's schemas, sharing what it
	// compiled between the tools of a configuration whose schemas are the
	// same.
	Schemas *schema.Cache
	Action  Action // nil for a tool computed from its arguments alone
	Outputs []Output
	Text    mapping.Value // nil: the default text
	// Content, when not empty, is the whole content of a result, in order,
	// in place of the default text block.
	Content []ContentSpec
	ErrorIf mapping.Value // nil: the action's own rule
	// Logs are the log messages a call sends its client as it starts
	// (the tool's log blocks).
	Logs     []LogMessage
	ErrorMsg mapping.Value // nil: the action's own message
	Timeout  time.Duration // 0: the server's
	// MaxConcurrency bounds the runs under way at once; 0 means the
	// action's default (see ConcurrencyLimiter), else no bound.
	MaxConcurrency int
	// MaxResultBytes caps the size of a result; 0: the server's.
	MaxResultBytes int64
	// Layers are the tool's own features of its per-call path, outermost
	// first, such as its rate limit and its cache (see [CallLayer]).
	Layers []CallLayer
	// Outer are the configuration's features of the per-call path of each
	// of its tools, outermost first, which see every call, refused ones
	// too, such as its audit log (see [Config.Layers]).
	Outer []CallLayer
	// Confirm, when not nil, asks the person behind the client before
	// the action runs.
	Confirm *Confirm
	// Task, when not nil, lets calls run as tasks (the tasks extension).
	Task *TaskSpec
	// Roots, when not nil, asks the client for its roots: the arguments
	// within_roots are checked against them, and the programs read them
	// as roots. An argument within_roots implies it.
	Roots *Roots
	// Scopes are those a caller's token must grant to list and call the
	// tool over authenticated HTTP.
	Scopes []string
	// Tags label the tool, for toolsets to select it by.
	Tags []string
	// ReadsCaller is true when a program of the tool reads the caller
	// variable (see [Caller.Value]); only then is it made for a call.
	ReadsCaller bool
	Range       hcl.Range // where the tool is declared

	// NoSanitize (sanitize = false) leaves terminal escape sequences and
	// control characters in the tool's results: its text, content blocks
	// and structured content. Tool errors are cleaned all the same.
	NoSanitize bool
	// OutputSchemas is what the tool's outputSchema carries in tools/list
	// (one of OutputSchemaModes): the tool's output_schemas, which a
	// toolset's decides over; "" for the server's.
	OutputSchemas string
}

// Tool is one compiled tool, ready to be called concurrently.
type Tool struct {
	spec         ToolSpec
	inputSchema  map[string]any
	outputSchema map[string]any
	// The schemas as JSON, encoded once: each tools/list sends them.
	inputJSON, outputJSON json.RawMessage
	// compact is the output schema as tools/list shows it in compact
	// mode, made the first time it is asked for; nil without outputs.
	compact *compactOutput
	// full is the output schema as tools/list shows it in full mode: with
	// the subschemas it repeats written once (see [schema.Share]), made
	// the first time it is asked for; nil without outputs.
	full *compactOutput
	// inlined is the input schema without references, for clients of
	// revisions before 2025-11-25; nil when it has no definitions.
	inlined   *inlinedInput
	input     *schema.Validator
	output    *schema.Validator
	settings  Settings
	redactor  *text.Redactor
	slots     chan struct{} // nil: no bound on concurrent runs
	sensitive []string      // the names of the sensitive arguments
	// trace records the stages of a call, in the copy of the tool that
	// runs a traced one, from traceBegan; nil otherwise (see trace.go).
	trace      *calltrace.Cleaner
	traceBegan time.Time
	run        CallStep // the per-call path: its layers, then the call (see layer.go)
	// sendsCallerToken is set when the action sends the caller's token
	// upstream: each call redacts it.
	sendsCallerToken bool
	// heartbeat is set when a call whose client asked for progress is
	// sent a heartbeat while its action runs: the action reports no
	// progress of its own.
	heartbeat bool
	// scope is what a call without sensitive argument values tells its
	// action (see callScope), made once: its redaction is the
	// configuration's.
	scope *callScope
	// form validates the answers of a confirmation, formSchema is the
	// form as elicitation sends it, and states signs the request states;
	// all nil without a confirm block.
	form       *schema.Validator
	formSchema map[string]any
	states     *stateSigner
	// askable are the arguments asked for when a call lacks them (their
	// ask); nil for none. confirmEarly is set when the confirmation can
	// join their question: its message reads no argument.
	askable      []schema.Arg
	confirmEarly bool
	// samples is set when the action asks the client's model (a
	// [Sampler]): its calls carry the tool, for [Sample]. sampleEarly is
	// set when its question can join those asked once the arguments are
	// known: the tool asks for no consent, and its messages read no roots;
	// sampleFirst when it can join the round of the arguments the call
	// lacks too: its messages read neither args nor caller either.
	samples, sampleEarly, sampleFirst bool
}

// NewTool compiles a tool's schemas. The error says which schema is wrong.
func NewTool(spec ToolSpec, settings Settings, redactor *text.Redactor) (*Tool, error) {
	t := &Tool{spec: spec, settings: settings, redactor: redactor}
	t.heartbeat = spec.Action != nil && settings.ProgressHeartbeat > 0 && !emitsProgress(spec.Action)
	t.scope = &callScope{maxResultBytes: spec.MaxResultBytes, redact: redactor.Redact, keepControls: spec.NoSanitize}
	if u, ok := spec.Action.(CallerTokenUser); ok {
		t.sendsCallerToken = u.UsesCallerToken()
	}
	t.inputSchema = spec.InputSchema
	if t.inputSchema == nil {
		t.inputSchema = schema.InputSchema(spec.Args)
	}
	t.inputSchema = schema.WithDefs(t.inputSchema, spec.Defs)
	if _, ok := t.inputSchema["$defs"]; ok {
		t.inlined = &inlinedInput{}
	}
	var err error
	if t.inputJSON, err = jsonenc.Append(nil, t.inputSchema); err != nil {
		return nil, fmt.Errorf("the input schema of tool %q cannot be written as JSON: %w", spec.Name, err)
	}
	if t.input, err = spec.Schemas.Compile(t.inputSchema, t.inputJSON); err != nil {
		return nil, fmt.Errorf("the input schema of tool %q is invalid: %w", spec.Name, err)
	}
	if len(spec.Outputs) > 0 {
		t.outputSchema = schema.OutputSchema(t.Outputs())
		if t.outputJSON, err = jsonenc.Append(nil, t.outputSchema); err != nil {
			return nil, fmt.Errorf("the output schema of tool %q cannot be written as JSON: %w", spec.Name, err)
		}
		if t.output, err = spec.Schemas.Compile(t.outputSchema, t.outputJSON); err != nil {
			return nil, fmt.Errorf("the output schema of tool %q is invalid: %w", spec.Name, err)
		}
		t.compact, t.full = &compactOutput{}, &compactOutput{}
	}
	if c := spec.Confirm; c != nil {
		if c.Key == "" {
			t.spec.Confirm.Key = "confirm"
		}
		t.formSchema = FormSchema(c.Fields, c.Titles)
		if t.form, err = schema.Compile(schema.InputSchema(c.Fields)); err != nil {
			return nil, fmt.Errorf("the confirmation form of tool %q is invalid: %w", spec.Name, err)
		}
	}
	for _, a := range spec.Args {
		if a.Ask != "" {
			t.askable = append(t.askable, a)
		}
		if a.WithinRoots && t.spec.Roots == nil {
			t.spec.Roots = &Roots{}
		}
	}
	if t.spec.Roots != nil {
		r := *t.spec.Roots
		if r.Key == "" {
			r.Key = DefaultRootsKey
		}
		t.spec.Roots = &r
	}
	// A confirmation whose message reads no argument is asked with the
	// arguments the call lacks.
	t.confirmEarly = spec.Confirm != nil && t.askable != nil && !mapping.Reads(spec.Confirm.Message, "args")
	if s, ok := spec.Action.(Sampler); ok {
		t.samples = true
		// A sample whose messages read no roots is asked with the
		// arguments the call lacks, unless the tool asks for consent:
		// then nothing, the client's model included, is asked before the
		// person has said yes.
		t.sampleEarly = spec.Confirm == nil && !s.Reads("roots")
		t.sampleFirst = t.sampleEarly && !s.Reads("args") && !s.Reads("caller")
	}
	if spec.Confirm != nil || t.askable != nil || t.spec.Roots != nil || t.samples {
		// A tool that asks the client carries its rounds in request states.
		t.states = newStateSigner(settings.RequestStateKeys, settings.RequestStates)
	}
	if t.spec.Timeout == 0 {
		t.spec.Timeout = settings.Timeout
	}
	if t.spec.MaxResultBytes == 0 {
		t.spec.MaxResultBytes = settings.MaxResultBytes
	}
	for _, a := range spec.Args {
		if a.Sensitive {
			t.sensitive = append(t.sensitive, a.Name)
		}
	}
	if len(t.sensitive) > 0 {
		// Messages about a sensitive argument never show its value.
		t.input = t.input.HideValues(t.sensitive...)
	}
	if t.spec.MaxConcurrency == 0 {
		if l, ok := spec.Action.(ConcurrencyLimiter); ok {
			t.spec.MaxConcurrency = l.DefaultMaxConcurrency()
		}
	}
	if t.spec.MaxConcurrency > 0 {
		t.slots = make(chan struct{}, t.spec.MaxConcurrency)
	}
	if h, ok := spec.Action.(Hinter); ok {
		t.spec.Annotations = mergeHints(t.spec.Annotations, h.Hints())
	}
	if err := t.wrap(t.layers()); err != nil {
		return nil, err
	}
	return t, nil
}

// Name is the tool's name.
func (t *Tool) Name() string { return t.spec.Name }

// Title is the tool's human-readable title, possibly empty.
func (t *Tool) Title() string { return t.spec.Title }

// Description says what the tool does.
func (t *Tool) Description() string { return t.spec.Description }

// Annotations are the tool's behaviour hints, possibly nil.
func (t *Tool) Annotations() *Annotations { return t.spec.Annotations }

// Icons are the tool's icons, possibly none.
func (t *Tool) Icons() []Icon { return t.spec.Icons }

// Meta is the tool's _meta object, possibly nil.
func (t *Tool) Meta() map[string]any { return t.spec.Meta }

// InputSchema is the JSON Schema of the tool's arguments.
func (t *Tool) InputSchema() map[string]any { return t.inputSchema }

// InputSchemaJSON is [Tool.InputSchema] as JSON, encoded once. The caller
// must not modify it.
func (t *Tool) InputSchemaJSON() json.RawMessage { return t.inputJSON }

// MaxInlinedSchemaBytes bounds the input schema that
// [Tool.InlinedInputSchemaJSON] lists: past it, definitions are cut.
const MaxInlinedSchemaBytes = 96 << 10

// inlinedInput is a tool's input schema with its definitions written in
// place, as JSON, made the first time it is asked for.
type inlinedInput struct {
	once sync.Once
	json json.RawMessage
}

// InlinedInputSchemaJSON is [Tool.InputSchemaJSON] without "$ref" to its
// own definitions, which are written in place (cut where they recur, and
// shallower when the whole would pass [MaxInlinedSchemaBytes]): for
// clients of protocol revisions before 2025-11-25, which did not make
// JSON Schema 2020-12 the dialect of tool schemas. A tool without
// definitions returns its input schema. Calls are validated against the
// whole schema whatever was listed. The caller must not modify it.
func (t *Tool) InlinedInputSchemaJSON() json.RawMessage {
	in := t.inlined
	if in == nil {
		return t.inputJSON
	}
	in.once.Do(func() {
		doc, _ := schema.Inline(t.inputSchema, MaxInlinedSchemaBytes)
		var err error
		if in.json, err = jsonenc.Append(nil, doc); err != nil {
			in.json = t.inputJSON // never so: the whole schema was written
		}
	})
	return in.json
}

// Args are the tool's arguments as declared, with their declared types and
// constraints, in declaration order. The caller must not modify them.
func (t *Tool) Args() []schema.Arg { return t.spec.Args }

// Outputs are the tool's output fields as declared, with their declared
// types, in declaration order.
func (t *Tool) Outputs() []schema.Output {
	out := make([]schema.Output, len(t.spec.Outputs))
	for i, o := range t.spec.Outputs {
		out[i] = o.Output
	}
	return out
}

// OutputSchema is the JSON Schema of the tool's structured output, or nil
// when the tool declares no outputs.
func (t *Tool) OutputSchema() map[string]any { return t.outputSchema }

// OutputSchemaJSON is [Tool.OutputSchema] as JSON, encoded once, or nil.
// The caller must not modify it.
func (t *Tool) OutputSchemaJSON() json.RawMessage { return t.outputJSON }

// compactOutput is a tool's output schema as tools/list shows it in one
// mode (without its annotations, see [schema.Compact]; or shared, see
// [schema.Share]), and as JSON.
type compactOutput struct {
	once sync.Once
	doc  map[string]any
	json json.RawMessage
}

// OutputSchemas is what the tool's outputSchema carries in tools/list
// (one of OutputSchemaModes) where no toolset says otherwise: its own
// output_schemas, else the server's.
func (t *Tool) OutputSchemas() string { return cmp.Or(t.spec.OutputSchemas, t.settings.OutputSchemas) }

// listedOutput returns the output schema as tools/list shows it under
// mode ("" for the tool's output_schemas, else the server's), and as JSON; nil for none.
func (t *Tool) listedOutput(mode string) (map[string]any, json.RawMessage) {
	if mode == "" {
		mode = t.OutputSchemas()
	}
	switch {
	case t.compact == nil || mode == OutputSchemasNone:
		return nil, nil
	case mode == OutputSchemasCompact:
		c := t.compact
		c.once.Do(func() {
			c.doc = schema.Compact(t.outputSchema)
			var err error
			if c.json, err = jsonenc.Append(nil, c.doc); err != nil {
				// Never so: the whole schema, whose values these are,
				// was written. Should it be, the whole one is listed.
				c.doc, c.json = t.outputSchema, t.outputJSON
			}
		})
		return c.doc, c.json
	}
	f := t.full
	f.once.Do(func() {
		f.doc, f.json = t.outputSchema, t.outputJSON
		shared := schema.Share(t.outputSchema)
		if b, err := jsonenc.Append(nil, shared); err == nil && len(b) < len(f.json) {
			f.doc, f.json = shared, b
		}
	})
	return f.doc, f.json
}

// ListedOutputSchema is the tool's outputSchema as tools/list shows it
// under mode, one of OutputSchemaModes ("" for the tool's setting, else
// the server's): the
// whole schema, the compact one, or nil. Results are validated against
// the whole schema whatever mode lists. The caller must not modify it.
func (t *Tool) ListedOutputSchema(mode string) map[string]any {
	doc, _ := t.listedOutput(mode)
	return doc
}

// ListedOutputSchemaJSON is [Tool.ListedOutputSchema] as JSON, encoded
// once, or nil. The caller must not modify it.
func (t *Tool) ListedOutputSchemaJSON(mode string) json.RawMessage {
	_, b := t.listedOutput(mode)
	return b
}

// UnsharedOutputSchemaJSON is, when listed (a tools/list outputSchema of
// the tool) is the whole schema with the subschemas it repeats shared
// under "$defs" (see [schema.Share]), the whole schema without them: for
// clients of revisions before 2025-11-25, which named no dialect and may
// not follow references. Otherwise it is nil: listed is for every client.
func (t *Tool) UnsharedOutputSchemaJSON(listed any) json.RawMessage {
	b, ok := listed.(json.RawMessage)
	if !ok || t.full == nil || !bytes.Contains(b, []byte(`"$defs"`)) || bytes.Equal(b, t.outputJSON) {
		return nil // not shared: nothing to make in another mode
	}
	if _, shared := t.listedOutput(OutputSchemasFull); bytes.Equal(b, shared) && !bytes.Equal(shared, t.outputJSON) {
		return t.outputJSON
	}
	return nil
}

// ValidateDefaults checks the arguments' default values against the input
// schema; the arguments they leave out are not violations.
func (t *Tool) ValidateDefaults(defaults map[string]any) []schema.Violation {
	return t.input.ValidatePartial(defaults)
}

// ValidateOutput checks structured content against the output schema; a
// tool without outputs accepts only none.
func (t *Tool) ValidateOutput(structured map[string]any) []schema.Violation {
	if t.output == nil {
		if structured != nil {
			return []schema.Violation{{Message: "the tool declares no outputs"}}
		}
		return nil
	}
	return t.output.Validate(structured)
}

// CheckArguments validates raw as the tool's arguments; the error says
// what is wrong, as a call would.
func (t *Tool) CheckArguments(raw json.RawMessage) error {
	if _, msg := t.arguments(raw); msg != "" {
		return &ArgumentError{Message: msg}
	}
	return nil
}

// ArgumentError is arguments refused by a tool's input schema.
type ArgumentError struct{ Message string }

func (e *ArgumentError) Error() string { return e.Message }

// ReadsCaller reports whether a program of the tool reads the caller: its
// result may differ from one caller to another.
func (t *Tool) ReadsCaller() bool { return t.spec.ReadsCaller }

// HasAction reports whether the tool runs an action.
func (t *Tool) HasAction() bool { return t.spec.Action != nil }

// HasContentBlocks reports whether the tool declares content blocks.
func (t *Tool) HasContentBlocks() bool { return len(t.spec.Content) > 0 }

// HasResultPrograms reports whether the tool declares its result's text
// or content blocks.
func (t *Tool) HasResultPrograms() bool { return t.spec.Text != nil || len(t.spec.Content) > 0 }

// Timeout is the most time a call may take.
func (t *Tool) Timeout() time.Duration { return t.spec.Timeout }

// Range is where the tool is declared.
func (t *Tool) Range() hcl.Range { return t.spec.Range }

// Scopes are the scopes a caller's token must grant to use the tool.
func (t *Tool) Scopes() []string { return t.spec.Scopes }

// IsSensitive reports whether the argument named name is sensitive: its
// value must never be shown.
func (t *Tool) IsSensitive(name string) bool { return slices.Contains(t.sensitive, name) }

// Call runs the tool once with the arguments a client sent, raw JSON (empty
// or null for none), for the caller ctx carries (see [WithCaller]). Every
// failure, from bad arguments to an upstream that is down, comes back as a
// tool error. Before the result leaves, terminal control sequences are
// stripped from its strings (see [text.SanitizeValue] and ToolSpec.NoSanitize),
// it is cut to the tool's max_result_bytes, and
// every secret of the configuration and every value of a sensitive argument
// of this call is redacted from it.
func (t *Tool) Call(ctx context.Context, raw json.RawMessage) *Result {
	return t.run(ctx, CallerFrom(ctx), raw)
}

// callSecrets is what one call redacts: the configuration's secrets and the
// values of the call's sensitive arguments, worked out once per call.
type callSecrets struct {
	values []string            // the call's sensitive argument values
	redact func(string) string // hides both
}

// secretsOf is the redaction of a call with args.
func (t *Tool) secretsOf(ctx context.Context, args map[string]any) callSecrets {
	values := t.sensitiveValues(args)
	if t.sendsCallerToken {
		if token := CallerFrom(ctx).Token; token != "" {
			values = append(values, token)
		}
	}
	if len(values) == 0 {
		return callSecrets{redact: t.scope.redact}
	}
	return callSecrets{values: values, redact: t.redactFunc(values)}
}

// active reports whether there is anything to redact.
func (c callSecrets) active(r *text.Redactor) bool { return len(c.values) > 0 || r.Active() }

// joinSample adds the question of the tool's sample action to the round,
// when it is not answered already: the action is run as far as its
// question (args and caller are what its programs may read; nil before the
// arguments are known). A result ends the call: the client cannot be
// asked, or the question could not be made.
func (t *Tool) joinSample(ctx context.Context, rnd *round, args, caller map[string]any) *Result {
	sctx := context.WithValue(ctx, sampleToolKey{}, t)
	if caller != nil {
		sctx = context.WithValue(sctx, programVarsKey{}, &programVars{caller: caller})
	}
	if _, err := t.spec.Action.Run(sctx, args); err != nil {
		var ask *askError
		if !errors.As(err, &ask) {
			if r := t.inputResult(sctx, err); r != nil {
				return r
			}
			return refused(timedOut(ctx), t.actionError(ctx, err))
		}
		rnd.ask(ask.q, 0)
	}
	return nil
}

// call runs the tool, and returns with its result the call's redaction,
// worked out as soon as its arguments are read.
func (t *Tool) call(ctx context.Context, raw json.RawMessage) (res *Result, sec callSecrets) {
	var rnd *round
	if t.states != nil {
		// A tool that asks: its round, resumed from the request state.
		var stop *Result
		if rnd, stop = t.resume(ctx, raw); stop != nil {
			return stop, callSecrets{redact: t.scope.redact}
		}
		ctx = context.WithValue(ctx, roundKey{}, rnd)
		argsAsked := false
		if t.askable != nil {
			if raw, stop, argsAsked = t.askArguments(ctx, rnd, raw); stop != nil {
				return stop, callSecrets{redact: t.scope.redact}
			}
		}
		if t.spec.Roots != nil {
			if stop, _ = t.askRoots(ctx, rnd); stop != nil {
				return stop, callSecrets{redact: t.scope.redact}
			}
		}
		if argsAsked {
			// The rest reads the arguments, but a confirmation whose
			// message reads none is asked with them, in the same round;
			// its answer, when it comes first, waits in the state.
			if t.confirmEarly {
				if stop, _, _ = t.confirmAnswer(ctx, rnd, nil, t.scope.redact); stop != nil {
					return stop, callSecrets{redact: t.scope.redact}
				}
			}
			// So is a sample that reads nothing the call has yet, in a
			// tool that asks no consent.
			if t.sampleFirst {
				if stop := t.joinSample(ctx, rnd, nil, nil); stop != nil {
					return stop, callSecrets{redact: t.scope.redact}
				}
			}
			return t.asked(ctx, rnd), callSecrets{redact: t.scope.redact}
		}
	}
	args, msg := t.arguments(raw)
	if msg != "" {
		// The arguments are refused, but their sensitive values are still
		// redacted from the message, should it hold one (a property name).
		var sent map[string]any
		_ = json.Unmarshal(raw, &sent)
		sec = t.secretsOf(ctx, sent)
		if t.trace != nil {
			t.traceRefused(raw, msg, sec.redact)
		}
		return refused(OutcomeInvalid, msg), sec
	}
	sec = t.secretsOf(ctx, args)
	if t.trace != nil {
		t.traceArguments(args, sec.redact)
	}
	// What the action quotes in its errors (see text.Excerpt) is redacted whole
	// before it is cut.
	scope := t.scope
	if len(sec.values) > 0 {
		scope = &callScope{maxResultBytes: t.spec.MaxResultBytes, redact: sec.redact, keepControls: t.spec.NoSanitize}
	}
	ctx = withCallScope(ctx, scope)
	var caller, confirmed map[string]any
	var roots []any
	if t.spec.ReadsCaller {
		caller = CallerFrom(ctx).Value()
	}
	if t.spec.Roots != nil {
		if ans, ok := rnd.answers[t.spec.Roots.Key]; ok {
			// Known before the confirmation is asked: a path outside
			// them is refused first.
			got := cleanRoots(ans.Roots)
			if stop := t.checkRoots(args, got, sec.redact); stop != nil {
				return stop, sec
			}
			roots = rootsValue(got)
		}
	}
	if t.spec.Confirm != nil {
		if caller != nil {
			ctx = context.WithValue(ctx, programVarsKey{}, &programVars{caller: caller})
		}
		var stop *Result
		if stop, confirmed, _ = t.confirmAnswer(ctx, rnd, args, sec.redact); stop != nil {
			return stop, sec
		}
		defer func() {
			if res.Confirmation == ConfirmNone {
				res.Confirmation = ConfirmAccepted
				if askingFrom(ctx) == nil || !askingFrom(ctx).Able {
					res.Confirmation = ConfirmUnasked
				}
			}
		}()
	}
	if rnd != nil && len(rnd.pending) > 0 {
		if t.sampleEarly {
			if stop := t.joinSample(ctx, rnd, args, caller); stop != nil {
				return stop, sec
			}
		}
		return t.asked(ctx, rnd), sec
	}
	if caller != nil || confirmed != nil || roots != nil {
		ctx = context.WithValue(ctx, programVarsKey{}, &programVars{caller: caller, confirm: confirmed, roots: roots})
	}

	if len(t.spec.Logs) > 0 && Logging(ctx) {
		t.sendLogs(ctx, args, caller)
	}
	var resp *Response
	if t.spec.Action != nil {
		if t.slots != nil {
			select {
			case t.slots <- struct{}{}:
				defer func() { <-t.slots }()
			case <-ctx.Done():
				return refused(timedOut(ctx), t.busyError(ctx)), sec
			}
		}
		var err error
		began := traceNow(t.trace)
		if t.samples {
			ctx = context.WithValue(ctx, sampleToolKey{}, t)
		}
		if t.heartbeat {
			stop := heartbeat(ctx, t.settings.ProgressHeartbeat)
			resp, err = t.spec.Action.Run(ctx, args)
			stop()
		} else {
			resp, err = t.spec.Action.Run(ctx, args)
		}
		t.traceAction(began, resp, err)
		if err != nil {
			if t.samples {
				if r := t.inputResult(ctx, err); r != nil {
					return r, sec
				}
			}
			return refused(timedOut(ctx), t.actionError(ctx, err)), sec
		}
	}
	if resp == nil {
		resp = &Response{}
	}
	env := resp.Vars
	if env == nil {
		env = make(map[string]any, 1)
	}
	env["args"] = args
	if caller != nil {
		env["caller"] = caller
	}
	if confirmed != nil {
		env["confirm"] = confirmed
	}
	if roots != nil {
		env["roots"] = roots
	}

	if failed, msg := t.failed(resp, env); failed {
		return errorResult(msg), sec
	}

	res = &Result{}
	if len(t.spec.Outputs) > 0 {
		structured, msg := t.outputs(env)
		if msg != "" {
			return errorResult(msg), sec
		}
		res.Structured = structured
	}
	if len(t.spec.Content) > 0 {
		for i := range t.spec.Content {
			c, ok, err := t.spec.Content[i].build(env, !t.spec.NoSanitize)
			if err != nil {
				return errorResult(err.Error()), sec
			}
			if ok {
				res.Content = append(res.Content, c)
			}
		}
		return res, sec
	}
	text, ok, err := t.text(env, res.Structured)
	if err != nil {
		return errorResult(err.Error()), sec
	}
	if ok {
		res.Content = append(res.Content, Content{Type: TextContent, Text: text})
		for _, c := range resp.Content {
			if c.Type != TextContent {
				res.Content = append(res.Content, c)
			}
		}
	} else {
		res.Content = resp.Content
		if resp.Text != nil {
			res.Content = append([]Content{{Type: TextContent, Text: resp.Text()}}, resp.Content...)
		}
	}
	if len(res.Content) == 0 {
		res.Content = []Content{{Type: TextContent, Text: ""}}
	}
	return res, sec
}

// arguments decodes, validates and completes a call's arguments. A non-empty
// message is the tool error to return.
func (t *Tool) arguments(raw json.RawMessage) (map[string]any, string) {
	if max := t.settings.MaxArgumentBytes; max > 0 && int64(len(raw)) > max {
		return nil, fmt.Sprintf("invalid arguments: they take %d bytes, more than the limit of %d bytes", len(raw), max)
	}
	if jsonDepth(raw, DepthLimit) > DepthLimit {
		return nil, fmt.Sprintf("invalid arguments: they nest arrays and objects more than %d deep", DepthLimit)
	}
	var value any
	// No arguments, null and {} are all an empty object.
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) && !bytes.Equal(trimmed, []byte("{}")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&value); err != nil {
			return nil, "invalid arguments: they are not valid JSON: " + err.Error()
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, "invalid arguments: there is more than one JSON value"
		}
	}
	if value == nil {
		value = map[string]any{}
	}
	args, ok := value.(map[string]any)
	if !ok {
		return nil, "invalid arguments: they must be a JSON object of argument names to values"
	}
	if vs := t.input.Validate(args); len(vs) > 0 {
		// Numbers and booleans sent as strings are taken for what they
		// write, and the arguments checked again: only arguments that
		// fail pay for it.
		if t.settings.ExactArguments {
			return nil, "invalid arguments:\n" + schema.FormatViolations(vs)
		}
		if _, changed := t.input.CoerceStrings(args); changed {
			vs = t.input.Validate(args)
		}
		if len(vs) > 0 {
			return nil, "invalid arguments:\n" + schema.FormatViolations(vs)
		}
	}
	args = schema.ApplyDefaults(args, t.spec.Args)
	for _, a := range t.spec.Args {
		if v, ok := args[a.Name]; ok && a.Type != nil {
			args[a.Name] = schema.Coerce(v, a.Type)
		}
	}
	return args, ""
}

// timedOut is the outcome of a call that failed with ctx as it is:
// timeout when its deadline passed, else a tool error.
func timedOut(ctx context.Context) Outcome {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return OutcomeTimeout
	}
	return OutcomeToolError
}

// actionError words an action's error for the client.
func (t *Tool) actionError(ctx context.Context, err error) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("the call timed out after %s: %v", roundDuration(t.callTime(ctx)), err)
	case errors.Is(ctx.Err(), context.Canceled):
		return "the call was cancelled"
	}
	return err.Error()
}

// busyError words a call that gave up waiting for a free slot.
func (t *Tool) busyError(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.Canceled) {
		return "the call was cancelled while waiting for a free slot"
	}
	return fmt.Sprintf("the tool is busy: %d calls of it are already running (max_concurrency), and none finished within the call's timeout of %s; try again later",
		t.spec.MaxConcurrency, roundDuration(t.callTime(ctx)))
}

// roundDuration rounds d for messages: to the millisecond under a minute,
// else to the second.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Minute {
		return max(d.Round(time.Millisecond), 0)
	}
	return d.Round(time.Second)
}

// mergeHints fills the annotations the configuration left unset with the
// action's hints.
func mergeHints(a *Annotations, h Annotations) *Annotations {
	out := Annotations{}
	if a != nil {
		out = *a
	}
	out = Annotations{cmp.Or(out.ReadOnlyHint, h.ReadOnlyHint), cmp.Or(out.DestructiveHint, h.DestructiveHint),
		cmp.Or(out.IdempotentHint, h.IdempotentHint), cmp.Or(out.OpenWorldHint, h.OpenWorldHint)}
	if out == (Annotations{}) {
		return nil
	}
	return &out
}

// failed decides whether the call is a tool error, and with which message.
func (t *Tool) failed(resp *Response, env map[string]any) (bool, string) {
	failed := resp.Failure != ""
	if t.spec.ErrorIf != nil {
		v, err := t.spec.ErrorIf.Eval(env)
		if err != nil {
			return true, err.Error()
		}
		b, ok := v.(bool)
		if !ok {
			return true, fmt.Sprintf("error_if must yield true or false, but it yielded %s", mapping.Describe(v))
		}
		failed = b
	}
	if !failed {
		return false, ""
	}
	// The message is error_message's, else the action's, else one of
	// ours: never blank, since a client shows it as the whole error.
	if t.spec.ErrorMsg != nil {
		v, err := t.spec.ErrorMsg.Eval(env)
		if err != nil {
			return true, err.Error()
		}
		s, ok := v.(string)
		if !ok {
			s = jsonText(text.SanitizeValue(v)) // errors are always cleaned
		}
		if strings.TrimSpace(s) != "" {
			return true, s
		}
	}
	if strings.TrimSpace(resp.Failure) != "" {
		return true, resp.Failure
	}
	if t.spec.ErrorIf != nil {
		return true, "the call failed: error_if matched"
	}
	return true, "the call failed, and the action gave no reason"
}

// outputs computes and validates the structured content.
func (t *Tool) outputs(env map[string]any) (map[string]any, string) {
	out := make(map[string]any, len(t.spec.Outputs))
	for _, o := range t.spec.Outputs {
		v, err := o.Value.Eval(env)
		if err != nil {
			return nil, err.Error()
		}
		if v == nil && o.Optional {
			continue
		}
		if !t.spec.NoSanitize {
			// Cleaned before validation, so that what is validated is
			// what the client gets, and before the default text is
			// written from it.
			v = text.SanitizeValue(v)
		}
		out[o.Name] = v
	}
	began := traceNow(t.trace)
	vs := t.output.Validate(out)
	t.traceValidation(began, vs)
	if len(vs) > 0 {
		return nil, "the result does not match the tool's outputSchema; this is a mistake in the tool's configuration or a change in its upstream:\n" + schema.FormatViolations(vs)
	}
	return out, ""
}

// text computes the text block: the tool's text program, else the JSON of
// the structured content. ok is false when neither applies.
func (t *Tool) text(env map[string]any, structured map[string]any) (string, bool, error) {
	if t.spec.Text != nil {
		v, err := t.spec.Text.Eval(env)
		if err != nil {
			return "", false, err
		}
		if s, ok := v.(string); ok {
			return s, true, nil
		}
		if !t.spec.NoSanitize {
			v = text.SanitizeValue(v) // cleaned before escapes hide its controls
		}
		return jsonText(v), true, nil
	}
	if structured != nil {
		return jsonText(structured), true, nil
	}
	return "", false, nil
}

// jsonText is v as compact JSON, for text blocks.
func jsonText(v any) string { return jsonenc.Text(v) }

// finish makes a result fit to leave the server: its strings without
// terminal control sequences (the structured content was cleaned by
// outputs), cut to max_result_bytes, and with the configuration's secrets
// and the call's sensitive argument values redacted.
func (t *Tool) finish(res *Result, sec callSecrets) *Result {
	redact := sec.redact
	clean := res.IsError || !t.spec.NoSanitize
	for i := range res.Content {
		c := &res.Content[i]
		if clean {
			c.apply(text.SanitizeString)
		}
		c.apply(redact)
	}
	if res.Structured != nil && sec.active(t.redactor) {
		res.Structured = text.RedactValue(res.Structured, redact).(map[string]any)
	}
	return capResult(res, t.spec.MaxResultBytes, approxJSONSize(res.Structured))
}

// redactFunc returns what redacts a text: the configuration's secrets and
// secrets, the sensitive values of one call, in every form [text.SecretForms]
// lists.
func (t *Tool) redactFunc(secrets []string) func(string) string {
	if len(secrets) == 0 {
		return t.redactor.Redact
	}
	// One replacer for all, so that a secret holding another, whichever
	// is known where, is hidden whole.
	forms := t.redactor.Recorded()
	for _, v := range secrets {
		for _, f := range text.SecretForms(v) {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	// Longest first, so that a form holding another is hidden whole.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, text.Mask)
	}
	rep := strings.NewReplacer(pairs...)
	return rep.Replace
}

// AuditArguments are the arguments a client sent, raw JSON, as an audit
// log may show them: each sensitive one as [text.Mask], the configuration's
// secrets and the call's sensitive values redacted from the others, and a
// short phrase when they are not a JSON object.
func (t *Tool) AuditArguments(raw json.RawMessage) any {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return map[string]any{}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return "(not a JSON object)"
	}
	redact := t.redactFunc(t.sensitiveValues(args))
	for name, v := range args {
		if t.IsSensitive(name) {
			args[name] = text.Mask
			continue
		}
		args[name] = text.RedactValue(v, redact)
	}
	return args
}

// sensitiveValues returns the strings in the values of the call's sensitive
// arguments that are long enough to be worth redacting.
func (t *Tool) sensitiveValues(args map[string]any) []string {
	if len(t.sensitive) == 0 || args == nil {
		return nil
	}
	var out []string
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) >= text.MinSecretLen && !slices.Contains(out, v) {
				out = append(out, v)
			}
		case []any:
			for _, e := range v {
				collect(e)
			}
		case map[string]any:
			for _, e := range v {
				collect(e)
			}
		case json.Number:
			collect(string(v))
		case float64:
			collect(strconv.FormatFloat(v, 'f', -1, 64))
		case int:
			collect(strconv.Itoa(v))
		case int64:
			collect(strconv.FormatInt(v, 10))
		}
	}
	for _, name := range t.sensitive {
		collect(args[name])
	}
	// Longest first, so that a value holding another is hidden whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// approxJSONSize estimates the size of v as JSON, without encoding it.
func approxJSONSize(v any) int64 {
	switch v := v.(type) {
	case nil:
		return 4
	case string:
		return int64(len(v)) + 2
	case bool:
		return 5
	case []any:
		n := int64(2)
		for _, e := range v {
			n += approxJSONSize(e) + 1
		}
		return n
	case map[string]any:
		if v == nil {
			return 0
		}
		n := int64(2)
		for k, e := range v {
			n += int64(len(k)) + 4 + approxJSONSize(e)
		}
		return n
	}
	return 8
}
