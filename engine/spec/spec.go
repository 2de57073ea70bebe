package spec

import (
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// Kind is what an attribute holds.
type Kind string

// The kinds of attributes.
const (
	KindString   Kind = "string"
	KindInt      Kind = "int"      // a whole number
	KindBool     Kind = "bool"     // true or false
	KindDuration Kind = "duration" // a positive duration, such as "10s"
	KindEnum     Kind = "enum"     // one of a few strings
	KindList     Kind = "list"     // a list of Elem
	KindMap      Kind = "map"      // a map of string to Elem
	KindExpr     Kind = "expr"     // literals mixed with expr(…) programs, run per call
	KindAny      Kind = "any"      // any load-time value
	KindType     Kind = "type"     // a type constraint, such as string or list(number)
)

// Type is an attribute's type.
type Type struct {
	Kind Kind
	// Elem is the type of the elements of a list or a map.
	Elem *Type
	// Choices are the values of an enum.
	Choices []Choice
}

// Choice is one value of an enum, and what it means.
type Choice struct {
	Value string `json:"value"`
	Doc   string `json:"doc,omitempty"` // a few words, such as "this process"; may be empty
}

// Attr declares one attribute of a block.
type Attr struct {
	Name string
	Type Type
	// Doc follows the attribute's name to make a sentence, in the
	// reference and in errors: "is how long a result is kept".
	Doc string
	// Required attributes must be written.
	Required bool
	// Default is the value of an absent attribute, of the Go type its
	// accessor returns (int64 for KindInt, time.Duration for
	// KindDuration…); nil when the zero value is the default, or when the
	// default is computed (DefaultDoc says which).
	Default any
	// DefaultDoc describes a default that is not a plain value.
	DefaultDoc string
	// Min and Max bound an int, or a duration in nanoseconds.
	Min, Max *int64
	// Secret attributes may hold a secret, such as a password in a URL:
	// it is never printed. Give it from a sensitive variable.
	Secret bool
	// Public attributes are shown to every client that connects: they
	// must not hold a value derived from a sensitive variable.
	Public bool
	// Aliases are former names, still read, with a warning.
	Aliases []string
	// Lazy attributes are checked for presence only: the block's code
	// evaluates them, as a variable's default.
	Lazy bool
}

// Nested declares a block that a block may contain, and how many times.
type Nested struct {
	Block *Block
	// Min and Max bound how many such blocks; Max 0 means any number.
	Min, Max int
}

// Block declares one block of the language.
type Block struct {
	// Name is the block's type, as written: "cache".
	Name string
	// In names the block it is nested in, for the reference ("tool"), as
	// a path from the top level when that block is nested too
	// ("http_api › auth"); "" for a top-level block.
	In string
	// Labels name the block's labels: ["name"] for variable "x" {…}.
	Labels []string
	// Summary is one line: what the block declares.
	Summary string
	// Doc is a paragraph for the reference.
	Doc string
	// Example is HCL of the block that validates.
	Example string
	Attrs   []*Attr
	Blocks  []Nested
	// Open blocks take attributes of any name, each a value of the
	// user's (locals); Attrs is then empty.
	Open bool

	once   sync.Once
	schema *hcl.BodySchema
	index  map[string]int // attribute names and aliases → index in Attrs
}

// ID names the block in the reference: "cache", "tool-cache", or
// "http_api-auth-oauth2".
func (b *Block) ID() string {
	if b.In != "" {
		return strings.ReplaceAll(b.In, " › ", "-") + "-" + b.Name
	}
	return b.Name
}

// Path names the block for people: "cache", "tool › cache", or
// "http_api › auth › oauth2".
func (b *Block) Path() string {
	if b.In != "" {
		return b.In + " › " + b.Name
	}
	return b.Name
}

// Header is the block's header, for the schema of the body it is in.
func (b *Block) Header() hcl.BlockHeaderSchema {
	return hcl.BlockHeaderSchema{Type: b.Name, LabelNames: b.Labels}
}

// Attr returns the attribute of that name, or nil.
func (b *Block) Attr(name string) *Attr {
	b.prepare()
	if i, ok := b.index[name]; ok {
		return b.Attrs[i]
	}
	return nil
}

// prepare derives, once, the HCL schema of the body and the index of the
// attributes.
func (b *Block) prepare() {
	b.once.Do(func() {
		s := &hcl.BodySchema{}
		b.index = map[string]int{}
		for i, a := range b.Attrs {
			// An attribute with former names is required by Decode, which
			// accepts any of them.
			s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a.Name, Required: a.Required && len(a.Aliases) == 0})
			b.index[a.Name] = i
			for _, alias := range a.Aliases {
				s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: alias})
				b.index[alias] = i
			}
		}
		for _, n := range b.Blocks {
			s.Blocks = append(s.Blocks, n.Block.Header())
		}
		b.schema = s
	})
}

// The attributes' constructors. Each returns an attribute that the methods
// below refine, as in Int("requests", "is …").Range(1, 1000).Mandatory().

// String declares a string attribute.
func String(name, doc string) *Attr { return &Attr{Name: name, Type: Type{Kind: KindString}, Doc: doc} }

// Int declares a whole-number attribute.
func Int(name, doc string) *Attr { return &Attr{Name: name, Type: Type{Kind: KindInt}, Doc: doc} }

// Bool declares a true-or-false attribute.
func Bool(name, doc string) *Attr { return &Attr{Name: name, Type: Type{Kind: KindBool}, Doc: doc} }

// Duration declares a positive duration, such as "10s".
func Duration(name, doc string) *Attr {
	return &Attr{Name: name, Type: Type{Kind: KindDuration}, Doc: doc}
}

// Enum declares a string that is one of choices.
func Enum(name, doc string, choices ...Choice) *Attr {
	return &Attr{Name: name, Type: Type{Kind: KindEnum, Choices: choices}, Doc: doc}
}

// Choices are choices without a description of their own.
func Choices(values ...string) []Choice {
	c := make([]Choice, len(values))
	for i, v := range values {
		c[i] = Choice{Value: v}
	}
	return c
}

// List declares a list whose elements are of kind elem (a scalar kind).
func List(name string, elem Kind, doc string) *Attr {
	return &Attr{Name: name, Type: Type{Kind: KindList, Elem: &Type{Kind: elem}}, Doc: doc}
}

// Map declares a map of strings to values of kind elem (a scalar kind).
func Map(name string, elem Kind, doc string) *Attr {
	return &Attr{Name: name, Type: Type{Kind: KindMap, Elem: &Type{Kind: elem}}, Doc: doc}
}

// Expr declares a value that may mix literals and expr(…) programs.
func Expr(name, doc string) *Attr { return &Attr{Name: name, Type: Type{Kind: KindExpr}, Doc: doc} }

// Any declares an attribute of any load-time value.
func Any(name, doc string) *Attr { return &Attr{Name: name, Type: Type{Kind: KindAny}, Doc: doc} }

// TypeConstraint declares an attribute that is a type: string,
// list(number), object({…}), any.
func TypeConstraint(name, doc string) *Attr {
	return &Attr{Name: name, Type: Type{Kind: KindType}, Doc: doc}
}

// Mandatory makes the attribute required.
func (a *Attr) Mandatory() *Attr { a.Required = true; return a }

// WithDefault sets the default of an absent attribute.
func (a *Attr) WithDefault(v any) *Attr { a.Default = v; return a }

// DefaultIs describes a default that is not a plain value.
func (a *Attr) DefaultIs(doc string) *Attr { a.DefaultDoc = doc; return a }

// Range bounds an int, or a duration in nanoseconds, to [lo, hi].
func (a *Attr) Range(lo, hi int64) *Attr { a.Min, a.Max = &lo, &hi; return a }

// AtLeast bounds an int, or a duration in nanoseconds, from below.
func (a *Attr) AtLeast(lo int64) *Attr { a.Min = &lo; return a }

// AtMost bounds an int, or a duration in nanoseconds, from above.
func (a *Attr) AtMost(hi int64) *Attr { a.Max = &hi; return a }

// MaySecret marks an attribute that may hold a secret.
func (a *Attr) MaySecret() *Attr { a.Secret = true; return a }

// Shown marks an attribute that every client sees.
func (a *Attr) Shown() *Attr { a.Public = true; return a }

// Formerly adds former names of the attribute.
func (a *Attr) Formerly(names ...string) *Attr { a.Aliases = append(a.Aliases, names...); return a }

// Unevaluated makes the attribute lazy: the block's code evaluates it.
func (a *Attr) Unevaluated() *Attr { a.Lazy = true; return a }

// Declarer is an adapter that declares its blocks by specs: its action
// block and, when it has one, its top-level block. The reference and
// `mcpdecl schema` list the specs of the adapters a build registers.
type Declarer interface {
	Specs() []*Block
}
