package mapping

import (
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A Path is what a program reads: a variable, or a field or an item of one
// reached by names and indices written in the program, such as
// structured.words or requests[0].headers['user-agent'].
type Path struct {
	root  string
	steps []any // string: a field; int: an index, from the end when negative
}

// Root is the variable the path starts from.
func (p Path) Root() string { return p.root }

// Field is the first field the path reads of its variable, such as words
// for structured.words; "" when it reads the variable whole.
func (p Path) Field() string {
	if len(p.steps) == 0 {
		return ""
	}
	s, _ := p.steps[0].(string)
	return s
}

// String writes the path as a program would: structured.words,
// requests[0].headers['user-agent'].
func (p Path) String() string {
	var b strings.Builder
	b.WriteString(p.root)
	for _, s := range p.steps {
		switch s := s.(type) {
		case string:
			if hclsyntax.ValidIdentifier(s) && !strings.Contains(s, "-") {
				b.WriteString("." + s)
			} else {
				b.WriteString("['" + strings.ReplaceAll(s, "'", `\'`) + "']")
			}
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		}
	}
	return b.String()
}

// Lookup finds the value at p in env, as a program run with env reads it;
// ok is false when a step is missing (a program reads nil there).
func (p Path) Lookup(env map[string]any) (v any, ok bool) {
	v, ok = env[p.root]
	for _, s := range p.steps {
		if !ok {
			return nil, false
		}
		switch s := s.(type) {
		case string:
			m, isMap := v.(map[string]any)
			v, ok = m[s]
			ok = ok && isMap
		case int:
			l, isList := v.([]any)
			if s < 0 {
				s += len(l)
			}
			if !isList || s < 0 || s >= len(l) {
				return nil, false
			}
			v = l[s]
		}
	}
	return v, ok
}

// Paths lists what the programs of v read, in the order written, each
// once; a path that only leads to a longer one (structured on the way to
// structured.words) is left out. A read through a computed name or index,
// such as items[i], is listed up to it.
func Paths(v Value) []Path {
	var all []Path
	add := func(p Path) {
		if !slices.ContainsFunc(all, p.equal) {
			all = append(all, p)
		}
	}
	var walk func(Value)
	walk = func(v Value) {
		switch x := v.(type) {
		case *program:
			node := x.prog.Node()
			ast.Find(node, func(n ast.Node) bool {
				if p, ok := pathOf(n); ok {
					add(p)
				}
				return false
			})
		case list:
			for _, e := range x {
				walk(e)
			}
		case object:
			for _, e := range x.values {
				walk(e)
			}
		}
	}
	walk(v)
	return slices.DeleteFunc(slices.Clone(all), func(p Path) bool {
		return slices.ContainsFunc(all, p.leadsTo)
	})
}

// pathOf is the path n reads, when it is a variable or a chain of fields
// and items of one, by constant names and indices.
func pathOf(n ast.Node) (Path, bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return Path{root: n.Value}, true
	case *ast.ChainNode:
		return pathOf(n.Node)
	case *ast.MemberNode:
		if n.Method {
			return Path{}, false
		}
		p, ok := pathOf(n.Node)
		if !ok {
			return Path{}, false
		}
		var step any
		switch prop := n.Property.(type) {
		case *ast.StringNode:
			step = prop.Value
		case *ast.IntegerNode:
			step = prop.Value
		case *ast.ConstantNode:
			switch c := prop.Value.(type) {
			case string, int:
				step = c
			default:
				return Path{}, false
			}
		default:
			return Path{}, false
		}
		return Path{root: p.root, steps: append(slices.Clip(p.steps), step)}, true
	}
	return Path{}, false
}

// leadsTo reports whether q goes on from p: p is a shorter start of it.
func (p Path) leadsTo(q Path) bool {
	return p.root == q.root && len(p.steps) < len(q.steps) && slices.Equal(p.steps, q.steps[:len(p.steps)])
}

func (p Path) equal(q Path) bool { return p.root == q.root && slices.Equal(p.steps, q.steps) }
