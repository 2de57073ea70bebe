package mapping

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agext/levenshtein"
	"github.com/mcpdecl/mcpdecl/internal/words"

	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Env describes the variables a program may read, by name, with their types:
// for example types.Map{"args": types.Map{"city": types.String}}. Reading a
// name or a field that Env does not list is a compile error; a variable of
// type types.Any may be read to any depth.
type Env = types.Map

// Compile turns v, the load-time value of expression, into a [Value]:
// literals become ready-made Go values and every expr("…") program in it is
// compiled and type-checked against env. Diagnostics point at the program's
// text inside expression. To compile several expressions against one env,
// a [Scope] works env's types out once for all of them.
func Compile(v cty.Value, expression hcl.Expression, env Env) (Value, hcl.Diagnostics) {
	return NewScope(env).Compile(v, expression)
}

// A Scope is an [Env] made ready for compiling: the types of its variables
// are worked out once for every program compiled in it, rather than once
// per program, and a program compiled twice in it is compiled once. The
// Env must not change once the Scope is made.
type Scope struct {
	env Env
	*shape
}

// A shape is what Scopes of Envs of the same types share: the types worked
// out, and the programs compiled against them, by text.
type shape struct {
	env    Env
	nature nature.Nature

	mu       sync.Mutex
	programs map[string]compiled
}

// compiled is the outcome of compiling one program's text.
type compiled struct {
	prog *vm.Program
	err  error
}

func newShape(env Env) *shape {
	return &shape{env: env, nature: conf.EnvWithCache(&nature.Cache{}, env), programs: map[string]compiled{}}
}

// NewScope makes env ready for compiling programs against it.
func NewScope(env Env) *Scope {
	return &Scope{env: env, shape: newShape(env)}
}

// Scopes makes Scopes that share their work: two Envs of the same types
// (the arguments of two tools that both take a string city, say) get
// Scopes that compile each program once for both, as compiling is the
// same. A load of thousands of similar tools compiles each of their
// common programs once. The zero Scopes is ready to use, and is safe for
// use by several goroutines.
type Scopes struct {
	mu     sync.Mutex
	shapes map[string]*shape
}

// Scope makes env ready for compiling, as [NewScope] does, sharing the work
// with every Scope made by s for an Env of the same types. An Env holding a
// type that Scopes cannot compare (a list made by types.Array rather than
// [Array], say) gets a Scope of its own.
func (s *Scopes) Scope(env Env) *Scope {
	var b strings.Builder
	if !writeShape(&b, env) {
		return NewScope(env)
	}
	key := b.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.shapes[key]
	if sh == nil {
		sh = newShape(env)
		if s.shapes == nil {
			s.shapes = map[string]*shape{}
		}
		s.shapes[key] = sh
	}
	return &Scope{env: env, shape: sh}
}

// writeShape writes a text that says exactly what type t is, the same for
// two types of the same shape: a map's keys in order, quoted, with their
// types; a list's item type; a scalar's name. It reports false for a type
// it cannot tell apart from others.
func writeShape(b *strings.Builder, t types.Type) bool {
	switch t := t.(type) {
	case types.Map:
		b.WriteByte('{')
		for _, k := range slices.Sorted(maps.Keys(t)) {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			if !writeShape(b, t[k]) {
				return false
			}
			b.WriteByte(',')
		}
		b.WriteByte('}')
		return true
	case array:
		b.WriteByte('[')
		ok := writeShape(b, t.of)
		b.WriteByte(']')
		return ok
	}
	for _, scalar := range scalars {
		if t == scalar {
			b.WriteString(t.String())
			return true
		}
	}
	return false
}

// scalars are the types other than maps and lists that Envs hold.
var scalars = [...]types.Type{types.String, types.Int, types.Int64, types.Float64, types.Bool, types.Any, types.Nil}

// Array is the type of a list whose items are of type of: types.Array(of),
// in a form that [Scopes] can compare.
func Array(of types.Type) types.Type { return array{Type: types.Array(of), of: of} }

// array is types.Array(of), with of kept where Scopes can read it.
type array struct {
	types.Type
	of types.Type
}

// Of reports whether s was made from env itself (the same map, not an equal
// one).
func (s *Scope) Of(env Env) bool {
	return reflect.ValueOf(s.env).UnsafePointer() == reflect.ValueOf(env).UnsafePointer()
}

// Compile is [Compile] against the scope's Env.
func (s *Scope) Compile(v cty.Value, expression hcl.Expression) (Value, hcl.Diagnostics) {
	sources := locate(expression)
	var diags hcl.Diagnostics
	tree, err := fromCty(v, func(src *source) (any, error) {
		rng, exact := sources.find(src.text, expression)
		p, err := s.program(src.text)
		if err != nil {
			diags = append(diags, compileDiagnostic(src.text, err, rng, exact, s.env))
			return programMarker{constant{}}, nil
		}
		return programMarker{&program{prog: p, text: src.text, rng: rng}}, nil
	})
	if err != nil {
		return nil, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value",
			Detail:   words.UpperFirst(err.Error()) + ".",
			Subject:  expression.Range().Ptr(),
		})
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return build(tree), nil
}

// program compiles text, or returns what compiling it gave before. A
// compiled program is read-only, so tools share it.
func (sh *shape) program(text string) (*vm.Program, error) {
	sh.mu.Lock()
	c, ok := sh.programs[text]
	sh.mu.Unlock()
	if ok {
		return c.prog, c.err
	}
	c.prog, c.err = sh.compileProgram(text)
	sh.mu.Lock()
	sh.programs[text] = c
	sh.mu.Unlock()
	return c.prog, c.err
}

// baseConfig is the configuration every program is compiled from: expr's
// builtins and ours. Making it is most of what compiling a short program
// costs (expr.Compile makes one per program), so it is made once; the
// checker, optimizer and compiler only read it.
var baseConfig = sync.OnceValue(func() *conf.Config {
	c := conf.CreateNew()
	for _, op := range functions() {
		op(c)
	}
	return c
})

// compileProgram does what expr.Compile(text, expr.Env(env), functions()…)
// does, on a copy of baseConfig, with the shape's Env.
func (sh *shape) compileProgram(text string) (*vm.Program, error) {
	c := *baseConfig()
	c.NtCache = nature.Cache{}
	// What c.WithEnv(sh.env) does, with the types worked out already.
	c.EnvObject = sh.env
	c.Env = sh.nature
	c.Strict = sh.nature.Strict
	tree, err := checker.ParseCheck(text, &c)
	if err != nil {
		return nil, err
	}
	if err := optimizer.Optimize(&tree.Node, &c); err != nil {
		if fe, ok := errors.AsType[*file.Error](err); ok {
			return nil, fe.Bind(tree.Source)
		}
		return nil, err
	}
	return compiler.Compile(tree, &c)
}

// programMarker carries a compiled program through the plain Go tree that
// fromCty builds, so that build can tell it apart from literal values.
type programMarker struct{ Value }

// build turns a Go tree whose leaves may be programs into a Value, folding
// every subtree without programs into one constant.
func build(tree any) Value {
	switch t := tree.(type) {
	case programMarker:
		return t.Value
	case []any:
		items := make([]Value, len(t))
		dynamic := false
		for i, e := range t {
			items[i] = build(e)
			if _, ok := items[i].(constant); !ok {
				dynamic = true
			}
		}
		if !dynamic {
			return constant{v: t}
		}
		return list(items)
	case map[string]any:
		obj := object{keys: make([]string, 0, len(t)), values: make([]Value, 0, len(t))}
		dynamic := false
		for _, k := range slices.Sorted(maps.Keys(t)) {
			v := build(t[k])
			if _, ok := v.(constant); !ok {
				dynamic = true
			}
			obj.keys = append(obj.keys, k)
			obj.values = append(obj.values, v)
		}
		if !dynamic {
			return constant{v: t}
		}
		return obj
	}
	return constant{v: tree}
}

// compileDiagnostic describes a program that failed to compile, pointing at
// the exact column when the program's text maps one-to-one onto the file.
func compileDiagnostic(text string, err error, rng hcl.Range, exact bool, env Env) *hcl.Diagnostic {
	msg := err.Error()
	subject := rng
	var fe *file.Error
	if errors.As(err, &fe) {
		msg = fe.Message
		if exact && fe.Line == 1 {
			subject = columnRange(rng, fe.Column)
		}
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid expr program",
		Detail:   fmt.Sprintf("The program %q does not compile: %s.%s Here a program can read %s.", text, msg, suggest(text, msg, env), describeEnv(env)),
		Subject:  subject.Ptr(),
	}
}

// describeEnv lists the variables of env, and the fields of args, for
// people: "args (city, units), body, status".
func describeEnv(env Env) string {
	names := slices.Sorted(maps.Keys(env))
	parts := make([]string, 0, len(names))
	for _, name := range names {
		fields := mapFields(env[name])
		if name == "args" {
			if len(fields) == 0 {
				parts = append(parts, "args (none are declared here)")
				continue
			}
			parts = append(parts, "args ("+strings.Join(fields, ", ")+")")
			continue
		}
		if name == "caller" {
			parts = append(parts, "caller (who calls: caller.sub, caller.claims…)")
			continue
		}
		if len(fields) > 0 {
			parts = append(parts, name+" ("+strings.Join(fields, ", ")+")")
			continue
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, ", ")
}

// mapFields lists the declared fields of a strict map type.
func mapFields(t types.Type) []string {
	m, ok := t.(types.Map)
	if !ok {
		return nil
	}
	var out []string
	for k := range m {
		if k != types.Extra {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// suggest proposes the closest known name for an unknown one in the
// program text: a variable, or a field of the variable it is read from
// (of args, when the text does not show which).
func suggest(text, msg string, env Env) string {
	var unknown string
	var candidates []string
	switch {
	case strings.HasPrefix(msg, "unknown field "):
		field := strings.TrimPrefix(msg, "unknown field ")
		root := "args"
		for _, name := range slices.Sorted(maps.Keys(env)) {
			if len(mapFields(env[name])) > 0 && readsField(text, name, field) {
				root = name
				break
			}
		}
		candidates = mapFields(env[root])
		for i := range candidates {
			candidates[i] = root + "." + candidates[i]
		}
		unknown = root + "." + field
	case strings.HasPrefix(msg, "unknown name "):
		unknown = strings.TrimPrefix(msg, "unknown name ")
		candidates = slices.Sorted(maps.Keys(env))
	default:
		return ""
	}
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := levenshtein.Distance(unknown, c, nil); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return " Did you mean " + best + "?"
}

// readsField reports whether text reads field of the variable name:
// name.field or name?.field.
func readsField(text, name, field string) bool {
	for rest := text; ; {
		i := strings.Index(rest, name)
		if i < 0 {
			return false
		}
		if i == 0 || !isIdentChar(rest[i-1]) {
			after := strings.TrimLeft(rest[i+len(name):], " ")
			after = strings.TrimPrefix(after, "?")
			if r, ok := strings.CutPrefix(after, "."); ok {
				r = strings.TrimLeft(r, " ")
				if strings.HasPrefix(r, field) && (len(r) == len(field) || !isIdentChar(r[len(field)])) {
					return true
				}
			}
		}
		rest = rest[i+len(name):]
	}
}

func isIdentChar(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// columnRange narrows rng, the range of a program's text, to the one
// character at column col (0-based) of its first line.
func columnRange(rng hcl.Range, col int) hcl.Range {
	start := rng.Start
	start.Column += col
	start.Byte += col
	end := start
	end.Column++
	end.Byte++
	if end.Byte > rng.End.Byte {
		return rng
	}
	return hcl.Range{Filename: rng.Filename, Start: start, End: end}
}

// sourceIndex maps a program's text to where it is written.
type sourceIndex map[string]sourceLoc

type sourceLoc struct {
	rng   hcl.Range // the program's text, without quotes when exact
	exact bool      // the text in the file is the program byte for byte
}

// locate finds every expr("…") call inside expression.
func locate(expression hcl.Expression) sourceIndex {
	idx := sourceIndex{}
	node, ok := expression.(hclsyntax.Node)
	if !ok {
		return idx
	}
	_ = hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		call, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok || call.Name != "expr" || len(call.Args) != 1 {
			return nil
		}
		arg := call.Args[0]
		v, diags := arg.Value(nil)
		if diags.HasErrors() || v.Type() != cty.String || !v.IsKnown() || v.IsNull() {
			return nil
		}
		text := v.AsString()
		if _, seen := idx[text]; seen {
			return nil
		}
		loc := sourceLoc{rng: arg.Range()}
		if t, ok := arg.(*hclsyntax.TemplateExpr); ok && len(t.Parts) == 1 {
			if lit, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
				r := lit.SrcRange
				if r.End.Byte-r.Start.Byte == len(text) && r.Start.Line == r.End.Line {
					loc = sourceLoc{rng: r, exact: true}
				}
			}
		}
		idx[text] = loc
		return nil
	})
	return idx
}

func (idx sourceIndex) find(text string, expression hcl.Expression) (hcl.Range, bool) {
	if loc, ok := idx[text]; ok {
		return loc.rng, loc.exact
	}
	return expression.Range(), false
}

// ResultType is the Go type a Value yields, when it is known at load time:
// the checked type of a program, the type of a literal. It is nil when the
// type is only known at call time.
func ResultType(v Value) reflect.Type {
	switch t := v.(type) {
	case *program:
		rt := t.prog.Node().Type()
		if rt == nil || rt.Kind() == reflect.Interface {
			return nil
		}
		return rt
	case constant:
		if t.v == nil {
			return nil
		}
		return reflect.TypeOf(t.v)
	}
	return nil
}

// newVM is used by the pool of expr virtual machines; a VM keeps its stack
// between runs, so reusing one saves allocations on every call.
func newVM() any { return new(vm.VM) }

// ElemType is the type of the items of t, a list type made by [Array];
// ok is false for any other type.
func ElemType(t types.Type) (elem types.Type, ok bool) {
	if a, is := t.(array); is {
		return a.of, true
	}
	return nil, false
}
