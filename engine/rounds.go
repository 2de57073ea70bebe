package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// round is what a call of a tool that asks has been answered so far, and
// what it asks now. A call may ask in several rounds: the arguments it
// lacks (and the client's roots), then the confirmation (with the roots,
// and a sample that needs neither), then the sample; each round is an
// input_required result whose request state carries the answers of the
// rounds before, signed, so that the client need only answer the last one
// and any replica resumes the call.
type round struct {
	raw  json.RawMessage // the arguments as the client sent them
	sent map[string]any  // raw decoded, once
	// answers are those the request state carried and the answers to its
	// questions.
	answers map[string]Answer
	pending []*Question
	ttl     time.Duration
}

type roundKey struct{}

func roundFrom(ctx context.Context) *round {
	r, _ := ctx.Value(roundKey{}).(*round)
	return r
}

// sentArgs are the arguments as the client sent them: the request states
// are bound to them, as they come back the same in every round.
func (r *round) sentArgs() map[string]any {
	if r.sent != nil {
		return r.sent
	}
	r.sent = map[string]any{}
	if len(bytes.TrimSpace(r.raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(r.raw))
		dec.UseNumber()
		var m map[string]any
		if dec.Decode(&m) == nil && m != nil {
			r.sent = m
		}
	}
	return r.sent
}

// ask adds q to the round, whose answer may take ttl (0: the default).
func (r *round) ask(q *Question, ttl time.Duration) {
	r.pending = append(r.pending, q)
	r.ttl = max(r.ttl, ttl)
}

// resume starts the round of a call with raw: the request state the
// client echoed, if any, is checked and taken, and with it the answers
// to its questions. A state refused ends the call with res.
func (t *Tool) resume(ctx context.Context, raw json.RawMessage) (r *round, res *Result) {
	r = &round{raw: raw, answers: map[string]Answer{}}
	a := askingFrom(ctx)
	if a == nil || a.State == "" {
		// A first call; answers without the state of their questions
		// are asked again.
		return r, nil
	}
	c, err := t.states.verify(ctx, a.State, t.spec.Name, r.sentArgs())
	if err != nil {
		res = refused(OutcomeInvalid, err.Error())
		res.StateError = err
		if t.spec.Confirm != nil || t.askable != nil {
			res.Confirmation = ConfirmRefused
		}
		return nil, res
	}
	for k, p := range c.Prior {
		r.answers[k] = Answer{Action: p.Action, Content: p.Content, Roots: p.Roots, IsRoots: p.IsRoots}
	}
	for _, k := range c.Asked {
		if ans, ok := a.Answers[k]; ok {
			r.answers[k] = ans
		}
	}
	return r, nil
}

// asked is the result that puts the round's questions to the client,
// with the request state that carries the answers so far.
func (t *Tool) asked(ctx context.Context, r *round) *Result {
	keys := make([]string, len(r.pending))
	confirms := false
	for i, q := range r.pending {
		keys[i] = q.Key
		confirms = confirms || (q.Sample == nil && !q.Roots)
	}
	state, err := t.states.sign(ctx, t.spec.Name, r.sentArgs(), r.ttl, keys, r.answers)
	if err != nil {
		return errorResult(err.Error())
	}
	res := &Result{Round: &Round{Questions: r.pending, State: state}}
	if confirms {
		res.Confirmation = ConfirmAsked
	}
	return res
}

// Roots is a tool's roots block, or what its arguments within_roots
// imply: the call asks the client for its roots (roots/list).
type Roots struct {
	// Key names the question in the input requests of 2026-07-28
	// ([DefaultRootsKey] by default).
	Key string
}

// DefaultRootsKey names the question for the client's roots in the input
// requests of 2026-07-28 when the tool names none.
const DefaultRootsKey = "roots"

// maxRoots caps the roots of a client that a call reads.
const maxRoots = 100

// askRoots asks for the client's roots when the round has not their
// answer; res, when not nil, ends the call: the client cannot be asked.
func (t *Tool) askRoots(ctx context.Context, r *round) (res *Result, asked bool) {
	if _, ok := r.answers[t.spec.Roots.Key]; ok {
		return nil, false
	}
	a := askingFrom(ctx)
	if a == nil || !a.Roots {
		why := "it cannot be asked"
		if a != nil && a.RootsWhy != "" {
			why = a.RootsWhy
		}
		res = errorResult(fmt.Sprintf("the tool %s works within the client's roots (the folders it shares), and %s, so nothing was done; use a client that supports roots", t.spec.Name, why))
		res.Confirmation = RootsRefused
		return res, false
	}
	r.ask(&Question{Key: t.spec.Roots.Key, Roots: true}, 0)
	return nil, true
}

// rootsValue is the client's roots as the programs read them: a list of
// {uri, name, path}, path the local path of a file:// URI ("" for
// another).
func rootsValue(roots []Root) []any {
	out := make([]any, 0, len(roots))
	for _, root := range roots {
		p, ok := rootPath(root.URI)
		if ok {
			p = filepath.Clean(p)
		}
		out = append(out, map[string]any{"uri": root.URI, "name": root.Name, "path": p})
	}
	return out
}

// cleanRoots are the client's roots as a call reads them: at most
// maxRoots, their URIs and names cleaned of terminal controls.
func cleanRoots(roots []Root) []Root {
	if len(roots) > maxRoots {
		roots = roots[:maxRoots]
	}
	out := make([]Root, len(roots))
	for i, root := range roots {
		out[i] = Root{URI: text.SanitizeString(TruncateUTF8(root.URI, 4096)), Name: text.SanitizeString(TruncateUTF8(root.Name, 256))}
	}
	return out
}

// checkRoots refuses a call whose arguments within_roots do not lie
// within the client's roots; nil when they all do.
func (t *Tool) checkRoots(args map[string]any, roots []Root, redact func(string) string) *Result {
	var dirs []string
	var uris []string
	for _, root := range roots {
		if p, ok := rootPath(root.URI); ok {
			dirs = append(dirs, resolveOrClean(filepath.Clean(p)))
			uris = append(uris, root.URI)
		}
	}
	for _, arg := range t.spec.Args {
		if !arg.WithinRoots {
			continue
		}
		v, ok := args[arg.Name]
		if !ok || v == nil {
			continue
		}
		s, _ := v.(string)
		shown := "its value"
		if !arg.Sensitive {
			shown = fmt.Sprintf("%q", TruncateUTF8(text.SanitizeString(s), 512))
		}
		if len(dirs) == 0 {
			why := "the client shares no roots"
			if len(roots) > 0 {
				why = "none of the client's roots is a file:// URI"
			}
			return withinRootsError(fmt.Sprintf("the argument %s must lie within the client's roots, and %s, so nothing was done; share a folder with the client (its roots) and call again", arg.Name, why), redact)
		}
		if err := within(s, dirs); err != "" {
			return withinRootsError(fmt.Sprintf("the argument %s (%s) %s, so nothing was done; give a path within the client's roots: %s", arg.Name, shown, err, strings.Join(uris, ", ")), redact)
		}
	}
	return nil
}

func withinRootsError(msg string, redact func(string) string) *Result {
	return refused(OutcomeInvalid, redact(msg))
}

// within says why path does not lie within one of dirs (resolved), ""
// when it does: it is an absolute path, or a file:// URI, without ".."
// and, once the symbolic links of its existing part are resolved, under
// one of dirs.
func within(path string, dirs []string) string {
	if strings.HasPrefix(path, "file:") {
		p, ok := rootPath(path) // decoded, not cleaned: .. is seen
		if !ok {
			return "is a URI that is not a local file:// URI"
		}
		path = p
	}
	if path == "" || strings.ContainsRune(path, 0) {
		return "is not a path"
	}
	if slices.Contains(strings.FieldsFunc(path, func(c rune) bool { return c == '/' || c == filepath.Separator }), "..") {
		return "has a .. in it"
	}
	if !filepath.IsAbs(path) {
		return "is not an absolute path"
	}
	resolved, err := resolveExisting(path)
	if err != nil {
		return "cannot be resolved (" + err.Error() + ")"
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return ""
		}
	}
	if resolved != filepath.Clean(path) {
		return "leads to " + resolved + ", which is not within the client's roots"
	}
	return "is not within the client's roots"
}

// resolveExisting resolves the symbolic links of the part of path that
// exists, and appends the rest: a link that leads out of a root is seen
// even when the file it names is still to be made. A link that leads
// nowhere, or a part that cannot be read, is an error.
func resolveExisting(path string) (string, error) {
	cur, rest := filepath.Clean(path), ""
	for {
		_, err := os.Lstat(cur)
		switch {
		case err == nil:
			r, err := filepath.EvalSymlinks(cur)
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return "", fmt.Errorf("%s: %v", cur, err)
			}
			return filepath.Join(r, rest), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%s: %v", cur, errors.Unwrap(err))
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Clean(path), nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// resolveOrClean is a root's directory with its symbolic links resolved,
// or cleaned when it cannot be.
func resolveOrClean(dir string) string {
	if r, err := resolveExisting(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// rootPath is the local path of a file:// URI, not cleaned; ok is false
// for another URI, one of another host, or one whose path is not
// absolute.
func rootPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", false
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", false
	}
	return p, true
}

// AsksRoots reports whether a call of the tool asks the client for its
// roots.
func (t *Tool) AsksRoots() bool { return t.spec.Roots != nil }
