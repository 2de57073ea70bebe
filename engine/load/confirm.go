package load

import (
	"maps"
	"slices"
	"time"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/requeststate"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// confirmFieldSpec is a field of a confirmation's form. It is decoded as
// an arg block is, and holds what elicitation's forms allow.
var confirmFieldSpec = &spec.Block{
	Name:    "field",
	In:      "confirm",
	Labels:  []string{"name"},
	Summary: "One field of the confirmation's form: the action's programs read the answer as confirm.<name>.",
	Doc: "A form holds flat fields of the types elicitation allows: string, number, integer, bool; an enum makes a choice, " +
		"with enum_titles a titled one (the form shows the titles, the answer is the value), and a list(string) with an enum a multiple choice. " +
		"A field without a default that is not optional must be answered.",
	Example: `field "reason" {
  type        = string
  title       = "Reason"
  description = "Why the order is deleted"
  enum        = ["duplicate", "fraud", "customer request"]
  enum_titles = ["Duplicate order", "Suspected fraud", "The customer asked"]
  default     = "customer request"
}`,
	Attrs: []*spec.Attr{
		spec.TypeConstraint("type", "is the field's type: string, number, integer, bool, or list(string) with an enum (a multiple choice)").DefaultIs("string").Shown().Unevaluated(),
		spec.String("title", "is the field's label in the form").Shown(),
		spec.String("description", "tells the person what to answer").Shown(),
		spec.Any("default", "is the value the form starts with; it makes the field optional").Shown(),
		spec.Bool("optional", "lets the person leave the field empty").WithDefault(false),
		spec.Any("enum", "lists the values the person chooses from").Shown(),
		spec.Int("min_length", "bounds a string's length from below").AtLeast(0).Shown(),
		spec.Int("max_length", "bounds a string's length from above").AtLeast(0).Shown(),
		spec.Any("minimum", "bounds a number from below").Shown(),
		spec.Any("maximum", "bounds a number from above").Shown(),
		spec.Enum("format", "is the format of a string", spec.Choices("email", "uri", "date", "date-time")...).Shown(),
		spec.List("enum_titles", spec.KindString, "label the enum's values in the form, one each, in the enum's order (a string or a list(string) field)").Shown(),
		spec.Enum("enum_titles_as", "says how the form carries enum_titles",
			spec.Choice{Value: "one_of", Doc: "a oneOf of const and title (anyOf in a list's items), as elicitation has them since 2025-11-25"},
			spec.Choice{Value: "enum_names", Doc: "the enumNames beside the enum that clients before 2025-11-25 read (deprecated; a string field only)"}).WithDefault("one_of"),
	},
}

// confirmSpec is the confirm block of a tool.
var confirmSpec = &spec.Block{
	Name:    "confirm",
	In:      "tool",
	Summary: "Asks the person behind the client for consent before the action runs (elicitation), or a prompt's questions before its messages are made.",
	Doc: "Over stdio, and on an HTTP session (http_sessions), the server sends elicitation/create; a client of 2026-07-28 gets an input_required result and calls again with the answer " +
		"and a request state the server signed (see the server block's request_state_keys), which any replica resumes. " +
		"A decline or a dismissal is a tool error that says so, and nothing runs. A client that cannot be asked (no elicitation capability, " +
		"or a client of an earlier revision over HTTP without the server block's http_sessions) is refused unless without_elicitation = \"run\". The audit log records the decision. " +
		"In a prompt the block asks before prompts/get gives the messages, which read the answers as confirm.<field>; a decline gives no messages (an error).",
	Example: `confirm {
  message = expr("'Delete every order of ' + caller.id + '?'")
  field "reason" {
    type = string
    enum = ["duplicate", "fraud", "customer request"]
  }
}`,
	Attrs: []*spec.Attr{
		spec.Expr("message", "is the question, from the arguments, such as expr(\"'Delete order ' + args.id + '?'\")").Mandatory().Shown(),
		spec.Enum("without_elicitation", "says what a call does when its client cannot be asked",
			spec.Choice{Value: "refuse", Doc: "a tool error that says why"}, spec.Choice{Value: "run", Doc: "runs without asking; confirm.* are the defaults"}).WithDefault("refuse"),
		spec.String("key", "names the question in a 2026-07-28 input request, under which the client answers").WithDefault("confirm"),
		spec.Duration("ttl", "is how long the person may take to answer").Range(int64(10*time.Second), int64(24*time.Hour)).WithDefault(engine.DefaultConfirmTTL),
	},
	Blocks: []spec.Nested{{Block: confirmFieldSpec}},
}

// rootsSpec is the roots block of a tool.
var rootsSpec = &spec.Block{
	Name:    "roots",
	In:      "tool",
	Summary: "Asks the client for its roots (the folders it shares, roots/list): the tool's programs read them as roots.",
	Doc: "An argument with within_roots = true asks for them as well, without this block; the block names the question, and gives the roots to programs " +
		"that need no path argument. Over stdio the server sends roots/list; a client of 2026-07-28 gets an input_required result and calls again " +
		"with its roots and the signed request state, with the other questions of the round (a confirmation). The programs read roots as a list " +
		"of { uri, name, path }, path the local path of a file:// URI (\"\" for another). A client that did not declare the roots capability is refused.",
	Example: `roots {
  key = "client_roots"
}`,
	Attrs: []*spec.Attr{
		spec.String("key", "names the question in a 2026-07-28 input request, under which the client answers").WithDefault(engine.DefaultRootsKey),
	},
}

// rootsType is the type of the roots the programs read.
var rootsType = mapping.Array(types.Map{"uri": types.String, "name": types.String, "path": types.String})

// roots decodes the roots block of a tool, if any, or makes it for the
// arguments within_roots.
func (l *loader) roots(ctx *engine.DecodeContext, blocks hcl.Blocks, args []schema.Arg) *engine.Roots {
	if len(blocks) == 0 {
		for _, a := range args {
			if a.WithinRoots {
				return &engine.Roots{Key: engine.DefaultRootsKey}
			}
		}
		return nil
	}
	v, diags := rootsSpec.Decode(blocks[0].Body, ctx)
	l.diags = append(l.diags, diags...)
	r := &engine.Roots{Key: v.String("key")}
	if v.Has("key") && !toolName.MatchString(r.Key) {
		l.error(v.Attr("key").Expr.Range(), "Invalid key", "key names the question in an input request: use 1 to 128 letters, digits, underscores, dashes and dots.")
	}
	return r
}

// requestStatesBlock decodes the request_states block, if any, and opens
// its store, which the tools that ask share.
func (l *loader) requestStatesBlock() {
	b := l.single("request_states", "Where the request states answered are remembered is already declared")
	if b == nil {
		return
	}
	store, diags := requeststate.Decode(b, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	if store != nil {
		l.settings.RequestStates = store
		l.decoded = append(l.decoded, store)
	}
}

// confirm decodes the confirm block of a tool, if any, with ctx.Env the
// environment of the message (args, caller); formType is what the
// action's and the outputs' programs see as confirm.
func (l *loader) confirm(ctx *engine.DecodeContext, blocks hcl.Blocks) (c *engine.Confirm, formType types.Map) {
	if len(blocks) == 0 {
		return nil, nil
	}
	b := blocks[0] // the tool's spec allows one

	v, diags := confirmSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	c = &engine.Confirm{Key: v.String("key"), Message: v.Program("message"), RunWithout: v.String("without_elicitation") == "run", TTL: v.Duration("ttl"), Titles: map[string]string{}}
	if v.Written("message") {
		l.public(ctx, v.Attr("message").Expr, "the message of a confirmation")
	}
	if v.Has("key") && !toolName.MatchString(c.Key) {
		l.error(v.Attr("key").Expr.Range(), "Invalid key", "key names the question in an input request: use 1 to 128 letters, digits, underscores, dashes and dots.")
	}
	formType = types.Map{}
	seen := map[string]hcl.Range{}
	for _, fb := range v.Blocks("field") {
		name := fb.Labels[0]
		if first, dup := seen[name]; dup {
			l.error(fb.LabelRanges[0], "Duplicate field", "A field named %q is already declared at %s.", name, first)
			continue
		}
		seen[name] = fb.DefRange
		if f, title, ok := l.confirmField(ctx, fb); ok {
			c.Fields = append(c.Fields, f)
			if title != "" {
				c.Titles[name] = title
			}
			formType[name] = f.Type.ExprType()
		} else {
			formType[name] = types.Any
		}
	}
	return c, formType
}

// confirmField decodes one field of a form: as an arg block, less what
// a form cannot hold.
func (l *loader) confirmField(ctx *engine.DecodeContext, b *hcl.Block) (schema.Arg, string, bool) {
	v, diags := confirmFieldSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return schema.Arg{}, "", false
	}
	// A list(string) is a multiple choice: its enum lists the items'
	// values, which an arg's enum would take for whole lists.
	list, multi := false, false
	if at := v.Attr("type"); at != nil {
		if t, _ := schema.ParseType(at.Expr); t != nil && t.Kind == schema.List {
			list, multi = true, t.Elem != nil && t.Elem.Kind == schema.String
		}
	}
	// The rest is an arg's: its type, default, enum and bounds, checked
	// alike.
	asArg := *b
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		without := *body
		without.Attributes = maps.Clone(body.Attributes)
		for _, name := range []string{"title", "enum_titles", "enum_titles_as"} {
			delete(without.Attributes, name)
		}
		if list {
			delete(without.Attributes, "enum")
		}
		asArg.Body = &without
	}
	a, _, ok := l.arg(ctx, &asArg)
	if !ok {
		return a, "", false
	}
	switch a.Type.Kind {
	case schema.String, schema.Number, schema.Integer, schema.Bool:
	case schema.List:
		if !multi || v.Attr("enum") == nil {
			l.error(v.Attr("type").Expr.Range(), "Field type not allowed in a form", "A form's list field is a multiple choice: a list(string) with an enum of the values to choose from; %s with no enum is not.", a.Type)
			return a, "", false
		}
	default:
		l.error(v.Attr("type").Expr.Range(), "Field type not allowed in a form", "A form's field is a string, a number, an integer or a bool (with enum for a choice), or a list(string) with an enum (a multiple choice); %s is none of them.", a.Type)
		return a, "", false
	}
	if !l.choiceSchema(ctx, v, &a, multi) {
		return a, "", false
	}
	return a, v.String("title"), true
}

// choiceSchema sets the form property of a's choice when it is titled or
// multiple (a.Form, and a.Schema, which validates the answers): a oneOf of const
// and title, or enumNames, for a titled string; an array of the enum's
// items, or of an anyOf of const and title, for a list(string).
func (l *loader) choiceSchema(ctx *engine.DecodeContext, v *spec.Values, a *schema.Arg, multi bool) bool {
	enum := a.Enum
	if multi {
		at := v.Attr("enum")
		list, _ := l.plain(ctx, at).([]any)
		for i, value := range list {
			if _, ok := value.(string); !ok {
				l.error(at.Expr.Range(), "Enum value does not fit the type", "The enum of a list(string) field lists the strings to choose from; element %d is not a string.", i)
				return false
			}
		}
		if len(list) == 0 {
			l.error(at.Expr.Range(), "Invalid enum", "enum must be a non-empty list of the values to choose from, such as [\"email\", \"sms\"].")
			return false
		}
		enum = list
		if d, ok := a.Default.([]any); a.HasDefault && ok {
			for _, item := range d {
				if !slices.Contains(enum, item) {
					l.error(v.Attr("default").Expr.Range(), "Default not among the choices", "The default holds %v, which the enum does not list.", item)
					return false
				}
			}
		}
	}
	titles := v.Strings("enum_titles")
	if at := v.Attr("enum_titles"); at != nil {
		switch {
		case len(enum) == 0:
			l.error(at.Expr.Range(), "Titles without an enum", "enum_titles label the values of the field's enum, and it has none: add an enum with as many values.")
			return false
		case a.Type.Kind != schema.String && !multi:
			l.error(at.Expr.Range(), "Titles of a choice that is not of strings", "Elicitation titles the values of a string's or a list(string)'s enum alone; this field is a %s.", a.Type)
			return false
		case len(titles) != len(enum):
			l.error(at.Expr.Range(), "Titles do not match the enum", "enum_titles has %d titles and the enum %d values: give one title per value, in the enum's order.", len(titles), len(enum))
			return false
		}
	}
	legacy := v.String("enum_titles_as") == "enum_names"
	if legacy && multi {
		l.error(v.Attr("enum_titles_as").Expr.Range(), "enumNames in a multiple choice", "enumNames titles the values of a string field alone; a list(string) field carries its titles as one_of.")
		return false
	}
	titled := func() []any {
		alts := make([]any, len(enum))
		for i, value := range enum {
			alts[i] = map[string]any{"const": value, "title": titles[i]}
		}
		return alts
	}
	switch {
	case multi && len(titles) > 0:
		a.Schema = map[string]any{"type": "array", "items": map[string]any{"anyOf": titled()}}
	case multi:
		a.Schema = map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": enum}}
	case len(titles) > 0 && legacy:
		names := make([]any, len(titles))
		for i, t := range titles {
			names[i] = t
		}
		a.Schema = map[string]any{"type": "string", "enum": enum, "enumNames": names}
	case len(titles) > 0:
		a.Schema = map[string]any{"type": "string", "oneOf": titled()}
	}
	if a.Schema != nil && a.Type.Unique {
		a.Schema["uniqueItems"] = true
	}
	a.Form = a.Schema
	return true
}
