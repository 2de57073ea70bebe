package mapping

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sync"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
	"github.com/hashicorp/hcl/v2"
)

// Value is a compiled mix of literals and expr programs, ready to run.
// Values are immutable and safe for concurrent use.
type Value interface {
	// Eval computes the value for one call. env holds the variables the
	// programs were compiled against. The result is shared with nothing
	// else, except the literal parts, which callers must not modify.
	Eval(env map[string]any) (any, error)
}

// Const returns a Value that always yields v.
func Const(v any) Value { return constant{v: v} }

// IsConst reports whether v holds no program, and its fixed value if so.
func IsConst(v Value) (any, bool) {
	c, ok := v.(constant)
	return c.v, ok
}

// Error is a program that failed while running: it says which program, and
// where it is written.
type Error struct {
	Range   hcl.Range // where the program's text is
	Program string    // the program's text
	Err     error     // what went wrong
}

// Error reports the failure with the file and line of the program.
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: expr(%q) failed: %s", e.Range.Filename, e.Range.Start.Line, e.Program, e.Reason())
}

// Reason says what went wrong, without the program or its place.
func (e *Error) Reason() string {
	var fe *file.Error
	if _, isText := e.Err.(*textError); !isText && errors.As(e.Err, &fe) {
		return fe.Message
	}
	return e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

type constant struct{ v any }

func (c constant) Eval(map[string]any) (any, error) { return c.v, nil }

// vms reuses expr virtual machines across calls; it holds no state that
// outlives a run.
var vms = sync.Pool{New: newVM}

type program struct {
	prog *vm.Program
	text string
	rng  hcl.Range
}

func (p *program) Eval(env map[string]any) (any, error) {
	m := vms.Get().(*vm.VM)
	out, err := m.Run(p.prog, env)
	vms.Put(m)
	if err != nil {
		if why := explainText(p.text, env); why != nil {
			err = &textError{why: why, err: err}
		}
		return nil, &Error{Range: p.rng, Program: p.text, Err: err}
	}
	return out, nil
}

// textError is a run that failed on a field of a text result: why says so
// in the user's words; err is expr's own error.
type textError struct {
	why error
	err error
}

func (e *textError) Error() string { return e.why.Error() }

// Unwrap returns both errors.
func (e *textError) Unwrap() []error { return []error{e.why, e.err} }

// fieldRead finds the reads of a field of a result variable, body.title or
// stdout?.name, in a program's text.
var fieldRead = regexp.MustCompile(`\b(body|stdout)\s*\??\.\s*([A-Za-z_][A-Za-z0-9_]*)`)

// explainText says, in the user's words, why a program that failed read a
// field of a result that is text, not JSON: the usual cause of expr's
// "invalid operation: int(string)". It returns nil when that is not what
// happened.
func explainText(program string, env map[string]any) error {
	for _, m := range fieldRead.FindAllStringSubmatch(program, -1) {
		if _, isText := env[m[1]].(string); !isText {
			continue
		}
		why := "the command's output is text: read it with parse = \"json\" to reach its fields"
		if m[1] == "body" {
			ct, _ := env["content_type"].(string)
			if ct == "" {
				ct = "none"
			}
			why = "the response was not JSON, content type " + ct
		}
		return fmt.Errorf("%s is a string (%s), so %s.%s has no value", m[1], why, m[1], m[2])
	}
	return nil
}

type list []Value

func (l list) Eval(env map[string]any) (any, error) {
	out := make([]any, len(l))
	for i, v := range l {
		g, err := v.Eval(env)
		if err != nil {
			return nil, err
		}
		out[i] = g
	}
	return out, nil
}

type object struct {
	keys   []string
	values []Value
}

func (o object) Eval(env map[string]any) (any, error) {
	out := make(map[string]any, len(o.keys))
	for i, k := range o.keys {
		g, err := o.values[i].Eval(env)
		if err != nil {
			return nil, err
		}
		out[k] = g
	}
	return out, nil
}

// Fields returns the keys and values of v when it is an object whose keys
// are fixed at load time (a map written in HCL), so that callers can treat
// each entry apart, for example to drop null query parameters.
func Fields(v Value) (keys []string, values []Value, ok bool) {
	switch t := v.(type) {
	case object:
		return t.keys, t.values, true
	case constant:
		m, isMap := t.v.(map[string]any)
		if !isMap {
			return nil, nil, false
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			keys = append(keys, k)
			values = append(values, constant{v: m[k]})
		}
		return keys, values, true
	}
	return nil, nil, false
}

// Reads reports whether a program of v reads the variable name, such as
// "caller": what runs v may then leave out what no program reads.
func Reads(v Value, name string) bool {
	switch x := v.(type) {
	case *program:
		return ast.Find(x.prog.Node(), func(n ast.Node) bool {
			id, ok := n.(*ast.IdentifierNode)
			return ok && id.Value == name
		}) != nil
	case list:
		return slices.ContainsFunc(x, func(e Value) bool { return Reads(e, name) })
	case object:
		return slices.ContainsFunc(x.values, func(e Value) bool { return Reads(e, name) })
	}
	return false
}

// A Program is one expr program of a Value as compiled: its text, where
// it is written, and the Go type the checker gave its result (nil when it
// is only known when the program runs).
type Program struct {
	Text   string
	Range  hcl.Range
	Result reflect.Type
}

// Programs lists the programs of v, in the order written.
func Programs(v Value) []Program {
	switch x := v.(type) {
	case *program:
		return []Program{{Text: x.text, Range: x.rng, Result: ResultType(x)}}
	case list:
		var out []Program
		for _, e := range x {
			out = append(out, Programs(e)...)
		}
		return out
	case object:
		var out []Program
		for _, e := range x.values {
			out = append(out, Programs(e)...)
		}
		return out
	}
	return nil
}
