package mapping

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

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
	msg := e.Err.Error()
	var fe *file.Error
	if errors.As(e.Err, &fe) {
		msg = fe.Message
	}
	return fmt.Sprintf("%s:%d: expr(%q) failed: %s", e.Range.Filename, e.Range.Start.Line, e.Program, msg)
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
		return nil, &Error{Range: p.rng, Program: p.text, Err: err}
	}
	return out, nil
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
