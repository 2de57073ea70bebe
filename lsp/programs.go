package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// What an expr program may read at a place is what the load compiled it
// against there: the load tells the server of every expression it
// compiles (load.Options.Programs), with the variables its programs read
// and their types, and the server keeps them by file. Completion and
// hover inside expr("…") read them; nothing is run.

// site is one expression whose programs the load compiled.
type site struct {
	rng   hcl.Range     // the expression, in the text the load read
	env   mapping.Env   // what its programs may read
	value mapping.Value // what it compiled to; nil when it did not compile
}

// siteSet is the sites of one file, and the text the load read of it.
type siteSet struct {
	text  string
	sites []site
}

// siteCollector gathers the sites of one load, from the load's workers.
type siteCollector struct {
	mu    sync.Mutex
	sites map[string][]site // by file
}

func (c *siteCollector) add(e hcl.Expression, env mapping.Env, v mapping.Value) {
	rng := e.Range()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sites == nil {
		c.sites = map[string][]site{}
	}
	c.sites[rng.Filename] = append(c.sites[rng.Filename], site{rng: rng, env: env, value: v})
}

// keepSites records the sites of the open documents among files. A load
// that compiled fewer of a file's programs than the load before, with an
// error in the file (a syntax error that cut it short), keeps the sites
// of the load before: the programs are likely still there.
func (s *server) keepSites(c *siteCollector, docs map[string]*document, texts map[string]string, diags hcl.Diagnostics) {
	broken := map[string]bool{}
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Subject != nil {
			broken[d.Subject.Filename] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for path := range docs {
		text, ok := texts[path]
		if !ok {
			continue
		}
		sites := c.sites[path]
		if prev := s.sites[path]; prev != nil && broken[path] && len(sites) < len(prev.sites) {
			continue
		}
		s.sites[path] = &siteSet{text: text, sites: sites}
	}
}

// programAt returns the site of the expression of d at the byte offset
// off, the expression's own or, for one the load has not seen yet (typed
// since), the nearest one before it in the same block; and the view that
// maps d's offsets to the site's text.
func (s *server) programAt(d *document, off int) (site, view, bool) {
	s.mu.Lock()
	set := s.sites[d.path]
	s.mu.Unlock()
	if set == nil || len(set.sites) == 0 {
		return site{}, view{}, false
	}
	v := newView(&parsedFile{text: set.text}, d.text)
	old := v.toOld(off)
	best := -1
	for i, st := range set.sites {
		if contains(st.rng, old) && (best < 0 || st.rng.End.Byte-st.rng.Start.Byte < set.sites[best].rng.End.Byte-set.sites[best].rng.Start.Byte) {
			best = i
		}
	}
	if best >= 0 {
		return set.sites[best], v, true
	}
	// Not one the load saw: the nearest before it in the innermost block
	// that has one, as the syntax of d has it now.
	sv := s.syntax(d)
	blocks := enclosing(sv.f.body, sv.toOld(off))
	for i := len(blocks) - 1; i >= 0; i-- {
		start := v.toOld(sv.toNew(blocks[i].OpenBraceRange.End.Byte))
		end := v.toOld(sv.toNew(blocks[i].CloseBraceRange.Start.Byte))
		best = -1
		for j, st := range set.sites {
			if st.rng.Start.Byte >= start && st.rng.End.Byte <= end && st.rng.End.Byte <= old && (best < 0 || st.rng.End.Byte > set.sites[best].rng.End.Byte) {
				best = j
			}
		}
		if best < 0 {
			// Or the first after it.
			for j, st := range set.sites {
				if st.rng.Start.Byte >= start && st.rng.End.Byte <= end && (best < 0 || st.rng.Start.Byte < set.sites[best].rng.Start.Byte) {
					best = j
				}
			}
		}
		if best >= 0 {
			return set.sites[best], v, true
		}
	}
	return site{}, view{}, false
}

var (
	// expr("… : the program written so far, on the line
	programPrefix = regexp.MustCompile(`\bexpr\(\s*"((?:[^"\\]|\\.)*)$`)
	// body.main.te, steps.fetch?.body., items[0].na: a path read, and the
	// name being written after its last dot
	pathPrefix = regexp.MustCompile(`([A-Za-z_]\w*(?:\s*\??\.\s*[A-Za-z_]\w*|\[[^\[\]]*\])*)\s*\??\.\s*(\w*)$`)
	// a name being written, not after a dot
	namePart = regexp.MustCompile(`(?:^|[^\w.])(\w*)$`)
	// the steps of a path
	pathStep = regexp.MustCompile(`[A-Za-z_]\w*|\[[^\[\]]*\]`)
)

// programItems completes inside an expr("…") program at off: the fields
// of what the path before the cursor reads, or the variables and functions
// the program may name. program is the program's text before the cursor.
// It returns nil, false when the load has not told what the program reads.
func (s *server) programItems(d *document, off int, program string) ([]protocol.CompletionItem, bool) {
	st, _, ok := s.programAt(d, off)
	if !ok {
		return nil, false
	}
	if m := pathPrefix.FindStringSubmatch(program); m != nil {
		t, ok := pathType(st.env, m[1])
		if !ok {
			return nil, true
		}
		return fieldItems(t), true
	}
	if namePart.MatchString(program) {
		var items []protocol.CompletionItem
		for _, name := range slices.Sorted(maps.Keys(st.env)) {
			items = append(items, protocol.CompletionItem{
				Label: name, Kind: ptr(protocol.CompletionItemKindVariable), Detail: ptr(typeText(st.env[name])),
				Documentation: markdown(fmt.Sprintf("`%s` (%s): what this program may read here.", name, typeText(st.env[name]))),
			})
		}
		for _, f := range mapping.Callables() {
			doc := "A function of mcpdecl."
			if f.Builtin {
				doc = "A builtin of expr-lang: see https://expr-lang.org/docs/language-definition."
			}
			item := protocol.CompletionItem{Label: f.Name, Kind: ptr(protocol.CompletionItemKindFunction), Documentation: markdown(doc)}
			if f.Signature != "" {
				item.Detail = ptr(signatureText(f.Signature))
			}
			items = append(items, item)
		}
		return items, true
	}
	return nil, true
}

// pathType is the type of what path (args.city, body.items[0]) reads in
// env; ok is false when env does not say.
func pathType(env mapping.Env, path string) (types.Type, bool) {
	steps := pathStep.FindAllString(path, -1)
	if len(steps) == 0 {
		return nil, false
	}
	t, ok := env[steps[0]]
	if !ok {
		return nil, false
	}
	for _, step := range steps[1:] {
		if strings.HasPrefix(step, "[") {
			elem, ok := mapping.ElemType(t)
			if !ok {
				return nil, false
			}
			t = elem
			continue
		}
		m, ok := t.(types.Map)
		if !ok {
			return nil, false
		}
		if f, ok := m[step]; ok {
			t = f
		} else if f, ok := m[types.Extra]; ok {
			t = f
		} else {
			return nil, false
		}
	}
	return t, true
}

// fieldItems are the fields of t, when it is an object whose fields are
// known.
func fieldItems(t types.Type) []protocol.CompletionItem {
	m, ok := t.(types.Map)
	if !ok {
		return nil
	}
	var items []protocol.CompletionItem
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if name == types.Extra {
			continue
		}
		items = append(items, protocol.CompletionItem{Label: name, Kind: ptr(protocol.CompletionItemKindField), Detail: ptr(typeText(m[name]))})
	}
	return items
}

// typeText names a type of a program's variable for people: string, int,
// number, bool, any, list of T, object (a, b), map of T.
func typeText(t types.Type) string {
	if t == nil {
		return "any"
	}
	if elem, ok := mapping.ElemType(t); ok {
		return "list of " + typeText(elem)
	}
	switch t := t.(type) {
	case types.Map:
		fields := slices.Sorted(maps.Keys(t))
		if extra, ok := t[types.Extra]; ok && len(fields) == 1 {
			return "map of " + typeText(extra)
		}
		fields = slices.DeleteFunc(fields, func(f string) bool { return f == types.Extra })
		return "object (" + strings.Join(fields, ", ") + ")"
	}
	switch t {
	case types.Any:
		return "any"
	case types.Nil:
		return "null"
	case types.Float64:
		return "number"
	case types.Int, types.Int64:
		return "int"
	}
	s := t.String()
	if strings.HasPrefix(s, "Array{") {
		return "list"
	}
	return s
}

// goTypeText names the Go type of a program's result for people.
func goTypeText(t reflect.Type) string {
	if t == nil {
		return "any (known when it runs)"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Interface:
		return "any (known when it runs)"
	}
	return t.String()
}

// signatureText is a function's Go signature with any for interface {}.
func signatureText(sig string) string {
	return strings.ReplaceAll(sig, "interface {}", "any")
}

// programHover describes the expr program of d at off: the type of what
// the path under the cursor reads, and the type of the program's result.
func (s *server) programHover(d *document, off int) (*protocol.Hover, bool) {
	st, v, ok := s.programAt(d, off)
	if !ok || !contains(st.rng, v.toOld(off)) {
		return nil, false
	}
	var parts []string
	var rng *protocol.Range
	// The path under the cursor.
	lineStart := strings.LastIndexByte(d.text[:off], '\n') + 1
	lineEnd := strings.IndexByte(d.text[off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(d.text)
	} else {
		lineEnd += off
	}
	line := d.text[lineStart:lineEnd]
	for _, m := range hoverPath.FindAllStringIndex(line, -1) {
		if lineStart+m[0] <= off && off <= lineStart+m[1] {
			// The path up to the step under the cursor.
			upTo := line[m[0]:]
			if end := off - lineStart - m[0]; end < len(upTo) {
				rest := upTo[end:]
				n := len(rest) - len(strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"))
				upTo = upTo[:end+n]
			}
			if t, ok := pathType(st.env, upTo); ok {
				parts = append(parts, fmt.Sprintf("`%s`: %s", strings.Join(strings.Fields(upTo), ""), typeText(t)))
				r := protocol.Range{Start: position(d.text, lineStart+m[0]), End: position(d.text, lineStart+m[0]+len(upTo))}
				rng = &r
			}
			break
		}
	}
	// The program's result.
	for _, p := range mapping.Programs(st.value) {
		if contains(p.Range, v.toOld(off)) {
			parts = append(parts, fmt.Sprintf("**expr program**: yields %s", goTypeText(p.Result)))
			break
		}
	}
	if st.value == nil {
		parts = append(parts, "**expr program**: it does not compile (see its diagnostic)")
	}
	if len(parts) == 0 {
		return nil, false
	}
	return &protocol.Hover{Contents: markdown(strings.Join(parts, "\n\n")), Range: rng}, true
}

// hoverPath matches a path read in a program: args.city, body.items[0].name.
var hoverPath = regexp.MustCompile(`[A-Za-z_]\w*(?:\s*\??\.\s*[A-Za-z_]\w*|\[[^\[\]]*\])*`)

// keepSchemas records the input schemas of the tools of a configuration
// that loaded, by the open file that declares them: hover shows an
// argument's. A configuration with errors keeps those of the last load
// that had none.
func (s *server) keepSchemas(cfg *engine.Config, docs map[string]*document) {
	byFile := map[string]map[string]map[string]any{}
	for _, t := range cfg.Tools {
		name := t.Range().Filename
		if _, open := docs[name]; !open {
			continue
		}
		if byFile[name] == nil {
			byFile[name] = map[string]map[string]any{}
		}
		byFile[name][t.Name()] = t.InputSchema()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for path := range docs {
		s.schemas[path] = byFile[path]
	}
}

// argSchema is the JSON Schema of the argument arg of the tool tool
// declared in d, as the last load that succeeded made it, indented; "" when
// there is none.
func (s *server) argSchema(d *document, tool, arg string) string {
	s.mu.Lock()
	sch := s.schemas[d.path][tool]
	s.mu.Unlock()
	props, _ := sch["properties"].(map[string]any)
	p, ok := props[arg]
	if !ok {
		return ""
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}
