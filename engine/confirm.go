package engine

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Confirm is a tool's confirm block: the person behind the client consents
// before the action runs, and may fill in a form of a few fields whose
// answers the tool's programs read as confirm.<field>.
type Confirm struct {
	// Key names the question in the input requests of 2026-07-28
	// ("confirm" by default): the client answers under it.
	Key string
	// Message is the question, computed from the arguments.
	Message mapping.Value
	// Fields are the form's fields, possibly none: primitive types, enums,
	// defaults (see [FormSchema]).
	Fields []schema.Arg
	// Titles are the fields' titles, by name, for the form.
	Titles map[string]string
	// RunWithout runs the tool without asking when the client cannot be
	// asked (without_elicitation = "run"); otherwise such a call is
	// refused.
	RunWithout bool
	// TTL is how long the person may take to answer; 0: [DefaultConfirmTTL].
	TTL time.Duration
}

// DefaultConfirmTTL is how long an answer to a confirmation is accepted
// after the question was asked.
const DefaultConfirmTTL = 10 * time.Minute

// The actions of an answer, as elicitation names them.
const (
	AnswerAccept  = "accept"
	AnswerDecline = "decline"
	AnswerCancel  = "cancel"
)

// Decision is what a tool that asks decided, which the audit log records.
type Decision uint8

// The decisions.
const (
	ConfirmNone      Decision = iota // the tool asks nothing
	ConfirmAsked                     // the call asked, and returned
	ConfirmAccepted                  // the person consented or answered: the action ran
	ConfirmDeclined                  // nothing ran
	ConfirmCancelled                 // dismissed: nothing ran
	ConfirmRefused                   // the client cannot be asked, or its answer or state was refused: nothing ran
	ConfirmUnasked                   // the client cannot be asked, and without_elicitation = "run": the action ran
	SamplingRefused                  // the client cannot be asked for its model's answer (sampling): nothing ran
	RootsRefused                     // the client cannot be asked for its roots: nothing ran
)

// String is the decision as the audit log writes it: "accepted"; "" for
// ConfirmNone, SamplingRefused and RootsRefused (no confirmation: the
// error says why).
func (d Decision) String() string {
	return [...]string{"", "asked", "accepted", "declined", "cancelled", "refused", "unasked", "", ""}[d]
}

// Question is one thing a call asks before its action runs. The server
// sends the questions of a round as the input requests of an
// input_required result (2026-07-28), which a session of an earlier
// revision turns into elicitation/create, sampling/createMessage and
// roots/list; the client calls again with the answers, each under its
// Key, and the round's signed request state ([Round.State]).
type Question struct {
	Key     string
	Message string
	// Schema is the form, as elicitation's requestedSchema.
	Schema map[string]any
	// Sample, when not nil, makes the question one to the client's model
	// (sampling/createMessage) instead of a form: Message and Schema are
	// then empty.
	Sample *SampleRequest
	// Roots makes the question roots/list: the client's roots.
	Roots bool
}

// Round is what a call asks in one round: its questions, and the signed
// request state the client echoes with the answers.
type Round struct {
	Questions []*Question
	State     string
}

// Root is one of the client's roots: a file:// URI, and a name for
// people.
type Root struct {
	URI  string `json:"u"`
	Name string `json:"n,omitempty"`
}

// Answer is a client's answer to a [Question].
type Answer struct {
	Action  string         // AnswerAccept, AnswerDecline or AnswerCancel
	Content map[string]any // the form's values, with AnswerAccept
	// Sample is the model's answer to a question with a Sample, and
	// Action is then empty.
	Sample *SampleAnswer
	// Roots are the client's roots, the answer to a question of Roots
	// (IsRoots is then set, for an answer of none).
	Roots   []Root
	IsRoots bool
}

// Asking is what the client of a call can be asked, and what it answered:
// the server sets it (see [WithAsking]) for the calls of a tool with a
// confirm block, and only for those.
type Asking struct {
	// Able is true when the client can be asked: it declared elicitation,
	// and the transport carries the question to it.
	Able bool
	// Why says why it cannot, for the refusal: "the client did not declare
	// the elicitation capability".
	Why string
	// Undeclared is set when the client could be asked, had it declared
	// the capability: the server answers the refusal with the protocol
	// error that says so.
	Undeclared bool
	// Answers are the client's answers to the previous round's questions,
	// by key, and State the request state it echoed; both empty on a first
	// call.
	Answers map[string]Answer
	State   string
	// Sampling is true when the client can be asked for its model's
	// answer (sampling/createMessage); SamplingWhy says why it cannot, and
	// SamplingUndeclared is set when it could, had it declared the
	// capability (as Undeclared for elicitation).
	Sampling           bool
	SamplingWhy        string
	SamplingUndeclared bool
	// Roots is true when the client can be asked for its roots
	// (roots/list); RootsWhy and RootsUndeclared as for sampling.
	Roots           bool
	RootsWhy        string
	RootsUndeclared bool
}

type askingKey struct{}

// WithAsking returns ctx carrying a, for a call of a tool that asks (see
// [Tool.Confirms]).
func WithAsking(ctx context.Context, a *Asking) context.Context {
	return context.WithValue(ctx, askingKey{}, a)
}

func askingFrom(ctx context.Context) *Asking {
	a, _ := ctx.Value(askingKey{}).(*Asking)
	return a
}

// StateError is a request state refused: forged, tampered with, expired,
// replayed, or another call's. The server answers it with a protocol error
// (invalid params), as 2026-07-28 says.
type StateError struct{ Reason string }

func (e *StateError) Error() string {
	return "the request state is refused: " + e.Reason + "; call the tool again without requestState and inputResponses to be asked again"
}

// confirmAnswer is what the confirmation decided: res, when not nil, ends
// the call (a decline, a refusal); asked, that its question was added to
// the round (r), whose other questions may join it; else the action runs,
// and its programs read values as confirm.
func (t *Tool) confirmAnswer(ctx context.Context, r *round, args map[string]any, redact func(string) string) (res *Result, values map[string]any, asked bool) {
	c := t.spec.Confirm
	a := askingFrom(ctx)
	if a == nil || !a.Able {
		why := "it cannot be asked"
		if a != nil && a.Why != "" {
			why = a.Why
		}
		if c.RunWithout {
			return nil, t.formDefaults(), false
		}
		res := errorResult(fmt.Sprintf("the tool %s asks the person for confirmation before it runs, and %s, so nothing was done; use a client that supports elicitation (form mode)", t.spec.Name, why))
		res.Confirmation = ConfirmRefused
		return res, nil, false
	}
	ans, answered := r.answers[c.Key]
	if !answered {
		// A first call, or answers to other questions: ask.
		q, res := t.question(ctx, args, redact)
		if res != nil {
			return res, nil, false
		}
		r.ask(q, c.TTL)
		return nil, nil, true
	}
	switch ans.Action {
	case AnswerAccept:
		content := ans.Content
		if content == nil {
			content = map[string]any{}
		}
		if vs := t.form.Validate(content); len(vs) > 0 {
			res := refused(OutcomeInvalid, "the answer to the confirmation does not fit its form, so nothing was done:\n"+schema.FormatViolations(vs))
			res.Confirmation = ConfirmRefused
			return res, nil, false
		}
		values = schema.ApplyDefaults(content, c.Fields)
		for _, f := range c.Fields {
			if v, ok := values[f.Name]; ok && f.Type != nil {
				values[f.Name] = schema.Coerce(v, f.Type)
			}
		}
		return nil, values, false
	case AnswerDecline:
		res := refused(OutcomeDeclined, "The person declined, so nothing was done.")
		res.Confirmation = ConfirmDeclined
		return res, nil, false
	case AnswerCancel:
		res := refused(OutcomeDeclined, "The person dismissed the confirmation without answering, so nothing was done.")
		res.Confirmation = ConfirmCancelled
		return res, nil, false
	}
	res = refused(OutcomeInvalid, fmt.Sprintf("the answer to the confirmation has the action %q, not accept, decline or cancel, so nothing was done", text.SanitizeString(ans.Action)))
	res.Confirmation = ConfirmRefused
	return res, nil, false
}

// question is the confirmation's question for args; res, when not nil,
// is the call's error (its message failed).
func (t *Tool) question(ctx context.Context, args map[string]any, redact func(string) string) (*Question, *Result) {
	c := t.spec.Confirm
	env := map[string]any{"args": args}
	if caller := CallerValue(ctx); caller != nil {
		env["caller"] = caller
	}
	v, err := c.Message.Eval(env)
	if err != nil {
		return nil, errorResult("the confirmation's message failed: " + err.Error())
	}
	msg, ok := v.(string)
	if !ok {
		msg = jsonText(v)
	}
	return &Question{Key: c.Key, Message: redact(text.SanitizeString(msg)), Schema: t.formSchema}, nil
}

// formDefaults are the form's defaults, which a call that ran without
// asking reads as confirm.
func (t *Tool) formDefaults() map[string]any {
	return schema.ApplyDefaults(map[string]any{}, t.spec.Confirm.Fields)
}

// Confirms reports whether the tool asks for confirmation before it runs.
func (t *Tool) Confirms() bool { return t.spec.Confirm != nil }

// FormSchema is the requestedSchema of elicitation for fields: an object
// of primitive properties (string, number, integer, boolean, an enum; a
// field's Form when it has one: a titled or multiple choice), each with
// only the keys elicitation allows, and the fields without default and
// not optional required.
func FormSchema(fields []schema.Arg, titles map[string]string) map[string]any {
	props := make(map[string]any, len(fields))
	var required []any
	for _, f := range fields {
		p := f.Type.JSONSchema()
		if f.Form != nil {
			// A titled or multiple choice, as elicitation has them.
			p = maps.Clone(f.Form)
		}
		if titles[f.Name] != "" {
			p["title"] = titles[f.Name]
		}
		if f.Description != "" {
			p["description"] = f.Description
		}
		if f.HasDefault {
			p["default"] = f.Default
		}
		if len(f.Enum) > 0 && f.Form == nil {
			p["enum"] = f.Enum
		}
		if f.MinLength != nil {
			p["minLength"] = *f.MinLength
		}
		if f.MaxLength != nil {
			p["maxLength"] = *f.MaxLength
		}
		if f.Minimum != nil {
			p["minimum"] = *f.Minimum
		}
		if f.Maximum != nil {
			p["maximum"] = *f.Maximum
		}
		if f.Format != "" {
			p["format"] = f.Format
		}
		props[f.Name] = p
		if !f.HasDefault && !f.Optional {
			required = append(required, f.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// stateSigner signs and checks the request states of a tool's questions:
// an HMAC-SHA256 over the tool, a hash of the arguments and of the caller,
// an expiry and a nonce, so that any replica with the key resumes the
// call, and a state forged, tampered with, expired, replayed, or made for
// other arguments or another caller is refused.
type stateSigner struct {
	keys [][]byte // the first signs; each verifies (a key being rotated)
	used *usedNonces
	// shared, when not nil, remembers the answered states in place of
	// used: those of every replica.
	shared StateStore
	now    func() time.Time
}

// maxStateBytes caps the request state a client may send back: it
// carries the answers of the earlier rounds of a call (see [round]).
const maxStateBytes = 16 << 10 // well within the 64 KiB a request's envelope may add to its arguments

// stateClaims is what a request state says.
type stateClaims struct {
	Tool    string `json:"t"`
	Args    string `json:"a"` // base64 of the SHA-256 of the arguments as JSON
	Caller  string `json:"c"` // base64 of the SHA-256 of the caller's ID
	Expires int64  `json:"e"` // Unix seconds
	Nonce   string `json:"n"`
	// Asked are the keys of the questions of the round: the answers
	// taken with the state.
	Asked []string `json:"k,omitempty"`
	// Prior are the answers of the earlier rounds, which the next rounds
	// read: carried by the state, so that any replica resumes the call.
	Prior map[string]priorAnswer `json:"p,omitempty"`
}

// priorAnswer is an [Answer] carried by a request state.
type priorAnswer struct {
	Action  string         `json:"a,omitempty"`
	Content map[string]any `json:"v,omitempty"`
	Roots   []Root         `json:"r,omitempty"`
	IsRoots bool           `json:"R,omitempty"`
}

// processKey signs the request states of a configuration that names no
// key: valid in this process alone.
var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
})

// newStateSigner returns the signer of a tool's request states: signed
// with the first of keys (with processKey when there are none), checked
// against each, and remembered as answered in shared when it is not nil.
func newStateSigner(keys [][]byte, shared StateStore) *stateSigner {
	if len(keys) == 0 {
		keys = [][]byte{processKey()}
	}
	return &stateSigner{keys: keys, used: &usedNonces{at: map[string]int64{}}, shared: shared, now: time.Now}
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func argsDigest(args map[string]any) (string, error) {
	b, err := jsonenc.Append(nil, args)
	if err != nil {
		return "", fmt.Errorf("the arguments cannot be written as JSON: %w", err)
	}
	return digest(b), nil
}

// sign makes the request state of a round that asks asked, bound to the
// tool, the arguments as sent and the caller, good for ttl, carrying
// prior; a model's answers are not carried (a sample is the action, which
// no round follows).
func (s *stateSigner) sign(ctx context.Context, tool string, sent map[string]any, ttl time.Duration, asked []string, prior map[string]Answer) (string, error) {
	if ttl <= 0 {
		ttl = DefaultConfirmTTL
	}
	a, err := argsDigest(sent)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	c := stateClaims{Tool: tool, Args: a, Caller: digest([]byte(CallerFrom(ctx).ID)),
		Expires: s.now().Add(ttl).Unix(), Nonce: base64.RawURLEncoding.EncodeToString(nonce), Asked: asked}
	for k, ans := range prior {
		if ans.Sample != nil {
			continue
		}
		if c.Prior == nil {
			c.Prior = map[string]priorAnswer{}
		}
		c.Prior[k] = priorAnswer{Action: ans.Action, Content: ans.Content, Roots: ans.Roots, IsRoots: ans.IsRoots}
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.keys[0])
	mac.Write(payload)
	state := base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	if len(state) > maxStateBytes {
		return "", fmt.Errorf("the answers given so far are too large to carry to the next question (%d bytes of request state, the most is %d), so nothing was done", len(state), maxStateBytes)
	}
	return state, nil
}

// verify checks a request state and takes it (once); it returns what it
// says.
func (s *stateSigner) verify(ctx context.Context, state, tool string, sent map[string]any) (*stateClaims, *StateError) {
	if len(state) > maxStateBytes {
		return nil, &StateError{Reason: fmt.Sprintf("it is longer than %d bytes", maxStateBytes)}
	}
	p64, m64, ok := strings.Cut(state, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(p64)
	sum, err2 := base64.RawURLEncoding.DecodeString(m64)
	if !ok || err1 != nil || err2 != nil {
		return nil, &StateError{Reason: "it is not one this server made"}
	}
	signed := false
	for _, k := range s.keys {
		mac := hmac.New(sha256.New, k)
		mac.Write(payload)
		if hmac.Equal(mac.Sum(nil), sum) {
			signed = true
			break
		}
	}
	if !signed {
		return nil, &StateError{Reason: "its signature does not match (it was changed, or signed with a key this server does not hold)"}
	}
	var c stateClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, &StateError{Reason: "it is not one this server made"}
	}
	now := s.now().Unix()
	switch a, _ := argsDigest(sent); {
	case c.Tool != tool:
		return nil, &StateError{Reason: "it was made for another tool"}
	case c.Args != a:
		return nil, &StateError{Reason: "it was made for other arguments"}
	case c.Caller != digest([]byte(CallerFrom(ctx).ID)):
		return nil, &StateError{Reason: "it was made for another caller"}
	case now > c.Expires:
		return nil, &StateError{Reason: "it expired"}
	}
	if s.shared != nil {
		fresh, err := s.shared.Answer(ctx, c.Nonce, time.Unix(c.Expires, 0))
		switch {
		case err != nil:
			return nil, &StateError{Reason: "whether it was answered already cannot be checked (" + err.Error() + "), so it is not taken; try again"}
		case !fresh:
			return nil, &StateError{Reason: "it was answered already (a state is good for one answer)"}
		}
		return &c, nil
	}
	if err := s.used.use(c.Nonce, c.Expires, now); err != nil {
		return nil, err
	}
	return &c, nil
}

// A StateStore remembers the request states already answered, until they
// expire, so that each is answered once: by the replicas that share it.
type StateStore interface {
	// Answer records nonce until expires; fresh is false when it was
	// recorded already. An error refuses the answer.
	Answer(ctx context.Context, nonce string, expires time.Time) (fresh bool, err error)
}

// usedNonces are the nonces of the request states already answered, kept
// until they expire, so that a state is answered once (by this process).
type usedNonces struct {
	mu sync.Mutex
	at map[string]int64 // nonce: expiry
}

// maxUsedNonces bounds the nonces kept; past it, the expired ones go.
const maxUsedNonces = 100_000

// use records nonce; the error says why a state cannot be answered.
func (u *usedNonces) use(nonce string, expires, now int64) *StateError {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, seen := u.at[nonce]; seen {
		return &StateError{Reason: "it was answered already (a state is good for one answer)"}
	}
	if len(u.at) >= maxUsedNonces {
		for n, e := range u.at {
			if e < now {
				delete(u.at, n)
			}
		}
		if len(u.at) >= maxUsedNonces {
			return &StateError{Reason: fmt.Sprintf("%d confirmations are under way, the most this server keeps; try again in a few minutes", maxUsedNonces)}
		}
	}
	u.at[nonce] = expires
	return nil
}

// ArgumentsKey names the question for missing arguments in the input
// requests of 2026-07-28: the client answers under it.
const ArgumentsKey = "arguments"

// Asks reports whether a call of the tool may ask the person behind the
// client: for consent, or for an argument it lacks.
func (t *Tool) Asks() bool { return t.states != nil }

// askArguments asks for the arguments with a question (ask) that the call
// lacks, when its client can be asked, and puts the answers in raw; asked
// is set when the question was added to the round, and stop, when not
// nil, ends the call (a decline). A client that cannot be asked goes on
// without them: the arguments' validation says what is missing.
func (t *Tool) askArguments(ctx context.Context, r *round, raw json.RawMessage) (_ json.RawMessage, stop *Result, asked bool) {
	a := askingFrom(ctx)
	if a == nil || !a.Able {
		return raw, nil, false
	}
	sent := r.sentArgs()
	var missing []schema.Arg
	for _, arg := range t.askable {
		if v, ok := sent[arg.Name]; !ok || v == nil {
			missing = append(missing, arg)
		}
	}
	if len(missing) == 0 {
		return raw, nil, false
	}
	ans, answered := r.answers[ArgumentsKey]
	if !answered {
		questions := make([]string, len(missing))
		for i, arg := range missing {
			questions[i] = arg.Ask
		}
		r.ask(&Question{Key: ArgumentsKey, Message: t.redactor.Redact(strings.Join(questions, "\n")), Schema: FormSchema(missing, nil)}, 0)
		return raw, nil, true
	}
	switch ans.Action {
	case AnswerAccept:
	case AnswerDecline, AnswerCancel:
		names := make([]string, len(missing))
		for i, arg := range missing {
			names[i] = arg.Name
		}
		res := refused(OutcomeDeclined, fmt.Sprintf("The person gave no %s, so nothing was done.", strings.Join(names, ", ")))
		res.Confirmation = ConfirmDeclined
		if ans.Action == AnswerCancel {
			res.Confirmation = ConfirmCancelled
		}
		return raw, res, false
	default:
		res := refused(OutcomeInvalid, fmt.Sprintf("the answer has the action %q, not accept, decline or cancel, so nothing was done", text.SanitizeString(ans.Action)))
		res.Confirmation = ConfirmRefused
		return raw, res, false
	}
	// Only what was asked is taken; the arguments are then validated as
	// any call's.
	with := maps.Clone(sent)
	for _, arg := range missing {
		if v, ok := ans.Content[arg.Name]; ok {
			with[arg.Name] = v
		}
	}
	b, err := json.Marshal(with)
	if err != nil {
		return raw, errorResult("the answered arguments cannot be written as JSON: " + err.Error()), false
	}
	return b, nil, false
}
