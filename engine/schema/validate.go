package schema

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// base and location are where a compiled document claims to come from.
// References are resolved against them; nothing is ever loaded from them.
const (
	base     = "mcpdecl:///"
	location = base + "schema.json"
)

// Validator checks JSON values against a compiled schema. It is safe for
// concurrent use.
type Validator struct {
	// quick accepts most valid values without the full validator's
	// allocations; nil when the schema uses keywords it does not know.
	quick *quick
	// full is compiled when it is first needed if quick covers the
	// document, and at once otherwise.
	full    func() (*fullValidator, error)
	printer *message.Printer
	// hidden are the properties of the value whose violations must not
	// show anything of it: the sensitive arguments.
	hidden []string
}

// HideValues returns a validator like v whose messages show nothing of the
// values of the named top-level properties, whatever their type: for the
// sensitive arguments of a tool. v itself is left as it is.
func (v *Validator) HideValues(names ...string) *Validator {
	c := *v
	c.hidden = slices.Clone(names)
	return &c
}

// fullValidator is a document compiled by santhosh-tekuri/jsonschema, which
// decides every value and explains every violation.
type fullValidator struct {
	schema *jsonschema.Schema
	// known maps the location of each schema that lists properties and
	// allows no others to the names of those properties, for explaining
	// an unknown property.
	known map[string][]string
}

// Compile compiles a JSON Schema document, such as one built by
// InputSchema or OutputSchema, or a user's own. Documents that do not name
// their dialect with "$schema" are read as JSON Schema 2020-12. Formats
// such as "email" and "date-time" are enforced, not only noted. A document
// must be self-contained: a "$ref" may point inside it but not to another
// file or URL. The error says what is wrong with the document.
//
// Compile keeps its own copy of doc, which the caller may go on to change.
func Compile(doc map[string]any) (*Validator, error) {
	if doc == nil {
		return nil, errors.New("there is no schema")
	}
	nv, _, err := native(doc)
	if err != nil {
		var ve *valueError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("at %s: the value %v", displayPointer(ve.pointer()), ve.err)
		}
		return nil, err
	}
	own := clone(nv)
	v := &Validator{quick: compileQuick(own, true), printer: message.NewPrinter(language.English)}
	if v.quick != nil {
		// A document the quick form covers uses only keywords of known
		// shapes, which always compile: compiling it in full (about 0.2 ms,
		// most of a tool's load time) waits until a value needs it.
		v.full = sync.OnceValues(func() (*fullValidator, error) { return compileFull(own) })
		return v, nil
	}
	full, err := compileFull(own)
	if err != nil {
		return nil, err
	}
	v.full = func() (*fullValidator, error) { return full, nil }
	return v, nil
}

// compileFull compiles doc, a document of JSON's Go values that it takes
// for its own, with santhosh-tekuri/jsonschema.
func compileFull(doc any) (*fullValidator, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(selfContained{})
	if err := c.AddResource(location, doc); err != nil {
		return nil, compileError(err)
	}
	sch, err := c.Compile(location)
	if err != nil {
		return nil, compileError(err)
	}
	f := &fullValidator{schema: sch, known: map[string][]string{}}
	f.index(sch, map[*jsonschema.Schema]bool{})
	return f, nil
}

// selfContained is the URL loader of a compiler: it refuses to load
// anything, so that a schema never reads files or the network.
type selfContained struct{}

// Load refuses to load url.
func (selfContained) Load(url string) (any, error) {
	return nil, errors.New("schemas must be self-contained")
}

// compileError words an error of the compiler for people.
func compileError(err error) error {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var verr *jsonschema.ValidationError
		if errors.As(sve.Err, &verr) {
			v := &Validator{printer: message.NewPrinter(language.English)}
			var vs []Violation
			v.collect(nil, verr, nil, &vs)
			vs = tidy(vs)
			parts := make([]string, len(vs))
			for i, x := range vs {
				parts[i] = displayPointer(x.Pointer) + ": " + x.Message
			}
			return fmt.Errorf("at %s", strings.Join(parts, "; at "))
		}
	}
	var lue *jsonschema.LoadURLError
	if errors.As(err, &lue) {
		return fmt.Errorf("%q is outside the schema, which must be self-contained: put shared parts under \"$defs\" and refer to them as \"#/$defs/name\"", strings.TrimPrefix(lue.URL, base))
	}
	var pnf *jsonschema.JSONPointerNotFoundError
	if errors.As(err, &pnf) {
		return fmt.Errorf("\"$ref\" points at %s, which is not in the schema", strings.TrimPrefix(pnf.URL, location))
	}
	var anf *jsonschema.AnchorNotFoundError
	if errors.As(err, &anf) {
		return fmt.Errorf("\"$ref\" points at %s, which is not in the schema", strings.TrimPrefix(anf.Reference, location))
	}
	var ire *jsonschema.InvalidRegexError
	if errors.As(err, &ire) {
		return fmt.Errorf("the pattern %q at %s is not a valid regular expression: %v", ire.Regex, relative(ire.URL), ire.Err)
	}
	return errors.New(strings.ReplaceAll(err.Error(), location, ""))
}

// relative strips the document's own location from a schema URL.
func relative(url string) string {
	s := strings.TrimPrefix(url, location)
	s = strings.TrimPrefix(s, "#")
	if s == "" {
		return "the root"
	}
	return s
}

// index records the properties of every schema in sch that allows only
// its own properties.
func (v *fullValidator) index(sch *jsonschema.Schema, seen map[*jsonschema.Schema]bool) {
	if sch == nil || seen[sch] {
		return
	}
	seen[sch] = true
	if b, ok := sch.AdditionalProperties.(bool); ok && !b && len(sch.PatternProperties) == 0 {
		names := make([]string, 0, len(sch.Properties))
		for name := range sch.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
		v.known[sch.Location] = names
	}
	for _, p := range sch.Properties {
		v.index(p, seen)
	}
	if p, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
		v.index(p, seen)
	}
	for _, p := range sch.PatternProperties {
		v.index(p, seen)
	}
	if items, ok := sch.Items.(*jsonschema.Schema); ok {
		v.index(items, seen)
	}
	for _, group := range [][]*jsonschema.Schema{sch.PrefixItems, sch.AllOf, sch.AnyOf, sch.OneOf} {
		for _, p := range group {
			v.index(p, seen)
		}
	}
	for _, p := range []*jsonschema.Schema{sch.Items2020, sch.Ref, sch.Not, sch.If, sch.Then, sch.Else} {
		v.index(p, seen)
	}
	for _, p := range sch.DependentSchemas {
		v.index(p, seen)
	}
}

// Violation is one way in which a value breaks a schema.
type Violation struct {
	// Pointer is the JSON pointer of the part of the value at fault: "" for
	// the value itself, "/city" or "/items/2/id" for parts of it. For an
	// unknown property it points at that property.
	Pointer string
	// Message says what is wrong, as a phrase that follows the pointer,
	// such as "must be at least 1, but got 0" or "missing property 'city'".
	// It repeats numbers and booleans from the value, but not string
	// values, which may be secret.
	Message string
}

// Validate checks a value, returning every violation (not just the first),
// each at the most specific place, ordered by pointer and then message; or
// nil when the value is valid. The value is what encoding/json decodes,
// with or without UseNumber; other Go values, such as []string or
// time.Time, are checked as encoding/json would write them.
func (v *Validator) Validate(value any) []Violation {
	if v.quick != nil && v.quick.accepts(value) {
		return nil
	}
	nv, _, err := native(value)
	if err != nil {
		var ve *valueError
		if errors.As(err, &ve) {
			return []Violation{{Pointer: ve.pointer(), Message: ve.err.Error()}}
		}
		return []Violation{{Message: err.Error()}}
	}
	full, err := v.full()
	if err != nil {
		return []Violation{{Message: "the schema does not compile: " + err.Error()}}
	}
	err = full.schema.Validate(nv)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Violation{{Message: err.Error()}}
	}
	var vs []Violation
	v.collect(full.known, verr, nv, &vs)
	return tidy(vs)
}

// ValidatePartial checks obj as Validate does, except that properties
// missing from it are not violations: for an object that holds only some of
// the properties, such as the arguments that have defaults.
func (v *Validator) ValidatePartial(obj map[string]any) []Violation {
	if v.quick != nil && v.quick.acceptsObject(obj, false) {
		return nil
	}
	var out []Violation
	for _, viol := range v.Validate(obj) {
		if viol.Pointer == "" && strings.HasPrefix(viol.Message, "missing property ") {
			continue
		}
		out = append(out, viol)
	}
	return out
}

// collect appends the violations under e: those of its causes, or e's own
// when it has none that say more.
func (v *Validator) collect(known map[string][]string, e *jsonschema.ValidationError, value any, vs *[]Violation) {
	at := pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*vs = append(*vs, Violation{Pointer: at, Message: "missing property " + quote(name)})
		}
		return
	case *kind.DependentRequired:
		for _, name := range k.Missing {
			*vs = append(*vs, Violation{Pointer: at, Message: fmt.Sprintf("missing property %s, which is required when %s is present", quote(name), quote(k.Prop))})
		}
		return
	case *kind.Dependency:
		for _, name := range k.Missing {
			*vs = append(*vs, Violation{Pointer: at, Message: fmt.Sprintf("missing property %s, which is required when %s is present", quote(name), quote(k.Prop))})
		}
		return
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*vs = append(*vs, Violation{Pointer: at + "/" + escape(name), Message: unknownProperty(name, known[e.SchemaURL])})
		}
		return
	case *kind.PropertyNames:
		var inner []Violation
		for _, c := range e.Causes {
			v.collect(known, c, k.Property, &inner)
		}
		msgs := make([]string, 0, len(inner))
		for _, x := range tidy(inner) {
			msgs = append(msgs, x.Message)
		}
		msg := "the property name " + quote(k.Property) + " is not allowed"
		if len(msgs) > 0 {
			msg += ": it " + strings.Join(msgs, "; it ")
		}
		*vs = append(*vs, Violation{Pointer: at + "/" + escape(k.Property), Message: msg})
		return
	case *kind.Contains, *kind.MinContains, *kind.ContentSchema:
		// Their causes are the items that did not match, which is not
		// what is wrong.
	default:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				v.collect(known, c, value, vs)
			}
			return
		}
	}
	hide := len(e.InstanceLocation) > 0 && slices.Contains(v.hidden, e.InstanceLocation[0])
	*vs = append(*vs, Violation{Pointer: at, Message: v.message(e.ErrorKind, lookup(value, e.InstanceLocation), hide)})
}

// tidy sorts violations by pointer, then message, and drops repeats.
func tidy(vs []Violation) []Violation {
	if len(vs) == 0 {
		return nil
	}
	slices.SortFunc(vs, func(a, b Violation) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(vs)
}

// comparePointers orders JSON pointers token by token, numbers by value, so
// that /items/2 comes before /items/10.
func comparePointers(a, b string) int {
	for a != "" && b != "" {
		var ta, tb string
		ta, a = nextToken(a)
		tb, b = nextToken(b)
		if ta == tb {
			continue
		}
		na, errA := strconv.Atoi(ta)
		nb, errB := strconv.Atoi(tb)
		if errA == nil && errB == nil {
			return na - nb
		}
		return strings.Compare(ta, tb)
	}
	return len(a) - len(b)
}

// nextToken splits the first token off a JSON pointer.
func nextToken(p string) (tok, rest string) {
	p = p[1:]
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// lookup finds the part of a value at the given location, or returns nil.
func lookup(value any, loc []string) any {
	for _, tok := range loc {
		switch x := value.(type) {
		case map[string]any:
			value = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			value = x[i]
		default:
			return nil
		}
	}
	return value
}

// pointer writes tokens as a JSON pointer.
func pointer(tokens []string) string {
	var sb strings.Builder
	for _, tok := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escape(tok))
	}
	return sb.String()
}

// escape escapes one token of a JSON pointer.
func escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

// displayPointer writes a pointer for people: "(root)" for the value
// itself.
func displayPointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// maxShown is how many violations FormatViolations lists before it only
// counts the rest.
const maxShown = 50

// FormatViolations renders violations as one message, one line each, such
// as "- /city: must have at least 1 character, but has 0". A violation of
// the value as a whole is shown at "(root)", as "/" would be the pointer of
// a property named "". Past the first 50 violations, a last line only
// counts the others.
func FormatViolations(vs []Violation) string {
	var sb strings.Builder
	for i, x := range vs {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if i == maxShown {
			fmt.Fprintf(&sb, "- … and %d more", len(vs)-maxShown)
			break
		}
		sb.WriteString("- ")
		sb.WriteString(displayPointer(x.Pointer))
		sb.WriteString(": ")
		sb.WriteString(x.Message)
	}
	return sb.String()
}
