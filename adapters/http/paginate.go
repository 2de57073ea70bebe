package httpaction

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// The bounds of a paginate block, by default and at most.
const (
	defaultMaxPages = 10
	defaultMaxItems = 1000
	maxMaxPages     = 1000
	maxMaxItems     = 1_000_000
)

// paginate is an http block's paginate block: how a call follows the
// upstream's pages and gathers their items.
type paginate struct {
	items    mapping.Value // the items of one page: a list
	next     mapping.Value // the next request: null, a URL, or query parameters
	maxPages int
	maxItems int
}

// PaginateSpec is the paginate block of an http block.
var PaginateSpec = &spec.Block{
	Name:    "paginate",
	In:      "tool › http",
	Summary: "Follows the upstream's pages and gathers their items into one result.",
	Doc: "Its programs read the action's variables (args, caller), each page's response as outputs see it (status, headers, body, content_type), " +
		"page, the page's number from 1, and links, the URLs of its Link header by relation (links.next). " +
		"next yields the next request: null stops, a string is the next URL (on the same origin), a map gives the next query parameters. " +
		"The result's body is every page's items in order; pages and truncated say how many pages were read and whether a bound stopped it.",
	Example: `paginate {
  items     = expr("body.items")
  next      = expr("body.next_cursor == nil ? nil : {cursor: body.next_cursor}")
  max_pages = 10
}`,
	Attrs: []*spec.Attr{
		spec.Expr("items", "is the items of one page, a list: write it as expr(\"…\"), such as expr(\"body.data\")").Mandatory().Unevaluated(),
		spec.Expr("next", "is the next request, computed from each page: null stops, a URL, or query parameters").Mandatory().Unevaluated(),
		spec.Int("max_pages", "is the most pages a call reads").Range(1, maxMaxPages).WithDefault(defaultMaxPages),
		spec.Int("max_items", "is the most items a call gathers").Range(1, maxMaxItems).WithDefault(defaultMaxItems),
	},
}

// pageEnv is what the programs of a paginate block may read: the action's
// variables (args, caller), the page's response as outputs see it, the
// page's number from 1, and links, the URLs of its Link header by
// relation (links.next).
func pageEnv(actionEnv mapping.Env) mapping.Env {
	env := maps.Clone(actionEnv)
	maps.Copy(env, (*Adapter)(nil).Result())
	env["page"] = types.Int
	env["links"] = types.Map{types.Extra: types.String}
	return env
}

// decodePaginate reads a paginate block; its programs are compiled against
// pageEnv, and ctx.Env is as it was when it returns.
func decodePaginate(ctx *engine.DecodeContext, block *hcl.Block) (*paginate, hcl.Diagnostics) {
	v, diags := PaginateSpec.Decode(block.Body, ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	saved := ctx.Env
	ctx.Env = pageEnv(saved)
	defer func() { ctx.Env = saved }()
	p := &paginate{maxPages: int(v.Int("max_pages")), maxItems: int(v.Int("max_items"))}
	for _, name := range []string{"items", "next"} {
		attr := v.Attr(name)
		m, more := ctx.Value(attr.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			continue
		}
		if isConst(m) {
			diags = append(diags, errorf(attr.Expr.Range(), "Invalid "+name,
				"%s is computed from each page: write it as expr(\"…\"), such as %s.", name, map[string]string{
					"items": `items = expr("body.data")`,
					"next":  `next = expr("body.next_cursor == nil ? nil : {cursor: body.next_cursor}")`,
				}[name]))
			continue
		}
		if name == "items" {
			p.items = m
		} else {
			p.next = m
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return p, diags
}

var _ engine.ProgressEmitter = (*action)(nil)

// EmitsProgress reports whether a call reports its progress: one
// notification per page read, when the block paginates.
func (a *action) EmitsProgress() bool { return a.pages != nil }

// ResultTypes declares what a paginating call adds for the outputs: the
// number of pages read, and whether a bound (max_pages, max_items, the
// tool's max_result_bytes) stopped it before the upstream's last page.
func (a *action) ResultTypes() mapping.Env {
	if a.pages == nil {
		return nil
	}
	return mapping.Env{"pages": types.Int, "truncated": types.Bool}
}

// paginated runs the request of a call and of each next page it leads to,
// and answers with the last page's response whose body is every page's
// items, in order.
func (a *action) paginated(ctx context.Context, env map[string]any, target string, mark int) (*engine.Response, error) {
	p := a.pages
	seen := map[string]int{target: 1}
	var items []any
	truncated := false
	limit := engine.MaxResultBytes(ctx)
	fit := itemsFit{room: limit - resultRoom, size: 2}
	for page := 1; ; page++ {
		resp, err := a.exchange(ctx, env, target, mark)
		if err != nil {
			return nil, pageError(page, err)
		}
		// The page's links, which response read for us from every Link
		// field line: they are for paginate's programs only.
		pageLinks := resp.Vars[linksVar]
		delete(resp.Vars, linksVar)
		resp.Vars["pages"], resp.Vars["truncated"] = page, false
		if resp.Failure != "" {
			// A page that fails fails the call, as one request would.
			return resp, nil
		}
		penv := make(map[string]any, len(env)+len(resp.Vars)+2)
		maps.Copy(penv, env)
		maps.Copy(penv, resp.Vars)
		penv["page"] = page
		penv["links"] = pageLinks
		got, err := p.items.Eval(penv)
		if err != nil {
			return nil, pageError(page, err)
		}
		list, ok := got.([]any)
		if !ok && got != nil {
			return nil, pageError(page, fmt.Errorf("paginate's items gave %s, not a list", mapping.Describe(got)))
		}
		if room := p.maxItems - len(items); len(list) > room {
			list, truncated = list[:room], true
		}
		if limit > 0 {
			var cut bool
			if list, cut = fit.page(list, len(items) == 0, pageBytes(resp)); cut {
				truncated = true
			}
		}
		items = append(items, list...)
		if engine.Progressing(ctx) {
			// Out of max_pages: the upstream's last page may come sooner.
			engine.Progress(ctx, float64(page), float64(p.maxPages), "page "+strconv.Itoa(page)+" read, "+strconv.Itoa(len(items))+" items so far")
		}
		next := any(nil)
		if !truncated {
			if next, err = p.next.Eval(penv); err != nil {
				return nil, pageError(page, err)
			}
		}
		if next != nil && (page == p.maxPages || len(items) == p.maxItems) {
			truncated = true
		}
		if truncated || next == nil {
			if items == nil {
				items = []any{}
			}
			resp.Vars["body"], resp.Vars["pages"], resp.Vars["truncated"] = items, page, truncated
			// The items as text, written only for a tool that shows the
			// action's own content.
			resp.Content = nil
			resp.Text = func() string { return jsonenc.Text(items) }
			return resp, nil
		}
		if target, mark, err = nextURL(target, next); err != nil {
			return nil, pageError(page, err)
		}
		if first, loop := seen[target]; loop {
			return nil, fmt.Errorf("the upstream's pages loop: page %d leads back to the request of page %d; check paginate's next", page, first)
		}
		seen[target] = page + 1
	}
}

// resultRoom is what a result may need beside the items' JSON: the other
// outputs, their keys.
const resultRoom = 256

// itemsFit counts the items of a call's pages against the tool's
// max_result_bytes as they are read, so that the call stops asking for
// pages once the items would not fit in the result: the rest could not be
// shown, and holding it would cost memory for nothing (a thousand pages
// of a MiB, for a result of one).
type itemsFit struct {
	room int64  // for the items' JSON: max_result_bytes less resultRoom
	size int64  // of the items' JSON kept so far
	buf  []byte // the JSON of a page's items, reused while it can be
}

// page keeps the items of one page that fit: it stops before the first
// one that would take the items' JSON past the room, the first item of a
// call being always kept (cut: some were left out). Items that are a small
// part of their page (less than half its bodySize bytes) are copied out of
// it, so that what the call holds is the items, not every page they came
// from: the strings of a decoded body share its bytes.
func (f *itemsFit) page(list []any, first bool, bodySize int) (kept []any, cut bool) {
	b := append(f.buf[:0], '[')
	for i, item := range list {
		start := len(b)
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = jsonenc.Append(b, item); err != nil {
			// Not JSON (a NaN, say): the result will say so; nothing
			// to count it with.
			f.buf = b
			return list, false
		}
		size := int64(len(b) - start)
		if i == 0 && !first {
			size++ // the comma after the items of the pages before
		}
		if f.size+size > f.room && !(first && i == 0) {
			list, cut, b = list[:i], true, b[:start]
			break
		}
		f.size += size
	}
	b = append(b, ']')
	if len(list) == 0 || len(b) >= bodySize/2 {
		f.buf = b
		return list, cut
	}
	f.buf = nil // the copy's strings share b from now on
	if v, err := decodeJSON(b, bodyText(b)); err == nil {
		if copied, ok := v.([]any); ok {
			return copied, cut
		}
	}
	return list, cut
}

// pageBytes is the size of a page's body, as read.
func pageBytes(resp *engine.Response) int {
	if len(resp.Content) != 1 {
		return 0
	}
	return len(resp.Content[0].Text) + len(resp.Content[0].Data)
}

// pageError says which page a call's error came from.
func pageError(page int, err error) error {
	return fmt.Errorf("page %d: %w", page, err)
}

// nextURL is the request that next, the value of paginate's next, asks
// for after target: a URL (relative to target, or absolute on its scheme
// and host), or query parameters to set on target (null removes one, a
// list repeats it). mark is where the URL's query string starts.
func nextURL(target string, next any) (string, int, error) {
	base, err := url.Parse(target)
	if err != nil {
		return "", 0, err
	}
	var u *url.URL
	switch n := next.(type) {
	case string:
		if u, err = base.Parse(n); err != nil {
			return "", 0, fmt.Errorf("paginate's next gave a URL that cannot be read: %w", err)
		}
		if u.Scheme != base.Scheme || u.Host != base.Host {
			other := "another host"
			if u.Host == base.Host {
				other = "another scheme"
			}
			return "", 0, fmt.Errorf("paginate's next leads to %s://%s, %s than the upstream's %s://%s; pages are followed on the upstream's own scheme and host only", u.Scheme, u.Host, other, base.Scheme, base.Host)
		}
	case map[string]any:
		u = base
		q := u.Query()
		for k, v := range n {
			q.Del(k)
			vals := []any{v}
			if list, ok := v.([]any); ok {
				vals = list
			}
			for _, x := range vals {
				if x == nil {
					continue
				}
				s, ok := mapping.Scalar(x)
				if !ok {
					return "", 0, fmt.Errorf("paginate's next gave the query parameter %q the value %s; give a string, a number, a bool, a list of them, or null", k, mapping.Describe(x))
				}
				q.Add(k, s)
			}
		}
		u.RawQuery = q.Encode()
	default:
		return "", 0, fmt.Errorf("paginate's next gave %s; give null to stop, the next page's URL, or an object of query parameters", mapping.Describe(next))
	}
	s := u.String()
	mark := strings.IndexByte(s, '?')
	if mark < 0 {
		mark = len(s)
	}
	return s, mark, nil
}

// linksVar is where response leaves a paginating call's links in the
// page's Vars.
const linksVar = "links"

// links reads the Link header (RFC 8288) of a page, every field line of it
// in order (a response may split its links over several): the target of
// each relation, the first one given for a relation that comes twice.
func links(lines []string) map[string]any {
	out := map[string]any{}
	for _, s := range lines {
		linksOf(s, out)
	}
	return out
}

// linksOf adds the links of one Link field line to out.
func linksOf(s string, out map[string]any) {
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			return
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return
		}
		target, rest := s[i+1:i+j], s[i+j+1:]
		params := rest
		if k := strings.IndexByte(rest, '<'); k >= 0 {
			params = rest[:k]
		}
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), "rel") {
				continue
			}
			v = strings.Trim(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(v), ",")), `"`)
			for _, rel := range strings.Fields(v) {
				if _, dup := out[strings.ToLower(rel)]; !dup {
					out[strings.ToLower(rel)] = target
				}
			}
		}
		s = rest
	}
}
